"""MkDocs hook: the book's build-time glue.

- expands ``{{ figure NAME }}``, ``{{ value DEVICE KIND [NAME=VALUE ...] [as=FORMAT] }}``,
  ``{{ table NAME }}`` and ``{{ choose DEVICE | CONDITION => TEXT | ... }}`` (one of the
  page's own phrasings, picked by the data) placeholders from the measured data in
  figures/data, through the figure modules figures/*.py (see scripts/book/render.py); an
  unknown placeholder, kind or parameter fails the build;
- loads the plotting library only on pages that show a figure: a partial Plotly bundle
  with just the trace types the book draws (docs/assets/vendor/plotly-basic.min.js, MIT,
  licence beside it), deferred so the text never waits for it. Pages without figures
  load no plotting code at all;
- loads the interactive widgets the same way: a page that places one with
  ``<div class="book-widget" data-widget="NAME"></div>`` gets the shared loader
  (docs/assets/js/widgets.js) and exactly the modules it uses (widgets/NAME.js), deferred;
  a widget with no module fails the build. Pages without widgets load no widget code;
- gives widgets the committed data they declare: ``data-needs="BENCHMARK ..."`` (whole
  data documents, per device) and ``data-values="VALUE ..."`` (the numbers the prose's
  ``{{ value DEVICE KIND ... }}`` computes, unformatted, per device; each VALUE is a kind,
  or ``KIND:NAME=VALUE,NAME=VALUE`` with parameters, and is the number's key in the blob)
  are gathered over all the page's widgets into one JSON blob, ``<script
  type="application/json" id="book-widget-data">``, read in the browser by
  ``BookWidgets.data()``. A benchmark with no schema in figures/schemas, or an unknown
  value kind or parameter, fails the build; a device without the data is simply absent,
  so a widget must say "not yet measured" itself;
- expands ``{{ config repo_url }}`` to a link to the repository named in mkdocs.yml's
  ``repo_url`` (the reproduce page's clone command), or to "this repository" while it is
  empty, so the sentence reads well either way: the address is never typed into a page;
- opens a page that drew a figure, table or value from stale data (measured with code
  that has changed since: render.py, "stale data") with a note that names it;
- sets ``site_url`` from the environment variable BOOK_SITE_URL where it is given (the
  Pages workflow gives the address GitHub serves the site at, e.g.
  ``https://OWNER.github.io/REPO/``): every page links its assets relatively, but
  404.html is served for a missing address at any depth and so links them from the
  site's root, which MkDocs takes from ``site_url``; left empty, that root is ``/`` and a
  project site's 404 page lost its CSS and JavaScript;
- inlines the diagram docs/assets/diagrams/NAME.svg where a line starts with
  ``{{ diagram NAME | caption }}``, as a figure with that caption (Markdown), so that its
  colours follow the page's palette (book.css) and its text stays text; the SVGs are
  drawn by scripts/book/diagrams. An unknown diagram or a missing caption fails the build.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.book import render  # noqa: E402

# In load order: Plotly first, then the code that draws the book's figures with it.
FIGURE_SCRIPTS = ("assets/vendor/plotly-basic.min.js", "assets/js/figures.js")
FIGURE_MARK = 'class="book-figure"'

# The shared loader, then one module per widget name the page uses.
WIDGET_LOADER = "assets/js/widgets.js"
WIDGET_DIR = "assets/js/widgets"
_WIDGET_TAG = re.compile(r'<[a-zA-Z][^>]*\bclass="(?:[^"]*\s)?book-widget(?:\s[^"]*)?"[^>]*>')
_WIDGET_NAME = re.compile(r'\bdata-widget="([^"]*)"')
_WIDGET_NEEDS = re.compile(r'\bdata-needs="([^"]*)"')
_WIDGET_VALUES = re.compile(r'\bdata-values="([^"]*)"')
WIDGET_DATA_ID = "book-widget-data"
SCHEMAS = ROOT / "figures" / "schemas"

_devices: dict = {}
_registry: render.Registry | None = None


SITE_URL_ENV = "BOOK_SITE_URL"


def site_url_from_env(config) -> None:
    """``site_url`` from BOOK_SITE_URL where that is set and not empty (see the module's
    docstring), with the one trailing slash MkDocs expects; otherwise mkdocs.yml's."""
    url = os.environ.get(SITE_URL_ENV, "").strip()
    if url:
        config["site_url"] = url.rstrip("/") + "/"


def on_config(config):
    global _devices, _registry
    site_url_from_env(config)
    _devices = render.load_devices()
    if not _devices:
        raise PluginError(f"no measured data under {render.data_root()}")
    try:
        _registry = render.discover()  # fresh each build: `mkdocs serve` sees edits
    except render.RenderError as exc:
        raise PluginError(str(exc)) from exc
    return config


_REPO_URL = re.compile(r"\{\{\s*config\s+repo_url\s*\}\}")


def repo_link(config) -> str:
    """The repository's address from mkdocs.yml (repo_url) as a Markdown link, or "this
    repository" where it is not set (a reader of a copy of the site clones what they have)."""
    url = config.get("repo_url")
    if url:
        return f"[{url}]({url})"
    return "this repository"


# ---- diagrams -------------------------------------------------------------------------
DIAGRAMS = ROOT / "docs" / "assets" / "diagrams"
_DIAGRAM = re.compile(r"^\{\{\s*diagram\b(.*?)\}\}[ \t]*$", re.S | re.M)


def diagram_html(name: str, caption: str) -> str:
    """A figure holding the SVG inline and a caption that Markdown renders (md_in_html)."""
    svg = (DIAGRAMS / f"{name}.svg").read_text()
    svg = "\n".join(line for line in svg.splitlines() if line.strip())  # no blank lines
    # The figure takes the drawing's widest size, so that the caption lines up under it.
    widest = re.search(r'style="max-width:([0-9.]+px)"', svg)
    style = f' style="max-width:{widest.group(1)}"' if widest else ""
    return (
        f'\n\n<figure class="book-diagram" id="diagram-{name}"{style} markdown="block">\n'
        f'<div class="book-diagram__svg">{svg}</div>\n'
        f'<figcaption markdown="span">{" ".join(caption.split())}</figcaption>\n'
        "</figure>\n\n"
    )


def expand_diagrams(markdown: str, where: str) -> str:
    def sub(match: re.Match) -> str:
        name, bar, caption = match.group(1).strip().partition("|")
        name = name.strip()
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name) or not bar or not caption.strip():
            raise PluginError(
                f"{where}: write {{{{ diagram NAME | caption }}}}: {match.group(0)!r}"
            )
        if not (DIAGRAMS / f"{name}.svg").is_file():
            raise PluginError(f"{where}: no diagram {name!r} in {DIAGRAMS}")
        return diagram_html(name, caption)

    return _DIAGRAM.sub(sub, markdown)


_TITLE = re.compile(r"\A(?:\s*\n)*#[ \t][^\n]*\n")


def with_stale_note(markdown: str, seen: dict) -> str:
    """``markdown`` with render.stale_note after its title (at the top without one), where
    the page drew on stale data (``seen``, from render.expand)."""
    if not seen:
        return markdown
    note = "\n" + render.stale_note(seen, _devices) + "\n"
    title = _TITLE.match(markdown)
    at = title.end() if title else 0
    return markdown[:at] + note + markdown[at:]


def on_page_markdown(markdown, page, config, files):
    markdown = _REPO_URL.sub(lambda m: repo_link(config), markdown)
    markdown = expand_diagrams(markdown, page.file.src_uri)
    seen: dict = {}
    try:
        markdown = render.expand(markdown, _devices, _registry, seen)
    except render.RenderError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc
    return with_stale_note(markdown, seen)


def widget_scripts(output: str, page, config) -> list[str]:
    """The widget scripts a built page needs, in load order: none without a widget."""
    names: list[str] = []
    for tag in _WIDGET_TAG.findall(output):
        match = _WIDGET_NAME.search(tag)
        name = match.group(1) if match else ""
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
            raise PluginError(f"{page.file.src_uri}: a book-widget needs data-widget=NAME: {tag}")
        module = Path(config["docs_dir"]) / WIDGET_DIR / f"{name}.js"
        if not module.is_file():
            raise PluginError(f"{page.file.src_uri}: widget {name!r} has no module {module}")
        if name not in names:
            names.append(name)
    if not names:
        return []
    return [WIDGET_LOADER] + [f"{WIDGET_DIR}/{name}.js" for name in names]


def widget_data(output: str, page, devices=None, registry=None) -> dict | None:
    """The committed data the page's widgets declare, or None when none declares any.

    ``{"devices": {slug: gpu name}, "benchmarks": {name: {slug: document}},
    "values": {key: {slug: number}}}``: a device appears under a benchmark only if it has
    that benchmark's data, under a value only if the value computes there (and is not None),
    and in ``devices`` if it appears anywhere."""
    devices = _devices if devices is None else devices
    registry = _registry if registry is None else registry
    benches: list[str] = []
    keys: list[str] = []
    for tag in _WIDGET_TAG.findall(output):
        for pattern, into in ((_WIDGET_NEEDS, benches), (_WIDGET_VALUES, keys)):
            match = pattern.search(tag)
            for word in match.group(1).split() if match else []:
                if word not in into:
                    into.append(word)
    if not benches and not keys:
        return None
    data: dict = {"devices": {}, "benchmarks": {}, "values": {}}
    for bench in benches:
        if not (SCHEMAS / f"{bench}.json").is_file():
            raise PluginError(f"{page.file.src_uri}: widget data-needs unknown benchmark {bench!r}")
        data["benchmarks"][bench] = {
            slug: docs[bench] for slug, docs in devices.items() if bench in docs
        }
    for key in keys:
        try:
            val, args, _ = render.bind(render.parse_widget_word(key), registry)
        except render.RenderError as exc:
            raise PluginError(f"{page.file.src_uri}: widget data-values {key!r}: {exc}") from exc
        per_device = {}
        for slug, docs in devices.items():
            try:
                value = val.compute(docs, **args)
            except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError):
                continue  # not measured on this device (render.RenderError is a ValueError)
            if value is not None:
                per_device[slug] = value
        data["values"][key] = per_device
    used = set()
    for per_device in [*data["benchmarks"].values(), *data["values"].values()]:
        used.update(per_device)
    data["devices"] = {
        slug: render.provenance(docs)["gpu"] for slug, docs in devices.items() if slug in used
    }
    return data


def widget_data_tag(data: dict) -> str:
    # JSON inside <script>: escape '<' so that no '</script>' can end the element early.
    blob = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).replace(
        "<", "\\u003c"
    )
    return f'<script type="application/json" id="{WIDGET_DATA_ID}">{blob}</script>'


# mkdocs-jupyter inlines JupyterLab's whole theme stylesheet (~570 KB, ~90 KB compressed)
# into every lab page; the book's own CSS styles the few notebook classes it keeps
# (book.css, "labs"), so the theme block is dropped and a lab page fits the text-page budget.
STYLE_BLOCK = re.compile(r"<style[^>]*>.*?</style>", re.S)
JUPYTER_THEME_MIN = 100_000  # characters: only the big theme block, not small cell styles


def strip_jupyter_theme(output: str) -> str:
    def drop(m: re.Match) -> str:
        block = m.group(0)
        return "" if len(block) >= JUPYTER_THEME_MIN and "--jp-" in block else block

    return STYLE_BLOCK.sub(drop, output)


# A lab's chart (the labs' plot() helper draws an SVG with class "book-lab-chart") reaches
# the page as nbconvert writes every SVG output: an <img> of a base64 data URI. Put inline,
# its text takes the page's colour in both palettes and its lines the book's (book.css),
# and it keeps its role and name (an <img> without alt has neither). Other SVGs stay.
_SVG_IMG = re.compile(r'<img\b[^>]*?\bsrc="data:image/svg\+xml;base64,([A-Za-z0-9+/=\s]+)"[^>]*>')
LAB_CHART = 'class="book-lab-chart"'


def inline_lab_charts(output: str) -> str:
    def sub(m: re.Match) -> str:
        try:
            svg = base64.b64decode(m.group(1)).decode("utf-8").strip()
        except (binascii.Error, ValueError):
            return m.group(0)
        opening = svg.split(">", 1)[0]
        if not svg.startswith("<svg") or LAB_CHART not in opening:
            return m.group(0)
        return svg

    return _SVG_IMG.sub(sub, output)


# A lab links each exercise's file relative to the notebook (../../exercises/lessonNN/...),
# so that in Jupyter, inside a clone, the link opens the file to edit. The site does not
# serve the repository's files: on the page such a link becomes its text, the file's path.
_EXERCISE_FILE_LINK = re.compile(
    r'<a\b[^>]*?\bhref="(?:\.\./)+exercises/[^"]*"[^>]*>(.*?)</a>', re.S
)


def unlink_exercise_files(output: str) -> str:
    return _EXERCISE_FILE_LINK.sub(lambda m: m.group(1), output)


def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):
        output = unlink_exercise_files(inline_lab_charts(strip_jupyter_theme(output)))
    scripts = list(FIGURE_SCRIPTS) if FIGURE_MARK in output else []
    scripts += widget_scripts(output, page, config)
    if not scripts:
        return output
    data = widget_data(output, page)
    tags = widget_data_tag(data) if data is not None else ""
    tags += "".join(
        f'<script defer src="{get_relative_url(src, page.url)}"></script>' for src in scripts
    )
    return output.replace("</body>", tags + "</body>", 1)
