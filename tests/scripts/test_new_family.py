"""Growing the book means adding files: a throw-away kernel family, added to a temporary
copy of the tree, is discovered, tested, built and checked in the browser, and the only
shared file it touches is mkdocs.yml's nav.

The family, ``toy`` (out = 2x), brings exactly what CONTRIBUTING.md lists: its kernel
file, its kernel test, its benchmark module, its figure module, its row schema, its page,
and (standing in for a GPU run of ``make figures``) a data file per device in the
envelope the runner writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.site.support import ROOT

FILES = {
    "kernels/toy.py": '''
"""Toy family: out = 2 * x."""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def twice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:launch]
def launch(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    twice_kernel[((x.numel() + 255) // 256,)](x, out, x.numel(), BLOCK=256)
    return out
# --8<-- [end:launch]


# --8<-- [start:checks]
def twice(x: torch.Tensor) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.is_contiguous():
        raise TypeError("twice: x must be a contiguous torch.Tensor")
    return launch(x)
# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 2
# --8<-- [end:reference]
''',
    "tests/kernels/test_toy.py": """
import torch

from kernels import toy


def test_twice_matches_reference():
    x = torch.randn(1000, device="cuda" if torch.cuda.is_available() else "cpu")
    assert torch.equal(toy.twice(x), toy.reference(x))
""",
    "scripts/bench/benchmarks/toy.py": """
from scripts.bench import benchlib


def run(ceilings):
    return []


BENCHMARKS = [benchlib.Benchmark("toy", "out = 2 * x, nothing measured yet", run)]
""",
    "figures/toy.py": '''
from scripts.book import render
from scripts.book.render import Docs, Figure, Value


def best(docs: Docs) -> float:
    """Best bandwidth of the toy kernel."""
    return max(render.bandwidth(r) for r in render.rows(docs, "toy"))


def build(docs: Docs) -> dict:
    rs = render.rows(docs, "toy")
    return {"data": [render.line([r["n"] for r in rs], [render.bandwidth(r) for r in rs],
                                 "toy", "triton")], "layout": {}}


FIGURES = {"toy-bandwidth": Figure("Toy bandwidth", ("toy",), build, "Toy bandwidth plot")}
VALUES = {"toy.best": Value(best, render.tbps)}
''',
    "figures/schemas/toy.json": json.dumps(
        {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["n", "bytes", "time_s"],
                "additionalProperties": False,
                "properties": {
                    "n": {"$ref": "#/$defs/count"},
                    "bytes": {"$ref": "#/$defs/count"},
                    "time_s": {"$ref": "#/$defs/spread"},
                },
            },
        }
    ),
    "docs/toy.md": """
# Toy

```python
--8<-- "kernels/toy.py:kernel"
```

{{ figure toy-bandwidth }}

Best on our H100: {{ value h100 toy.best }}.
""",
}


def _tree_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [f for f in out.splitlines() if (root / f).is_file()]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_new_family_is_added_by_adding_files(tmp_path):
    tree = tmp_path / "tree"
    for rel in _tree_files(ROOT):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, tree / rel)
    before = {rel: _digest(tree / rel) for rel in _tree_files(ROOT)}

    for rel, text in FILES.items():
        (tree / rel).write_text(text.lstrip())
    for device in sorted((tree / "figures" / "data").iterdir()):
        doc = json.loads((device / "ceilings.json").read_text())  # the envelope of a run
        spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 9}
        doc.update(
            benchmark="toy",
            description="out = 2 * x, made up by the growth test",
            rows=[{"n": 1 << k, "bytes": 8 << k, "time_s": spread} for k in (20, 24)],
        )
        (device / "toy.json").write_text(json.dumps(doc))
    config = yaml.safe_load((tree / "mkdocs.yml").read_text())
    config["nav"].append({"Toy": "toy.md"})  # the one edit a family makes outside its files
    (tree / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))

    changed = [rel for rel, digest in before.items() if _digest(tree / rel) != digest]
    assert changed == ["mkdocs.yml"], changed

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    listed = subprocess.run(
        [sys.executable, "scripts/bench/measure.py", "--list"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    assert "toy: toy" in listed.stdout, listed.stdout

    # Its kernel test; its data validated against its schema; its figure and value drawn on
    # every device; its page included, built strictly and opened in Chromium.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "toy",
            "tests/kernels/test_toy.py",
            "tests/site/test_data.py",
            "tests/site/test_values.py",
            "tests/site/test_sources.py",
            "tests/site/test_browser.py",
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    passed = int(re.search(r"(\d+) passed", report).group(1))
    assert passed >= 14 and "failed" not in report and "skipped" not in report, report
