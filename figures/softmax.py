"""Figures and values of the softmax family: lesson 10.

Data: ``softmax`` (forward and backward against row width, the book's kernels and their
peers, fp32 and bf16) and ``softmax_online`` (the online kernel's persistent grid swept on
long fp32 rows, with the whole-row kernel as a control), both written by
scripts/benchmarks/softmax.py.

Bytes: each row's ``bytes`` is the least any softmax must move (forward: read x, write y;
backward: read y and dy, write dx), so every impl's "bandwidth" is that count over its
time; an impl that moves more (the naive decomposition) shows as slower, not as busier.
"""

from __future__ import annotations

import math

from scripts.render import (
    Docs,
    Figure,
    Value,
    axis,
    copy_bw,
    count,
    doc,
    hline,
    line,
    millis,
    or_not_measured,
    percent,
    plain,
    provenance,
    rate,
    ratio,
    rows,
    tbps,
    vline,
)

BENCH, ONLINE = "softmax", "softmax_online"
DTYPES = ("float32", "bfloat16")
DASH = {"float32": None, "bfloat16": "dash"}
IMPLS = (
    ("triton", "Triton (kernels/softmax.py)", "triton"),
    ("torch", "torch.softmax", "torch"),
    ("compile", "torch.compile", "compile"),
    ("liger", "Liger-Kernel", "series-3"),
    ("naive", "five torch ops (max, sub, exp, sum, div)", "series-4"),
)
WHOLE_ROW_MAX = 16384  # the widths the target "rows ≤ 16k columns" covers
LONG = 65536  # the width the long-row target names
TABLE_COLS = 4096  # the width of the peer numbers in the shared notes


# ---- helpers ----------------------------------------------------------------------------


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row (its least byte count over its time), bytes/s."""
    return row["bytes"] / row["time_s"]["p50"]


def series(docs: Docs, impl: str, direction: str, dtype: str) -> list[dict]:
    """One impl's rows in one direction and dtype, by width."""
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype)
    return sorted(found, key=lambda r: r["cols"])


def at(docs: Docs, impl: str, direction: str, dtype: str, cols: int) -> dict:
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype, cols=cols)
    if not found:
        raise KeyError(f"no {impl} {direction} {dtype} row at {cols} columns")
    return found[0]


def copy(docs: Docs) -> float:
    return copy_bw(doc(docs, BENCH))


def widths(docs: Docs) -> list[int]:
    return sorted({r["cols"] for r in rows(docs, BENCH, impl="triton")})


def fraction_of_copy(docs: Docs, direction: str, dtype: str, cols: int) -> float:
    return bandwidth(at(docs, "triton", direction, dtype, cols)) / copy(docs)


def min_copy_fraction(docs: Docs, direction: str) -> float:
    """Lowest Triton bandwidth over copy, over fp32 and bf16, widths up to 16,384."""
    return min(
        fraction_of_copy(docs, direction, dtype, c)
        for dtype in DTYPES
        for c in widths(docs)
        if c <= WHOLE_ROW_MAX
    )


def peer_rows(docs: Docs, direction: str, peer: str, long: bool) -> list[dict]:
    """A peer's rows in one direction: at the target's widths (≤ 16,384 columns), or, with
    ``long``, at the long-row width (65,536 columns)."""
    found = rows(docs, BENCH, impl=peer, direction=direction)
    return [r for r in found if (r["cols"] == LONG if long else r["cols"] <= WHOLE_ROW_MAX)]


def min_ratio(docs: Docs, direction: str, peer: str, long: bool = False) -> float | None:
    """Lowest Triton-over-peer bandwidth ratio over the widths ``peer_rows`` picks and both
    dtypes; None where the peer has no rows (it did not import, compile or pass its check)."""
    ratios = [
        bandwidth(at(docs, "triton", direction, r["dtype"], r["cols"])) / bandwidth(r)
        for r in peer_rows(docs, direction, peer, long)
    ]
    return min(ratios) if ratios else None


def behind(docs: Docs, direction: str) -> str:
    """Where, at ≤ 16,384 columns, a peer is faster than Triton by more than the spread:
    Triton's fastest (p20) time is slower than the peer's slowest (p80). Words, for prose."""
    names = {impl: name for impl, name, _ in IMPLS}
    found = []
    for peer in ("torch", "compile", "liger"):
        for r in sorted(peer_rows(docs, direction, peer, False), key=lambda r: r["cols"]):
            mine = at(docs, "triton", direction, r["dtype"], r["cols"])
            if mine["time_s"]["p20"] > r["time_s"]["p80"]:
                found.append(
                    f"{names[peer]} ({r['dtype']}, {r['cols']:,} columns: "
                    f"{ratio3(bandwidth(mine) / bandwidth(r))})"
                )
    return "; ".join(found) or "nowhere"


def peer_bw(docs: Docs, impl: str, cols: int) -> float | None:
    """An impl's fp32 forward bandwidth at ``cols``, or None where it did not run."""
    found = rows(docs, BENCH, impl=impl, direction="forward", dtype="float32", cols=cols)
    return bandwidth(found[0]) if found else None


def ratio3(v: float) -> str:
    """A ratio with three decimals: near 1.00× two decimals hide which side of 1 it is."""
    return f"{v:.3f}×"


def sweep(docs: Docs, kernel: str = "online", cols: int | None = None) -> list[dict]:
    found = rows(docs, ONLINE, kernel=kernel)
    found = [r for r in found if cols in (None, r["cols"])]
    return sorted(found, key=lambda r: (r["cols"], r["programs"]))


def in_flight_bytes(row: dict) -> int:
    """Bytes of the rows the online kernel's programs work on at once: programs x row."""
    return row["programs"] * row["cols"] * 4


# ---- values: targets ----------------------------------------------------------------------


def fwd_copy_min(docs: Docs) -> float:
    """Forward: the lowest fraction of copy bandwidth over fp32 and bf16 at widths ≤ 16,384."""
    return min_copy_fraction(docs, "forward")


def bwd_copy_min(docs: Docs) -> float:
    """Backward: the lowest fraction of copy bandwidth over fp32 and bf16 at widths ≤ 16,384."""
    return min_copy_fraction(docs, "backward")


def fwd_copy_long_fp32(docs: Docs) -> float:
    """Forward, fp32, 65,536 columns (online kernel): fraction of copy bandwidth."""
    return fraction_of_copy(docs, "forward", "float32", LONG)


def fwd_copy_long_bf16(docs: Docs) -> float:
    """Forward, bf16, 65,536 columns (online kernel): fraction of copy bandwidth."""
    return fraction_of_copy(docs, "forward", "bfloat16", LONG)


def bwd_copy_long_min(docs: Docs) -> float:
    """Backward at 65,536 columns (online kernel): the lower fraction of copy, fp32 or bf16."""
    return min(fraction_of_copy(docs, "backward", d, LONG) for d in DTYPES)


def fwd_vs_torch_min(docs: Docs) -> float | None:
    """Forward, Triton over torch.softmax: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "forward", "torch")


def fwd_vs_torch_long(docs: Docs) -> float | None:
    """Forward, Triton over torch.softmax at 65,536 columns: the lower ratio of the two dtypes."""
    return min_ratio(docs, "forward", "torch", long=True)


def fwd_vs_compile_min(docs: Docs) -> float | None:
    """Forward, Triton over torch.compile: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "forward", "compile")


def fwd_vs_compile_long(docs: Docs) -> float | None:
    """Forward, Triton over torch.compile at 65,536 columns: the lower ratio of the two dtypes."""
    return min_ratio(docs, "forward", "compile", long=True)


def fwd_vs_liger_min(docs: Docs) -> float | None:
    """Forward, Triton over Liger-Kernel: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "forward", "liger")


def fwd_vs_liger_long(docs: Docs) -> float | None:
    """Forward, Triton over Liger-Kernel at 65,536 columns: the lower ratio of the two dtypes."""
    return min_ratio(docs, "forward", "liger", long=True)


def bwd_vs_torch_min(docs: Docs) -> float | None:
    """Backward, Triton over torch's backward: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "backward", "torch")


def bwd_vs_torch_long(docs: Docs) -> float | None:
    """Backward, Triton over torch's backward at 65,536 columns: lower ratio of the dtypes."""
    return min_ratio(docs, "backward", "torch", long=True)


def bwd_vs_compile_min(docs: Docs) -> float | None:
    """Backward, Triton over torch.compile: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "backward", "compile")


def bwd_vs_compile_long(docs: Docs) -> float | None:
    """Backward, Triton over torch.compile at 65,536 columns: the lower ratio of the two dtypes."""
    return min_ratio(docs, "backward", "compile", long=True)


def bwd_vs_liger_min(docs: Docs) -> float | None:
    """Backward, Triton over Liger-Kernel: lowest ratio, both dtypes, ≤ 16,384 columns."""
    return min_ratio(docs, "backward", "liger")


def bwd_vs_liger_long(docs: Docs) -> float | None:
    """Backward, Triton over Liger-Kernel at 65,536 columns: the lower ratio of the two dtypes."""
    return min_ratio(docs, "backward", "liger", long=True)


def fwd_behind(docs: Docs) -> str:
    """Forward, ≤ 16,384 columns: where a peer is faster beyond the spread (or 'nowhere')."""
    return behind(docs, "forward")


def bwd_behind(docs: Docs) -> str:
    """Backward, ≤ 16,384 columns: where a peer is faster beyond the spread (or 'nowhere')."""
    return behind(docs, "backward")


def liger_dtypes(docs: Docs) -> str:
    """The dtypes in which Liger-Kernel's forward ran and passed its check."""
    found = {r["dtype"] for r in rows(docs, BENCH, impl="liger", direction="forward")}
    return " and ".join(d for d in DTYPES if d in found) or "none"


# ---- values: the peer table (fp32 forward) and the worked number at 4,096 columns --------


def triton_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of the Triton kernels at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "triton", 4096)


def triton_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of the Triton kernels at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "triton", 65536)


def torch_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.softmax at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "torch", 4096)


def torch_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.softmax at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "torch", 65536)


def compile_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.compile at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "compile", 4096)


def compile_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.compile at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "compile", 65536)


def liger_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of Liger-Kernel at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "liger", 4096)


def liger_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of Liger-Kernel at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "liger", 65536)


def rows_4096(docs: Docs) -> int:
    """Rows of the fp32 tensor at 4,096 columns (512 MiB)."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["rows"]


def gb_4096(docs: Docs) -> str:
    """Bytes the forward must move at 4,096 fp32 columns (read x, write y), in GB."""
    return f"{at(docs, 'triton', 'forward', 'float32', TABLE_COLS)['bytes'] / 1e9:.2f} GB"


def floor_4096(docs: Docs) -> float:
    """Those bytes over the measured copy bandwidth: the fastest the forward can be, s."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["bytes"] / copy(docs)


def triton_4096_time(docs: Docs) -> float:
    """Median device time of the Triton forward at 4,096 fp32 columns, seconds."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["time_s"]["p50"]


def naive_4096_time(docs: Docs) -> float:
    """Median device time of the five-op decomposition at 4,096 fp32 columns, seconds."""
    return at(docs, "naive", "forward", "float32", TABLE_COLS)["time_s"]["p50"]


def naive_over_triton(docs: Docs) -> float:
    """The five-op decomposition's time over the Triton forward's, 4,096 fp32 columns."""
    return naive_4096_time(docs) / triton_4096_time(docs)


def naive_floor_4096(docs: Docs) -> float:
    """Eight full passes (five reads, three writes) over the copy bandwidth, seconds."""
    return 4 * floor_4096(docs)


# ---- values: registers, and the online kernel's sweep -------------------------------------


def _resource(docs: Docs, direction: str, cols: int, field: str):
    v = at(docs, "triton", direction, "float32", cols).get(field)
    return "not reported" if v is None else v


def regs_16384(docs: Docs):
    """Registers per thread of the fp32 forward kernel compiled for 16,384 columns."""
    return _resource(docs, "forward", WHOLE_ROW_MAX, "n_regs")


def spills_16384(docs: Docs):
    """Spilled registers of the fp32 forward kernel compiled for 16,384 columns."""
    return _resource(docs, "forward", WHOLE_ROW_MAX, "n_spills")


def whole_row(docs: Docs, cols: int) -> dict:
    found = sweep(docs, "whole_row", cols)
    if not found:
        raise KeyError(f"no whole-row control at {cols} columns")
    return found[0]


def whole_row_long(docs: Docs) -> float:
    """The whole-row kernel forced onto 65,536 fp32 columns (32 warps): bandwidth."""
    return bandwidth(whole_row(docs, LONG))


def whole_row_long_regs(docs: Docs):
    """Registers per thread of that whole-row kernel."""
    v = whole_row(docs, LONG).get("n_regs")
    return "not reported" if v is None else v


def whole_row_long_spills(docs: Docs):
    """Spilled registers of that whole-row kernel."""
    v = whole_row(docs, LONG).get("n_spills")
    return "not reported" if v is None else v


def online_long_best(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns: best bandwidth over programs per SM."""
    return max(bandwidth(r) for r in sweep(docs, "online", LONG))


def online_long_best_per_sm(docs: Docs) -> int:
    """The programs per SM at which the online kernel is fastest at 65,536 fp32 columns."""
    return max(sweep(docs, "online", LONG), key=bandwidth)["programs_per_sm"]


def online_long_one_per_sm(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns with one program per SM: bandwidth."""
    return bandwidth(next(r for r in sweep(docs, "online", LONG) if r["programs_per_sm"] == 1))


def online_long_four_per_sm(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns with four programs per SM: bandwidth."""
    return bandwidth(next(r for r in sweep(docs, "online", LONG) if r["programs_per_sm"] == 4))


def online_over_whole_row(docs: Docs) -> float:
    """At 65,536 fp32 columns: the online kernel's best over the whole-row kernel's."""
    return online_long_best(docs) / whole_row_long(docs)


def whole_row_32k(docs: Docs) -> float:
    """The whole-row kernel forced onto 32,768 fp32 columns (32 warps): bandwidth."""
    return bandwidth(whole_row(docs, LONG // 2))


def whole_row_32k_regs(docs: Docs):
    """Registers per thread of the whole-row kernel at 32,768 fp32 columns."""
    v = whole_row(docs, LONG // 2).get("n_regs")
    return "not reported" if v is None else v


def whole_row_32k_spills(docs: Docs):
    """Spilled registers of the whole-row kernel at 32,768 fp32 columns."""
    v = whole_row(docs, LONG // 2).get("n_spills")
    return "not reported" if v is None else v


def online_32k_one_per_sm(docs: Docs) -> float:
    """The online kernel at 32,768 fp32 columns with one program per SM: bandwidth."""
    return bandwidth(next(r for r in sweep(docs, "online", LONG // 2) if r["programs_per_sm"] == 1))


def online_32k_best(docs: Docs) -> float:
    """The online kernel at 32,768 fp32 columns: best bandwidth over programs per SM."""
    return max(bandwidth(r) for r in sweep(docs, "online", LONG // 2))


def whole_row_32k_over_online(docs: Docs) -> float:
    """At 32,768 fp32 columns: the whole-row control over the online kernel's best."""
    return whole_row_32k(docs) / online_32k_best(docs)


def online_sweep_best(docs: Docs) -> float:
    """The online kernel's best bandwidth anywhere in the sweep."""
    return max(bandwidth(r) for r in sweep(docs, "online"))


def online_sweep_best_where(docs: Docs) -> str:
    """Where that best point lies: width, programs per SM and MiB in flight, in words."""
    r = max(sweep(docs, "online"), key=bandwidth)
    return (
        f"{r['cols']:,} columns with {r['programs_per_sm']} programs per SM, "
        f"{in_flight_bytes(r) / 2**20:.0f} MiB in flight"
    )


def wide_widths(docs: Docs) -> list[int]:
    """The sweep's widths wider than the main benchmark's 65,536 columns."""
    return sorted({r["cols"] for r in sweep(docs, "online") if r["cols"] > LONG})


def online_at(docs: Docs, cols: int, per_sm: int) -> float:
    """The online kernel's bandwidth at ``cols`` fp32 columns and ``per_sm`` programs per SM."""
    return bandwidth(next(r for r in sweep(docs, "online", cols) if r["programs_per_sm"] == per_sm))


def online_wide_one_per_sm(docs: Docs) -> str:
    """One program per SM at the widths past 65,536 columns: bandwidths, narrowest first."""
    return " and ".join(tbps(online_at(docs, c, 1)) for c in wide_widths(docs))


def online_wide_two_per_sm(docs: Docs) -> str:
    """Two programs per SM at the widths past 65,536 columns: bandwidths, narrowest first."""
    return " and ".join(tbps(online_at(docs, c, 2)) for c in wide_widths(docs))


def online_wide_copy(docs: Docs) -> float:
    """Past 65,536 columns: the online kernel's best over programs per SM, as a fraction of
    copy bandwidth, at the width where that best is lowest."""
    best = [max(bandwidth(r) for r in sweep(docs, "online", c)) for c in wide_widths(docs)]
    return min(best) / copy_bw(doc(docs, ONLINE))


def two_thirds_copy(docs: Docs) -> float:
    """Two thirds of copy bandwidth: the most a kernel counted as two passes can reach when
    it moves three (the online kernel if its second read comes from HBM)."""
    return 2 / 3 * copy_bw(doc(docs, ONLINE))


def online_long_resources(docs: Docs) -> str:
    """Registers and spills of the online forward at 65,536 columns, fp32 and bf16, in words."""
    parts = []
    for dtype in DTYPES:
        r = at(docs, "triton", "forward", dtype, LONG)
        parts.append(
            f"{r.get('n_regs', 'unreported')} registers and {r.get('n_spills', 'unreported')} "
            f"spills in {dtype}"
        )
    return ", ".join(parts)


def in_flight_long_mib(docs: Docs) -> str:
    """Rows in flight with one program per SM at 65,536 fp32 columns, in MiB."""
    return f"{provenance(docs)['sm_count'] * LONG * 4 / 2**20:.0f} MiB"


def l2_mib(docs: Docs) -> str:
    """The L2 size the device reports, MiB."""
    return f"{provenance(docs)['l2_bytes'] / 2**20:.0f} MiB"


VALUES = {
    "softmax.fwd_copy_min": Value(fwd_copy_min, percent),
    "softmax.bwd_copy_min": Value(bwd_copy_min, percent),
    "softmax.fwd_copy_long_fp32": Value(fwd_copy_long_fp32, percent),
    "softmax.fwd_copy_long_bf16": Value(fwd_copy_long_bf16, percent),
    "softmax.bwd_copy_long_min": Value(bwd_copy_long_min, percent),
    "softmax.fwd_vs_torch_min": Value(fwd_vs_torch_min, or_not_measured(ratio3)),
    "softmax.fwd_vs_torch_long": Value(fwd_vs_torch_long, or_not_measured(ratio)),
    "softmax.fwd_vs_compile_min": Value(fwd_vs_compile_min, or_not_measured(ratio3)),
    "softmax.fwd_vs_compile_long": Value(fwd_vs_compile_long, or_not_measured(ratio)),
    "softmax.fwd_vs_liger_min": Value(fwd_vs_liger_min, or_not_measured(ratio3)),
    "softmax.fwd_vs_liger_long": Value(fwd_vs_liger_long, or_not_measured(ratio)),
    "softmax.bwd_vs_torch_min": Value(bwd_vs_torch_min, or_not_measured(ratio3)),
    "softmax.bwd_vs_torch_long": Value(bwd_vs_torch_long, or_not_measured(ratio)),
    "softmax.bwd_vs_compile_min": Value(bwd_vs_compile_min, or_not_measured(ratio3)),
    "softmax.bwd_vs_compile_long": Value(bwd_vs_compile_long, or_not_measured(ratio)),
    "softmax.bwd_vs_liger_min": Value(bwd_vs_liger_min, or_not_measured(ratio3)),
    "softmax.bwd_vs_liger_long": Value(bwd_vs_liger_long, or_not_measured(ratio)),
    "softmax.fwd_behind": Value(fwd_behind),
    "softmax.bwd_behind": Value(bwd_behind),
    "softmax.liger_dtypes": Value(liger_dtypes),
    "softmax.triton_4096": Value(triton_4096, or_not_measured(tbps)),
    "softmax.triton_65536": Value(triton_65536, or_not_measured(tbps)),
    "softmax.torch_4096": Value(torch_4096, or_not_measured(tbps)),
    "softmax.torch_65536": Value(torch_65536, or_not_measured(tbps)),
    "softmax.compile_4096": Value(compile_4096, or_not_measured(tbps)),
    "softmax.compile_65536": Value(compile_65536, or_not_measured(tbps)),
    "softmax.liger_4096": Value(liger_4096, or_not_measured(tbps)),
    "softmax.liger_65536": Value(liger_65536, or_not_measured(tbps)),
    "softmax.rows_4096": Value(rows_4096, count),
    "softmax.gb_4096": Value(gb_4096),
    "softmax.floor_4096_ms": Value(floor_4096, millis(3)),
    "softmax.triton_4096_ms": Value(triton_4096_time, millis(3)),
    "softmax.naive_4096_ms": Value(naive_4096_time, millis(3)),
    "softmax.naive_floor_4096_ms": Value(naive_floor_4096, millis(3)),
    "softmax.naive_over_triton": Value(naive_over_triton, ratio),
    "softmax.regs_16384": Value(regs_16384, plain),
    "softmax.spills_16384": Value(spills_16384, plain),
    "softmax.whole_row_long": Value(whole_row_long, tbps),
    "softmax.whole_row_long_regs": Value(whole_row_long_regs, plain),
    "softmax.whole_row_long_spills": Value(whole_row_long_spills, plain),
    "softmax.online_long_best": Value(online_long_best, tbps),
    "softmax.online_long_best_per_sm": Value(online_long_best_per_sm, plain),
    "softmax.online_long_one_per_sm": Value(online_long_one_per_sm, tbps),
    "softmax.online_long_four_per_sm": Value(online_long_four_per_sm, tbps),
    "softmax.online_over_whole_row": Value(online_over_whole_row, ratio),
    "softmax.whole_row_32k": Value(whole_row_32k, tbps),
    "softmax.whole_row_32k_regs": Value(whole_row_32k_regs, plain),
    "softmax.whole_row_32k_spills": Value(whole_row_32k_spills, plain),
    "softmax.online_32k_one_per_sm": Value(online_32k_one_per_sm, tbps),
    "softmax.online_32k_best": Value(online_32k_best, tbps),
    "softmax.whole_row_32k_over_online": Value(whole_row_32k_over_online, ratio),
    "softmax.online_sweep_best": Value(online_sweep_best, tbps),
    "softmax.online_sweep_best_where": Value(online_sweep_best_where),
    "softmax.online_wide_one_per_sm": Value(online_wide_one_per_sm),
    "softmax.online_wide_two_per_sm": Value(online_wide_two_per_sm),
    "softmax.online_wide_copy": Value(online_wide_copy, percent),
    "softmax.two_thirds_copy": Value(two_thirds_copy, tbps),
    "softmax.online_long_resources": Value(online_long_resources),
    "softmax.in_flight_long_mib": Value(in_flight_long_mib),
    "softmax.l2_mib": Value(l2_mib),
}


# ---- figures ----------------------------------------------------------------------------


def fig_widths(direction: str):
    def build(docs: Docs) -> dict:
        ws = widths(docs)
        bw = copy(docs) / 1e12
        ceiling = hline(bw, min(ws), max(ws), f"copy ceiling ({bw:.2f} TB/s)")
        ceiling["legendrank"] = 2000  # last in the legend, first drawn (under the kernels)
        mine, peers = [], []
        for impl, name, role in IMPLS:
            for dtype in DTYPES:
                rs = series(docs, impl, direction, dtype)
                if not rs:
                    continue  # a peer that did not run here, or naive outside fp32 forward
                trace = line(
                    [r["cols"] for r in rs],
                    [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                    f"{name}, {dtype}",
                    role,
                    dash=DASH[dtype],
                    hover="%{x:,} columns<br>%{y:.2f} TB/s",
                    legendrank=1000 + len(mine) + len(peers),  # legend in IMPLS order
                )
                (mine if impl == "triton" else peers).append(trace)
        return {
            # Drawn last, the book's kernel stays visible where the peers lie on top of it
            # (at the copy ceiling, up to 16,384 columns).
            "data": [ceiling, *peers, *mine],
            "layout": {
                "xaxis": axis(
                    "columns per row (512 MiB tensors)",
                    log=True,
                    tickvals=ws,
                    ticktext=[f"{w:,}" for w in ws],
                ),
                "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
            },
        }

    return build


def fig_online(docs: Docs) -> dict:
    traces = []
    all_rows = sweep(docs, "online")
    for i, cols in enumerate(sorted({r["cols"] for r in all_rows})):
        rs = sweep(docs, "online", cols)
        traces.append(
            line(
                [in_flight_bytes(r) / 2**20 for r in rs],
                [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                f"{cols:,} columns",
                f"series-{i}",
                customdata=[r["programs_per_sm"] for r in rs],
                hover="%{customdata} programs per SM<br>%{x:.0f} MiB in flight<br>%{y:.2f} TB/s",
            )
        )
    xs = [in_flight_bytes(r) / 2**20 for r in all_rows]
    # Powers of two across the range: readable ticks on a log axis.
    ticks = [2**k for k in range(int(math.log2(min(xs))), int(math.log2(max(xs))) + 2)]
    bw = copy_bw(doc(docs, ONLINE)) / 1e12
    traces.append(hline(bw, min(xs), max(xs), f"copy ceiling ({bw:.2f} TB/s)"))
    l2 = provenance(docs).get("l2_bytes") or 0
    if l2:
        traces.append(vline(l2 / 2**20, 0, bw * 1.05, "L2 size"))
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "rows in flight × bytes per row (MiB)",
                log=True,
                tickvals=ticks,
                ticktext=[f"{t:,}" for t in ticks],
            ),
            "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
            "annotations": (
                [
                    {
                        "x": math.log10(l2 / 2**20),
                        "y": bw * 0.15,
                        "text": " L2 size",
                        "showarrow": False,
                        "xanchor": "left",
                        "font": {"size": 11},
                    }
                ]
                if l2
                else []
            ),
        },
    }


FIGURES = {
    "softmax-forward": Figure(
        "Softmax forward: bandwidth against row width",
        (BENCH,),
        fig_widths("forward"),
        "Forward softmax bandwidth (bytes of x read and y written over time) against columns "
        "per row, fp32 solid and bf16 dashed, for the Triton kernels, torch.softmax, "
        "torch.compile, Liger-Kernel where it ran and five separate torch ops, with the "
        "measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "softmax-backward": Figure(
        "Softmax backward: bandwidth against row width",
        (BENCH,),
        fig_widths("backward"),
        "Backward softmax bandwidth (bytes of y and dy read and dx written over time) "
        "against columns per row, fp32 solid and bf16 dashed, for the Triton kernels, "
        "torch, torch.compile and Liger-Kernel where it ran, with the copy ceiling.",
    ),
    "softmax-online": Figure(
        "Online softmax: bandwidth against the bytes of rows in flight",
        (ONLINE,),
        fig_online,
        "Bandwidth of the online softmax kernel on long fp32 rows against the bytes of the "
        "rows its persistent programs work on at once (programs × row bytes), one line per "
        "row width, with the L2 size and the copy ceiling marked.",
    ),
}
