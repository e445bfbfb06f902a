"""Fused bias + GELU + mask against its float64 reference: ragged shapes, every dtype, both
GELU variants, strided inputs, in-place use, and every refusal."""

import numpy as np
import pytest
import torch

from kernels import fused_activation as fa
from tests.support import (
    DEVICE,
    TOLERANCES,
    LaunchSpy,
    big_gpu_memory,
    fresh_seed,
    poisoned_like,
    rand,
    requires_gpu,
    requires_two_gpus,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
APPROX = ["none", "tanh"]
EPS32 = 2.0**-23  # float32's machine epsilon


def assert_matches(out, x, bias, mask, approximate, seed):
    """``out`` within tolerance of the float64 reference, and no NaN (poison left behind).

    The tolerance is the dtype's from tests/support.py, plus a few float32 epsilons of
    |(x + bias) * mask|: for negative v, 1 + erf(v / sqrt 2) cancels, so float32's error
    there scales with v, not with the (small) result. torch's own float32 GELU computes
    the same expression and shares that error; it is far below a half-precision ulp."""
    assert not torch.isnan(out).any(), f"seed={seed}: NaN in the output (unwritten elements?)"
    expected = fa.reference(x, bias, mask, approximate).double()
    vm = x.double() + bias.double()
    if mask is not None:
        vm = vm * mask.double()
    rtol, atol = TOLERANCES[out.dtype]
    allowed = atol + rtol * expected.abs() + 8 * EPS32 * vm.abs()
    err = (out.double() - expected).abs()
    worst = int(torch.argmax(err - allowed))
    assert (err <= allowed).all(), (
        f"seed={seed}: {int((err > allowed).sum())} elements off; worst at flat index "
        f"{worst}: got {out.flatten()[worst].item()}, expected {expected.flatten()[worst].item()}"
    )


# --8<-- [start:ragged]
@pytest.mark.parametrize("with_mask", [True, False], ids=["mask", "no-mask"])
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape", [(1, 1), (1, 7), (5, 1), (3, 5), (17, 33), (37, 1029), (130, 70), (2, 2049)]
)
def test_matches_reference(shape, dtype, approximate, with_mask):
    seed = fresh_seed()  # fresh random inputs every run
    x, bias = rand(shape, dtype, scale=3.0), rand(shape[1], dtype)
    mask = rand(shape, dtype) if with_mask else None  # any values: an elementwise multiply
    out = poisoned_like(x)  # NaN everywhere: unwritten elements fail
    assert fa.bias_gelu_mask(x, bias, mask, approximate=approximate, out=out) is out
    assert_matches(out, x, bias, mask, approximate, seed)  # vs float64, rounded once


# --8<-- [end:ragged]


@pytest.mark.parametrize(
    "block_m, block_n, num_warps",
    [
        (1, 1, 1), (1, 16, 1), (2, 8, 4), (4, 64, 2), (16, 16, 1), (64, 32, 8),
        (1, 4096, 32), (1024, 4, 32), (128, 512, 16), (8, 128, 4),
    ],
)  # fmt: skip
def test_every_tile_and_warp_count_covers_all_elements(block_m, block_n, num_warps):
    # Per tile, the smallest shape with everything to get wrong: 3 x 2 tiles (a grid that is
    # not square, so row and column tiles cannot be swapped), the last of each one row or
    # column deep (masked on both edges). A fixed 37 x 101 ran 3,737 programs for 1 x 1.
    m, n = 2 * block_m + 1, block_n + 1
    seed = fresh_seed()
    x, bias, mask = rand((m, n), scale=3.0), rand(n), rand((m, n))
    out = poisoned_like(x)
    fa.bias_gelu_mask(x, bias, mask, out=out, block_m=block_m, block_n=block_n, num_warps=num_warps)
    assert_matches(out, x, bias, mask, "none", seed)


@pytest.mark.parametrize("m, n", [(1, 1), (3, 5), (1000, 3), (2, 4096), (5, 100_000), (0, 0)])
def test_default_blocks_are_valid_tiles(m, n):
    block_m, block_n = fa.default_blocks(m, n)
    fa._check_knobs(block_m, block_n, 4)  # accepted by the wrapper's own checks
    assert block_n >= min(n, 1024) and block_m * block_n <= 2048


def test_default_output_is_new_tensor():
    seed = fresh_seed()
    x, bias = rand((33, 65), torch.float16), rand(65, torch.float16)
    out = fa.bias_gelu_mask(x, bias)
    assert out.data_ptr() != x.data_ptr()
    assert out.shape == x.shape and out.dtype == x.dtype and out.device == x.device
    assert out.is_contiguous()
    assert_matches(out, x, bias, None, "none", seed)


def test_dropout_style_keep_mask():
    """A keep mask of 0 and 1/(1-p): dropped elements are exactly zero, kept ones scaled."""
    seed = fresh_seed()
    p = 0.25
    x, bias = rand((64, 96), torch.float16, scale=2.0), rand(96, torch.float16)
    keep = (torch.rand((64, 96), device=DEVICE) >= p).to(torch.float16) / (1 - p)
    out = fa.bias_gelu_mask(x, bias, keep)
    assert torch.all(out[keep == 0] == 0), f"seed={seed}"
    assert_matches(out, x, bias, keep, "none", seed)


def test_the_two_gelu_variants_are_told_apart():
    """The test can fail: each variant's output misses the other variant's reference."""
    seed = fresh_seed()
    x, bias = rand((16, 200), scale=2.0), rand(200)
    exact = fa.bias_gelu_mask(x, bias)
    approx = fa.bias_gelu_mask(x, bias, approximate="tanh")
    # the two GELUs differ by up to about 5e-4 on |v| < 3; float32 resolves that easily
    assert (exact - approx).abs().max() > 1e-5, f"seed={seed}"
    with pytest.raises(AssertionError):
        assert_matches(exact, x, bias, None, "tanh", seed)
    with pytest.raises(AssertionError):
        assert_matches(approx, x, bias, None, "none", seed)


@pytest.mark.parametrize("approximate", APPROX)
def test_reference_is_torch_gelu_in_float64(approximate):
    """reference() rewrites GELU without the cancellation; it is still torch's GELU."""
    seed = fresh_seed()
    x, bias, mask = rand((40, 50), scale=3.0), rand(50), rand((40, 50))
    v = x.double() + bias.double()
    torch_gelu = torch.nn.functional.gelu(v, approximate=approximate) * mask.double()
    ours = fa.reference(x.double(), bias.double(), mask.double(), approximate)
    torch.testing.assert_close(ours, torch_gelu, rtol=1e-12, atol=1e-15, msg=f"seed={seed}")


@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_large_inputs_neither_overflow_nor_lose_the_limits(dtype, approximate):
    """GELU(v) -> v for large v and -> 0 for very negative v; exp(+2|u|) would overflow
    to inf (and inf / inf = NaN) where the kernel's exp(-2|u|) stays in (0, 1]."""
    values = [-1e4, -300.0, -60.0, -20.0, -5.0, -0.5, 0.0, 0.5, 5.0, 20.0, 60.0, 300.0, 1e4]
    x = torch.tensor([values], device=DEVICE).to(dtype)
    bias = torch.zeros(len(values), device=DEVICE, dtype=dtype)
    out = fa.bias_gelu_mask(x, bias, approximate=approximate)
    assert torch.isfinite(out).all(), out
    assert out[0, 0] == 0 and out[0, -1] == x[0, -1] and out[0, 6] == 0, out
    assert_matches(out, x, bias, None, approximate, seed=None)


# ---- strides: any layout of x, mask and bias; out with rows of a wider buffer ------------


@pytest.mark.parametrize(
    "layout",
    [
        "x-row-slice", "x-transposed", "x-column-step", "x-broadcast-row", "mask-broadcast-col",
        "mask-transposed", "bias-strided", "out-row-slice",
    ],
)  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_strided_operands(layout, dtype):
    seed = fresh_seed()
    m, n = 29, 67
    x, bias, mask = rand((m, n), dtype, scale=3.0), rand(n, dtype), rand((m, n), dtype)
    out = None
    if layout == "x-row-slice":  # rows of a wider buffer: row stride n + 9
        x = rand((m, n + 9), dtype, scale=3.0)[:, 4 : 4 + n]
    elif layout == "x-transposed":
        x = rand((n, m), dtype, scale=3.0).t()
    elif layout == "x-column-step":
        x = rand((m, 2 * n), dtype, scale=3.0)[:, ::2]
    elif layout == "x-broadcast-row":  # stride 0 down the rows: every row the same
        x = rand((1, n), dtype, scale=3.0).expand(m, n)
    elif layout == "mask-broadcast-col":  # one keep value per row
        mask = rand((m, 1), dtype).expand(m, n)
    elif layout == "mask-transposed":
        mask = rand((n, m), dtype).t()
    elif layout == "bias-strided":
        bias = rand(3 * n, dtype)[::3]
    elif layout == "out-row-slice":
        out = poisoned_like(rand((m, n + 5), dtype))[:, 2 : 2 + n]
    result = fa.bias_gelu_mask(x, bias, mask, out=out)
    assert out is None or result is out
    assert_matches(result, x, bias, mask, "none", seed)


def test_out_row_slice_leaves_the_rest_of_the_buffer_alone():
    seed = fresh_seed()
    buf = rand((20, 40))
    before = buf.clone()
    x, bias = rand((20, 30)), rand(30)
    fa.bias_gelu_mask(x, bias, out=buf[:, 5:35])
    assert torch.equal(buf[:, :5], before[:, :5]) and torch.equal(buf[:, 35:], before[:, 35:])
    assert_matches(buf[:, 5:35], x, bias, None, "none", seed)


@pytest.mark.parametrize("which", ["x", "mask"])
def test_in_place(which):
    seed = fresh_seed()
    x, bias, mask = rand((33, 70), scale=3.0), rand(70), rand((33, 70))
    x0, mask0 = x.clone(), mask.clone()
    target = x if which == "x" else mask
    assert fa.bias_gelu_mask(x, bias, mask, out=target) is target
    assert_matches(target, x0, bias, mask0, "none", seed)


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (0, 0)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_empty_inputs_give_an_empty_result_without_a_launch(shape, monkeypatch):
    spy = LaunchSpy(fa.bias_gelu_mask_kernel)
    monkeypatch.setattr(fa, "bias_gelu_mask_kernel", spy)
    x, bias, mask = rand(shape), rand(shape[1]), rand(shape)
    out = fa.bias_gelu_mask(x, bias, mask)
    assert out.shape == x.shape and out.dtype == x.dtype
    given = torch.empty_like(x)
    assert fa.bias_gelu_mask(x, bias, mask, out=given) is given
    assert spy.devices == []


# ---- autograd: no backward, so no silent wrong gradients ------------------------------


@pytest.mark.parametrize("which", ["x", "bias", "mask"])
def test_refuses_inputs_that_require_grad(which):
    args = {"x": rand((4, 8)), "bias": rand(8), "mask": rand((4, 8))}
    args[which].requires_grad_()
    with pytest.raises(ValueError, match=f"bias_gelu_mask: {which} requires grad"):
        fa.bias_gelu_mask(args["x"], args["bias"], args["mask"])


def test_a_gradient_through_it_cannot_be_silently_wrong():
    x, bias = rand((4, 8)).requires_grad_(), rand(8)
    with pytest.raises(ValueError, match="no backward"):
        (fa.bias_gelu_mask(x, bias) + x).sum().backward()


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_inputs_that_require_grad_are_fine_without_grad_mode(mode):
    seed = fresh_seed()
    x, bias = rand((6, 30)).requires_grad_(), rand(30).requires_grad_()
    mask = rand((6, 30)).requires_grad_()
    out = torch.zeros((6, 30), device=DEVICE, requires_grad=True)
    with mode():
        result = fa.bias_gelu_mask(x, bias, mask)
        fa.bias_gelu_mask(x, bias, mask, out=out)  # an optimizer-style write into a leaf
    assert not result.requires_grad
    assert_matches(result, x.detach(), bias.detach(), mask.detach(), "none", seed)
    assert torch.equal(out.detach(), result), f"seed={seed}"


def test_refuses_out_that_requires_grad():
    out = torch.zeros((4, 8), device=DEVICE, requires_grad=True)
    with pytest.raises(ValueError, match="bias_gelu_mask: out requires grad"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), out=out)


def test_out_write_bumps_version_so_a_stale_saved_tensor_fails_at_backward():
    x, bias = rand((4, 8)), rand(8)
    w = rand((4, 8)).requires_grad_()
    z = w * x  # saves x: dz/dw = x
    version = x._version
    fa.bias_gelu_mask(x, bias, out=x)
    assert x._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---- memory: overlap by address range, negated views -----------------------------------


def test_refuses_out_partially_overlapping_an_input():
    big = rand((12, 8))
    with pytest.raises(ValueError, match="out overlaps x"):
        fa.bias_gelu_mask(big[:8], rand(8), out=big[4:12])
    with pytest.raises(ValueError, match="out overlaps mask"):
        fa.bias_gelu_mask(rand((8, 8)), rand(8), big[:8], out=big[1:9])


def test_refuses_out_that_contains_the_bias():
    buf = rand(64)
    with pytest.raises(ValueError, match="out overlaps bias"):
        fa.bias_gelu_mask(rand((8, 8)), buf[8:16], out=buf.view(8, 8))


def test_refuses_in_place_when_another_input_overlaps_it():
    b = rand((9, 8))
    x, mask = b[:8], b[1:]  # programs would read mask[i] = x[i+1] while others write x
    with pytest.raises(ValueError, match="out overlaps mask"):
        fa.bias_gelu_mask(x, rand(8), mask, out=x)


def test_ranges_are_conservative_for_interleaved_views():
    """Two views that share no byte but whose ranges interleave are refused, by design."""
    buf = rand((8, 16))
    with pytest.raises(ValueError, match="out overlaps x"):
        fa.bias_gelu_mask(buf[:, :8], rand(8), out=buf[:, 8:])


def test_catches_overlap_through_another_storage():
    b = rand((16, 8))
    x, alias = b[:8], torch.from_dlpack(b[4:12])  # same bytes, a different storage
    assert alias.untyped_storage().data_ptr() != b.untyped_storage().data_ptr()
    with pytest.raises(ValueError, match="out overlaps x"):
        fa.bias_gelu_mask(x, rand(8), out=alias)


def test_in_place_through_another_storage():
    seed = fresh_seed()
    x, bias = rand((20, 50)), rand(50)
    x0 = x.clone()
    alias = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    fa.bias_gelu_mask(x, bias, out=alias)
    assert_matches(x, x0, bias, None, "none", seed)


def test_accepts_a_disjoint_out_in_the_same_buffer():
    seed = fresh_seed()
    b = rand(3 * 400)
    x, out, mask = b[:400].view(20, 20), b[400:800].view(20, 20), b[800:].view(20, 20)
    out.fill_(float("nan"))
    before = b.clone()
    bias = rand(20)
    fa.bias_gelu_mask(x, bias, mask, out=out)
    assert_matches(out, before[:400].view(20, 20), bias, before[800:].view(20, 20), "none", seed)
    assert torch.equal(b[:400], before[:400]) and torch.equal(b[800:], before[800:])


def test_reads_negated_views_as_their_values():
    seed = fresh_seed()
    x, bias, mask = rand((10, 30), scale=2.0), rand(30), rand((10, 30))
    xn, bn, mn = torch._neg_view(x), torch._neg_view(bias), torch._neg_view(mask)
    assert xn.is_neg() and bn.is_neg() and mn.is_neg()
    out = fa.bias_gelu_mask(xn, bn, mn)
    assert_matches(out, x.neg(), bias.neg(), mask.neg(), "none", seed)
    # the public way to get one: the imaginary part of a conjugated complex tensor
    c = torch.randn((10, 30), dtype=torch.complex64, device=DEVICE)
    imag = c.conj().imag  # reads as -c.imag; strided (every other float)
    assert imag.is_neg()
    out = fa.bias_gelu_mask(imag, bias)
    assert_matches(out, -c.imag, bias, None, "none", seed)


def test_refuses_a_negated_out():
    x, bias = rand((4, 8)), rand(8)
    with pytest.raises(ValueError, match="bias_gelu_mask: out is a view with the negative bit"):
        fa.bias_gelu_mask(x, bias, out=torch._neg_view(torch.empty_like(x)))


@pytest.mark.parametrize(
    "make_out",
    [
        lambda: torch.empty(8, device=DEVICE).expand(4, 8),  # every row the same memory
        lambda: torch.empty((8, 4), device=DEVICE).t(),  # column stride 4
        lambda: torch.empty(16, device=DEVICE).as_strided((4, 8), (2, 1)),  # rows overlap
    ],
    ids=["broadcast", "transposed", "rows-overlap"],
)
def test_refuses_out_whose_elements_overlap_or_are_not_row_major(make_out):
    with pytest.raises(ValueError, match="out must have column stride 1 and row stride"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), out=make_out())


# ---- devices ------------------------------------------------------------------------


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(fa, "_INTERPRET", False)
    with pytest.raises(ValueError, match="bias_gelu_mask: x must be on a CUDA device"):
        fa.bias_gelu_mask(torch.ones(2, 8), torch.ones(8))


@requires_two_gpus
def test_runs_on_a_gpu_that_is_not_the_current_one(monkeypatch):
    seed = fresh_seed()
    spy = LaunchSpy(fa.bias_gelu_mask_kernel, expect_device=1)
    monkeypatch.setattr(fa, "bias_gelu_mask_kernel", spy)
    with torch.cuda.device(0):
        x, bias = rand((300, 500), device="cuda:1"), rand(500, device="cuda:1")
        mask = rand((300, 500), device="cuda:1")
        out = fa.bias_gelu_mask(x, bias, mask)
        assert torch.cuda.current_device() == 0  # the wrapper put it back
    assert spy.devices == [1]
    assert out.device == x.device
    assert_matches(out, x, bias, mask, "none", seed)


@requires_two_gpus
def test_refuses_tensors_on_two_gpus():
    x, bias = rand((4, 8), device="cuda:0"), rand(8, device="cuda:0")
    with pytest.raises(ValueError, match="bias_gelu_mask: bias is on cuda:1, but x is on cuda:0"):
        fa.bias_gelu_mask(x, rand(8, device="cuda:1"))
    with pytest.raises(ValueError, match="bias_gelu_mask: mask is on cuda:1, but x is on cuda:0"):
        fa.bias_gelu_mask(x, bias, rand((4, 8), device="cuda:1"))
    with pytest.raises(ValueError, match="bias_gelu_mask: out must match x"):
        fa.bias_gelu_mask(x, bias, out=rand((4, 8), device="cuda:1"))


# ---- knobs --------------------------------------------------------------------------


@pytest.mark.parametrize("knob", ["block_m", "block_n", "num_warps"])
@pytest.mark.parametrize("value", [True, 4.0, "4", np.int64(4)], ids=repr)
def test_knobs_must_be_exact_ints(knob, value):
    with pytest.raises(TypeError, match=f"bias_gelu_mask: {knob} must be an int"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), **{knob: value})


def test_num_warps_has_no_automatic_value():
    with pytest.raises(TypeError, match="bias_gelu_mask: num_warps must be an int"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), num_warps=None)


@pytest.mark.parametrize(
    "knob, value, top",
    [
        ("block_m", 0, 1024), ("block_m", 3, 1024), ("block_m", 2048, 1024),
        ("block_n", -4, 16384), ("block_n", 100, 16384), ("block_n", 32768, 16384),
        ("block_n", 2**70, 16384), ("num_warps", 0, 32), ("num_warps", 3, 32),
        ("num_warps", 64, 32),
    ],
)  # fmt: skip
def test_rejects_bad_knob_values(knob, value, top):
    with pytest.raises(ValueError, match=rf"{knob} must be a power of two in \[1, {top}\]"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), **{knob: value})


def test_rejects_a_tile_over_65536_elements():
    with pytest.raises(ValueError, match="block_m \\* block_n = 131072 is more than 65536"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), block_m=8, block_n=16384, num_warps=32)


@pytest.mark.parametrize("block_m, block_n, num_warps", [(8, 1024, 1), (64, 1024, 8), (1, 8192, 1)])
def test_rejects_too_many_elements_per_thread(block_m, block_n, num_warps):
    with pytest.raises(ValueError, match=r"block_m=.*num_warps=.*more than 128"):
        fa.bias_gelu_mask(
            rand((4, 8)), rand(8), block_m=block_m, block_n=block_n, num_warps=num_warps
        )


@pytest.mark.parametrize("value", [None, True, 0], ids=repr)
def test_approximate_must_be_a_str(value):
    with pytest.raises(TypeError, match="bias_gelu_mask: approximate must be a str"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), approximate=value)


@pytest.mark.parametrize("value", ["exact", "erf", "Tanh", ""])
def test_approximate_must_be_none_or_tanh(value):
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), approximate=value)


# ---- hostile inputs: every check raises before anything is launched -------------------


def meta(*shape):
    return torch.empty(shape, device="meta")


# Each case replaces one argument of a good call (x (4, 8), bias (8,), no mask) by a bad one.
@pytest.mark.parametrize(
    "arg, make_bad, error, match",
    [
        ("x", lambda: [[1.0] * 8] * 4, TypeError, "x must be a torch.Tensor"),
        ("bias", lambda: [0.0] * 8, TypeError, "bias must be a torch.Tensor"),
        ("mask", lambda: 1.0, TypeError, "mask must be a torch.Tensor"),
        ("x", lambda: rand((4, 8), torch.float64), TypeError, "x has dtype torch.float64"),
        ("x", lambda: torch.ones((4, 8), dtype=torch.int32), TypeError, "x has dtype torch.int32"),
        ("bias", lambda: rand(8, torch.float16), TypeError, "bias has dtype torch.float16, but x"),
        ("mask", lambda: rand((4, 8), torch.float16), TypeError, "mask has dtype torch.float16"),
        ("mask", lambda: torch.ones((4, 8)).bool(), TypeError, "mask has dtype torch.bool"),
        ("x", lambda: torch.randn(4, 8, dtype=torch.cfloat).conj(), TypeError, "x has dtype.*comp"),
        ("x", lambda: rand(8), ValueError, "x must be 2-D"),
        ("x", lambda: rand((2, 4, 8)), ValueError, "x must be 2-D"),
        ("x", lambda: rand(()), ValueError, "x must be 2-D"),
        ("bias", lambda: rand((1, 8)), ValueError, "bias must be 1-D"),
        ("bias", lambda: rand(9), ValueError, r"bias must have shape \(8,\)"),
        ("mask", lambda: rand((4, 9)), ValueError, "mask has shape"),
        ("mask", lambda: rand((1, 8)), ValueError, "mask has shape"),
        ("mask", lambda: rand(32), ValueError, "mask must be 2-D"),
        ("x", lambda: meta(4, 8), ValueError, "x is a meta tensor"),
        ("bias", lambda: meta(8), ValueError, "bias is a meta tensor"),
        ("mask", lambda: meta(4, 8), ValueError, "mask is a meta tensor"),
        ("x", lambda: rand((4, 8)).to_sparse(), ValueError, "x must be a dense tensor"),
        ("bias", lambda: rand(8).to_sparse(), ValueError, "bias must be a dense tensor"),
        ("mask", lambda: rand((4, 8)).to_sparse_csr(), ValueError, "mask must be a dense tensor"),
    ],
    ids=[
        "x-not-tensor", "bias-not-tensor", "mask-not-tensor", "float64", "int32", "bias-dtype",
        "mask-dtype", "mask-bool", "conj-complex", "x-1d", "x-3d", "x-0d", "bias-2d",
        "bias-length", "mask-shape", "mask-unexpanded", "mask-1d", "meta-x", "meta-bias",
        "meta-mask", "sparse-x", "sparse-bias", "sparse-csr-mask",
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_rejects_bad_inputs(arg, make_bad, error, match, monkeypatch):
    spy = LaunchSpy(fa.bias_gelu_mask_kernel)
    monkeypatch.setattr(fa, "bias_gelu_mask_kernel", spy)
    args = {"x": rand((4, 8)), "bias": rand(8), "mask": None}
    bad = make_bad()
    args[arg] = bad.to(DEVICE) if isinstance(bad, torch.Tensor) and not bad.is_meta else bad
    with pytest.raises(error, match=f"^bias_gelu_mask: .*{match}"):
        fa.bias_gelu_mask(args["x"], args["bias"], args["mask"])
    assert spy.devices == []


@pytest.mark.parametrize(
    "make_out, error, match",
    [
        (lambda: [[0.0] * 8] * 4, TypeError, "out must be a torch.Tensor"),
        (lambda: rand((4, 9)), ValueError, "out must match x"),
        (lambda: rand((4, 8), torch.float16), ValueError, "out must match x"),
        (lambda: rand(32), ValueError, "out must be 2-D"),
        (lambda: torch.empty((4, 8), device="meta"), ValueError, "out is a meta tensor"),
        (lambda: rand((4, 8)).to_sparse(), ValueError, "out must be a dense tensor"),
        (lambda: rand((4, 8), torch.float64), TypeError, "out has dtype torch.float64"),
    ],
    ids=["not-tensor", "shape", "dtype", "1d", "meta", "sparse", "float64"],
)
def test_rejects_bad_out(make_out, error, match, monkeypatch):
    spy = LaunchSpy(fa.bias_gelu_mask_kernel)
    monkeypatch.setattr(fa, "bias_gelu_mask_kernel", spy)
    with pytest.raises(error, match=f"^bias_gelu_mask: {match}"):
        fa.bias_gelu_mask(rand((4, 8)), rand(8), out=make_out())
    assert spy.devices == []


# ---- on a GPU: realistic sizes, many programs, offsets past int32 ----------------------


@requires_gpu
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(4096, 4096), (3001, 5003)], ids=str)
def test_realistic_sizes(shape, dtype, approximate):
    seed = fresh_seed()
    x, bias, mask = rand(shape, dtype, scale=3.0), rand(shape[1], dtype), rand(shape, dtype)
    out = poisoned_like(x)
    fa.bias_gelu_mask(x, bias, mask, approximate=approximate, out=out)
    assert_matches(out, x, bias, mask, approximate, seed)


@requires_gpu
def test_more_programs_than_a_grid_axis_1_could_hold():
    """70,001 row tiles: a 2-D grid with rows on axis 1 would stop at 65,535."""
    seed = fresh_seed()
    x, bias = rand((70_001, 48), torch.float16), rand(48, torch.float16)
    out = poisoned_like(x)
    fa.bias_gelu_mask(x, bias, out=out, block_m=1, block_n=64)
    assert_matches(out, x, bias, None, "none", seed)


@big_gpu_memory
@requires_gpu
def test_offsets_past_int32():
    """2**31 + 16,384 elements: with int32 offsets the rows past 2**31 would wrap."""
    n = 4096
    rows_below = 2**31 // n  # row 524,288 starts exactly at element 2**31
    x = torch.empty((rows_below + 4, n), dtype=torch.float16, device="cuda")
    x[:rows_below].fill_(1.0)  # values differ either side of the int32 boundary
    x[rows_below:].fill_(-1.0)
    bias = torch.zeros(n, dtype=torch.float16, device="cuda")
    out = poisoned_like(x)
    fa.bias_gelu_mask(x, bias, out=out)
    one = torch.ones((1, 1), dtype=torch.float16)
    gelu_1 = fa.reference(one, torch.zeros(1, dtype=torch.float16)).item()
    gelu_m1 = fa.reference(-one, torch.zeros(1, dtype=torch.float16)).item()
    assert torch.all(out[:rows_below] == gelu_1)
    assert torch.all(out[rows_below:] == gelu_m1)
