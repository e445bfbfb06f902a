"""`make serve` for a newcomer (issue 20): a busy port gives one line saying what to do
(`make serve PORT=...`), not MkDocs' traceback; PORT picks the port; the first run says
what it installs and that it happens once."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest

from scripts.book import serve
from tests.site.support import ROOT


@pytest.fixture
def busy_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((serve.HOST, 0))
        s.listen()
        yield s.getsockname()[1]


def run_serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "book" / "serve.py"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_busy_port_says_so_in_one_line(busy_port):
    assert not serve.port_is_free(busy_port)
    result = run_serve(str(busy_port))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"port {busy_port} is already in use" in lines[0]
    assert f"make serve PORT={busy_port + 1}" in lines[0]
    assert not result.stdout  # nothing was built or served


@pytest.mark.parametrize("port", ["http", "0", "70000"])
def test_a_port_that_is_not_one(port):
    result = run_serve(port)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "PORT must be a port number" in result.stderr


def test_a_free_port_is_served_by_mkdocs():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((serve.HOST, 0))
        port = s.getsockname()[1]
    assert serve.port_is_free(port)
    assert serve.command(port)[1:] == ["-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"]


def makefile_dry_run(*args: str) -> str:
    # -B: as if nothing existed yet (a fresh clone); -n: print the commands, run none.
    return subprocess.run(
        ["make", "-n", "-B", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def test_the_makefile_passes_port_and_says_what_it_installs():
    assert re.search(r"scripts/book/serve\.py 8000$", makefile_dry_run("serve"), re.M)
    out = makefile_dry_run("serve", "PORT=8001")
    assert re.search(r"scripts/book/serve\.py 8001$", out, re.M)
    assert "happens once" in out
    assert "Installing the site's pinned packages" in out


def test_site_url_for_a_static_host():
    out = makefile_dry_run("site", "SITE_URL=https://owner.github.io/repo/")
    assert "BOOK_SITE_URL=https://owner.github.io/repo/ " in out
    assert "BOOK_SITE_URL" not in makefile_dry_run("site")


def test_the_readme_names_the_port():
    readme = (ROOT / "README.md").read_text()
    assert "make serve PORT=8001" in readme
