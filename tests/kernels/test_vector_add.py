"""Vector add against its torch reference: ragged sizes, every dtype and knob, every refusal."""

import numpy as np
import pytest
import torch
import triton

from kernels import vector_add as va
from tests.support import (
    DEVICE,
    ON_GPU,
    LaunchSpy,
    big_gpu_memory,
    fresh_seed,
    poisoned_like,
    rand,
    requires_gpu,
    requires_two_gpus,
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


@pytest.mark.parametrize("which", ["x", "y", "both"])
def test_in_place_into_an_input(which):
    seed = fresh_seed()
    x, y = rand(2049), rand(2049)
    if which == "both":
        y = x  # x + x, written over x
    expected = va.reference(x, y)
    target = y if which == "y" else x
    assert va.vector_add(x, y, target) is target
    assert torch.equal(target, expected), f"seed={seed}"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_zero_dim(dtype):
    seed = fresh_seed()
    x, y = rand((), dtype), rand((), dtype)
    out = va.vector_add(x, y)
    assert out.shape == ()
    if ON_GPU or dtype != torch.bfloat16:
        assert torch.equal(out, va.reference(x, y)), f"seed={seed}"
    else:  # the interpreter truncates, as in test_matches_torch
        assert out == va.reference(x, y) or out == truncated_bf16(x, y), f"seed={seed}"


@pytest.mark.parametrize("shape", [0, (3, 0), (0, 5, 2)], ids=str)
def test_empty_inputs_give_an_empty_result_without_a_launch(shape, monkeypatch):
    spy = LaunchSpy(va.add_kernel)
    monkeypatch.setattr(va, "add_kernel", spy)
    x, y = rand(shape), rand(shape)
    out = va.vector_add(x, y)
    assert out.shape == x.shape and out.dtype == x.dtype
    given = torch.empty_like(x)
    assert va.vector_add(x, y, given) is given
    assert spy.devices == []


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


# ---- autograd: no backward, so no silent wrong gradients ------------------------------


@pytest.mark.parametrize("which", ["x", "y"])
def test_refuses_inputs_that_require_grad(which):
    x, y = rand(64), rand(64)
    (x if which == "x" else y).requires_grad_()
    with pytest.raises(ValueError, match=f"vector_add: {which} requires grad"):
        va.vector_add(x, y)


def test_a_gradient_through_it_cannot_be_silently_wrong():
    x, y = rand(64).requires_grad_(), rand(64)
    with pytest.raises(ValueError, match="no backward"):
        (va.vector_add(x, y) + x).sum().backward()


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_inputs_that_require_grad_are_fine_without_grad_mode(mode):
    seed = fresh_seed()
    x, y = rand(300).requires_grad_(), rand(300).requires_grad_()
    out = torch.zeros(300, device=DEVICE, requires_grad=True)
    with mode():
        result = va.vector_add(x, y)
        va.vector_add(x, y, out)  # an optimizer-style write into a leaf
    assert not result.requires_grad
    assert torch.equal(result, va.reference(x.detach(), y.detach())), f"seed={seed}"
    assert torch.equal(out.detach(), result), f"seed={seed}"


def test_refuses_out_that_requires_grad():
    x, y = rand(64), rand(64)
    with pytest.raises(ValueError, match="vector_add: out requires grad"):
        va.vector_add(x, y, torch.zeros(64, device=DEVICE, requires_grad=True))


def test_out_write_bumps_version_so_a_stale_saved_tensor_fails_at_backward():
    x, y = rand(64), rand(64)
    w = rand(64).requires_grad_()
    z = w * x  # saves x: dz/dw = x
    version = x._version
    va.vector_add(x, y, out=x)
    assert x._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---- memory: overlap by address range, negated views -----------------------------------


def test_refuses_out_partially_overlapping_an_input():
    big = rand(128)
    with pytest.raises(ValueError, match="out partially overlaps x"):
        va.vector_add(big[:64], rand(64), out=big[32:96])
    with pytest.raises(ValueError, match="out partially overlaps y"):
        va.vector_add(rand(64), big[:64], out=big[1:65])


def test_refuses_in_place_when_the_other_input_overlaps_it():
    b = rand(65)
    x, y = b[:64], b[1:]  # programs would read y[i] = x[i+1] while others write x
    with pytest.raises(ValueError, match="out partially overlaps y"):
        va.vector_add(x, y, out=x)


def test_catches_overlap_through_another_storage():
    b = rand(128)
    x, alias = b[:64], torch.from_dlpack(b[32:96])  # same bytes, a different storage
    assert alias.untyped_storage().data_ptr() != b.untyped_storage().data_ptr()
    with pytest.raises(ValueError, match="out partially overlaps x"):
        va.vector_add(x, rand(64), out=alias)


def test_in_place_through_another_storage():
    seed = fresh_seed()
    x, y = rand(1000), rand(1000)
    expected = va.reference(x, y)
    alias = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    va.vector_add(x, y, out=alias)
    assert torch.equal(x, expected), f"seed={seed}"


def test_accepts_a_disjoint_out_in_the_same_buffer():
    seed = fresh_seed()
    b = rand(3000)
    x, out, y = b[:1000], b[1000:2000], b[2000:]  # out touches both, overlaps neither
    out.fill_(float("nan"))
    before = b.clone()
    va.vector_add(x, y, out)
    assert torch.equal(out, va.reference(before[:1000], before[2000:])), f"seed={seed}"
    assert torch.equal(b[:1000], before[:1000]) and torch.equal(b[2000:], before[2000:])


def test_inputs_may_overlap_each_other():
    seed = fresh_seed()
    b = rand(1001)
    x, y = b[:1000], b[1:]
    assert torch.equal(va.vector_add(x, y), va.reference(x, y)), f"seed={seed}"


def test_reads_negated_views_as_their_values():
    seed = fresh_seed()
    x, y = rand(1000), rand(1000)
    xn, yn = torch._neg_view(x), torch._neg_view(y)  # memory holds x, reads as -x
    assert xn.is_neg() and xn.is_contiguous()
    assert torch.equal(va.vector_add(xn, y), va.reference(x.neg(), y)), f"seed={seed}"
    assert torch.equal(va.vector_add(xn, yn), va.reference(x.neg(), y.neg())), f"seed={seed}"
    # the public way to get one: the imaginary part of a conjugated complex tensor
    c = torch.randn((), dtype=torch.complex64, device=DEVICE)
    assert c.conj().imag.is_neg()
    assert va.vector_add(c.conj().imag, c.real) == va.reference(-c.imag, c.real)


def test_refuses_a_negated_out():
    x, y = rand(64), rand(64)
    with pytest.raises(ValueError, match="vector_add: out is a view with the negative bit"):
        va.vector_add(x, y, out=torch._neg_view(torch.empty_like(x)))


# ---- devices ------------------------------------------------------------------------


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(va, "_INTERPRET", False)
    with pytest.raises(ValueError, match="vector_add: x must be on a CUDA device"):
        va.vector_add(torch.ones(8), torch.ones(8))


@requires_two_gpus
def test_runs_on_a_gpu_that_is_not_the_current_one(monkeypatch):
    seed = fresh_seed()
    spy = LaunchSpy(va.add_kernel, expect_device=1)
    monkeypatch.setattr(va, "add_kernel", spy)
    with torch.cuda.device(0):
        x, y = rand(5000, device="cuda:1"), rand(5000, device="cuda:1")
        out = va.vector_add(x, y)
        assert torch.cuda.current_device() == 0  # the wrapper put it back
    assert spy.devices == [1]
    assert out.device == x.device
    assert torch.equal(out, va.reference(x, y)), f"seed={seed}"


@requires_two_gpus
def test_refuses_tensors_on_two_gpus():
    x, y1 = rand(64, device="cuda:0"), rand(64, device="cuda:1")
    with pytest.raises(ValueError, match="vector_add: y is on cuda:1, but x is on cuda:0"):
        va.vector_add(x, y1)
    with pytest.raises(ValueError, match="vector_add: out must match x"):
        va.vector_add(x, x, out=y1)


# ---- knobs --------------------------------------------------------------------------


@pytest.mark.parametrize("knob", ["block", "num_warps"])
@pytest.mark.parametrize("value", [True, 4.0, "4", None, np.int64(4)], ids=repr)
def test_knobs_must_be_exact_ints(knob, value):
    with pytest.raises(TypeError, match=f"vector_add: {knob} must be an int"):
        va.vector_add(rand(64), rand(64), **{knob: value})


@pytest.mark.parametrize("block", [0, -4, 2, 3, 1000, 131072, 2**70])
def test_rejects_bad_block(block):
    with pytest.raises(ValueError, match=r"block must be a power of two in \[4, 65536\]"):
        va.vector_add(rand(64), rand(64), block=block)


@pytest.mark.parametrize("num_warps", [0, -1, 3, 64])
def test_rejects_bad_num_warps(num_warps):
    with pytest.raises(ValueError, match=r"num_warps must be a power of two in \[1, 32\]"):
        va.vector_add(rand(64), rand(64), num_warps=num_warps)


@pytest.mark.parametrize("block, num_warps", [(65536, 1), (65536, 2), (32768, 1)])
def test_rejects_too_many_elements_per_thread(block, num_warps):
    with pytest.raises(ValueError, match=r"block=.*num_warps=.*more than 512.*minutes"):
        va.vector_add(rand(64), rand(64), block=block, num_warps=num_warps)


# ---- hostile inputs: every check raises before anything is launched -------------------


def sparse_pair():
    return rand(64).to_sparse(), rand(64).to_sparse()


@pytest.mark.parametrize(
    "make_args, error, match",
    [
        (lambda: ([1.0, 2.0], rand(64)), TypeError, "x must be a torch.Tensor"),
        (lambda: (rand(64), 3.0), TypeError, "y must be a torch.Tensor"),
        (lambda: (rand(64, torch.float64), rand(64, torch.float64)), TypeError, "x has dtype"),
        (lambda: (torch.arange(8, device=DEVICE),) * 2, TypeError, "x has dtype"),
        (lambda: (rand(64), rand(64, torch.float16)), TypeError, "y has dtype"),
        (
            lambda: (torch.randn(64, dtype=torch.complex64, device=DEVICE).conj(),) * 2,
            TypeError,
            "x has dtype torch.complex64",
        ),
        (lambda: (rand(64), rand(65)), ValueError, "y has shape"),
        (lambda: (rand((8, 8)), rand(64)), ValueError, "y has shape"),
        (lambda: (rand(128)[::2], rand(64)), ValueError, "x must be contiguous"),
        (lambda: (rand((8, 8)), rand((8, 8)).t()), ValueError, "y must be contiguous"),
        (
            lambda: (torch.randn(8, dtype=torch.complex64, device=DEVICE).conj().imag, rand(8)),
            ValueError,
            "x must be contiguous",
        ),
        (lambda: (torch.empty(64, device="meta"),) * 2, ValueError, "x is a meta tensor"),
        (lambda: (rand(64), torch.empty(64, device="meta")), ValueError, "y is a meta tensor"),
        (lambda: sparse_pair(), ValueError, "x must be a dense tensor"),
        (lambda: (rand(64), sparse_pair()[1]), ValueError, "y must be a dense tensor"),
        (lambda: (rand((8, 8)).to_sparse_csr(),) * 2, ValueError, "x must be a dense tensor"),
    ],
    ids=[
        "x-not-tensor", "y-not-tensor", "float64", "int64", "mixed-dtype", "conj-complex",
        "length-mismatch", "shape-mismatch", "strided-1d", "transposed-2d", "strided-neg-view",
        "meta", "meta-y", "sparse-coo", "sparse-coo-y", "sparse-csr",
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_rejects_bad_inputs(make_args, error, match, monkeypatch):
    spy = LaunchSpy(va.add_kernel)
    monkeypatch.setattr(va, "add_kernel", spy)
    x, y = make_args()
    with pytest.raises(error, match=f"^vector_add: .*{match}"):
        va.vector_add(x, y)
    assert spy.devices == []


@pytest.mark.parametrize(
    "make_out, error, match",
    [
        (lambda: [0.0] * 64, TypeError, "out must be a torch.Tensor"),
        (lambda: rand(65), ValueError, "out must match x"),
        (lambda: rand(64, torch.float16), ValueError, "out must match x"),
        (lambda: rand(128)[::2], ValueError, "out must be contiguous"),
        (lambda: torch.empty(64, device="meta"), ValueError, "out is a meta tensor"),
        (lambda: rand(64).to_sparse(), ValueError, "out must be a dense tensor"),
    ],
    ids=["not-tensor", "length", "dtype", "strided", "meta", "sparse"],
)
def test_rejects_bad_out(make_out, error, match, monkeypatch):
    spy = LaunchSpy(va.add_kernel)
    monkeypatch.setattr(va, "add_kernel", spy)
    with pytest.raises(error, match=f"^vector_add: {match}"):
        va.vector_add(rand(64), rand(64), out=make_out())
    assert spy.devices == []
