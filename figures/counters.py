"""Values from hardware counters: what the GPU did while a case a lesson explains ran.

Data: ``counters`` (scripts/bench/counters.py), Nsight Compute's metrics for the kernels
each probe (one case of one lesson) launches, one row per profiled kernel.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

BENCH = "counters"
Probe = Literal[
    "add-b256-w4",
    "add-b256-w16",
    "add-b4-w4",
    "add-b4-w16",
    "sum-fp32-65536",
    "sum-bf16-65536",
    "sum-bf16-256",
    "gelu-bf16-mask",
    "gelu-bf16-nomask",
    "gelu-bf16-tanh",
    "gelu-fp32-mask",
    "llm16-triton",
    "llm16-cublas",
    "llm1024-triton",
    "llm1024-triton-rowmajor",
    "llm1024-cublas",
    "softmax-fwd-fp32-65536",
    "softmax-fwd-fp32-262144",
    "softmax-bwd-fp32-65536",
    "rmsnorm-bwd-8192",
    "tma-8192",
    "tma-gelu-8192",
    "attn-fwd-triton",
    "attn-fwd-cudnn",
    "attn-fwd-tma",
    "attn-fwd-gluon",
    "attn-gqa-tma",
    "attn-gqa-tma-repeated",
    "attn-gqa-sdpa",
]
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
# name in a placeholder -> Nsight Compute metric
METRICS = {
    "time": "gpu__time_duration.sum",
    "dram": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_read": "dram__bytes_read.sum",
    "sm": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "occupancy_max": "sm__maximum_warps_per_active_cycle_pct",
    "issue": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "tensor": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "l2_hit": "lts__t_sector_hit_rate.pct",
    "registers": "launch__registers_per_thread",
    "shared": "launch__shared_mem_per_block_dynamic",
    "warps": "launch__block_size",
    "wait_memory": STALL.format("long_scoreboard"),
    "wait_barrier": STALL.format("barrier"),
    "wait_math": STALL.format("math_pipe_throttle"),
}
LIMITS = [f"launch__occupancy_limit_{r}" for r in ("registers", "shared_mem", "warps", "blocks")]
Metric = Literal[(*METRICS, "programs_per_sm")]  # type: ignore[valid-type]


def counter(docs: Docs, probe: Probe, of: Metric, kernel: int = 0) -> float:
    """One counter (METRICS, or the tightest occupancy limit) of a probe's ``kernel``-th kernel."""
    metrics = render.one(docs, f"{BENCH}/{probe}", index=kernel)["metrics"]
    if of == "programs_per_sm":
        return min(metrics[limit] for limit in LIMITS)
    if of == "warps":
        return metrics[METRICS[of]] / 32
    return metrics[METRICS[of]]


def share(v: float) -> str:
    return f"{v:.0f}%"


def cycles(v: float) -> str:
    return f"{v:.0f} cycles" if v >= 1.5 else f"{v:.1f} cycles"


def fmt(of: str):
    """The format of counter ``of``."""
    if of == "time":
        return render.micros(0)
    if of.startswith("wait_"):
        return cycles
    if of == "shared":
        return render.kib
    if of == "dram_read":
        return render.mib
    if of in ("registers", "warps", "programs_per_sm"):
        return render.whole
    return share


def counter_text(docs: Docs, probe: Probe, of: Metric, kernel: int = 0) -> str:
    """``counter`` in its unit: "92%", "104 cycles", "2245 µs", "128 KiB", "541 MiB", "160"."""
    value = counter(docs, probe, of, kernel)
    return fmt(of)(value / 1e9 if of == "time" else value)


VALUES = {"counters.metric": Value(counter_text)}
