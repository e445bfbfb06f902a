"""Softmax against its float64 torch reference: ragged shapes, every dtype, both kernels
(whole rows and online), -inf rows, gradients. (The wrapper contract, refusals included, is
tested in test_contract.py.)"""

import pytest
import torch

from kernels import softmax as sm
from tests.support import (
    DEVICE,
    LaunchSpy,
    big_gpu_memory,
    fresh_seed,
    poisoned_like,
    rand,
    requires_gpu,
)

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
KERNELS = [
    "softmax_kernel",
    "softmax_online_kernel",
    "softmax_backward_kernel",
    "softmax_backward_online_kernel",
]

# (rtol, atol) of an output against the float64 reference rounded to its dtype, stated
# once. A softmax value is not correctly rounded (exp and the row sum round in fp32, and a
# GPU's exp is an approximation good to a few fp32 ulps), so it may land one ulp of its
# dtype away: 2**-10 relative for fp16, 2**-7 for bf16 (which the interpreter's truncating
# fp32 -> bf16 conversion also reaches); fp32 allows a few parts per million. atol covers
# values below the normal range: one fp16 subnormal step (2**-24), and for fp32 and bf16
# the smallest normal (2**-126), under which a GPU's exp flushes to zero.
TOL = {
    torch.float32: (1e-5, 2**-126),
    torch.float16: (1e-3, 2**-24),
    torch.bfloat16: (8e-3, 2**-126),
}
# A gradient dx = y * (dy - dot) can cancel to far below its terms; its error is bounded by
# the dtype's rtol of |dx| plus rtol and this much of y * (|dy| + max|dy|), the size of the
# terms (y's own rounding comes through multiplied by dy - dot).
GRAD_TERM_TOL = 1e-5

# Under the interpreter, numpy warns where the kernels compute -inf - (-inf) in padding rows
# and all -inf rows, and 0 / 0 for all -inf rows: NaN there is the intended result.
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered in subtract:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:divide by zero encountered in divide:RuntimeWarning"),
]


def assert_softmax_close(out, x, seed):
    """``out`` against softmax(x) in float64 rounded to x's dtype; NaN only where torch's."""
    rtol, atol = TOL[x.dtype]
    torch.testing.assert_close(
        out.double(),
        sm.reference(x).double(),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
        msg=lambda m: f"{m}\nseed={seed}",
    )


def assert_grad_close(dx, expected64, y, dy, seed):
    """``dx`` against a float64 gradient, at the dtype's rtol plus GRAD_TERM_TOL of the terms."""
    rtol, atol = TOL[dx.dtype]
    y64, dy64 = y.double(), dy.double()
    scale = dy64.abs() + dy64.abs().amax(dim=-1, keepdim=True)  # bounds |dy - dot|
    err = (dx.double() - expected64).abs()
    # y's own error (rtol relative, atol absolute) comes through multiplied by dy - dot
    allowed = rtol * expected64.abs() + (rtol + GRAD_TERM_TOL) * y64.abs() * scale
    allowed += atol * (1 + scale)
    worst = (err - allowed).max().item() if err.numel() else 0.0
    assert not torch.isnan(dx).any(), f"dx has NaN, seed={seed}"
    assert worst <= 0, f"dx off by {err.max().item():.3g} (beyond tolerance), seed={seed}"


# --8<-- [start:ragged]
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape",
    [(1, 1), (1, 5), (7, 33), (37, 20), (3, 1000), (64, 16), (5, 3, 17), (2, 16384)],
    ids=str,
)
def test_whole_rows_match_torch(shape, dtype):
    seed = fresh_seed()  # fresh random inputs every run
    x = rand(shape, dtype, scale=3.0)
    out = poisoned_like(x)  # NaN everywhere: unwritten elements fail
    assert sm.softmax(x, out) is out
    assert_softmax_close(out, x, seed)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape, block_n, programs_per_sm",
    [((4, 100), 16, 1), ((9, 33), 16, 1), ((11, 64), 16, 2), ((2, 17), 16, None)],
    ids=["ragged-tail", "more-rows-than-programs", "exact-tiles", "one-column-over"],
)
def test_online_matches_torch(shape, block_n, programs_per_sm, dtype):
    """block_n < the row length sends the rows to the online kernel, tile by tile."""
    seed = fresh_seed()
    x = rand(shape, dtype, scale=3.0)
    out = poisoned_like(x)
    sm.softmax(x, out, block_n=block_n, programs_per_sm=programs_per_sm)
    assert_softmax_close(out, x, seed)


# --8<-- [end:ragged]


class MetaSpy(LaunchSpy):
    """A LaunchSpy that also keeps each launch's tile and warp count."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self.meta = []

    def __getitem__(self, grid):
        launch = super().__getitem__(grid)

        def record(*args, **kwargs):
            self.meta.append((kwargs["BLOCK_N"], kwargs["num_warps"]))
            return launch(*args, **kwargs)

        return record


def spy_on_kernels(monkeypatch) -> dict[str, MetaSpy]:
    spies = {name: MetaSpy(getattr(sm, name)) for name in KERNELS}
    for name, spy in spies.items():
        monkeypatch.setattr(sm, name, spy)
    return spies


# The default tiles lesson 10's launch-shape table states. The forward keeps rows of up to
# 32,768 columns whole (32 warps past 16,384, so a thread holds at most 32 values) and walks
# longer rows in tiles of 32,768; the backward, whose tiles hold y and dy, stops at 16,384
# and uses tiles of 8,192.
@pytest.mark.parametrize(
    "n_cols, kernel, block_n, num_warps",
    [
        (16384, "softmax_kernel", 16384, 16),
        (16385, "softmax_kernel", 32768, 32),
        (32768, "softmax_kernel", 32768, 32),
        (32769, "softmax_online_kernel", 32768, 32),
    ],
)
def test_forward_rows_past_the_on_chip_limit_go_online(
    n_cols, kernel, block_n, num_warps, monkeypatch
):
    seed = fresh_seed()
    spies = spy_on_kernels(monkeypatch)
    x = rand((2, n_cols), scale=3.0)
    assert_softmax_close(sm.softmax(x), x, seed)
    assert {name for name, spy in spies.items() if spy.devices} == {kernel}
    assert spies[kernel].meta == [(block_n, num_warps)]
    assert block_n // (32 * num_warps) <= 32  # values per thread


@pytest.mark.parametrize(
    "n_cols, kernel, block_n, num_warps",
    [
        (16384, "softmax_backward_kernel", 16384, 16),
        (16385, "softmax_backward_online_kernel", 16384, 32),
    ],
)
def test_backward_keeps_its_own_on_chip_limit(n_cols, kernel, block_n, num_warps, monkeypatch):
    seed = fresh_seed()
    x = rand((2, n_cols), scale=3.0).requires_grad_()
    dy = rand((2, n_cols))
    y = sm.softmax(x)  # the forward keeps these rows whole
    spies = spy_on_kernels(monkeypatch)
    y.backward(dy)
    assert {name for name, spy in spies.items() if spy.devices} == {kernel}
    assert spies[kernel].meta == [(block_n, num_warps)]
    assert_grad_close(x.grad, sm.reference_backward(y.detach(), dy).double(), y, dy, seed)


@pytest.mark.parametrize(
    "block_n, num_warps",
    [(b, w) for b in (16, 64, 512) for w in (1, 4, 16)] + [(1024, 8), (4096, 32), (512, 2)],
)
def test_every_tile_and_warp_count_covers_all_elements(block_n, num_warps):
    seed = fresh_seed()
    x = rand((5, 300), scale=3.0)
    out = poisoned_like(x)
    sm.softmax(x, out, block_n=block_n, num_warps=num_warps)
    assert_softmax_close(out, x, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
def test_large_values_do_not_overflow(block_n):
    """exp(1e4) overflows fp32: the max must be subtracted first, in both kernels."""
    seed = fresh_seed()
    x = rand((3, 70), scale=1e4)
    out = sm.softmax(x, block_n=block_n)
    assert torch.isfinite(out).all(), f"seed={seed}"
    assert_softmax_close(out, x, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
def test_all_negative_rows_with_padding(block_n):
    """Padding lanes load -inf, not 0: a 0 would win every row's max here and every
    exp(x - 0) would underflow to 0 (lesson 04's other= bug)."""
    seed = fresh_seed()
    x = -100.0 - rand((4, 37)).abs()  # 37 columns: the last tile is ragged
    assert_softmax_close(sm.softmax(x, block_n=block_n), x, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_minus_inf_rows_give_what_torch_gives(block_n, dtype):
    seed = fresh_seed()
    x = rand((5, 40), dtype)
    x[0] = float("-inf")  # nothing to normalise: torch gives NaN
    x[1, :] = float("-inf")
    x[1, 30] = 2.0  # one finite element: exactly 1 there
    x[2, :20] = float("-inf")  # masked prefix: the online kernel's first tiles are all -inf
    x[3, 5::3] = float("-inf")  # scattered masked entries
    out = poisoned_like(x)
    sm.softmax(x, out, block_n=block_n)
    assert torch.isnan(out[0]).all(), f"seed={seed}"
    assert out[1, 30] == 1 and (out[1, :30] == 0).all() and (out[1, 31:] == 0).all()
    assert torch.isfinite(out[2:]).all(), f"seed={seed}"
    assert_softmax_close(out, x, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
def test_nan_and_plus_inf_poison_their_row_like_torch(block_n):
    seed = fresh_seed()
    x = rand((3, 40))
    x[0, 7] = float("nan")
    x[1, 33] = float("inf")
    out = sm.softmax(x, block_n=block_n)
    assert torch.isnan(out[:2]).all() and torch.isfinite(out[2]).all(), f"seed={seed}"
    assert_softmax_close(out, x, seed)


# ---- layouts: strided rows accepted, anything else refused by name ----------------------


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
@pytest.mark.parametrize(
    "make_x",
    [
        lambda: rand((6, 50), scale=3.0)[:, :37],  # padded rows: row stride 50
        lambda: rand((4, 6, 80), scale=3.0)[:, :, :50],  # 3-D, leading dims still flatten
        lambda: rand((1, 40), scale=3.0).expand(5, 40),  # row stride 0: one row, five times
        lambda: rand((3, 1), scale=3.0).expand(3, 1),  # one column
    ],
    ids=["padded-rows", "3d-padded", "expanded-rows", "one-column"],
)
def test_strided_rows_are_read_in_place(make_x, block_n):
    seed = fresh_seed()
    x = make_x()
    assert not x.is_contiguous() or x.shape[-1] == 1
    out = poisoned_like(x).contiguous()
    sm.softmax(x, out, block_n=block_n)
    assert_softmax_close(out, x, seed)


# ---- autograd ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape, block_n",
    [((5, 33), None), ((37, 20), None), ((4, 100), 16), ((2, 3, 20), None), ((9, 40), 16)],
    ids=["whole", "several-rows-a-program", "online", "3d", "online-persistent"],
)
def test_gradient_matches_torch_autograd(shape, block_n, dtype):
    seed = fresh_seed()
    x = rand(shape, dtype, scale=3.0).requires_grad_()
    dy = rand(shape, dtype)
    y = sm.softmax(x, block_n=block_n)
    assert y.requires_grad
    y.backward(dy)
    x64 = x.detach().double().requires_grad_()
    y64 = torch.softmax(x64, dim=-1)
    y64.backward(dy.double())
    assert_grad_close(x.grad, x64.grad, y64.detach(), dy, seed)
    # and the backward kernel alone, on the y it was given
    assert_grad_close(x.grad, sm.reference_backward(y.detach(), dy).double(), y, dy, seed)


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
@pytest.mark.parametrize(
    "loss",
    [
        lambda y: y.sum(),  # dy is a stride-0 expand of one number
        lambda y: (y * torch.arange(40.0, device=DEVICE)).sum(),  # rows of dy at stride 0
        lambda y: (y.t() * torch.arange(6.0, device=DEVICE)).sum(),  # dy transposed
    ],
    ids=["sum", "row-broadcast", "transposed"],
)
def test_gradient_through_any_dy_layout(loss, block_n):
    seed = fresh_seed()
    x = rand((6, 40), scale=3.0).requires_grad_()
    loss(sm.softmax(x, block_n=block_n)).backward()
    x64 = x.detach().double().requires_grad_()
    y64 = torch.softmax(x64, dim=-1)
    y64.retain_grad()
    loss(y64).backward()
    assert_grad_close(x.grad, x64.grad, y64.detach(), y64.grad, seed)


def test_output_modified_in_place_fails_at_backward():
    x = rand((4, 8)).requires_grad_()
    y = sm.softmax(x)
    y.mul_(2)  # the backward needs the y it saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---- on a GPU: the benchmark's widths, and offsets past 2**31 ---------------------------


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "n_cols", [256, 1000, 4096, 16384, 16385, 32768, 32769, 65536, 131072, 131079]
)
def test_realistic_widths(n_cols, dtype):
    """Every width the benchmarks time, both sides of the forward's and the backward's
    cut-offs, and a ragged long row; 300 rows is more than one persistent program per SM,
    so programs loop over rows."""
    seed = fresh_seed()
    x = rand((300, n_cols), dtype, scale=3.0).requires_grad_()
    dy = rand((300, n_cols), dtype)
    y = sm.softmax(x)
    assert_softmax_close(y.detach(), x.detach(), seed)
    y.backward(dy)
    assert_grad_close(x.grad, sm.reference_backward(y.detach(), dy).double(), y, dy, seed)


@big_gpu_memory
@requires_gpu
@pytest.mark.parametrize("n_cols", [4096, 32768, 65536], ids=["whole", "whole-32-warps", "online"])
def test_offsets_past_int32(n_cols):
    """More than 2**31 elements (4.3 GB of bf16): with int32 offsets the last rows would
    wrap and read and write the first rows' memory."""
    n_rows = 2**31 // n_cols + 3
    x = torch.zeros(n_rows, n_cols, dtype=torch.bfloat16, device="cuda")
    hot = torch.arange(n_rows, device="cuda") % n_cols  # each row peaks somewhere else
    x[torch.arange(n_rows, device="cuda"), hot] = 8.0
    out = poisoned_like(x)
    sm.softmax(x, out)
    assert not torch.isnan(out).any()
    for rows in (slice(0, 3), slice(n_rows - 5, n_rows)):
        torch.testing.assert_close(
            out[rows].double(), sm.reference(x[rows]).double(), rtol=TOL[torch.bfloat16][0], atol=0
        )
