"""Figures and values of the vector-add family: lessons 03, 04 and 07.

Data: ``vector_add`` (size sweep, Triton and torch.add) and ``vector_add_block_sweep``
(BLOCK x num_warps), both written by scripts/bench/benchmarks/vector_add.py.
"""

from __future__ import annotations

import math

from scripts.book.render import (
    Docs,
    Figure,
    RenderError,
    Value,
    axis,
    copy_bw,
    count,
    doc,
    hline,
    line,
    micros,
    millis,
    percent,
    plain,
    provenance,
    rate,
    ratio,
    rows,
    tbps,
    vline,
)

DTYPES = ("float32", "float16", "bfloat16")
SMALL_N = 65536  # sizes up to this are where launch cost, not bandwidth, sets the time
FLOOR_FACTOR = 1.5  # "within 1.5x of the small-size floor": lesson 07's latency region
CONTROL_WARPS = 4  # the num_warps whose empty-kernel control the block-sweep figure draws


# ---- helpers ----------------------------------------------------------------------------


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row, bytes per second."""
    return row["bytes"] / row["time_s"]["p50"]


def by_size(docs: Docs, impl: str, dtype: str = "float32") -> list[dict]:
    return sorted(rows(docs, "vector_add", impl=impl, dtype=dtype), key=lambda r: r["n"])


def largest(docs: Docs, impl: str, dtype: str = "float32") -> dict:
    return by_size(docs, impl, dtype)[-1]


def copy(docs: Docs) -> float:
    return copy_bw(doc(docs, "vector_add"))


def small_median(docs: Docs, impl: str, field: str) -> float:
    """Median of ``field``'s p50 over the small sizes, where launch cost dominates."""
    vals = sorted(r[field]["p50"] for r in by_size(docs, impl) if r["n"] <= SMALL_N)
    return vals[len(vals) // 2]


def sweep(docs: Docs, block: int | None = None) -> list[dict]:
    return [r for r in rows(docs, "vector_add_block_sweep") if block in (None, r["block"])]


# ---- values -----------------------------------------------------------------------------


def largest_n(docs: Docs) -> int:
    """The largest size measured (elements)."""
    return largest(docs, "triton")["n"]


def largest_gb(docs: Docs) -> str:
    """Bytes moved by one add at the largest size, in GB."""
    return f"{largest(docs, 'triton')['bytes'] / 1e9:.2f} GB"


def triton_bw(docs: Docs) -> float:
    """Triton's bandwidth at the largest fp32 size."""
    return bandwidth(largest(docs, "triton"))


def torch_bw(docs: Docs) -> float:
    """torch.add's bandwidth at the largest fp32 size."""
    return bandwidth(largest(docs, "torch"))


def triton_time(docs: Docs) -> float:
    """Triton's median device time at the largest fp32 size, seconds."""
    return largest(docs, "triton")["time_s"]["p50"]


def fraction_of_copy(docs: Docs) -> float:
    """Triton's bandwidth at the largest fp32 size over the measured copy bandwidth."""
    return triton_bw(docs) / copy(docs)


def vs_torch(docs: Docs) -> float:
    """Triton's bandwidth over torch.add's at the largest fp32 size."""
    return triton_bw(docs) / torch_bw(docs)


def min_fraction_of_copy_all_dtypes(docs: Docs) -> float:
    """The lowest fraction of copy bandwidth over fp32, fp16 and bf16 at the largest size."""
    return min(bandwidth(largest(docs, "triton", t)) for t in DTYPES) / copy(docs)


def half_copy_n(docs: Docs) -> int:
    """Smallest fp32 size at which Triton reaches half the copy bandwidth."""
    return min(r["n"] for r in by_size(docs, "triton") if bandwidth(r) >= 0.5 * copy(docs))


def small_host(docs: Docs) -> float:
    """Host time per wrapper call at small sizes (median over n <= 65,536), seconds."""
    return small_median(docs, "triton", "host_s")


def small_torch_host(docs: Docs) -> float:
    """Host time per torch.add call at small sizes (median over n <= 65,536), seconds."""
    return small_median(docs, "torch", "host_s")


def small_gpu(docs: Docs) -> float:
    """Device time of the Triton add at small sizes (median over n <= 65,536), seconds."""
    return small_median(docs, "triton", "time_s")


def floor_time(docs: Docs) -> float:
    """Bytes at the largest size over the copy bandwidth: the fastest the add can be."""
    return largest(docs, "triton")["bytes"] / copy(docs)


def flat_until_n(docs: Docs) -> int:
    """Largest n up to which device time stays within 1.5x of the small-size floor."""
    floor = small_gpu(docs)
    flat = 0
    for r in by_size(docs, "triton"):
        if r["time_s"]["p50"] > FLOOR_FACTOR * floor:
            break
        flat = r["n"]
    return flat


def sweep_block4(docs: Docs) -> float:
    """Best bandwidth at BLOCK = 4 over every num_warps."""
    return max(bandwidth(r) for r in sweep(docs, 4))


def sweep_best(docs: Docs) -> float:
    """Best bandwidth of the whole BLOCK x num_warps sweep."""
    return max(bandwidth(r) for r in sweep(docs))


def sweep_block4_vs_empty(docs: Docs) -> float:
    """At BLOCK = 4 (num_warps = 4): the add's device time over an empty kernel's on the
    same grid. Near 1 means starting the programs, not moving bytes, sets the time."""
    r = _sweep_at(docs, CONTROL_WARPS, 4)
    return r["time_s"]["p50"] / r["empty_time_s"]["p50"]


def _sweep_at(docs: Docs, num_warps: int, block: int) -> dict:
    row = next(r for r in sweep(docs, block) if r["num_warps"] == num_warps)
    if "empty_time_s" not in row:  # runs before commit 6f84e6e did not measure these
        raise RenderError("no control or register data for this device")
    return row


def sweep_empty_block4_ms(docs: Docs) -> float:
    """Device time of the empty control kernel on the BLOCK = 4 grid (num_warps = 4), s."""
    return _sweep_at(docs, CONTROL_WARPS, 4)["empty_time_s"]["p50"]


def sweep_empty_4096_programs(docs: Docs) -> float:
    """Device time of the empty control kernel on the BLOCK = 16384 grid (4,096 programs,
    num_warps = 4), seconds: what the GPU needs to start and finish that many programs."""
    return _sweep_at(docs, CONTROL_WARPS, 16384)["empty_time_s"]["p50"]


def sweep_w16_block4_vs_empty(docs: Docs) -> float:
    """At BLOCK = 4 with 16 warps: the add's time over the empty kernel's on that grid."""
    r = _sweep_at(docs, 16, 4)
    return r["time_s"]["p50"] / r["empty_time_s"]["p50"]


def sweep_regs_w1_2048(docs: Docs) -> int:
    """Registers per thread of the add compiled for BLOCK = 2048 on one warp."""
    return _sweep_at(docs, 1, 2048)["n_regs"]


def sweep_regs_w1_4096(docs: Docs) -> int:
    """Registers per thread of the add compiled for BLOCK = 4096 on one warp."""
    return _sweep_at(docs, 1, 4096)["n_regs"]


def sweep_spills_w1_4096(docs: Docs) -> int:
    """Values spilled to local memory by the add for BLOCK = 4096 on one warp."""
    return _sweep_at(docs, 1, 4096)["n_spills"]


def sweep_spills_w1_8192(docs: Docs) -> int:
    """Values spilled to local memory by the add for BLOCK = 8192 on one warp."""
    return _sweep_at(docs, 1, 8192)["n_spills"]


def sweep_bw_w1_8192(docs: Docs) -> float:
    """Bandwidth of the add for BLOCK = 8192 on one warp."""
    return bandwidth(_sweep_at(docs, 1, 8192))


def sweep_spills_w4_16384(docs: Docs) -> int:
    """Values spilled by the add for BLOCK = 16384 on four warps."""
    return _sweep_at(docs, 4, 16384)["n_spills"]


def sweep_gap(docs: Docs) -> float:
    """Best bandwidth of the sweep over the best at BLOCK = 4."""
    return sweep_best(docs) / sweep_block4(docs)


def ragged_row(docs: Docs, divisible: bool) -> dict:
    return next(r for r in rows(docs, "vector_add_ragged") if r["divisible_by_16"] == divisible)


def ragged_vs_aligned(docs: Docs) -> float:
    """Device time with n = 2^28 - 1 over n = 2^28 (scalar loads against 16-byte ones)."""
    return ragged_row(docs, False)["time_s"]["p50"] / ragged_row(docs, True)["time_s"]["p50"]


def _loads(row: dict) -> str:
    return ", ".join(f"`{op}` ×{k}" for op, k in sorted(row["ptx_loads"].items()))


def aligned_loads(docs: Docs) -> str:
    """The global loads in the PTX compiled for n = 2^28 (a multiple of 16)."""
    return _loads(ragged_row(docs, True))


def ragged_loads(docs: Docs) -> str:
    """The global loads in the PTX compiled for n = 2^28 - 1."""
    return _loads(ragged_row(docs, False))


VALUES = {
    "vector_add.largest_n": Value(largest_n, count),
    "vector_add.largest_gb": Value(largest_gb),
    "vector_add.triton": Value(triton_bw, tbps),
    "vector_add.torch": Value(torch_bw, tbps),
    "vector_add.triton_ms": Value(triton_time, millis(3)),
    "vector_add.fraction_of_copy": Value(fraction_of_copy, percent),
    "vector_add.vs_torch": Value(vs_torch, ratio),
    "vector_add.min_fraction_of_copy_all_dtypes": Value(min_fraction_of_copy_all_dtypes, percent),
    "vector_add.half_copy_n": Value(half_copy_n, count),
    "vector_add.small_host_us": Value(small_host, micros(1)),
    "vector_add.small_torch_host_us": Value(small_torch_host, micros(1)),
    "vector_add.small_gpu_us": Value(small_gpu, micros(1)),
    "vector_add.floor_ms": Value(floor_time, millis(2)),
    "vector_add.flat_until_n": Value(flat_until_n, count),
    "vector_add.sweep_block4": Value(sweep_block4, tbps),
    "vector_add.sweep_best": Value(sweep_best, tbps),
    "vector_add.sweep_gap": Value(sweep_gap, ratio),
    "vector_add.sweep_block4_vs_empty": Value(sweep_block4_vs_empty, ratio),
    "vector_add.sweep_empty_block4_ms": Value(sweep_empty_block4_ms, millis(1)),
    "vector_add.sweep_w16_block4_vs_empty": Value(sweep_w16_block4_vs_empty, ratio),
    "vector_add.sweep_empty_4096_programs_us": Value(sweep_empty_4096_programs, micros(1)),
    "vector_add.sweep_regs_w1_2048": Value(sweep_regs_w1_2048, plain),
    "vector_add.sweep_regs_w1_4096": Value(sweep_regs_w1_4096, plain),
    "vector_add.sweep_spills_w1_4096": Value(sweep_spills_w1_4096, plain),
    "vector_add.sweep_spills_w1_8192": Value(sweep_spills_w1_8192, plain),
    "vector_add.sweep_bw_w1_8192": Value(sweep_bw_w1_8192, tbps),
    "vector_add.sweep_spills_w4_16384": Value(sweep_spills_w4_16384, plain),
    "vector_add.ragged_vs_aligned": Value(ragged_vs_aligned, ratio),
    "vector_add.aligned_loads": Value(aligned_loads),
    "vector_add.ragged_loads": Value(ragged_loads),
}


# ---- figures ----------------------------------------------------------------------------


def fig_bandwidth(docs: Docs) -> dict:
    bw = copy(docs) / 1e12
    traces = []
    for impl, name in (("triton", "Triton (kernels/vector_add.py)"), ("torch", "torch.add")):
        rs = by_size(docs, impl)
        traces.append(
            line(
                [r["n"] for r in rs],
                [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                name,
                impl,
                hover="n = %{x:,}<br>%{y:.2f} TB/s",
            )
        )
    ns = [r["n"] for r in by_size(docs, "triton")]
    traces.append(hline(bw, min(ns), max(ns), f"copy ceiling ({bw:.2f} TB/s)"))
    l2 = provenance(docs).get("l2_bytes") or 0
    annotations = []
    if l2:
        n_l2 = l2 / 12  # elements at which x, y and out together fill the L2
        traces.append(vline(n_l2, 0, bw * 1.05, "x, y, out fill the L2"))
        annotations.append(
            {
                "x": math.log10(n_l2),
                "y": bw * 0.9,  # above the ramp, left of the marker: clear of the curves
                "text": "x + y + out = L2 size ",
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "middle",
                "font": {"size": 11},
            }
        )
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "elements n (float32; bytes moved = 12·n)", log=True, exponentformat="power"
            ),
            "yaxis": axis("achieved bandwidth (TB/s)", rangemode="tozero"),
            "annotations": annotations,
        },
    }


def fig_block_sweep(docs: Docs) -> dict:
    rs = sweep(docs)
    traces = []
    for i, w in enumerate(sorted({r["num_warps"] for r in rs})):
        mine = sorted((r for r in rs if r["num_warps"] == w), key=lambda r: r["block"])
        traces.append(
            line(
                [r["block"] for r in mine],
                [rate(r["bytes"], r["time_s"], 1e12) for r in mine],
                f"num_warps = {w}",
                f"series-{i}",
                hover="BLOCK = %{x}<br>%{y:.2f} TB/s",
            )
        )
    blocks = [r["block"] for r in rs]
    bw = copy_bw(doc(docs, "vector_add_block_sweep")) / 1e12
    traces.append(hline(bw, min(blocks), max(blocks), f"copy ceiling ({bw:.2f} TB/s)"))
    control = sorted(
        (r for r in rs if r["num_warps"] == CONTROL_WARPS and "empty_time_s" in r),
        key=lambda r: r["block"],
    )
    if control:
        # The bandwidth the add would show if it took only as long as starting its programs.
        traces.append(
            line(
                [r["block"] for r in control],
                [rate(r["bytes"], r["empty_time_s"], 1e12) for r in control],
                f"empty kernel, same grid (num_warps = {CONTROL_WARPS})",
                "marker",
                dash="dot",
                hover="BLOCK = %{x}<br>12·n bytes ÷ empty-kernel time = %{y:.2f} TB/s",
            )
        )
    top = max(bw, max(r["bytes"] / r["time_s"]["p20"] for r in rs) / 1e12) * 1.1
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "BLOCK (elements per program)", log=True, dtick=math.log10(2) * 2, tickformat="d"
            ),
            # Fixed: the control line leaves the top of the plot once launches stop mattering.
            "yaxis": axis("achieved bandwidth (TB/s)", range=[0, top]),
        },
    }


FIGURES = {
    "vector-add-bandwidth": Figure(
        "Vector add: achieved bandwidth against size",
        ("vector_add",),
        fig_bandwidth,
        "Achieved bandwidth of the Triton vector add and torch.add against element count, "
        "with the measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "vector-add-block-sweep": Figure(
        "Vector add bandwidth against BLOCK and num_warps",
        ("vector_add_block_sweep",),
        fig_block_sweep,
        "Achieved bandwidth of vector add for BLOCK from 4 to 16384, one line per num_warps, "
        "with the measured copy ceiling.",
    ),
}


# ---- lesson 01's roofline -----------------------------------------------------------------


def roofline_points(rows: list[dict]) -> list[dict]:
    """One point per dtype: the Triton kernel at the largest size (1 FLOP per element)."""
    largest = max(r["n"] for r in rows)
    return [
        {"kernel": f"vector add ({r['dtype']})", "flops": r["n"], "bytes": r["bytes"],
         "seconds": r["time_s"]["p50"]}
        for r in rows
        if r["impl"] == "triton" and r["n"] == largest
    ]  # fmt: skip


ROOFLINE = {"vector_add": roofline_points}
