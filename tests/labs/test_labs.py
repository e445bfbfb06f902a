"""The lab notebooks (docs/labs/*.ipynb): each runs top to bottom without an error (on a
machine without a GPU: under the Triton interpreter, at the small sizes each lab picks for
it), each is in the site's nav, says where its stored outputs come from, and imports the
book's kernels rather than defining its own; scripts/bench/run_labs.py rewrites that line."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime, timezone

import pytest
import yaml

from exercises import all_exercises
from scripts.bench import run_labs
from scripts.book import hook
from tests.site.support import ROOT

LABS = sorted((ROOT / "docs" / "labs").glob("*.ipynb"))
PARTS = ("part-1", "part-2", "part-3", "part-4", "part-5", "part-6")
# The lessons of each Part, whose exercises its lab walks.
LESSONS = {
    "part-1": ("01", "02", "03"),
    "part-2": ("04", "05", "06"),
    "part-3": ("07", "08", "09", "10", "11"),
    "part-4": ("12",),
    "part-5": ("13", "14"),
    "part-6": ("15", "16", "17", "18"),
}


def test_one_lab_per_part_all_in_the_nav():
    assert [p.name[:6] for p in LABS] == list(PARTS)
    nav = (ROOT / "mkdocs.yml").read_text()
    for path in LABS:
        assert f"labs/{path.name}" in nav, f"{path.name} is not in mkdocs.yml's nav"
    plugin = next(
        p["mkdocs-jupyter"]
        for p in yaml.safe_load(nav)["plugins"]
        if isinstance(p, dict) and "mkdocs-jupyter" in p
    )
    # The site shows stored outputs and loads nothing from elsewhere.
    assert plugin["execute"] is False and plugin["include_requirejs"] is False
    assert not plugin["custom_mathjax_url"].startswith("http")


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_lab_says_where_its_outputs_come_from_and_uses_the_books_kernels(path):
    nb = json.loads(path.read_text())
    first = "".join(nb["cells"][0]["source"])
    assert first.startswith("# Lab "), "the first cell holds the title"
    assert run_labs.STATUS.search(first), "the first cell says where its outputs come from"
    assert f"]({path.name})" in first, "the first cell offers the notebook for download"
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "@triton.jit" not in code, "a lab uses the book's kernels; it defines none"
    first_import = re.search(r"^from kernels import", code, re.M)
    assert first_import, "a lab imports the book's kernels"
    # The interpreter is switched on before the first kernel import.
    assert code.index('os.environ["TRITON_INTERPRET"] = "1"') < first_import.start()
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    stored = bool(outputs)
    says_gpu = "from a run on" in first and "(interpreter)" not in first
    assert stored == says_gpu, "stored outputs and the first cell's status must agree"


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_lab_runs_top_to_bottom(path, tmp_path):
    """In a scratch copy (the committed file keeps its GPU outputs): run every cell."""
    copy = tmp_path / "docs" / "labs" / path.name
    copy.parent.mkdir(parents=True)
    shutil.copy(path, copy)
    # The notebook finds kernels/ by walking up from its folder, and imports exercises/
    # beside it: point both at the repository.
    for name in ("kernels", "exercises"):
        (tmp_path / name).symlink_to(ROOT / name)
    nb = run_labs.execute(copy, timeout=300)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors, errors
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "match" in text, "a lab reports its checks against torch"


def test_run_labs_without_jupyter_runs_the_cells_in_process(tmp_path):
    """A bare GPU machine has no nbclient: run_labs --plain executes the cells itself and
    stores what they print. (Here under the interpreter, which conftest switched on.)"""
    path = next(p for p in LABS if p.name.startswith("part-2"))
    copy = tmp_path / "docs" / "labs" / path.name
    copy.parent.mkdir(parents=True)
    shutil.copy(path, copy)
    for name in ("kernels", "exercises"):
        (tmp_path / name).symlink_to(ROOT / name)
    assert run_labs.main(["--plain", "--allow-cpu", "--folder", str(copy.parent)]) == 0
    nb = json.loads(copy.read_text())
    printed = "".join(
        "".join(o["text"]) for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]
    )
    assert "matches the float64 reference" in printed
    # The untouched exercise files fail their checks, and the run goes on past them.
    assert "FAIL 04.1 " in printed and "FAIL 06.3 " in printed
    assert "from a run on the CPU (interpreter)" in "".join(nb["cells"][0]["source"])
    broken = json.loads(path.read_text())
    broken["cells"].append({"cell_type": "code", "source": "1 / 0", "metadata": {}, "outputs": []})
    copy.write_text(json.dumps(broken))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        run_labs.execute_plain(copy)


def test_run_labs_rewrites_the_status_line(tmp_path):
    import nbformat

    folder = tmp_path / "docs" / "labs"
    folder.mkdir(parents=True)
    shutil.copy(LABS[0], folder / LABS[0].name)
    nb = nbformat.read(folder / LABS[0].name, as_version=4)
    line = run_labs.status_line(
        "NVIDIA H100 80GB HBM3",
        datetime(2026, 11, 27, tzinfo=timezone.utc),
        "torch 2.11, triton 3.6",
    )
    run_labs.set_status(nb, line)
    first = run_labs.source(nb.cells[0])
    assert "from a run on NVIDIA H100 80GB HBM3 on 2026-11-27 (torch 2.11, triton 3.6)" in first
    assert first.startswith("# Lab ") and f"]({LABS[0].name})" in first
    assert len(run_labs.STATUS.findall(first)) == 1
    nb.cells[0].source = "# no status"
    with pytest.raises(ValueError):
        run_labs.set_status(nb, line)


def test_run_labs_refuses_without_a_gpu_unless_told(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert run_labs.main(["--check"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_labs.notebooks(["no-such-lab"])


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_lab_walks_its_parts_exercises(path):
    """Issue 22: a lab is the exercises' hands-on companion. Each exercise of the Part's
    lessons, in order, has a Markdown cell that links its lesson's exercise and its starter
    file (relative to the notebook: it opens in Jupyter), then a cell that checks it from
    Python; a prediction is given in the cell, by the names of its file."""
    nb = json.loads(path.read_text())
    cells = [(c["cell_type"], run_labs.source(c)) for c in nb["cells"]]
    found = {k: ex for k, ex in all_exercises().items() if k[:2] in LESSONS[path.name[:6]]}
    assert found
    checked = []
    for i, (kind, text) in enumerate(cells):
        m = re.search(r'^passed = exercises\.check\(\s*"(\d\d\.\d)"', text, re.M)
        if kind != "code" or not m:
            continue
        ex_id = m.group(1)
        ex = found[ex_id]
        checked.append(ex_id)
        kind_before, before = cells[i - 1]
        assert kind_before == "markdown" and before.startswith(f"### {ex_id} · "), ex_id
        starter = ex.starter.relative_to(ROOT)
        assert f"](../../{starter})" in before, f"{ex_id}: link the starter file"
        lesson_page = ex.page.removesuffix(".md")
        assert f"](../../{lesson_page}/#" in before, f"{ex_id}: link the lesson's exercise"
        if ex.kind == "predict":
            names = re.findall(r"^(\w+) = None", ex.starter.read_text(), re.M)
            assert names and all(f"{n}={n}" in text for n in names), ex_id
            assert "None" in before, f"{ex_id}: say that an answer left at None is the file's"
        else:
            assert "fails" in before and "run the cell again" in before, ex_id
    assert checked == list(found), "every exercise of the Part, in order, once"


def test_the_site_shows_an_exercise_files_path_not_a_broken_link():
    page = (
        '<p>Your file: <a href="../../exercises/lesson04/ex1_transpose.py"><code>'
        "exercises/lesson04/ex1_transpose.py</code></a>. See "
        '<a href="../../dsl/04-loads-stores-masks/#041-a-transposing-copy">lesson 04</a>.</p>'
    )
    shown = hook.unlink_exercise_files(page)
    assert "<code>exercises/lesson04/ex1_transpose.py</code>. See" in shown
    assert "../../exercises/" not in shown
    assert '<a href="../../dsl/04-loads-stores-masks/#041-a-transposing-copy">' in shown
