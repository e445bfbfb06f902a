"""MkDocs hook: the book's build-time glue.

- serves Plotly's JavaScript from the site itself (copied from the plotly package as a
  generated file, so nothing is written into docs/ and `mkdocs serve` does not loop);
- expands ``{{ figure NAME }}`` and ``{{ value DEVICE KEY }}`` placeholders from the
  measured data in figures/data, through the figure modules figures/*.py (see
  scripts/render.py); an unknown placeholder fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import plotly
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts import render  # noqa: E402

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
PLOTLY_URI = "assets/vendor/plotly.min.js"

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


def on_files(files, config):
    if not PLOTLY_JS.is_file():
        raise PluginError(f"plotly.min.js not found at {PLOTLY_JS}")
    files.append(File.generated(config, PLOTLY_URI, abs_src_path=str(PLOTLY_JS)))
    return files


def on_page_markdown(markdown, page, config, files):
    try:
        return render.expand(markdown, _devices, _registry)
    except render.RenderError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from exc
