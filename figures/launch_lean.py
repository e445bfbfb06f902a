"""Values of the launch_lean family: lesson 14's lean launch path against a torch op.

Data: ``launch_lean`` (scripts/bench/benchmarks/launch_lean.py): per way of adding two
tensors of 128 floats, the host's wall time per call in a loop (``host_s``) and its time
inside the call alone (``enqueue_s``); "not measured" on a device without the file.
"""

import textwrap
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "launch_lean"
Call = Literal["torch_add", "wrapper", "lean", "launcher", "graph", "empty"]


def host(docs: Docs, call: Call, clock: Literal["wall", "enqueue"] = "wall") -> dict | None:
    """The host-time spread of row ``call``: wall time in a loop, or inside one call alone;
    None before the first GPU run."""
    r = render.maybe_one(docs, BENCH, key=call, absent_ok=True)
    return render.field(r, {"wall": "host_s", "enqueue": "enqueue_s"}[clock])


time = render.row_kind(host, render.middle, "Host seconds per call on 128 floats (median).")


ratio_of = render.pair_kind(
    host,
    "call",
    lambda docs, a, b: render.times_over(a, b),
    "Host time per call of ``of`` over ``to``'s (per-round median where head to head).",
)
ratio_span = render.pair_kind(
    host,
    "call",
    lambda docs, a, b: a and b and render.speedup(b, a, render.tie_margin(docs[BENCH]))[1:],
    "The interval of ``ratio_of``, by ``render.speedup``: (low, high).",
)


def span(v: tuple[float, float]) -> str:
    """An interval of ratios: "1.21–1.30×"."""
    return f"{v[0]:.2f}–{v[1]:.2f}×"


def checks_cost(docs: Docs) -> float | None:
    """What the lean path's per-call checks cost: its host time minus the bare launcher's."""
    lean, bare = time(docs, "lean"), time(docs, "launcher")
    return None if lean is None or bare is None else lean - bare


compare = render.pair_kind(host, "call", render.tie(BENCH), "Host time of ``of`` against ``to``.")


VALUES = {
    "launch_lean.time": Value(time, render.micros(1), missing="not measured"),
    "launch_lean.ratio": Value(ratio_of, render.ratio, missing="not measured"),
    "launch_lean.ratio_span": Value(ratio_span, span, missing="not measured"),
    "launch_lean.checks_cost": Value(checks_cost, render.micros(1), missing="not measured"),
    "launch_lean.compare": Value(compare, missing="not measured"),
}


def fig_host_cost(docs: Docs) -> dict:
    """Horizontal bars of host time per call on 128 floats: torch.add, the book's validated wrapper,
    the lean path (checks once, then the compiled kernel's launcher), that launcher alone, a
    CUDA-graph replay of the lean call, and an empty Triton launch; wall time in a loop and time
    inside the call with the GPU kept busy; error bars span the 20th to 80th percentile."""
    rs = render.rows(docs, BENCH)
    labels = ["<br>".join(textwrap.wrap(r["what"].replace(" (128 floats)", ""), 18)) for r in rs]
    clocks = (
        ("host_s", "wall time per call, loop of calls", "series-0"),
        ("enqueue_s", "host: inside the call (GPU kept busy)", "series-1"),
    )
    hover = "%{x:.2f} µs per call"
    traces, _ = render.clock_bars(rs, labels, clocks, lambda s: f"{s / 1e-6:.1f}", hover)
    return render.bar_chart(traces, "µs of host time per call (128 floats)", height=520)


FIGURES = {
    "launch-lean": Figure(
        "Host cost per call of a tiny vector add, six ways", (BENCH,), fig_host_cost
    )
}
