"""Lesson 01's roofline: the measured ceilings, with the book's kernels as points: each
figure module's ``ROOFLINE = {benchmark: points(rows)}``, gathered by
render.roofline_points."""

import math

from scripts.book import render
from scripts.book.render import Docs, Figure

SYMBOLS = ["circle", "diamond", "square", "triangle-up"]


def merged_label(names: list[str]) -> str:
    """One short label for points that coincide: 'vector add (float16, bfloat16)'."""
    stems = {n.split(" (")[0] for n in names}
    if len(names) > 1 and len(stems) == 1 and all(n.endswith(")") for n in names):
        details = [n.split(" (", 1)[1][:-1] for n in names]
        return f"{stems.pop()} ({', '.join(details)})"
    return " / ".join(names)


def roofs(ceilings: dict) -> list[tuple[str, str, float]]:
    """(label, role, FLOP/s) of the fp32 FMA roof where measured and the bf16 matmul roof."""
    found = []
    fp32 = render.fma_rate(ceilings)
    if fp32 is not None:
        found.append((f"CUDA cores: {fp32 / 1e12:.0f} TFLOP/s (fp32 FMA)", "ceiling-2", fp32))
    bf16 = render.matmul_rate(ceilings, "bfloat16")
    found.append((f"tensor cores: {bf16 / 1e12:.0f} TFLOP/s (bf16 matmul)", "ceiling", bf16))
    return found


def build(docs: Docs) -> dict:
    """Log-log roofline: attainable TFLOP/s against arithmetic intensity, with the measured
    copy-bandwidth slope, one measured roof per instruction class (fp32 FMA on CUDA cores where
    measured, bf16 matmul on tensor cores), and the book's kernels as points."""
    ceilings = render.doc(docs, "ceilings")
    bw = render.copy_bw(ceilings)
    tops = roofs(ceilings)
    found = render.roofline_points(docs)
    # Every point and ridge, with room right of the highest ridge for its label and roof.
    ridges = [peak / bw for *_, peak in tops]
    xs = [p["flops"] / p["bytes"] for p in found] + ridges
    x_lo, x_hi = min(xs) / 3, max(max(xs) * 3, max(ridges) * 30)
    highest = max(peak for *_, peak in tops)
    # The copy-bandwidth slope up to the highest roof, then each roof from its ridge on.
    memory = f"memory: {bw / 1e12:.2f} TB/s (copy)"
    segments = [([x_lo, highest / bw], [x_lo * bw / 1e12, highest / 1e12], memory, "ceiling")]
    segments += [([peak / bw, x_hi], [peak / 1e12] * 2, label, role) for label, role, peak in tops]
    hover, dash = "%{x:.3~g} FLOP/B → %{y:.3~g} TFLOP/s", {"ceiling-2": "dash"}  # fp32's roof
    traces = [
        render.line(x, y, label, role, mode="lines", hover=hover, dash=dash.get(role))
        for x, y, label, role in segments
    ]
    # Kernels with the same intensity and nearly the same rate share a point and a label.
    groups: dict[tuple, list[dict]] = {}
    for p in found:
        intensity, rate = p["flops"] / p["bytes"], p["flops"] / p["seconds"]
        key = (round(math.log10(intensity), 2), round(math.log10(rate), 1))
        groups.setdefault(key, []).append(p)
    # One legend entry per kernel, no text beside the points (they would overlap).
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
    annotations = []
    for label, _, peak in tops:
        ridge = peak / bw
        traces.append(render.vline(ridge, x_lo * bw / 1e12, peak / 1e12, "ridge point"))
        kind = "fp32" if label.startswith("CUDA") else "bf16"
        # The fp32 label left of its line, the tensor-core one right: they never meet.
        side = ("right", -4) if kind == "fp32" else ("left", 4)
        label = render.note(math.log10(ridge), 0.02, f"{kind} ridge<br>≈ {ridge:.0f} FLOP/B")
        annotations.append(
            {**label, "xref": "x", "yref": "paper", "yanchor": "bottom", "xanchor": side[0],
             "xshift": side[1]}
        )  # fmt: skip
    if render.fma_rate(ceilings) is None:
        text = "fp32 CUDA-core roof:<br>not yet measured here"
        paper = {"xref": "paper", "yref": "paper", "xanchor": "left", "yanchor": "top"}
        annotations.append(render.note(0.02, 0.98, text, **paper, align="left"))
    xaxis = render.axis("arithmetic intensity (FLOP/B)", log=True)
    yaxis, height = render.axis("attainable TFLOP/s", log=True), 360 + 22 * len(traces)
    return render.plot(traces, height=height, xaxis=xaxis, yaxis=yaxis, annotations=annotations)


FIGURES = {
    "roofline": Figure("Roofline: measured ceilings and the book's kernels", ("ceilings",), build)
}
