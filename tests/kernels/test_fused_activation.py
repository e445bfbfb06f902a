"""Fused bias + GELU + mask against its float64 reference: ragged shapes, every dtype, both
GELU variants, strided inputs. (The wrapper contract, refusals and in-place use included, is
tested in test_contract.py.)"""

import math
import random

import pytest
import torch
import triton
import triton.language as tl

from kernels import fused_activation as fa
from tests.support import (
    DEVICE,
    ON_GPU,
    TOLERANCES,
    big_gpu_memory,
    fresh_seed,
    poisoned_like,
    rand,
    requires_gpu,
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


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("m, n", [(1, 1), (3, 5), (1000, 3), (2, 4096), (5, 100_000), (0, 0)])
def test_plan_gives_valid_tiles(m, n, itemsize):
    block_m, block_n = fa.plan(m, n, itemsize)
    fa._check_knobs(block_m, block_n, 4)  # accepted by the wrapper's own checks
    # up to 4 KiB of a row (at most 2,048 columns), the whole row where it is shorter
    assert block_n * itemsize <= 4096 and block_n >= min(n, 4096 // itemsize, 2048)
    assert block_m * block_n <= 2048


def test_plan_holds_32_bytes_of_a_row_per_thread():
    """The tiles lesson 08 measures at N = 4,096: one row of 2,048 columns in bf16 and
    fp16, two rows of 1,024 in fp32; each of 128 threads holds 16 elements."""
    assert fa.plan(32768, 4096) == fa.plan(32768, 4096, 2) == (1, 2048)
    assert fa.plan(32768, 4096, 4) == (2, 1024)
    for itemsize in (2, 4):
        block_m, block_n = fa.plan(32768, 4096, itemsize)
        assert block_n * itemsize // 128 == 32 and block_m * block_n // 128 == 16


def test_launch_alone_matches_the_reference():
    """The launch section a lesson prints works on its own, with the plan's tile."""
    seed = fresh_seed()
    x, bias, mask = rand((37, 101), scale=3.0), rand(101), rand((37, 101))
    assert_matches(fa.launch(x, bias, mask, approximate="tanh"), x, bias, mask, "tanh", seed)
    out = poisoned_like(x)
    assert fa.launch(x, bias, None, out, block_m=4) is out  # block_n from the plan
    assert_matches(out, x, bias, None, "none", seed)


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


# ---- dropout made in the kernel from a seed (p, seed instead of a mask) ------------------


def keep_fraction_bound(p: float, n: int, sigmas: float = 5.0) -> float:
    """How far the kept fraction of n independent elements may stray from 1 - p: five
    binomial standard deviations (a fresh seed fails this about once in 1.7 million)."""
    return sigmas * math.sqrt(p * (1 - p) / n)


def assert_dropout_matches(out, x, bias, p, seed, approximate, test_seed):
    """``out`` is gelu(x + bias) with dropout from ``seed``: against the float64 reference
    on the kernel's own keep mask (launch_dropout_mask), dropped elements exactly 0, and
    the mask read back from ``out`` the same mask, wherever the kernel's gelu(x + bias)
    without dropout is a normal number (it underflows to 0 for very negative inputs, and
    the interpreter flushes bf16 subnormals)."""
    keep = fa.launch_dropout_mask(*x.shape, p, seed, x.device)
    assert keep.shape == x.shape and keep.dtype == torch.bool
    scaled = keep.double() / (1 - p)  # 0 or 1 / (1 - p), exactly as float64
    what = f"{test_seed} (dropout seed={seed}, p={p})"
    assert_matches(out, x, bias, scaled, approximate, what)
    assert torch.all(out[~keep] == 0), f"seed={what}: a dropped element is not 0"
    plain = fa.bias_gelu_mask(x, bias, approximate=approximate)
    nonzero = plain.abs() >= torch.finfo(plain.dtype).tiny
    read_back = (out != 0)[nonzero]
    assert torch.equal(read_back, keep[nonzero]), f"seed={what}: out's zeros are not the mask"
    return keep


# The wide case is ragged on both axes of plan()'s fp32 tile (2, 1024), and on the columns
# of its 16-bit one (1, 2048). Under the interpreter 5 rows keep that (fp32: 3 row tiles,
# the last one row) in 5 or 6 programs instead of 38: its 18 cases were most of this
# test's time on the CI machine. On a GPU, 37 rows as before.
WIDE = (37 if ON_GPU else 5, 1029)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (17, 33), WIDE, (130, 70)])
def test_dropout_matches_reference_on_its_own_mask(shape, dtype, approximate, p):
    test_seed = fresh_seed()
    seed = random.randrange(2**64)  # any 64-bit seed
    x, bias = rand(shape, dtype, scale=3.0), rand(shape[1], dtype)
    out = poisoned_like(x)
    assert fa.bias_gelu_mask(x, bias, approximate=approximate, p=p, seed=seed, out=out) is out
    assert_dropout_matches(out, x, bias, p, seed, approximate, test_seed)


# A 1 x 1 tile is one program per element: on the other cases' 37 x 101 input that was
# 3,737 interpreted programs a launch (two launches, 100 s on the CI machine). A 7 x 13
# input keeps what the case is for (every element its own program, across rows, on a grid
# that the default tile, 8 x 16, covers raggedly in both directions) in 91 programs. The
# 2 x 8 tile likewise: 247 programs a launch on 37 x 101; under the interpreter 9 x 21 is
# still ragged on both axes (5 x 3 tiles, the last 1 row and 5 columns) in 15. On a GPU,
# 37 x 101.
@pytest.mark.parametrize(
    "block_m, block_n, num_warps, shape",
    [
        (1, 1, 1, (7, 13)),
        (2, 8, 4, (37, 101) if ON_GPU else (9, 21)),
        (16, 16, 1, (37, 101)),
        (64, 32, 8, (37, 101)),
        (1, 4096, 32, (37, 101)),
        (128, 512, 16, (37, 101)),
    ],
    ids=["1-1-1", "2-8-4", "16-16-1", "64-32-8", "1-4096-32", "128-512-16"],
)
def test_dropout_same_seed_same_result_on_any_tile(block_m, block_n, num_warps, shape):
    """The mask belongs to the elements, not to the launch: another tile, warp count and
    grid give the same output, bit for bit; so does the mask-only kernel's tile."""
    test_seed = fresh_seed()
    seed = random.randrange(2**31)
    m, n = shape
    x, bias = rand((m, n), scale=3.0), rand(n)
    default = fa.bias_gelu_mask(x, bias, p=0.3, seed=seed)
    again = fa.bias_gelu_mask(x, bias, p=0.3, seed=seed)
    tiled = fa.bias_gelu_mask(
        x, bias, p=0.3, seed=seed, block_m=block_m, block_n=block_n, num_warps=num_warps
    )
    msg = f"seed={test_seed} dropout seed={seed}"
    assert torch.equal(default, again), msg
    assert torch.equal(default, tiled), msg
    keep = fa.launch_dropout_mask(m, n, 0.3, seed, x.device)
    keep_tiled = fa.launch_dropout_mask(m, n, 0.3, seed, x.device, block_m=block_m,
                                        block_n=block_n)  # fmt: skip
    assert torch.equal(keep, keep_tiled), msg
    assert_dropout_matches(tiled, x, bias, 0.3, seed, "none", test_seed)


def test_dropout_another_seed_another_mask():
    test_seed = fresh_seed()
    seed, p, shape = random.randrange(2**31), 0.5, (64, 300)
    a = fa.launch_dropout_mask(*shape, p, seed, DEVICE)
    b = fa.launch_dropout_mask(*shape, p, seed + 1, DEVICE)
    # Independent masks disagree on a fraction 2 p (1 - p) of the elements.
    differ = (a != b).double().mean().item()
    bound = 5 * math.sqrt(0.25 / a.numel())
    assert abs(differ - 2 * p * (1 - p)) <= bound, f"seed={test_seed}: {differ}"


@pytest.mark.parametrize("p", [0.05, 0.25, 0.5, 0.9])
def test_dropout_keeps_a_fraction_1_minus_p(p):
    """The kept fraction is within a binomial bound of 1 - p; so are the fractions of
    neighbouring pairs kept together, along rows and down columns ((1 - p)**2), which a
    mask repeated along a row or a column would fail."""
    test_seed = fresh_seed()
    seed, shape = random.randrange(2**63), (96, 500)
    keep = fa.launch_dropout_mask(*shape, p, seed, DEVICE).double()
    msg = f"seed={test_seed} dropout seed={seed} p={p}"
    kept = keep.mean().item()
    assert abs(kept - (1 - p)) <= keep_fraction_bound(p, keep.numel()), f"{msg}: kept {kept}"
    q = (1 - p) ** 2  # two neighbours both kept
    for pairs in (keep[:, 1:] * keep[:, :-1], keep[1:, :] * keep[:-1, :]):
        both = pairs.mean().item()
        assert abs(both - q) <= keep_fraction_bound(1 - q, pairs.numel()), f"{msg}: {both}"


@pytest.mark.parametrize("approximate", APPROX)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dropout_with_p_zero_is_the_no_mask_result(dtype, approximate):
    """p = 0 keeps every element and scales by 1: bit for bit the result without a mask."""
    test_seed = fresh_seed()
    x, bias = rand((29, 67), dtype, scale=3.0), rand(67, dtype)
    plain = fa.bias_gelu_mask(x, bias, approximate=approximate)
    for p in (0.0, 0):
        dropped = fa.bias_gelu_mask(x, bias, approximate=approximate, p=p, seed=test_seed)
        assert torch.equal(dropped, plain), f"seed={test_seed} p={p!r}"


def test_dropout_with_the_largest_p_keeps_almost_nothing_and_scales_the_rest():
    """p = 1 - 2**-24 (the largest float32 below 1) is taken: every element of a small
    tensor is dropped, and nothing is inf or NaN."""
    x, bias = rand((16, 64), scale=3.0), rand(64)
    out = fa.bias_gelu_mask(x, bias, p=fa.MAX_P, seed=3)
    keep = fa.launch_dropout_mask(16, 64, fa.MAX_P, 3, x.device)
    assert torch.isfinite(out).all()
    assert torch.equal(out[~keep], torch.zeros_like(out[~keep]))


def test_dropout_in_place_over_x():
    test_seed = fresh_seed()
    seed = random.randrange(2**31)
    x, bias = rand((33, 65), scale=3.0), rand(65)
    want = fa.bias_gelu_mask(x, bias, p=0.2, seed=seed)
    assert fa.bias_gelu_mask(x, bias, p=0.2, seed=seed, out=x) is x
    assert torch.equal(x, want), f"seed={test_seed}"


@pytest.mark.parametrize(
    "p, seed, error, says",
    [
        (-0.1, 1, ValueError, r"p must be in \[0, 1\)"),
        (1.0, 1, ValueError, r"p must be in \[0, 1\)"),
        (1, 1, ValueError, r"p must be in \[0, 1\)"),
        (float("nan"), 1, ValueError, r"p must be in \[0, 1\)"),
        (float("inf"), 1, ValueError, r"p must be in \[0, 1\)"),
        (1 - 2**-25, 1, ValueError, r"p must be in \[0, 1\) \(at most 1 - 2\*\*-24\)"),
        ("0.1", 1, TypeError, "p must be a float"),
        (None, 1, TypeError, "p must be a float"),
        (True, 1, TypeError, "p must be a float"),
        (0.1, None, ValueError, "p = 0.1 needs a seed"),
        (0.1, -1, ValueError, r"seed must be in \[0, 2\*\*64\)"),
        (0.1, 2**64, ValueError, r"seed must be in \[0, 2\*\*64\)"),
        (0.1, 1.0, TypeError, "seed must be an int"),
        (0.1, True, TypeError, "seed must be an int"),
    ],
)
def test_dropout_arguments_refused_by_name(p, seed, error, says):
    x, bias = rand((3, 5)), rand(5)
    with pytest.raises(error, match=f"^bias_gelu_mask: {says}"):
        fa.bias_gelu_mask(x, bias, p=p, seed=seed)


def test_dropout_and_a_mask_are_not_both_taken():
    x, bias, mask = rand((3, 5)), rand(5), rand((3, 5))
    with pytest.raises(ValueError, match="^bias_gelu_mask: mask and seed"):
        fa.bias_gelu_mask(x, bias, mask, p=0.1, seed=1)
    # a mask with p = 0 and no seed is the plain mask call
    assert torch.equal(fa.bias_gelu_mask(x, bias, mask, p=0.0), fa.bias_gelu_mask(x, bias, mask))


def test_launch_alone_drops_from_a_seed():
    test_seed = fresh_seed()
    x, bias = rand((37, 101), torch.float16, scale=3.0), rand(101, torch.float16)
    out = fa.launch(x, bias, approximate="tanh", p=0.25, seed=12345)
    assert_dropout_matches(out, x, bias, 0.25, 12345, "tanh", test_seed)


@triton.jit
def keep_rows_from(keep_ptr, seed, p, first_row, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The dropout mask of rows first_row .. first_row + BLOCK_M of an (any, N) tensor
    # (columns 0 .. BLOCK_N), without allocating the rows before them.
    rows = first_row + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    keep = fa.dropout_keep(seed, p, rows, cols, N)
    here = tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    tl.store(keep_ptr + here, keep.to(tl.int8))


def keep_rows(seed, p, first_row, n, block_m=16, block_n=64):
    keep = torch.empty((block_m, block_n), dtype=torch.int8, device=DEVICE)
    keep_rows_from[(1,)](keep, seed, p, first_row, n, BLOCK_M=block_m, BLOCK_N=block_n)
    return keep.bool()


def test_dropout_offsets_do_not_wrap_at_32_bits():
    """Element offsets past 2**32 draw their own numbers: with 32-bit offsets row 2**16 of
    a 2**16-wide tensor (offset 2**32) would repeat row 0's mask."""
    test_seed = fresh_seed()
    seed, p, n = random.randrange(2**31), 0.5, 2**16
    first = keep_rows(seed, p, 0, n)
    for row in (2**16, 2**15 + 1):  # offset 2**32, and 2**31 + 2**16 (past int32)
        later = keep_rows(seed, p, row, n)
        differ = (first != later).double().mean().item()
        assert abs(differ - 0.5) <= 5 * math.sqrt(0.25 / first.numel()), (
            f"seed={test_seed} row={row}: {differ}"
        )
    # the same rows computed again (and as the fused kernel would) agree. plan()'s tile
    # for 16 x 2**16 is 1 x 2048: 512 programs, 9 s under the interpreter on the CI
    # machine; there, one of 16 x 4096 (16 programs) makes the same mask (it belongs to
    # the elements: test_dropout_same_seed_same_result_on_any_tile). On a GPU, plan()'s.
    tile = {} if ON_GPU else {"block_m": 16, "block_n": 4096}
    assert torch.equal(keep_rows(seed, p, 0, n), first)
    assert torch.equal(first, fa.launch_dropout_mask(16, n, p, seed, DEVICE, **tile)[:, :64])


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(4096, 4096), (3001, 5003)], ids=str)
def test_dropout_realistic_sizes(shape, dtype):
    test_seed = fresh_seed()
    seed = random.randrange(2**64)
    x, bias = rand(shape, dtype, scale=3.0), rand(shape[1], dtype)
    out = poisoned_like(x)
    fa.bias_gelu_mask(x, bias, p=0.1, seed=seed, out=out)
    keep = assert_dropout_matches(out, x, bias, 0.1, seed, "none", test_seed)
    kept = keep.double().mean().item()
    assert abs(kept - 0.9) <= keep_fraction_bound(0.1, keep.numel()), f"seed={test_seed}"


@big_gpu_memory
@requires_gpu
def test_dropout_offsets_past_int32():
    """2**31 + 16,384 elements: the rows past 2**31 keep their own fraction 1 - p, and
    their mask is the one launch_dropout_mask and the int64 helper give there."""
    n, p, seed = 4096, 0.5, 2024
    rows_below = 2**31 // n
    x = torch.ones((rows_below + 4, n), dtype=torch.float16, device="cuda")
    bias = torch.zeros(n, dtype=torch.float16, device="cuda")
    out = fa.bias_gelu_mask(x, bias, p=p, seed=seed)
    past = out[rows_below:] != 0
    kept = past.double().mean().item()
    assert abs(kept - (1 - p)) <= keep_fraction_bound(p, past.numel())
    del out, x
    keep = fa.launch_dropout_mask(rows_below + 4, n, p, seed, "cuda")
    assert torch.equal(keep[rows_below:], past)
    assert torch.equal(keep_rows(seed, p, rows_below, n, block_m=4, block_n=n), past)
