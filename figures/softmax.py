"""Figures and values of the softmax family: lesson 10.

Data (scripts/bench/benchmarks/softmax.py): ``softmax`` (forward and backward against row
width, the book's kernels and their peers, fp32 and bf16), ``softmax_online`` (the online
kernel's tile and grid swept on long rows, with the whole-row kernel as a ``control``) and
``softmax_online_backward`` (the online backward's tile). A row's ``bytes`` is the least any
softmax must move, so every impl's bandwidth is that count over its time. Values pick rows
by parameter; a peer that did not run on a device gives "not measured".
"""

import math
import re
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, ONLINE, BACKWARD = "softmax", "softmax_online", "softmax_online_backward"
DTYPES = ("float32", "bfloat16")
IMPLS = (
    ("triton", "Triton (kernels/softmax.py)", "triton"),
    ("torch", "torch.softmax", "torch"),
    ("compile", "torch.compile", "compile"),
    ("liger", "Liger-Kernel", "series-3"),
    ("naive", "five torch ops (max, sub, exp, sum, div)", "series-4"),
)
WHOLE_ROW_MAX = 16384  # "short rows": the widths both whole-row kernels keep whole
LONG = 65536  # the long rows the sweep is drawn at
NOT_MEASURED = "not measured"
KERNELS = {"online": "online", "control": "whole_row"}  # the sweep's kernel field
Impl = Literal["triton", "torch", "compile", "liger", "naive"]
Peer = Literal["torch", "compile", "liger", "naive"]
Direction = Literal["forward", "backward"]
Dtype = Literal["float32", "bfloat16"]


def row_of(
    docs: Docs, impl: Impl, cols: int, direction: Direction = "forward", dtype: Dtype = "float32"
) -> dict:
    """The row of ``impl`` at ``cols`` columns."""
    return render.one(docs, BENCH, impl=impl, direction=direction, dtype=dtype, cols=cols)


def ran(
    docs: Docs, impl: Impl, cols: int, direction: Direction = "forward", dtype: Dtype = "float32"
) -> dict | None:
    """``row_of``, or None where ``impl`` did not run."""
    match = {"impl": impl, "direction": direction, "dtype": dtype, "cols": cols}
    return render.maybe_one(docs, BENCH, absent_ok=True, **match)


def forward(docs: Docs, cols: int, dtype: str = "float32") -> dict:
    """The Triton forward's row at ``cols`` columns (the kernel the wrapper picks there)."""
    return row_of(docs, "triton", cols, "forward", dtype)


def compared(docs: Docs, impl: str, direction: str, cols: int | None, dtype: str | None):
    """``impl``'s rows at width ``cols`` (None: all up to 16,384) and ``dtype`` (None: both)."""
    found = render.rows_by(docs, BENCH, "cols", impl=impl, direction=direction)
    wide = [r for r in found if (r["cols"] == cols if cols else r["cols"] <= WHOLE_ROW_MAX)]
    return [r for r in wide if dtype in (None, r["dtype"])]


def sweep(docs: Docs, kernel: str = "online", **match) -> list[dict]:
    """Rows of the online sweep (or its whole-row control) matching ``match`` (None: any)."""
    found = render.select(docs, ONLINE, kernel=KERNELS[kernel], **match)
    return sorted(found, key=lambda r: (r["dtype"], r["cols"], r["block_n"], r["programs"]))


def fastest(docs: Docs, kernel="online", dtype=None, cols=None, tile=None, per_sm=None):
    """The fastest sweep row matching the parameters (None: any), or None."""
    found = sweep(docs, kernel, dtype=dtype, cols=cols, block_n=tile, programs_per_sm=per_sm)
    return max(found, key=render.bandwidth) if found else None


def tile_bytes(row: dict) -> int:
    """Bytes of one tile of a sweep row (older data lacks the field)."""
    return row.get("bytes_per_tile") or row["block_n"] * render.ELEMENT_BYTES[row["dtype"]]


def field(row: dict | None, name: str):
    """A compiler field of a row; None without the row, 'not reported' without the field."""
    v = None if row is None else row.get(name)
    return "not reported" if row is not None and v is None else v


bandwidth_of = render.row_kind(ran, render.bandwidth, "``impl``'s bandwidth at ``cols`` columns.")
time = render.row_kind(row_of, render.p50, "``impl``'s median device seconds at ``cols`` columns.")
n_rows = render.row_kind(forward, lambda r: r["rows"], "Rows of the tensor (512 MiB).")
bytes_moved = render.row_kind(forward, lambda r: r["bytes"], "Bytes the forward must move.")


def floor(docs: Docs, cols: int, passes: int = 2) -> float:
    """``passes`` passes over the fp32 tensor at copy bandwidth, seconds (fused 2, five ops 8)."""
    return bytes_moved(docs, cols) / render.copy(docs, BENCH) * (passes / 2)


def of_copy(
    docs: Docs, direction: Direction, cols: int | None = None, dtype: Dtype | None = None
) -> float:
    """Triton's bandwidth over copy, the lowest over widths and dtypes left out."""
    found = compared(docs, "triton", direction, cols, dtype)
    return min(render.bandwidth(r) for r in found) / render.copy(docs, BENCH)


def vs(
    docs: Docs, peer: Peer, direction: Direction = "forward", cols: int | None = None,
    dtype: Dtype | None = None,
) -> float | None:  # fmt: skip
    """Triton's bandwidth over ``peer``'s, the lowest over widths and dtypes left out."""
    peers = compared(docs, peer, direction, cols, dtype)
    ours = [row_of(docs, "triton", r["cols"], direction, r["dtype"]) for r in peers]
    ratios = [render.bandwidth(o) / render.bandwidth(p) for o, p in zip(ours, peers, strict=True)]
    return min(ratios) if ratios else None


compare = render.pair_kind(ran, "impl", render.tie(BENCH), "``of`` against ``to``, in words.")


def regs(
    docs: Docs, cols: int, kernel: Literal["wrapper", "control", "online"] = "wrapper",
    dtype: Dtype = "float32", spilled: bool = False, tile: int | None = None,
):  # fmt: skip
    """Registers per thread (or spilled) of the wrapper's forward kernel, of the control, or
    of the online kernel's fastest ``tile`` at one program per SM."""
    if kernel == "wrapper":
        r = forward(docs, cols, dtype)
    else:
        r = fastest(docs, kernel, dtype, cols, tile, 1 if kernel == "online" else None)
    return field(r, "n_spills" if spilled else "n_regs")


def sweep_bandwidth(
    docs: Docs, kernel: Literal["online", "control"] = "online", dtype: Dtype | None = "float32",
    cols: int | None = LONG, tile: int | None = None, per_sm: int | None = None,
) -> float | None:  # fmt: skip
    """Bandwidth of the fastest sweep row with these settings (``none``: any), bytes/s."""
    r = fastest(docs, kernel, dtype, cols, tile, per_sm)
    return render.bandwidth(r) if r else None


sweep_ratio = render.pair_kind(
    sweep_bandwidth, "kernel", render.over, "``of``'s best over ``to``'s."
)
tile_gain = render.pair_kind(sweep_bandwidth, "tile", render.over, "Tiles of ``of`` over ``to``.")
grid_gain = render.pair_kind(
    sweep_bandwidth, "per_sm", render.over, "``of`` programs per SM over ``to``."
)


def dtype_gain(docs: Docs, bf16_tile: int, fp32_tile: int) -> float | None:
    """bf16's bandwidth over fp32's at 65,536 columns, one program per SM, with these tiles."""
    bf16 = sweep_bandwidth(docs, "online", "bfloat16", LONG, bf16_tile, 1)
    return render.quotient(bf16, sweep_bandwidth(docs, "online", "float32", LONG, fp32_tile, 1))


def tile_spread(docs: Docs, same: Literal["bytes", "elements"]) -> float | None:
    """How far bf16 lies from fp32 at equal bytes or elements per tile: the mean of
    |log(bf16's bandwidth over fp32's)| over the tiles both measured (0: together)."""
    bf16 = sweep(docs, dtype="bfloat16", cols=LONG, programs_per_sm=1)
    tiles = sorted({r["block_n"] for r in bf16})
    found = [dtype_gain(docs, t, t // 2 if same == "bytes" else t) for t in tiles]
    gains = [v for v in found if v is not None]
    return sum(abs(math.log(v)) for v in gains) / len(gains) if gains else None


def best(docs: Docs, dtype: Dtype, of: Literal["block_n", "tile_bytes", "programs_per_sm"]):
    """A setting of the online kernel's fastest row at 65,536 columns: its tile in elements
    or bytes, or its programs per SM."""
    r = fastest(docs, "online", dtype, LONG)
    return None if r is None else tile_bytes(r) if of == "tile_bytes" else r[of]


def sweep_share(docs: Docs, cols: int, dtype: Dtype = "float32") -> float | None:
    """The online kernel's best at ``cols`` columns as a fraction of copy bandwidth."""
    best = sweep_bandwidth(docs, "online", dtype, cols)
    return None if best is None else best / render.copy(docs, ONLINE)


def two_thirds_copy(docs: Docs) -> float:
    """Two thirds of copy bandwidth (two passes counted, three moved), bytes/s."""
    return 2 / 3 * render.copy(docs, ONLINE)


def in_flight(docs: Docs, cols: int, dtype: Dtype = "float32", tensors: int = 1) -> int:
    """Bytes of the rows in flight, one program per SM, ``tensors`` tensors per row."""
    return render.provenance(docs)["sm_count"] * cols * render.ELEMENT_BYTES[dtype] * tensors


def backward_tile(docs: Docs, dtype: Dtype, tile: int, warps: int) -> float | None:
    """The online backward's bandwidth at 65,536 columns with this tile and warps, bytes/s."""
    r = render.maybe_one(docs, BACKWARD, absent_ok=True, dtype=dtype, block_n=tile, num_warps=warps)
    return render.bandwidth(r) if r else None


def backward_best(docs: Docs, dtype: Dtype, of: Literal["block_n", "num_warps"]) -> int | None:
    """The tile or the warps of the online backward sweep's fastest row in ``dtype``."""
    found = render.rows(docs, BACKWARD, dtype=dtype) if BACKWARD in docs else []
    return max(found, key=render.bandwidth)[of] if found else None


VALUES = {
    "softmax.bandwidth": Value(bandwidth_of, render.tbps, missing=NOT_MEASURED),
    "softmax.time": Value(time, render.millis(3)),
    "softmax.rows": Value(n_rows, render.count),
    "softmax.bytes": Value(bytes_moved, render.gb),
    "softmax.floor": Value(floor, render.millis(3)),
    "softmax.of_copy": Value(of_copy, render.percent),
    "softmax.vs": Value(vs, render.ratio3, missing=NOT_MEASURED),
    "softmax.compare": Value(compare, missing=NOT_MEASURED),
    "softmax.regs": Value(regs, render.plain, missing=NOT_MEASURED),
    "softmax.sweep": Value(sweep_bandwidth, render.tbps, missing=NOT_MEASURED),
    "softmax.sweep_ratio": Value(sweep_ratio, render.ratio, missing=NOT_MEASURED),
    "softmax.tile_gain": Value(tile_gain, render.ratio, missing=NOT_MEASURED),
    "softmax.grid_gain": Value(grid_gain, render.ratio, missing=NOT_MEASURED),
    "softmax.dtype_gain": Value(dtype_gain, render.ratio, missing=NOT_MEASURED),
    "softmax.tile_spread": Value(tile_spread, missing=NOT_MEASURED),
    "softmax.best": Value(best, render.count, missing=NOT_MEASURED),
    "softmax.two_thirds_copy": Value(two_thirds_copy, render.tbps),
    "softmax.sweep_share": Value(sweep_share, render.percent, missing=NOT_MEASURED),
    "softmax.in_flight": Value(in_flight, render.mib),
    "softmax.backward_tile": Value(backward_tile, render.tbps, missing=NOT_MEASURED),
    "softmax.backward_best": Value(backward_best, render.count, missing=NOT_MEASURED),
}


def fig_widths(direction: str):
    def build(docs: Docs) -> dict:
        ws = sorted({r["cols"] for r in render.rows(docs, BENCH, impl="triton")})
        panes = []
        for d in DTYPES:
            curves = render.impl_curves(docs, BENCH, IMPLS, direction=direction, dtype=d)
            panes.append((render.SHORT_DTYPE[d], curves))
        return render.width_panels(docs, BENCH, ws, panes)

    return build


def sweep_line(rs: list[dict], name: str, role: str, **extra) -> dict:
    """Bandwidth against KiB per tile of some sweep rows."""
    kib_ = [tile_bytes(r) / 1024 for r in rs]
    return render.line(kib_, render.tbps_points(rs), name, role, **extra)


TILE_HOVER = (  # a point of the sweep: its tile, warps, registers, spills and bandwidth
    "tiles of %{customdata[0]:,} elements, %{x:.0f} KiB<br>%{customdata[1]} warps, "
    "%{customdata[2]} registers, %{customdata[3]} spilled<br>%{y:.2f} TB/s"
)


def fig_online(docs: Docs) -> dict:
    """Bandwidth of the online softmax kernel on rows of 65,536 columns against the bytes of one
    tile (tile elements × element size), one panel for fp32 and one for bf16, one line per number
    of programs per SM, with the whole-row kernel forced onto the same rows as a lone point, the
    copy ceiling, and two thirds of it: the most the kernel could reach if its second read of
    each row came from HBM."""
    online = sweep(docs, cols=LONG)
    controls = sweep(docs, "control", cols=LONG)
    grids = sorted({r["programs_per_sm"] for r in online})
    xs = [tile_bytes(r) / 1024 for r in online + controls]
    ticks = [2**k for k in range(int(math.log2(min(xs))), int(math.log2(max(xs))) + 1)]
    lo, hi, bw = min(xs) / 1.3, max(xs) * 1.3, render.copy(docs, ONLINE) / 1e12
    panes = []
    for dtype in DTYPES:
        third = render.hline(2 / 3 * bw, lo, hi, "⅔ of copy: second read from HBM", "ceiling-2")
        traces = [render.copy_ceiling(docs, ONLINE, (lo, hi)), third]
        for per_sm in grids:
            mine = (r for r in online if (r["dtype"], r["programs_per_sm"]) == (dtype, per_sm))
            if rs := sorted(mine, key=tile_bytes):
                name = f"{per_sm} program{'s' if per_sm > 1 else ''} per SM"
                about = [
                    [r["block_n"], r["num_warps"], field(r, "n_regs"), field(r, "n_spills")]
                    for r in rs
                ]
                role = f"series-{grids.index(per_sm)}"
                traces.append(sweep_line(rs, name, role, customdata=about, hover=TILE_HOVER))
        if mine := [r for r in controls if r["dtype"] == dtype]:
            name = "whole row as one tile (control), 32 warps"
            spills = [[field(r, "n_spills")] for r in mine]
            hover = "%{x:.0f} KiB<br>%{customdata[0]} spilled<br>%{y:.2f} TB/s"
            traces.append(
                sweep_line(mine, name, "series-3", mode="markers", customdata=spills, hover=hover)
            )
        panes.append((render.SHORT_DTYPE[dtype], traces))
    xaxis = render.axis("bytes per tile (KiB), 65,536 columns per row", log=True, ticks=ticks)
    return render.panels(panes, xaxis, render.axis("bandwidth (TB/s)", rangemode="tozero"))


FIGURES = {
    "softmax-forward": Figure(
        "Softmax forward: bandwidth against row width",
        (BENCH,),
        fig_widths("forward"),
        "Forward softmax bandwidth (bytes of x read and y written over time) against columns "
        "per row, one panel for fp32 and one for bf16, for the Triton kernels, torch.softmax, "
        "torch.compile, Liger-Kernel where it ran and five separate torch ops, with the "
        "measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "softmax-backward": Figure(
        "Softmax backward: bandwidth against row width",
        (BENCH,),
        fig_widths("backward"),
        "Backward softmax bandwidth (bytes of y and dy read and dx written over time) "
        "against columns per row, one panel for fp32 and one for bf16, for the Triton kernels, "
        "torch, torch.compile and Liger-Kernel where it ran, with the copy ceiling.",
    ),
    "softmax-online": Figure(
        "Online softmax at 65,536 columns: bandwidth against bytes per tile", (ONLINE,), fig_online
    ),
}


FLOPS_PER_ELEMENT = 5  # max, subtract, exp, sum, divide


# The forward kernel at 4096 columns, one point per dtype.
ROOFLINE = {
    BENCH: render.roofline_rows(
        "softmax ({dtype})",
        flops=lambda r: FLOPS_PER_ELEMENT * r["rows"] * r["cols"],
        impl="triton",
        direction="forward",
        cols=4096,
    )
}


def launched_row(
    docs: Docs, impl: Impl, cols: int, direction: Direction = "forward", dtype: Dtype = "float32"
) -> dict | None:
    """The row, where it was measured and carries the profiler's count."""
    r = ran(docs, impl, cols, direction, dtype)
    return r if r is not None and "kernels" in r else None


kernels = render.row_kind(
    launched_row, lambda r: r["kernels"], "CUDA kernels one call launches (torch.profiler)."
)


def short_kernel_name(name: str) -> str:
    """A kernel's name without namespaces, template arguments or parameters."""
    name = name.removeprefix("void ").replace("(anonymous namespace)", "anonymous")
    return re.split(r"[<(]", name, maxsplit=1)[0].rsplit("::", 1)[-1].strip()


kernel_names = render.row_kind(
    launched_row,
    lambda r: " + ".join(f"`{short_kernel_name(n)}`" for n in r["kernel_names"]),
    "The kernels one call of ``impl`` launches, short names joined by ' + ', as code.",
)


VALUES["softmax.kernels"] = Value(kernels, render.count, missing=NOT_MEASURED)
VALUES["softmax.kernel_names"] = Value(kernel_names, missing=NOT_MEASURED)
