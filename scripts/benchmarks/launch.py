"""Benchmarks of the launch family (kernels/launch.py): lesson 03's launch overhead.

Host wall time per kernel for an empty Triton kernel, the validated vector-add wrapper
on a tiny input, two torch operations, and a CUDA graph replaying empty kernels.
"""

from __future__ import annotations

import functools

import torch

from kernels import vector_add as va
from kernels.launch import launch_empty
from scripts import benchlib

CALLS = 5000
PER_GRAPH = 100
TINY = 128


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
            "host_s": benchlib.host_time(functools.partial(launch_empty, t), CALLS),
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
        rows.append({"key": key, "what": what, "host_s": benchlib.host_time(fn, CALLS)})
    rows.append(
        {
            "key": "torch",
            "what": "torch op (t.add_(1))",
            "host_s": benchlib.host_time(functools.partial(t.add_, 1), CALLS),
        }
    )
    graph = graph_of_empty_launches(t, PER_GRAPH)
    rows.append(
        {
            "key": "graph",
            "what": f"CUDA graph replay ({PER_GRAPH} empty kernels)",
            "host_s": per_kernel(benchlib.host_time(graph.replay, calls=200), PER_GRAPH),
        }
    )
    for r in rows:
        print(f"  {r['key']:>9}: {r['host_s']['p50'] * 1e6:.2f} us per kernel")
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "launch_overhead",
        "Host wall time per kernel: loops of back-to-back calls, each synchronised once at "
        "its end (percentiles over 7 loops). triton: kernels/launch.py empty_kernel on one "
        "program; wrapper: kernels/vector_add.py on 128 floats; torch_add: torch.add(out=) "
        "on the same; torch: t.add_(1) on 128 floats; graph: one CUDA graph of 100 "
        "empty_kernel launches, replayed, time divided by 100.",
        run,
    ),
]
