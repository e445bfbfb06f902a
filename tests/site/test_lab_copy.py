"""Copy buttons on the labs' code cells (issue 20): mkdocs-jupyter gives every code cell
one; here each is a named, focusable button beside the code (not over it), and pressing it
puts the cell's source, exactly as the notebook stores it, on the clipboard."""

from __future__ import annotations

import json

import pytest

from tests.site.support import DOCS, html_for


def cell_source(cell: dict) -> str:
    """A notebook cell's source as one string (nbformat stores a string or a list of
    lines; scripts/bench/run_labs.py reads it the same way, but imports torch)."""
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


LAB = "labs/part-2-dsl.ipynb"


@pytest.mark.parametrize("width", [1280, 390])
def test_every_code_cell_copies_its_source(browser, site_url, width):
    nb = json.loads((DOCS / LAB).read_text())
    sources = [cell_source(c) for c in nb["cells"] if c["cell_type"] == "code"]
    context = browser.new_context(viewport={"width": width, "height": 900})
    origin = site_url
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{html_for(LAB).removesuffix('index.html')}", wait_until="load")
        buttons = pg.locator(".jupyter-wrapper clipboard-copy")
        assert buttons.count() == len(sources)
        for i, source in enumerate(sources):
            button = buttons.nth(i)
            assert button.get_attribute("role") == "button"
            assert button.get_attribute("tabindex") == "0"
            assert button.get_attribute("aria-label") == "Copy to Clipboard"
            button.scroll_into_view_if_needed()
            pre = button.locator("xpath=ancestor::div[contains(@class,'CodeMirror')]//pre")
            assert pre.bounding_box()["x"] + pre.bounding_box()["width"] <= (
                button.bounding_box()["x"] + 0.5
            ), "the copy button sits over the code"
            button.focus()
            pg.keyboard.press("Enter")
            copied = pg.evaluate("navigator.clipboard.readText()")
            assert copied.strip("\n") == source.strip("\n"), f"cell {i}"
    finally:
        context.close()
