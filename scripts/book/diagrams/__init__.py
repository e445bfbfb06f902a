"""The book's diagrams: one module per picture, each with ``draw() -> svg.Drawing``.

Module ``grid_waves.py`` draws ``docs/assets/diagrams/grid-waves.svg``, which a page places
with ``{{ diagram grid-waves | caption }}`` (scripts/book/hook.py inlines it). The SVG
files are committed and are what the site shows; this package is their source:

    python -m scripts.book.diagrams          # rewrite every SVG from its module
    python -m scripts.book.diagrams --check  # fail if a committed SVG differs

tests/site/test_diagrams.py runs the check, so a file and its module never drift apart.
Adding a diagram means adding a module here and a placeholder on its page; nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "docs" / "assets" / "diagrams"
_HELPERS = {"svg"}


def names() -> list[str]:
    """Every diagram, by its file name (without .svg), found from the package's modules."""
    here = Path(__file__).parent
    return sorted(
        m.name.replace("_", "-")
        for m in pkgutil.iter_modules([str(here)])
        if not m.name.startswith("_") and m.name not in _HELPERS
    )


def render(name: str) -> str:
    module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
    drawing = module.draw()
    if drawing.name != name:
        raise ValueError(f"{module.__name__} draws {drawing.name!r}, not {name!r}")
    return drawing.svg()
