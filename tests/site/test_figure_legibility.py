"""Every figure can be read: on every page, light and dark, desktop and phone width, and
for every device's data, each visible text of a figure is inside the figure (not clipped),
has enough contrast against what is drawn behind it, and does not sit on the data or on
another text.

Classes of problems this catches (issue 7, "Figures"): a bar label drawn beside its bar in
the colour meant for inside it (invisible on the page background); an annotation placed on
a curve; axis titles and labels cut off at a 390 px wide screen.

What is checked, per visible SVG text of a figure (axis titles, tick labels, legend,
annotations, bar labels):
- its box lies inside the figure's SVG and the figure's box, and inside any clip region
  Plotly gives it (a label clipped by the plot area is not readable);
- contrast of its colour against each background it covers — the page's background and
  any bar under it — is at least ``MIN_CONTRAST`` (WCAG's 3:1 for graphics text);
- it is drawn at ``MIN_FONT_PX`` or larger, and not scaled below ``MIN_SCALE`` of its own
  font size (Plotly shrinks a bar label that does not fit its bar);
- a text drawn inside the plot area (annotation, bar label) crosses no data mark: line
  segment, marker or error bar;
- no two texts overlap.

The figures are read in the browser by tests/site/visits.py (``COLLECT``: each text's box,
colour and clip region, the bars and the data marks, in page pixels), during the one visit
of each page; ``problems`` below judges what it read.
"""

from __future__ import annotations

import pytest

from tests.site.support import contrast, figure_pages, over, rgba
from tests.site.visits import DESKTOP, PHONE, per_page

MIN_CONTRAST = 3.0  # WCAG 2.x non-text / large-text threshold: the least for figure text
WIDTHS = {"desktop": DESKTOP, "phone": PHONE}
SLACK_PX = 1.0  # sub-pixel rounding of boxes
# Nothing smaller than the smallest text Plotly draws on its own: the minor digits of a
# log axis, 0.75 x the figures' 13 px font. (Plotly shrinks a bar label that does not fit
# its bar; shrunk much further it cannot be read.)
MIN_FONT_PX = 9.5
MIN_SCALE = 0.9  # nor a label scaled down to squeeze into a bar

# ---- colour ------------------------------------------------------------------------------


def test_contrast_matches_wcag_examples():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((119, 119, 119), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert contrast((255, 255, 255), (255, 255, 255)) == pytest.approx(1.0)
    assert rgba("rgba(1, 2, 3, 0.5)") == (1, 2, 3, 0.5)
    assert rgba("#ff8000")[:3] == (255, 128, 0)


# ---- geometry ----------------------------------------------------------------------------


def area(b: dict) -> float:
    return max(0.0, b["x1"] - b["x0"]) * max(0.0, b["y1"] - b["y0"])


def intersection(a: dict, b: dict) -> dict:
    return {
        "x0": max(a["x0"], b["x0"]),
        "y0": max(a["y0"], b["y0"]),
        "x1": min(a["x1"], b["x1"]),
        "y1": min(a["y1"], b["y1"]),
    }


def inside(inner: dict, outer: dict, slack: float = SLACK_PX) -> bool:
    return (
        inner["x0"] >= outer["x0"] - slack
        and inner["y0"] >= outer["y0"] - slack
        and inner["x1"] <= outer["x1"] + slack
        and inner["y1"] <= outer["y1"] + slack
    )


def shrunk(b: dict, by: float) -> dict:
    return {"x0": b["x0"] + by, "y0": b["y0"] + by, "x1": b["x1"] - by, "y1": b["y1"] - by}


def segment_hits_box(seg, b: dict) -> bool:
    """Whether the segment (x0, y0, x1, y1) passes through the box (Liang–Barsky)."""
    x0, y0, x1, y1 = seg
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in (
        (-dx, x0 - b["x0"]),
        (dx, b["x1"] - x0),
        (-dy, y0 - b["y0"]),
        (dy, b["y1"] - y0),
    ):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def quads_overlap(a: list, b: list, slack: float = SLACK_PX) -> bool:
    """Whether two convex quadrilaterals (corner lists) overlap by more than ``slack``
    along every separating axis (the separating axis theorem)."""
    for quad in (a, b):
        for i in range(4):
            (x0, y0), (x1, y1) = quad[i], quad[(i + 1) % 4]
            nx, ny = y0 - y1, x1 - x0
            norm = (nx * nx + ny * ny) ** 0.5
            if norm == 0:
                continue
            pa = [(x * nx + y * ny) / norm for x, y in a]
            pb = [(x * nx + y * ny) / norm for x, y in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= slack:
                return False
    return True


def test_geometry_helpers():
    b = {"x0": 0, "y0": 0, "x1": 10, "y1": 10}
    assert segment_hits_box((-5, 5, 15, 5), b)
    assert not segment_hits_box((-5, 15, 15, 15), b)
    assert segment_hits_box((-5, -5, 15, 15), b)
    assert not segment_hits_box((11, 0, 20, 10), b)
    assert inside({"x0": 1, "y0": 1, "x1": 9, "y1": 9}, b)
    assert not inside({"x0": 1, "y0": 1, "x1": 19, "y1": 9}, b)
    square = [(0, 0), (10, 0), (10, 10), (0, 10)]
    assert quads_overlap(square, [(5, 5), (15, 5), (15, 15), (5, 15)])
    assert not quads_overlap(square, [(10.5, 0), (20, 0), (20, 10), (10.5, 10)])
    # Two tilted labels whose upright boxes overlap but which do not touch.
    tilt = [(0, 10), (10, 0), (12, 2), (2, 12)]
    apart = [(x + 5, y + 5) for x, y in tilt]
    assert not quads_overlap(tilt, apart)
    assert quads_overlap(tilt, [(x + 1, y + 1) for x, y in tilt])


# ---- the checks --------------------------------------------------------------------------


def problems(fig: dict, scheme: str) -> list[str]:
    """Everything unreadable about one drawn figure (the output of COLLECT)."""
    out = []
    where = f"{fig['figure']} [{fig['device']}, {scheme}]"
    page = rgba(fig["page"])
    for t in fig["texts"]:
        label = f"{where}: {t['kind']} {t['text']!r}"
        b = t["box"]
        # Not clipped: inside the SVG, the figure, the page's width and any clip region.
        for name, outer in (
            ("the figure's SVG", fig["svgBox"]),
            ("the figure", fig["figBox"]),
            ("the screen", {"x0": 0, "y0": b["y0"], "x1": fig["viewport"], "y1": b["y1"]}),
            *(("its clip region", c) for c in t["clips"]),
        ):
            if not inside(b, outer):
                out.append(f"{label} is clipped: {_fmt(b)} not inside {name} {_fmt(outer)}")
                break
        if t["px"] < MIN_FONT_PX:
            out.append(f"{label} is drawn at {t['px']:.1f} px (least {MIN_FONT_PX})")
        elif t["scale"] < MIN_SCALE:
            out.append(f"{label} is shrunk to {t['scale']:.0%} of its font size to fit")
        # Contrast against each background it covers: bars, and the page where no bar is.
        colour = rgba(t["fill"])
        covered = 0.0
        backgrounds = []
        for bar in fig["bars"]:
            common = area(intersection(b, bar["box"]))
            if common > 0.05 * area(b):
                covered += common
                fill = rgba(bar["fill"])
                backgrounds.append(("a bar", over(fill, fill[3] * bar["alpha"], page)))
        if covered < 0.95 * area(b):
            backgrounds.append(("the page", page[:3]))
        for what, bg in backgrounds:
            seen = over(colour, colour[3] * t["alpha"], bg)
            c = contrast(seen, bg)
            if c < MIN_CONTRAST:
                out.append(
                    f"{label}: contrast {c:.2f} against {what} (need {MIN_CONTRAST}); "
                    f"text {t['fill']} on {tuple(round(v) for v in bg)}"
                )
        # Text in the plot area stays off the data.
        if t["inPlot"]:
            core = shrunk(b, SLACK_PX)
            if any(segment_hits_box(s, core) for s in fig["segments"]):
                out.append(f"{label} lies on a plotted line")
            elif any(area(intersection(core, m)) > 0 for m in fig["marks"]):
                out.append(f"{label} lies on a marker or error bar")
            elif t["kind"] == "annotation" and any(
                area(intersection(core, bar["box"])) > 0 for bar in fig["bars"]
            ):
                out.append(f"{label} lies on a bar")
    texts = fig["texts"]
    for i, a in enumerate(texts):
        for c in texts[i + 1 :]:
            if quads_overlap(a["quad"], c["quad"]):
                out.append(f"{where}: {a['kind']} {a['text']!r} overlaps {c['kind']} {c['text']!r}")
    return out


def _fmt(b: dict) -> str:
    return "({:.0f},{:.0f})-({:.0f},{:.0f})".format(b["x0"], b["y0"], b["x1"], b["y1"])


@pytest.mark.parametrize("width", list(WIDTHS), ids=list(WIDTHS))
@pytest.mark.parametrize("md", per_page(figure_pages()))
def test_every_figure_is_legible(visit, md, width):
    """Light first (the figures' first draw), then toggled to dark (their redraw), then
    back: each figure read with every device's data in each state; at phone width after
    the window is narrowed to it (tests/site/visits.py: one visit per page)."""
    drawn = visit(md)[f"legible-{width}"]
    found = [problem for fig, scheme in drawn for problem in problems(fig, scheme)]
    assert drawn, f"{md} at {WIDTHS[width]} px: no figure was read"
    assert not found, f"{md} at {WIDTHS[width]} px:\n" + "\n".join(sorted(set(found)))
