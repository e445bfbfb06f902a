"""Benchmarks of the launch family (kernels/launch.py): lesson 03's launch overhead.

For an empty Triton kernel, the validated vector-add wrapper on a tiny input, two torch
operations, and a CUDA graph replaying empty kernels, three times per kernel:

- ``host_s``: wall time in a loop of back-to-back calls synchronised once at its end.
  For a single launch the host is the slower side, so this is the host's cost; for the
  graph, whose one call issues a hundred kernels, the GPU is the slower side and this is
  the GPU's throughput. The single launches are timed head to head (one loop of each in
  turn, ``benchlib.HOST_ROUNDS`` rounds), so each carries its per-round ratio to the
  others (``vs``); the graph is timed apart.
- ``enqueue_s``: the host's time inside the call alone. A spin kernel keeps the GPU busy
  while the calls are issued, so no call waits for the GPU to finish anything: each
  sample issues a few untimed calls first (the first call after a wait may cost more:
  its time is kept apart, as ``enqueue_first_s``), then times a batch of calls, few enough that
  the launch queue never fills, and counts only if the spin was still running when the
  batch ended. The rows' samples are taken in turn, one row after another, so that no
  row is measured in a state of the host (clock, caches) the others never see.
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
# Enqueue timing. Each sample: a spin kernel, WARM untimed calls, then CALLS timed calls
# (a launch queue holds about a thousand entries: WARM + CALLS stay well under it; a graph
# replay queues a hundred kernels, so it takes fewer calls). The spin starts at BUSY_CYCLES
# and is doubled until it outlasts the calls.
ENQUEUE_CALLS = 200
ENQUEUE_WARM = 20
GRAPH_ENQUEUE_CALLS = 20
ENQUEUE_SAMPLES = 25
BUSY_CYCLES = 1 << 21  # about a millisecond at the H100's and H200's 1.98 GHz
MAX_BUSY_CYCLES = 1 << 30
# A single launch's time inside the call above its loop time by more than this is
# reported as a warning: the loop's time per call cannot be below the host's.
CONSISTENT = 1.1


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


class Enqueue:
    """The enqueue samples of one callable: its spin length (doubled whenever a spin ended
    before the calls did, and kept for its later samples) and the samples so far."""

    def __init__(self, fn: Callable[[], object], calls: int, warm: int, cycles: int):
        self.fn, self.calls, self.warm, self.cycles = fn, calls, warm, cycles
        self.times: list[float] = []  # per call, over a timed batch
        self.first: list[float] = []  # the first call of each sample, after a wait

    def sample(self) -> None:
        """Take one sample: retried with a longer spin until the spin outlasts the calls."""
        while True:
            done = keep_gpu_busy(self.cycles)
            t0 = time.perf_counter()
            self.fn()
            t1 = time.perf_counter()
            for _ in range(self.warm - 1):
                self.fn()
            t2 = time.perf_counter()
            for _ in range(self.calls):
                self.fn()
            t3 = time.perf_counter()
            outlasted = not done.query()
            torch.cuda.synchronize()
            if outlasted:
                self.first.append(t1 - t0)
                self.times.append((t3 - t2) / self.calls)
                return
            if self.cycles >= MAX_BUSY_CYCLES:
                raise RuntimeError("enqueue_time: the GPU finished before the host's calls did")
            self.cycles *= 2


def enqueue_times(
    fns: dict,
    calls: dict | None = None,
    samples: int = ENQUEUE_SAMPLES,
    warm: int = ENQUEUE_WARM,
    cycles: int = BUSY_CYCLES,
) -> dict:
    """Host time per call of each callable in ``fns`` (key -> fn) with the GPU busy the
    whole time: ``{key: {"enqueue_s": spread, "enqueue_first_s": spread}}``.

    Behind a spin kernel, calls only queue work, so none waits for the GPU to run
    anything. Each sample makes ``warm`` untimed calls (the first of them timed alone, as
    ``enqueue_first_s``), then times ``calls[key]`` calls (default ENQUEUE_CALLS) between
    two ``perf_counter`` reads; it counts only if the spin kernel was still running at the
    second read (else the spin is doubled and the sample taken again). The callables take
    their samples in turn, so each sees the host as the others do."""
    calls = calls or {}
    state = {
        key: Enqueue(fn, calls.get(key, ENQUEUE_CALLS), max(1, warm), cycles)
        for key, fn in fns.items()
    }
    for s in state.values():
        for _ in range(3):
            s.fn()
    torch.cuda.synchronize()
    for _ in range(samples):
        for s in state.values():
            s.sample()
    return {
        key: {"enqueue_s": benchlib.spread(s.times), "enqueue_first_s": benchlib.spread(s.first)}
        for key, s in state.items()
    }


def enqueue_time(
    fn: Callable[[], object],
    calls: int = ENQUEUE_CALLS,
    samples: int = ENQUEUE_SAMPLES,
    cycles: int = BUSY_CYCLES,
    warm: int = ENQUEUE_WARM,
) -> dict:
    """Host time per call of ``fn`` with the GPU busy the whole time (enqueue_times for
    one callable): the spread of the timed batches."""
    return enqueue_times({0: fn}, {0: calls}, samples, warm, cycles)[0]["enqueue_s"]


def run(ceilings: dict) -> list[dict]:
    t = torch.randn(TINY, device="cuda")
    x, y = torch.randn(TINY, device="cuda"), torch.randn(TINY, device="cuda")
    out = torch.empty_like(x)
    expected = va.reference(x, y)
    benchlib.warm_up()
    graph = graph_of_empty_launches(t, PER_GRAPH)
    ways = [
        ("triton", "empty Triton kernel", functools.partial(launch_empty, t), None),
        (
            "wrapper",
            f"vector_add wrapper ({TINY} floats)",
            functools.partial(va.vector_add, x, y, out),
            expected,
        ),
        (
            "torch_add",
            f"torch.add(out=) ({TINY} floats)",
            functools.partial(torch.add, x, y, out=out),
            expected,
        ),
        ("torch", "torch op (t.add_(1))", functools.partial(t.add_, 1), None),
        ("graph", f"CUDA graph replay ({PER_GRAPH} empty kernels)", graph.replay, None),
    ]
    kernels = {key: PER_GRAPH if key == "graph" else 1 for key, *_ in ways}
    host, gpu = {}, {}
    # The single launches' host loops in turn (head to head: a ratio per round); the graph,
    # whose call issues PER_GRAPH kernels and is paced by the GPU, apart.
    with benchlib.head_to_head():
        for key, what, fn, want in ways:
            if want is not None:
                benchlib.check_then_time(fn, want, what, out=out)
            single = key != "graph"
            host[key] = benchlib.host_time(
                fn, CALLS if single else 200, name=key if single else None
            )
            gpu[key] = benchlib.device_time(fn)
    rows = [
        {
            "key": key,
            "what": what,
            # Per kernel: the same numbers for a single launch (its ratios stay true).
            "host_s": host[key] if kernels[key] == 1 else per_kernel(host[key], kernels[key]),
            "gpu_s": per_kernel(gpu[key], kernels[key]),
        }
        for key, what, _, _ in ways
    ]
    # The host's time inside the calls, every way in turn (see enqueue_times).
    enqueued = enqueue_times(
        {key: fn for key, _, fn, _ in ways}, calls={"graph": GRAPH_ENQUEUE_CALLS}
    )
    for r in rows:
        for field, s in enqueued[r["key"]].items():
            r[field] = per_kernel(s, kernels[r["key"]])
    for r in rows:
        print(
            f"  {r['key']:>9}: per kernel {r['host_s']['p50'] * 1e6:.2f} us in a loop, "
            f"{r['enqueue_s']['p50'] * 1e6:.3f} us to enqueue "
            f"(first call after a wait {r['enqueue_first_s']['p50'] * 1e6:.1f} us), "
            f"{r['gpu_s']['p50'] * 1e6:.2f} us on the GPU"
        )
        if r["key"] != "graph" and r["enqueue_s"]["p50"] > CONSISTENT * r["host_s"]["p50"]:
            print(
                f"  WARNING {r['key']}: inside the call {r['enqueue_s']['p50'] * 1e6:.1f} us, "
                f"above the loop's {r['host_s']['p50'] * 1e6:.1f} us per call"
            )
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "launch_overhead",
        "Per kernel, three times. host_s: wall time in loops of back-to-back calls, each "
        "loop synchronised once at its end (the single launches' loops in turn, "
        f"{benchlib.HOST_ROUNDS} rounds, with vs: per round, the other's time over this one's; "
        "the graph apart, 7 loops; percentiles over loops). enqueue_s: host time "
        f"inside the calls alone, with the GPU kept busy by a spin kernel: per sample "
        f"{ENQUEUE_WARM} untimed calls, then {ENQUEUE_CALLS} timed ones ({GRAPH_ENQUEUE_CALLS} "
        "for the graph), kept only if the spin outlasted them (percentiles over "
        f"{ENQUEUE_SAMPLES} samples, the five ways sampled in turn); enqueue_first_s: the "
        "first untimed call of each sample alone, the first call after the host waited for "
        "the GPU. gpu_s: GPU time from CUDA events around each call (do_bench). triton: "
        "kernels/launch.py empty_kernel on one program; wrapper: kernels/vector_add.py on "
        "128 floats; torch_add: torch.add(out=) on the same; torch: t.add_(1) on 128 "
        "floats; graph: one CUDA graph of 100 empty_kernel launches, replayed, every time "
        "divided by 100.",
        run,
    ),
]
