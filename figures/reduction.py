"""Figure and values of the reduction family: lesson 06.

Data: ``reduction`` (written by scripts/bench/benchmarks/reduction.py): the row sum and row
maximum of kernels/reduction.py against ``torch.sum`` / ``torch.amax`` over row widths of
256..65,536 columns at 512 MiB per tensor, fp32 and bf16; each row carries its fraction
of the run's copy bandwidth, and the book kernel's rows its plan, registers, spills and
PTX instruction counts.

And ``reduction_tile``: at the widest rows, the tile set by hand (block_n 4,096 or 8,192,
over a num_warps sweep) in fp32 and bf16, with torch in the same run: whether the bytes
one program reads per loop step explain bf16's distance from copy bandwidth.

The figure shows the devices that have ``reduction`` data; on a device without it every
value reads "not measured".
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "reduction"
DTYPES = ("float32", "bfloat16")
Dtype = Literal["float32", "bfloat16"]
DASH = {"float32": None, "bfloat16": "dash"}
IMPLS = (("triton", "Triton"), ("torch", "torch"))
OPS = (("sum", "sum", "circle"), ("max", "max", "diamond"))
TORCH_NAME = {"sum": "torch.sum", "max": "torch.amax"}
# The benchmark's range of widths (scripts/bench/benchmarks/reduction.py), for the axis of the
# figure drawn before any data exists.


# ---- helpers ----------------------------------------------------------------------------


def measured(docs: Docs) -> bool:
    return BENCH in docs


def series(docs: Docs, impl: str, op: str, dtype: str) -> list[dict]:
    """One impl's rows for one op and dtype, by width."""
    return render.rows_by(docs, BENCH, "cols", impl=impl, op=op, dtype=dtype)


def widest(docs: Docs, impl: str, op: str, dtype: str = "float32") -> dict:
    return series(docs, impl, op, dtype)[-1]


def narrowest(docs: Docs, impl: str, op: str, dtype: str = "float32") -> dict:
    return series(docs, impl, op, dtype)[0]


# ---- values -------------------------------------------------------------------------------


Op = Literal["sum", "max"]


def of_copy(
    docs: Docs, op: Op, impl: Literal["triton", "torch"] = "triton", dtype: Dtype = "float32"
) -> float | None:
    """The row ``op`` (sum, or max: torch.amax for torch) of ``impl`` in ``dtype`` at the
    widest row: its fraction of the run's copy bandwidth."""
    return widest(docs, impl, op, dtype)["copy_fraction"] if measured(docs) else None


def vs_torch(docs: Docs, op: Op, at: Literal["widest", "narrowest"]) -> float | None:
    """fp32 ``op`` at the widest or the narrowest row: Triton's bandwidth over torch's."""
    if not measured(docs):
        return None
    pick = widest if at == "widest" else narrowest
    return render.bandwidth(pick(docs, "triton", op)) / render.bandwidth(pick(docs, "torch", op))


def triton_copy_range(docs: Docs) -> str | None:
    """The lowest and highest fraction of copy bandwidth of the Triton kernel over every
    width, op and dtype, in words (None: not measured on this device)."""
    if not measured(docs):
        return None
    fractions = [r["copy_fraction"] for r in render.rows(docs, BENCH, impl="triton")]
    return f"{render.percent(min(fractions))} to {render.percent(max(fractions))}"


def widest_row(docs: Docs, of: Literal["cols", "plan", "ptx", "resources"]) -> str | None:
    """The widest row measured, in words: its columns; the wrapper's plan for it in fp32
    (block_m x block_n over num_warps); what the PTX of the fp32 sum compiled for it holds
    for the final reduction; or the registers per thread and spills of the fp32 sum and
    max kernels compiled for it. None: not measured on this device."""
    if not measured(docs):
        return None
    r = widest(docs, "triton", "sum")
    if of == "cols":
        return f"{r['cols']:,}"
    if of == "plan":
        return f"{r['block_m']} × {r['block_n']} over {r['num_warps']} warps"
    if of == "ptx":
        ptx = r["ptx"]
        return (
            f"shfl.sync: {ptx['shfl']}, st.shared: {ptx['st_shared']}, bar.sync: {ptx['bar_sync']}"
        )
    parts = []
    for op, _, _ in OPS:
        r = widest(docs, "triton", op)
        parts.append(f"{op}: {r.get('n_regs')} registers, {r.get('n_spills')} spilled")
    return "; ".join(parts)


# ---- values: the tile control at the widest rows (reduction_tile) --------------------------

TILE = "reduction_tile"


def tile_rows(docs: Docs, op: str, dtype: str, block_n: int, warps: int | None) -> list[dict]:
    if TILE not in docs:
        return []
    match = {"impl": "triton", "op": op, "dtype": dtype, "block_n": block_n}
    if warps is not None:
        match["num_warps"] = warps
    return render.rows(docs, TILE, **match)


def best_tile(docs: Docs, op: str, dtype: str, block_n: int, warps: int | None) -> dict | None:
    found = tile_rows(docs, op, dtype, block_n, warps)
    return max(found, key=lambda r: r["copy_fraction"]) if found else None


def tile_of_copy(
    docs: Docs, op: Op, dtype: Dtype, block_n: int, warps: int | None = None
) -> float | None:
    """At the widest rows, the book's kernel with its tile set by hand to 1 x ``block_n``
    and ``warps`` warps (none: the best of the warp sweep): its fraction of the run's copy
    bandwidth. None where this device has not run the control."""
    r = best_tile(docs, op, dtype, block_n, warps)
    return None if r is None else r["copy_fraction"]


def tile_best_warps(docs: Docs, op: Op, dtype: Dtype, block_n: int) -> int | None:
    """The num_warps of the warp sweep's fastest row at 1 x ``block_n``, widest rows."""
    r = best_tile(docs, op, dtype, block_n, None)
    return None if r is None else r["num_warps"]


def tile_torch_of_copy(docs: Docs, op: Op, dtype: Dtype) -> float | None:
    """torch.sum or torch.amax at the widest rows, measured in the tile control's run: its
    fraction of copy bandwidth."""
    r = render.maybe_one(docs, TILE, absent_ok=True, impl="torch", op=op, dtype=dtype)
    return None if r is None else r["copy_fraction"]


NOT_MEASURED = "not measured"
VALUES = {
    "reduction.of_copy": Value(of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.vs_torch": Value(vs_torch, render.ratio, missing=NOT_MEASURED),
    "reduction.triton_copy_range": Value(triton_copy_range, missing=NOT_MEASURED),
    "reduction.widest": Value(widest_row, missing=NOT_MEASURED),
    "reduction.tile_of_copy": Value(tile_of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.tile_best_warps": Value(tile_best_warps, render.count, missing=NOT_MEASURED),
    "reduction.tile_torch_of_copy": Value(tile_torch_of_copy, render.percent, missing=NOT_MEASURED),
}


# ---- figure -------------------------------------------------------------------------------


def fig_widths(docs: Docs) -> dict:
    curves = []
    for impl, impl_name in IMPLS:
        for op, op_name, symbol in OPS:
            name = f"{impl_name} {op_name}" if impl == "triton" else TORCH_NAME[op]
            for dtype in DTYPES:
                if rs := series(docs, impl, op, dtype):
                    style = {"dash": DASH[dtype], "marker": {"symbol": symbol}}
                    curves.append((rs, f"{name}, {dtype}", impl, impl == "triton", style))
    ws = sorted({r["cols"] for r in render.rows(docs, BENCH)})
    return render.width_figure(docs, BENCH, ws, curves)


FIGURES = {
    "reduction": Figure(
        "Row sum and row maximum: bandwidth against row width",
        (BENCH,),
        fig_widths,
        "Bandwidth (bytes read and written over time) of the row sum and row maximum "
        "against columns per row, fp32 solid and bf16 dashed, circles for sums and "
        "diamonds for maxima, for the Triton kernel of kernels/reduction.py and "
        "torch.sum / torch.amax, with the measured copy ceiling; error bars span the 20th "
        "to 80th percentile.",
    ),
}
