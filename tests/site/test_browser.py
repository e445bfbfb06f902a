"""A real headless Chromium opens every page of the built site.

Per page: no console errors or uncaught exceptions, no request leaves the local server,
every figure has drawn its traces, and the page's weight (what it downloads, compressed)
stays within budget: no plotting library at all on a page without figures. On a figure
with data from several GPUs, the device buttons switch the plot and its provenance; the
light/dark toggle redraws it.
"""

from __future__ import annotations

import gzip

import pytest

from tests.site.support import figure_pages, html_for, nav_pages

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PAGES = nav_pages()


@pytest.fixture
def page(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
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
    pg.on("response", lambda r: pg.compressed.__setitem__(r.url, compressed_size(r)))
    yield pg
    context.close()


def compressed_size(response) -> int:
    try:
        return len(gzip.compress(response.body()))
    except Exception:  # a redirect or an aborted response has no body
        return 0


# Page weight, compressed (issue "reading experience"): a reader on a slow link should not
# download a plotting library to read text, and a page with figures should stay light.
TEXT_PAGE_BUDGET = 300 * 1024
FIGURE_PAGE_BUDGET = 700 * 1024
FIGURES = set(figure_pages())


@pytest.mark.parametrize("md", PAGES)
def test_page_weight(page, site_url, md):
    page.goto(url_of(site_url, md), wait_until="networkidle")
    wait_for_figures(page)
    total = sum(page.compressed.values())
    plotting = [u for u in page.compressed if "plotly" in u]
    if md in FIGURES:
        assert total <= FIGURE_PAGE_BUDGET, f"{md}: {total / 1024:.0f} KB compressed"
    else:
        assert not plotting, f"{md} has no figure but loads {plotting}"
        budget = TEXT_PAGE_BUDGET  # lab pages too: the build drops JupyterLab's theme CSS
        assert total <= budget, f"{md}: {total / 1024:.0f} KB compressed"


def url_of(site_url: str, md: str) -> str:
    return f"{site_url}/{html_for(md).removesuffix('index.html')}"


def wait_for_figures(pg) -> int:
    figures = pg.locator(".book-figure")
    count = figures.count()
    for i in range(count):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        fig.locator(".main-svg").first.wait_for(state="attached", timeout=15_000)
        traces = fig.locator(".scatterlayer .trace, .barlayer .trace").count()
        assert traces > 0, f"figure {fig.get_attribute('data-figure')} drew no traces"
    return count


@pytest.mark.parametrize("md", PAGES)
def test_page_loads_clean_and_local(page, site_url, md):
    page.goto(url_of(site_url, md), wait_until="networkidle")
    assert page.locator("h1").first.inner_text().strip()
    wait_for_figures(page)
    page.wait_for_timeout(200)
    assert not page.errors, page.errors
    outside = [
        u
        for u in page.requests
        if not (u.startswith(site_url) or u.startswith("data:") or u.startswith("blob:"))
    ]
    assert not outside, f"requests outside the site: {outside}"


@pytest.mark.parametrize("md", figure_pages())
def test_figure_pages_draw_their_figures(page, site_url, md):
    page.goto(url_of(site_url, md), wait_until="networkidle")
    assert wait_for_figures(page) >= 1, f"{md} shows no figure"


def test_device_switch_and_theme_toggle(page, site_url):
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


# Accessibility: axe-core (the engine browsers' own audits use) finds no serious or critical
# violation on any page, in the light or the dark palette. Moderate ones are reported, not
# failed: Material labels each code block's navigation landmark the same way.
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("md", PAGES)
def test_no_serious_accessibility_violation(browser, site_url, md, scheme):
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    pg = context.new_page()
    try:
        pg.goto(url_of(site_url, md), wait_until="networkidle")
        wait_for_figures(pg)
        expected = "slate" if scheme == "dark" else "default"
        assert pg.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
        violations = Axe().run(pg).response["violations"]
    finally:
        context.close()
    serious = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert not serious, f"{md} [{scheme}]: " + "; ".join(serious)
