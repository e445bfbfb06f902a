"""Fixtures for the site tests: one strict build per session, a loopback server, Chromium.

(Helpers live in tests/site/support.py.)
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from scripts.browser import find_installed
from tests.site.support import ROOT, mkdocs_build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("site")
    result = mkdocs_build(ROOT / "mkdocs.yml", dest)
    assert result.returncode == 0, f"strict build failed:\n{result.stdout}\n{result.stderr}"
    return dest


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # An installed Chromium/Chrome (scripts/browser.py's order), else None: Playwright's
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
