"""Execute the lab notebooks (docs/labs/*.ipynb) and store their outputs in the files.

    python3 scripts/bench/run_labs.py                  # every lab, on the GPU this machine has
    python3 scripts/bench/run_labs.py part-3-building  # the named labs only
    python3 scripts/bench/run_labs.py --check          # execute, but leave the files as they are

The site shows each notebook as it is stored (mkdocs-jupyter with execute: false), so the
outputs a reader sees are those this script wrote. Run it on a GPU machine: without one it
refuses (the CPU outputs of the interpreter say nothing about speed), unless --allow-cpu
is given, which is what tests/labs does in a scratch copy. The first cell's "Outputs on
this page" line is rewritten to say where and when the outputs were made.

Needs torch + triton (the kernels). With nbclient and ipykernel installed each notebook
runs in a Jupyter kernel of its own; without them (a bare GPU machine: torch, triton and
numpy only) the cells run in this process, one after the other in one namespace, and
what they print is stored as their output (``--plain`` forces this); a cell that ends in
an expression has its value stored as Jupyter would, with the SVG of one that has
``_repr_svg_``: the labs' ``plot(...)`` draws its chart as SVG, with no plotting library,
so a GPU machine without matplotlib stores real charts (the site shows them inline,
scripts/book/hook.py).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "docs" / "labs"
STATUS = re.compile(r"^\*\*Outputs on this page:\*\*.*$", re.M)
TIMEOUT_S = 600  # per cell: the autotuner and first compiles take a while on a GPU


def notebooks(names: list[str], folder: Path = LABS) -> list[Path]:
    found = sorted(folder.glob("*.ipynb"))
    if not names:
        return found
    chosen = [p for p in found if p.stem in names]
    missing = set(names) - {p.stem for p in chosen}
    if missing:
        raise SystemExit(f"no such lab: {sorted(missing)}; labs: {[p.stem for p in found]}")
    return chosen


def status_line(device: str, when: datetime, versions: str) -> str:
    return (
        f"**Outputs on this page:** from a run on {device} on {when:%Y-%m-%d} ({versions}), "
        "stored by `scripts/bench/run_labs.py`. Run the notebook to get your own."
    )


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def set_status(nb: dict, line: str) -> None:
    """Rewrite the first cell's 'Outputs on this page' line."""
    first = nb["cells"][0]
    if first["cell_type"] != "markdown" or not STATUS.search(source(first)):
        raise ValueError("the first cell must be Markdown with an 'Outputs on this page' line")
    first["source"] = STATUS.sub(lambda m: line, source(first), count=1)


def write(nb: dict, path: Path) -> None:
    """Store the notebook as nbformat does (one-space indent, sorted keys)."""
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def run_cell(code: str, name: str, namespace: dict):
    """Run a cell's code as Jupyter does: every statement, then, if the cell ends in an
    expression, that expression, whose value is returned (else None)."""
    tree = ast.parse(code, name)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), name, "eval"), namespace)


def result_output(value, count: int) -> dict | None:
    """What Jupyter stores for a cell's last value: its text, and its SVG where it draws
    one (``_repr_svg_``, the labs' charts); None stores nothing, as in Jupyter."""
    if value is None:
        return None
    data = {"text/plain": repr(value)}
    svg = getattr(value, "_repr_svg_", None)
    if callable(svg) and svg():
        data["image/svg+xml"] = svg()
    return {"output_type": "execute_result", "execution_count": count, "data": data, "metadata": {}}


def execute_plain(path: Path) -> dict:
    """Run the code cells in this process, in order, in one namespace, from the notebook's
    folder; store what each prints as its output. A failing cell raises, naming it."""
    nb = json.loads(path.read_text())
    namespace: dict = {"__name__": "__main__"}
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        count = 0
        for index, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            count += 1
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    value = run_cell(source(cell), f"{path.name} cell {index}", namespace)
                except Exception as exc:
                    raise RuntimeError(f"{path.name}, cell {index}: {exc!r}") from exc
            cell["execution_count"] = count
            cell["outputs"] = [
                {"name": name, "output_type": "stream", "text": text.splitlines(keepends=True)}
                for name, text in (("stdout", out.getvalue()), ("stderr", err.getvalue()))
                if text
            ]
            shown = result_output(value, count)
            if shown is not None:
                cell["outputs"].append(shown)
    finally:
        os.chdir(here)
    return nb


def have_jupyter() -> bool:
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
    except ImportError:
        return False
    return True


def execute(path: Path, timeout: int = TIMEOUT_S):
    """Run the notebook top to bottom in a Jupyter kernel, from its own folder; return it
    with its outputs."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb


def device_and_versions() -> tuple[str, str]:
    import torch
    import triton

    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "the CPU (interpreter)"
    return device, f"torch {torch.__version__}, triton {triton.__version__}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", metavar="LAB", help="labs to run (default: all)")
    parser.add_argument("--check", action="store_true", help="run, but do not write the files")
    parser.add_argument(
        "--allow-cpu", action="store_true", help="run without a GPU (the interpreter, tiny sizes)"
    )
    parser.add_argument(
        "--plain", action="store_true", help="run the cells in this process, without Jupyter"
    )
    parser.add_argument("--folder", type=Path, default=LABS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available() and not args.allow_cpu:
        print(
            "run_labs.py stores GPU outputs for the site and needs a CUDA GPU; none is "
            "visible to torch (--allow-cpu runs the labs under the interpreter anyway).",
            file=sys.stderr,
        )
        return 2
    if not torch.cuda.is_available():
        # The labs switch the interpreter on before their first kernel, but this process
        # imports triton first (its version, below): switch it on here, as they would.
        os.environ.setdefault("TRITON_INTERPRET", "1")
    device, versions = device_and_versions()
    plain = args.plain or not have_jupyter()
    if plain:
        print("running the cells in this process (no Jupyter kernel): printed output and charts")
    failed = []
    for path in notebooks(args.names, args.folder):
        t0 = time.perf_counter()
        try:
            nb = execute_plain(path) if plain else execute(path)
        except Exception as exc:  # a failing cell: report it, keep the file as it was
            print(f"{path.name}: FAILED\n{exc}", file=sys.stderr)
            failed.append(path.name)
            continue
        print(f"{path.name}: ran in {time.perf_counter() - t0:.0f} s")
        if not args.check:
            set_status(nb, status_line(device, datetime.now(timezone.utc), versions))
            write(nb, path)
            print(f"  wrote {path.relative_to(args.folder.parent.parent)}")
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
