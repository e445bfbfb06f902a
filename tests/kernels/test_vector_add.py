"""Vector add against torch, on ragged sizes, every supported dtype, and every wrapper error."""

import pytest
import torch

from kernels import vector_add as va
from tests.kernels.conftest import (
    DEVICE,
    assert_close_to_reference,
    fresh_seed,
    poisoned_like,
    requires_gpu,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def rand(shape, dtype, device=DEVICE):
    return torch.randn(shape, dtype=torch.float32, device=device).to(dtype)


# --8<-- [start:ragged]
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [1, 3, 17, 1000, 1024, 1025, 4097, 65_537, (3, 5, 7), (129, 33)])
def test_matches_torch(shape, dtype):
    seed = fresh_seed()                      # fresh random inputs every run
    x, y = rand(shape, dtype), rand(shape, dtype)
    out = poisoned_like(x)                   # NaN everywhere: unwritten elements fail
    result = va.vector_add(x, y, out)
    assert result is out
    # reference in float64, rounded to the output dtype, compared at that dtype's tolerance
    assert_close_to_reference(out, x.double() + y.double(), f"seed={seed}")
# --8<-- [end:ragged]


@pytest.mark.parametrize("block", [4, 16, 128, 1024, 4096])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_every_block_and_warp_count_covers_all_elements(block, num_warps):
    seed = fresh_seed()
    x, y = rand(3001, torch.float32), rand(3001, torch.float32)
    out = poisoned_like(x)
    va.vector_add(x, y, out, block=block, num_warps=num_warps)
    assert_close_to_reference(out, x.double() + y.double(), f"seed={seed}")


def test_default_output_is_new_tensor():
    x, y = rand(777, torch.float16), rand(777, torch.float16)
    out = va.vector_add(x, y)
    assert out.data_ptr() not in (x.data_ptr(), y.data_ptr())
    assert out.shape == x.shape and out.dtype == x.dtype
    assert_close_to_reference(out, x.double() + y.double())


@pytest.mark.parametrize("which", ["x", "y"])
def test_in_place_into_an_input(which):
    x, y = rand(2049, torch.float32), rand(2049, torch.float32)
    ref = x.double() + y.double()
    target = x if which == "x" else y
    va.vector_add(x, y, target)
    assert_close_to_reference(target, ref)


@requires_gpu
def test_offsets_past_int32():
    """2**31 + 1000 elements: with int32 offsets the last tiles would wrap and write garbage."""
    n = 2**31 + 1000
    x = torch.ones(n, dtype=torch.float16, device="cuda")
    y = torch.empty(n, dtype=torch.float16, device="cuda")
    y[: 2**31 - 1].fill_(2.0)  # values differ either side of the int32 boundary
    y[2**31 - 1 :].fill_(-5.0)
    out = poisoned_like(x)
    va.vector_add(x, y, out)
    assert torch.all(out[: 2**31 - 1] == 3.0)
    assert torch.all(out[2**31 - 1 :] == -4.0)


# ---- hostile inputs: every check raises before anything is launched -------------------


def good(n=64, dtype=torch.float32):
    return rand(n, dtype), rand(n, dtype)


@pytest.mark.parametrize(
    "make_args, error, match",
    [
        (lambda: ([1.0, 2.0], good()[1]), TypeError, "must be a torch.Tensor"),
        (lambda: (good()[0], 3.0), TypeError, "must be a torch.Tensor"),
        (lambda: good(dtype=torch.float64), TypeError, "not supported"),
        (lambda: (torch.arange(8, device=DEVICE), torch.arange(8, device=DEVICE)), TypeError, "not supported"),
        (lambda: (good()[0], good()[1].half()), TypeError, "same dtype"),
        (lambda: (good()[0], torch.empty(64, device="meta")), ValueError, "different devices"),
        (lambda: (rand(64, torch.float32), rand(65, torch.float32)), ValueError, "shapes differ"),
        (lambda: (rand((8, 8), torch.float32), rand(64, torch.float32)), ValueError, "shapes differ"),
        (lambda: (rand(0, torch.float32), rand(0, torch.float32)), ValueError, "empty"),
        (lambda: (rand(128, torch.float32)[::2], rand(64, torch.float32)), ValueError, "contiguous"),
        (lambda: (rand((8, 8), torch.float32).t(), rand((8, 8), torch.float32)), ValueError, "contiguous"),
    ],
    ids=[
        "x-not-tensor", "y-not-tensor", "float64", "int64", "mixed-dtype", "mixed-device",
        "length-mismatch", "shape-mismatch", "empty", "strided-1d", "transposed-2d",
    ],
)
def test_rejects_bad_inputs(make_args, error, match):
    x, y = make_args()
    with pytest.raises(error, match=match):
        va.vector_add(x, y)


@pytest.mark.parametrize("block", [0, 3, 2, 1000, 131072])
def test_rejects_bad_block(block):
    with pytest.raises(ValueError, match="block must be"):
        va.vector_add(*good(), block=block)


@pytest.mark.parametrize("num_warps", [0, 3, 64])
def test_rejects_bad_num_warps(num_warps):
    with pytest.raises(ValueError, match="num_warps must be"):
        va.vector_add(*good(), num_warps=num_warps)


def test_rejects_bad_out():
    x, y = good()
    with pytest.raises(TypeError, match="out must be a torch.Tensor"):
        va.vector_add(x, y, out=[0.0] * 64)
    with pytest.raises(ValueError, match="out must match"):
        va.vector_add(x, y, out=rand(65, torch.float32))
    with pytest.raises(ValueError, match="out must match"):
        va.vector_add(x, y, out=rand(64, torch.float16))
    with pytest.raises(ValueError, match="out must be contiguous"):
        va.vector_add(x, y, out=rand(128, torch.float32)[::2])
    big = rand(128, torch.float32)
    x2, y2 = big[:64], rand(64, torch.float32)
    with pytest.raises(ValueError, match="partially overlaps x"):
        va.vector_add(x2, y2, out=big[32:96])


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(va.triton.knobs.runtime, "interpret", False)
    x, y = torch.ones(8), torch.ones(8)
    with pytest.raises(ValueError, match="must be on a CUDA device"):
        va.vector_add(x, y)
