"""Reading on a phone (issue 20): tables and code blocks at 390 px.

- Tables: at 390 px 25 tables scrolled sideways with no sign of it. Now a table either fits
  the screen (tighter cells on phones) or says so: a line above it, the edge where more
  columns wait faded, and its first column, which names the row, kept in place while the
  rest scroll (docs/assets/js/a11y.js, book.css). The scoreboard's lesson 12 tables show
  every comparison column at once.
- Code blocks: the copy button sits in a gutter of its own, never over the text (a one-line
  formula ran under it), and a block wider than the screen fades at the edge where more
  code waits.
Pages with tables are found from the text, not listed.
"""

from __future__ import annotations

import pytest

from tests.site.conftest import close_routed, skip_figures_and_search
from tests.site.support import DOCS, figure_pages, html_for, nav_pages
from tests.site.visits import per_page

PHONE = 390


def table_pages() -> list[str]:
    return [
        md
        for md in nav_pages()
        if md.endswith(".md")
        and any(
            line.startswith("|---") or line.startswith("{{ table ")
            for line in (DOCS / md).read_text().splitlines()
        )
    ]


@pytest.fixture
def phone(browser, site_url):
    """Opens a page at a phone's width. As for the widget tests (tests/site/conftest.py),
    its figure scripts are served empty and its search index with no documents: these
    checks read tables and code blocks. The figures are drawn at 390 px, and their pages
    checked for uncaught exceptions there, by the visits (the last test below)."""
    contexts = []

    def _open(md: str, scheme: str = "light", width: int = PHONE):
        context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
        contexts.append(context)
        skip_figures_and_search(context, site_url)
        pg = context.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(f"uncaught: {e}"))
        pg.goto(f"{site_url}/{html_for(md).removesuffix('index.html')}", wait_until="load")
        return pg

    yield _open
    for context in contexts:
        close_routed(context)


# Per table wrapper: whether it scrolls, its data-scroll, the cue above it, and the x of the
# first and second cells of its first body row.
WRAPS = """() => [...document.querySelectorAll('.md-typeset__scrollwrap')].map(w => {
  const cue = w.previousElementSibling;
  const row = w.querySelector('tbody tr');
  const x = (i) => row.children[i] ? row.children[i].getBoundingClientRect().left : null;
  return {wide: w.scrollWidth > w.clientWidth + 1, scrollable: w.dataset.scrollable || null,
          scroll: w.dataset.scroll || null, mask: getComputedStyle(w).maskImage,
          cue: cue && cue.classList.contains('book-table-cue') && !cue.hidden
               ? cue.textContent : null,
          first: x(0), second: x(1), head: w.querySelector('th').textContent};
})"""


def scroll_all(pg, where: str) -> None:
    pg.evaluate(
        "where => document.querySelectorAll('.md-typeset__scrollwrap').forEach(w => {"
        " w.scrollLeft = where === 'end' ? w.scrollWidth : 0;"
        " w.dispatchEvent(new Event('scroll')); })",
        where,
    )


@pytest.mark.parametrize("md", table_pages())
def test_a_table_fits_a_phone_or_says_it_scrolls(phone, md):
    pg = phone(md)
    before = pg.evaluate(WRAPS)
    assert before, f"{md}: no table found"
    for t in before:
        if not t["wide"]:
            assert t["scrollable"] is None and t["cue"] is None and t["scroll"] is None, t
            continue
        assert t["scrollable"] == "true", t
        assert t["cue"] and "scroll the table sideways" in t["cue"], t
        assert t["scroll"] == "start" and t["mask"] != "none", t
    scroll_all(pg, "end")
    after = pg.evaluate(WRAPS)
    for b, a in zip(before, after, strict=True):
        if not b["wide"]:
            continue
        assert a["scroll"] == "end" and a["mask"] == "none", a  # nothing more waits: no fade
        # The first column slides over the table's own margin to the screen's edge and
        # stays there; the others scroll on under it.
        assert 0 <= a["first"] <= b["first"], f"the first column left the screen: {b} -> {a}"
        moved = b["second"] - a["second"]
        assert moved > 0 and moved >= b["first"] - a["first"], f"no column scrolled: {b} -> {a}"
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_sticky_column_hides_what_scrolls_under_it(phone, scheme):
    """Lesson 01's decision table is wider than a phone in any case: its first column's
    cells are opaque, in the page's own background, in both palettes."""
    pg = phone("model/01-why-triton.md", scheme)
    wide = [t for t in pg.evaluate(WRAPS) if t["wide"]]
    assert wide, "lesson 01's decision table should scroll at 390 px"
    colours = pg.evaluate(
        "() => { const w = document.querySelector('.md-typeset__scrollwrap[data-scrollable]');"
        " const td = w.querySelector('tbody td'); const s = getComputedStyle(td);"
        " return [s.position, s.backgroundColor,"
        " getComputedStyle(document.body).getPropertyValue('--md-default-bg-color').trim()]; }"
    )
    assert colours[0] == "sticky", colours
    assert colours[1] not in ("rgba(0, 0, 0, 0)", "transparent"), colours


def test_the_scoreboard_shows_lesson_12s_comparisons_on_a_phone(phone):
    """Every column of lesson 12's two tables (the case, the peer, one per GPU) is on the
    screen at once, with no sideways scrolling."""
    pg = phone("appendix/scoreboard.md")
    boxes = pg.evaluate(
        "() => { const h = document.getElementById('lesson-12'); const out = [];"
        " let e = h.nextElementSibling;"
        " while (e && !(e.tagName === 'H2')) {"
        "  const wraps = e.matches('.md-typeset__scrollwrap') ? [e]"
        "   : [...e.querySelectorAll('.md-typeset__scrollwrap')];"
        "  wraps.forEach(w => out.push({"
        "   wide: w.scrollWidth > w.clientWidth + 1,"
        "   cells: [...w.querySelectorAll('th, td')].map(c => c.getBoundingClientRect().right),"
        "   heads: [...w.querySelectorAll('th')].map(c => c.textContent.trim())}));"
        "  e = e.nextElementSibling; }"
        " return out; }"
    )
    assert len(boxes) == 2, boxes  # forward and backward
    for table in boxes:
        assert len(table["heads"]) >= 4, table["heads"]
        assert not table["wide"], table["heads"]
        assert max(table["cells"]) <= PHONE, table["heads"]


@pytest.mark.parametrize(("scheme", "width"), [("light", PHONE), ("dark", PHONE), ("light", 1280)])
def test_the_copy_button_never_covers_code(phone, scheme, width):
    """Lesson 11's one-line derivative ran under the copy button; now no code block's text
    box reaches under its button, and a block wider than the screen fades at its edge
    until it is scrolled to the end."""
    pg = phone("building/11-rmsnorm.md", scheme, width)
    blocks = pg.evaluate(
        "() => [...document.querySelectorAll('.md-typeset pre > code')].map(c => {"
        " const nav = c.parentElement.querySelector('.md-code__nav');"
        " const cr = c.getBoundingClientRect();"
        " return {nav: nav ? nav.getBoundingClientRect().left : null, right: cr.right,"
        "  wide: c.scrollWidth > c.clientWidth + 1, scroll: c.dataset.scroll || null,"
        "  mask: getComputedStyle(c).maskImage, text: c.textContent.slice(0, 40)}; })"
    )
    assert len(blocks) > 5
    for b in blocks:
        assert b["nav"] is not None, b
        assert b["right"] <= b["nav"] + 0.5, b
        if b["wide"]:
            assert b["scroll"] == "start" and b["mask"] != "none", b
        else:
            assert b["scroll"] is None and b["mask"] == "none", b
    if width == PHONE:
        assert any(b["wide"] for b in blocks), "some formula should be wider than a phone"
        pg.evaluate(
            "() => document.querySelectorAll('.md-typeset pre > code').forEach(c => {"
            " c.scrollLeft = c.scrollWidth; c.dispatchEvent(new Event('scroll')); })"
        )
        ends = pg.evaluate(
            "() => [...document.querySelectorAll('.md-typeset pre > code')]"
            ".filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.dataset.scroll)"
        )
        assert set(ends) == {"end"}, ends
    assert not pg.errors, pg.errors


def math_pages() -> list[str]:
    """Pages with a formula block (the book writes formulas as ```text blocks of Unicode
    math), found from the text."""
    return [md for md in nav_pages() if md.endswith(".md") and "```text" in (DOCS / md).read_text()]


# Per code block of the page: its box and its copy button's, whether its text is wider or
# taller than the box, how it overflows, and its scroll cue.
BLOCKS = """() => [...document.querySelectorAll('.md-typeset pre > code')].map(c => {
  const pre = c.parentElement, nav = pre.querySelector('.md-code__nav');
  const cr = c.getBoundingClientRect(), pr = pre.getBoundingClientRect();
  const s = getComputedStyle(c);
  return {text: c.textContent.slice(0, 40), math: !!c.closest('.language-text'),
          nav: nav ? nav.getBoundingClientRect().left : null, right: cr.right,
          pre: [pr.left, pr.right], screen: document.documentElement.clientWidth,
          wide: c.scrollWidth > c.clientWidth + 1, tall: c.scrollHeight > c.clientHeight + 1,
          overflow: s.overflowX, scroll: c.dataset.scroll || null, mask: s.maskImage};
})"""


@pytest.mark.parametrize("md", math_pages())
def test_no_formula_is_clipped_or_under_the_copy_button_on_a_phone(phone, md):
    """Every code block of a page with formulas, at 390 px: on the screen, its text left
    of its copy button, never cut off (a line wider than the screen scrolls sideways, and
    the edge where it goes on fades), nothing hidden below its box."""
    pg = phone(md)
    blocks = pg.evaluate(BLOCKS)
    assert any(b["math"] for b in blocks), f"{md}: no formula block found"
    for b in blocks:
        assert b["nav"] is not None and b["right"] <= b["nav"] + 0.5, (md, b)
        assert 0 <= b["pre"][0] and b["pre"][1] <= b["screen"] + 0.5, (md, b)
        assert not b["tall"], (md, b)
        if b["wide"]:
            assert b["overflow"] in ("auto", "scroll"), (md, b)
            assert b["scroll"] == "start" and b["mask"] != "none", (md, b)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("md", per_page(figure_pages()))
def test_figure_pages_raise_nothing_on_a_phone(visit, md, scheme):
    """A page with figures, opened on a 390 px touch screen and read until every figure is
    drawn, raises no uncaught exception (the checks above open pages without figures)."""
    errors = visit(md, scheme)["touch-errors"]
    assert not errors, f"{md} [{scheme}] at 390 px: {errors}"
