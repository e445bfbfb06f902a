"""The first kernels a reader runs print what the pages say they print.

- kernels/_hello.py, the orientation page's five-minute start: the page (docs/index.md)
  shows the command and its output in one console block that starts with
  ``$ TRITON_INTERPRET=1 python kernels/_hello.py``; the test runs that command in a fresh
  process, the way a reader would, and compares the output line by line. The kernel itself
  is also checked against torch on ragged sizes, in this process.
- Lesson 02's Python session (its ``pycon`` block), run as a doctest under the
  interpreter from the repository's root, as the page tells the reader to.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from kernels import _hello as hello
from tests.support import DEVICE, fresh_seed, poisoned_like, rand

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "$ TRITON_INTERPRET=1 python kernels/_hello.py"


def page_output() -> list[str]:
    """The lines the orientation page says the command prints."""
    text = (ROOT / "docs" / "index.md").read_text()
    block = re.search(r"^```console\n" + re.escape(COMMAND) + r"\n(.*?)^```", text, re.S | re.M)
    assert block, f"docs/index.md has no console block starting {COMMAND!r}"
    return block.group(1).splitlines()


def test_the_page_shows_what_the_file_prints():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run(
        [sys.executable, "kernels/_hello.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == page_output()


@pytest.mark.parametrize("n, block", [(1, 4), (10, 4), (1000, 128), (4097, 1024)])
def test_hello_adds_every_element(n, block):
    seed = fresh_seed()
    x, y = rand(n), rand(n)
    out = poisoned_like(x)
    hello.add_kernel[((n + block - 1) // block,)](x, y, out, n, BLOCK=block)
    assert torch.equal(out, x + y), f"seed={seed} n={n}"
    assert out.device.type == torch.device(DEVICE).type


def test_lesson_02_session_prints_what_the_page_shows(tmp_path):
    text = (ROOT / "docs" / "model" / "02-programs-and-tiles.md").read_text()
    blocks = re.findall(r"^```pycon\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) == 1, "lesson 02 should hold exactly one Python session"
    session = tmp_path / "session.txt"
    session.write_text(blocks[0])
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "doctest", str(session)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
