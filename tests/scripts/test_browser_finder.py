"""scripts/book/browser.py's order, with fake PATHs: nothing is looked up or installed."""

from __future__ import annotations

from scripts.book import browser


def fake_which(*found: str):
    """A shutil.which that finds exactly `found` (names or paths), at /fake/<name>."""
    return lambda name: f"/fake/{name.rsplit('/', 1)[-1]}" if name in found else None


def test_book_chromium_comes_first():
    which = fake_which("/opt/my-chrome", "chromium")
    env = {"BOOK_CHROMIUM": "/opt/my-chrome"}
    assert browser.plan(env, which, is_root=True, is_debian=True) == (
        "installed",
        "/fake/my-chrome",
    )


def test_missing_book_chromium_falls_through_to_path():
    which = fake_which("google-chrome-stable")
    env = {"BOOK_CHROMIUM": "/nowhere/chrome"}
    assert browser.find_installed(env, which) == "/fake/google-chrome-stable"


def test_names_on_path_in_order():
    for i, name in enumerate(browser.NAMES):
        which = fake_which(*browser.NAMES[i:], *browser.MAC_APPS)
        assert browser.find_installed({}, which) == f"/fake/{name}"


def test_macos_app_when_nothing_on_path():
    which = fake_which(browser.MAC_APPS[1])
    assert browser.plan({}, which, is_root=False, is_debian=False) == (
        "installed",
        "/fake/Google Chrome",
    )


def test_root_on_debian_uses_apt():
    action, command = browser.plan({}, fake_which("apt-get"), is_root=True, is_debian=True)
    assert action == "apt"
    assert "apt-get install" in command and command.endswith("chromium")


def test_otherwise_playwright():
    cases = [
        (fake_which("apt-get"), False, True),  # Debian, not root
        (fake_which("apt-get"), True, False),  # root, not Debian
        (fake_which(), True, True),  # root on Debian without apt-get
        (fake_which(), False, False),  # a laptop: macOS, or Linux without root
    ]
    for which, is_root, is_debian in cases:
        action, command = browser.plan({}, which, is_root, is_debian)
        assert action == "playwright"
        assert command.endswith("-m playwright install chromium")
