"""Figures and values of the softmax family: lesson 10.

Data: ``softmax`` (forward and backward against row width, the book's kernels and their
peers, fp32 and bf16) and ``softmax_online`` (the online kernel's tile and persistent grid
swept on long fp32 and bf16 rows, with the whole-row kernel as a control), both written by
scripts/bench/benchmarks/softmax.py. Data measured before the tile sweep has only fp32 rows with
tiles of 8,192: values that need the rest say "not measured" until it is run again.

Bytes: each row's ``bytes`` is the least any softmax must move (forward: read x, write y;
backward: read y and dy, write dx), so every impl's "bandwidth" is that count over its
time; an impl that moves more (the naive decomposition) shows as slower, not as busier.
"""

from __future__ import annotations

import math

from scripts.book.render import (
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
SHORT_TARGET, LONG_TARGET = 0.95, 0.85  # fractions of copy bandwidth (shared/TARGETS.md)
ELEMENT_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
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


def sweep(docs: Docs, kernel: str = "online", **match) -> list[dict]:
    """Rows of the online sweep for one kernel whose fields equal ``match``, ordered by
    dtype, width, tile and grid."""
    found = rows(docs, ONLINE, kernel=kernel, **match)
    return sorted(found, key=lambda r: (r["dtype"], r["cols"], r["block_n"], r["programs"]))


def tile_bytes(row: dict) -> int:
    """Bytes of one tile of a sweep row: block_n elements of its dtype (data measured
    before the tile sweep lacks the field)."""
    return row.get("bytes_per_tile") or row["block_n"] * ELEMENT_BYTES[row["dtype"]]


def kib(n: int) -> str:
    return f"{n // 1024:,} KiB"


def point(docs: Docs, dtype: str, block_n: int, per_sm: int = 1, cols: int = LONG):
    """The online kernel's row at one setting, or None where the sweep did not run it."""
    found = sweep(docs, dtype=dtype, cols=cols, block_n=block_n, programs_per_sm=per_sm)
    return found[0] if found else None


def point_bw(docs: Docs, dtype: str, block_n: int, per_sm: int = 1) -> float | None:
    r = point(docs, dtype, block_n, per_sm)
    return bandwidth(r) if r else None


def best(docs: Docs, dtype: str, cols: int) -> dict | None:
    """The online kernel's fastest row at one width and dtype, over tiles and grids."""
    found = sweep(docs, dtype=dtype, cols=cols)
    return max(found, key=bandwidth) if found else None


def in_flight_bytes(row: dict) -> int:
    """Bytes of the rows the online kernel's programs work on at once: programs x row."""
    return row["programs"] * row["cols"] * ELEMENT_BYTES[row["dtype"]]


def verdict(parts: list[tuple[str, float | None]], bar: float) -> str | None:
    """'met' when every measured part reaches ``bar``, else 'missed' with each part that
    does not, as a multiple of the target; None when no part was measured."""
    measured = [(name, v) for name, v in parts if v is not None]
    if not measured:
        return None
    short = [f"{name} {v / bar:.3f}× the target" for name, v in measured if v < bar]
    unmeasured = [name for name, v in parts if v is None]
    tail = f" ({', '.join(unmeasured)} not measured)" if unmeasured else ""
    return ("missed: " + "; ".join(short) if short else "met") + tail


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


# ---- values: verdicts against the targets, computed (never typed) ------------------------


def verdict_short_copy(docs: Docs) -> str | None:
    """≤ 16,384 columns, lowest fraction of copy, forward and backward, against 95%."""
    parts = [("forward", fwd_copy_min(docs)), ("backward", bwd_copy_min(docs))]
    return verdict(parts, SHORT_TARGET)


def _peer_verdict(docs: Docs, peer: str) -> str | None:
    parts = [(d, min_ratio(docs, d, peer)) for d in ("forward", "backward")]
    return verdict(parts, 1.0)


def verdict_vs_torch(docs: Docs) -> str | None:
    """≤ 16,384 columns, lowest ratio to torch.softmax, forward and backward, against 1."""
    return _peer_verdict(docs, "torch")


def verdict_vs_compile(docs: Docs) -> str | None:
    """≤ 16,384 columns, lowest ratio to torch.compile, forward and backward, against 1."""
    return _peer_verdict(docs, "compile")


def verdict_vs_liger(docs: Docs) -> str | None:
    """≤ 16,384 columns, lowest ratio to Liger-Kernel, forward and backward, against 1."""
    return _peer_verdict(docs, "liger")


def verdict_long(docs: Docs) -> str | None:
    """65,536 columns, the wrapper's defaults: fraction of copy against 85%, forward fp32,
    forward bf16 and the backward's lower dtype."""
    parts = [
        ("forward fp32", fwd_copy_long_fp32(docs)),
        ("forward bf16", fwd_copy_long_bf16(docs)),
        ("backward", bwd_copy_long_min(docs)),
    ]
    return verdict(parts, LONG_TARGET)


def verdict_wide(docs: Docs) -> str | None:
    """Past 65,536 columns (the sweep's best setting per width): fraction of copy against
    85%, fp32 and bf16."""
    parts = [("fp32", online_wide_copy_fp32(docs)), ("bf16", online_wide_copy_bf16(docs))]
    return verdict(parts, LONG_TARGET)


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


def whole_row(docs: Docs, cols: int, dtype: str = "float32") -> dict | None:
    """The whole-row control at ``cols`` columns, or None where it did not run."""
    found = sweep(docs, "whole_row", cols=cols, dtype=dtype)
    return found[0] if found else None


def _field(row: dict | None, field: str):
    if row is None:
        return None
    v = row.get(field)
    return "not reported" if v is None else v


def whole_row_long(docs: Docs) -> float | None:
    """The whole-row kernel forced onto 65,536 fp32 columns (32 warps): bandwidth."""
    r = whole_row(docs, LONG)
    return bandwidth(r) if r else None


def whole_row_long_regs(docs: Docs):
    """Registers per thread of that whole-row kernel."""
    return _field(whole_row(docs, LONG), "n_regs")


def whole_row_long_spills(docs: Docs):
    """Spilled registers of that whole-row kernel."""
    return _field(whole_row(docs, LONG), "n_spills")


def online_over_whole_row(docs: Docs) -> float | None:
    """At 65,536 fp32 columns: the online kernel's best (any tile, any grid) over the
    whole-row kernel's bandwidth."""
    mine, control = best(docs, "float32", LONG), whole_row_long(docs)
    return bandwidth(mine) / control if mine and control else None


def whole_row_32k(docs: Docs) -> float | None:
    """The whole-row kernel on 32,768 fp32 columns (32 warps; the default there): bandwidth."""
    r = whole_row(docs, LONG // 2)
    return bandwidth(r) if r else None


def whole_row_32k_regs(docs: Docs):
    """Registers per thread of the whole-row kernel at 32,768 fp32 columns."""
    return _field(whole_row(docs, LONG // 2), "n_regs")


def whole_row_32k_spills(docs: Docs):
    """Spilled registers of the whole-row kernel at 32,768 fp32 columns."""
    return _field(whole_row(docs, LONG // 2), "n_spills")


def online_32k_best(docs: Docs) -> float | None:
    """The online kernel at 32,768 fp32 columns: best bandwidth over tiles and grids."""
    r = best(docs, "float32", LONG // 2)
    return bandwidth(r) if r else None


def whole_row_32k_over_online(docs: Docs) -> float | None:
    """At 32,768 fp32 columns: the whole-row control over the online kernel's best."""
    control, online = whole_row_32k(docs), online_32k_best(docs)
    return control / online if control and online else None


def whole_row_32k_bf16(docs: Docs) -> float | None:
    """The whole-row kernel on 32,768 bf16 columns (32 warps; the default there): bandwidth."""
    r = whole_row(docs, LONG // 2, "bfloat16")
    return bandwidth(r) if r else None


def whole_row_32k_bf16_over_online(docs: Docs) -> float | None:
    """At 32,768 bf16 columns: the whole-row control over the online kernel's best."""
    control, online = whole_row(docs, LONG // 2, "bfloat16"), best(docs, "bfloat16", LONG // 2)
    return bandwidth(control) / bandwidth(online) if control and online else None


# ---- values: the online kernel's tile ---------------------------------------------------


def tile_8k_fp32(docs: Docs) -> float | None:
    """65,536 fp32 columns, tiles of 8,192 (32 KiB), one program per SM: bandwidth."""
    return point_bw(docs, "float32", 8192)


def tile_32k_fp32(docs: Docs) -> float | None:
    """65,536 fp32 columns, tiles of 32,768 (128 KiB), one program per SM: bandwidth."""
    return point_bw(docs, "float32", 32768)


def tile_8k_bf16(docs: Docs) -> float | None:
    """65,536 bf16 columns, tiles of 8,192 (16 KiB), one program per SM: bandwidth."""
    return point_bw(docs, "bfloat16", 8192)


def tile_32k_bf16(docs: Docs) -> float | None:
    """65,536 bf16 columns, tiles of 32,768 (64 KiB), one program per SM: bandwidth."""
    return point_bw(docs, "bfloat16", 32768)


def _gain(docs: Docs, dtype: str) -> float | None:
    small, large = point_bw(docs, dtype, 8192), point_bw(docs, dtype, 32768)
    return large / small if small and large else None


def tile_gain_fp32(docs: Docs) -> float | None:
    """65,536 fp32 columns, one program per SM: tiles of 32,768 over tiles of 8,192."""
    return _gain(docs, "float32")


def tile_gain_bf16(docs: Docs) -> float | None:
    """65,536 bf16 columns, one program per SM: tiles of 32,768 over tiles of 8,192."""
    return _gain(docs, "bfloat16")


def bf16_over_fp32(docs: Docs, same: str) -> list[tuple[int, float]]:
    """65,536 columns, one program per SM: bf16's bandwidth over fp32's at tiles of the
    same ``same`` ("bytes" or "elements"), as (that size, ratio) pairs, smallest first."""
    key = tile_bytes if same == "bytes" else (lambda r: r["block_n"])
    fp32 = {key(r): r for r in sweep(docs, dtype="float32", cols=LONG, programs_per_sm=1)}
    bf16 = sweep(docs, dtype="bfloat16", cols=LONG, programs_per_sm=1)
    return [(key(r), bandwidth(r) / bandwidth(fp32[key(r)])) for r in bf16 if key(r) in fp32]


def same_bytes(docs: Docs) -> str | None:
    """bf16 over fp32 at equal bytes per tile (65,536 columns, one program per SM), words."""
    pairs = bf16_over_fp32(docs, "bytes")
    return " and ".join(f"{v:.2f}× at {kib(n)}" for n, v in pairs) or None


def same_elements(docs: Docs) -> str | None:
    """bf16 over fp32 at equal elements per tile (65,536 columns, one program per SM), words."""
    pairs = bf16_over_fp32(docs, "elements")
    return ", ".join(f"{v:.2f}× at {n:,}" for n, v in pairs) or None


def tile_hypothesis(docs: Docs) -> str | None:
    """Whether fp32 and bf16 lie closer together at equal bytes per tile than at equal
    elements (mean distance of the ratio from 1, in log terms), as a clause."""
    by_bytes, by_elements = bf16_over_fp32(docs, "bytes"), bf16_over_fp32(docs, "elements")
    if not by_bytes or not by_elements:
        return None

    def spread(pairs):
        return sum(abs(math.log(v)) for _, v in pairs) / len(pairs)

    if spread(by_bytes) < spread(by_elements):
        return (
            "the two dtypes lie closer together at equal bytes per tile than at equal "
            "elements, as the hypothesis predicts"
        )
    return (
        "the two dtypes do not lie closer together at equal bytes per tile than at equal "
        "elements, so this data does not support the hypothesis"
    )


def two_per_sm(docs: Docs) -> str | None:
    """65,536 columns: two programs per SM over one, per dtype and tile, in words."""
    parts = []
    for dtype in DTYPES:
        found = []
        for r in sweep(docs, dtype=dtype, cols=LONG, programs_per_sm=1):
            two = point(docs, dtype, r["block_n"], 2)
            if two:
                found.append(f"{bandwidth(two) / bandwidth(r):.2f}× at {kib(tile_bytes(r))}")
        if found:
            parts.append(f"{dtype} {', '.join(found)}")
    return "; ".join(parts) or None


def _best_where(docs: Docs, dtype: str) -> str | None:
    r = best(docs, dtype, LONG)
    if r is None:
        return None
    per_sm = r["programs_per_sm"]
    return (
        f"tiles of {r['block_n']:,} ({kib(tile_bytes(r))}), {per_sm} program"
        f"{'s' if per_sm > 1 else ''} per SM: {bandwidth(r) / copy_bw(doc(docs, ONLINE)):.0%} "
        "of copy"
    )


def online_long_best_fp32(docs: Docs) -> float | None:
    """The online kernel at 65,536 fp32 columns: best bandwidth over tiles and grids."""
    r = best(docs, "float32", LONG)
    return bandwidth(r) if r else None


def online_long_best_bf16(docs: Docs) -> float | None:
    """The online kernel at 65,536 bf16 columns: best bandwidth over tiles and grids."""
    r = best(docs, "bfloat16", LONG)
    return bandwidth(r) if r else None


def online_long_best_fp32_where(docs: Docs) -> str | None:
    """Where that fp32 best lies: tile, programs per SM and fraction of copy, in words."""
    return _best_where(docs, "float32")


def online_long_best_bf16_where(docs: Docs) -> str | None:
    """Where that bf16 best lies: tile, programs per SM and fraction of copy, in words."""
    return _best_where(docs, "bfloat16")


def tile_32k_resources(docs: Docs) -> str | None:
    """Registers and spills of the online kernel with tiles of 32,768 (32 warps) at 65,536
    columns, fp32 and bf16, in words."""
    parts = []
    for dtype in DTYPES:
        r = point(docs, dtype, 32768)
        if r:
            parts.append(
                f"{_field(r, 'n_regs')} registers and {_field(r, 'n_spills')} spills in {dtype}"
            )
    return ", ".join(parts) or None


def _wide_copy(docs: Docs, dtype: str) -> float | None:
    """Past 65,536 columns: the online kernel's best over tiles and grids, as a fraction of
    copy bandwidth, at the width where that best is lowest; None where not measured."""
    wide = sorted({r["cols"] for r in sweep(docs, dtype=dtype) if r["cols"] > LONG})
    if not wide:
        return None
    return min(bandwidth(best(docs, dtype, c)) for c in wide) / copy_bw(doc(docs, ONLINE))


def online_wide_copy_fp32(docs: Docs) -> float | None:
    """fp32 rows wider than 65,536 columns: the lowest, over widths, of the sweep's best
    fraction of copy bandwidth."""
    return _wide_copy(docs, "float32")


def online_wide_copy_bf16(docs: Docs) -> float | None:
    """bf16 rows wider than 65,536 columns: the lowest, over widths, of the sweep's best
    fraction of copy bandwidth."""
    return _wide_copy(docs, "bfloat16")


def online_wide_widths(docs: Docs) -> str:
    """The widths past 65,536 columns the sweep ran, per dtype, in words."""
    parts = []
    for dtype in DTYPES:
        wide = sorted({r["cols"] for r in sweep(docs, dtype=dtype) if r["cols"] > LONG})
        if wide:
            parts.append(f"{' and '.join(f'{c:,}' for c in wide)} {dtype} columns")
    return "; ".join(parts) or "none"


def tile_sweep_measured(docs: Docs) -> bool:
    """Whether the committed sweep is the tile sweep (its rows record bytes_per_tile)."""
    return any("bytes_per_tile" in r for r in doc(docs, ONLINE)["rows"])


def sweep_status(docs: Docs) -> str:
    """A sentence: whether the committed data holds the tile sweep, or predates it."""
    if tile_sweep_measured(docs):
        return f"The committed sweep has {len(doc(docs, ONLINE)['rows'])} points."
    return (
        "The committed data predates this sweep: it holds fp32 rows with tiles of 8,192 "
        "only, so the numbers below that need the rest read “not measured” until it is run."
    )


def defaults_when(docs: Docs) -> str:
    """With which defaults the committed softmax benchmark ran: this page's, when it comes
    from the same run as a tile sweep, else the earlier ones."""
    run = [
        (d["provenance"]["commit"], d["provenance"]["date"])
        for d in (doc(docs, BENCH), doc(docs, ONLINE))
    ]
    same_run = run[0] == run[1]  # one `make figures` run stamps both with one date
    if same_run and tile_sweep_measured(docs):
        return "with the defaults this page describes"
    return (
        "with the earlier defaults (whole rows up to 16,384 columns, tiles of 8,192), "
        "before the tile sweep, and not yet measured again"
    )


def two_thirds_copy(docs: Docs) -> float:
    """Two thirds of copy bandwidth: the most a kernel counted as two passes can reach when
    it moves three (the online kernel if its second read comes from HBM)."""
    return 2 / 3 * copy_bw(doc(docs, ONLINE))


def online_sweep_best(docs: Docs) -> float:
    """The online kernel's best bandwidth anywhere in the sweep, any dtype."""
    return max(bandwidth(r) for r in sweep(docs))


def second_read(docs: Docs) -> str:
    """What the sweep's best point says about the second read, as a clause: above two
    thirds of copy, three passes through HBM could not have run that fast."""
    if online_sweep_best(docs) > two_thirds_copy(docs):
        return (
            "above that, faster than three full passes through HBM run at the copy "
            "bandwidth: so at least part of the second read is served from the cache"
        )
    return (
        "not above that, so these numbers alone do not show whether the second read is "
        "served from the cache"
    )


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
    "softmax.whole_row_long": Value(whole_row_long, or_not_measured(tbps)),
    "softmax.whole_row_long_regs": Value(whole_row_long_regs, or_not_measured(plain)),
    "softmax.whole_row_long_spills": Value(whole_row_long_spills, or_not_measured(plain)),
    "softmax.online_over_whole_row": Value(online_over_whole_row, or_not_measured(ratio)),
    "softmax.whole_row_32k": Value(whole_row_32k, or_not_measured(tbps)),
    "softmax.whole_row_32k_regs": Value(whole_row_32k_regs, or_not_measured(plain)),
    "softmax.whole_row_32k_spills": Value(whole_row_32k_spills, or_not_measured(plain)),
    "softmax.online_32k_best": Value(online_32k_best, or_not_measured(tbps)),
    "softmax.whole_row_32k_over_online": Value(whole_row_32k_over_online, or_not_measured(ratio)),
    "softmax.whole_row_32k_bf16": Value(whole_row_32k_bf16, or_not_measured(tbps)),
    "softmax.whole_row_32k_bf16_over_online": Value(
        whole_row_32k_bf16_over_online, or_not_measured(ratio)
    ),
    "softmax.tile_8k_fp32": Value(tile_8k_fp32, or_not_measured(tbps)),
    "softmax.tile_32k_fp32": Value(tile_32k_fp32, or_not_measured(tbps)),
    "softmax.tile_8k_bf16": Value(tile_8k_bf16, or_not_measured(tbps)),
    "softmax.tile_32k_bf16": Value(tile_32k_bf16, or_not_measured(tbps)),
    "softmax.tile_gain_fp32": Value(tile_gain_fp32, or_not_measured(ratio)),
    "softmax.tile_gain_bf16": Value(tile_gain_bf16, or_not_measured(ratio)),
    "softmax.same_bytes": Value(same_bytes, or_not_measured(plain)),
    "softmax.same_elements": Value(same_elements, or_not_measured(plain)),
    "softmax.tile_hypothesis": Value(tile_hypothesis, or_not_measured(plain)),
    "softmax.two_per_sm": Value(two_per_sm, or_not_measured(plain)),
    "softmax.online_long_best_fp32": Value(online_long_best_fp32, or_not_measured(tbps)),
    "softmax.online_long_best_bf16": Value(online_long_best_bf16, or_not_measured(tbps)),
    "softmax.online_long_best_fp32_where": Value(
        online_long_best_fp32_where, or_not_measured(plain)
    ),
    "softmax.online_long_best_bf16_where": Value(
        online_long_best_bf16_where, or_not_measured(plain)
    ),
    "softmax.tile_32k_resources": Value(tile_32k_resources, or_not_measured(plain)),
    "softmax.online_wide_copy_fp32": Value(online_wide_copy_fp32, or_not_measured(percent)),
    "softmax.online_wide_copy_bf16": Value(online_wide_copy_bf16, or_not_measured(percent)),
    "softmax.online_wide_widths": Value(online_wide_widths),
    "softmax.online_sweep_best": Value(online_sweep_best, tbps),
    "softmax.two_thirds_copy": Value(two_thirds_copy, tbps),
    "softmax.second_read": Value(second_read),
    "softmax.sweep_status": Value(sweep_status),
    "softmax.defaults_when": Value(defaults_when),
    "softmax.verdict_short_copy": Value(verdict_short_copy, or_not_measured(plain)),
    "softmax.verdict_vs_torch": Value(verdict_vs_torch, or_not_measured(plain)),
    "softmax.verdict_vs_compile": Value(verdict_vs_compile, or_not_measured(plain)),
    "softmax.verdict_vs_liger": Value(verdict_vs_liger, or_not_measured(plain)),
    "softmax.verdict_long": Value(verdict_long, or_not_measured(plain)),
    "softmax.verdict_wide": Value(verdict_wide, or_not_measured(plain)),
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
                    ticks=ws,
                ),
                "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
            },
        }

    return build


def fig_online(docs: Docs) -> dict:
    """65,536 columns: bandwidth against bytes per tile, one line per dtype and grid size
    (bf16 dashed), the whole-row control as a lone point, and the copy ceiling and target."""
    traces = []
    online = sweep(docs, cols=LONG)
    grids = sorted({r["programs_per_sm"] for r in online})
    for dtype in DTYPES:
        for per_sm in grids:
            rs = sorted(
                (r for r in online if (r["dtype"], r["programs_per_sm"]) == (dtype, per_sm)),
                key=tile_bytes,
            )
            if not rs:
                continue
            traces.append(
                line(
                    [tile_bytes(r) / 1024 for r in rs],
                    [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                    f"{dtype}, {per_sm} program{'s' if per_sm > 1 else ''} per SM",
                    f"series-{grids.index(per_sm)}",
                    dash=DASH[dtype],
                    customdata=[
                        [r["block_n"], r["num_warps"], _field(r, "n_regs"), _field(r, "n_spills")]
                        for r in rs
                    ],
                    hover=(
                        "tiles of %{customdata[0]:,} elements, %{x:.0f} KiB<br>"
                        "%{customdata[1]} warps, %{customdata[2]} registers, "
                        "%{customdata[3]} spilled<br>%{y:.2f} TB/s"
                    ),
                )
            )
    controls = sweep(docs, "whole_row", cols=LONG)
    if controls:
        control_dtypes = ", ".join(sorted({r["dtype"] for r in controls}))
        traces.append(
            line(
                [tile_bytes(r) / 1024 for r in controls],
                [rate(r["bytes"], r["time_s"], 1e12) for r in controls],
                f"whole row as one tile (control, {control_dtypes}), 32 warps",
                "series-3",
                mode="markers",
                customdata=[[r["dtype"], _field(r, "n_spills")] for r in controls],
                hover="%{customdata[0]}, %{x:.0f} KiB<br>%{customdata[1]} spilled<br>%{y:.2f} TB/s",
            )
        )
    xs = [tile_bytes(r) / 1024 for r in online + controls]
    # Powers of two across the range: readable ticks on a log axis.
    ticks = [2**k for k in range(int(math.log2(min(xs))), int(math.log2(max(xs))) + 1)]
    lo, hi = min(xs) / 1.3, max(xs) * 1.3
    bw = copy_bw(doc(docs, ONLINE)) / 1e12
    ceiling = hline(bw, lo, hi, f"copy ceiling ({bw:.2f} TB/s)")
    target = hline(LONG_TARGET * bw, lo, hi, f"target: {LONG_TARGET:.0%} of copy", "ceiling-2")
    return {
        "data": [ceiling, target, *traces],
        "layout": {
            "xaxis": axis(
                "bytes per tile (KiB), 65,536 columns per row",
                log=True,
                ticks=ticks,
            ),
            "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
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
        "Online softmax at 65,536 columns: bandwidth against bytes per tile",
        (ONLINE,),
        fig_online,
        "Bandwidth of the online softmax kernel on rows of 65,536 columns against the bytes "
        "of one tile (tile elements × element size), fp32 solid and bf16 dashed, one line "
        "per number of programs per SM, with the whole-row kernel forced onto the same rows "
        "as a lone point, the copy ceiling and the 85% target.",
    ),
}


# ---- the online backward's tile (softmax_online_backward) ---------------------------------

BACKWARD_SWEEP = "softmax_online_backward"


def backward_tile(dtype: str, block_n: int, num_warps: int):
    def compute(docs: Docs) -> float | None:
        if BACKWARD_SWEEP not in docs:
            return None
        found = rows(docs, BACKWARD_SWEEP, dtype=dtype, block_n=block_n, num_warps=num_warps)
        if not found:
            return None
        r = found[0]
        return r["bytes"] / r["time_s"]["p50"]

    compute.__name__ = compute.__qualname__ = f"bwd_tile_{dtype}_{block_n}_{num_warps}"
    compute.__doc__ = (
        f"The online backward at 65536 columns, {dtype}, tiles of {block_n} on {num_warps} "
        "warps, launched directly: bandwidth, bytes/s."
    )
    return compute


def backward_tile_best(docs: Docs) -> str | None:
    """The online backward sweep's fastest tile per dtype, as text."""
    if BACKWARD_SWEEP not in docs:
        return None
    parts = []
    for dtype in DTYPES:
        found = rows(docs, BACKWARD_SWEEP, dtype=dtype)
        best = max(found, key=lambda r: r["bytes"] / r["time_s"]["p50"])
        parts.append(f"{best['block_n']:,} on {best['num_warps']} warps in {dtype}")
    return " and ".join(parts)


for _dt in DTYPES:
    for _bn, _nw in ((8192, 16), (16384, 16), (16384, 32), (32768, 32)):
        VALUES[f"softmax.bwd_tile_{_dt}_{_bn}_{_nw}"] = Value(
            backward_tile(_dt, _bn, _nw), or_not_measured(tbps)
        )
VALUES["softmax.bwd_tile_best"] = Value(backward_tile_best, or_not_measured(plain))


# ---- lesson 01's roofline -----------------------------------------------------------------

FLOPS_PER_ELEMENT = 5  # max, subtract, exp, sum, divide


def roofline_points(rows: list[dict]) -> list[dict]:
    """The forward kernel at 4096 columns, one point per dtype."""
    return [
        {
            "kernel": f"softmax ({r['dtype']})",
            "flops": FLOPS_PER_ELEMENT * r["rows"] * r["cols"],
            "bytes": r["bytes"],
            "seconds": r["time_s"]["p50"],
        }
        for r in rows
        if (r["impl"], r["direction"], r["cols"]) == ("triton", "forward", 4096)
    ]


ROOFLINE = {"softmax": roofline_points}
