"""Figures and values of the launch family: lesson 03's launch overhead and crossover.

Data: ``launch_overhead`` (scripts/bench/benchmarks/launch.py), and the vector-add size sweep
for the crossover between launch cost and device time.

Each launch_overhead row holds, per kernel, ``host_s`` (wall time in a loop of calls);
runs from issue 7 on add ``enqueue_s`` (the host's time inside the call alone) and
``gpu_s`` (the GPU's time, from CUDA events). Older data lacks those two: the values
that read them say "not measured" and the bar chart draws only what exists.
"""

from __future__ import annotations

import math

from figures.vector_add import SMALL_N, by_size, small_host, small_torch_host
from scripts.book.render import (
    Docs,
    Figure,
    RenderError,
    Value,
    axis,
    duration,
    error_bars,
    hline,
    line,
    micros,
    or_not_measured,
    ratio,
    rows,
)

# The three measurements of a row, in the order the bar chart groups them.
MEASURES = (
    ("host_s", "wall time per kernel, loop of calls", "series-0"),
    ("enqueue_s", "host: inside the call (GPU kept busy)", "series-1"),
    ("gpu_s", "GPU: CUDA events around the call", "series-2"),
)


def row(docs: Docs, key: str) -> dict:
    found = rows(docs, "launch_overhead", key=key)
    if not found:
        raise RenderError(f"no launch_overhead row {key!r}")
    return found[0]


def host(docs: Docs, key: str) -> dict:
    """The loop wall-time spread per kernel of one launch_overhead row."""
    return row(docs, key)["host_s"]


def measured(docs: Docs, key: str, field: str) -> float | None:
    """Median of ``field`` of one row, seconds; None where this run did not measure it."""
    s = row(docs, key).get(field)
    return s["p50"] if s else None


# ---- values -----------------------------------------------------------------------------


def triton(docs: Docs) -> float:
    """Host time to launch an empty Triton kernel (loop wall time per call), seconds."""
    return host(docs, "triton")["p50"]


def torch_op(docs: Docs) -> float:
    """Host time of a tiny torch op (t.add_(1)), loop wall time per call, seconds."""
    return host(docs, "torch")["p50"]


def graph(docs: Docs) -> float:
    """Wall time per kernel in a loop of CUDA-graph replays of empty kernels, seconds: the
    GPU's throughput, since one replay call queues a hundred kernels."""
    return host(docs, "graph")["p50"]


def graph_gpu(docs: Docs) -> float | None:
    """GPU time per kernel of a graph replay (CUDA events around replay() / 100), s."""
    return measured(docs, "graph", "gpu_s")


def graph_enqueue(docs: Docs) -> float | None:
    """Host time per kernel inside replay() alone (GPU kept busy), seconds."""
    return measured(docs, "graph", "enqueue_s")


def triton_enqueue(docs: Docs) -> float | None:
    """Host time inside one empty-kernel launch call alone (GPU kept busy), seconds."""
    return measured(docs, "triton", "enqueue_s")


def triton_gpu(docs: Docs) -> float | None:
    """GPU time of one empty-kernel launch (CUDA events around the call), seconds."""
    return measured(docs, "triton", "gpu_s")


def wrapper(docs: Docs) -> float:
    """Host time per call of the validated vector_add wrapper on 128 floats, seconds."""
    return host(docs, "wrapper")["p50"]


def torch_add(docs: Docs) -> float:
    """Host time per call of torch.add(out=) on 128 floats, seconds."""
    return host(docs, "torch_add")["p50"]


def triton_vs_torch(docs: Docs) -> float:
    """Empty Triton launch over a tiny torch op."""
    return triton(docs) / torch_op(docs)


def wrapper_vs_torch_add(docs: Docs) -> float:
    """The vector_add wrapper's host time over torch.add's, both on 128 floats."""
    return wrapper(docs) / torch_add(docs)


def wrapper_minus_triton(docs: Docs) -> float:
    """The vector_add wrapper's host time minus an empty launch's, same run, seconds."""
    return wrapper(docs) - triton(docs)


def small_torch_add_speedup(docs: Docs) -> float:
    """At small sizes (n <= 65,536, the size sweep's medians): the Triton wrapper's host
    time per call over torch.add's, i.e. how many times faster torch.add's host path is."""
    return small_host(docs) / small_torch_host(docs)


def log_crossing(xs: list[float], ys: list[float], level: float) -> float:
    """Where the polyline (xs, ys), drawn straight between points on log-log axes, first
    rises through ``level``: the x of the intersection, interpolated in log space."""
    ly = math.log10(level)
    pairs = list(zip(xs, ys, strict=True))
    for (x0, y0), (x1, y1) in zip(pairs, pairs[1:], strict=False):
        if y0 <= level < y1:
            t = (ly - math.log10(y0)) / (math.log10(y1) - math.log10(y0))
            return 10 ** (math.log10(x0) + t * (math.log10(x1) - math.log10(x0)))
    raise RenderError("the line never rises through that level")


def crossover_n(docs: Docs) -> float:
    """Elements at which the plotted Triton device-time line crosses the plotted
    empty-launch line (log-log interpolation between the measured sizes)."""
    rs = by_size(docs, "triton")
    return log_crossing([r["n"] for r in rs], [r["time_s"]["p50"] for r in rs], triton(docs))


GAP_CANDIDATES = 4  # the gap is marked on one of the smallest sizes: near the left edge


def gap_point(docs: Docs) -> dict:
    """The point of the Triton host-time line where the crossover figure marks the
    wrapper's gap above an empty launch: of the smallest sizes, the one whose host time
    is nearest the median over all small sizes (n <= SMALL_N), so one noisy point does
    not set the gap."""
    median = small_host(docs)
    first = [r for r in by_size(docs, "triton") if r["n"] <= SMALL_N][:GAP_CANDIDATES]
    return min(first, key=lambda r: (abs(r["host_s"]["p50"] - median), r["n"]))


def wrapper_gap(docs: Docs) -> float:
    """The gap the crossover figure marks: validated wrapper's host time per call (median
    over small sizes) minus an empty launch's, seconds. (Two runs: the size sweep's and
    launch_overhead's.)"""
    return gap_point(docs)["host_s"]["p50"] - triton(docs)


def millions(v: float) -> str:
    """An element count to two significant figures, in words: '1.6 million'."""
    if v >= 1e6:
        return f"{v / 1e6:.1f} million"
    if v >= 1e3:
        return f"{v / 1e3:.0f} thousand"
    return f"{v:.0f}"


VALUES = {
    "launch.triton": Value(triton, micros(1)),
    "launch.torch": Value(torch_op, micros(1)),
    "launch.graph": Value(graph, micros(2)),
    "launch.graph_gpu": Value(graph_gpu, or_not_measured(micros(2))),
    "launch.graph_enqueue": Value(graph_enqueue, or_not_measured(micros(3))),
    "launch.triton_enqueue": Value(triton_enqueue, or_not_measured(micros(1))),
    "launch.triton_gpu": Value(triton_gpu, or_not_measured(micros(1))),
    "launch.wrapper": Value(wrapper, micros(1)),
    "launch.torch_add": Value(torch_add, micros(1)),
    "launch.triton_vs_torch": Value(triton_vs_torch, ratio),
    "launch.wrapper_vs_torch_add": Value(wrapper_vs_torch_add, ratio),
    "launch.wrapper_minus_triton": Value(wrapper_minus_triton, micros(1)),
    "launch.small_torch_add_speedup": Value(small_torch_add_speedup, ratio),
    "launch.crossover_n": Value(crossover_n, millions),
    "launch.wrapper_gap": Value(wrapper_gap, micros(1)),
}


# ---- figures ----------------------------------------------------------------------------


def short_us(seconds: float) -> str:
    """A bar label: µs with two decimals, or ns below a tenth of a µs."""
    us = seconds * 1e6
    return f"{us * 1e3:.0f} ns" if us < 0.1 else f"{us:.2f} µs"


def fig_overhead(docs: Docs) -> dict:
    rs = rows(docs, "launch_overhead")
    labels = [r["what"].replace(" (", "<br>(") for r in rs]  # two lines: fits a phone
    traces, missing = [], []
    for field, name, role in MEASURES:
        if not all(field in r for r in rs):
            missing.append(name.split(":")[0])
            continue
        points = [duration(r[field], 1e-6) for r in rs]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": labels,
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "text": [short_us(r[field]["p50"]) for r in rs],
                "textangle": 0,
                "meta": {"role": "bars", "roles": [role] * len(rs)},
                "hovertemplate": "%{x:.3f} µs per kernel<extra>%{fullData.name}</extra>",
            }
        )
    title = "µs per kernel"
    if missing:
        title += f"<br>({' and '.join(missing)} time: not yet measured on this GPU)"
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "height": 420 + 90 * (len(traces) - 1),
            "xaxis": axis(title, rangemode="tozero"),
            "yaxis": {"automargin": True, "autorange": "reversed"},
            "showlegend": len(traces) > 1,
        },
    }


def fig_crossover(docs: Docs) -> dict:
    launch = triton(docs)
    traces = []
    for impl, label in (("triton", "Triton"), ("torch", "torch.add")):
        rs = by_size(docs, impl)
        ns = [r["n"] for r in rs]
        traces.append(
            line(
                ns,
                [duration(r["host_s"], 1e-6) for r in rs],
                f"{label}: host time per call",
                impl,
                hover="n = %{x:,}<br>%{y:.1f} µs per call",
            )
        )
        traces.append(
            line(
                ns,
                [duration(r["time_s"], 1e-6) for r in rs],
                f"{label}: device time",
                impl,
                dash="dot",
                hover="n = %{x:,}<br>%{y:.1f} µs on the GPU",
            )
        )
    ns = [r["n"] for r in by_size(docs, "triton")]
    traces.append(
        hline(launch * 1e6, min(ns), max(ns), f"empty Triton launch ({launch * 1e6:.1f} µs)")
    )
    # Both marks sit on the plotted lines: the crossing is computed from the dotted
    # device-time line and the dashed launch line; the gap spans from the launch line to a
    # point of the Triton host-time line. Their labels go in the empty upper half.
    cross = crossover_n(docs)
    gap = gap_point(docs)
    top = gap["host_s"]["p50"]
    # The labels sit above every Triton host-time marker and error bar to their right,
    # whatever the run measured at the smallest sizes.
    highest = max(
        [top] + [r["host_s"]["p80"] for r in by_size(docs, "triton") if r["n"] <= gap["n"]]
    )
    lx, ly = math.log10, lambda s: math.log10(s * 1e6)
    annotations = [
        {  # a double-headed arrow from the launch line up to the wrapper's host time
            "x": lx(gap["n"]),
            "y": ly(top),
            "ax": lx(gap["n"]),
            "ay": ly(launch),
            "axref": "x",
            "ayref": "y",
            "text": "",
            "showarrow": True,
            "arrowhead": 2,
            "arrowside": "end+start",
        },
        {
            "x": lx(ns[0]),
            "y": ly(highest * 1.3),
            "text": f"+{(top - launch) * 1e6:.1f} µs: checks in<br>the validated wrapper",
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "align": "left",
        },
        {
            "x": lx(cross),
            "y": ly(launch),
            # The label ends just left of the crossing, high above it, so the short
            # arrow down to the crossing passes no other label.
            "ax": lx(cross) - 0.6,
            "ay": ly(highest * 12),
            "axref": "x",
            "ayref": "y",
            "text": f"device time passes<br>an empty launch:<br>n ≈ {millions(cross)}",
            "showarrow": True,
            "arrowhead": 2,
            "xanchor": "right",
            "yanchor": "bottom",
            "align": "right",
        },
    ]
    return {
        "data": traces,
        "layout": {
            "xaxis": axis("elements n (float32)", log=True, exponentformat="power"),
            "yaxis": axis("time per vector add (µs)", log=True),
            "annotations": annotations,
        },
    }


FIGURES = {
    "launch-overhead": Figure(
        "What a launch costs: host time against GPU time",
        ("launch_overhead",),
        fig_overhead,
        "Bar chart, per kernel, for an empty Triton kernel, the vector_add wrapper, two torch "
        "ops and a CUDA graph replay: wall time in a loop of back-to-back calls and, where "
        "measured, the host's time inside the call alone and the GPU's time from CUDA "
        "events; error bars span the 20th to 80th percentile.",
    ),
    "launch-crossover": Figure(
        "Vector add: time per call against size",
        ("vector_add", "launch_overhead"),
        fig_crossover,
        "Log-log plot of time per vector add against element count: host time per call and "
        "device time, with the empty-launch cost as a horizontal line, an arrow where the "
        "Triton device time crosses it, and the gap from an empty launch to the wrapper.",
    ),
}
