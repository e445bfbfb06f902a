"""The labs' charts (issue 20): `plot(...)` drew nothing on the GPU machine, which has no
matplotlib. The labs' helper now draws each chart as SVG with no library at all, Jupyter
shows it (``_repr_svg_``), scripts/bench/run_labs.py stores it when it runs the cells
itself, and the site shows it inline (scripts/book/hook.py). These tests run that path on
the CPU: the helper cell of every lab is one and the same, a lab's plotting cell draws the
GPU numbers it stored, run_labs stores the chart, and the hook inlines it.
"""

from __future__ import annotations

import ast
import base64
import json
import re
import xml.etree.ElementTree as ET

from scripts.bench import run_labs
from scripts.book import hook
from tests.site.support import ROOT

LABS = sorted((ROOT / "docs" / "labs").glob("*.ipynb"))
SVG = "{http://www.w3.org/2000/svg}"


def cells(path) -> list[str]:
    nb = json.loads(path.read_text())
    return [run_labs.source(c) for c in nb["cells"] if c["cell_type"] == "code"]


def helper_cell(path) -> str:
    (found,) = [c for c in cells(path) if "\ndef plot(" in c]
    return found


def helpers(on_gpu: bool) -> dict:
    """The namespace of part 3's helper cell, as if on a GPU or not (nothing is timed)."""
    namespace = {"ON_GPU": on_gpu}
    exec(helper_cell(LABS[2]), namespace)
    return namespace


def test_every_lab_has_the_same_chart_helper():
    def chart_code(path):
        text = helper_cell(path)
        return text[text.index("class Chart:") :]

    first = chart_code(LABS[0])
    assert "import matplotlib" not in first
    for path in LABS[1:]:
        assert chart_code(path) == first, f"{path.name}'s plot() differs from {LABS[0].name}'s"


def stored_table(cell: dict) -> list[list[float]]:
    """The numbers of the table a cell printed (its stored GPU output), row by row."""
    text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    rows = []
    for line in text.splitlines():
        words = line.split()
        try:
            rows.append([float(w.replace(",", "")) for w in words])
        except ValueError:
            continue  # a title or the header
    return rows


def test_a_plotting_cell_draws_its_stored_gpu_numbers():
    """Lab III's vector-add cell, its plot(...) evaluated on the numbers it printed on the
    GPU: one line per series through every point, a tick per size, the names in a legend."""
    nb = json.loads(LABS[2].read_text())
    (cell,) = [c for c in nb["cells"] if 'plot(\n    "vector add"' in run_labs.source(c)]
    rows = stored_table(cell)
    assert len(rows) >= 3, "the lab's stored GPU output has its table"
    namespace = helpers(on_gpu=True)
    namespace.update(sizes=[int(r[0]) for r in rows], rows=rows)
    last = ast.parse(run_labs.source(cell)).body[-1]
    chart = eval(compile(ast.Expression(last.value), "cell", "eval"), namespace)
    svg = chart._repr_svg_()
    root = ET.fromstring(svg)
    assert root.get("class") == "book-lab-chart" and root.get("role") == "img"
    assert root.get("aria-label") == "vector add" and root.find(f"{SVG}title").text == "vector add"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"triton", "torch", "elements", "GB/s"} <= set(texts)
    assert "2²⁸" in texts and "4,096" in texts  # the sizes, as the book writes them
    lines = [p for p in root.iter(f"{SVG}path") if p.get("d", "").count("L") >= 1]
    assert len([p for p in lines if p.get("d").count("L") == len(rows) - 1]) == 2
    # Told apart by more than colour: circles on the first series, squares on the second.
    assert len(list(root.iter(f"{SVG}circle"))) == len(rows)
    assert len(list(root.iter(f"{SVG}rect"))) == len(rows)


def test_no_chart_without_a_gpu():
    assert helpers(on_gpu=False)["plot"]("t", "x", "y", [1, 2], {"a": [None, None]}) is None


def test_run_labs_stores_the_chart_when_it_runs_the_cells_itself(tmp_path):
    """The bare GPU machine runs the cells in process: a cell ending in plot(...) gets the
    chart stored as Jupyter would store it (an execute_result with image/svg+xml)."""
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": "ON_GPU = True"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": helper_cell(LABS[2])},
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "source": 'print("table")\nplot("rate", "n", "GB/s", [1, 2], {"a": [1.0, 3.0]})',
            },
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": "x = 1\nprint(x)"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "lab.ipynb"
    path.write_text(json.dumps(nb))
    done = run_labs.execute_plain(path)
    outputs = [c["outputs"] for c in done["cells"]]
    assert outputs[0] == [] and outputs[1] == []
    stream, result = outputs[2]
    assert stream["text"] == ["table\n"]
    assert result["output_type"] == "execute_result" and result["execution_count"] == 3
    assert result["data"]["text/plain"] == "<chart: rate>"
    assert result["data"]["image/svg+xml"].startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert [o["output_type"] for o in outputs[3]] == ["stream"]  # print() is None: no result


def img(svg: str) -> str:
    """An SVG output as nbconvert's HTML template writes it."""
    data = base64.b64encode(svg.encode()).decode()
    return (
        '<div class="jp-RenderedSVG">\n<img alt="No description has been provided for this'
        f' image" src="data:image/svg+xml;base64,{data}"/>\n</div>'
    )


def test_the_site_shows_a_chart_inline():
    chart = helpers(on_gpu=True)["plot"]("rate", "n", "GB/s", [1, 2], {"a": [1.0, 2.0]})
    page = hook.inline_lab_charts("<p>before</p>" + img(chart.svg) + "<p>after</p>")
    assert chart.svg in page and "data:image/svg+xml" not in page and "<img" not in page
    assert page.startswith("<p>before</p>") and page.endswith("<p>after</p>")
    other = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"/></svg>'
    assert hook.inline_lab_charts(img(other)) == img(other), "only the labs' charts"
    broken = '<img src="data:image/svg+xml;base64,!!!!">'
    assert hook.inline_lab_charts(broken) == broken


def test_lab_chart_colours_follow_the_palette():
    css = (ROOT / "docs" / "assets" / "css" / "book.css").read_text()
    light = re.search(r"\.jupyter-wrapper \.book-lab-chart \{[^}]*\}", css).group(0)
    dark = re.search(r'"slate"\] \.md-typeset \.jupyter-wrapper \.book-lab-chart \{[^}]*\}', css)
    assert "--book-lab-1" in light and dark and "--book-lab-2" in dark.group(0)
