"""Fixtures for the site tests: one strict build per session, a loopback server, Chromium.

(Helpers live in tests/site/support.py.)
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import pytest

from scripts.book.browser import find_installed
from scripts.book.hook import FIGURE_SCRIPTS
from tests.site import visits
from tests.site.support import ROOT, html_for, mkdocs_build, serve, shared_build

# The committed data the build embeds for a page's widgets (scripts/book/hook.py).
WIDGET_DATA = re.compile(
    r'<script type="application/json" id="book-widget-data">.*?</script>', re.S
)
# The scripts that draw a page's measured figures (Plotly, then figures.js), as the hook
# adds them to a page with a figure. A widget test's page gets each as an empty script, so
# Chromium spends nothing drawing figures there: the figures are checked by their own
# per-page visits (tests/site/visits.py), which load the real scripts.
FIGURE_SCRIPT_URL = re.compile(
    r"/(?:" + "|".join(re.escape(src) for src in FIGURE_SCRIPTS) + r")(?:[?#].*)?$"
)


def skip_figure_scripts(route) -> None:
    route.fulfill(
        status=200,
        content_type="text/javascript",
        body="/* the figures are not drawn in widget tests (tests/site/conftest.py) */",
    )


# Material's search index: a widget test's page gets it with no documents (the search box
# works, on nothing), as the dark visits do (tests/site/visits.py). Each page's clean load
# with the real index is checked by its light visit (tests/site/test_browser.py).
SEARCH_INDEX_URL = visits.SEARCH_INDEX_URL
empty_search_index = visits.empty_search_index
serve_search_index_empty = visits.serve_search_index_empty


def skip_figures_and_search(context, site: str) -> None:
    """Route a browser context's figure scripts and search index (of the site served at
    ``site``) as above. On the context, so that closing it can first drop a route still in
    flight: ``close_routed``."""
    context.route(FIGURE_SCRIPT_URL, skip_figure_scripts)
    serve_search_index_empty(context, site)


def close_routed(context) -> None:
    """Close a context whose page may still be fetching (the search index comes after load)."""
    context.unroute_all(behavior="ignoreErrors")
    context.close()


def pytest_collection_modifyitems(items):
    """A test that drives Chromium (uses the ``browser`` fixture, directly or through
    ``open_page`` or ``visit``) is marked ``browser``: `make test-fast` leaves those out."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """One strict build of the site per run: under xdist it is built once in the run's
    shared temporary folder (started by the controller as the run begins, tests/conftest.py;
    else by the first worker that asks) while the workers wait, then every worker reads that
    build (and its outcome: a failed build fails each worker's tests alike)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        dest = tmp_path_factory.mktemp("site")
        result = mkdocs_build(ROOT / "mkdocs.yml", dest)
        assert result.returncode == 0, f"strict build failed:\n{result.stdout}\n{result.stderr}"
        return dest
    shared = tmp_path_factory.getbasetemp().parent  # this run's, above each worker's own
    dest, returncode, stdout, stderr = shared_build(shared)
    assert returncode == 0, f"strict build failed:\n{stdout}\n{stderr}"
    return dest


@pytest.fixture(scope="session")
def site_url(built_site):
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # An installed Chromium/Chrome (scripts/book/browser.py's order), else None: Playwright's
    # own managed Chromium, which `make test` installs where there is no other.
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=find_installed(),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="session")
def visit(browser, site_url):
    """``visit(md, scheme="light")``: the one visit of page ``md`` in that colour scheme
    (tests/site/visits.py), made the first time a check asks for it, then shared by every
    check of the page on this worker."""
    done: dict[tuple[str, str], visits.Visit] = {}

    def _visit(md: str, scheme: str = "light") -> visits.Visit:
        if (md, scheme) not in done:
            done[md, scheme] = visits.visit(browser, site_url, md, scheme)
        return done[md, scheme]

    return _visit


def _open_page(
    browser,
    site_url,
    contexts,
    width=1280,
    scheme="light",
    md="model/02-programs-and-tiles.md",
    url=None,
    without_widget_data=False,
    draw_figures=False,
    search=False,
):
    """What ``open_page`` and ``shared_page`` do to open a page (see ``open_page``)."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    contexts.append(context)
    if not draw_figures:
        context.route(FIGURE_SCRIPT_URL, skip_figure_scripts)
    if not search:
        serve_search_index_empty(context, url or site_url)
    pg = context.new_page()
    pg.errors = []
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.errors.append(f"uncaught: {e}"))
    address = f"{url or site_url}/{html_for(md).removesuffix('index.html')}"
    if without_widget_data:

        def strip(route):
            response = route.fetch()
            route.fulfill(response=response, body=WIDGET_DATA.sub("", response.text()))

        pg.route(address, strip)
    # "load", then the widgets mounted (and, with ``draw_figures``, the page's figures
    # drawn), rather than "networkidle": what a widget needs is in the page (its data
    # embedded, no web fonts); what the network does after load (the search index) is
    # checked once per page by test_browser.py's clean load, and waiting for it here cost
    # half a second a test.
    pg.goto(address, wait_until="load")
    pg.wait_for_selector(".book-widget[data-mounted='true']")
    if draw_figures:
        pg.wait_for_function(visits.FIGURES_DRAWN, timeout=visits.DRAW_TIMEOUT)
    return pg


@pytest.fixture
def open_page(browser, site_url):
    """Opens a page of the built site (lesson 02 unless told) once its widgets are mounted;
    the page records console errors and uncaught exceptions in ``pg.errors``.

    Each widget's browser test lives in its own file, tests/site/test_widget_NAME.py, and
    uses this fixture with ``widget`` and ``outputs`` from tests/site/support.py.
    ``url``: another built site (one made from other data); ``without_widget_data``: the
    page as served minus the committed data the build embeds for its widgets, to check
    what a widget shows when no device has measured anything. The page's figures are not
    drawn (its figure scripts are served empty: see ``FIGURE_SCRIPT_URL``) unless
    ``draw_figures``, and the site's search index is served with no documents unless
    ``search``: a widget test checks the widget, and every figure is drawn and checked, and
    every page loaded with its search index, by the page visits of tests/site/visits.py."""
    contexts = []
    yield functools.partial(_open_page, browser, site_url, contexts)
    for context in contexts:
        close_routed(context)


@pytest.fixture(scope="session")
def shared_page(browser, site_url):
    """``shared_page(width=1280, scheme="light", md=...)``: a page opened as ``open_page``
    opens one, but once per worker for each (md, width, scheme) and handed to every test
    that asks for it. Only for the cases of a parametrised check that set every input of
    the widget themselves before reading it, so that no case depends on what the one
    before left. Each time it is handed out, ``pg.errors`` holds the errors of the page's
    load and nothing else: a case fails on an error of the load or of its own steps."""
    contexts, pages = [], {}

    def _shared(width=1280, scheme="light", md="model/02-programs-and-tiles.md"):
        if (md, width, scheme) not in pages:
            pg = _open_page(browser, site_url, contexts, width, scheme, md)
            pages[md, width, scheme] = (pg, list(pg.errors))
        pg, at_load = pages[md, width, scheme]
        pg.errors = list(at_load)
        return pg

    yield _shared
    for context in contexts:
        close_routed(context)
