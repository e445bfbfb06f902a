"""Benchmarks of the launch family (kernels/launch.py): lesson 03's launch overhead.

For an empty Triton kernel, the validated vector-add wrapper on a tiny input, two torch
operations, and a CUDA graph replaying empty kernels, three times per kernel:

- ``host_s``: wall time in a loop of back-to-back calls synchronised once at its end.
  For a single launch the host is the slower side, so this is the host's cost; for the
  graph, whose one call issues a hundred kernels, the GPU is the slower side and this is
  the GPU's throughput.
- ``enqueue_s``: the host's time inside the call alone. A spin kernel keeps the GPU busy
  while a few calls are issued, so no call waits for the GPU to finish anything, and the
  calls are few enough that the launch queue never fills.
- ``gpu_s``: the GPU's time, from CUDA events around each call (triton's do_bench).
"""

from __future__ import annotations

import functools
import time
from typing import Callable

import torch

from kernels import vector_add as va
from kernels.launch import launch_empty
from scripts.bench import benchlib

CALLS = 5000
PER_GRAPH = 100
TINY = 128
# Enqueue timing: calls per sample (a launch queue holds about a thousand entries; a
# graph launch is one) and the GPU busy time to start from, doubled until it outlasts them.
ENQUEUE_CALLS = 20
ENQUEUE_SAMPLES = 25
BUSY_CYCLES = 1 << 21  # about a millisecond at the H100's and H200's 1.98 GHz
MAX_BUSY_CYCLES = 1 << 30


def graph_of_empty_launches(t: torch.Tensor, count: int) -> torch.cuda.CUDAGraph:
    # Compile and warm up on a side stream first, as graph capture requires.
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            launch_empty(t)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(count):
            launch_empty(t)
    return graph


def per_kernel(s: dict, kernels: int) -> dict:
    return {**s, **{k: s[k] / kernels for k in ("p20", "p50", "p80")}}


def keep_gpu_busy(cycles: int) -> torch.cuda.Event:
    """Queue a kernel that spins for ``cycles`` GPU clocks; the event it returns completes
    when the spin does."""
    torch.cuda._sleep(cycles)
    done = torch.cuda.Event()
    done.record()
    return done


def enqueue_time(
    fn: Callable[[], object],
    calls: int = ENQUEUE_CALLS,
    samples: int = ENQUEUE_SAMPLES,
    cycles: int = BUSY_CYCLES,
) -> dict:
    """Host time per call of ``fn`` with the GPU busy the whole time: behind a spin
    kernel, ``calls`` calls only queue work, so none waits for the GPU to run anything.

    Each sample times ``calls`` calls between two ``perf_counter`` reads; the sample
    counts only if the spin kernel was still running at the second read (else the spin
    is doubled and the sample taken again)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    while len(times) < samples:
        done = keep_gpu_busy(cycles)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        outlasted = not done.query()
        torch.cuda.synchronize()
        if outlasted:
            times.append((t1 - t0) / calls)
        elif cycles < MAX_BUSY_CYCLES:
            cycles *= 2
        else:
            raise RuntimeError("enqueue_time: the GPU finished before the host's calls did")
    return benchlib.spread(times)


def timings(fn: Callable[[], object], kernels: int = 1, calls: int = CALLS) -> dict:
    """host_s, enqueue_s and gpu_s of ``fn``, each per kernel (``fn`` launches ``kernels``)."""
    return {
        "host_s": per_kernel(benchlib.host_time(fn, calls), kernels),
        "enqueue_s": per_kernel(enqueue_time(fn), kernels),
        "gpu_s": per_kernel(benchlib.device_time(fn), kernels),
    }


def run(ceilings: dict) -> list[dict]:
    t = torch.randn(TINY, device="cuda")
    x, y = torch.randn(TINY, device="cuda"), torch.randn(TINY, device="cuda")
    out = torch.empty_like(x)
    expected = va.reference(x, y)
    benchlib.warm_up()
    rows = [
        {
            "key": "triton",
            "what": "empty Triton kernel",
            **timings(functools.partial(launch_empty, t)),
        }
    ]
    for key, what, fn in (
        (
            "wrapper",
            f"vector_add wrapper ({TINY} floats)",
            functools.partial(va.vector_add, x, y, out),
        ),
        (
            "torch_add",
            f"torch.add(out=) ({TINY} floats)",
            functools.partial(torch.add, x, y, out=out),
        ),
    ):
        benchlib.check_then_time(fn, expected, what, out=out)
        rows.append({"key": key, "what": what, **timings(fn)})
    rows.append(
        {
            "key": "torch",
            "what": "torch op (t.add_(1))",
            **timings(functools.partial(t.add_, 1)),
        }
    )
    graph = graph_of_empty_launches(t, PER_GRAPH)
    rows.append(
        {
            "key": "graph",
            "what": f"CUDA graph replay ({PER_GRAPH} empty kernels)",
            **timings(graph.replay, kernels=PER_GRAPH, calls=200),
        }
    )
    for r in rows:
        print(
            f"  {r['key']:>9}: per kernel {r['host_s']['p50'] * 1e6:.2f} us in a loop, "
            f"{r['enqueue_s']['p50'] * 1e6:.3f} us to enqueue, "
            f"{r['gpu_s']['p50'] * 1e6:.2f} us on the GPU"
        )
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "launch_overhead",
        "Per kernel, three times. host_s: wall time in loops of back-to-back calls, each "
        "loop synchronised once at its end (percentiles over 7 loops). enqueue_s: host time "
        "inside the calls alone, 20 calls issued behind a spin kernel that keeps the GPU "
        "busy throughout (percentiles over 25 samples). gpu_s: GPU time from CUDA events "
        "around each call (do_bench). triton: kernels/launch.py empty_kernel on one "
        "program; wrapper: kernels/vector_add.py on 128 floats; torch_add: torch.add(out=) "
        "on the same; torch: t.add_(1) on 128 floats; graph: one CUDA graph of 100 "
        "empty_kernel launches, replayed, every time divided by 100.",
        run,
    ),
]
