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
IMPLS = (("triton", "Triton (kernels/reduction.py)"), ("torch", "torch"))
OPS = (("sum", "row sum"), ("max", "row max"))
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
At = Literal["widest", "narrowest"]


def at_width(docs: Docs, impl: str, op: str, dtype: str, at: At | int) -> dict:
    """The row of ``impl`` at the widest or narrowest width, or at ``at`` columns."""
    rs = series(docs, impl, op, dtype)
    if at == "widest":
        return rs[-1]
    if at == "narrowest":
        return rs[0]
    found = [r for r in rs if r["cols"] == at]
    if not found:
        raise render.RenderError(f"{BENCH} has no {impl} {op} {dtype} row at {at} columns")
    return found[0]


def of_copy(
    docs: Docs,
    op: Op,
    impl: Literal["triton", "torch"] = "triton",
    dtype: Dtype = "float32",
    cols: int | None = None,
) -> float | None:
    """The row ``op`` (sum, or max: torch.amax for torch) of ``impl`` in ``dtype`` at the
    widest row (or at ``cols`` columns): its fraction of the run's copy bandwidth."""
    if not measured(docs):
        return None
    return at_width(docs, impl, op, dtype, "widest" if cols is None else cols)["copy_fraction"]


def vs_torch(docs: Docs, op: Op, at: At, dtype: Dtype = "float32") -> float | None:
    """``op`` in ``dtype`` at the widest or the narrowest row: torch's time over Triton's
    (above 1, Triton takes less time)."""
    if not measured(docs):
        return None
    return render.time_ratio(*(at_width(docs, i, op, dtype, at) for i in ("torch", "triton")))


def compare_torch(docs: Docs, op: Op, at: At, dtype: Dtype = "float32") -> str | None:
    """The book's kernel against torch.sum / torch.amax (``op``) in ``dtype`` at the widest
    or narrowest row, in words by the tie rule: "faster than", "as fast as", "slower than"."""
    if not measured(docs):
        return None
    ours, peer = at_width(docs, "triton", op, dtype, at), at_width(docs, "torch", op, dtype, at)
    return render.tie_words(docs, BENCH, ours, peer)


def width_compare(docs: Docs, op: Op, cols: int, dtype: Dtype = "float32") -> str | None:
    """The book's kernel at ``cols`` columns against itself at the widest rows, in bytes
    per second, in words by the tie rule ("faster than", "as fast as", "slower than")."""
    if not measured(docs):
        return None
    here, widest_row = (at_width(docs, "triton", op, dtype, at) for at in (cols, "widest"))
    return render.tie_words(docs, BENCH, render.per_byte(here), render.per_byte(widest_row))


def triton_copy_range(docs: Docs) -> str | None:
    """The lowest and highest fraction of copy bandwidth of the Triton kernel over every
    width, op and dtype, in words (None: not measured on this device)."""
    if not measured(docs):
        return None
    fractions = [r["copy_fraction"] for r in render.rows(docs, BENCH, impl="triton")]
    return f"{render.percent(min(fractions))} to {render.percent(max(fractions))}"


def widest_row(docs: Docs, of: Literal["cols", "plan", "ptx", "loads"]) -> str | None:
    """The widest row measured, in words: its columns; the wrapper's plan for it in fp32
    (block_m x block_n over num_warps); what the PTX of the fp32 sum compiled for it holds
    for the final reduction; or its 16-byte global loads (ld.global.v4) in fp32 and bf16.
    None: not measured on this device."""
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
    b = widest(docs, "triton", "sum", "bfloat16")
    return f"{r['ptx']['ld_global_v4']} in fp32, {b['ptx']['ld_global_v4']} in bf16"


# ---- values: how many programs an SM holds, from the registers the compiler reports --------


def resident_per_sm(docs: Docs, dtype: Dtype, at: At) -> dict | None:
    """The Triton sum compiled for the widest or narrowest row: how many of its programs
    one SM can hold by its threads, its program slots and its registers (SM_LIMITS of this
    GPU's compute capability; registers go to a warp in units of REGISTER_UNIT), and the
    least of them. None where the capability or the register count is unknown."""
    if not measured(docs):
        return None
    r = at_width(docs, "triton", "sum", dtype, at)
    if r.get("n_regs") is None:
        return None
    by = render.resident_on_sm(docs, r["n_regs"], r["num_warps"])
    return by and {**by, "programs": by["resident"], "registers_each": r["n_regs"]}


def resident(
    docs: Docs,
    dtype: Dtype = "float32",
    at: At = "widest",
    by: Literal["threads", "blocks", "registers", "programs", "registers_each"] = "programs",
) -> int | None:
    """Programs of the Triton sum (widest or narrowest row, ``dtype``) one SM holds: as its
    threads, program slots or registers allow, or the least of them (programs); or the
    registers per thread the compiler gave it (registers_each)."""
    r = resident_per_sm(docs, dtype, at)
    return None if r is None else r[by]


def in_flight(docs: Docs, dtype: Dtype = "float32", at: At = "widest") -> int | None:
    """Bytes one SM's resident programs of the Triton sum ask for in one loop step: the
    programs it holds times the bytes of one tile (block_m x block_n elements)."""
    r = resident_per_sm(docs, dtype, at)
    if r is None:
        return None
    row = at_width(docs, "triton", "sum", dtype, at)
    return r["programs"] * row["block_m"] * row["block_n"] * render.ELEMENT_BYTES[dtype]


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
    return render.field(best_tile(docs, op, dtype, block_n, warps), "copy_fraction")


def tile_best_warps(docs: Docs, op: Op, dtype: Dtype, block_n: int) -> int | None:
    """The num_warps of the warp sweep's fastest row at 1 x ``block_n``, widest rows."""
    return render.field(best_tile(docs, op, dtype, block_n, None), "num_warps")


def tile_torch_of_copy(docs: Docs, op: Op, dtype: Dtype) -> float | None:
    """torch.sum or torch.amax at the widest rows, measured in the tile control's run: its
    fraction of copy bandwidth."""
    r = render.maybe_one(docs, TILE, absent_ok=True, impl="torch", op=op, dtype=dtype)
    return render.field(r, "copy_fraction")


# The control's question: does reading 16 KiB per loop step in bf16 (a 1 x 8,192 tile, the
# best of the warp sweep) recover what bf16 loses with the default 1 x 4,096 on 4 warps?
WIDE, DEFAULT = 8192, (4096, 4)


def tile_pair(docs: Docs, op: str, dtype: str) -> tuple[dict, dict, dict] | None:
    """(the best 1 x 8,192 row, the default-tile row, torch's row) of the control, or None."""
    wide, default = best_tile(docs, op, dtype, WIDE, None), best_tile(docs, op, dtype, *DEFAULT)
    peer = render.maybe_one(docs, TILE, absent_ok=True, impl="torch", op=op, dtype=dtype)
    return None if None in (wide, default, peer) else (wide, default, peer)


def tile_compare(
    docs: Docs, op: Op, to: Literal["default", "torch"], dtype: Dtype = "bfloat16"
) -> str | None:
    """At the widest rows, the 1 x 8,192 tile (best warps) against the default tile (1 x
    4,096 on 4 warps) or against torch, in words by the tie rule ("faster than", "as fast
    as", "slower than"). None where this device has not run the control."""
    found = tile_pair(docs, op, dtype)
    if found is None:
        return None
    wide, default, peer = found
    return render.tie_words(docs, TILE, wide, default if to == "default" else peer)


def tile_finding(docs: Docs, op: Op, dtype: Dtype = "bfloat16") -> str | None:
    """What the control says about bytes per loop step as the cause of the gap to torch at
    the widest rows, as a clause that follows from the two comparisons of tile_compare."""
    found = tile_pair(docs, op, dtype)
    if found is None:
        return None
    wide, default, peer = found
    gained = render.tie_words(docs, TILE, wide, default) == "faster than"
    behind = render.tie_words(docs, TILE, wide, peer) == "slower than"
    if gained and not behind:
        return "the bytes a program reads per step account for the gap"
    if gained:
        return "the bytes a program reads per step account for part of the gap, not all of it"
    return "the bytes a program reads per step do not account for the gap"


NOT_MEASURED = "not measured"
VALUES = {
    "reduction.of_copy": Value(of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.vs_torch": Value(vs_torch, render.ratio, missing=NOT_MEASURED),
    "reduction.compare": Value(compare_torch, missing=NOT_MEASURED),
    "reduction.width_compare": Value(width_compare, missing=NOT_MEASURED),
    "reduction.triton_copy_range": Value(triton_copy_range, missing=NOT_MEASURED),
    "reduction.widest": Value(widest_row, missing=NOT_MEASURED),
    "reduction.resident": Value(resident, render.count, missing="unknown for this GPU"),
    "reduction.in_flight": Value(in_flight, render.kib, missing="unknown for this GPU"),
    "reduction.tile_of_copy": Value(tile_of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.tile_best_warps": Value(tile_best_warps, render.count, missing=NOT_MEASURED),
    "reduction.tile_torch_of_copy": Value(tile_torch_of_copy, render.percent, missing=NOT_MEASURED),
    "reduction.tile_compare": Value(tile_compare, missing=NOT_MEASURED),
    "reduction.tile_finding": Value(tile_finding, missing=NOT_MEASURED),
}


# ---- figure -------------------------------------------------------------------------------


def fig_widths(docs: Docs) -> dict:
    """One panel per operation and dtype (sum, max; fp32, bf16): in each, the Triton
    kernel against torch's, with the copy ceiling."""
    panes = []
    for op, op_name in OPS:
        for dtype in DTYPES:
            curves = []
            for impl, impl_name in IMPLS:
                name = impl_name if impl == "triton" else TORCH_NAME[op]
                if rs := series(docs, impl, op, dtype):
                    curves.append((rs, name, impl, impl == "triton", {}))
            panes.append((f"{op_name}, {render.SHORT_DTYPE[dtype]}", curves))
    ws = sorted({r["cols"] for r in render.rows(docs, BENCH)})
    return render.width_panels(docs, BENCH, ws, panes)


FIGURES = {
    "reduction": Figure(
        "Row sum and row maximum: bandwidth against row width",
        (BENCH,),
        fig_widths,
        "Bandwidth (bytes read and written over time) of the row sum and row maximum "
        "against columns per row, one panel per operation and dtype (sum and max; fp32 and "
        "bf16), for the Triton kernel of kernels/reduction.py and torch.sum / torch.amax, "
        "with the measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
}
