"""Benchmarks read a kernel family through its public names (plan, launch*, the wrapper,
reference), never its ``_private`` helpers: a private helper may change with the family,
and a benchmark that re-derives the wrapper's choices measures something else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH_FILES = sorted((ROOT / "scripts" / "bench").rglob("*.py"))


def kernel_aliases(tree: ast.Module) -> dict[str, str]:
    """{local name: kernels module} for every import of a module under kernels/."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "kernels":
            for a in node.names:
                aliases[a.asname or a.name] = a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("kernels.") and a.asname:
                    aliases[a.asname] = a.name
    return aliases


def private_uses(source: str) -> list[str]:
    tree = ast.parse(source)
    aliases = kernel_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kernels"):
            for a in node.names:  # from kernels.x import _helper
                if a.name.startswith("_") and node.module != "kernels":
                    found.append(f"line {node.lineno}: from {node.module} import {a.name}")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", BENCH_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_benchmarks_use_only_public_names_of_kernel_modules(path):
    uses = private_uses(path.read_text())
    assert not uses, f"{path.relative_to(ROOT)} reaches into private members: {uses}"


def test_the_check_sees_a_private_access():
    src = (
        "from kernels import rmsnorm as rn\nimport kernels.matmul as mm\nrn._block(4)\nmm._config\n"
    )
    assert sorted(private_uses(src)) == ["line 3: rn._block", "line 4: mm._config"]
    assert private_uses("from kernels.softmax import _plan\n") == [
        "line 1: from kernels.softmax import _plan"
    ]
    assert private_uses("from kernels import rmsnorm as rn\nrn.plan(1, 2)\n") == []
