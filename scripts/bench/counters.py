"""Hardware counters behind the book's "why": Nsight Compute on a few named kernels.

    python3 scripts/bench/counters.py              # every probe -> figures/data/<gpu>/counters.json
    python3 scripts/bench/counters.py sum-fp32-65536 sum-bf16-65536   # some probes only
    python3 scripts/bench/counters.py --list       # the probes (no GPU needed)

A page that says *why* a kernel runs at the speed it does leans on arithmetic, a control
kernel, or a hardware counter. This script collects the counters. Each probe sets up one
case a lesson explains (the book's kernel or a peer, at the size the lesson's figure
shows), runs it twice to compile and warm up, then once more inside an NVTX range named
``measure``; Nsight Compute (``ncu``) profiles every kernel launched inside that range and
nothing else, with the clocks left as the GPU sets them (``--clock-control none``, as the
benchmarks run). The metrics are a small fixed set:

- time and how busy the memory and the SMs were: ``gpu__time_duration``, DRAM throughput
  and bytes, SM throughput, the L2 hit rate;
- occupancy: warps resident on average (achieved) against the most the launch allows
  (theoretical), and which resource set that limit (registers, shared memory, warps,
  blocks);
- issue: how often a scheduler issued an instruction, how many were executed, and how busy
  the tensor cores were;
- where warps waited: the average number of warps stalled for each reason, per issued
  instruction (``long_scoreboard`` = waiting for global memory, ``barrier``, ``math_pipe_
  throttle``, ...).

Metrics this ``ncu`` does not list are left out (launch statistics are always there).
Without ``ncu`` the script says so and writes nothing: the site builds without the file, and no page
requires it. The probes run one process each, so one failing probe costs only its rows.
Needs a CUDA GPU, torch + triton + numpy, and Nsight Compute.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

STALLS = [
    "long_scoreboard",
    "short_scoreboard",
    "barrier",
    "membar",
    "math_pipe_throttle",
    "mio_throttle",
    "lg_throttle",
    "tex_throttle",
    "wait",
    "not_selected",
    "selected",
    "dispatch_stall",
    "no_instruction",
    "branch_resolving",
    "drain",
    "sleeping",
    "imc_miss",
    "misc",
]
METRICS = [
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sector_hit_rate.pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__inst_executed.sum",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__grid_size",
    "launch__block_size",
    "launch__waves_per_multiprocessor",
] + [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]


@dataclass(frozen=True)
class Probe:
    """One case a lesson explains: ``setup()`` builds the inputs and returns the call."""

    name: str
    lesson: str
    what: str
    setup: Callable[[], Callable[[], object]]


def _vector_add(block: int, warps: int):
    def setup():
        import torch

        from kernels import vector_add as va

        n = 1 << 26
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        return lambda: va.launch(x, y, out, block=block, num_warps=warps)

    return setup


def _reduction(dtype_name: str, cols: int):
    def setup():
        import torch

        from kernels import reduction as rd

        dtype = getattr(torch, dtype_name)
        rows = (1 << 29) // (cols * torch.empty(0, dtype=dtype).element_size())
        x = torch.randn(rows, cols, device="cuda", dtype=dtype)
        return lambda: rd.launch(x, "sum")

    return setup


def _gelu(dtype_name: str, approximate: str, with_mask: bool, rows: int = 32768):
    def setup():
        import torch

        from kernels import fused_activation as fa

        dtype = getattr(torch, dtype_name)
        x = torch.randn(rows, 4096, device="cuda", dtype=dtype)
        bias = torch.randn(4096, device="cuda", dtype=dtype)
        mask = (torch.rand(rows, 4096, device="cuda") > 0.1).to(dtype) if with_mask else None
        return lambda: fa.launch(x, bias, mask, approximate=approximate)

    return setup


def _matmul_llm(impl: str, tokens: int, contiguous: bool = False):
    """Lesson 09's LLM product: a (tokens x 4096) by the weight, passed as ``w.t()`` (a
    column-major b, as the benchmark does) or, as a control, ``w.t().contiguous()``."""

    def setup():
        import torch

        from kernels import matmul as mm

        a = torch.randn(tokens, 4096, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(14336, 4096, device="cuda", dtype=torch.bfloat16)
        b = w.t().contiguous() if contiguous else w.t()
        out = torch.empty(tokens, 14336, device="cuda", dtype=torch.bfloat16)
        if impl == "cublas":
            return lambda: torch.matmul(a, b, out=out)
        return lambda: mm.launch(a, b, out)

    return setup


def _softmax(direction: str, dtype_name: str, cols: int):
    def setup():
        import torch

        from kernels import softmax as sm

        dtype = getattr(torch, dtype_name)
        rows = (1 << 29) // (cols * torch.empty(0, dtype=dtype).element_size())
        x = torch.randn(rows, cols, device="cuda", dtype=dtype)
        if direction == "forward":
            return lambda: sm.launch_forward(x)
        y = torch.softmax(x.float(), dim=-1).to(dtype)
        dy = torch.randn_like(y)
        return lambda: sm.launch_backward(y, dy)

    return setup


def _rmsnorm_backward(hidden: int):
    def setup():
        import torch

        from kernels import rmsnorm as rn

        rows = (1 << 28) // hidden
        x = torch.randn(rows, hidden, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(hidden, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn_like(x)
        _, rstd = rn.launch_forward(x, w, 1e-6)
        return lambda: rn.launch_backward(dy, x, w, rstd)

    return setup


def _matmul_tma(n: int, fused: bool):
    def setup():
        import torch

        from kernels import matmul_tma as mt

        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        if fused:
            return lambda: mt.launch(a, b, bias=bias, activation="gelu")
        return lambda: mt.launch(a, b)

    return setup


def _attention(impl: str, causal: bool):
    def setup():
        import torch

        from kernels import attention as at

        q, k, v = (
            torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3)
        )
        scale = 128**-0.5
        if impl == "tma":  # lesson 12's last quarter: the same forward through TMA
            from kernels import attention_tma as atm

            return lambda: atm.launch(q, k, v, causal, scale)
        if impl == "gluon":  # step 4: FlashAttention-3's schedule written in Gluon
            from kernels import attention_gluon as atg

            return lambda: atg.launch(q, k, v, causal, scale)
        if impl == "cudnn":
            from torch.nn.attention import SDPBackend, sdpa_kernel

            def call():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, scale=scale
                    )

            return call
        return lambda: at.launch_forward(q, k, v, causal, scale)

    return setup


def _attention_gqa(impl: str):
    """Lesson 12's grouped-query case (the ``attention_ladder_gqa`` benchmark's shape, full):
    32 query heads over 8 key/value heads, read in place, repeated inside the call (the
    repeat's copy kernels are profiled too), or through SDPA's own GQA path."""

    def setup():
        import torch

        from kernels import attention_tma as atm

        q = torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(4, 8, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        scale = 128**-0.5
        if impl == "repeated":
            return lambda: atm.launch(
                q, k.repeat_interleave(4, 1), v.repeat_interleave(4, 1), False, scale
            )
        if impl == "sdpa":
            return lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, enable_gqa=True, scale=scale
            )
        return lambda: atm.launch(q, k, v, False, scale)

    return setup


PROBES = [
    Probe(
        "add-b256-w4", "04", "vector add, BLOCK 256, 4 warps, n = 2^26 fp32", _vector_add(256, 4)
    ),
    Probe("add-b256-w16", "04", "vector add, BLOCK 256, 16 warps", _vector_add(256, 16)),
    Probe("add-b4-w4", "04", "vector add, BLOCK 4, 4 warps", _vector_add(4, 4)),
    Probe("add-b4-w16", "04", "vector add, BLOCK 4, 16 warps", _vector_add(4, 16)),
    Probe(
        "sum-fp32-65536",
        "06",
        "row sum, 65,536 fp32 columns, 512 MiB",
        _reduction("float32", 65536),
    ),
    Probe("sum-bf16-65536", "06", "row sum, 65,536 bf16 columns", _reduction("bfloat16", 65536)),
    Probe("sum-bf16-256", "06", "row sum, 256 bf16 columns", _reduction("bfloat16", 256)),
    Probe(
        "gelu-bf16-mask",
        "08",
        "bias+GELU+mask, bf16, exact GELU, 32768 x 4096",
        _gelu("bfloat16", "none", True),
    ),
    Probe(
        "gelu-bf16-nomask",
        "08",
        "bias+GELU, bf16, exact GELU, no mask",
        _gelu("bfloat16", "none", False),
    ),
    Probe(
        "gelu-bf16-tanh", "08", "bias+GELU+mask, bf16, tanh GELU", _gelu("bfloat16", "tanh", True)
    ),
    Probe(
        "gelu-fp32-mask", "08", "bias+GELU+mask, fp32, exact GELU", _gelu("float32", "none", True)
    ),
    Probe(
        "llm16-triton",
        "09",
        "16 x 4096 @ (14336 x 4096).t(), bf16, kernels/matmul.py",
        _matmul_llm("triton", 16),
    ),
    Probe(
        "llm16-cublas",
        "09",
        "the same product with torch.matmul (cuBLAS)",
        _matmul_llm("cublas", 16),
    ),
    Probe(
        "llm1024-triton",
        "09",
        "1024 x 4096 @ (14336 x 4096).t(), bf16, kernels/matmul.py",
        _matmul_llm("triton", 1024),
    ),
    Probe(
        "llm1024-triton-rowmajor",
        "09",
        "the same with the weight copied row-major first (w.t().contiguous())",
        _matmul_llm("triton", 1024, contiguous=True),
    ),
    Probe(
        "llm1024-cublas",
        "09",
        "the 1024-token product with torch.matmul (cuBLAS)",
        _matmul_llm("cublas", 1024),
    ),
    Probe(
        "softmax-fwd-fp32-65536",
        "10",
        "softmax forward, 65,536 fp32 columns",
        _softmax("forward", "float32", 65536),
    ),
    Probe(
        "softmax-fwd-fp32-262144",
        "10",
        "softmax forward, 262,144 fp32 columns (rows in flight beyond the L2)",
        _softmax("forward", "float32", 262144),
    ),
    Probe(
        "softmax-bwd-fp32-65536",
        "10",
        "softmax backward, 65,536 fp32 columns",
        _softmax("backward", "float32", 65536),
    ),
    Probe(
        "rmsnorm-bwd-8192",
        "11",
        "RMSNorm backward, bf16, hidden 8192, 2^28 elements",
        _rmsnorm_backward(8192),
    ),
    Probe("tma-8192", "13", "persistent TMA matmul, 8192^3 bf16", _matmul_tma(8192, False)),
    Probe("tma-gelu-8192", "13", "the same with bias + GELU epilogue", _matmul_tma(8192, True)),
    Probe(
        "attn-fwd-triton",
        "12",
        "attention forward, bf16, B=4 H=32 N=4096 d=128, kernels/attention.py",
        _attention("triton", False),
    ),
    Probe("attn-fwd-cudnn", "12", "the same with SDPA's cuDNN backend", _attention("cudnn", False)),
    Probe(
        "attn-fwd-tma",
        "12",
        "the same with kernels/attention_tma.py (tensor descriptors, plan's tiles)",
        _attention("tma", False),
    ),
    Probe(
        "attn-fwd-gluon",
        "12",
        "the same with kernels/attention_gluon.py (a loader warp, two consumer groups)",
        _attention("gluon", False),
    ),
    Probe(
        "attn-gqa-tma",
        "12",
        "attention_tma forward, bf16, B=4, 32 query heads over 8 key/value heads read in place",
        _attention_gqa("tma"),
    ),
    Probe(
        "attn-gqa-tma-repeated",
        "12",
        "the same with k and v repeated to 32 heads inside the call",
        _attention_gqa("repeated"),
    ),
    Probe(
        "attn-gqa-sdpa",
        "12",
        "the same through SDPA with enable_gqa=True (its default backend)",
        _attention_gqa("sdpa"),
    ),
]
BY_NAME = {p.name: p for p in PROBES}


def run_probe(name: str) -> None:
    """Inside ncu: warm up, then the one call it profiles, inside the NVTX range."""
    import torch

    call = BY_NAME[name].setup()
    for _ in range(2):
        call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    call()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def known_metrics(ncu: str) -> set[str] | None:
    """Base names of the metrics this ncu lists for GPU 0, or None if it will not say. Its
    list leaves out the launch statistics (``launch__*``) and the theoretical occupancy,
    which every version reports."""
    try:
        out = subprocess.run(
            [ncu, "--devices", "0", "--query-metrics"], capture_output=True, text=True, timeout=120
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = {line.split()[0] for line in out.splitlines() if line[:1].isalpha() and "__" in line}
    return names or None


def usable(metric: str, known: set[str] | None) -> bool:
    base = metric.split(".")[0]
    always = base.startswith("launch__") or base == "sm__maximum_warps_per_active_cycle_pct"
    return known is None or always or base in known


def ncu_version(ncu: str) -> str:
    """``Version 2025.3.1.0 (build ...)``: the last line of ``ncu --version``."""
    out = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip()
    return out.splitlines()[-1] if out else "unknown"


def number(text: str) -> float | str:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return text


def parse_raw_csv(text: str) -> list[dict]:
    """ncu's ``--csv --page raw``: a header, a units line, one line per profiled kernel."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(table) < 2:
        return []
    header, units = table[0], table[1]
    kernels = []
    for cells in table[2:]:
        record = dict(zip(header, cells, strict=False))
        metrics = {
            key: number(value)
            for key, value in record.items()
            if key in METRICS and value not in ("", "n/a")
        }
        kernels.append(
            {
                "kernel": record.get("Kernel Name", "?"),
                "metrics": metrics,
                "units": {k: u for k, u in zip(header, units, strict=False) if k in metrics and u},
            }
        )
    return kernels


def profile(ncu: str, name: str, metrics: list[str]) -> tuple[list[dict], str]:
    cmd = [
        ncu,
        "--clock-control",
        "none",
        "--nvtx",
        "--nvtx-include",
        "measure/",
        "--csv",
        "--page",
        "raw",
        "--metrics",
        ",".join(metrics),
        sys.executable,
        str(Path(__file__).resolve()),
        "--probe",
        name,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    log = (done.stdout[-3000:] + done.stderr[-3000:]) if done.returncode else ""
    return parse_raw_csv(done.stdout), log


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="probes to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the probes and exit")
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        run_probe(args.probe)
        return 0
    if args.list:
        for p in PROBES:
            print(f"{p.name:24} lesson {p.lesson}  {p.what}")
        return 0
    unknown = [n for n in args.names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown probe(s): {', '.join(unknown)}; see --list")
    ncu = shutil.which("ncu")
    if ncu is None:
        print("counters.py: Nsight Compute (ncu) is not on PATH; no counters written.")
        return 0

    import json

    import torch

    from scripts.bench import benchlib

    if not torch.cuda.is_available():
        print("counters.py needs a CUDA GPU; none is visible to torch.", file=sys.stderr)
        return 2
    started = time.perf_counter()
    prov = {**benchlib.provenance(), "quick": False}
    ceilings = benchlib.measure_ceilings()  # the envelope every data file shares
    known = known_metrics(ncu)
    metrics = [m for m in METRICS if usable(m, known)]
    chosen = [BY_NAME[n] for n in args.names] if args.names else PROBES
    rows = []
    for p in chosen:
        t0 = time.perf_counter()
        kernels, log = profile(ncu, p.name, metrics)
        print(f"{p.name}: {len(kernels)} kernel(s) in {time.perf_counter() - t0:.0f} s")
        if not kernels:
            print(log, file=sys.stderr)
            rows.append({"probe": p.name, "what": p.what, "failure": log[-800:]})
        for i, k in enumerate(kernels):
            rows.append({"probe": p.name, "what": p.what, "index": i, **k})
    path = benchlib.DATA_DIR / prov["device_slug"] / "counters.json"
    if args.names and path.exists():  # a subset replaces its own probes only
        names = {p.name for p in chosen}
        rows = [r for r in json.loads(path.read_text())["rows"] if r["probe"] not in names] + rows
    bench = benchlib.Benchmark("counters", DESCRIPTION, run=lambda ceilings: [])
    stamped = {
        **prov,
        "ncu": ncu_version(ncu),
        "clocks_after": benchlib.read_clocks(torch.cuda.current_device()),
        "wall_s": round(time.perf_counter() - started, 2),
    }
    written = benchlib.write(bench, stamped, ceilings, rows)
    print(f"wrote {os.path.relpath(written, benchlib.ROOT)} ({len(rows)} rows)")
    return 0


DESCRIPTION = (
    "Nsight Compute counters for named cases the lessons explain (scripts/bench/counters.py): "
    "each probe's kernels launched inside an NVTX range 'measure', after two warm-up calls, "
    "profiled with --clock-control none. One row per profiled kernel: its name and metrics "
    "(DRAM/SM throughput, occupancy achieved and theoretical and its limits, issue activity, "
    "tensor-pipe activity, average warps stalled per issued instruction by reason)."
)


if __name__ == "__main__":
    sys.exit(main())
