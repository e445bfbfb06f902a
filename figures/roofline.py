"""Lesson 01's roofline: the measured ceilings, with every benchmark's roofline points."""

from __future__ import annotations

import math

from scripts.render import Docs, Figure, axis, copy_bw, doc, line, matmul_rate, vline


def points(docs: Docs) -> list[dict]:
    """Every ``roofline`` entry any benchmark of this device wrote."""
    found = []
    for name in sorted(docs):
        found += docs[name].get("roofline", [])
    return found


SYMBOLS = ["circle", "diamond", "square", "triangle-up"]


def merged_label(names: list[str]) -> str:
    """One label for points that coincide: 'vector add (float16, bfloat16)' rather than
    the names joined whole, so the label stays short enough for a phone's width."""
    stems = {n.split(" (")[0] for n in names}
    if len(names) > 1 and len(stems) == 1 and all(n.endswith(")") for n in names):
        details = [n.split(" (", 1)[1][:-1] for n in names]
        return f"{stems.pop()} ({', '.join(details)})"
    return " / ".join(names)


def build(docs: Docs) -> dict:
    ceilings = doc(docs, "ceilings")
    bw = copy_bw(ceilings)
    x_lo, x_hi = 0.01, 2000.0
    traces = []
    for i, (dtype, label) in enumerate((("bfloat16", "bf16"), ("float16", "fp16"))):
        peak = matmul_rate(ceilings, dtype)
        ridge = peak / bw
        traces.append(
            line(
                [x_lo, ridge, x_hi],
                [x_lo * bw / 1e12, peak / 1e12, peak / 1e12],
                f"roof: {bw / 1e12:.2f} TB/s copy, {peak / 1e12:.0f} TFLOP/s {label} matmul",
                "ceiling" if i == 0 else "ceiling-2",
                mode="lines",
                dash=None if i == 0 else "dash",
                hover="%{x:.3~g} FLOP/B → %{y:.3~g} TFLOP/s",
            )
        )
    # Kernels with the same intensity and nearly the same rate (one kernel in several
    # dtypes of one width) share a point and a label, so labels never sit on each other.
    groups: dict[tuple, list[dict]] = {}
    for p in points(docs):
        key = (
            round(math.log10(p["flops"] / p["bytes"]), 2),
            round(math.log10(p["flops"] / p["seconds"]), 1),
        )
        groups.setdefault(key, []).append(p)
    # One legend entry per kernel (a colour and a symbol each), no text beside the points:
    # many memory-bound kernels sit close together, and their labels would overlap.
    for i, ps in enumerate(groups.values()):
        label = merged_label([p["kernel"] for p in ps])
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label,
                "x": [ps[0]["flops"] / ps[0]["bytes"]],
                "y": [max(p["flops"] / p["seconds"] for p in ps) / 1e12],
                "marker": {"size": 10, "symbol": SYMBOLS[i // 6 % len(SYMBOLS)]},
                "meta": {"role": f"series-{i}"},
                "hovertemplate": "%{x:.3~g} FLOP/B, %{y:.3~g} TFLOP/s",
            }
        )
    peak = matmul_rate(ceilings, "bfloat16")
    ridge = peak / bw
    traces.append(vline(ridge, x_lo * bw / 1e12, peak / 1e12, "ridge point"))
    return {
        "data": traces,
        "layout": {
            # Room for the legend, one row per entry on a phone, under a 420 px plot.
            "height": 360 + 22 * len(traces),
            "xaxis": axis("arithmetic intensity (FLOP/B)", log=True),
            "yaxis": axis("attainable TFLOP/s", log=True),
            "annotations": [
                {
                    "x": math.log10(ridge),
                    "y": 0.02,
                    "xref": "x",
                    "yref": "paper",
                    "text": f"ridge ≈ {ridge:.0f} FLOP/B ",
                    "showarrow": False,
                    "xanchor": "right",  # left of the ridge line: the roof is far up there
                }
            ],
        },
    }


FIGURES = {
    "roofline": Figure(
        "Roofline: measured ceilings and the book's kernels",
        ("ceilings",),
        build,
        "Log-log roofline: attainable TFLOP/s against arithmetic intensity, with the measured "
        "copy-bandwidth slope, the measured matmul roofs, and the book's kernels as points.",
    ),
}
