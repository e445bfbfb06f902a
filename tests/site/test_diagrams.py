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
import xml.etree.ElementTree as ET

import pytest
from mkdocs.exceptions import PluginError

from scripts.book import diagrams
from scripts.book.hook import expand_diagrams
from tests.site.support import (
    DIAGRAM_PLACEHOLDER as PLACEHOLDER,
)
from tests.site.support import (
    DOCS,
    ROOT,
    contrast,
    diagram_pages,
    html_for,
    nav_pages,
    over,
    placements,
    rgba,
)
from tests.site.visits import DIAGRAM_WIDTHS as WIDTHS
from tests.site.visits import per_page

SVG_NS = "{http://www.w3.org/2000/svg}"
FOLDER = ROOT / "docs" / "assets" / "diagrams"
CSS = ROOT / "docs" / "assets" / "css" / "book.css"

MIN_FONT_PX = 10.0
MIN_TEXT_CONTRAST = 4.5  # WCAG 2.x AA for normal text
MIN_SHAPE_CONTRAST = 3.0  # WCAG 2.x non-text contrast
SLACK_PX = 1.0


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

# What each diagram is read for (COLLECT) is in tests/site/visits.py: the page's visits
# in each scheme read its diagrams at both widths; the checks here only judge.


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


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("md", per_page(diagram_pages()))
def test_diagrams_draw_and_read_well(visit, md, scheme, width):
    read = visit(md, scheme)["diagrams"][width]
    if isinstance(read, str):
        pytest.fail(f"reading {md} [{scheme}, {width} px] failed:\n{read}", pytrace=False)
    expected = "slate" if scheme == "dark" else "default"
    assert read["scheme"] == expected
    names = [n for n, pages in placements().items() if md in pages]
    assert read["count"] == len(names) > 0
    assert read["scroll_width"] <= width, "scrolls sideways"
    assert not read["errors"], read["errors"]
    found = [p for fig in read["diagrams"] for p in problems(fig)]
    assert not found, f"{md} [{scheme}, {width} px]:\n" + "\n".join(found)
