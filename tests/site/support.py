"""Helpers for the site tests: the repository root, the nav, strict builds, found pages."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# The Pages workflow installs only `--group site` (no torch, triton or numpy) to build the
# site and run these tests: every build here runs without them too, and
# tests/scripts/test_torch_free.py checks the build side and these tests for them.
NOT_IN_SITE_GROUP = ("torch", "triton", "numpy")
WITHOUT_TORCH = f"import sys; sys.modules.update(dict.fromkeys({NOT_IN_SITE_GROUP!r}))"


def python_without_torch(code: str) -> list[str]:
    """A command line running ``code`` in this Python with torch, triton and numpy
    unimportable (``import torch`` raises ModuleNotFoundError)."""
    return [sys.executable, "-c", f"{WITHOUT_TORCH}\n{code}"]


def mkdocs_build(
    config: Path, dest: Path, data: Path | None = None, site_url: str | None = None
) -> subprocess.CompletedProcess:
    """A strict build into ``dest``, without torch (as on Pages); with ``data``, from that
    data folder instead of figures/data (BOOK_DATA_DIR, as `make serve` takes it); with
    ``site_url``, for that address (BOOK_SITE_URL, as the Pages workflow gives it)."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env.pop("BOOK_SITE_URL", None)
    if data is not None:
        env["BOOK_DATA_DIR"] = str(data)
    if site_url is not None:
        env["BOOK_SITE_URL"] = site_url
    return subprocess.run(
        python_without_torch("from mkdocs.__main__ import cli; cli()")
        + ["build", "--strict", "-f", str(config), "-d", str(dest)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def shared_build(shared: Path) -> tuple[Path, int, str, str]:
    """The run's one strict build of the book in ``shared`` (the run's temporary folder,
    which every xdist worker's own folder sits in): whoever asks first builds it there
    while the others wait on a lock, then all read the same build and its outcome
    (destination, return code, stdout, stderr). Under xdist the controller starts it
    before the workers have collected (``start_shared_build``)."""
    import fcntl

    dest, outcome = shared / "site", shared / "site-build.json"
    with open(shared / "site-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not outcome.exists():
            result = mkdocs_build(ROOT / "mkdocs.yml", dest)
            outcome.write_text(json.dumps([result.returncode, result.stdout, result.stderr]))
    returncode, stdout, stderr = json.loads(outcome.read_text())
    return dest, returncode, stdout, stderr


def start_shared_build(shared: Path) -> threading.Thread:
    """``shared_build`` in a thread, its lock taken before this returns, so that a worker
    asking for the build meanwhile waits for this one."""
    import fcntl

    lock = open(shared / "site-build.lock", "w")  # noqa: SIM115 (closed by the thread)
    fcntl.flock(lock, fcntl.LOCK_EX)

    def build():
        try:
            result = mkdocs_build(ROOT / "mkdocs.yml", shared / "site")
            outcome = [result.returncode, result.stdout, result.stderr]
            (shared / "site-build.json").write_text(json.dumps(outcome))
        finally:
            lock.close()  # a build that raised leaves no outcome: the first worker builds

    thread = threading.Thread(target=build, name="site-build", daemon=True)
    thread.start()
    return thread


def nav_pages() -> list[str]:
    """Every page in mkdocs.yml's nav, in order, as a path under docs/."""
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


def figure_pages() -> list[str]:
    """Pages that show at least one measured figure: found from the text, not listed."""
    return [md for md in nav_pages() if "{{ figure " in (DOCS / md).read_text()]


# ``{{ diagram NAME | caption }}`` (scripts/book/hook.py), as a page's Markdown places it.
DIAGRAM_PLACEHOLDER = re.compile(r"\{\{\s*diagram\s+([a-z0-9-]+)\s*\|(.*?)\}\}", re.S)


def placements() -> dict[str, list[str]]:
    """Diagram name -> the pages (paths under docs/) that place it, from their Markdown."""
    out: dict[str, list[str]] = {}
    for md in nav_pages():
        if md.endswith(".md"):
            for name, _ in DIAGRAM_PLACEHOLDER.findall((DOCS / md).read_text()):
                out.setdefault(name, []).append(md)
    return out


def diagram_pages() -> list[str]:
    """Pages that place at least one diagram: found from the text, not listed."""
    return sorted({md for pages in placements().values() for md in pages})


def html_for(md: str) -> str:
    """The built page of a nav entry: a Markdown page or a notebook (docs/labs/*.ipynb)."""
    return "index.html" if md == "index.md" else md.rsplit(".", 1)[0] + "/index.html"


# ---- widgets: locate one on an opened page and read its outputs ------------------------


def widget(pg, name):
    return pg.locator(f'.book-widget[data-widget="{name}"]')


def outputs(el, *names) -> dict[str, str]:
    return {n: el.locator(f'[data-out="{n}"]').first.text_content().strip() for n in names}


def toggle_dark(pg) -> None:
    """Click Material's palette toggle (light to dark) and wait until the page is dark."""
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")


def assert_follows_dark(pg, el) -> None:
    """Switch the page from light to dark: the widget's text colour changes, and its first
    select takes the widget's colour (a form control does not keep the browser's)."""

    def colour():
        return el.evaluate("e => getComputedStyle(e).color")

    light = colour()
    assert pg.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
    toggle_dark(pg)
    assert colour() != light, "the widget did not follow the dark palette"
    assert el.locator("select").first.evaluate("e => getComputedStyle(e).color") == colour()


def assert_fits_screen(pg, el, width: int = 390) -> None:
    """A widget on a screen ``width`` px wide: nothing scrolls sideways inside it or on the
    page, and the widget and each of its controls lie within the screen."""
    name = el.get_attribute("data-widget")
    assert el.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), f"{name} overflows"
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    box = el.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{name}: {box}"
    for control in el.locator("select, input").all():
        b = control.bounding_box()
        if b is not None:  # a control inside a closed section has no box
            assert b["x"] >= 0 and b["x"] + b["width"] <= width, f"{name} control: {b}"


def assert_controls_labelled(el) -> None:
    """Every select and input of a widget has a <label for=...> with text."""
    for control in el.locator("select, input").all():
        cid = control.get_attribute("id")
        assert cid and el.locator(f'label[for="{cid}"]').inner_text().strip(), cid


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path, handler_class: type = _QuietHandler):
    """Serves ``directory`` on a loopback port for as long as the block runs; yields its URL.
    ``handler_class``: a SimpleHTTPRequestHandler (say one that answers like GitHub Pages)."""
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


# ---- the values pages use: placeholders and widgets' data-values --------------------------

DATA_VALUES = re.compile(r'\bdata-values="([^"]*)"')


def page_choice(page: str, kind: str, nth: int = 0) -> str:
    """The words of the ``nth`` ``{{ choose ... }}`` on ``page`` (under docs/) that reads
    ``kind``: the phrasings the page writes, for a test that makes up the data."""
    from scripts.book import render

    bodies = [
        m.group(1)
        for m in render.PLACEHOLDER.finditer((DOCS / page).read_text())
        if m.group(1).split()[:1] == ["choose"]
        and any(use.kind == kind for use in render.choose_uses(m.group(1)))
    ]
    return bodies[nth]


def value_placeholders() -> list[tuple[str, str, object]]:
    """(page, device, render.Use) of every ``{{ value ... }}`` on every page under docs/."""
    from scripts.book import render

    found = []
    for md in sorted(DOCS.rglob("*.md")):
        page = str(md.relative_to(DOCS))
        found += [(page, device, use) for device, use in render.placeholders(md.read_text())]
    return found


def widget_values() -> list[tuple[str, str]]:
    """(page, word) of every value a widget on a page under docs/ names in data-values."""
    found = []
    for md in sorted(DOCS.rglob("*.md")):
        for match in DATA_VALUES.finditer(md.read_text()):
            found += [(str(md.relative_to(DOCS)), word) for word in match.group(1).split()]
    return found


# ---- colour (WCAG contrast), for the figure and diagram checks ---------------------------


def rgba(css: str) -> tuple[float, float, float, float]:
    """A computed CSS colour ('rgb(…)', 'rgba(…)' or '#rrggbb') as 0–255 channels + alpha."""
    css = css.strip()
    if css.startswith("#"):
        h = css[1:]
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 1.0
    m = re.match(r"rgba?\(([^)]*)\)", css)
    if not m:
        raise ValueError(f"unreadable colour {css!r}")
    parts = [float(p) for p in re.split(r"[,\s/]+", m.group(1).strip()) if p]
    return parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0


def over(top: tuple, alpha: float, under: tuple) -> tuple[float, float, float]:
    """``top`` painted with ``alpha`` over the opaque colour ``under``."""
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top[:3], under[:3], strict=True))


def luminance(c: tuple) -> float:
    """WCAG 2.x relative luminance of an sRGB colour (0–255 channels)."""

    def lin(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(v) for v in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple, b: tuple) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# ---- colour vision: how far apart two colours look, also to a colour-blind reader --------

# Machado, Oliveira and Fernandes (2009), "A physiologically-based model for simulation of
# color vision deficiency", severity 1.0: linear-RGB matrices for the two red-green
# dichromacies, which together with their milder forms are most colour-blind readers.
VISION = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
}


def _linear(v: float) -> float:
    v /= 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def lab(c: tuple, vision: str = "normal") -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour (0–255 channels) as seen with ``vision``."""
    rgb = [_linear(v) for v in c[:3]]
    m = VISION[vision]
    r, g, b = (min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3))
    xyz = (
        (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047,
        0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
        (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(c1: tuple, c2: tuple) -> float:
    """CIEDE2000 colour difference of two L*a*b* colours (Sharma, Wu and Dalal's notes)."""
    (l1, a1, b1), (l2, a2, b2) = c1, c2
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar**7 / (cbar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    dh = 0.0 if c1p * c2p == 0 else h2p - h1p
    if dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dhp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    hbar = h1p + h2p
    if c1p * c2p != 0:
        hbar = (h1p + h2p) / 2 + (180 if abs(h1p - h2p) > 180 else 0)
        hbar %= 360
    t = (
        1
        - 0.17 * math.cos(math.radians(hbar - 30))
        + 0.24 * math.cos(math.radians(2 * hbar))
        + 0.32 * math.cos(math.radians(3 * hbar + 6))
        - 0.20 * math.cos(math.radians(4 * hbar - 63))
    )
    dtheta = 30 * math.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cbarp**7 / (cbarp**7 + 25**7))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc = 1 + 0.045 * cbarp
    sh = 1 + 0.015 * cbarp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt(
        (dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh)
    )


def seen_apart(a: tuple, b: tuple) -> dict[str, float]:
    """CIEDE2000 between two sRGB colours as seen with each ``VISION``."""
    return {v: delta_e(lab(a, v), lab(b, v)) for v in VISION}


def schema_for(benchmark: str) -> dict:
    """The data envelope (figures/schema.json) with ``rows`` replaced by
    figures/schemas/<benchmark>.json: what a data file of ``benchmark`` must validate against."""
    path = ROOT / "figures" / "schemas" / f"{benchmark}.json"
    assert path.is_file(), f"no row schema figures/schemas/{benchmark}.json"
    full = json.loads((ROOT / "figures" / "schema.json").read_text())
    full["properties"]["rows"] = json.loads(path.read_text())
    return full
