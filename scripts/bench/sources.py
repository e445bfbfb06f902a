"""Source fingerprints: which files a data file's numbers depend on, and a hash of each.

A data file ``figures/data/<device>/<benchmark>.json`` records, in its provenance,
``sources``: ``{path: sha256}`` for every file of this repository its measurement ran.
The build hashes the same paths in the tree it builds from; where a hash differs, the file
was measured with an earlier version of that code and the site says so (scripts/book/
render.py, "stale data").

**Which files.** Found, not listed: the benchmark's module (the family module
``scripts/bench/benchmarks/F.py`` whose name the benchmark carries, or the script that
writes it: ``ceilings`` and ``quick_run`` come from the runner scripts/bench/measure.py,
``variation`` from scripts/bench/variation.py) and every file of the repository it imports,
followed through imports (``from kernels import rmsnorm``, ``from scripts.bench import
benchlib``, an import inside a function, and the imports of code a module runs in a fresh
interpreter, kept in a string). Package ``__init__.py`` files are not sources (they hold
docstrings), nor is this file (it records, it does not measure).

**The harness counts.** Every benchmark imports scripts/bench/benchlib.py, so a change to
how it checks or times makes every data file older than the code. What the harness
writes *about* a run is not part of the measurement, though: its bookkeeping definitions
(``BOOKKEEPING``: provenance, clocks, the file it writes) and its import lines are left out
of its hash, the same way for every version of the file, so that recording one more fact
about a run does not disown every number measured before. The runner, measure.py, is a
source of its own files only: it orders the benchmarks and records what they cost.

**What is hashed.** The code, not its commentary: the text with comments, docstrings,
blank lines, trailing spaces and line endings taken out (``normalise``). A reworded
docstring does not change what was measured; any change to a statement does.

Standard library only: the build (no torch) imports it too.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS_DIR = "scripts/bench/benchmarks"
RUNNER = "scripts/bench/measure.py"
# Data files a family module does not write: the runner's own, the variation script's and
# the counters script's.
WRITERS = {
    "ceilings": RUNNER,
    "counters": "scripts/bench/counters.py",
    "quick_run": RUNNER,
    "variation": "scripts/bench/variation.py",
}
PACKAGES = ("kernels", "scripts")  # imports of these resolve to files of this repository
NOT_SOURCES = {"scripts/bench/sources.py"}
HARNESS = "scripts/bench/benchlib.py"
# The harness's definitions that record what a run was rather than time or check anything:
# left out of its fingerprint (with its imports), in every version of the file.
BOOKKEEPING = frozenset(
    {
        "device_slug",
        "_run",
        "git_commit",
        "CLOCK_FIELDS",
        "parse_clocks",
        "read_clocks",
        "provenance",
        "IN_REPOSITORY",
        "IN_PACKAGES",
        "relative_paths",
        "defined_in",
        "write",
    }
)


# ---- the hash ---------------------------------------------------------------------------


def _docstring_lines(tree: ast.AST, lines: list[str]) -> set[int]:
    """0-based numbers of the lines that hold only a docstring (module, class, function)."""
    drop: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = getattr(node, "body", [])
        if not body or not isinstance(body[0], ast.Expr):
            continue
        value = body[0].value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        first, last = body[0].lineno - 1, body[0].end_lineno - 1
        start, end = lines[first], lines[last]
        starts_line = len(start) - len(start.lstrip()) == body[0].col_offset
        ends_line = len(end.rstrip().encode()) == body[0].end_col_offset
        if starts_line and ends_line:
            drop.update(range(first, last + 1))
    return drop


def _comment_starts(text: str) -> dict[int, int]:
    """{0-based line: column where a comment starts}."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0] - 1] = tok.start[1]
    return found


def normalise(text: str) -> str:
    """The code of a Python file without what does not run: comments, docstrings, blank
    lines, trailing spaces; line endings as ``\\n``. Text that does not parse as Python is
    kept whole, with only its line endings and trailing spaces normalised."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    try:
        drop = _docstring_lines(ast.parse(text), lines)
        comments = _comment_starts(text)
    except (SyntaxError, ValueError, tokenize.TokenError):
        drop, comments = set(), {}
    kept = []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        line = line[: comments[i]] if i in comments else line
        if line.strip():
            kept.append(line.rstrip())
    return "\n".join(kept) + "\n"


def _defines(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets if isinstance(t, ast.Name)}
    return set()


def measuring_part(text: str, leave_out: frozenset[str] = BOOKKEEPING) -> str:
    """``text`` without its top-level import lines and the top-level definitions named in
    ``leave_out`` (their decorators and the comments just above them included): what
    the harness measures with, not what it records."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    drop: set[int] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _defines(node) & leave_out:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            drop.update(range(first - 1, node.end_lineno))
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)


@functools.lru_cache(maxsize=512)
def fingerprint(text: str, path: str = "") -> str:
    """sha256 (hex) of ``normalise(text)``; for the harness (``path`` HARNESS), of its
    measuring part only (``measuring_part``)."""
    if path == HARNESS:
        text = measuring_part(text)
    return hashlib.sha256(normalise(text).encode()).hexdigest()


# ---- which files: a tree, and the imports followed through it ----------------------------


class Tree:
    """A checkout read from disk (by default this repository's working tree)."""

    def __init__(self, root: Path = ROOT):
        self.root = Path(root)

    def canonical(self, path: str) -> str | None:
        """``path`` as this tree names the file, or None where it has no such file."""
        return path if (self.root / path).is_file() else None

    def read(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def modules(self, folder: str) -> list[str]:
        """The module names (no ``.py``) of the files directly in ``folder``."""
        return sorted(p.stem for p in (self.root / folder).glob("*.py"))


@functools.lru_cache(maxsize=512)
def imported(text: str) -> frozenset[str]:
    """Every dotted name an import in ``text`` could load: ``import a.b`` gives ``a.b``;
    ``from a import b`` gives ``a`` and ``a.b`` (b may be a module). Imports inside
    functions count, and so do those of code kept in a string constant that parses as
    Python with an import in it (a script a module runs in a fresh interpreter)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "import " in node.value and "\n" in node.value:
                try:
                    names |= imported(node.value)
                except SyntaxError:
                    pass
    return frozenset(names)


def dependencies(start: str, tree: Tree) -> list[str]:
    """``start`` and every file of the repository it imports, followed through imports,
    sorted; package ``__init__.py`` files left out."""
    found: set[str] = set()
    todo = [tree.canonical(start) or start]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        for name in imported(tree.read(path)):
            if name.split(".")[0] not in PACKAGES:
                continue
            dep = tree.canonical(name.replace(".", "/") + ".py")
            if dep is not None and dep not in found and dep not in {*NOT_SOURCES, RUNNER}:
                todo.append(dep)  # the runner counts only for its own files (see above)
    return sorted(found)


def probe_paths(tree: Tree | None = None) -> dict[str, list[str]]:
    """The counters script's probes (scripts/bench/counters.py) and, for each, the files
    its numbers depend on: the script and what it imports at the top level and in
    ``main`` (the harness), plus the repository modules its setup function imports,
    followed through imports. One counters file holds probes of many lessons; a change to
    one probe's kernel leaves the others' counters as true as they were. Read from the
    script's text: each entry of its ``PROBES`` list is ``Probe(name, lesson, what,
    factory(...))``, and ``factory`` is a function of the script."""
    tree = tree or Tree()
    script = WRITERS["counters"]
    text = tree.read(script)
    module = ast.parse(text)
    functions = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    shared = set(_followed(_imports_outside(module, functions, text), tree)) | {script}
    found: dict[str, list[str]] = {}
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Probe"):
            continue
        name, setup = node.args[0], node.args[3]
        factory = functions.get(getattr(getattr(setup, "func", None), "id", None))
        if not isinstance(name, ast.Constant) or factory is None:
            continue
        own = imported(ast.get_source_segment(text, factory) or "")
        found[name.value] = sorted(shared | set(_followed(own, tree)))
    return found


def _imports_outside(module: ast.Module, functions: dict, text: str) -> frozenset[str]:
    """The names the script imports anywhere but in its probes' setup functions (the
    helpers whose name starts with ``_``): its top level, ``main`` and the rest."""
    kept = [
        ast.get_source_segment(text, n) or ""
        for n in module.body
        if not (isinstance(n, ast.FunctionDef) and n.name.startswith("_"))
    ]
    return imported("\n".join(kept))


def _followed(names, tree: Tree) -> list[str]:
    """The repository files the imported ``names`` load, with everything they import."""
    out: set[str] = set()
    for name in names:
        if name.split(".")[0] not in PACKAGES:
            continue
        path = tree.canonical(name.replace(".", "/") + ".py")
        if path is not None and path not in NOT_SOURCES:
            out.update(dependencies(path, tree))
    return sorted(out)


def module_of(benchmark: str, tree: Tree) -> str:
    """The file that writes ``benchmark``'s data: its family's module, the family being the
    longest module name in scripts/bench/benchmarks that the benchmark's name is or starts
    with (``matmul_tma_epilogue`` -> matmul_tma.py), or the runner for its own files."""
    if benchmark in WRITERS:
        return WRITERS[benchmark]
    families = [m for m in tree.modules(BENCHMARKS_DIR) if not m.startswith("_")]
    hits = [f for f in families if benchmark == f or benchmark.startswith(f + "_")]
    if not hits:
        raise KeyError(f"no module in {BENCHMARKS_DIR} writes {benchmark!r}")
    return f"{BENCHMARKS_DIR}/{max(hits, key=len)}.py"


def source_paths(benchmark: str, tree: Tree | None = None, module: str | None = None) -> list[str]:
    """The files ``benchmark``'s measurement depends on (see the module's docstring).
    ``module``: the file that defines it, where its name does not say (a benchmark outside
    scripts/bench/benchmarks, say one a test defines)."""
    tree = tree or Tree()
    try:
        module = module_of(benchmark, tree)
    except KeyError:
        if module is None:
            raise
    return dependencies(module, tree)


def sources(benchmark: str, tree: Tree | None = None, module: str | None = None) -> dict[str, str]:
    """``{path: fingerprint}`` of ``benchmark``'s sources in ``tree`` (the working tree by
    default): what a data file records at the time it is written."""
    tree = tree or Tree()
    return {p: fingerprint(tree.read(p), p) for p in source_paths(benchmark, tree, module)}


def changed(recorded: dict[str, str], tree: Tree | None = None) -> list[str]:
    """The recorded paths whose code in ``tree`` differs from the recorded fingerprint (or
    that ``tree`` no longer has), sorted."""
    tree = tree or Tree()
    out = []
    for path, digest in recorded.items():
        here = tree.canonical(path)
        if here is None or fingerprint(tree.read(here), here) != digest:
            out.append(path)
    return sorted(out)


# ---- a tree at a commit: backfilling files measured before fingerprints existed -----------

# Commit 70a1130 moved the GPU side into scripts/bench/: a file measured before it names its
# sources as they are named now.
LAYOUT_MOVES = (
    ("scripts/benchmarks/", "scripts/bench/benchmarks/"),
    ("scripts/benchlib.py", "scripts/bench/benchlib.py"),
    ("scripts/measure.py", "scripts/bench/measure.py"),
    ("scripts/variation.py", "scripts/bench/variation.py"),
    ("scripts/run_labs.py", "scripts/bench/run_labs.py"),
)


def _git(*args: str, root: Path = ROOT) -> str:
    import subprocess

    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def known_commit(commit: str, root: Path = ROOT) -> str | None:
    """The full hash of ``commit`` if this repository's history has it, else None."""
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", root=root).strip()
    except Exception:  # noqa: BLE001 - no git, no such commit: unknown either way
        return None


class GitTree(Tree):
    """The repository as it was at ``commit`` (``git show``), its files named as they are
    named now (``LAYOUT_MOVES``)."""

    def __init__(self, commit: str, root: Path = ROOT):
        super().__init__(root)
        self.commit = commit
        listed = _git("ls-tree", "-r", "--name-only", commit, root=root).splitlines()
        self.then = {self.now(p): p for p in listed}  # name now -> name at the commit

    @staticmethod
    def now(path: str) -> str:
        for old, new in LAYOUT_MOVES:
            if path.startswith(old):
                return new + path[len(old) :]
        return path

    def canonical(self, path: str) -> str | None:
        here = self.now(path)
        return here if here in self.then else None

    def read(self, path: str) -> str:
        return _git("show", f"{self.commit}:{self.then[path]}", root=self.root)

    def modules(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(
            p[len(prefix) : -3]
            for p in self.then
            if p.startswith(prefix) and p.endswith(".py") and "/" not in p[len(prefix) :]
        )


def recorded_sources(prov: dict, benchmark: str, root: Path = ROOT) -> dict:
    """What a data file measured before fingerprints existed should record, from its
    provenance: ``{"sources": ...}`` hashed from the files at its commit, or
    ``{"sources_unknown": reason}`` where the commit is not in the history or the tree had
    uncommitted changes (what ran then is not known)."""
    commit = prov.get("commit", "unknown")
    full = known_commit(commit, root)
    if prov.get("dirty"):
        return {
            "sources_unknown": f"measured from a tree with uncommitted changes at commit "
            f"{commit[:10]}: which version of the code ran is not recorded"
        }
    if full is None:
        return {"sources_unknown": f"commit {commit[:10]} is not in this repository's history"}
    return {"sources": sources(benchmark, GitTree(full, root))}


# ---- stale data ---------------------------------------------------------------------------


def staleness(doc: dict, tree: Tree | None = None) -> dict | None:
    """Why a data document is older than the code in ``tree``, or None when it is not:
    ``{"changed": [paths], "commit": ...}`` for the sources whose code changed since, or
    ``{"unknown": reason, "commit": ...}`` for a file that cannot say what it measured."""
    prov = doc["provenance"]
    commit = prov.get("commit", "unknown")
    if "sources" not in prov:
        reason = prov.get("sources_unknown", "it records no fingerprints of its sources")
        return {"unknown": reason, "commit": commit}
    moved = changed(prov["sources"], tree)
    return {"changed": moved, "commit": commit} if moved else None


def data_files(data_dir: Path | None = None) -> list[Path]:
    return sorted((data_dir or ROOT / "figures" / "data").glob("*/*.json"))


def stale_files(data_dir: Path | None = None, tree: Tree | None = None) -> list[tuple]:
    """(path, benchmark, why) for every stale data file under ``data_dir``."""
    import json

    out = []
    for path in data_files(data_dir):
        doc = json.loads(path.read_text())
        why = staleness(doc, tree)
        if why is not None:
            out.append((path, doc["benchmark"], why))
    return out


def describe(why: dict) -> str:
    """One line for a console: what changed since the file's commit."""
    if "unknown" in why:
        return why["unknown"]
    return f"changed since {why['commit'][:10]}: {', '.join(why['changed'])}"


def main(argv=None) -> int:
    import argparse
    import json

    parser = argparse.ArgumentParser(description="Source fingerprints of the measured data.")
    parser.add_argument(
        "--backfill",
        action="store_true",
        help="record sources (hashed at each file's commit) in data files that lack them",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="with --backfill: recompute from each file's commit where it already has them",
    )
    parser.add_argument("--data", type=Path, default=None, help="data folder (figures/data)")
    args = parser.parse_args(argv)
    if args.backfill:
        for path in data_files(args.data):
            doc = json.loads(path.read_text())
            prov = doc["provenance"]
            if ("sources" in prov or "sources_unknown" in prov) and not args.again:
                continue
            prov.pop("sources", None)
            prov.pop("sources_unknown", None)
            prov.update(recorded_sources(prov, doc["benchmark"]))
            path.write_text(json.dumps(doc, indent=1) + "\n")
            print(f"backfilled {path.relative_to(ROOT)}")
        return 0
    stale = stale_files(args.data)
    where = (args.data or ROOT / "figures" / "data").resolve()
    print(f"{len(stale)} stale data file(s) under {where.relative_to(ROOT)}/", end="")
    print(" (rerun them on a GPU: make figures STALE=1)" if stale else "")
    for path, _, why in stale:
        print(f"  {path.parent.name}/{path.name}: {describe(why)}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
