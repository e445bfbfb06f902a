"""Vector add against its torch reference: ragged sizes, every dtype and knob. The wrapper
contract, refusals included, is tested in test_contract.py."""

import pytest
import torch
import triton

from kernels import vector_add as va
from tests.support import (
    DEVICE,
    ON_GPU,
    big_gpu_memory,
    fresh_seed,
    poisoned_like,
    rand,
    requires_gpu,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def truncated_bf16(x, y):
    """x + y in fp32, cut to bf16 by dropping the low 16 bits: what the interpreter stores."""
    bits = (x.float() + y.float()).view(torch.int32) & -65536
    return bits.view(torch.float32).to(torch.bfloat16)


# --8<-- [start:ragged]
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [1, 3, 17, 1000, 1024, 1025, 4097, 65_537, (3, 5, 7), (129, 33)])
def test_matches_torch(shape, dtype):
    seed = fresh_seed()  # fresh random inputs every run
    x, y = rand(shape, dtype), rand(shape, dtype)
    out = poisoned_like(x)  # NaN everywhere: unwritten elements fail
    assert va.vector_add(x, y, out) is out
    expected = va.reference(x, y)  # float64 sum, rounded once to the dtype
    if ON_GPU or dtype != torch.bfloat16:  # bit for bit: equal, not merely close
        assert torch.equal(out, expected), f"seed={seed}"
    else:  # the CPU interpreter truncates fp32 -> bf16 instead of rounding (tested below)
        assert ((out == expected) | (out == truncated_bf16(x, y))).all(), f"seed={seed}"


# --8<-- [end:ragged]


def test_minimal_launch():
    # --8<-- [start:minimal]
    x = torch.randn(10_000, device=DEVICE)
    y = torch.randn(10_000, device=DEVICE)
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)  # one program per tile of 1024 elements
    va.add_kernel[grid](x, y, out, n, BLOCK=1024)  # returns at once: launches are asynchronous
    assert torch.equal(out, x + y)  # reading out waits for the kernel to finish
    # --8<-- [end:minimal]


@pytest.mark.parametrize(
    "block, num_warps",
    [(b, w) for b in (4, 16, 128, 1024, 4096) for w in (1, 4, 8)] + [(16384, 1), (65536, 32)],
)
def test_every_block_and_warp_count_covers_all_elements(block, num_warps):
    seed = fresh_seed()
    x, y = rand(3001), rand(3001)
    out = poisoned_like(x)
    va.vector_add(x, y, out, block=block, num_warps=num_warps)
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"


def test_default_output_is_new_tensor():
    seed = fresh_seed()
    x, y = rand(777, torch.float16), rand(777, torch.float16)
    out = va.vector_add(x, y)
    assert out.data_ptr() not in (x.data_ptr(), y.data_ptr())
    assert out.shape == x.shape and out.dtype == x.dtype and out.device == x.device
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_subnormals(dtype):
    """Sums of subnormals are exact in every format; a GPU gets them bit for bit."""
    seed = fresh_seed()
    mantissa_bits = {torch.float32: 23, torch.float16: 10, torch.bfloat16: 7}[dtype]
    int_dtype = {torch.float32: torch.int32}.get(dtype, torch.int16)
    # bit patterns with a zero exponent field, random sign: every one is subnormal
    patterns = torch.randint(1, 2**mantissa_bits, (2, 1000), device=DEVICE)
    signs = torch.randint(0, 2, (2, 1000), device=DEVICE) << (8 * dtype.itemsize - 1)
    x, y = (patterns | signs).to(int_dtype).view(dtype)
    out = va.vector_add(x, y)
    if ON_GPU or dtype != torch.bfloat16:
        assert torch.equal(out, va.reference(x, y)), f"seed={seed}"
    else:  # documents the interpreter's bf16 conversion; if this fails, it has been fixed
        assert not torch.equal(out, va.reference(x, y)), f"seed={seed}"


@pytest.mark.skipif(ON_GPU, reason="documents the Triton interpreter, which runs on the CPU")
def test_interpreter_truncates_fp32_to_bf16():
    """If this fails, the interpreter rounds now: make test_matches_torch exact for bf16."""
    seed = fresh_seed()
    x, y = rand(4096, torch.bfloat16), rand(4096, torch.bfloat16)
    out = va.vector_add(x, y)
    assert torch.equal(out, truncated_bf16(x, y)), f"seed={seed}"
    # about a quarter of random sums round up; 4096 of them cannot all round down
    assert not torch.equal(out, va.reference(x, y)), f"seed={seed}"


@big_gpu_memory
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


# ---- the controls of lesson 07: a write-only fill and a read-only tile maximum -------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 17, 1000, 1025, 4097])
@pytest.mark.parametrize("value", [1.25, -3.0])
def test_fill_writes_every_element(n, dtype, value):
    out = poisoned_like(rand(n, dtype))
    assert va.launch_fill(out, value) is out
    assert torch.equal(out, va.reference_fill(out, value))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 17, 1000, 1025, 4097])
@pytest.mark.parametrize("block", [16, 1024])
def test_read_keeps_the_maximum_of_each_tile(n, dtype, block):
    seed = fresh_seed()
    x = rand(n, dtype)
    programs = (n + block - 1) // block
    out = torch.full((programs,), float("nan"), device=x.device)
    assert va.launch_read(x, out, block=block) is out
    # A maximum needs no rounding: exact, in every dtype, on the GPU and the interpreter.
    assert torch.equal(out, va.reference_read(x, block)), f"seed={seed}"
    assert torch.equal(va.launch_read(x, block=block), out), f"seed={seed}"


def test_read_sees_the_last_element_of_a_ragged_tile():
    x = -torch.ones(1025, device=DEVICE)
    x[-1] = 7.0  # alone in the second tile, with 1023 masked-off elements
    assert va.launch_read(x).tolist() == [-1.0, 7.0]
