"""A real headless Chromium opens every page of the built site.

Per page: no console errors or uncaught exceptions, no request leaves the local server,
every figure has drawn its traces, and the page's weight (what it downloads, compressed)
stays within budget: no plotting library at all on a page without figures. On a figure
with data from several GPUs, the device buttons switch the plot and its provenance; the
light/dark toggle redraws it.

Each page is opened once per colour scheme (tests/site/visits.py); each check below reads
what that visit recorded, so a failure still names its page and its check.
"""

from __future__ import annotations

import gzip

import pytest

from tests.site.support import figure_pages, nav_pages
from tests.site.visits import instrument, per_page, url_of, wait_for_figures

PAGES = nav_pages()


# Page weight, compressed (issue "reading experience"): a reader on a slow link should not
# download a plotting library to read text, and a page with figures should stay light.
TEXT_PAGE_BUDGET = 300 * 1024
FIGURE_PAGE_BUDGET = 700 * 1024
FIGURES = set(figure_pages())
# The search index is one file for the whole site: the first page a reader opens fetches it
# and every later page takes it from the browser's cache. It grows with the book, so it is
# weighed once, against its own budget, not inside every page's.
SEARCH_INDEX = "search/search_index.json"
SEARCH_INDEX_BUDGET = 340 * 1024  # grows with the text: 300 KB held lessons 01-14, 340 holds 01-18


def test_search_index_weight(built_site):
    size = len(gzip.compress((built_site / SEARCH_INDEX).read_bytes()))
    assert size <= SEARCH_INDEX_BUDGET, f"{SEARCH_INDEX}: {size / 1024:.0f} KB compressed"


@pytest.mark.parametrize("md", per_page(PAGES))
def test_page_weight(visit, md):
    compressed = visit(md)["figures"]["compressed"]
    total = sum(v for u, v in compressed.items() if not u.endswith(SEARCH_INDEX))
    plotting = [u for u in compressed if "plotly" in u]
    if md in FIGURES:
        assert total <= FIGURE_PAGE_BUDGET, f"{md}: {total / 1024:.0f} KB compressed"
    else:
        assert not plotting, f"{md} has no figure but loads {plotting}"
        budget = TEXT_PAGE_BUDGET  # lab pages too: the build drops JupyterLab's theme CSS
        assert total <= budget, f"{md}: {total / 1024:.0f} KB compressed"


@pytest.mark.parametrize("md", per_page(PAGES))
def test_page_loads_clean_and_local(visit, site_url, md):
    v = visit(md)
    assert v["load"], f"{md}: the first heading is empty"
    clean = v["clean"]
    assert not clean["errors"], clean["errors"]
    outside = [
        u
        for u in clean["requests"]
        if not (u.startswith(site_url) or u.startswith("data:") or u.startswith("blob:"))
    ]
    assert not outside, f"requests outside the site: {outside}"


@pytest.mark.parametrize("md", per_page(figure_pages()))
def test_figure_pages_draw_their_figures(visit, md):
    assert visit(md)["figures"]["count"] >= 1, f"{md} shows no figure"


def test_device_switch_and_theme_toggle(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    instrument(page)
    try:
        page.goto(url_of(site_url, "building/07-vector-add.md"), wait_until="networkidle")
        wait_for_figures(page)
        fig = page.locator(".book-figure").first
        caption = fig.locator(".book-figure__caption")
        buttons = fig.locator(".book-figure__devices button")
        first_caption = caption.inner_text()
        assert first_caption.startswith("Measured on ")
        if buttons.count() > 1:
            buttons.nth(1).click()
            page.wait_for_timeout(300)
            assert fig.get_attribute("data-device") == buttons.nth(1).get_attribute("data-slug")
            assert caption.inner_text() != first_caption
            assert buttons.nth(1).get_attribute("aria-pressed") == "true"
            assert fig.locator(".scatterlayer .trace").count() > 0

        def axis_title_colour():
            return fig.locator(".xtitle").first.evaluate("e => getComputedStyle(e).fill")

        light = axis_title_colour()
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        page.locator("label.md-header__button[for^='__palette']").first.click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
        page.wait_for_timeout(300)
        assert axis_title_colour() != light, "figure did not follow the dark palette"
        assert fig.locator(".scatterlayer .trace").count() > 0
        assert not page.errors, page.errors
    finally:
        context.close()


# Accessibility: axe-core (the engine browsers' own audits use) finds no serious or critical
# violation on any page, in the light or the dark palette. Moderate ones are reported, not
# failed: Material labels each code block's navigation landmark the same way.
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("md", per_page(PAGES))
def test_no_serious_accessibility_violation(visit, md, scheme):
    axe = visit(md, scheme)["axe"]
    expected = "slate" if scheme == "dark" else "default"
    assert axe["scheme"] == expected
    serious = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
        for v in axe["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not serious, f"{md} [{scheme}]: " + "; ".join(serious)
