"""Figures and values of the FP8 matmul family (kernels/fp8_matmul.py): lesson 16.

Data (scripts/bench/benchmarks/fp8_matmul.py): ``fp8_matmul``, the speed of the book's
kernel (``triton``: scaling tensor/row/block, fast_accum on or off), torch._scaled_mm
(``scaled_mm``) and the bf16 cuBLAS matmul (``cublas_bf16``) at 4096³, 8192³ and
4096 × 14336 × 4096, timed head to head per shape; ``fp8_matmul_accuracy``, the error of
each against the float32 data's product, activations with outlier tokens or channels.
The formats figure is counted from the formats' definitions, not measured.
"""

from typing import Literal

from figures.dot import DATASHEET_PEAK
from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, ACC = "fp8_matmul", "fp8_matmul_accuracy"
NOT_MEASURED = "not measured"
SHAPES = {4096: (4096, 4096, 4096), 8192: (8192, 8192, 8192), 14336: (4096, 14336, 4096)}

Impl = Literal["triton", "scaled_mm", "cublas_bf16"]
Scaling = Literal["tensor", "row", "block", "none"]
Shape = Literal[4096, 8192, 14336]  # 14336: the LLM projection M 4096 x N 14336 x K 4096
Pattern = Literal["tokens", "channels"]
Outlier = Literal[0, 10, 100, 1000, 10000, 100000]


# ---- the formats (counted) --------------------------------------------------------------


def fp8_values(exp_bits: int, man_bits: int, top: float) -> list[float]:
    """Every positive finite value of an FP8 format with ``exp_bits`` exponent and
    ``man_bits`` mantissa bits (bias 2**(exp_bits-1) - 1), up to ``top``: subnormals
    m 2**(1-bias-man_bits), then normals (1 + m/2**man_bits) 2**(e-bias)."""
    bias = 2 ** (exp_bits - 1) - 1
    step = 2**man_bits
    values = [m / step * 2.0 ** (1 - bias) for m in range(1, step)]
    for e in range(1, 2**exp_bits):
        for m in range(step):
            v = (1 + m / step) * 2.0 ** (e - bias)
            if v <= top:
                values.append(v)
    return values


FORMATS = {  # name: (exponent bits, mantissa bits, largest finite value)
    "e4m3": (4, 3, 448.0),
    "e5m2": (5, 2, 57344.0),
}


def format_values(name: str) -> list[float]:
    return fp8_values(*FORMATS[name])


def largest(docs: Docs, format: Literal["e4m3", "e5m2"]) -> float:
    """The format's largest finite value."""
    return FORMATS[format][2]


def count_values(docs: Docs, format: Literal["e4m3", "e5m2"]) -> int:
    """How many positive finite values the format has."""
    return len(format_values(format))


def binades(docs: Docs, format: Literal["e4m3", "e5m2"]) -> float:
    """Powers of two from the smallest positive value to the largest (log2 of their ratio)."""
    import math

    v = format_values(format)
    return math.log2(v[-1] / v[0])


def fig_formats(docs: Docs) -> dict:
    """For every positive value of e4m3 and e5m2, log scale, the gap to the next value as a fraction
    of the value: a sawtooth that repeats in every power of two of the normal range (6.7 to 12.5%
    for e4m3, 13 to 25% for e5m2), rising among the subnormals at the bottom; bf16's largest gap,
    0.8%, is the dashed line."""
    traces = []
    for i, name in enumerate(FORMATS):
        v = format_values(name)
        gaps = [(b - a) / a for a, b in zip(v, v[1:], strict=False)]
        hover = name + ": %{x:.4g}<br>next value %{y:.1%} further"
        traces.append(
            render.line(
                v[:-1], gaps, name, f"series-{i}", mode="markers", hover=hover, marker={"size": 4}
            )  # fmt: skip
        )
    traces.append(render.hline(2**-7, 2**-16, 57344.0, "bf16 (at most 2⁻⁷ = 0.8%)", "ceiling"))
    return render.plot(
        traces,
        xaxis=render.axis("value (log scale)", log=True, exponentformat="power"),
        yaxis=render.axis("gap to the next value, relative", log=True, tickformat=".1%"),
    )


# ---- speed ------------------------------------------------------------------------------


def row(docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, shape: Shape) -> dict | None:
    """The timed row of ``impl`` with ``scaling`` ("none" for bf16) and fast_accum ``fast``
    (None where the impl has none: block scales, bf16) at ``shape``, or None."""
    m, n, k = SHAPES[shape]
    match = {"impl": impl, "m": m, "n": n, "k": k}
    if scaling != "none":
        match["scaling"] = scaling
    found = [
        r
        for r in (render.rows(docs, BENCH, **match) if BENCH in docs else [])
        if "time_s" in r and (fast is None or r.get("fast_accum") == fast)
    ]
    return found[0] if found else None


def tflops(
    docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, shape: Shape
) -> float | None:
    """FLOP/s of one implementation at one shape (median)."""
    r = row(docs, impl, scaling, fast, shape)
    return None if r is None else render.flop_rate(r)


def of_scaled_mm(docs: Docs, scaling: Scaling, fast: bool | None, shape: Shape) -> float | None:
    """Our speed as a fraction of torch._scaled_mm's, same scaling and accumulation: the
    median of the per-round ratio of their times (scaled_mm's over ours)."""
    ours, peer = (
        row(docs, "triton", scaling, fast, shape),
        row(docs, "scaled_mm", scaling, fast, shape),
    )
    if ours is None or peer is None:
        return None
    return render.speedup(ours["time_s"], peer["time_s"])[0]


def of_scaled_mm_span(docs: Docs, scaling: Scaling, fast: bool | None, shape: Shape) -> str | None:
    """The same ratio's 20th-80th percentile over rounds, as "0.95–0.98"."""
    ours, peer = (
        row(docs, "triton", scaling, fast, shape),
        row(docs, "scaled_mm", scaling, fast, shape),
    )
    if ours is None or peer is None:
        return None
    _, lo, hi = render.speedup(ours["time_s"], peer["time_s"])
    return f"{lo:.2f}–{hi:.2f}"


def over_bf16(
    docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, shape: Shape
) -> float | None:
    """An FP8 implementation's FLOP/s over cuBLAS bf16's at the same shape."""
    r, b = row(docs, impl, scaling, fast, shape), row(docs, "cublas_bf16", "none", None, shape)
    return None if r is None or b is None else render.flop_rate(r) / render.flop_rate(b)


def promoted_speed(docs: Docs, impl: Impl, scaling: Scaling, shape: Shape) -> float | None:
    """FLOP/s with the sum promoted every K step over FLOP/s with the fast sum."""
    slow, fast = row(docs, impl, scaling, False, shape), row(docs, impl, scaling, True, shape)
    return None if slow is None or fast is None else render.flop_rate(slow) / render.flop_rate(fast)


def of_peak(
    docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, shape: Shape
) -> float | None:
    """FLOP/s over NVIDIA's datasheet dense FP8 peak for this GPU (H100/H200 SXM)."""
    r = row(docs, impl, scaling, fast, shape)
    gpu = render.provenance(docs)["gpu"] if r else ""
    peak = next((p["fp8"] for name, p in DATASHEET_PEAK.items() if name in gpu), None)
    return None if r is None or peak is None else render.flop_rate(r) / peak


SPEED_BARS = (  # (label, impl, scaling, fast_accum, colour role)
    ("Triton, per-tensor, fast", "triton", "tensor", True, "triton"),
    ("_scaled_mm, per-tensor, fast", "scaled_mm", "tensor", True, "torch"),
    ("Triton, per-row, fast", "triton", "row", True, "triton"),
    ("_scaled_mm, per-row, fast", "scaled_mm", "row", True, "torch"),
    ("Triton, per-tensor, promoted", "triton", "tensor", False, "triton"),
    ("_scaled_mm, per-tensor, promoted", "scaled_mm", "tensor", False, "torch"),
    ("Triton, per-row, promoted", "triton", "row", False, "triton"),
    ("_scaled_mm, per-row, promoted", "scaled_mm", "row", False, "torch"),
    ("Triton, 128-blocks", "triton", "block", None, "triton"),
    ("_scaled_mm, 128-blocks", "scaled_mm", "block", None, "torch"),
    ("cuBLAS bf16", "cublas_bf16", "none", None, "compile"),
)
SHAPE_TITLES = {4096: "4096³", 8192: "8192³", 14336: "LLM shape"}


def fig_speed(docs: Docs) -> dict:
    """Horizontal bars, one panel per shape (4096 cubed, 8192 cubed, and the LLM shape M 4096 by N
    14336 by K 4096): TFLOP/s of the Triton FP8 kernel and torch._scaled_mm for per-tensor and
    per-row scales with fast and promoted accumulation, the Triton kernel with 128-block scales
    (and torch._scaled_mm's where it ran), and cuBLAS bf16 on the same data; error bars span the
    20th to 80th percentile."""
    panes = []
    for shape, title in SHAPE_TITLES.items():
        labels, points, roles = [], [], []
        for label, impl, scaling, fast, role in SPEED_BARS:
            r = row(docs, impl, scaling, fast, shape)
            if r is not None:
                labels.append(label)
                points.append(render.rate(r["flops"], r["time_s"], 1e12))
                roles.append(role)
        if labels:
            bars = render.hbar(
                labels, points, roles, name=title, hover="%{x:.0f} TFLOP/s", showlegend=False
            )
            panes.append((title, [bars]))
    return render.panels(
        panes,
        xaxis=render.axis("TFLOP/s", rangemode="tozero"),
        yaxis=render.label_axis(),
        columns=1,
    )


# ---- accuracy ---------------------------------------------------------------------------


def acc_row(
    docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, pattern: Pattern, outlier: Outlier
) -> dict | None:
    if ACC not in docs:
        return None
    match = {"impl": impl, "pattern": pattern}
    if scaling != "none":
        match["scaling"] = scaling
    found = [
        r
        for r in render.rows(docs, ACC, **match)
        if r["outlier"] == outlier and (fast is None or r.get("fast_accum") == fast)
    ]
    return found[0] if found else None


def error(
    docs: Docs, impl: Impl, scaling: Scaling, fast: bool | None, pattern: Pattern, outlier: Outlier
) -> float | None:
    """Median over the rows of C of the row's relative error against the float32 data's
    exact product."""
    r = acc_row(docs, impl, scaling, fast, pattern, outlier)
    return None if r is None else r["median_rel_error"]


ACC_LINES = (  # (label, impl, scaling, fast, role, dash)
    ("FP8 per-tensor", "triton", "tensor", False, "series-0", None),
    ("FP8 per-row", "triton", "row", False, "series-1", None),
    ("FP8 128-blocks", "triton", "block", None, "series-2", None),
    ("bf16", "cublas_bf16", "none", None, "series-3", "dash"),
)
PATTERN_TITLES = {
    "tokens": "outlier tokens",
    "channels": "outlier channels",
}


def fig_accuracy(docs: Docs) -> dict:
    """Two panels, outlier tokens and outlier channels: the median relative error of a row of C
    against the exact product of the float32 data, for FP8 with per-tensor, per-row and 128-block
    scales and for bf16, as the outliers grow from 10 to 100,000 times the other values, log
    scales."""
    panes = []
    for pattern, title in PATTERN_TITLES.items():
        traces = []
        for label, impl, scaling, fast, role, dash in ACC_LINES:
            pts = [
                r
                for o in (10, 100, 1000, 10000, 100000)
                if (r := acc_row(docs, impl, scaling, fast, pattern, o))
            ]
            if not pts:
                continue
            hover = "outlier ×%{x:,}<br>median row error %{y:.2%}"
            traces.append(
                render.line(
                    [r["outlier"] for r in pts],
                    [r["median_rel_error"] for r in pts],
                    label,
                    role,
                    dash=dash,
                    hover=hover,
                )  # fmt: skip
            )
        panes.append((title, traces))
    return render.panels(
        panes,
        xaxis=render.axis(
            "outlier size / std", log=True, ticks=[10, 100, 1000, 10000, 100000]
        ),  # fmt: skip
        yaxis=render.axis("median row error", log=True, tickformat=".1%"),
        columns=2,
    )


VALUES = {
    "fp8_matmul.largest": Value(largest, render.count),
    "fp8_matmul.count": Value(count_values, render.count),
    "fp8_matmul.binades": Value(binades, lambda v: f"{v:.0f}"),
    "fp8_matmul.tflops": Value(tflops, render.tflops, missing=NOT_MEASURED),
    "fp8_matmul.of_scaled_mm": Value(of_scaled_mm, render.percent1, missing=NOT_MEASURED),
    "fp8_matmul.of_scaled_mm_span": Value(of_scaled_mm_span, missing=NOT_MEASURED),
    "fp8_matmul.over_bf16": Value(over_bf16, render.ratio, missing=NOT_MEASURED),
    "fp8_matmul.of_peak": Value(of_peak, render.percent, missing=NOT_MEASURED),
    "fp8_matmul.promoted_speed": Value(promoted_speed, render.percent, missing=NOT_MEASURED),
    "fp8_matmul.error": Value(error, render.percent1, missing=NOT_MEASURED),
}

FIGURES = {
    "fp8-matmul-formats": Figure(
        "FP8 formats: how far apart neighbouring values are",
        (ACC,),
        fig_formats,
        counted="the values of each format from its bit layout (sign, exponent, mantissa)",
    ),
    "fp8-matmul-speed": Figure(
        "FP8 matmul: TFLOP/s of the Triton kernel, torch._scaled_mm and bf16 cuBLAS",
        (BENCH,),
        fig_speed,
    ),
    "fp8-matmul-accuracy": Figure(
        "FP8 matmul: error against outlier size, by scaling", (ACC,), fig_accuracy
    ),
}
