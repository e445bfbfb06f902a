"""Figures and values of the launch family: lesson 03's launch overhead and crossover.

Data: ``launch_overhead`` (scripts/benchmarks/launch.py), and the vector-add size sweep
for the crossover between launch cost and device time.
"""

from __future__ import annotations

import math

from figures.vector_add import by_size
from scripts.render import (
    Docs,
    Figure,
    Value,
    axis,
    count,
    duration,
    error_bars,
    hline,
    line,
    micros,
    ratio,
    rows,
)


def host(docs: Docs, key: str) -> dict:
    """The host-time spread per kernel of one launch_overhead row."""
    return rows(docs, "launch_overhead", key=key)[0]["host_s"]


def triton(docs: Docs) -> float:
    """Host time to launch an empty Triton kernel, seconds."""
    return host(docs, "triton")["p50"]


def torch_op(docs: Docs) -> float:
    """Host time of a tiny torch op (t.add_(1)), seconds."""
    return host(docs, "torch")["p50"]


def graph(docs: Docs) -> float:
    """Time per kernel when a CUDA graph of empty kernels is replayed, seconds."""
    return host(docs, "graph")["p50"]


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


def crossover_n(docs: Docs) -> int:
    """Smallest n at which the Triton vector add's device time exceeds an empty launch."""
    launch = triton(docs)
    for r in by_size(docs, "triton"):
        if r["time_s"]["p50"] > launch:
            return r["n"]
    raise ValueError("device time never exceeds the launch cost")


VALUES = {
    "launch.triton": Value(triton, micros(1)),
    "launch.torch": Value(torch_op, micros(1)),
    "launch.graph": Value(graph, micros(2)),
    "launch.wrapper": Value(wrapper, micros(1)),
    "launch.torch_add": Value(torch_add, micros(1)),
    "launch.triton_vs_torch": Value(triton_vs_torch, ratio),
    "launch.wrapper_vs_torch_add": Value(wrapper_vs_torch_add, ratio),
    "launch.crossover_n": Value(crossover_n, count),
}


def fig_overhead(docs: Docs) -> dict:
    rs = rows(docs, "launch_overhead")
    points = [duration(r["host_s"], 1e-6) for r in rs]
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                # Break "label (detail)" over two lines: the labels must fit a phone's width too.
                "y": [r["what"].replace(" (", "<br>(") for r in rs],
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "text": [f"{p[0]:.2f} µs" for p in points],
                "textposition": "auto",
                "textangle": 0,
                "meta": {"role": "bars", "roles": [r["key"] for r in rs]},
                "hovertemplate": "%{x:.2f} µs per kernel<extra></extra>",
            }
        ],
        "layout": {
            "xaxis": axis("wall µs per kernel", rangemode="tozero"),
            "yaxis": {"automargin": True, "autorange": "reversed"},
            "showlegend": False,
        },
    }


def fig_crossover(docs: Docs) -> dict:
    launch = triton(docs) * 1e6
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
    traces.append(hline(launch, min(ns), max(ns), f"empty Triton launch ({launch:.1f} µs)"))
    cross = crossover_n(docs)
    annotations = [
        {
            "x": math.log10(cross),
            "y": math.log10(launch),
            "text": f"crossover ≈ {cross:,}",
            "showarrow": True,
            "arrowhead": 2,
            "ax": -60,
            "ay": -40,
        }
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
        "Wall time per launch in a back-to-back loop",
        ("launch_overhead",),
        fig_overhead,
        "Bar chart of wall time per kernel in a loop of back-to-back calls: empty Triton "
        "kernel, the vector_add wrapper, torch ops (host-bound), and a CUDA graph replay (which "
        "includes the GPU running the kernels); error bars span the 20th to 80th percentile.",
    ),
    "launch-crossover": Figure(
        "Vector add: time per call against size",
        ("vector_add", "launch_overhead"),
        fig_crossover,
        "Log-log plot of time per vector add against element count: host time per call and "
        "device time, with the empty-launch cost as a horizontal line.",
    ),
}
