"""Figures and values of the launch family: lesson 03's launch overhead and crossover.

Data: ``launch_overhead`` (scripts/bench/benchmarks/launch.py), and the vector-add size sweep
for the crossover between launch cost and device time.

Each launch_overhead row holds, per kernel, ``host_s`` (wall time in a loop of calls);
runs from issue 7 on add ``enqueue_s`` (the host's time inside the call alone) and
``gpu_s`` (the GPU's time, from CUDA events), and later runs ``enqueue_first_s`` (the
first call after the host waited for the GPU, alone: what a short batch of calls pays on
top of the rest). Older data lacks them: the values that read them say "not measured"
and the bar chart draws only what exists.
"""

import math
from typing import Literal

from figures.vector_add import SMALL_N, by_size, small_median
from scripts.book import render
from scripts.book.render import Docs, Figure, Value

# The three measurements of a row, in the order the bar chart groups them.
MEASURES = (
    ("host_s", "wall time per kernel, back-to-back calls", "series-0"),
    ("enqueue_s", "host: inside the call (GPU kept busy)", "series-1"),
    ("gpu_s", "GPU: isolated call, CUDA events around it", "series-2"),
)


Call = Literal["triton", "wrapper", "torch_add", "torch", "graph"]
CLOCKS = {
    "wall": "host_s",
    "enqueue": "enqueue_s",
    "enqueue_first": "enqueue_first_s",
    "gpu": "gpu_s",
}
Clock = Literal["wall", "enqueue", "enqueue_first", "gpu"]


def row(docs: Docs, key: str) -> dict:
    return render.one(docs, "launch_overhead", key=key)


def small_host(docs: Docs, impl: str) -> float:
    """Host time per call of ``impl``'s vector add at small sizes (the size sweep's median
    over n <= 65,536), seconds."""
    return small_median(docs, impl, "host_s")


# ---- values -----------------------------------------------------------------------------


def time(docs: Docs, call: Call, clock: Clock = "wall") -> float | None:
    """Seconds per kernel of one launch_overhead row (median): ``call`` is an empty Triton
    kernel (triton), the validated vector_add wrapper on 128 floats (wrapper),
    torch.add(out=) on 128 floats (torch_add), a tiny torch op t.add_(1) (torch), or a
    CUDA graph replay of a hundred empty kernels, per kernel (graph). ``clock``: wall time
    in a loop of calls (for graph: the GPU's throughput), the host's time inside the call
    alone with the GPU kept busy (enqueue), the first such call after the host waited for
    the GPU, timed alone (enqueue_first), or the GPU's, from CUDA events (gpu). None
    where this run did not measure that clock."""
    s = row(docs, call).get(CLOCKS[clock])
    return s["p50"] if s else None


def ratio_of(docs: Docs, of: Call, to: Call) -> float:
    """Wall time per call of ``of`` over that of ``to``, same run: the median of the
    per-round ratio where the two were timed in turn (head to head), else the ratio of the
    medians."""
    return render.times_over(row(docs, of)["host_s"], row(docs, to)["host_s"])


def clock_compare(docs: Docs, call: Call, of: Clock, to: Clock) -> str | None:
    """One call's time on clock ``of`` against clock ``to`` (same row, same run), in words by
    the tie rule: "faster than", "as fast as" or "slower than", e.g. the first call after a
    wait (enqueue_first) against the calls that follow (enqueue). None where the run did not
    measure both."""
    r = row(docs, call)
    return render.tie_words(docs, "launch_overhead", r.get(CLOCKS[of]), r.get(CLOCKS[to]))


def small_torch_add_speedup(docs: Docs) -> float:
    """At small sizes (n <= 65,536, the size sweep's medians): the Triton wrapper's host
    time per call over torch.add's, i.e. how many times faster torch.add's host path is."""
    return small_host(docs, "triton") / small_host(docs, "torch")


def log_crossing(xs: list[float], ys: list[float], level: float) -> float:
    """Where the polyline (xs, ys), drawn straight between points on log-log axes, last
    rises through ``level`` (so that one noisy point above the level, before the line
    falls back under it, does not set the crossing): the x of the intersection,
    interpolated in log space."""
    ly = math.log10(level)
    pairs = list(zip(xs, ys, strict=True))
    rises = [
        (x0, y0, x1, y1)
        for (x0, y0), (x1, y1) in zip(pairs, pairs[1:], strict=False)
        if y0 <= level < y1
    ]
    if not rises:
        raise render.RenderError("the line never rises through that level")
    x0, y0, x1, y1 = rises[-1]
    t = (ly - math.log10(y0)) / (math.log10(y1) - math.log10(y0))
    return 10 ** (math.log10(x0) + t * (math.log10(x1) - math.log10(x0)))


def crossover_n(docs: Docs, against: Literal["launch", "wrapper"] = "launch") -> float:
    """Elements at which the Triton add's device-time line rises through the host time of
    a call: the plotted empty-launch line (against=launch), or the wrapper's own host-time
    line, size by size (against=wrapper: where a loop of wrapper calls stops being paced
    by the host). Log-log interpolation between the measured sizes."""
    rs = by_size(docs, "triton")
    ns = [r["n"] for r in rs]
    if against == "launch":
        return log_crossing(ns, [r["time_s"]["p50"] for r in rs], time(docs, "triton"))
    # device / host rises through 1
    return log_crossing(ns, [r["time_s"]["p50"] / r["host_s"]["p50"] for r in rs], 1.0)


GAP_CANDIDATES = 4  # the gap is marked on one of the smallest sizes: near the left edge


def gap_point(docs: Docs) -> dict:
    """The point of the Triton host-time line where the crossover figure marks the
    wrapper's gap above an empty launch: of the smallest sizes, the one whose host time
    is nearest the median over all small sizes (n <= SMALL_N), so one noisy point does
    not set the gap."""
    median = small_host(docs, "triton")
    first = [r for r in by_size(docs, "triton") if r["n"] <= SMALL_N][:GAP_CANDIDATES]
    return min(first, key=lambda r: (abs(r["host_s"]["p50"] - median), r["n"]))


def wrapper_gap(docs: Docs) -> float:
    """The gap the crossover figure marks: validated wrapper's host time per call (median
    over small sizes) minus an empty launch's, seconds. (Two runs: the size sweep's and
    launch_overhead's.)"""
    return gap_point(docs)["host_s"]["p50"] - time(docs, "triton")


# ---- values added for lesson 03: timing words and the host's own speed ------------------

GPU_BOUND = 2  # a size whose loop time per call is at least twice the small-size one


def isolated_offset(docs: Docs, impl: Literal["triton", "torch"] = "triton") -> float:
    """How much longer one call timed alone by CUDA events (do_bench: the L2 flushed, the
    call bracketed by events) takes than a call in a back-to-back loop, at the sizes where
    the loop is paced by the GPU: the median difference, seconds. What the GPU spends
    starting a kernel it could not overlap with the one before."""
    floor = small_host(docs, impl)  # GPU-paced: host time at least GPU_BOUND times floor
    rs = [r for r in by_size(docs, impl) if r["host_s"]["p50"] >= GPU_BOUND * floor]
    return sorted(r["time_s"]["p50"] - r["host_s"]["p50"] for r in rs)[len(rs) // 2]


def launch_bound(docs: Docs) -> list[dict]:
    """The fp32 Triton rows where the wrapper's loop is paced by the host (host time per
    call at least twice the device time) and an empty launch was timed beside them."""
    return [
        r
        for r in by_size(docs, "triton")
        if "empty_host_s" in r and r["host_s"]["p50"] >= 2 * r["time_s"]["p50"]
    ]


def checks_cost(docs: Docs) -> float | None:
    """What the validated wrapper adds to a bare launch, measured at the same moment: the
    median over the host-paced sizes of its host time per call minus that of an empty
    launch timed right after it (empty_host_s), seconds. None on runs without it."""
    rs = launch_bound(docs)
    if not rs:
        return None
    diffs = sorted(r["host_s"]["p50"] - r["empty_host_s"]["p50"] for r in rs)
    return diffs[len(diffs) // 2]


def jump_share(docs: Docs) -> float | None:
    """How far the wrapper's host time per call, across the host-paced sizes, moves apart
    from the empty launch timed beside each size: the range of wrapper-minus-empty over
    the range of the wrapper's time (0: the two move together; 1: the empty launch stays
    level). None on runs without empty_host_s."""
    rs = launch_bound(docs)
    if len(rs) < 2:
        return None
    wrapper = [r["host_s"]["p50"] for r in rs]
    diff = [r["host_s"]["p50"] - r["empty_host_s"]["p50"] for r in rs]
    return (max(diff) - min(diff)) / (max(wrapper) - min(wrapper))


def millions(v: float) -> str:
    """An element count to two significant figures, in words: '1.6 million'."""
    if v >= 1e6:
        return f"{v / 1e6:.1f} million"
    if v >= 1e3:
        return f"{v / 1e3:.0f} thousand"
    return f"{v:.0f}"


VALUES = {
    "launch.time": Value(time, render.micros(1), missing="not measured"),
    "launch.ratio": Value(ratio_of, render.ratio),
    "launch.clock_compare": Value(clock_compare, missing="not measured"),
    "launch.small_torch_add_speedup": Value(small_torch_add_speedup, render.ratio),
    "launch.crossover_n": Value(crossover_n, millions),
    "launch.wrapper_gap": Value(wrapper_gap, render.micros(1)),
    # added for lesson 03
    "launch.isolated_offset": Value(isolated_offset, render.micros(1)),
    "launch.checks_cost": Value(checks_cost, render.micros(1), missing="not measured"),
    "launch.jump_share": Value(jump_share, render.percent, missing="not measured"),
}


# ---- figures ----------------------------------------------------------------------------


def short_us(seconds: float) -> str:
    """A bar label: µs with two decimals, or ns below a tenth of a µs."""
    us = seconds * 1e6
    return f"{us * 1e3:.0f} ns" if us < 0.1 else f"{us:.2f} µs"


def fig_overhead(docs: Docs) -> dict:
    """Bar chart, per kernel, for an empty Triton kernel, the vector_add wrapper, two torch ops and
    a CUDA graph replay: wall time per call in a loop of back-to-back calls and, where measured,
    the host's time inside the call alone and an isolated call's latency from CUDA events; error
    bars span the 20th to 80th percentile."""
    rs = render.rows(docs, "launch_overhead")
    labels = [r["what"].replace(" (", "<br>(") for r in rs]  # two lines: fits a phone
    traces, missing = render.clock_bars(rs, labels, MEASURES, short_us, "%{x:.3f} µs per kernel")
    title = "µs per kernel"
    if missing:
        title += f"<br>({' and '.join(missing)} time: not yet measured on this GPU)"
    height = 420 + 90 * (len(traces) - 1)
    return render.bar_chart(traces, title, height=height, showlegend=len(traces) > 1)


# How many decades of n a label of the crossover figure covers on a phone (its plot area
# about 240 px wide for six decades: 40 px a decade), and how many decades of time the
# gap's three lines take there (about 100 px a decade).
LABEL_DECADES = {"gap": 1.6, "cross": 3.4}
GAP_LABEL_DECADES = 0.75


def fig_crossover(docs: Docs) -> dict:
    """Log-log plot of time per vector add against element count: host time per call and device
    time, with the empty-launch cost as a horizontal line, an arrow where the Triton device time
    crosses it, and the gap from an empty launch to the wrapper; where measured, an empty
    launch's host time beside each size as a dash-dot line."""
    launch = time(docs, "triton")
    traces = []
    for impl, label in (("triton", "Triton"), ("torch", "torch.add")):
        rs = by_size(docs, impl)
        for field, what, dash, per in (
            ("host_s", "host time per call", None, "per call"),
            ("time_s", "device time", "dot", "on the GPU"),
        ):
            points = render.us_points(rs, field)
            hover = f"n = %{{x:,}}<br>%{{y:.1f}} µs {per}"
            marked = {"rows": rs} if field == "time_s" else {}  # host-bound device times
            xs, name = [r["n"] for r in rs], f"{label}: {what}"
            traces.append(render.line(xs, points, name, impl, dash=dash, hover=hover, **marked))
    ns = [r["n"] for r in by_size(docs, "triton")]
    name = f"empty Triton launch ({launch * 1e6:.1f} µs)"
    traces.append(render.hline(launch * 1e6, min(ns), max(ns), name))
    beside = [r for r in by_size(docs, "triton") if "empty_host_s" in r]
    if beside:  # newer runs: the host's speed at each size, an empty launch timed beside it
        xs = [r["n"] for r in beside]
        points = [render.duration(r["empty_host_s"], 1e-6) for r in beside]
        name = "empty launch, host time beside each size"
        hover = "n = %{x:,}<br>%{y:.1f} µs per empty launch"
        traces.append(render.line(xs, points, name, "marker", dash="dashdot", hover=hover))
    # Both marks sit on the plotted lines: the crossing is computed from the dotted
    # device-time line and the dashed launch line; the gap spans from the launch line to a
    # point of the Triton host-time line. The x axis spans the data and nothing else:
    # Plotly would widen an autoranged axis to hold a label, on a phone down to n = 1
    # (issue 20). So each label is placed where it fits at any width, above every marker
    # and error bar under it, whatever the run measured (LABEL_DECADES: how many decades a
    # label covers on a phone's plot, the narrowest).
    cross = crossover_n(docs)
    gap = gap_point(docs)
    top = gap["host_s"]["p50"]
    drawn = [r for impl in ("triton", "torch") for r in by_size(docs, impl)]
    ns = sorted({r["n"] for r in drawn})
    lx, ly = math.log10, lambda s: math.log10(s * 1e6)

    def highest(lo: float, hi: float) -> float:
        """The highest time drawn (error bars included) for n in [10^lo, 10^hi]."""
        inside = [r for r in drawn if lo <= lx(r["n"]) <= hi]
        tops = [r[k]["p80"] for r in inside for k in ("host_s", "time_s", "empty_host_s") if k in r]
        return max([launch] + tops)

    # The gap's label: right of its arrow, narrow (three short lines) so that it ends
    # before the crossing's arrow on a phone.
    gap_at = ly(highest(lx(gap["n"]) - 0.2, lx(gap["n"]) + LABEL_DECADES["gap"]) * 1.25)
    # The crossing's label: above the crossing, on the side (centred, left or right of its
    # arrow) where the lines under it are lowest, and above the gap's label.
    span = LABEL_DECADES["cross"]
    side = min(
        (("center", 0.5), ("right", 1.0), ("left", 0.0)),
        key=lambda a: highest(lx(cross) - a[1] * span, lx(cross) + (1 - a[1]) * span),
    )
    under = highest(lx(cross) - side[1] * span, lx(cross) + (1 - side[1]) * span)
    cross_at = max(ly(under * 1.6), gap_at + GAP_LABEL_DECADES)
    gap_x, said = lx(gap["n"]), f"{(top - launch) * 1e6:+.1f} µs:<br>wrapper<br>checks"
    cross_said = f"device time passes<br>an empty launch:<br>n ≈ {millions(cross)}"
    annotations = [  # a double-headed arrow from the launch line up to the wrapper's host time
        render.arrow(gap_x, ly(top), gap_x, ly(launch), arrowside="end+start"),
        render.note(gap_x, gap_at, said, xshift=2, xanchor="left", yanchor="bottom", align="left"),
        render.arrow(lx(cross), ly(launch), lx(cross), cross_at, cross_said, xanchor=side[0],
                     yanchor="bottom", align=side[0]),
    ]  # fmt: skip
    pad = (lx(ns[-1]) - lx(ns[0])) * 0.04
    xrange = [lx(ns[0]) - pad, lx(ns[-1]) + pad]
    xaxis = render.axis("elements n (fp32)", log=True, exponentformat="power", range=xrange)
    yaxis = render.axis("time per vector add (µs)", log=True)
    return render.plot(traces, xaxis=xaxis, yaxis=yaxis, annotations=annotations)


FIGURES = {
    "launch-overhead": Figure(
        "What a launch costs: host time against GPU time", ("launch_overhead",), fig_overhead
    ),
    "launch-crossover": Figure(
        "Vector add: time per call against size", ("vector_add", "launch_overhead"), fig_crossover
    ),
}
