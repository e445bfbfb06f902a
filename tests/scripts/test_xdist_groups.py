"""Test groups work: `make test` runs `pytest -n 2 --dist loadgroup`, and the tests marked
``xdist_group(NAME)`` must run one after another on one worker.

Why it matters: the tests past 2**31 elements hold several GiB each on a GPU, and several at
once ran out of memory (tests/support.py's ``big_gpu_memory`` group).

How xdist does it: on each worker it renames a grouped test's node id to ``ID@NAME``, and
the scheduler keeps every id ending in ``@NAME`` on one worker. A pytest that no longer
reads the renamed id (9.2.0, with xdist 3.8.0) drops the suffix without a word, and with it
the group: so these tests read the ids.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRATCH = """
import pytest

@pytest.mark.xdist_group("together")
@pytest.mark.parametrize("i", range(6))
def test_grouped(i):
    pass

@pytest.mark.parametrize("i", range(6))
def test_free(i):
    pass
"""


def group_of(item) -> str | None:
    """The suffix xdist gives a test with ``xdist_group`` markers (None without one)."""
    names = {
        str(m.args[0] if m.args else m.kwargs.get("name", "default"))
        for m in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) or None


def test_loadgroup_runs_a_group_on_one_worker(tmp_path):
    """Six grouped tests on two workers: every id carries the group, one worker runs them."""
    (tmp_path / "test_scratch.py").write_text(SCRATCH)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v"]
        + ["-p", "no:cacheprovider", "test_scratch.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    ran = re.findall(r"\[(gw\d+)\] \[[ \d]+%\] PASSED (\S+)", run.stdout)
    grouped = {nodeid: worker for worker, nodeid in ran if "::test_grouped" in nodeid}
    assert len(grouped) == 6, run.stdout
    lacking = sorted(n for n in grouped if not n.endswith("@together"))
    assert not lacking, f"grouped tests without their group in the id: {lacking}"
    assert len(set(grouped.values())) == 1, f"one group on several workers: {grouped}"


def test_every_grouped_test_of_this_run_carries_its_group(request):
    """The run itself (`make test`): each test with a group has the ``@group`` suffix."""
    config = request.config
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        pytest.skip("reads the ids of a `pytest -n N --dist loadgroup` run (make test's)")
    grouped = [(item.nodeid, group_of(item)) for item in request.session.items]
    grouped = [(nodeid, group) for nodeid, group in grouped if group]
    assert grouped, "no grouped test in this run"
    lacking = [nodeid for nodeid, group in grouped if not nodeid.endswith(f"@{group}")]
    assert not lacking, f"{len(lacking)} grouped tests lack their group, e.g. {lacking[:5]}"


# A kernel test that goes past 2**31 elements says so in its name (past_int32, past_2_31,
# int32_offsets...) and needs a GPU: it must be in the GPU-memory group.
BIG = re.compile(r"int32|2_31")


def decorators(path) -> dict[str, set[str]]:
    """{test function: the names of its decorators} of one test file, read with ast."""
    tree = ast.parse(path.read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            names = set()
            for d in node.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                names.add(ast.unparse(d))
            found[node.name] = names
    return found


def test_tests_past_2_31_elements_are_in_the_gpu_memory_group():
    big = []
    for path in sorted((ROOT / "tests" / "kernels").glob("test_*.py")):
        for name, names in decorators(path).items():
            if BIG.search(name) and "requires_gpu" in names:
                big.append(name)
                assert "big_gpu_memory" in names, (
                    f"{path.name}::{name} runs past 2**31 elements on the GPU but is not "
                    "marked big_gpu_memory (tests/support.py)"
                )
    assert len(big) >= 5, big
    support = (ROOT / "tests" / "support.py").read_text()
    assert 'big_gpu_memory = pytest.mark.xdist_group("gpu_memory")' in support
