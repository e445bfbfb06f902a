"""One visit per page and colour scheme: what the per-page browser checks read.

Loading a page in Chromium is most of what a browser test costs, and the checks of
tests/site/test_browser.py and tests/site/test_figure_legibility.py all start the same
way: open the page, wait for its figures. So each page is opened once in the light scheme
and once in the dark, and everything the checks need is recorded on the way, in an order
where no step disturbs the next:

light (1280 x 900, ``prefers-color-scheme: light``)
    ``load``     the page loads (network idle); its first heading's text
    ``figures``  every figure draws its traces (``wait_for_figures``); what each response
                 weighs, compressed
    ``clean``    200 ms later: console errors, uncaught exceptions, failed requests, and
                 every URL requested so far
    ``axe``      the colour scheme Material shows, and axe-core's violations
    ``legible-desktop``  (pages with figures) every figure drawn with each device's data:
                 light, then the palette toggled to dark, then back
    ``diagrams`` (pages with diagrams) back at the top of the page, the window resized to
                 1280 x 1400 (a height-only resize: figures.js draws nothing again), then
                 390 x 1400: every diagram read at each width (tests/site/test_diagrams.py)
    ``legible-phone``    the same as ``legible-desktop`` at 390 px: after the diagrams, the
                 window only gets its height back, since figures.js has already redrawn
                 every figure at 390 px for them; on a page without diagrams, after resizing
                 the window to 390 px (figures.js redraws from the data once resizing
                 settles, as for a phone turned sideways)
    ``zoom``     (pages with figures) at 390 px, each figure zoomed in as a reader would,
                 then the window made shorter (a phone's address bar going away), then
                 wider: the axis ranges after each
light and dark, at 390 x 844 on a touch screen (``has_touch``, ``is_mobile``)
    ``touch``    (pages with figures) each figure as drawn there: its toolbar, if any, and
                 its plot areas (tests/site/test_figure_design.py). One visit serves both
                 schemes: opened in light, read, the palette toggled to dark, read again
    ``touch-errors``  the uncaught exceptions of that page until then
                 (tests/site/test_phone_reading.py)
dark (1280 x 900, ``prefers-color-scheme: dark``)
    ``load`` (to the load event: no check reads this visit's requests), ``figures``,
    ``fresh`` (``DESIGN``'s reading of each figure as its first draw fitted it), ``axe``,
    ``diagrams``; the search index is served with no documents (the light visit's
    ``clean`` loads the real one)

A check reads the steps it needs with ``visit[step]``: a step that raised (a figure drew
nothing, a timeout) fails every check that needs it, with the step's own error, and the
visit goes on with the steps that do not depend on it. The assertions stay in the test
files: a visit only records.

Tests that read a visit are grouped per page (``on_page``) so that `--dist loadgroup`
runs them on one worker, which then opens each page once per scheme.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import traceback
import urllib.request
from typing import Any, Callable

import pytest

from tests.site.support import diagram_pages, figure_pages, html_for

DESKTOP, PHONE, HEIGHT = 1280, 390, 900
# How long a figure may take to draw, or to draw again after a resize or a palette toggle.
# 15 s ran out once on lesson 12 with the 2-core machine at a load of 20 (a whole-suite run
# beside other work); a figure that never draws fails the same way, only later.
DRAW_TIMEOUT = 30_000
FIGURE_PAGES = set(figure_pages())
DIAGRAM_PAGES = set(diagram_pages())
# The diagrams are read at both widths in a window this tall, so that a tall diagram fits
# it whole: what lies under each of its texts is on screen.
DIAGRAM_WIDTHS, DIAGRAM_HEIGHT = (DESKTOP, PHONE), 1400


def on_page(md: str) -> pytest.MarkDecorator:
    """The xdist group of every check that reads the visits of ``md``."""
    return pytest.mark.xdist_group(f"page-{md}")


def per_page(pages: list[str]) -> list:
    """``pages`` as parameters, each in its page's group (ids stay the page paths)."""
    return [pytest.param(md, marks=on_page(md), id=md) for md in pages]


# Material's search index, which the theme fetches after load and indexes in a worker (a
# second of CPU on a loaded machine, for the whole site's text).
SEARCH_INDEX_URL = re.compile(r"/search/search_index\.json(?:[?#].*)?$")


@functools.lru_cache
def empty_search_index(site: str) -> str:
    """The search index of the site served at ``site``, its configuration kept and its
    documents none."""
    with urllib.request.urlopen(f"{site}/search/search_index.json") as response:
        index = json.load(response)
    return json.dumps({**index, "docs": []})


def serve_search_index_empty(context, site: str) -> None:
    """Route a browser context's requests for the search index to ``empty_search_index``."""
    body = empty_search_index(site)
    context.route(
        SEARCH_INDEX_URL,
        lambda route: route.fulfill(status=200, content_type="application/json", body=body),
    )


def url_of(site_url: str, md: str) -> str:
    return f"{site_url}/{html_for(md).removesuffix('index.html')}"


class Visit:
    """What one visit of one page in one scheme recorded, step by step."""

    def __init__(self, md: str, scheme: str):
        self.md, self.scheme = md, scheme
        self.results: dict[str, Any] = {}
        self.failures: dict[str, str] = {}

    def run(self, step: str, action: Callable[[], Any], needs: tuple[str, ...] = ()) -> None:
        failed = [n for n in needs if n in self.failures]
        if failed:
            self.failures[step] = self.failures[failed[0]]
            return
        try:
            self.results[step] = action()
        except Exception:
            self.failures[step] = f"step {step!r}:\n{traceback.format_exc()}"

    def __getitem__(self, step: str) -> Any:
        if step in self.failures:
            pytest.fail(
                f"the visit of {self.md} [{self.scheme}] failed at {self.failures[step]}",
                pytrace=False,
            )
        if step not in self.results:
            raise KeyError(f"the visit of {self.md} [{self.scheme}] has no step {step!r}")
        return self.results[step]


def instrument(pg, weigh: bool = True) -> None:
    """Record on the page what the checks read: errors, requests, and (``weigh``) the
    compressed size of each response."""
    pg.errors = []
    pg.requests = []
    pg.on(
        "console",
        lambda m: pg.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None,
    )
    pg.on("pageerror", lambda e: pg.errors.append(f"uncaught: {e}"))
    pg.on("requestfailed", lambda r: pg.errors.append(f"request failed: {r.url}"))
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.compressed = {}  # url -> gzip size of the body, what a compressing server would send
    if weigh:
        pg.on("response", lambda r: pg.compressed.__setitem__(r.url, compressed_size(r)))


def compressed_size(response) -> int:
    try:
        return len(gzip.compress(response.body()))
    except Exception:  # a redirect or an aborted response has no body
        return 0


def wait_for_figures(pg) -> int:
    figures = pg.locator(".book-figure")
    count = figures.count()
    for i in range(count):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        fig.locator(".main-svg").first.wait_for(state="attached", timeout=DRAW_TIMEOUT)
        traces = fig.locator(".scatterlayer .trace, .barlayer .trace").count()
        assert traces > 0, f"figure {fig.get_attribute('data-figure')} drew no traces"
    return count


def colour_scheme(pg) -> str | None:
    return pg.evaluate("document.body.getAttribute('data-md-color-scheme')")


def axe_violations(pg) -> list[dict]:
    from axe_playwright_python.sync_playwright import Axe

    return Axe().run(pg).response["violations"]


def visit(browser, site_url: str, md: str, scheme: str) -> Visit:
    """Open ``md`` once in ``scheme`` ("light" or "dark") and record every step."""
    v = Visit(md, scheme)
    context = browser.new_context(
        viewport={"width": DESKTOP, "height": HEIGHT}, color_scheme=scheme
    )
    if scheme != "light":
        # The search index is loaded and checked in the light visit ("clean"); here it
        # comes with no documents, as in the widget tests (no second of indexing in a
        # worker beside the drawing and axe).
        serve_search_index_empty(context, site_url)
    try:
        pg = context.new_page()
        instrument(pg, weigh=scheme == "light")  # the page's weight is read in light

        def load():
            # The light visit waits for the network to go quiet: "clean" reads every request
            # the page makes. The dark one reads no requests and waits for its figures instead.
            idle = "networkidle" if scheme == "light" else "load"
            pg.goto(url_of(site_url, md), wait_until=idle)
            return pg.locator("h1").first.inner_text().strip()

        def figures():
            count = wait_for_figures(pg)
            return {"count": count, "compressed": dict(pg.compressed)}

        def clean():
            pg.wait_for_timeout(200)
            return {"errors": list(pg.errors), "requests": list(pg.requests)}

        def axe():
            return {"scheme": colour_scheme(pg), "violations": axe_violations(pg)}

        v.run("load", load)
        v.run("figures", figures, needs=("load",))
        if scheme == "light":
            v.run("clean", clean, needs=("figures",))
        else:
            v.run("fresh", lambda: fitted_afresh(pg), needs=("figures",))
        v.run("axe", axe, needs=("figures",))
        legible = scheme == "light" and md in FIGURE_PAGES
        if legible:
            v.run("legible-desktop", lambda: read_in_both_palettes(pg), needs=("load",))
        if md in DIAGRAM_PAGES:
            v.run("diagrams", lambda: read_diagrams(pg), needs=("load",))
        if legible:
            # Where the diagrams were just read at the phone's width, the figures are drawn
            # there already: the phone reading needs only the height back (no redraw).
            drawn = isinstance(v.results.get("diagrams", {}).get(PHONE), dict)
            v.run("legible-phone", lambda: read_at_width(pg, PHONE, drawn), needs=("load",))
            v.run("zoom", lambda: zoom_then_resize(pg), needs=("legible-phone",))
    finally:
        context.close()
    if md in FIGURE_PAGES:
        v.run("touch", lambda: on_touch(browser, site_url, md)[scheme])
        v.run("touch-errors", lambda: on_touch(browser, site_url, md)["uncaught"][scheme])
    return v


# ---- figure legibility: what tests/site/test_figure_legibility.py judges ---------------

# Collects, for one figure, every visible text with its box, colour and clip region, the
# bars (box and fill) and the data marks (line segments, marker and error-bar boxes), all
# in page pixels.
COLLECT = r"""
(fig) => {
  const box = (r) => ({x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  const svg = fig.querySelector("svg.main-svg");
  function opacity(el) {
    let o = 1;
    for (let e = el; e && e !== fig; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === "none" || cs.visibility === "hidden") return 0;
      o *= parseFloat(cs.opacity || "1");
      if (e.getAttribute && e.getAttribute("fill-opacity") !== null && e !== el)
        o *= parseFloat(e.getAttribute("fill-opacity"));
    }
    return o;
  }
  function clipOf(el) {
    const boxes = [];
    for (let e = el; e && e !== fig; e = e.parentElement) {
      const cp = e.getAttribute && (e.getAttribute("clip-path") || "");
      const m = cp.match(/url\(["']?#([^"')]+)["']?\)/);
      if (m) {
        // The clip rectangle is in the user space of the element that names it.
        const target = document.getElementById(m[1]);
        const rect = target && target.querySelector("rect");
        const ctm = e.getScreenCTM && e.getScreenCTM();
        if (rect && ctm) {
          const v = (a) => parseFloat(rect.getAttribute(a) || "0");
          const x0 = v("x"), y0 = v("y"), x1 = x0 + v("width"), y1 = y0 + v("height");
          const xs = [ctm.a * x0 + ctm.c * y0 + ctm.e, ctm.a * x1 + ctm.c * y1 + ctm.e];
          const ys = [ctm.b * x0 + ctm.d * y0 + ctm.f, ctm.b * x1 + ctm.d * y1 + ctm.f];
          boxes.push({
            x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys),
          });
        }
      }
    }
    return boxes;
  }
  function kind(el) {
    if (el.closest(".g-xtitle, .g-ytitle, .xtitle, .ytitle")) return "axis title";
    if (el.closest(".xtick, .ytick")) return "tick label";
    if (el.closest(".legend")) return "legend";
    if (el.closest(".annotation")) return "annotation";
    if (el.closest(".bartext") || el.classList.contains("bartext")) return "bar label";
    if (el.closest(".textpoint")) return "point label";
    return "text";
  }
  function background() {
    for (let e = fig; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) return c;
    }
    return "rgb(255, 255, 255)";
  }
  const texts = [];
  fig.querySelectorAll("svg text").forEach((el) => {
    if (!el.textContent.trim()) return;
    if (el.closest(".hoverlayer, .modebar")) return;  // hover labels appear on demand
    const r = el.getBoundingClientRect();
    if (r.width < 0.5 || r.height < 0.5) return;
    const o = opacity(el);
    if (o <= 0.01) return;
    const cs = getComputedStyle(el);
    const m = el.getScreenCTM();
    // The text's own box, turned as it is drawn: tilted tick labels are not boxes on screen.
    const bb = el.getBBox();
    const corners = [[bb.x, bb.y], [bb.x + bb.width, bb.y],
                     [bb.x + bb.width, bb.y + bb.height], [bb.x, bb.y + bb.height]];
    const quad = corners.map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    texts.push({
      quad: quad,
      px: parseFloat(cs.fontSize) * (m ? Math.hypot(m.a, m.b) : 1),
      scale: m ? Math.hypot(m.a, m.b) / Math.hypot(svg.getScreenCTM().a, svg.getScreenCTM().b) : 1,
      text: el.textContent.trim(), kind: kind(el), box: box(r), fill: cs.fill,
      alpha: o * parseFloat(cs.fillOpacity || "1"), clips: clipOf(el),
      inPlot: !!el.closest(".annotation, .barlayer, .scatterlayer"),
    });
  });
  const bars = [];
  fig.querySelectorAll(".barlayer .point path").forEach((p) => {
    const r = p.getBoundingClientRect();
    if (r.width < 0.5 || r.height < 0.5) return;
    const cs = getComputedStyle(p);
    bars.push({box: box(r), fill: cs.fill, alpha: parseFloat(cs.fillOpacity || "1") * opacity(p)});
  });
  const segments = [];
  const marks = [];
  fig.querySelectorAll(".scatterlayer .trace path.js-line").forEach((p) => {
    if (opacity(p) <= 0.01) return;
    const m = p.getScreenCTM();
    const d = p.getAttribute("d") || "";
    const pts = [];
    const re = /([ML])\s*(-?[\d.eE+-]+)[ ,](-?[\d.eE+-]+)/g;
    let g;
    while ((g = re.exec(d))) {
      const x = parseFloat(g[2]), y = parseFloat(g[3]);
      const sx = m.a * x + m.c * y + m.e, sy = m.b * x + m.d * y + m.f;
      pts.push([g[1], sx, sy]);
    }
    for (let i = 1; i < pts.length; i++) {
      if (pts[i][0] === "L") segments.push([pts[i - 1][1], pts[i - 1][2], pts[i][1], pts[i][2]]);
    }
  });
  fig.querySelectorAll(".scatterlayer .trace .points path.point, .errorbars path").forEach((p) => {
    if (opacity(p) <= 0.01) return;
    const r = p.getBoundingClientRect();
    if (r.width > 0 || r.height > 0) marks.push(box(r));
  });
  return {
    figure: fig.getAttribute("data-figure"), device: fig.getAttribute("data-device"),
    figBox: box(fig.getBoundingClientRect()), svgBox: box(svg.getBoundingClientRect()),
    viewport: document.documentElement.clientWidth, page: background(),
    texts: texts, bars: bars, segments: segments, marks: marks,
  };
}
"""


def fitted_afresh(pg) -> list[dict]:
    """DESIGN's reading of every figure once each has finished its first draw: what the
    dark visit's first draws fitted, which tests/site/test_figure_design.py compares with
    the same figure drawn again from its fit (the light visit's toggle to dark)."""
    settle(pg)
    figures = pg.locator(".book-figure")
    return [figures.nth(i).evaluate(DESIGN) for i in range(figures.count())]


# What the design checks read of one drawn figure (tests/site/test_figure_design.py): its
# plot areas, its traces as Plotly drew them (role, colour, width, dash, marker symbol),
# the order the scatter traces are drawn in, each axis's ticks, and its toolbar.
DESIGN = r"""
(fig) => {
  const box = (r) => ({x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  const gd = fig.querySelector(".book-figure__plot");
  const areas = [...gd.querySelectorAll(".draglayer .nsewdrag")].map(
    (a) => box(a.getBoundingClientRect()));
  const svg = box(gd.querySelector("svg.main-svg").getBoundingClientRect());
  const traces = (gd._fullData || []).map((t) => ({
    index: t.index, type: t.type, name: t.name || "", visible: t.visible === true,
    role: (t.meta || {}).role || null, roles: (t.meta || {}).roles || null,
    colour: t.mode && t.mode.includes("lines") && t.line ? t.line.color
      : t.marker && typeof t.marker.color === "string" ? t.marker.color : null,
    width: t.line ? t.line.width : null,
    dash: t.line ? t.line.dash : null,
    symbol: t.marker && t.mode && t.mode.includes("markers") ? t.marker.symbol : null,
    lines: !!(t.mode && t.mode.includes("lines")),
    bars: t.type === "bar" ? [].concat(t.marker.color) : null,
    subplot: (t.xaxis || "x") + (t.yaxis || "y"),
  }));
  const drawn = [...gd.querySelectorAll(".scatterlayer .trace")].map((g) => {
    const cd = g.__data__;
    return cd && cd[0] && cd[0].trace ? cd[0].trace.index : -1;
  });
  // The ticks the figure itself chose (in its data, before figures.js drew it).
  const book = fig.__book;
  const own = book ? book.payload.devices[book.index].plot.layout || {} : {};
  const axes = Object.keys(gd._fullLayout).filter((k) => /^[xy]axis\d*$/.test(k)).map((k) => {
    const a = gd._fullLayout[k];
    const mine = own[k] || {};
    return {name: k, type: a.type, given: !!(mine.tickvals || mine.dtick !== undefined),
            range: (a.range || []).slice(),
            ticks: (a._vals || []).map((v) => ({x: v.x, text: String(v.text || "")}))};
  });
  const bar = gd.querySelector(".modebar-container");
  let toolbar = null;
  if (bar) {
    const r = bar.querySelector(".modebar") || bar;
    const cs = getComputedStyle(r);
    const shown = cs.display !== "none" && cs.visibility !== "hidden"
      && parseFloat(cs.opacity || "1") > 0;
    toolbar = {box: box(r.getBoundingClientRect()), shown: shown};
  }
  return {
    figure: fig.getAttribute("data-figure"), device: fig.getAttribute("data-device"),
    width: gd.clientWidth, svg: svg, areas: areas, traces: traces, drawn: drawn, axes: axes,
    toolbar: toolbar, page: getComputedStyle(document.body).backgroundColor,
    devices: fig.querySelectorAll(".book-figure__devices button").length,
    label: (fig.querySelector(".book-figure__devices-label") || {}).textContent || "",
    ownDashes: fig.getAttribute("data-own-dashes") === "true",
    redraws: fig.getAttribute("data-redraws"),
  };
}
"""


# Every figure of the page drawn, and its fitting passes done (figures.js).
FIGURES_DRAWN = (
    "[...document.querySelectorAll('.book-figure')].every("
    "f => f.querySelector('.main-svg') && f.getAttribute('data-fitted') !== 'false')"
)
# Two animation frames: the browser has laid out and painted what was drawn last.
PAINTED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def settle(pg) -> None:
    """Wait until every figure has finished drawing: figures.js marks data-fitted once its
    last fitting pass is done, then the page is painted. (A fixed 150 ms pause used to
    follow; on every figure page, device and palette, at both widths, what COLLECT read
    right after this wait was the same as 400 ms later.)"""
    pg.wait_for_function(FIGURES_DRAWN, timeout=DRAW_TIMEOUT)
    pg.evaluate(PAINTED)


def collect_every_figure(pg, scheme: str) -> list[tuple[dict, str]]:
    """Every figure of the open page drawn with each device's data: (COLLECT's output,
    the scheme it was read in) for each. The device a figure shows is read as it was
    drawn (first draw, or the redraw after a palette toggle or a resize), with the pointer
    resting on its button as after a click; each other device is then clicked and read.
    (Clicking the device already shown only drew it once more, at the cost of a redraw.)"""
    found = []
    figures = pg.locator(".book-figure")
    for i in range(figures.count()):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        fig.locator(".main-svg").first.wait_for(state="attached", timeout=DRAW_TIMEOUT)
        buttons = fig.locator(".book-figure__devices button")
        slugs = buttons.evaluate_all("bs => bs.map(b => b.getAttribute('data-slug'))")
        shown = fig.get_attribute("data-device")
        first = slugs.index(shown) if shown in slugs else None
        order = sorted(range(len(slugs)), key=lambda d: d != first) or [None]
        for d in order:
            if d is not None and d == first:
                buttons.nth(d).hover()
            elif d is not None:
                buttons.nth(d).click()
                pg.wait_for_function(
                    "([el, slug]) => el.getAttribute('data-device') === slug",
                    arg=[fig.element_handle(), slugs[d]],
                )
            settle(pg)
            read = fig.evaluate(COLLECT)
            read["design"] = fig.evaluate(DESIGN)
            found.append((read, scheme))
    return found


def toggle_palette(pg, to: str) -> None:
    pg.locator("label.md-header__button[for^='__palette']:visible").first.click()
    pg.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{to}'")
    settle(pg)


def read_in_both_palettes(pg) -> list[tuple[dict, str]]:
    """Light first, then toggled to dark (the figures' redraw), then back to light."""
    found = collect_every_figure(pg, "light")
    toggle_palette(pg, "slate")
    found += collect_every_figure(pg, "dark, after toggling")
    toggle_palette(pg, "default")
    found += collect_every_figure(pg, "light, after toggling back")
    return found


# How many times figures.js has drawn each figure (its draw token): a resize is over once
# every figure has been drawn again at the new width.
DRAWS = "[...document.querySelectorAll('.book-figure')].map(f => f.__book ? f.__book.token : 0)"


def resize_and_redraw(pg, width: int, height: int) -> None:
    """Resize the window to a new width and wait until figures.js has drawn every figure
    again."""
    before = pg.evaluate(DRAWS)
    pg.set_viewport_size({"width": width, "height": height})
    pg.wait_for_function(
        f"before => {DRAWS}.every((t, i) => t > before[i])", arg=before, timeout=DRAW_TIMEOUT
    )


def read_at_width(pg, width: int, drawn: bool = False) -> list[tuple[dict, str]]:
    """Resize the window to ``width`` (no reload) and read every figure as
    read_in_both_palettes does, once figures.js has drawn each of them again. ``drawn``:
    the window is ``width`` wide already and every figure was drawn again there (the
    diagrams' reading at that width waited for it), so only the height is set back, which
    figures.js does not redraw for."""
    at_width = pg.evaluate("window.innerWidth") == width
    if drawn and at_width:
        pg.set_viewport_size({"width": width, "height": HEIGHT})
    else:
        if at_width:  # at that width, but not known to be drawn there: draw it again there
            resize_and_redraw(pg, DESKTOP, HEIGHT)
        resize_and_redraw(pg, width, HEIGHT)
    assert pg.evaluate("document.documentElement.clientWidth") <= width
    return read_in_both_palettes(pg)


# ---- zoom kept across resizes, and no toolbar on touch: what test_figure_design.py judges ---

# Zoom the first subplot of every figure to the middle half of what it shows, as a drag
# would (Plotly.relayout is what a drag calls, and it tells figures.js the same way).
ZOOM = r"""
async () => {
  const out = [];
  for (const fig of document.querySelectorAll(".book-figure")) {
    const gd = fig.querySelector(".book-figure__plot");
    const want = {};
    for (const k of ["xaxis", "yaxis"]) {
      const a = gd._fullLayout[k];
      if (!a || a.type === "category" || !a.range) continue;
      const [lo, hi] = a.range.map(Number);
      want[k] = [lo + (hi - lo) / 4, hi - (hi - lo) / 4];
    }
    const update = {};
    for (const k in want) update[k + ".range"] = want[k];
    await Plotly.relayout(gd, update);
    out.push({figure: fig.getAttribute("data-figure"), want: want});
  }
  return out;
}
"""
RANGES = r"""
() => [...document.querySelectorAll(".book-figure")].map((fig) => {
  const gd = fig.querySelector(".book-figure__plot");
  const r = (k) => gd._fullLayout[k] && gd._fullLayout[k].range
    ? gd._fullLayout[k].range.map(Number) : null;
  return {figure: fig.getAttribute("data-figure"), xaxis: r("xaxis"), yaxis: r("yaxis")};
})
"""


def zoom_then_resize(pg) -> dict:
    """At the phone width: zoom every figure, then make the window shorter (only the
    height changes, as when a phone's address bar slides away), then wider (figures.js
    draws each figure again); the ranges the reader chose, and those after each step."""
    zoomed = pg.evaluate(ZOOM)
    settle(pg)
    pg.set_viewport_size({"width": PHONE, "height": HEIGHT - 120})
    pg.wait_for_timeout(400)  # longer than figures.js's 250 ms wait for resizing to settle
    settle(pg)
    shorter = pg.evaluate(RANGES)
    before = pg.evaluate(DRAWS)
    pg.set_viewport_size({"width": PHONE + 40, "height": HEIGHT})
    pg.wait_for_function(
        f"before => {DRAWS}.every((t, i) => t > before[i])", arg=before, timeout=DRAW_TIMEOUT
    )
    settle(pg)
    return {"zoomed": zoomed, "shorter": shorter, "wider": pg.evaluate(RANGES)}


TOUCH_PHONE = {"width": PHONE, "height": 844}


def read_on_touch(browser, site_url: str, md: str) -> dict:
    """Open ``md`` on a 390 px touch screen (light, as the reader's system prefers) and read
    DESIGN's reading of each figure (its toolbar, its plot areas), then toggle the palette
    to dark (figures.js draws every figure again) and read them again: ``{"light": [...],
    "dark": [...], "uncaught": {"light": [...], "dark": [...]}}``, the page's uncaught
    exceptions until each reading was done. (Opening the page a second time in the dark
    scheme read the same: compared on lessons 01, 10 and 12.)"""
    context = browser.new_context(
        viewport=TOUCH_PHONE, color_scheme="light", has_touch=True, is_mobile=True
    )
    try:
        pg = context.new_page()
        uncaught: list[str] = []
        pg.on("pageerror", lambda e: uncaught.append(f"uncaught: {e}"))
        pg.goto(url_of(site_url, md), wait_until="load")
        wait_for_figures(pg)
        settle(pg)

        def read() -> list[dict]:
            found = []
            figures = pg.locator(".book-figure")
            for i in range(figures.count()):
                fig = figures.nth(i)
                fig.scroll_into_view_if_needed()
                fig.hover()  # where a toolbar would show on hover
                found.append(fig.evaluate(DESIGN))
            return found

        light = read()
        errors_light = list(uncaught)
        toggle_palette(pg, "slate")
        dark = read()
        return {
            "light": light,
            "dark": dark,
            "uncaught": {"light": errors_light, "dark": list(uncaught)},
        }
    finally:
        context.close()


# (browser, site, page) -> read_on_touch's reading, or the exception it raised: the light
# and the dark visit of a page share one touch-screen visit.
_TOUCH: dict[tuple[int, str, str], dict | Exception] = {}


def on_touch(browser, site_url: str, md: str) -> dict:
    """``read_on_touch`` of ``md``, made once per browser and shared by both schemes' visits
    (a reading that raised raises again for the other scheme)."""
    key = (id(browser), site_url, md)
    if key not in _TOUCH:
        try:
            _TOUCH[key] = read_on_touch(browser, site_url, md)
        except Exception as error:
            _TOUCH[key] = error
    found = _TOUCH[key]
    if isinstance(found, Exception):
        raise found
    return found


# ---- diagrams: what tests/site/test_diagrams.py judges ------------------------------------

# Per diagram: every text with its box, size on screen, fill and what is painted under it
# (at three points along it), and every shape's paint.
DIAGRAM = r"""
(fig) => {
  const box = (r) => ({x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  const svg = fig.querySelector("svg");
  const scale = svg.getScreenCTM().a;
  let page = "rgb(255, 255, 255)";
  for (let e = fig; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) { page = c; break; }
  }
  const paint = (el) => {
    const cs = getComputedStyle(el);
    return {fill: cs.fill, fillOpacity: parseFloat(cs.fillOpacity), stroke: cs.stroke,
            strokeWidth: parseFloat(cs.strokeWidth), opacity: parseFloat(cs.opacity),
            cls: el.getAttribute("class") || ""};
  };
  // What is painted under a point of this SVG: the topmost shape there, or the page.
  const under = (x, y) => {
    for (const el of document.elementsFromPoint(x, y)) {
      if (!svg.contains(el) || el === svg) continue;
      if (el.closest("text")) continue;
      const p = paint(el);
      if (p.fill !== "none") return {fill: p.fill, alpha: p.fillOpacity * p.opacity};
      if (p.stroke !== "none") return {fill: p.stroke, alpha: p.opacity};
    }
    return null;
  };
  const texts = [];
  svg.querySelectorAll("text, text tspan").forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 0.5) return;
    const ymid = (r.top + r.bottom) / 2;
    const xs = [r.left + 2, (r.left + r.right) / 2, r.right - 2];
    texts.push({
      text: el.textContent, tag: el.tagName, box: box(r),
      px: parseFloat(getComputedStyle(el).fontSize) * scale,
      fill: getComputedStyle(el).fill,
      under: xs.map((x) => under(x, ymid)),
    });
  });
  const shapes = [];
  svg.querySelectorAll("rect, line, path, polygon, circle").forEach((el) => {
    const p = paint(el);
    shapes.push(p);
  });
  return {
    name: fig.id, page: page, svgBox: box(svg.getBoundingClientRect()),
    figBox: box(fig.getBoundingClientRect()), caption: fig.querySelector("figcaption").textContent,
    texts: texts, shapes: shapes,
  };
}
"""


def read_diagrams(pg) -> dict[int, dict | str]:
    """From the top of the page, the window resized to each of ``DIAGRAM_WIDTHS`` in turn at
    ``DIAGRAM_HEIGHT`` (no reload: the diagrams are laid out by CSS alone, and the page's
    figures are waited for as figures.js redraws them at a new width). Per width: what the
    checks judge, or the error that stopped the reading there."""
    out: dict[int, dict | str] = {}
    pg.evaluate("window.scrollTo(0, 0)")
    for width in DIAGRAM_WIDTHS:
        try:
            before = pg.evaluate(DRAWS)
            redraws = pg.evaluate("window.innerWidth") != width
            pg.set_viewport_size({"width": width, "height": DIAGRAM_HEIGHT})
            if redraws:
                pg.wait_for_function(
                    f"before => {DRAWS}.every((t, i) => t > before[i])",
                    arg=before,
                    timeout=DRAW_TIMEOUT,
                )
            settle(pg)
            figures = pg.locator("figure.book-diagram")
            read = []
            for i in range(figures.count()):
                fig = figures.nth(i)
                fig.scroll_into_view_if_needed()
                read.append(fig.evaluate(DIAGRAM))
            out[width] = {
                "scheme": colour_scheme(pg),
                "count": figures.count(),
                "scroll_width": pg.evaluate("document.documentElement.scrollWidth"),
                "errors": [e for e in pg.errors if e.startswith("uncaught: ")],
                "diagrams": read,
            }
        except Exception:
            out[width] = traceback.format_exc()
    return out
