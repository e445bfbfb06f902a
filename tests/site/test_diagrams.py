"""The book's diagrams (docs/assets/diagrams, drawn by scripts/book/diagrams, placed with
``{{ diagram NAME | caption }}``).

Without a browser: every SVG is what its module draws, is valid XML with a title and a
description that an assistive technology reads, takes its colours only from the classes
in book.css, and is placed exactly once, on a line of its own, by some page; a page that
names an unknown diagram, or forgets the caption, fails the build; each built page holds
exactly the diagrams its Markdown places.

In Chromium (marked ``browser``), every page with a diagram, in the light and the dark
palette, 1280 and 390 px wide: each diagram is drawn; no text is smaller than
``MIN_FONT_PX`` on screen, sticks out of its SVG, or overlaps another text; every text has
at least 4.5:1 contrast against what lies under it, and every visible shape 3:1 against
the page; nothing scrolls sideways.
"""

from __future__ import annotations

import re
import traceback
import xml.etree.ElementTree as ET

import pytest
from mkdocs.exceptions import PluginError

from scripts.book import diagrams
from scripts.book.hook import expand_diagrams
from tests.site.support import DOCS, ROOT, contrast, html_for, nav_pages, over, rgba
from tests.site.visits import DRAWS, per_page, settle

SVG_NS = "{http://www.w3.org/2000/svg}"
FOLDER = ROOT / "docs" / "assets" / "diagrams"
CSS = ROOT / "docs" / "assets" / "css" / "book.css"
PLACEHOLDER = re.compile(r"\{\{\s*diagram\s+([a-z0-9-]+)\s*\|(.*?)\}\}", re.S)

MIN_FONT_PX = 10.0
MIN_TEXT_CONTRAST = 4.5  # WCAG 2.x AA for normal text
MIN_SHAPE_CONTRAST = 3.0  # WCAG 2.x non-text contrast
SLACK_PX = 1.0


def placements() -> dict[str, list[str]]:
    """Diagram name -> the pages (paths under docs/) that place it, from their Markdown."""
    out: dict[str, list[str]] = {}
    for md in nav_pages():
        if md.endswith(".md"):
            for name, _ in PLACEHOLDER.findall((DOCS / md).read_text()):
                out.setdefault(name, []).append(md)
    return out


def diagram_pages() -> list[str]:
    return sorted({md for pages in placements().values() for md in pages})


# ---- the files ---------------------------------------------------------------------------


def test_every_svg_is_what_its_module_draws():
    files = sorted(p.stem for p in FOLDER.glob("*.svg"))
    assert files == diagrams.names(), "an SVG without a module, or a module without its SVG"
    stale = [n for n in diagrams.names() if (FOLDER / f"{n}.svg").read_text() != diagrams.render(n)]
    assert not stale, f"regenerate with `python -m scripts.book.diagrams`: {stale}"


def css_classes() -> set[str]:
    return set(re.findall(r"\.book-diagram \.(d-[a-z0-9-]+)", CSS.read_text()))


@pytest.mark.parametrize("name", diagrams.names())
def test_svg_is_valid_described_and_coloured_by_classes_only(name):
    root = ET.parse(FOLDER / f"{name}.svg").getroot()  # raises on invalid XML
    assert root.tag == f"{SVG_NS}svg"
    assert re.fullmatch(r"0 0 [0-9.]+ [0-9.]+", root.get("viewBox", ""))
    title, desc = root.find(f"{SVG_NS}title"), root.find(f"{SVG_NS}desc")
    assert title is not None and len(title.text.split()) >= 4, "a title of a few words"
    assert desc is not None and len(desc.text.split()) >= 25, "a description that says it all"
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{name}-title {name}-desc"
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert ids == [f"{name}-title", f"{name}-desc"], "ids must be unique on a page"
    known = css_classes()
    for e in root.iter():
        painted = {"fill", "stroke", "color", "style", "opacity"} & set(e.attrib)
        assert not painted or (e is root and painted == {"style"}), f"{e.tag}: {painted}"
        for cls in e.get("class", "").split():
            assert cls in known, f"{name}: class {cls} has no rule in book.css"
    assert re.fullmatch(r"max-width:[0-9.]+px", root.get("style", ""))


def test_each_diagram_is_placed_once_by_a_page():
    placed = placements()
    assert sorted(placed) == diagrams.names(), "a diagram no page places, or an unknown name"
    twice = {n: p for n, p in placed.items() if len(p) > 1}
    assert not twice, twice


@pytest.mark.parametrize("md", diagram_pages())
def test_placeholders_stand_alone_with_a_caption(md):
    text = (DOCS / md).read_text()
    for m in PLACEHOLDER.finditer(text):
        before, after = text[: m.start()], text[m.end() :]
        assert before.endswith("\n\n"), f"{md}: {m.group(1)} must start a block"
        assert after.startswith("\n\n") or after.strip() == "", f"{md}: {m.group(1)} ends a block"
        assert len(m.group(2).split()) >= 8, f"{md}: {m.group(1)} needs a real caption"


def test_an_unknown_diagram_or_a_missing_caption_fails_the_build():
    with pytest.raises(PluginError, match="no diagram 'no-such-thing'"):
        expand_diagrams("Text.\n\n{{ diagram no-such-thing | A caption. }}\n", "x.md")
    with pytest.raises(PluginError, match="caption"):
        expand_diagrams(f"Text.\n\n{{{{ diagram {diagrams.names()[0]} }}}}\n", "x.md")
    out = expand_diagrams(f"\n{{{{ diagram {diagrams.names()[0]} | Its `caption`. }}}}\n", "x")
    assert '<figure class="book-diagram"' in out and "<figcaption" in out


def test_built_pages_hold_exactly_their_diagrams(built_site):
    placed = placements()
    for md in nav_pages():
        html = (built_site / html_for(md)).read_text()
        shown = sorted(re.findall(r'<figure class="book-diagram" id="diagram-([a-z0-9-]+)"', html))
        assert shown == sorted(n for n, pages in placed.items() if md in pages), md
        assert "{{ diagram" not in html, md


# ---- in the browser -----------------------------------------------------------------------

COLLECT = r"""
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


def overlap(a: dict, b: dict) -> bool:
    return (
        min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > SLACK_PX
        and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > SLACK_PX
    )


def problems(fig: dict) -> list[str]:
    out = []
    page = rgba(fig["page"])[:3]
    s = fig["svgBox"]
    if s["x1"] - s["x0"] < 200 or s["y1"] - s["y0"] < 100:
        out.append(f"not drawn: {s}")
    if len(fig["caption"].split()) < 8:
        out.append(f"caption {fig['caption']!r}")
    for t in fig["texts"]:
        label = repr(t["text"][:40])
        b = t["box"]
        if t["px"] < MIN_FONT_PX:
            out.append(f"{label} at {t['px']:.1f} px")
        if t["tag"] == "text" and not (
            b["x0"] >= s["x0"] - SLACK_PX
            and b["x1"] <= s["x1"] + SLACK_PX
            and b["y0"] >= s["y0"] - SLACK_PX
            and b["y1"] <= s["y1"] + SLACK_PX
        ):
            out.append(f"{label} sticks out of the SVG: {b} not in {s}")
        colour = rgba(t["fill"])
        for u in t["under"]:
            bg = page if u is None else over(rgba(u["fill"]), rgba(u["fill"])[3] * u["alpha"], page)
            c = contrast(over(colour, colour[3], bg), bg)
            if c < MIN_TEXT_CONTRAST:
                out.append(f"{label}: contrast {c:.2f} on {tuple(round(v) for v in bg)}")
                break
    whole = [t for t in fig["texts"] if t["tag"] == "text"]
    for i, a in enumerate(whole):
        for b in whole[i + 1 :]:
            if overlap(a["box"], b["box"]):
                out.append(f"{a['text'][:30]!r} overlaps {b['text'][:30]!r}")
    for sh in fig["shapes"]:
        seen = []
        if sh["stroke"] != "none" and sh["strokeWidth"] >= 1:
            st = rgba(sh["stroke"])
            seen.append(contrast(over(st, st[3] * sh["opacity"], page), page))
        if sh["fill"] != "none":
            f = rgba(sh["fill"])
            seen.append(contrast(over(f, f[3] * sh["fillOpacity"] * sh["opacity"], page), page))
        if max(seen, default=1.0) < 1.05:
            continue  # paints nothing the page does not already show (a label's knock-out)
        if max(seen, default=0) < MIN_SHAPE_CONTRAST:
            out.append(f"shape {sh['cls']!r}: contrast {max(seen):.2f} against the page")
    return [f"{fig['name']}: {p}" for p in out]


WIDTHS = (1280, 390)
HEIGHT = 1400  # a tall diagram fits the window whole: what lies under its texts is on screen


def read_diagrams(browser, site_url: str, md: str, scheme: str) -> dict[int, dict | str]:
    """Open ``md`` once in ``scheme`` at the first of ``WIDTHS``, then resize the window to
    each next one (no reload: the diagrams are laid out by CSS alone, and the page's figures
    are waited for as figures.js redraws them at the new width). Per width: what the check
    judges, or the error that stopped the reading there."""
    out: dict[int, dict | str] = {}
    context = browser.new_context(
        viewport={"width": WIDTHS[0], "height": HEIGHT}, color_scheme=scheme
    )
    try:
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"{site_url}/{html_for(md).removesuffix('index.html')}", wait_until="networkidle")
        for width in WIDTHS:
            try:
                if width != WIDTHS[0]:
                    before = pg.evaluate(DRAWS)
                    pg.set_viewport_size({"width": width, "height": HEIGHT})
                    pg.wait_for_function(
                        f"before => {DRAWS}.every((t, i) => t > before[i])",
                        arg=before,
                        timeout=15_000,
                    )
                    settle(pg)
                figures = pg.locator("figure.book-diagram")
                found = []
                for i in range(figures.count()):
                    fig = figures.nth(i)
                    fig.scroll_into_view_if_needed()
                    found += problems(fig.evaluate(COLLECT))
                out[width] = {
                    "scheme": pg.evaluate("document.body.getAttribute('data-md-color-scheme')"),
                    "count": figures.count(),
                    "scroll_width": pg.evaluate("document.documentElement.scrollWidth"),
                    "errors": list(errors),
                    "found": found,
                }
            except Exception:
                out[width] = traceback.format_exc()
    finally:
        context.close()
    return out


@pytest.fixture(scope="session")
def diagram_reads(browser, site_url):
    """``diagram_reads(md, scheme)``: ``read_diagrams`` of that page, made the first time a
    check asks for it, then shared by the page's checks at each width on this worker."""
    done: dict[tuple[str, str], dict] = {}

    def _read(md: str, scheme: str) -> dict[int, dict | str]:
        if (md, scheme) not in done:
            done[md, scheme] = read_diagrams(browser, site_url, md, scheme)
        return done[md, scheme]

    return _read


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("md", per_page(diagram_pages()))
def test_diagrams_draw_and_read_well(diagram_reads, md, scheme, width):
    read = diagram_reads(md, scheme)[width]
    if isinstance(read, str):
        pytest.fail(f"reading {md} [{scheme}, {width} px] failed:\n{read}", pytrace=False)
    expected = "slate" if scheme == "dark" else "default"
    assert read["scheme"] == expected
    names = [n for n, pages in placements().items() if md in pages]
    assert read["count"] == len(names) > 0
    assert read["scroll_width"] <= width, "scrolls sideways"
    assert not read["errors"], read["errors"]
    found = read["found"]
    assert not found, f"{md} [{scheme}, {width} px]:\n" + "\n".join(found)
