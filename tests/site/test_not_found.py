"""The 404 page where the site is not at the root of its host (issue 20).

GitHub Pages serves a project's site at https://OWNER.github.io/REPO/ and answers every
missing address under it, at any depth, with the site's 404.html. Every other page links
its assets relatively; 404.html cannot, and links them from the site's root, which MkDocs
takes from ``site_url``. Left empty, that root was ``/``: under /REPO/ the page lost its
CSS and JavaScript and showed the logo full screen. The Pages workflow now gives the
address in BOOK_SITE_URL (scripts/book/hook.py); here the site is built for a sub-path,
served there by a server that answers like Pages, and a missing page is opened in
Chromium: its styles and scripts load, and its links lead back into the site.
"""

from __future__ import annotations

import http.server
from pathlib import Path

import pytest

from scripts.book import hook
from tests.site.support import ROOT, mkdocs_build, serve

PREFIX = "/triton-measured/"  # a project site's path, as Pages serves it


class _PagesLike(http.server.SimpleHTTPRequestHandler):
    """Serves ``directory`` under PREFIX only; anything missing gets 404.html, status 404."""

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        path = path.split("?", 1)[0].split("#", 1)[0]
        if not path.startswith(PREFIX):
            return str(Path(self.directory) / "no-such-file")
        return super().translate_path("/" + path[len(PREFIX) :])

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_like_pages(directory: Path):
    return serve(directory, _PagesLike)


def test_site_url_comes_from_the_environment(monkeypatch):
    config = {"site_url": ""}
    monkeypatch.delenv(hook.SITE_URL_ENV, raising=False)
    hook.site_url_from_env(config)
    assert config["site_url"] == "", "with no BOOK_SITE_URL, mkdocs.yml's stays"
    monkeypatch.setenv(hook.SITE_URL_ENV, "")
    hook.site_url_from_env(config)
    assert config["site_url"] == "", "an empty BOOK_SITE_URL (Pages not configured) is none"
    monkeypatch.setenv(hook.SITE_URL_ENV, "https://owner.github.io/repo")
    hook.site_url_from_env(config)
    assert config["site_url"] == "https://owner.github.io/repo/"


def test_the_pages_workflow_gives_the_address():
    workflow = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    assert "actions/configure-pages" in workflow
    assert "BOOK_SITE_URL: ${{ steps.pages.outputs.base_url }}" in workflow


@pytest.fixture(scope="module")
def sub_path_site(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("sub-path-site")
    result = mkdocs_build(ROOT / "mkdocs.yml", dest, site_url=f"https://example.org{PREFIX}")
    assert result.returncode == 0, f"strict build failed:\n{result.stdout}\n{result.stderr}"
    return dest


def test_404_links_from_the_sites_path(sub_path_site):
    html = (sub_path_site / "404.html").read_text()
    assert f'href="{PREFIX}assets/stylesheets/' in html
    assert 'href="/assets/' not in html and 'src="/assets/' not in html


@pytest.mark.parametrize("missing", ["no-such-page/", "model/99-no-such-lesson/deeper/"])
def test_404_under_a_sub_path_keeps_its_styles(browser, sub_path_site, missing):
    with serve_like_pages(sub_path_site) as origin:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            pg = context.new_page()
            failed: list[str] = []
            pg.on("requestfailed", lambda r: failed.append(r.url))
            pg.on(
                "response",
                lambda r: (
                    failed.append(f"{r.status} {r.url}")
                    if r.status >= 400 and r.request.resource_type != "document"
                    else None
                ),
            )
            response = pg.goto(f"{origin}{PREFIX}{missing}", wait_until="load")
            assert response.status == 404
            assert not failed, failed
            # Material's stylesheet applies: a sticky header, and a logo of icon size.
            assert (
                pg.evaluate("getComputedStyle(document.querySelector('.md-header')).position")
                == "sticky"
            )
            logo = pg.locator(".md-header .md-logo svg").first.bounding_box()
            assert logo is not None and logo["height"] <= 48, logo
            assert pg.locator("h1").first.inner_text().strip() == "404 - Not found"
            # Its links lead back into the site: the first lesson is one click away.
            href = pg.locator('a[href$="model/01-why-triton/"]').first.get_attribute("href")
            assert href.startswith(PREFIX), href
            assert pg.request.get(f"{origin}{href}").status == 200
        finally:
            context.close()
