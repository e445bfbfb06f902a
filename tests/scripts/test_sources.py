"""Source fingerprints (scripts/bench/sources.py): what is hashed, which files a data file
depends on, the backfill of files measured before fingerprints existed, stale detection in
a copy of the tree, and no machine paths in any data file (issue 21, parts 1 and 7)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scripts.bench import sources
from tests.site.support import ROOT

DATA = sorted((ROOT / "figures" / "data").glob("*/*.json"))
MODULES = sorted(
    p for p in (ROOT / sources.BENCHMARKS_DIR).glob("*.py") if not p.name.startswith("_")
)

CODE = '''"""A module docstring."""

import math  # why: the ceiling


def f(x):
    """What f does."""
    # a comment on its own line
    return math.ceil(x)  # a trailing comment
'''


# ---- the hash ---------------------------------------------------------------------------


def test_fingerprint_ignores_line_endings_comments_and_docstrings():
    base = sources.fingerprint(CODE)
    assert sources.fingerprint(CODE.replace("\n", "\r\n")) == base
    assert sources.fingerprint(CODE.replace("What f does.", "Reworded.")) == base
    assert sources.fingerprint(CODE.replace("# a trailing comment", "# other")) == base
    assert sources.fingerprint(CODE.replace("\n\n\n", "\n")) == base
    assert sources.fingerprint(CODE + "   \n\n") == base


@pytest.mark.parametrize(
    "edit",
    [
        ("math.ceil(x)", "math.floor(x)"),
        ("def f(x):", "def f(y):"),
        ("    return", "    x = x + 1\n    return"),
    ],
    ids=["call", "signature", "statement"],
)
def test_fingerprint_sees_every_code_change(edit):
    assert sources.fingerprint(CODE.replace(*edit)) != sources.fingerprint(CODE)


def test_a_string_that_is_not_a_docstring_counts():
    code = 'SCRIPT = """\nimport torch\n"""\n'
    assert sources.fingerprint(code) != sources.fingerprint(code.replace("torch", "numpy"))


HARNESS_TEXT = (ROOT / sources.HARNESS).read_text()


def test_the_harness_counts_but_not_its_bookkeeping():
    """Recording one more fact about a run (provenance, the file written, an import) keeps
    every data file fresh; a change to how the harness times makes all of them stale."""
    h = sources.HARNESS
    base = sources.fingerprint(HARNESS_TEXT, h)
    assert base != sources.fingerprint(HARNESS_TEXT)  # the bookkeeping is left out
    booked = HARNESS_TEXT.replace('"date": datetime', '"host": "x",\n        "date": datetime')
    booked = booked.replace("import functools\n", "import functools\nimport socket\n")
    assert booked != HARNESS_TEXT and sources.fingerprint(booked, h) == base
    timed = HARNESS_TEXT.replace("warmup_ms: int = 25", "warmup_ms: int = 50")
    assert timed != HARNESS_TEXT and sources.fingerprint(timed, h) != base


# ---- which files ------------------------------------------------------------------------


def repository_imports(path: Path) -> set[str]:
    """The repository files ``path`` imports directly (its top-level and function imports)."""
    found = set()
    for name in sources.imported(path.read_text()):
        candidate = name.replace(".", "/") + ".py"
        if name.split(".")[0] in sources.PACKAGES and (ROOT / candidate).is_file():
            found.add(candidate)
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.stem)
def test_sources_hold_what_the_benchmark_module_imports(module: Path):
    """Every benchmark of a module records the module, each kernel file and benchmark module
    it imports (the imported ones' own imports too), and the harness."""
    tree = ast.parse(module.read_text())
    names = [
        b.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Benchmark"
        for b in node.args[:1]
        if isinstance(b, ast.Constant)
    ]
    assert names, f"{module.name}: no benchlib.Benchmark(...) with a literal name"
    rel = str(module.relative_to(ROOT))
    for name in names:
        paths = set(sources.source_paths(name))
        assert rel in paths
        assert "scripts/bench/benchlib.py" in paths and "scripts/bench/measure.py" not in paths
        assert repository_imports(module) <= paths, name
        for dep in repository_imports(module):
            wanted = repository_imports(ROOT / dep) - {*sources.NOT_SOURCES, sources.RUNNER}
            assert wanted <= paths, (name, dep)


def test_code_a_benchmark_runs_in_a_fresh_interpreter_counts():
    # compiler_time runs FIRST_CALL_SCRIPT with `python -c`: it imports kernels/launch.py
    assert "kernels/launch.py" in sources.source_paths("compiler_time")


@pytest.mark.parametrize(
    "bench, module",
    [
        ("matmul_tma_epilogue", "scripts/bench/benchmarks/matmul_tma.py"),
        ("matmul_llm", "scripts/bench/benchmarks/matmul.py"),
        ("launch_lean", "scripts/bench/benchmarks/launch_lean.py"),
        ("launch_overhead", "scripts/bench/benchmarks/launch.py"),
        ("ceilings", "scripts/bench/measure.py"),
        ("variation", "scripts/bench/variation.py"),
    ],
)
def test_module_of_a_benchmark(bench, module):
    assert sources.module_of(bench, sources.Tree()) == module


def test_a_benchmarks_name_finds_the_module_that_lists_it():
    """The build finds a data file's module by its name alone (no torch there): check that
    against the runner's discovery, which imports the modules."""
    measure = pytest.importorskip("scripts.bench.measure")
    for family, benches in measure.discover().items():
        for bench in benches:
            found = sources.module_of(bench.name, sources.Tree())
            assert found == f"{sources.BENCHMARKS_DIR}/{family}.py", bench.name


def test_every_data_file_says_what_it_measured():
    for path in DATA:
        prov = json.loads(path.read_text())["provenance"]
        assert ("sources" in prov) != ("sources_unknown" in prov), path
        if "sources" in prov:
            for p in prov["sources"]:
                assert not p.startswith("/") and (ROOT / p).suffix == ".py", (path, p)


# ---- the backfill -----------------------------------------------------------------------


def git_has(commit: str) -> bool:
    return sources.known_commit(commit) is not None


def test_backfill_hashes_the_files_at_the_data_files_commit():
    """H200 rmsnorm.json was measured at 435de4d and its fingerprints were backfilled: they
    are those of the files at that commit (git show), not of today's tree."""
    doc = json.loads((ROOT / "figures/data/h200/rmsnorm.json").read_text())
    prov = doc["provenance"]
    if not git_has(prov["commit"]):
        pytest.skip("this checkout's history does not reach the file's commit")
    then = {
        path: path
        for path in (
            "kernels/rmsnorm.py",
            "kernels/ceilings.py",
            "scripts/bench/benchmarks/rmsnorm.py",
            "scripts/bench/benchlib.py",
        )
    }
    assert set(prov["sources"]) == set(then)
    for now, old in then.items():
        text = subprocess.run(
            ["git", "show", f"{prov['commit']}:{old}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert prov["sources"][now] == sources.fingerprint(text, now), now
    assert sources.recorded_sources(prov, "rmsnorm") == {"sources": prov["sources"]}


def test_backfill_refuses_a_dirty_tree_and_an_unknown_commit():
    dirty = sources.recorded_sources({"commit": "d011732", "dirty": True}, "vector_add")
    assert "uncommitted changes" in dirty["sources_unknown"]
    lost = sources.recorded_sources({"commit": "f" * 40, "dirty": False}, "vector_add")
    assert "not in this repository's history" in lost["sources_unknown"]
    doc = {"provenance": {"commit": "d011732", **dirty}}
    assert sources.staleness(doc) == {"unknown": dirty["sources_unknown"], "commit": "d011732"}


# ---- stale detection in a copy of the tree ------------------------------------------------


@pytest.fixture
def copy_of_tree(tmp_path: Path) -> Path:
    for folder in ("kernels", "scripts/bench"):
        shutil.copytree(
            ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path


def test_editing_a_kernel_makes_its_data_stale(copy_of_tree: Path):
    tree = sources.Tree(copy_of_tree)
    doc = {"provenance": {"commit": "abc1234", "sources": sources.sources("rmsnorm", tree)}}
    other = {"provenance": {"commit": "abc1234", "sources": sources.sources("softmax", tree)}}
    assert sources.staleness(doc, tree) is None
    kernel = copy_of_tree / "kernels/rmsnorm.py"
    kernel.write_text(kernel.read_text() + "\n# a comment changes nothing\n")
    assert sources.staleness(doc, tree) is None
    kernel.write_text(kernel.read_text() + "\nEXTRA = 1\n")
    assert sources.staleness(doc, tree) == {"changed": ["kernels/rmsnorm.py"], "commit": "abc1234"}
    assert sources.staleness(other, tree) is None  # softmax does not run rmsnorm.py
    harness = copy_of_tree / "scripts/bench/benchlib.py"
    harness.write_text(harness.read_text() + "\nEXTRA = 1\n")
    assert sources.staleness(other, tree) == {
        "changed": ["scripts/bench/benchlib.py"],
        "commit": "abc1234",
    }


def test_the_stale_list_runs_without_failing(capsys):
    assert sources.main([]) == 0
    assert "stale data file(s)" in capsys.readouterr().out


# ---- no machine paths in data (part 7) -----------------------------------------------------

ABSOLUTE = re.compile(
    r"(?<![\w.~:/<>\-])/[A-Za-z_.][\w.\-]*/[\w.\-]+"  # /tmp/x, /home/u, /usr/lib, /opt/...
    r"|[A-Za-z]:\\\\"  # C:\\ in JSON
    r"|/(?:site|dist)-packages/"
)


@pytest.mark.parametrize("path", DATA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_data_file_holds_an_absolute_path(path: Path):
    found = sorted(set(ABSOLUTE.findall(path.read_text())))
    assert not found, f"machine paths in {path.relative_to(ROOT)}: {found[:5]}"


def test_benchlib_writes_paths_relative():
    benchlib = pytest.importorskip("scripts.bench.benchlib")
    root = str(benchlib.ROOT)
    text = (
        f'#loc = loc("{root}/kernels/vector_add.py":27:0)\n'
        '#loc3 = loc("/tmp/tmpq1/kernels/matmul.py":70:4)\n'
        '#loc9 = loc("/opt/venv/lib/python3.12/site-packages/triton/language/standard.py":40:0)\n'
        '.file 1 "/home/me/book/kernels/matmul.py"\n'
        "3.2 TB/s, 1/2 of copy"
    )
    assert benchlib.relative_paths([{"text": text}]) == [
        {
            "text": '#loc = loc("kernels/vector_add.py":27:0)\n'
            '#loc3 = loc("kernels/matmul.py":70:4)\n'
            '#loc9 = loc("triton/language/standard.py":40:0)\n'
            '.file 1 "kernels/matmul.py"\n'
            "3.2 TB/s, 1/2 of copy"
        }
    ]
    assert not ABSOLUTE.search(json.dumps(benchlib.relative_paths([text])))


def test_measure_lists_the_stale_benchmarks_without_a_gpu(tmp_path, monkeypatch, capsys):
    """``measure.py --stale --list``: per device, the benchmarks --stale would run."""
    measure = pytest.importorskip("scripts.bench.measure")
    data = tmp_path / "data" / "some-gpu"
    data.mkdir(parents=True)
    fresh = {"commit": "abc1234", "sources": sources.sources("softmax")}
    old = {
        "commit": "abc1234",
        "sources": {**sources.sources("rmsnorm"), "kernels/rmsnorm.py": "0" * 64},
    }
    for name, prov in (("softmax", fresh), ("rmsnorm", old), ("variation", {"commit": "x" * 7})):
        (data / f"{name}.json").write_text(json.dumps({"benchmark": name, "provenance": prov}))
    monkeypatch.setattr(measure.benchlib, "DATA_DIR", tmp_path / "data")
    assert measure.main(["--stale", "--list"]) == 0
    out = capsys.readouterr().out
    assert "some-gpu: measure.py --stale would run rmsnorm\n" in out
    assert "some-gpu: also stale, from their own scripts: variation" in out
    assert "stale some-gpu/rmsnorm.json: changed since abc1234: kernels/rmsnorm.py" in out
