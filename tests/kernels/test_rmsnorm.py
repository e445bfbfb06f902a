"""RMSNorm forward and backward against a float64 torch reference: ragged shapes, every
dtype, strided rows, determinism, fp16 overflow, autograd's corners. (The wrapper contract,
refusals included, is tested in test_contract.py.)"""

import math

import numpy as np
import pytest
import torch

from kernels import rmsnorm as rn
from tests.support import (
    DEVICE,
    ON_GPU,
    assert_close_to_reference,
    big_gpu_memory,
    fresh_seed,
    poisoned_empty,  # noqa: F401 (autouse: every torch.empty is NaN)
    rand,
    requires_gpu,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
KERNELS = ("rmsnorm_fwd_kernel", "rmsnorm_bwd_kernel", "rmsnorm_dw_kernel")

# (rtol, atol) against the float64 reference rounded to the result's dtype. fp16 and bf16
# results are rounded once from float32, so they may be one unit in the last place off
# (2**-10 and 2**-7 relative; the CPU interpreter truncates bf16 instead of rounding,
# which stays within that unit). fp32 results are not correctly rounded: a sum of H
# squares, an approximate rsqrt on the GPU and a few products, each off by an ulp or so,
# hence 1e-5. The atol covers elements of dx near zero, where g - x_hat * c cancels.
TOL = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (8e-3, 1e-5),
}


def weight_for(hidden, dtype=torch.float32, device=DEVICE):
    # RMSNorm weights sit near 1 in trained models; random ones test more.
    return (1 + 0.5 * torch.randn(hidden, device=device)).to(dtype)


def reference_all(x, w, dy, eps=1e-6):
    """y, dx and dweight in float64, by torch autograd through ``reference``."""
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_()
    y64 = rn.reference(x64, w64, eps)
    dx64, dw64 = torch.autograd.grad(y64, (x64, w64), dy.double())
    return y64.detach(), dx64, dw64


def check(got, expected64, what, seed, rows=1):
    """``got`` against the float64 reference rounded to got's dtype; NaN never passes.
    ``rows``: for dweight, a sum over that many rows, whose float32 rounding error near
    zero grows like sqrt(rows); the atol grows with it."""
    assert_close_to_reference(
        got, expected64, f"{what}, seed={seed}", tolerances=TOL, atol_scale=math.sqrt(rows)
    )


def rows_of(t):
    """Rows of a (..., H) tensor: how many terms each element of dweight adds up."""
    return math.prod(t.shape[:-1])


def forward_backward(x, w, dy, eps=1e-6):
    """y, dx, dweight from rms_norm and autograd."""
    x = x.detach().requires_grad_()
    w = w.detach().requires_grad_()
    y = rn.rms_norm(x, w, eps)
    dx, dw = torch.autograd.grad(y, (x, w), dy)
    return y.detach(), dx, dw


# Ragged widths (not multiples of any block), ragged row counts, more than two dims; on
# the CPU the backward runs 4 programs, and (33, 1500), (40, 1000), (9, 5000), (100, 300)
# make each walk several steps with a ragged last one.
SHAPES = [(1, 1), (3, 5), (5, 16), (7, 37), (2, 3, 64), (2, 2, 2, 17), (100, 300)]
SHAPES += [(40, 1000), (33, 1500), (9, 5000)]


# --8<-- [start:ragged]
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward_and_backward_match_float64(shape, dtype):
    seed = fresh_seed()  # fresh random inputs every run
    x, w, dy = rand(shape, dtype), weight_for(shape[-1], dtype), rand(shape, dtype)
    # torch.empty is NaN-filled in this file (poisoned_empty): unwritten elements fail.
    y, dx, dw = forward_backward(x, w, dy)
    y64, dx64, dw64 = reference_all(x, w, dy)
    assert y.dtype == dx.dtype == dw.dtype == dtype
    check(y, y64, "y", seed)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


# --8<-- [end:ragged]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_float32_weight_with_half_precision_x(dtype):
    seed = fresh_seed()
    x, w, dy = rand((13, 200), dtype), weight_for(200), rand((13, 200), dtype)
    y, dx, dw = forward_backward(x, w, dy)
    assert y.dtype == dx.dtype == dtype and dw.dtype == torch.float32
    y64, dx64, dw64 = reference_all(x, w, dy)
    check(y, y64, "y", seed)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


@pytest.mark.parametrize("eps", [0, 1e-6, 0.5, 3])
def test_eps_is_added_to_the_mean_square(eps):
    seed = fresh_seed()
    x, w, dy = rand((6, 40)), weight_for(40), rand((6, 40))
    y, dx, dw = forward_backward(x, w, dy, eps)
    y64, dx64, dw64 = reference_all(x, w, dy, eps)
    check(y, y64, f"y (eps={eps})", seed)
    check(dx, dx64, f"dx (eps={eps})", seed)
    check(dw, dw64, f"dweight (eps={eps})", seed, rows=6)


def test_reference_is_torch_rms_norm():
    """The definition this file uses is torch's: eps inside the square root."""
    seed = fresh_seed()
    x, w = rand((5, 33), torch.float64), weight_for(33, torch.float64)
    expected = torch.nn.functional.rms_norm(x, (33,), w, 0.25)
    torch.testing.assert_close(rn.reference(x, w, 0.25), expected, msg=f"seed={seed}")


def test_fp16_inputs_whose_squares_overflow_fp16():
    """|x| from 260 to 400: every x**2 is past 65504, the largest fp16 number."""
    seed = fresh_seed()
    shape = (16, 257)
    signs = torch.randint(0, 2, shape, device=DEVICE) * 2 - 1
    x = (signs * (260 + 140 * torch.rand(shape, device=DEVICE))).half()
    assert torch.isinf(x * x).all()  # squaring in fp16 would give inf everywhere
    w, dy = weight_for(257, torch.float16), rand(shape, torch.float16)
    y, dx, dw = forward_backward(x, w, dy)
    y64, dx64, dw64 = reference_all(x, w, dy)
    for got, expected, name in ((y, y64, "y"), (dx, dx64, "dx"), (dw, dw64, "dweight")):
        assert torch.isfinite(got).all(), f"{name} is not finite, seed={seed}"
        check(got, expected, name, seed, rows=16 if name == "dweight" else 1)


@pytest.mark.filterwarnings("ignore:Input #.* is not a double precision")
def test_gradcheck():
    """torch.autograd.gradcheck: finite differences against our backward. The kernels
    compute in float32 (there is no float64 kernel), so the step and the tolerances are
    float32's: a step of 1e-2 on values around 1 leaves about 1e-5 of rounding noise."""
    seed = fresh_seed()
    x = rand((4, 13)).requires_grad_()
    w = weight_for(13).requires_grad_()
    ok = torch.autograd.gradcheck(
        lambda x, w: rn.rms_norm(x, w, 0.1), (x, w), eps=1e-2, atol=2e-3, rtol=1e-2
    )
    assert ok, f"seed={seed}"


# ---- the backward's two-stage dweight -------------------------------------------------


def test_backward_is_deterministic():
    """Partial rows in a fixed order, no atomics: the same bits on every run."""
    seed = fresh_seed()
    shape = (4096, 1024) if ON_GPU else (40, 1000)
    x, w, dy = rand(shape, torch.bfloat16), weight_for(shape[-1]), rand(shape, torch.bfloat16)
    first = forward_backward(x, w, dy)
    for _ in range(3):
        again = forward_backward(x, w, dy)
        for a, b, name in zip(first, again, ("y", "dx", "dweight"), strict=True):
            assert torch.equal(a, b), f"{name} changed between runs, seed={seed}"


def partial_setup(shape, dtype=torch.float32):
    x, w, dy = rand(shape, dtype), weight_for(shape[-1], dtype), rand(shape, dtype)
    with torch.no_grad():
        _, rstd = rn.launch_forward(x, w, 1e-6)
    return x, w, dy, rstd


@pytest.mark.parametrize("programs", [1, 2, 3, 7, 33, 40])
def test_any_number_of_partial_rows_gives_dweight(programs):
    """One program for all rows, one per row, and counts that leave a ragged last one."""
    seed = fresh_seed()
    x, w, dy, rstd = partial_setup((33, 1500))
    dx, dw = rn.launch_backward(dy, x, w, rstd, programs=programs)
    _, dx64, dw64 = reference_all(x, w, dy)
    check(dx, dx64, f"dx ({programs} programs)", seed)
    check(dw, dw64, f"dweight ({programs} programs)", seed, rows=33)


def test_programs_walk_several_steps_with_a_ragged_last_one():
    """The case the loop's masks are for: more rows per program than rows per step."""
    seed = fresh_seed()
    n_rows, hidden, programs = 33, 1500, 4
    *_, rows_per_step, _, _ = rn.plan(n_rows, hidden, backward=True, programs=programs)
    rows_per_program = math.ceil(n_rows / programs)
    assert rows_per_program > rows_per_step and rows_per_program % rows_per_step
    x, w, dy, rstd = partial_setup((n_rows, hidden), torch.float16)
    dx, dw = rn.launch_backward(dy, x, w, rstd, programs=programs)
    _, dx64, dw64 = reference_all(x, w, dy)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


# ---- the minimal backward: one program per row (lesson 11 starts there) ------------------

MINIMAL_SHAPES = [(1, 1), (3, 5), (7, 37), (33, 1500), (100, 300), (9, 5000)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", MINIMAL_SHAPES, ids=str)
def test_minimal_backward_matches_torch_autograd(shape, dtype):
    """dx and dweight of the minimal backward against torch autograd through the float64
    reference, on ragged widths and row counts (the partial rows and dx come from
    NaN-filled empties, so an unwritten element fails)."""
    seed = fresh_seed()
    x, w, dy, rstd = partial_setup(shape, dtype)
    dx, dw = rn.rms_norm_backward_minimal(dy, x, w, rstd)
    _, dx64, dw64 = reference_all(x, w, dy)
    assert dx.dtype == dw.dtype == dtype
    check(dx, dx64, "dx (minimal)", seed)
    check(dw, dw64, "dweight (minimal)", seed, rows=shape[0])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_minimal_backward_with_a_float32_weight(dtype):
    seed = fresh_seed()
    x, dy = rand((13, 200), dtype), rand((13, 200), dtype)
    w = weight_for(200)
    with torch.no_grad():
        _, rstd = rn.launch_forward(x, w, 1e-6)
    dx, dw = rn.rms_norm_backward_minimal(dy, x, w, rstd)
    assert dx.dtype == dtype and dw.dtype == torch.float32
    _, dx64, dw64 = reference_all(x, w, dy)
    check(dx, dx64, "dx (minimal)", seed)
    check(dw, dw64, "dweight (minimal)", seed, rows=13)


def test_minimal_backward_agrees_with_the_tuned_one():
    """The same float32 formula per row, its sums taken in another order (a 1-D row
    against a tile of rows; dweight down all rows against partial rows per program): the
    same results to float32 rounding. And the minimal one gives the same bits every run."""
    seed = fresh_seed()
    x, w, dy, rstd = partial_setup((40, 1000), torch.float32)
    dx, dw = rn.rms_norm_backward_minimal(dy, x, w, rstd)
    dx_tuned, dw_tuned = rn.launch_backward(dy, x, w, rstd)
    torch.testing.assert_close(dx, dx_tuned, rtol=1e-6, atol=1e-6, msg=f"seed={seed}")
    torch.testing.assert_close(dw, dw_tuned, rtol=1e-5, atol=1e-5, msg=f"seed={seed}")
    again = rn.rms_norm_backward_minimal(dy, x, w, rstd)
    assert torch.equal(dx, again[0]) and torch.equal(dw, again[1]), f"seed={seed}"


@requires_gpu
@pytest.mark.parametrize("hidden", [4096, 8192])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=str)
def test_minimal_backward_at_realistic_sizes(hidden, dtype):
    seed = fresh_seed()
    x, w, dy, rstd = partial_setup((2050, hidden), dtype)
    dx, dw = rn.rms_norm_backward_minimal(dy, x, w, rstd)
    _, dx64, dw64 = reference_all(x, w, dy)
    check(dx, dx64, "dx (minimal)", seed)
    check(dw, dw64, "dweight (minimal)", seed, rows=2050)


# ---- layouts: strided rows, any weight, any upstream gradient -------------------------


@pytest.mark.parametrize(
    "make_x",
    [
        lambda: rand((9, 70))[:, :50],  # a column slice: rows 70 apart
        lambda: rand((3, 5, 80))[:, :, 10:60],  # (3, 5) leading dims, rows 80 apart
        lambda: rand(50).expand(6, 50),  # every row the same memory (stride 0)
        lambda: rand((4, 1, 50)).transpose(0, 1),  # a size-1 dimension moved
    ],
    ids=["column-slice", "3d-slice", "expanded", "size-1-transpose"],
)
def test_accepts_rows_at_one_stride(make_x):
    seed = fresh_seed()
    x = make_x()
    w, dy = weight_for(50), rand(x.shape)
    y, dx, dw = forward_backward(x, w, dy)
    y64, dx64, dw64 = reference_all(x, w, dy)
    check(y, y64, "y", seed)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


def test_gradient_reaches_the_strided_input_itself():
    seed = fresh_seed()
    big, w, dy = rand((8, 96)).requires_grad_(), weight_for(64), rand((8, 64))
    rn.rms_norm(big[:, 16:80], w).backward(dy)
    _, dx64, _ = reference_all(big.detach()[:, 16:80], w, dy)
    check(big.grad[:, 16:80], dx64, "dx", seed)
    assert torch.all(big.grad[:, :16] == 0) and torch.all(big.grad[:, 80:] == 0)


def test_weight_with_a_stride():
    seed = fresh_seed()
    w_big = weight_for(100).requires_grad_()
    x = rand((7, 50)).requires_grad_()
    dy = rand((7, 50))
    y = rn.rms_norm(x, w_big[::2])
    y.backward(dy)
    _, dx64, dw64 = reference_all(x, w_big.detach()[::2], dy)
    check(w_big.grad[::2], dw64, "dweight", seed, rows=7)
    assert torch.all(w_big.grad[1::2] == 0), f"seed={seed}"
    check(x.grad, dx64, "dx", seed)


@pytest.mark.parametrize(
    "make_dy",
    [
        lambda shape: torch.ones((), device=DEVICE).expand(shape),  # what y.sum() sends
        lambda shape: rand(shape[::-1]).t(),  # transposed
        lambda shape: rand((shape[0], 2 * shape[1]))[:, ::2],  # every other column
    ],
    ids=["expanded", "transposed", "strided-columns"],
)
def test_upstream_gradient_in_any_layout(make_dy):
    seed = fresh_seed()
    x, w = rand((11, 30)), weight_for(30)
    dy = make_dy((11, 30))
    _, dx, dw = forward_backward(x, w, dy)
    _, dx64, dw64 = reference_all(x, w, dy)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


def test_upstream_gradient_with_the_negative_bit():
    seed = fresh_seed()
    x, w, dy = rand((5, 24)), weight_for(24), rand((5, 24))
    _, dx, dw = forward_backward(x, w, torch._neg_view(dy))  # memory holds dy, reads -dy
    _, dx64, dw64 = reference_all(x, w, -dy)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


# ---- autograd ------------------------------------------------------------------------


def test_through_a_bigger_graph():
    """A residual block: autograd adds our dx to the gradient of the skip connection."""
    seed = fresh_seed()
    x, w, dy = rand((10, 48)), weight_for(48), rand((10, 48))
    x1, w1 = x.clone().requires_grad_(), w.clone().requires_grad_()
    ((x1 + 2 * rn.rms_norm(x1, w1)) * dy).sum().backward()
    x2, w2 = x.double().requires_grad_(), w.double().requires_grad_()
    ((x2 + 2 * rn.reference(x2, w2)) * dy.double()).sum().backward()
    check(x1.grad, x2.grad, "dx", seed)
    check(w1.grad, w2.grad, "dweight", seed, rows=10)


def test_saved_input_changed_in_place_fails_at_backward():
    x, w = rand((4, 16)).requires_grad_(), weight_for(16)
    h = x * 1  # a non-leaf that autograd lets us modify
    y = rn.rms_norm(h, w)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---- realistic sizes on a GPU ----------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("hidden", [4096, 8192, 16384, 20000])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=str)
def test_realistic_sizes(hidden, dtype):
    """Every backward tile shape the benchmark meets, and the 32-warp, 32768-wide one."""
    seed = fresh_seed()
    shape = (2050, hidden)
    x, w, dy = rand(shape, dtype), weight_for(hidden, dtype), rand(shape, dtype)
    y, dx, dw = forward_backward(x, w, dy)
    y64, dx64, dw64 = reference_all(x, w, dy)
    check(y, y64, "y", seed)
    check(dx, dx64, "dx", seed)
    check(dw, dw64, "dweight", seed, rows=rows_of(dy))


@big_gpu_memory
@requires_gpu
def test_offsets_past_int32():
    """2**31 + 49152 elements: int32 row offsets would wrap in the last rows."""
    seed = fresh_seed()
    hidden = 16384
    n_rows = 2**31 // hidden + 3
    x = torch.randn(n_rows, hidden, device="cuda", dtype=torch.bfloat16)
    dy = torch.randn(n_rows, hidden, device="cuda", dtype=torch.bfloat16)
    w = weight_for(hidden, torch.bfloat16).requires_grad_()
    x.requires_grad_()
    y = rn.rms_norm(x, w)
    dx, dw = torch.autograd.grad(y, (x, w), dy)
    for rows in (slice(0, 2), slice(n_rows - 4, n_rows)):  # both sides of 2**31 elements
        y64, dx64, _ = reference_all(x[rows], w, dy[rows])
        check(y[rows].detach(), y64, f"y rows {rows}", seed)
        check(dx[rows], dx64, f"dx rows {rows}", seed)
    # dweight over every row, in float32 chunks of rows (float64 would need 17 GB a tensor)
    expected = torch.zeros(hidden, device="cuda", dtype=torch.float64)
    for start in range(0, n_rows, 8192):
        xc = x.detach()[start : start + 8192].float()
        rstd = torch.rsqrt(xc.square().mean(-1, keepdim=True) + 1e-6)
        expected += (dy[start : start + 8192].float() * xc * rstd).sum(0).double()
    torch.testing.assert_close(
        dw.double(), expected.to(torch.bfloat16).double(), rtol=8e-3, atol=0.5,
        msg=lambda m: f"dweight, seed={seed}\n{m}",
    )  # fmt: skip


# ---- refusals: every check raises before anything is launched --------------------------


def test_eps_accepts_ints_and_float_subclasses():
    seed = fresh_seed()
    x, w = rand((3, 8)), weight_for(8)
    for eps in (np.float64(0.5), 1):  # np.float64 subclasses float
        check(rn.rms_norm(x, w, eps), rn.reference(x, w, float(eps)).double(), f"{eps!r}", seed)
