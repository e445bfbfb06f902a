"""Values from hardware counters: what the GPU did while a case a lesson explains ran.

Data: ``counters`` (scripts/bench/counters.py): Nsight Compute's metrics for the kernels
each probe launches, one row per profiled kernel. A probe is one case of one lesson (the
book's kernel or a peer at the size the lesson's figure shows); ``kernel`` picks a kernel
when a probe launches several (0: the first).
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
    "softmax-fwd-fp32-65536",
    "softmax-fwd-fp32-262144",
    "softmax-bwd-fp32-65536",
    "rmsnorm-bwd-8192",
    "tma-8192",
    "tma-gelu-8192",
    "attn-fwd-triton",
    "attn-fwd-cudnn",
    "attn-fwd-tma",
]
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
# name in a placeholder -> (Nsight Compute metric, how it reads)
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
    """One counter of the ``kernel``-th kernel a probe launched: ``time`` (ns); ``dram``
    and ``sm``, how busy the memory and the SMs were (% of their peak over the kernel's
    time); ``dram_read``, bytes read from DRAM (HBM); ``occupancy``, the warps resident on
    average, and ``occupancy_max``, the most the launch allows (% of an SM's 64);
    ``issue``, the share of cycles a scheduler issued an instruction; ``tensor``, the
    share of cycles the tensor cores worked; ``l2_hit`` (%); ``registers`` per thread;
    ``shared``, shared memory per program (bytes); ``warps`` per program;
    ``programs_per_sm``, how many programs fit on an SM at once (the tightest of the
    register, shared-memory, warp and block limits); ``wait_memory``, ``wait_barrier``,
    ``wait_math``: cycles a warp spent, per instruction it issued, waiting for global
    memory, at a barrier, or for a busy math pipe."""
    metrics = render.one(docs, BENCH, probe=probe, index=kernel)["metrics"]
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


VALUES = {
    "counters.metric": Value(counter_text),
}
