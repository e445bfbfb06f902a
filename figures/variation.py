"""Run-to-run variation (figures/data/<device>/variation.json, from scripts/bench/variation.py):
how far apart repeated runs of the same measurement land, on one machine and across
machines of the same kind, for the methodology appendix; "not yet measured" without it.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

LARGE, SMALL = 1 << 26, 1 << 16


def _rows(docs: Docs) -> list[dict] | None:
    """The variation rows, or None."""
    return render.rows(docs, "variation") if "variation" in docs else None


def _machines(rs: list[dict]) -> list[str]:
    """The machines, sorted."""
    return sorted({r["machine"] for r in rs})


def _bandwidths(rs: list[dict], n: int) -> dict[tuple[str, str], list[float]]:
    """Per (machine, point) at ``n`` elements, the bandwidth of each run."""
    found: dict[tuple[str, str], list[float]] = {}
    for r in rs:
        if r["n"] == n:
            found.setdefault((r["machine"], r["point"]), []).append(render.bandwidth(r))
    return found


def runs(docs: Docs) -> int | None:
    """How many runs the variation data holds on this device (over all its machines)."""
    rs = _rows(docs)
    return None if rs is None else len({(r["machine"], r["run"]) for r in rs})


def machines(docs: Docs) -> int | None:
    """How many machines of this kind contributed runs."""
    rs = _rows(docs)
    return None if rs is None else len(_machines(rs))


def spread(docs: Docs, size: Literal["large", "small"]) -> float | None:
    """Widest run-to-run range of bandwidth over the median, at 2^26 or 2^16 elements."""
    rs = _rows(docs)
    if rs is None:
        return None
    found = _bandwidths(rs, LARGE if size == "large" else SMALL).values()
    bws = [bw for bw in found if len(bw) > 1]
    return max(((max(bw) - min(bw)) / render.median(bw) for bw in bws), default=None)


def between_machines(docs: Docs) -> float | None:
    """At 2^26 elements, the largest gap between two machines' median bandwidths, a fraction."""
    rs = _rows(docs)
    if rs is None or len(_machines(rs)) < 2:
        return None
    medians: dict[str, list[float]] = {}
    for (_, point), bw in _bandwidths(rs, LARGE).items():
        medians.setdefault(point, []).append(render.median(bw))
    return max((max(m) / min(m) - 1 for m in medians.values() if len(m) >= 2), default=0.0)


def build(docs: Docs) -> dict:
    """Scatter of per-run bandwidth, as a percentage of each point's median over all runs, for the
    vector add (Triton and torch.add) at 2²⁶ and 2¹⁶ fp32 elements, one colour per machine."""
    rs = render.rows(docs, "variation")
    points = sorted({r["point"] for r in rs}, key=lambda p: (-int(p.split("^")[1]), p))
    centre = {p: render.median(render.bandwidth(r) for r in rs if r["point"] == p) for p in points}
    traces = []
    for i, machine in enumerate(_machines(rs)):
        mine = sorted((r for r in rs if r["machine"] == machine), key=lambda r: r["run"])
        traces.append(
            render.line(
                [render.powers(r["point"]) for r in mine],
                [100 * render.bandwidth(r) / centre[r["point"]] for r in mine],
                f"machine {machine}",
                f"series-{i}",
                mode="markers",
                hover="%{x}: %{y:.2f}% of the median<br>run %{customdata}",
                customdata=[r["run"] for r in mine],
                marker={"size": 8, "opacity": 0.75},
            )
        )
    xaxis = render.axis("point (implementation, fp32 elements)", type="category")
    yaxis = render.axis("bandwidth, % of the point's median over all runs")
    return render.plot(traces, xaxis=xaxis, yaxis=yaxis, legend={"orientation": "h", "y": -0.25})


VARIATION_FIGURE = Figure(
    "Run-to-run variation: each run's bandwidth against the median of all runs",
    ("variation",),
    build,
)
FIGURES = {"variation": VARIATION_FIGURE}
NOT_YET = "not yet measured"
VALUES = {
    "variation.runs": Value(runs, render.whole, missing=NOT_YET),
    "variation.machines": Value(machines, render.whole, missing=NOT_YET),
    "variation.spread": Value(spread, render.percent1, missing=NOT_YET),
    "variation.between_machines": Value(between_machines, render.percent1, missing=NOT_YET),
}
