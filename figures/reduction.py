"""Figure and values of the reduction family: lesson 06.

Data (scripts/bench/benchmarks/reduction.py): ``reduction``, the row sum and row maximum of
kernels/reduction.py against ``torch.sum`` / ``torch.amax`` over row widths of 256..65,536
columns at 512 MiB per tensor, fp32 and bf16, each row with its fraction of copy bandwidth
(the book's rows also their plan, registers and PTX counts); ``reduction_tile``, the tile
set by hand at the widest rows, with torch in the same run. Values read "not measured" on
a device without them.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "reduction"
DTYPES = ("float32", "bfloat16")
Dtype = Literal["float32", "bfloat16"]
TRITON = ("triton", "Triton (kernels/reduction.py)", "triton")
OPS = (("sum", "row sum"), ("max", "row max"))
TORCH_NAME = {"sum": "torch.sum", "max": "torch.amax"}


def series(docs: Docs, impl: str, op: str, dtype: str) -> list[dict]:
    """One impl's rows for one op and dtype, by width."""
    return render.rows_by(docs, BENCH, "cols", impl=impl, op=op, dtype=dtype)


Op = Literal["sum", "max"]
At = Literal["widest", "narrowest"]
Impl = Literal["triton", "torch"]
PtxCount = Literal["shfl", "st_shared", "bar_sync", "ld_global_v4"]
By = Literal["threads", "blocks", "registers", "programs", "registers_each"]


def at_width(docs: Docs, impl: str, op: str, dtype: str, at: At | int) -> dict | None:
    """The row of ``impl`` at the widest or narrowest width, or at ``at`` columns; None on a
    device without the benchmark."""
    if BENCH not in docs:
        return None
    rs = series(docs, impl, op, dtype)
    if at in ("widest", "narrowest"):
        return rs[-1 if at == "widest" else 0]
    found = [r for r in rs if r["cols"] == at]
    if not found:
        raise render.RenderError(f"{BENCH} has no {impl} {op} {dtype} row at {at} columns")
    return found[0]


def of_copy(
    docs: Docs, op: Op, impl: Impl = "triton", dtype: Dtype = "float32", cols: int | None = None
) -> float | None:
    """``impl``'s fraction of copy bandwidth at the widest row, or at ``cols`` columns."""
    row = at_width(docs, impl, op, dtype, "widest" if cols is None else cols)
    return render.field(row, "copy_fraction")


def vs_torch(docs: Docs, op: Op, at: At, dtype: Dtype = "float32") -> float | None:
    """Torch's time over Triton's at the widest or the narrowest row."""
    return render.time_ratio(*(at_width(docs, i, op, dtype, at) for i in ("torch", "triton")))


def compare_torch(docs: Docs, op: Op, at: At, dtype: Dtype = "float32") -> str | None:
    """The book's kernel against torch's at the widest or narrowest row, in words."""
    ours, peer = at_width(docs, "triton", op, dtype, at), at_width(docs, "torch", op, dtype, at)
    return render.tie_words(docs, BENCH, ours, peer)


def width_compare(docs: Docs, op: Op, cols: int, dtype: Dtype = "float32") -> str | None:
    """The book's kernel at ``cols`` against itself at the widest rows, by bytes per second."""
    if BENCH not in docs:
        return None
    here, widest_row = (at_width(docs, "triton", op, dtype, at) for at in (cols, "widest"))
    return render.tie_words(docs, BENCH, render.per_byte(here), render.per_byte(widest_row))


def copy_range(docs: Docs, end: Literal["lowest", "highest"]) -> float | None:
    """The Triton kernel's lowest or highest fraction of copy bandwidth over every row."""
    if BENCH not in docs:
        return None
    found = [r["copy_fraction"] for r in render.rows(docs, BENCH, impl="triton")]
    return min(found) if end == "lowest" else max(found)


def ptx(docs: Docs, count: PtxCount, dtype: Dtype = "float32") -> int | None:
    """How many of one PTX instruction the Triton sum compiled for the widest rows holds."""
    return render.field(at_width(docs, "triton", "sum", dtype, "widest"), "ptx", count)


def resident_per_sm(docs: Docs, dtype: Dtype, at: At) -> dict | None:
    """Programs of the Triton sum one SM holds, by each limit and overall, or None."""
    r = at_width(docs, "triton", "sum", dtype, at)
    if r is None or r.get("n_regs") is None:
        return None
    by = render.resident_on_sm(docs, r["n_regs"], r["num_warps"])
    return by and {**by, "programs": by["resident"], "registers_each": r["n_regs"]}


def resident(
    docs: Docs, dtype: Dtype = "float32", at: At = "widest", by: By = "programs"
) -> int | None:
    """Programs of the Triton sum one SM holds by a limit, or its registers per thread."""
    return render.field(resident_per_sm(docs, dtype, at), by)


def in_flight(docs: Docs, dtype: Dtype = "float32", at: At = "widest") -> int | None:
    """Bytes one SM's resident programs of the Triton sum ask for in one loop step."""
    r = resident_per_sm(docs, dtype, at)
    if r is None:
        return None
    row = at_width(docs, "triton", "sum", dtype, at)
    return r["programs"] * row["block_m"] * row["block_n"] * render.ELEMENT_BYTES[dtype]


TILE = "reduction_tile"


def best_tile(
    docs: Docs, op: Op, dtype: Dtype, block_n: int, warps: int | None = None
) -> dict | None:
    """The control's best row with a 1 x ``block_n`` tile on ``warps`` (none: any), or None."""
    match = {"impl": "triton", "op": op, "dtype": dtype, "block_n": block_n, "num_warps": warps}
    found = render.select(docs, TILE, **match) if TILE in docs else []
    return max(found, key=lambda r: r["copy_fraction"]) if found else None


def torch_tile(docs: Docs, op: Op, dtype: Dtype) -> dict | None:
    """Torch's row in the tile control's run, or None."""
    return render.maybe_one(docs, TILE, absent_ok=True, impl="torch", op=op, dtype=dtype)


def copy_fraction(row: dict) -> float:
    """A row's fraction of the run's copy bandwidth."""
    return row["copy_fraction"]


tile_of_copy = render.row_kind(best_tile, copy_fraction, "The tile's fraction of copy bandwidth.")
tile_best_warps = render.row_kind(
    best_tile, lambda r: r["num_warps"], "The num_warps of the warp sweep's fastest row."
)
tile_torch_of_copy = render.row_kind(torch_tile, copy_fraction, "Torch's fraction of copy.")

# Does reading 16 KiB per loop step in bf16 (1 x 8,192) recover what the default tile loses?
WIDE, DEFAULT = 8192, (4096, 4)


def tile_compare(
    docs: Docs, op: Op, to: Literal["default", "torch"], dtype: Dtype = "bfloat16"
) -> str | None:
    """The 1 x 8,192 tile against the default tile or torch at the widest rows, in words;
    None unless the control has all three."""
    wide, default = best_tile(docs, op, dtype, WIDE, None), best_tile(docs, op, dtype, *DEFAULT)
    peer = torch_tile(docs, op, dtype)
    if None in (wide, default, peer):
        return None
    return render.tie_words(docs, TILE, wide, default if to == "default" else peer)


NOT_MEASURED = "not measured"
VALUES = {
    "reduction.of_copy": Value(of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.vs_torch": Value(vs_torch, render.ratio, missing=NOT_MEASURED),
    "reduction.compare": Value(compare_torch, missing=NOT_MEASURED),
    "reduction.width_compare": Value(width_compare, missing=NOT_MEASURED),
    "reduction.copy_range": Value(copy_range, render.percent, missing=NOT_MEASURED),
    "reduction.ptx": Value(ptx, render.plain, missing=NOT_MEASURED),
    "reduction.resident": Value(resident, render.count, missing="unknown for this GPU"),
    "reduction.in_flight": Value(in_flight, render.kib, missing="unknown for this GPU"),
    "reduction.tile_of_copy": Value(tile_of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.tile_best_warps": Value(tile_best_warps, render.count, missing=NOT_MEASURED),
    "reduction.tile_torch_of_copy": Value(tile_torch_of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.tile_compare": Value(tile_compare, missing=NOT_MEASURED),
}


def fig_widths(docs: Docs) -> dict:
    """Bandwidth (bytes read and written over time) of the row sum and row maximum against columns
    per row, one panel per operation and dtype (sum and max; fp32 and bf16), for the Triton
    kernel of kernels/reduction.py and torch.sum / torch.amax, with the measured copy ceiling;
    error bars span the 20th to 80th percentile."""
    panes = []
    for op, op_name in OPS:
        impls = (TRITON, ("torch", TORCH_NAME[op], "torch"))
        for dtype in DTYPES:
            curves = render.impl_curves(docs, BENCH, impls, op=op, dtype=dtype)
            panes.append((f"{op_name}, {render.SHORT_DTYPE[dtype]}", curves))
    ws = sorted({r["cols"] for r in render.rows(docs, BENCH)})
    return render.width_panels(docs, BENCH, ws, panes)


FIGURES = {
    "reduction": Figure(
        "Row sum and row maximum: bandwidth against row width", (BENCH,), fig_widths
    )
}
