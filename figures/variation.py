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


def _spread(rs: list[dict], n: int) -> float | None:
    """The widest (max - min) / median of one point's per-run bandwidths on one machine."""
    widest = None
    for machine in _machines(rs):
        for point in sorted({r["point"] for r in rs if r["n"] == n}):
            bw = [
                render.bandwidth(r) for r in rs if r["machine"] == machine and r["point"] == point
            ]
            if len(bw) >= 2:
                w = (max(bw) - min(bw)) / render.median(bw)
                widest = w if widest is None else max(widest, w)
    return widest


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
    return None if rs is None else _spread(rs, LARGE if size == "large" else SMALL)


def between_machines(docs: Docs) -> float | None:
    """At 2^26 elements, the largest gap between two machines' median bandwidths, a fraction."""
    rs = _rows(docs)
    if rs is None or len(_machines(rs)) < 2:
        return None
    widest = 0.0
    for point in sorted({r["point"] for r in rs if r["n"] == LARGE}):
        meds = [
            render.median(
                render.bandwidth(r) for r in rs if r["machine"] == m and r["point"] == point
            )
            for m in _machines(rs)
            if any(r["machine"] == m and r["point"] == point for r in rs)
        ]
        if len(meds) >= 2:
            widest = max(widest, max(meds) / min(meds) - 1)
    return widest


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
    return render.plot(
        traces,
        xaxis=render.axis("point (implementation, fp32 elements)", type="category"),
        yaxis=render.axis("bandwidth, % of the point's median over all runs"),
        legend={"orientation": "h", "y": -0.25},
    )


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
