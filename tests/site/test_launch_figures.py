"""Lesson 03's launch figures, read from the committed data (no GPU, no browser).

- The crossover arrow points at an intersection of two plotted lines: its head lies on
  the dashed empty-launch line and on a segment of the dotted Triton device-time line.
- The gap arrow spans from the empty-launch line to a point of the plotted Triton
  host-time line, and its label states that difference.
- The launch-overhead chart never calls GPU time host time: each of its bars says which
  time it is; data without the newer host-enqueue and GPU fields draws only the loop
  bars and says the rest is not yet measured; data with them draws all three.
"""

from __future__ import annotations

import copy
import itertools
import math

import pytest

from figures import launch
from scripts.book import render

DEVICES = render.load_devices()
WITH_LAUNCH = [s for s, docs in DEVICES.items() if {"launch_overhead", "vector_add"} <= set(docs)]


def trace(fig: dict, name_start: str) -> dict:
    return next(t for t in fig["data"] if t.get("name", "").startswith(name_start))


def on_polyline(x: float, y: float, xs: list, ys: list) -> bool:
    """Whether (x, y), in log10 units, lies on the polyline (xs, ys) drawn on log axes."""
    for x0, y0, x1, y1 in zip(xs, ys, xs[1:], ys[1:], strict=False):
        lx0, lx1, ly0, ly1 = (math.log10(v) for v in (x0, x1, y0, y1))
        if lx0 <= x <= lx1 and lx1 > lx0:
            t = (x - lx0) / (lx1 - lx0)
            if abs(ly0 + t * (ly1 - ly0) - y) < 1e-9:
                return True
    return False


def test_log_crossing_interpolates_in_log_space():
    assert launch.log_crossing([1, 100], [1, 100], 10) == pytest.approx(10)
    assert launch.log_crossing([10, 1000, 10000], [1, 2, 40], 20) == pytest.approx(
        10 ** (3 + math.log10(10) / math.log10(20))
    )
    with pytest.raises(render.RenderError):
        launch.log_crossing([1, 2], [5, 4], 10)


def test_log_crossing_is_the_last_rise_past_a_noisy_point():
    # One point above the level (a noisy timing) before the line falls back: the crossing
    # is where the line rises through the level the last time.
    assert launch.log_crossing([1, 10, 100, 1000], [1, 20, 1, 100], 10) == pytest.approx(10**2.5)


@pytest.mark.parametrize("slug", WITH_LAUNCH)
def test_crossover_arrow_points_at_a_visible_intersection(slug):
    docs = DEVICES[slug]
    fig = launch.fig_crossover(docs)
    device = trace(fig, "Triton: device time")
    empty = trace(fig, "empty Triton launch")
    arrow = next(a for a in fig["layout"]["annotations"] if "passes" in a.get("text", ""))
    assert arrow["showarrow"]
    assert arrow["y"] == pytest.approx(math.log10(empty["y"][0]))  # on the dashed line
    assert empty["x"][0] <= 10 ** arrow["x"] <= empty["x"][1]
    assert on_polyline(arrow["x"], arrow["y"], device["x"], device["y"])  # on the dotted one
    assert launch.crossover_n(docs) == pytest.approx(10 ** arrow["x"])


@pytest.mark.parametrize("slug", WITH_LAUNCH)
def test_gap_arrow_spans_from_the_launch_line_to_the_host_line(slug):
    docs = DEVICES[slug]
    fig = launch.fig_crossover(docs)
    host = trace(fig, "Triton: host time")
    empty = trace(fig, "empty Triton launch")
    arrow = next(a for a in fig["layout"]["annotations"] if a.get("arrowside") == "end+start")
    n = 10 ** arrow["x"]
    i = min(range(len(host["x"])), key=lambda k: abs(host["x"][k] - n))
    assert host["x"][i] == pytest.approx(n)
    assert 10 ** arrow["y"] == pytest.approx(host["y"][i])  # head on the host-time line
    assert 10 ** arrow["ay"] == pytest.approx(empty["y"][0])  # tail on the launch line
    gap_us = host["y"][i] - empty["y"][0]
    label = next(a for a in fig["layout"]["annotations"] if "wrapper" in a.get("text", ""))
    assert label["text"].startswith(f"{gap_us:+.1f} µs")  # signed: "+5.9", "-2.7"
    assert launch.wrapper_gap(docs) * 1e6 == pytest.approx(gap_us)


def with_new_fields(docs: dict) -> dict:
    """A copy of ``docs`` whose launch_overhead rows carry enqueue_s and gpu_s."""
    docs = copy.deepcopy(docs)
    for r in docs["launch_overhead"]["rows"]:
        r["enqueue_s"] = {**r["host_s"], "p50": r["host_s"]["p50"] / 2}
        r["gpu_s"] = {**r["host_s"], "p50": r["host_s"]["p50"] / 3}
    return docs


@pytest.mark.parametrize("slug", WITH_LAUNCH)
def test_overhead_chart_says_which_time_each_bar_is(slug):
    docs = DEVICES[slug]
    measured_all = all("gpu_s" in r and "enqueue_s" in r for r in docs["launch_overhead"]["rows"])
    for d, complete in ((docs, measured_all), (with_new_fields(docs), True)):
        fig = launch.fig_overhead(d)
        names = [t["name"] for t in fig["data"]]
        title = fig["layout"]["xaxis"]["title"]["text"]
        assert not any("host time" in n.lower() for n in names)  # says which, never vaguely
        assert names[0].startswith("wall time")
        if complete:
            assert names[1].startswith("host:") and names[2].startswith("GPU:")
            assert "not yet measured" not in title
        else:
            assert names == [launch.MEASURES[0][1]]
            assert "not yet measured" in title


def without_new_fields(docs: dict) -> dict:
    """A copy of ``docs`` as a run from before issue 7 wrote it: no enqueue_s, no gpu_s."""
    docs = copy.deepcopy(docs)
    for r in docs["launch_overhead"]["rows"]:
        r.pop("enqueue_s", None)
        r.pop("gpu_s", None)
    return docs


def test_values_from_the_new_fields_say_not_measured_on_old_data():
    slug = WITH_LAUNCH[0]
    old = dict(DEVICES, **{slug: without_new_fields(DEVICES[slug])})
    text = render.value_text(slug, "launch.time call=graph clock=gpu as=us2", old)
    assert text == "not measured"
    new = with_new_fields(old[slug])
    assert launch.time(new, "graph", "gpu") == launch.row(new, "graph")["gpu_s"]["p50"]


# ---- in the browser: the x axis follows the data at every width (issue 20) ---------------

CROSSOVER_READ = r"""
(fig) => {
  const gd = fig.querySelector(".book-figure__plot");
  const box = (r) => ({x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  const xs = gd._fullData.flatMap((t) => t.x || []).filter((x) => x > 0);
  const labels = [...gd.querySelectorAll(".annotation")]
    .filter((a) => a.textContent.trim())
    .map((a) => ({text: a.textContent, box: box(a.querySelector(".annotation-text-g")
      .getBoundingClientRect())}));
  return {range: gd._fullLayout.xaxis.range.slice(), lo: Math.min(...xs), hi: Math.max(...xs),
          area: box(gd.querySelector(".draglayer .nsewdrag").getBoundingClientRect()),
          labels: labels, device: fig.getAttribute("data-device")};
}
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_crossover_axis_follows_the_data_at_every_width(browser, site_url, width):
    """Plotly widens an autoranged axis to hold an annotation: at 390 px the labels pulled
    the x axis of lesson 03's crossover figure down to n = 1. Now, on every device's data,
    at a desk's width and a phone's, the axis spans the data (a few percent of padding),
    and each label lies inside the plot area, clear of the other."""
    from tests.site.support import html_for
    from tests.site.visits import settle

    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{html_for('model/03-what-jit-does.md').removesuffix('index.html')}")
        fig = pg.locator("#fig-launch-crossover")
        fig.scroll_into_view_if_needed()
        settle(pg)
        buttons = fig.locator(".book-figure__devices button")
        reads = []
        for d in range(max(1, buttons.count())):
            if buttons.count():
                buttons.nth(d).click()
                slug = buttons.nth(d).get_attribute("data-slug")
                pg.wait_for_function(
                    "([el, slug]) => el.getAttribute('data-device') === slug",
                    arg=[fig.element_handle(), slug],
                )
            settle(pg)
            reads.append(fig.evaluate(CROSSOVER_READ))
    finally:
        context.close()
    found = []
    for r in reads:
        at = f"{r['device']} at {width} px"
        lo, hi = math.log10(r["lo"]), math.log10(r["hi"])
        pad = 0.1 * (hi - lo)
        if not (lo - pad <= r["range"][0] <= lo and hi <= r["range"][1] <= hi + pad):
            found.append(f"{at}: x axis {r['range']} for data from 10^{lo:.2f} to 10^{hi:.2f}")
        a = r["area"]
        for label in r["labels"]:
            b = label["box"]
            if b["x0"] < a["x0"] - 1 or b["x1"] > a["x1"] + 1 or b["y0"] < a["y0"] - 1:
                found.append(f"{at}: label {label['text']!r} {b} leaves the plot area {a}")
        for p, q in itertools.combinations(r["labels"], 2):
            b, c = p["box"], q["box"]
            if b["x0"] < c["x1"] and c["x0"] < b["x1"] and b["y0"] < c["y1"] and c["y0"] < b["y1"]:
                found.append(f"{at}: labels {p['text']!r} and {q['text']!r} overlap")
    assert len(reads) == len(WITH_LAUNCH), reads
    assert not found, "\n".join(found)
