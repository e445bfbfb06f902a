"""Lesson 14's debugging aids do what the page says: tl.static_assert stops a bad BLOCK
with its message, and tl.device_print shows each program's value."""

import re

import pytest
import torch
import triton

from kernels import _debugging as dbg
from tests.support import DEVICE, ON_GPU, fresh_seed

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def tile_sums(x, block, debug=False):
    programs = (x.numel() + block - 1) // block
    out = torch.full((programs,), float("nan"), device=x.device)
    dbg.tile_sums_kernel[(programs,)](x, out, x.numel(), BLOCK=block, DEBUG=debug)
    return out


def small_integers(n):
    # Small integers: every partial sum is exact in float32, so sums compare with ==.
    return torch.randint(-8, 9, (n,), device=DEVICE).float()


def test_tile_sums_are_right():
    seed = fresh_seed()
    x = small_integers(100)
    expected = torch.nn.functional.pad(x, (0, 28)).view(-1, 32).sum(dim=1)
    assert torch.equal(tile_sums(x, 32), expected), f"seed={seed}"


# --8<-- [start:static-assert-test]
def test_static_assert_refuses_a_bad_block_before_launch():
    x = small_integers(100)
    # On a GPU the compiler raises; under the interpreter, the run does. Both are
    # triton.errors.TritonError, with the kernel's own message.
    with pytest.raises(triton.errors.TritonError) as caught:
        tile_sums(x, 24)
    assert "BLOCK must be a multiple of 16" in str(caught.value) + str(caught.value.__cause__)


# --8<-- [end:static-assert-test]


def test_device_print_shows_each_programs_sum(capfd):
    seed = fresh_seed()
    x = small_integers(64)
    out = tile_sums(x, 16, debug=True)
    if ON_GPU:
        torch.cuda.synchronize()  # the GPU's printf buffer is flushed at a sync
    printed = [line for line in capfd.readouterr().out.splitlines() if "tile sum" in line]
    # Each line ends with the value: one line per program under the interpreter, one per
    # thread of each program on a GPU (a scalar is printed by every thread that holds it).
    values = {float(NUMBER.findall(line.split("tile sum")[1])[-1]) for line in printed}
    assert values == set(out.tolist()), f"seed={seed}: printed {printed[:4]}"
    assert len(printed) >= out.numel()


def test_no_print_without_debug(capfd):
    tile_sums(small_integers(64), 16)
    if ON_GPU:
        torch.cuda.synchronize()
    assert "tile sum" not in capfd.readouterr().out
