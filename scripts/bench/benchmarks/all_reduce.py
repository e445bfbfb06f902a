"""Benchmarks of the all-reduce family (kernels/all_reduce.py): lesson 18. Needs two GPUs.

- ``all_reduce``: the time of one all-reduce (sum) of a bf16 tensor across two GPUs, at
  message sizes from 4 KiB to 256 MiB (powers of 4): the book's one-shot kernel over
  symmetric memory (``all_reduce``) and NCCL's ``torch.distributed.all_reduce``, timed in
  turn, size by size. measure.py runs one process; the benchmark spawns the two ranks
  itself (one process per GPU) and returns rank 0's rows. Every row records how many GPUs
  took part and how they are linked (``nvidia-smi topo -m``'s entry for the pair, and the
  NVLink count and per-link speed that ``nvidia-smi nvlink -s`` reports for GPU 0).

NVLink multicast stays off (NO_MULTICAST, in this process and the ranks): NCCL's NVLS
algorithms and symmetric memory's multicast object are never used.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import tempfile
import time

import torch

from kernels import all_reduce as ar
from scripts.bench import benchlib

WORLD = 2
KIB = 1024
SIZES = [4 * KIB * 4**k for k in range(9)]  # 4 KiB, 16 KiB, ..., 256 MiB
QUICK_SIZES = [4 * KIB, 1024 * KIB, 64 * 1024 * KIB]
DTYPE = torch.bfloat16
ROUNDS = 15  # samples per implementation and size, the two taken in turn
SAMPLE_S = 2e-3  # each sample times a loop of calls this long at least, or MIN_CALLS
MIN_CALLS, MAX_CALLS = 5, 2000
NO_MULTICAST = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
TIMEOUT_S = 900  # the two ranks together; a hang fails the benchmark instead of the run


def _smi(*args: str) -> str:
    try:
        done = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=20)
        return done.stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def interconnect() -> dict:
    """How GPUs 0 and 1 are linked: ``topology``, the entry of ``nvidia-smi topo -m`` for
    the pair ("NV18": 18 NVLinks; "SYS", "PIX", ...: no NVLink), and for GPU 0 the NVLinks
    ``nvidia-smi nvlink -s`` lists as up and their speed in GB/s (None where unreadable)."""
    topology = None
    for line in _smi("topo", "-m").splitlines():
        cells = line.split()
        if cells[:1] == ["GPU0"] and len(cells) > 2:
            topology = cells[2]  # columns: GPU0, GPU1, ...
            break
    speeds = [
        float(s) for s in re.findall(r"Link \d+: ([\d.]+) GB/s", _smi("nvlink", "-s", "-i", "0"))
    ]
    return {
        "gpus": WORLD,
        "topology": topology,
        "nvlinks": len(speeds) if speeds else None,
        "nvlink_gbps": statistics.median(speeds) if speeds else None,
    }


def _timed_loop(fn, calls: int) -> float:
    """Seconds per call of ``calls`` back-to-back calls of ``fn``, started on both ranks
    together: synchronise, a barrier, CUDA events around the loop."""
    import torch.distributed as dist

    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e-3 / calls


def _rank(rank: int, world: int, init_file: str, result_file: str, sizes: list) -> None:
    """One rank of the benchmark: check, then time, every size; rank 0 writes the rows."""
    os.environ.update(NO_MULTICAST)
    import torch.distributed as dist

    device = torch.device("cuda", rank)
    torch.cuda.set_device(device)
    dist.init_process_group(
        "nccl", init_method=f"file://{init_file}", rank=rank, world_size=world, device_id=device
    )
    try:
        ws = ar.workspace(max(sizes))
        rows = []
        for nbytes in sizes:
            n = nbytes // DTYPE.itemsize
            torch.manual_seed(n + rank)
            x = torch.randn(n, device=device).to(DTYPE)
            out = torch.empty_like(x)
            # Check first: the kernel's result against NCCL's, within one bf16 unit in the
            # last place (each rounds the float32 sum of two bf16 values once).
            ours = ar.all_reduce(x, ws, out=out)
            theirs = x.clone()
            dist.all_reduce(theirs)
            gap = (ours.float() - theirs.float()).abs()
            if not (gap <= 2.0**-7 * theirs.float().abs() + 1e-30).all():
                raise AssertionError(f"all_reduce at {nbytes} bytes differs from NCCL's")
            zeros = torch.zeros_like(x)  # NCCL in place on zeros: the values stay put
            impls = {
                "triton": lambda x=x, out=out: ar.all_reduce(x, ws, out=out),
                "nccl": lambda z=zeros: dist.all_reduce(z),
            }
            # Calls per loop: enough for SAMPLE_S, from a first estimate (the slower rank
            # decides, so both ranks run the same loop).
            calls = {}
            for name, fn in impls.items():
                _timed_loop(fn, MIN_CALLS)  # warm-up
                estimate = torch.tensor([_timed_loop(fn, MIN_CALLS)], device=device)
                dist.all_reduce(estimate, op=dist.ReduceOp.MAX)
                wanted = int(SAMPLE_S / max(estimate.item(), 1e-9)) + 1
                calls[name] = max(MIN_CALLS, min(MAX_CALLS, wanted))
            samples = {name: [] for name in impls}
            for _ in range(benchlib.pick(ROUNDS, 5)):
                for name, fn in impls.items():
                    samples[name].append(_timed_loop(fn, calls[name]))
            programs = ar.plan(n, ws.max_programs, rank)[0]
            for name in impls:
                rows.append(
                    {
                        "impl": name,
                        "dtype": "bfloat16",
                        "bytes": nbytes,
                        "elements": n,
                        "calls_per_sample": calls[name],
                        "time_s": benchlib.spread(samples[name]),
                        **({"programs": programs} if name == "triton" else {}),
                    }
                )
        if rank == 0:
            with open(result_file, "w") as f:
                json.dump(rows, f)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def run(ceilings: dict) -> list:
    count = torch.cuda.device_count()
    if count < WORLD:
        raise benchlib.Skip(
            f"all_reduce needs {WORLD} CUDA GPUs (one process each); this machine has {count}"
        )
    import torch.multiprocessing as mp

    os.environ.update(NO_MULTICAST)  # the ranks inherit it
    link = interconnect()
    sizes = benchlib.pick(SIZES, QUICK_SIZES)
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "rows.json")
        args = (WORLD, os.path.join(tmp, "rendezvous"), result, sizes)
        context = mp.spawn(_rank, args=args, nprocs=WORLD, join=False)
        deadline = time.monotonic() + TIMEOUT_S
        while not context.join(timeout=5):
            if time.monotonic() > deadline:
                for p in context.processes:
                    p.kill()
                raise RuntimeError(f"all_reduce: the ranks did not finish in {TIMEOUT_S} s")
        with open(result) as f:
            rows = json.load(f)
    return [{**row, **link} for row in rows]


BENCHMARKS = [
    benchlib.Benchmark(
        "all_reduce",
        "All-reduce (sum) of a bf16 tensor across 2 GPUs, 4 KiB to 256 MiB (powers of 4): the "
        "book's one-shot kernel over PyTorch symmetric memory (kernels/all_reduce.py, "
        "all_reduce with out=, one launch per call: copy in, barrier, read both buffers and "
        "sum, barrier) and NCCL's torch.distributed.all_reduce (in place), NVLink multicast "
        "off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1). "
        "One process per GPU, spawned by the benchmark. Each result is checked against NCCL's "
        "first. A sample: both ranks synchronise (cuda synchronize, a barrier), then CUDA "
        "events around calls_per_sample back-to-back calls (at least 2 ms of them), divided; "
        "15 samples per implementation, the two in turn; rank 0's percentiles. Each row "
        "records the GPUs taking part and their link (nvidia-smi topo -m for GPU0-GPU1; "
        "NVLinks up on GPU 0 and their GB/s, nvidia-smi nvlink -s).",
        run,
    )
]
