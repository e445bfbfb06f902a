"""Values of the launch_lean family: lesson 14's lean launch path against a torch op.

Data: ``launch_lean`` (scripts/bench/benchmarks/launch_lean.py): per way of adding two tensors
of 128 floats, the host's wall time per call in a loop (``host_s``) and its time inside
the call alone (``enqueue_s``). Until a GPU run has written the file, every value reads
"not measured" and the verdict says so; nothing here is typed by hand.
"""

from __future__ import annotations

import textwrap

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    duration,
    error_bars,
    micros,
    or_not_measured,
    ratio,
    rows,
)

BENCH = "launch_lean"
TARGET = "a book kernel's host cost per call on a tiny input ≤ a torch op's"


def p50(docs: Docs, key: str, field: str = "host_s") -> float | None:
    """Median of ``field`` of the row ``key``, seconds; None before the first GPU run."""
    if BENCH not in docs:
        return None
    found = [r for r in docs[BENCH]["rows"] if r["key"] == key]
    return found[0][field]["p50"] if found else None


def host_of(key: str, what: str):
    def compute(docs: Docs) -> float | None:
        return p50(docs, key)

    compute.__name__ = compute.__qualname__ = f"host_{key}"
    compute.__doc__ = f"Host wall time per call in a loop, {what}, seconds (128 floats)."
    return compute


def enqueue_of(key: str, what: str):
    def compute(docs: Docs) -> float | None:
        return p50(docs, key, "enqueue_s")

    compute.__name__ = compute.__qualname__ = f"enqueue_{key}"
    compute.__doc__ = f"Host time inside one call alone (GPU kept busy), {what}, seconds."
    return compute


def over(docs: Docs, a: str, b: str) -> float | None:
    ta, tb = p50(docs, a), p50(docs, b)
    return None if ta is None or tb is None else ta / tb


def lean_vs_torch_add(docs: Docs) -> float | None:
    """The lean path's host time per call over torch.add(out=)'s: at most 1 meets the target."""
    return over(docs, "lean", "torch_add")


def wrapper_vs_lean(docs: Docs) -> float | None:
    """How many times the validated wrapper's host time per call is the lean path's."""
    return over(docs, "wrapper", "lean")


def wrapper_vs_torch_add(docs: Docs) -> float | None:
    """The validated wrapper's host time per call over torch.add(out=)'s, same run."""
    return over(docs, "wrapper", "torch_add")


def graph_vs_torch_add(docs: Docs) -> float | None:
    """A CUDA graph replay of one lean call: host time per call over torch.add(out=)'s."""
    return over(docs, "graph", "torch_add")


def checks_cost(docs: Docs) -> float | None:
    """What the lean path's per-call checks cost: its host time minus the bare launcher's."""
    lean, bare = p50(docs, "lean"), p50(docs, "launcher")
    return None if lean is None or bare is None else lean - bare


def verdict(docs: Docs) -> str:
    """Whether the lean path meets the target (host time per call ≤ torch.add's), in
    words, with both medians; 'not measured' before the first GPU run."""
    lean, torch_add = p50(docs, "lean"), p50(docs, "torch_add")
    if lean is None or torch_add is None:
        return "not measured yet on this GPU"
    met = "met" if lean <= torch_add else "not met"
    return (
        f"{met}: {lean * 1e6:.1f} µs per lean call against {torch_add * 1e6:.1f} µs for torch.add"
    )


KEYS = {
    "torch_add": "torch.add(out=)",
    "wrapper": "the validated vector_add wrapper",
    "lean": "the lean path (LeanAdd)",
    "launcher": "the launcher alone",
    "graph": "a CUDA graph replay of one lean call",
    "empty": "an empty Triton launch",
}

VALUES = {
    **{
        f"launch_lean.{key}": Value(host_of(key, what), or_not_measured(micros(1)))
        for key, what in KEYS.items()
    },
    **{
        f"launch_lean.{key}_enqueue": Value(enqueue_of(key, what), or_not_measured(micros(1)))
        for key, what in KEYS.items()
    },
    "launch_lean.lean_vs_torch_add": Value(lean_vs_torch_add, or_not_measured(ratio)),
    "launch_lean.wrapper_vs_lean": Value(wrapper_vs_lean, or_not_measured(ratio)),
    "launch_lean.wrapper_vs_torch_add": Value(wrapper_vs_torch_add, or_not_measured(ratio)),
    "launch_lean.graph_vs_torch_add": Value(graph_vs_torch_add, or_not_measured(ratio)),
    "launch_lean.checks_cost": Value(checks_cost, or_not_measured(micros(1))),
    "launch_lean.verdict": Value(verdict),
}


def fig_host_cost(docs: Docs) -> dict:
    rs = rows(docs, BENCH)
    # Short lines (the axis title says 128 floats): the plot keeps its width on a phone.
    labels = ["<br>".join(textwrap.wrap(r["what"].replace(" (128 floats)", ""), 18)) for r in rs]
    traces = []
    for field, name, role in (
        ("host_s", "wall time per call, loop of calls", "series-0"),
        ("enqueue_s", "host: inside the call (GPU kept busy)", "series-1"),
    ):
        points = [duration(r[field], 1e-6) for r in rs]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": labels,
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "text": [f"{p[0]:.1f}" for p in points],
                "textangle": 0,
                "meta": {"role": "bars", "roles": [role] * len(rs)},
                "hovertemplate": "%{x:.2f} µs per call<extra>%{fullData.name}</extra>",
            }
        )
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "height": 520,
            "xaxis": axis("µs of host time per call (128 floats)", rangemode="tozero"),
            "yaxis": {"automargin": True, "autorange": "reversed"},
        },
    }


FIGURES = {
    "launch-lean": Figure(
        "Host cost per call of a tiny vector add, six ways",
        (BENCH,),
        fig_host_cost,
        "Horizontal bars of host time per call on 128 floats: torch.add, the book's validated "
        "wrapper, the lean path (checks once, then the compiled kernel's launcher), that "
        "launcher alone, a CUDA-graph replay of the lean call, and an empty Triton launch; "
        "wall time in a loop and time inside the call with the GPU kept busy; error bars "
        "span the 20th to 80th percentile.",
    ),
}
