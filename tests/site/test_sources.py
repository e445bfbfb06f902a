"""Published text = tested code: listings come from kernels/ via named snippet sections."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.site.support import ROOT

DOCS = sorted((ROOT / "docs").rglob("*.md"))
KERNEL_FILES = sorted(p for p in (ROOT / "kernels").glob("*.py") if p.name != "__init__.py")
# A file whose name starts with "_" (kernels/_wrong.py) holds fragments a page shows, not a
# kernel family: it has no kernel or wrapper section, and is otherwise checked like the rest.
FAMILY_FILES = [p for p in KERNEL_FILES if not p.name.startswith("_")]
SOURCES = (
    KERNEL_FILES
    + sorted((ROOT / "tests").rglob("*.py"))
    + sorted((ROOT / "scripts").rglob("*.py"))
    + sorted((ROOT / "exercises").rglob("*.py"))
)
MARKER = re.compile(r"#\s*--8<--\s*\[(start|end):([A-Za-z0-9_-]+)\]")
INCLUDE = re.compile(r'--8<--\s*"([^"]+?)(?::([A-Za-z0-9_-]+))?"')


def sections(path: Path) -> set[str]:
    names, open_ = set(), []
    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        m = MARKER.search(line)
        if not m:
            continue
        kind, name = m.groups()
        if kind == "start":
            assert name not in open_ and name not in names, (
                f"{path}:{line_no}: section {name} starts twice"
            )
            open_.append(name)
        else:
            assert open_ and open_[-1] == name, (
                f"{path}:{line_no}: end:{name} does not close {open_}"
            )
            open_.pop()
            names.add(name)
    assert not open_, f"{path}: sections never closed: {open_}"
    return names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_snippet_markers_pair_up(path):
    sections(path)


def includes() -> list[tuple[Path, str, str | None]]:
    found = []
    for md in DOCS:
        for m in INCLUDE.finditer(md.read_text()):
            found.append((md, m.group(1), m.group(2)))
    return found


def test_every_include_resolves():
    assert includes(), "no page includes any code"
    for md, target, section in includes():
        path = ROOT / target
        assert path.is_file(), f"{md.relative_to(ROOT)} includes missing file {target}"
        if section:
            assert section in sections(path), (
                f"{md.relative_to(ROOT)}: {target} has no section {section!r}"
            )


def test_no_kernel_is_pasted_into_markdown():
    for md in DOCS:
        assert "@triton.jit" not in md.read_text(), (
            f"{md.relative_to(ROOT)} mentions @triton.jit: include kernels from kernels/ instead"
        )


@pytest.mark.parametrize("kernel", KERNEL_FILES, ids=lambda p: p.name)
def test_every_kernel_file_is_used_by_a_page(kernel):
    users = [md for md, target, _ in includes() if target == f"kernels/{kernel.name}"]
    assert users, f"no page includes kernels/{kernel.name}"


@pytest.mark.parametrize("kernel", KERNEL_FILES, ids=lambda p: p.name)
def test_kernel_files_import_only_torch_and_triton(kernel):
    # triton.tools.tensor_descriptor: Triton's own host-side TMA descriptor (a TMA kernel
    # file, kernels/attention_tma.py, builds its descriptors on the host).
    # torch.distributed and its symmetric memory: torch's own, for the one kernel that works
    # across GPUs (kernels/all_reduce.py allocates and exchanges its buffers with them).
    # triton.experimental.gluon: Triton's lower layer, shipped with it (kernels/
    # attention_gluon.py: its language, Hopper's TMA, mbarriers and warp-group MMA, and
    # its host-side descriptor).
    allowed = {"torch", "triton", "triton.language", "math", "__future__",
               "triton.tools.tensor_descriptor", "torch.distributed",
               "torch.distributed._symmetric_memory", "triton.experimental",
               "triton.experimental.gluon", "triton.experimental.gluon.language.nvidia.hopper",
               "triton.experimental.gluon.nvidia.hopper"}  # fmt: skip
    for line in kernel.read_text().splitlines():
        m = re.match(r"\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", line)
        if m:
            module = m.group(1) or m.group(2)
            assert module in allowed, f"{kernel.name} imports {module}; kernel files stand alone"


def section_text(path: Path, name: str) -> str:
    text = path.read_text()
    start = re.search(rf"#\s*--8<--\s*\[start:{name}\]\n", text)
    end = re.search(rf"#\s*--8<--\s*\[end:{name}\]", text)
    return text[start.end() : end.start()]


@pytest.mark.parametrize("kernel", FAMILY_FILES, ids=lambda p: p.name)
def test_sections_mean_the_same_in_every_kernel_file(kernel):
    """``kernel`` holds only @triton.jit functions (and comments); ``launch`` is the short
    host code a reader copies and ``checks`` the wrapper contract around it, neither with a
    @triton.jit function; ``reference``, where present, is a plain function named
    ``reference``."""
    names = sections(kernel)
    missing = {"kernel", "launch", "checks"} - names
    assert not missing, f"{kernel.name} lacks the section(s) {sorted(missing)}"
    body = ast.parse(section_text(kernel, "kernel")).body
    assert body, f"{kernel.name}: empty kernel section"
    for node in body:
        jit = isinstance(node, ast.FunctionDef) and any(
            "jit" in ast.unparse(d) or "autotune" in ast.unparse(d) for d in node.decorator_list
        )
        assert jit, f"{kernel.name}: the kernel section holds {ast.unparse(node)[:60]!r}"
    for part in ("launch", "checks"):
        for node in ast.parse(section_text(kernel, part)).body:
            assert not any("jit" in ast.unparse(d) for d in getattr(node, "decorator_list", [])), (
                f"{kernel.name}: a @triton.jit function sits in the {part} section"
            )
    if "reference" in names:
        defs = [n.name for n in ast.parse(section_text(kernel, "reference")).body]
        assert defs == ["reference"], f"{kernel.name}: reference section holds {defs}"


# The wrapper contract is taught in lesson 07 and hardened in lesson 14; elsewhere a page
# shows a kernel and its launch, and the checks only inside a collapsed block (??? note).
CONTRACT_PAGES = {"docs/building/07-vector-add.md", "docs/performance/14-production.md"}


def test_only_the_contract_lessons_print_checks():
    for md in DOCS:
        rel = str(md.relative_to(ROOT))
        if rel in CONTRACT_PAGES:
            continue
        collapsed = False
        for line in md.read_text().splitlines():
            if re.match(r"\?\?\?\+?\s", line):  # a collapsed block starts
                collapsed = True
            elif line.strip() and not line.startswith((" ", "\t")):
                collapsed = False  # an unindented line ends it
            m = INCLUDE.search(line)
            if m and m.group(2) == "checks" and m.group(1).startswith("kernels/"):
                assert collapsed, (
                    f"{rel} prints {m.group(1)}:checks; show kernel + launch, and the "
                    "contract only in lessons 07 and 14 or inside a collapsed ??? block"
                )
