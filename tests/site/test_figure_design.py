"""The book's figures follow one design (issue 20, "The figures"), checked on what the
browser drew: every figure page, light and dark, desktop (1280 px) and phone (390 px),
every device's data.

- **Plot area**: each plot area (each panel of small multiples) is at least
  ``PLOT_MIN[width]`` tall, however long the legend; horizontal bars get ``BAR_MIN`` px
  per bar. The legend and titles take their own room (figures.js sizes the figure).
- **Ours on top**: the book's kernel (roles ``OURS``) is drawn after every other line of
  its panel, thicker than any of them, in a colour that keeps 3:1 against the page.
- **Told apart**: ours against every other implementation's colour is at least ``OURS_DE``
  apart (CIEDE2000) to normal vision and under simulated deuteranopia and protanopia;
  two different peers differ in marker symbol and in colour or dash.
- **Notation**: a log axis is labelled at powers of ten only (or, with less than a
  decade in view, at whole values); a figure writes powers as powers, not 2^26, and
  dtypes as bf16, fp16, fp32.
- **No toolbar on touch**: on a touch screen no figure shows Plotly's toolbar over its
  plot.
- **Zoom kept**: a reader's zoom survives the window getting shorter (a phone's address
  bar) and wider (figures.js draws the figure again).
- **Drawn again from its fit**: after a palette toggle every figure is drawn once, from
  what its first draw fitted, and as that first draw fitted it.

Everything is read during the one visit of each page (tests/site/visits.py: ``DESIGN``
next to the legibility reading, ``zoom``, ``touch``, ``fresh``); the checks below only
judge.
"""

from __future__ import annotations

import itertools
import re

import pytest

from tests.site.support import contrast, figure_pages, rgba, seen_apart
from tests.site.visits import per_page

PAGES = per_page(figure_pages())
WIDTHS = ("desktop", "phone")
SCHEMES = ("light", "dark")
PLOT_MIN = {"desktop": 300, "phone": 220}
BAR_MIN = 24  # px of plot height per horizontal bar
OURS = ("triton", "wrapper", "ours")
REFERENCE = ("ceiling", "ceiling-2", "marker")
OURS_DE = 20.0
MIN_CONTRAST = 3.0
SLACK = 1.0


def drawn(visit, md: str, width: str, scheme: str) -> list[dict]:
    """DESIGN's reading of every figure of ``md`` at ``width`` in ``scheme`` (with every
    device's data; light both before and after the toggle to dark)."""
    found = [fig for fig, s in visit(md)[f"legible-{width}"] if s.split(",")[0] == scheme]
    assert found, f"{md} [{width}, {scheme}]: no figure was read"
    return found


def cases():
    return [
        pytest.param(md.values[0], w, s, marks=md.marks, id=f"{md.id}-{w}-{s}")
        for md in PAGES
        for w in WIDTHS
        for s in SCHEMES
    ]


def where(fig: dict, width: str, scheme: str) -> str:
    d = fig["design"]
    return f"{d['figure']} [{d['device']}, {width}, {scheme}]"


def ours(t: dict) -> bool:
    return t["role"] in OURS


def peer(t: dict) -> bool:
    return t["role"] is not None and t["role"] not in OURS + REFERENCE


def colours(d: dict, keep) -> set[str]:
    """The colours of the visible traces (and bars) whose role ``keep`` accepts."""
    found = set()
    for t in d["traces"]:
        if not t["visible"]:
            continue
        if t["bars"] is not None:
            roles = t["roles"] or [None] * len(t["bars"])
            found |= {c for r, c in zip(roles, t["bars"], strict=True) if keep({"role": r})}
        elif keep(t) and t["colour"]:
            found.add(t["colour"])
    return found


# ---- plot-area height ----------------------------------------------------------------


@pytest.mark.parametrize("md, width, scheme", cases())
def test_plot_area_is_tall_enough(visit, md, width, scheme):
    short = []
    for fig in drawn(visit, md, width, scheme):
        d = fig["design"]
        traces = [t for t in d["traces"] if t["visible"]]
        if traces and all(t["type"] == "bar" for t in traces):
            labels = max(len(t["bars"]) for t in traces)
            least = BAR_MIN * max(labels, 2)
        else:
            least = PLOT_MIN[width]
        for a in d["areas"]:
            if a["y1"] - a["y0"] < least - SLACK:
                short.append(f"{where(fig, width, scheme)}: plot area {a['y1'] - a['y0']:.0f} px")
    assert not short, f"plot areas under {PLOT_MIN[width]} px:\n" + "\n".join(sorted(set(short)))


# ---- ours on top, thickest, visible ----------------------------------------------------


@pytest.mark.parametrize("md, width, scheme", cases())
def test_ours_is_drawn_on_top_and_thickest(visit, md, width, scheme):
    found = []
    for fig in drawn(visit, md, width, scheme):
        d = fig["design"]
        at = where(fig, width, scheme)
        lines = [t for t in d["traces"] if t["type"] == "scatter" and t["visible"]]
        order = {index: i for i, index in enumerate(d["drawn"])}
        page = rgba(d["page"])
        for subplot in {t["subplot"] for t in lines}:
            here = [t for t in lines if t["subplot"] == subplot]
            mine = [t for t in here if ours(t)]
            rest = [t for t in here if not ours(t)]
            if not mine:
                continue
            if rest and min(order[t["index"]] for t in mine) < max(order[t["index"]] for t in rest):
                found.append(f"{at}: a line is drawn over ours ({subplot})")
            thickest = max((t["width"] for t in rest if t["lines"]), default=0)
            for t in mine:
                if t["lines"] and t["width"] <= thickest:
                    wide = t["width"]
                    found.append(f"{at}: ours {t['name']!r} is {wide} px, others up to {thickest}")
                if contrast(rgba(t["colour"]), page) < MIN_CONTRAST:
                    found.append(f"{at}: ours {t['colour']} has under {MIN_CONTRAST}:1 on the page")
    assert not found, "\n".join(sorted(set(found)))


# ---- colours told apart, also by colour-blind readers ----------------------------------


@pytest.mark.parametrize("md, width, scheme", cases())
def test_ours_and_peers_are_told_apart(visit, md, width, scheme):
    found = []
    for fig in drawn(visit, md, width, scheme):
        d = fig["design"]
        at = where(fig, width, scheme)
        for a, b in itertools.product(colours(d, ours), colours(d, peer)):
            apart = seen_apart(rgba(a), rgba(b))
            if min(apart.values()) < OURS_DE:
                seen = ", ".join(f"{v} {e:.1f}" for v, e in apart.items())
                found.append(f"{at}: ours {a} and peer {b} are only ΔE {seen} apart")
        found += peers_apart(d, at)
    assert not found, "\n".join(sorted(set(found)))


def peers_apart(d: dict, at: str) -> list[str]:
    """Two lines of different implementations (roles) differ in colour, and in marker
    symbol and dash as well, where the figure has ours (a dash the figure uses for its own
    encoding, say dashed bf16, is its own). In a figure without ours (a sweep, the
    roofline's points) no two series share colour, symbol and dash all three."""
    found = []
    mine = any(ours(t) for t in d["traces"] if t["visible"])
    lines = [t for t in d["traces"] if t["type"] == "scatter" and t["visible"] and peer(t)]
    for a, b in itertools.combinations(lines, 2):
        if a["role"] == b["role"]:
            continue  # one implementation, in two settings the figure tells apart
        both = f"{a['name']!r} and {b['name']!r}"
        same = {
            "colour": a["colour"] == b["colour"],
            "marker": a["symbol"] is not None and a["symbol"] == b["symbol"],
            "dash": a["lines"] and b["lines"] and a["dash"] == b["dash"],
        }
        if not mine:
            look = (a["colour"], a["symbol"], a["dash"] if a["lines"] else None)
            if look == (b["colour"], b["symbol"], b["dash"] if b["lines"] else None):
                found.append(f"{at}: {both} look the same")
            continue
        if d["ownDashes"]:
            same["dash"] = False
        shared = [k for k, v in same.items() if v]
        if shared:
            found.append(f"{at}: {both} share their {' and '.join(shared)}")
    return found


# ---- notation --------------------------------------------------------------------------

LONG_DTYPE = re.compile(r"\b(bfloat16|float16|float32|float64)\b")
CARET_POWER = re.compile(r"\d\s*\^\s*\d")


def is_decade(x: float) -> bool:
    return abs(x - round(x)) < 1e-6


def whole_value(x: float) -> bool:
    """A tick at 1, 2 or 5 times a power of ten (x is the tick's log10)."""
    mantissa = 10 ** (x - int(x // 1))
    return any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5, 10))


@pytest.mark.parametrize("md, width, scheme", cases())
def test_one_notation_for_powers_and_dtypes(visit, md, width, scheme):
    found = []
    for fig in drawn(visit, md, width, scheme):
        d = fig["design"]
        at = where(fig, width, scheme)
        for ax in d["axes"]:
            if ax["type"] != "log" or ax["given"] or not ax["ticks"]:
                continue
            xs = [t["x"] for t in ax["ticks"]]
            decades = sum(1 for x in xs if is_decade(x))
            if decades >= 2 and not all(is_decade(x) for x in xs):
                labels = [t["text"] for t in ax["ticks"]]
                found.append(f"{at}: {ax['name']} labels more than its decades: {labels}")
            elif decades < 2 and not all(whole_value(x) for x in xs):
                labels = [t["text"] for t in ax["ticks"]]
                found.append(f"{at}: {ax['name']} has ticks between 1, 2 and 5: {labels}")
        for t in fig["texts"]:
            if LONG_DTYPE.search(t["text"]):
                found.append(f"{at}: {t['kind']} {t['text']!r}: write bf16, fp16, fp32")
            if CARET_POWER.search(t["text"]):
                found.append(f"{at}: {t['kind']} {t['text']!r}: write powers as superscripts")
    assert not found, "\n".join(sorted(set(found)))


# ---- touch: no toolbar over the plot ---------------------------------------------------


def overlaps(a: dict, b: dict) -> bool:
    return a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("md", PAGES)
def test_no_toolbar_over_the_plot_on_touch(visit, md, scheme):
    found = []
    for d in visit(md, scheme)["touch"]:
        bar = d["toolbar"]
        if bar and bar["shown"] and any(overlaps(bar["box"], a) for a in d["areas"]):
            found.append(f"{d['figure']} [{scheme}]: the toolbar covers the plot at {bar['box']}")
        short = [a["y1"] - a["y0"] for a in d["areas"] if a["y1"] - a["y0"] < PLOT_MIN["phone"]]
        if short and not all(t["type"] == "bar" for t in d["traces"] if t["visible"]):
            found.append(f"{d['figure']} [{scheme}]: plot area {min(short):.0f} px on a phone")
    assert not found, "\n".join(found)


# ---- zoom kept across resizes ----------------------------------------------------------


def close(a, b) -> bool:
    if a is None or len(a) != len(b):
        return False
    return all(abs(x - y) <= 1e-6 * max(1.0, abs(y)) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("md", PAGES)
def test_zoom_is_kept_after_resize(visit, md):
    z = visit(md)["zoom"]
    assert z["zoomed"], f"{md}: no figure was zoomed"
    found = []
    for step in ("shorter", "wider"):
        after = {r["figure"]: r for r in z[step]}
        for zoomed in z["zoomed"]:
            for ax, want in zoomed["want"].items():
                got = after[zoomed["figure"]][ax]
                if not close(got, want):
                    found.append(f"{zoomed['figure']}: {ax} {want} became {got} ({step})")
    assert not found, "\n".join(found)


# ---- counted figures, and device switches that switch something --------------------------

FIGURE_DATA = re.compile(
    r'<script type="application/json" class="book-figure__data">(.*?)</script>', re.S
)


def test_a_device_switch_changes_the_figure(built_site):
    """A figure with a button per device draws something different for each; one that
    would not (counted from shapes, not measured) is drawn once, captioned "Counted:"."""
    import json

    from tests.site.support import html_for, nav_pages

    same, counted = [], []
    for md in figure_pages():
        for blob in FIGURE_DATA.findall((built_site / html_for(md)).read_text()):
            payload = json.loads(blob)
            plots = [json.dumps(d["plot"], sort_keys=True) for d in payload["devices"]]
            if payload.get("counted"):
                counted.append(payload["id"])
                assert len(plots) == 1, f"{payload['id']} is counted yet has a device switch"
                assert payload["devices"][0]["caption"].startswith("Counted: ")
            elif len(plots) > 1 and len(set(plots)) == 1:
                same.append(payload["id"])
    assert nav_pages()
    assert not same, f"a device switch that changes nothing: {same}"


# ---- drawn again from its fit -------------------------------------------------------------

TOGGLED = ("dark, after toggling", "light, after toggling back")
FIT_SLACK = 2.5  # px: Plotly's autorange and margins differ by a pixel or two with history


def geometry(d: dict) -> tuple[float, list[tuple[float, ...]]]:
    """A DESIGN reading's drawing height and plot areas (x0, y0, x1, y1) relative to the
    drawing: what does not move when the page scrolls."""
    svg = d["svg"]
    corner = (svg["x0"], svg["y0"], svg["x0"], svg["y0"])
    areas = [
        tuple(a[k] - c for k, c in zip(("x0", "y0", "x1", "y1"), corner, strict=True))
        for a in d["areas"]
    ]
    return svg["y1"] - svg["y0"], areas


@pytest.mark.parametrize("md", PAGES)
def test_a_redraw_from_its_fit_is_drawn_once_and_as_a_fresh_fit(visit, md):
    """A palette toggle draws every figure again at a width and device it was fitted at,
    and figures.js starts from that fit: each such figure is drawn once (no fitting pass
    draws it again), and what it draws is what a first draw fits. The dark visit's first
    draw of each figure (its first device, 1,280 px) and the light visit's figure toggled
    to dark, same device and width, have plot areas and heights within FIT_SLACK px."""
    found = []
    fresh = {(d["figure"], d["device"]): d for d in visit(md, "dark")["fresh"]}
    assert fresh, f"{md}: the dark visit read no figure"
    compared = set()
    for width in WIDTHS:
        for fig, scheme in visit(md)[f"legible-{width}"]:
            d = fig["design"]
            at = where(fig, width, scheme)
            if scheme in TOGGLED and d["redraws"] != "0":
                found.append(f"{at}: drawn again {d['redraws']} time(s) after the toggle")
            first = fresh.get((d["figure"], d["device"]))
            if width != "desktop" or scheme != TOGGLED[0] or first is None:
                continue
            compared.add(d["figure"])
            (height, areas), (first_height, first_areas) = geometry(d), geometry(first)
            if abs(height - first_height) > FIT_SLACK or len(areas) != len(first_areas):
                found.append(f"{at}: {height:.0f} px tall, fresh {first_height:.0f} px")
                continue
            for a, b in zip(areas, first_areas, strict=True):
                if any(abs(x - y) > FIT_SLACK for x, y in zip(a, b, strict=True)):
                    found.append(f"{at}: plot area {a}, fresh {b}")
    assert compared == {f for f, _ in fresh}, f"{md}: compared {sorted(compared)}"
    assert not found, "\n".join(found)


# ---- ratios drawn as ratios: lesson 12's "× cuDNN's speed" -------------------------------

RATIO_PAGE = "flagship/12-flash-attention.md"
RATIO_FIGURES = ("attention-vs-cudnn-d128", "attention-vs-cudnn-d64")
BASELINE_ROLE = "cublas"  # cuDNN keeps its peer colour in the lesson: the line at 1


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("md", per_page([RATIO_PAGE]))
def test_ratio_figures_draw_ours_against_the_line_at_one(visit, md, width):
    """The comparison lesson 12's reader asks for, "how far from cuDNN", is drawn as a
    ratio (the design checks above cover these figures with every other): every panel
    (direction × mask) has the book's kernel and cuDNN's line at exactly 1, on a y axis
    that shows 1, in light and dark, with each device's data."""
    found, seen = [], set()
    for fig in (f for s in SCHEMES for f in drawn(visit, md, width, s)):
        d = fig["design"]
        if d["figure"] not in RATIO_FIGURES:
            continue
        seen.add(d["figure"])
        at = f"{d['figure']} [{d['device']}, {width}]"
        subplots = {t["subplot"] for t in d["traces"]}
        if len(subplots) != 4 or len(d["areas"]) != 4:
            found.append(f"{at}: {len(subplots)} panels, not one per direction and mask")
        for subplot in sorted(subplots):
            here = [t for t in d["traces"] if t["subplot"] == subplot and t["visible"]]
            if not any(ours(t) for t in here):
                found.append(f"{at}: no line of ours in {subplot}")
            if not any(t["role"] == BASELINE_ROLE and "= 1" in t["name"] for t in here):
                found.append(f"{at}: no cuDNN line at 1 in {subplot}")
        for ax in d["axes"]:
            if ax["name"].startswith("yaxis") and not min(ax["range"]) < 1 < max(ax["range"]):
                found.append(f"{at}: {ax['name']} range {ax['range']} hides the line at 1")
    assert seen == set(RATIO_FIGURES), f"{md}: read {sorted(seen)}"
    assert not found, "\n".join(sorted(set(found)))


def test_ratio_figures_plot_the_medians_of_the_per_round_ratios(built_site):
    """Each point of the "× cuDNN's speed" figures is, for its implementation, direction,
    mask, head dim and N, the median of the per-round ratios the run recorded (the row's
    ``vs.sdpa_cudnn``: cuDNN's time over its own in each round), and its error bar spans
    their 20th to 80th percentile; in data timed apart (no ``vs``), the ratio of the
    median times with the widest interval the two spreads allow. The line at 1 is cuDNN."""
    import json

    from figures import attention
    from scripts.book import render
    from tests.site.support import html_for

    devices = render.load_devices()
    page = (built_site / html_for(RATIO_PAGE)).read_text()
    payloads = {p["id"]: p for p in map(json.loads, FIGURE_DATA.findall(page))}
    assert set(RATIO_FIGURES) <= set(payloads), sorted(payloads)
    label = {name: key for key, name, _ in attention.IMPLS}
    checked = paired = 0
    for name in RATIO_FIGURES:
        d = int(name.removeprefix("attention-vs-cudnn-d"))
        for device in payloads[name]["devices"]:
            rows = render.doc(devices[device["slug"]], attention.BENCH)["rows"]
            plot = device["plot"]
            titles = [a["text"] for a in plot["layout"]["annotations"]]
            for t in plot["data"]:
                title = titles[int(t["xaxis"].removeprefix("x") or 1) - 1]
                direction, mask = re.sub(r"</?b>", "", title).split(", ")
                if t["name"].endswith("(= 1)"):
                    assert t["y"] == [1, 1] and t["meta"]["role"] == BASELINE_ROLE, t["name"]
                    continue
                impl = label[t["name"]]
                bars = t["error_y"]
                for n, y, plus, minus in zip(
                    t["x"], t["y"], bars["array"], bars["arrayminus"], strict=True
                ):
                    (row,) = [
                        r
                        for r in rows
                        if (r["impl"], r["direction"], r["causal"], r["head_dim"], r["n"])
                        == (impl, direction, mask == "causal", d, n)
                    ]
                    where = f"{name} [{device['slug']}] {impl} {direction} {mask} N={n}"
                    mine = row["time_s"]
                    if "vs" in mine:  # timed in alternating rounds
                        ratio = mine["vs"][attention.BASELINE]
                        low, mid, high = ratio["p20"], ratio["p50"], ratio["p80"]
                        paired += 1
                    else:  # timed apart: the medians' ratio, opposite percentiles
                        (base,) = [
                            r
                            for r in rows
                            if r["impl"] == attention.BASELINE
                            and all(r[k] == row[k] for k in ("direction", "causal", "head_dim"))
                            and r["n"] == n
                        ]
                        theirs = base["time_s"]
                        mid = theirs["p50"] / mine["p50"]
                        low, high = theirs["p20"] / mine["p80"], theirs["p80"] / mine["p20"]
                    assert y == pytest.approx(mid, rel=1e-12), where
                    assert y + plus == pytest.approx(high, rel=1e-9), where
                    assert y - minus == pytest.approx(low, rel=1e-9), where
                    checked += 1
    # Three implementations, forward (5 lengths, FlexAttention 2) and backward (3 and 2),
    # full and causal, both head dims, on every device with the data.
    assert checked == len(payloads[RATIO_FIGURES[0]]["devices"]) * 2 * 2 * (12 + 8)
    assert paired, "no device's data carries per-round ratios"
