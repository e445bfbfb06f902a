"""The build side needs no torch: the Pages workflow installs only `--group site` (no torch,
triton or numpy), builds the site and runs tests/site. So:

- no module of the build side (scripts/book/, figures/) or of the site tests imports torch,
  triton or numpy, nor any first-party module that does (kernels/, scripts/bench/,
  tests/support.py), at the top of a file or inside a function: read with ``ast``,
  following first-party imports;
- in a Python where those three cannot be imported, every build-side module imports and
  the site tests collect.

(Every site build of the tests runs that way too: tests/site/support.py's mkdocs_build.)
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from tests.site.support import NOT_IN_SITE_GROUP, ROOT, python_without_torch

FIRST_PARTY = {"kernels", "scripts", "tests", "figures"}
BUILD_SIDE = ["scripts/book", "figures", "tests/site"]


def module_path(name: str) -> Path | None:
    """The file of first-party module ``name`` (a package's __init__.py), else None."""
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, anywhere (functions included), with the packages
    above each: importing a.b.c runs a/__init__.py and a/b/__init__.py first. ``package``:
    the package the source is in, for relative imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from this package, up (level - 1) packages
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(p for p in [*up, base] if p)
            # `from a import b` imports a, and a.b when that is a module
            names = [
                base,
                *(f"{base}.{a.name}" for a in node.names if module_path(f"{base}.{a.name}")),
            ]
        else:
            continue
        for name in names:
            parts = name.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found


def imports_of(path: Path, source: str | None = None) -> set[str]:
    """imports_in for the file ``path`` (or ``source``, read as if it were that file)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text() if source is None else source, package)


def forbidden_imports(start: Path, source: str | None = None) -> list[str]:
    """Chains of imports from the file ``start`` to torch, triton or numpy, through
    first-party modules ("tests/site/x.py -> scripts.bench.measure -> torch")."""
    chains = []
    seen = set()
    todo = [(start, start.relative_to(ROOT).as_posix(), source)]
    while todo:
        path, chain, text = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in sorted(imports_of(path, text)):
            top = name.split(".")[0]
            if top in NOT_IN_SITE_GROUP:
                chains.append(f"{chain} -> {name}")
            elif top in FIRST_PARTY and (found := module_path(name)) is not None:
                todo.append((found, f"{chain} -> {name}", None))
    return chains


def build_side_files() -> list[Path]:
    return sorted(p for d in BUILD_SIDE for p in (ROOT / d).rglob("*.py"))


def test_the_import_reader_sees_every_import():
    source = "import json\n\ndef f():\n    from scripts.bench import measure\n    import numpy\n"
    assert imports_in(source, "tests.site") == {
        "json",
        "scripts",
        "scripts.bench",
        "scripts.bench.measure",
        "numpy",
    }
    assert imports_in("from .support import ROOT", "tests.site") == {
        "tests",
        "tests.site",
        "tests.site.support",
    }
    # Through first-party modules: a test function that imports the GPU runner needs torch.
    late = "def test_x():\n    from scripts.bench import measure\n"
    chains = forbidden_imports(ROOT / "tests" / "site" / "test_x.py", late)
    assert "tests/site/test_x.py -> scripts.bench.measure -> torch" in chains, chains


@pytest.mark.parametrize("path", build_side_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_build_side_imports_no_torch(path):
    chains = forbidden_imports(path)
    assert not chains, "needs a package the site group does not install:\n" + "\n".join(chains)


IMPORT_AND_COLLECT = """
import importlib, pkgutil, sys
import pytest
for package in ("scripts.book", "figures"):
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        importlib.import_module(f"{package}.{info.name}")
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "tests/site"]))
"""


def test_without_torch_the_build_side_imports_and_the_site_tests_collect():
    run = subprocess.run(
        python_without_torch(IMPORT_AND_COLLECT),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    assert " tests collected" in run.stdout and "error" not in run.stdout.splitlines()[-1]
