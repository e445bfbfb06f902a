"""Lesson 04's 2-D pointer tile (kernels/_tiles.py): each program loads exactly its tile of
any strided view, -1 where its mask is off; the example prints what the page says it
prints; and a tile side that is not a power of two is refused with tl.arange's message."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton

from kernels import _tiles
from tests.support import DEVICE, fresh_seed

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "dsl" / "04-loads-stores-masks.md"
COMMAND = "$ TRITON_INTERPRET=1 python -m kernels._tiles"


def expected_tiles(x: torch.Tensor, block_r: int, block_c: int) -> torch.Tensor:
    """out[i, j] = x's (block_r, block_c) tile at (i, j), padded with -1, by torch alone."""
    n_rows, n_cols = x.shape
    grid_r, grid_c = -(-n_rows // block_r), -(-n_cols // block_c)
    padded = torch.full((grid_r * block_r, grid_c * block_c), -1.0, device=x.device)
    padded[:n_rows, :n_cols] = x
    return padded.view(grid_r, block_r, grid_c, block_c).permute(0, 2, 1, 3)


def views(x: torch.Tensor) -> dict[str, torch.Tensor]:
    return {
        "contiguous": x,
        "transposed": x.t(),
        "every-other-column": x[:, ::2],
        "sliced-every-third-row": x[1::3, 2:],
    }


@pytest.mark.parametrize("view", ["contiguous", "transposed", "every-other-column",
                                  "sliced-every-third-row"])  # fmt: skip
@pytest.mark.parametrize(("block_r", "block_c"), [(2, 4), (4, 2), (1, 8), (8, 8)])
def test_each_program_loads_its_tile_of_any_view(view, block_r, block_c):
    seed = fresh_seed()
    x = views(torch.randn(11, 13, device=DEVICE))[view]
    got = _tiles.tiles(x, block_r, block_c)
    assert torch.equal(got, expected_tiles(x, block_r, block_c)), f"seed={seed}"


def test_a_tile_side_must_be_a_power_of_two():
    x = torch.arange(30, dtype=torch.float32, device=DEVICE).reshape(5, 6)
    # Compiled: a CompilationError; interpreted: an InterpreterError. Both TritonErrors.
    with pytest.raises(triton.errors.TritonError) as caught:
        _tiles.tiles(x, block_r=3)
    assert "power of 2" in str(caught.value) + str(caught.value.__cause__)


def printed_on_the_page() -> str:
    """The lines the page shows under the command that runs the example."""
    lines = PAGE.read_text().splitlines()
    start = lines.index(COMMAND) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    return "\n".join(lines[start:end])


def test_the_example_prints_what_the_page_says():
    env = {**os.environ}
    if not torch.cuda.is_available():
        env["TRITON_INTERPRET"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "kernels._tiles"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.rstrip("\n") == printed_on_the_page()


def test_the_pages_tile_limit_is_tritons():
    page = " ".join(PAGE.read_text().split())
    assert "may number at most 2²⁰" in page
    assert triton.language.TRITON_MAX_TENSOR_NUMEL == 2**20
