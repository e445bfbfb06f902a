"""Find, or install, the Chromium that the browser tests drive.

    python scripts/book/browser.py ensure      # what `make test` runs before the tests

Order:
1. an installed Chromium or Chrome: $BOOK_CHROMIUM, then chromium, chromium-browser,
   google-chrome, google-chrome-stable, chrome on PATH, then the usual macOS apps;
2. as root on Debian/Ubuntu: Debian's chromium, with apt-get;
3. otherwise Playwright's own managed Chromium (`python -m playwright install chromium`,
   no root; it downloads from Playwright's servers, not from a package registry).

Standard library only. tests/site/conftest.py calls find_installed(): a path, or None to
let Playwright launch its managed browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
MAC_APPS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
APT = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"
PLAYWRIGHT = (sys.executable, "-m", "playwright", "install", "chromium")

Which = Callable[[str], str | None]


def find_installed(env: Mapping[str, str] = os.environ, which: Which = shutil.which) -> str | None:
    """The first installed Chromium/Chrome, as a path, or None."""
    # shutil.which also accepts a path (it then checks that the file is executable).
    for candidate in (env.get("BOOK_CHROMIUM"), *NAMES, *MAC_APPS):
        if candidate and (path := which(candidate)):
            return path
    return None


def plan(env: Mapping[str, str], which: Which, is_root: bool, is_debian: bool) -> tuple[str, str]:
    """What `ensure` does: ("installed", path), ("apt", command) or ("playwright", command)."""
    path = find_installed(env, which)
    if path:
        return "installed", path
    if is_root and is_debian and which("apt-get"):
        return "apt", APT
    return "playwright", " ".join(PLAYWRIGHT)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def ensure() -> int:
    is_debian = Path("/etc/debian_version").exists()
    action, detail = plan(os.environ, shutil.which, _is_root(), is_debian)
    wanted = os.environ.get("BOOK_CHROMIUM")
    if wanted and not shutil.which(wanted):
        print(f"BOOK_CHROMIUM={wanted} is not an executable; looking further", file=sys.stderr)
    if action == "installed":
        print(f"browser tests will use {detail}")
        return 0
    if action == "apt":
        ok = subprocess.run(detail, shell=True).returncode == 0
        path = find_installed() if ok else None
        if path:
            print(f"installed Debian's chromium with apt-get; browser tests will use {path}")
            return 0
    else:
        if subprocess.run(PLAYWRIGHT).returncode == 0:
            print(
                "browser tests will use Playwright's managed Chromium (python -m playwright "
                "install chromium)"
            )
            return 0
    print(
        f"no Chromium for the browser tests: `{detail}` failed. Install Chromium or Google "
        "Chrome, or set BOOK_CHROMIUM to its executable, then run make test again.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    if sys.argv[1:] != ["ensure"]:
        sys.exit(f"usage: {sys.argv[0]} ensure")
    sys.exit(ensure())
