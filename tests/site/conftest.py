"""Fixtures for the site tests: one strict build per session, a loopback server, Chromium."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def mkdocs_build(config: Path, dest: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(dest)],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=300,
    )


def nav_pages() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages: list[str] = []

    def walk(node):
        if isinstance(node, str):
            pages.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)

    walk(config["nav"])
    return pages


def html_for(md: str) -> str:
    return "index.html" if md == "index.md" else md[: -len(".md")] + "/index.html"


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


def chromium_path() -> str:
    for candidate in (os.environ.get("BOOK_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    pytest.fail("no Chromium found: `make test` installs Debian's chromium, or set BOOK_CHROMIUM")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()
