"""Benchmark of the launch_lean family (kernels/launch_lean.py): lesson 14's lean path.

The host's cost per call of adding two tensors of 128 floats, five ways: torch.add(out=),
the validated vector_add wrapper, the lean path (LeanAdd: checked once, then the compiled
kernel's launcher called directly), the launcher alone with nothing around it (the floor
of the lean path), an empty Triton launch (lesson 03's control), and a CUDA graph replaying
one lean call. Every way is checked against the reference before it is timed.

Two times per way, as lesson 03 takes them (scripts/bench/benchmarks/launch.py):
- ``host_s``: wall time per call in loops of back-to-back calls, synchronised once at the
  end of each loop (benchlib.host_time). On a tiny input the GPU finishes each kernel
  sooner than the host issues the next, so this is the host's cost. The ways are timed
  head to head (benchlib.head_to_head): one loop of each in turn, HOST_ROUNDS rounds, and
  each spread carries its per-round ratio to every other way (``vs``).
- ``enqueue_s``: the host's time inside the call alone, with the GPU kept busy by a spin
  kernel so that no call waits for anything.
"""

from __future__ import annotations

import functools

import torch

from kernels import launch_lean as ll
from kernels import vector_add as va
from kernels.launch import launch_empty
from scripts.bench import benchlib
from scripts.bench.benchmarks.launch import (
    ENQUEUE_CALLS,
    ENQUEUE_SAMPLES,
    ENQUEUE_WARM,
    enqueue_time,
)

TINY = 128
CALLS = 5000


def checked(fn, out: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    """Poison ``out``, run ``fn`` once, compare bit for bit: before any timing."""
    out.fill_(float("nan"))
    fn()
    torch.cuda.synchronize()
    benchlib.check(out, expected, what, exact=True)


def run(ceilings: dict) -> list[dict]:
    x, y = torch.randn(TINY, device="cuda"), torch.randn(TINY, device="cuda")
    out = torch.empty_like(x)
    expected = va.reference(x, y)
    lean = ll.LeanAdd(x, y, out)
    xp, yp, op = x.data_ptr(), y.data_ptr(), out.data_ptr()
    graph = ll.graphed(functools.partial(lean, x, y, out))
    ways = [
        ("torch_add", "torch.add(out=)", functools.partial(torch.add, x, y, out=out)),
        ("wrapper", "vector_add wrapper", functools.partial(va.vector_add, x, y, out)),
        ("lean", "LeanAdd call", functools.partial(lean, x, y, out)),
        ("launcher", "launcher alone, no checks", functools.partial(lean.launch, xp, yp, op)),
        ("graph", "CUDA graph replay of one LeanAdd call", graph.replay),
    ]
    t = torch.empty(TINY, device="cuda")
    empty = functools.partial(launch_empty, t)
    benchlib.warm_up()
    rows = []
    # host_s of every way in turn, HOST_ROUNDS loops each: the per-round ratio of two ways
    # is what their comparison reads (the host's speed moves by tens of percent between
    # runs, and between loops of one run).
    with benchlib.head_to_head():
        for key, what, fn in ways:
            checked(fn, out, expected, what)
            rows.append(
                {
                    "key": key,
                    "what": f"{what} ({TINY} floats)",
                    "host_s": benchlib.host_time(fn, CALLS, name=key),
                    "enqueue_s": enqueue_time(fn),
                }
            )
        rows.append(
            {
                "key": "empty",
                "what": "empty Triton kernel (lesson 03)",
                "host_s": benchlib.host_time(empty, CALLS, name="empty"),
                "enqueue_s": enqueue_time(empty),
            }
        )
    for r in rows:
        print(
            f"  {r['key']:>9}: {r['host_s']['p50'] * 1e6:.2f} us per call in a loop, "
            f"{r['enqueue_s']['p50'] * 1e6:.2f} us to enqueue"
        )
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "launch_lean",
        "Host cost per call of x + y on 128 float32 elements, six ways. host_s: wall time "
        "per call in loops of 5000 back-to-back calls, each loop synchronised at its end, "
        f"the six ways' loops in turn ({benchlib.HOST_ROUNDS} rounds; percentiles over "
        "loops, and vs: per round, the other way's time over this one's); enqueue_s: "
        f"host time inside {ENQUEUE_CALLS} calls "
        f"issued behind a spin kernel that keeps the GPU busy, after {ENQUEUE_WARM} untimed "
        f"ones (percentiles over {ENQUEUE_SAMPLES} samples). torch_add: "
        "torch.add(out=); wrapper: kernels/vector_add.py's vector_add; lean: kernels/"
        "launch_lean.py's LeanAdd called on the same tensors; launcher: LeanAdd's launcher "
        "call alone with the pointers precomputed; graph: a CUDA graph of one LeanAdd call, "
        "replayed; empty: kernels/launch.py's empty kernel. Each way is checked bit for bit "
        "against the reference before it is timed (the empty kernel writes nothing).",
        run,
    ),
]
