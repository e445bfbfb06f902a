"""MkDocs hook: the book's build-time glue.

- expands ``{{ figure NAME }}`` and ``{{ value DEVICE KEY }}`` placeholders from the
  measured data in figures/data, through the figure modules figures/*.py (see
  scripts/render.py); an unknown placeholder fails the build;
- loads the plotting library only on pages that show a figure: a partial Plotly bundle
  with just the trace types the book draws (docs/assets/vendor/plotly-basic.min.js, MIT,
  licence beside it), deferred so the text never waits for it. Pages without figures
  load no plotting code at all.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts import render  # noqa: E402

# In load order: Plotly first, then the code that draws the book's figures with it.
FIGURE_SCRIPTS = ("assets/vendor/plotly-basic.min.js", "assets/js/figures.js")
FIGURE_MARK = 'class="book-figure"'

_devices: dict = {}
_registry: render.Registry | None = None


def on_config(config):
    global _devices, _registry
    _devices = render.load_devices()
    if not _devices:
        raise PluginError(f"no measured data under {render.data_root()}")
    try:
        _registry = render.discover()  # fresh each build: `mkdocs serve` sees edits
    except render.RenderError as exc:
        raise PluginError(str(exc)) from exc
    return config


def on_page_markdown(markdown, page, config, files):
    try:
        return render.expand(markdown, _devices, _registry)
    except render.RenderError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc


def on_post_page(output, page, config):
    if FIGURE_MARK not in output:
        return output
    tags = "".join(
        f'<script defer src="{get_relative_url(src, page.url)}"></script>' for src in FIGURE_SCRIPTS
    )
    return output.replace("</body>", tags + "</body>", 1)
