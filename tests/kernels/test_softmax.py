"""Softmax against its float64 torch reference: ragged shapes, every dtype, both kernels
(whole rows and online), -inf rows, gradients, and one test per wrapper refusal."""

import numpy as np
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
    requires_two_gpus,
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


@pytest.mark.parametrize(
    "make_x, match",
    [
        (lambda: rand((5, 20))[:, ::2], "must be contiguous along its last dimension"),
        (lambda: rand((5, 20)).t(), "must be contiguous along its last dimension"),
        (lambda: rand((4, 6, 8)).transpose(0, 1), "cannot be flattened into rows"),
    ],
    ids=["column-stride-2", "transposed", "permuted-leading-dims"],
)
def test_refuses_layouts_the_kernel_cannot_walk(make_x, match):
    with pytest.raises(ValueError, match=f"^softmax: x.*{match}"):
        sm.softmax(make_x())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_zero_dim(dtype):
    fresh_seed()
    assert sm.softmax(rand((), dtype)) == 1  # a softmax over one element
    assert torch.isnan(sm.softmax(torch.tensor(float("-inf"), device=DEVICE).to(dtype)))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5), (2, 0, 3)], ids=str)
def test_empty_inputs_give_an_empty_result_without_a_launch(shape, monkeypatch):
    spies = [LaunchSpy(getattr(sm, name)) for name in KERNELS]
    for name, spy in zip(KERNELS, spies, strict=True):
        monkeypatch.setattr(sm, name, spy)
    x = rand(shape)
    out = sm.softmax(x)
    assert out.shape == x.shape and out.dtype == x.dtype
    given = torch.empty_like(x)
    assert sm.softmax(x, given) is given
    xg = x.clone().requires_grad_()
    sm.softmax(xg).sum().backward()
    assert xg.grad.shape == x.shape
    assert all(spy.devices == [] for spy in spies)


def test_reads_negated_views_as_their_values():
    seed = fresh_seed()
    x = rand((6, 33))
    xn = torch._neg_view(x)  # memory holds x, reads as -x
    assert xn.is_neg()
    assert_softmax_close(sm.softmax(xn), x.neg(), seed)
    assert_softmax_close(sm.softmax(xn, block_n=16), x.neg(), seed)


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


def test_double_backward_is_refused():
    x = rand((4, 8)).requires_grad_()
    loss = (sm.softmax(x) ** 2).sum()
    (dx,) = torch.autograd.grad(loss, x, create_graph=True)  # dy = 2y requires grad
    with pytest.raises(RuntimeError, match="once_differentiable"):
        dx.sum().backward()


def test_output_modified_in_place_fails_at_backward():
    x = rand((4, 8)).requires_grad_()
    y = sm.softmax(x)
    y.mul_(2)  # the backward needs the y it saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_inputs_that_require_grad_are_plain_without_grad_mode(mode):
    seed = fresh_seed()
    x = rand((3, 30)).requires_grad_()
    out = torch.zeros(3, 30, device=DEVICE, requires_grad=True)
    with mode():
        result = sm.softmax(x)
        sm.softmax(x, out)  # an optimizer-style write into a leaf
    assert not result.requires_grad
    assert_softmax_close(result, x.detach(), seed)
    assert torch.equal(out.detach(), result)


# ---- out=: in place, overlap by address range, version counter --------------------------


@pytest.mark.parametrize("block_n", [None, 16], ids=["whole", "online"])
def test_in_place(block_n):
    seed = fresh_seed()
    x = rand((7, 45), scale=3.0)
    expected = sm.reference(x)
    assert sm.softmax(x, x, block_n=block_n) is x
    rtol, atol = TOL[x.dtype]
    torch.testing.assert_close(x, expected, rtol=rtol, atol=atol, msg=lambda m: f"{m} seed={seed}")


def test_refuses_x_that_requires_grad_with_out():
    x = rand((3, 8)).requires_grad_()
    with pytest.raises(
        ValueError, match="softmax: x requires grad, and a result written into out="
    ):
        sm.softmax(x, torch.empty(3, 8, device=DEVICE))


def test_refuses_out_that_requires_grad():
    with pytest.raises(ValueError, match="softmax: out requires grad"):
        sm.softmax(rand((3, 8)), torch.zeros(3, 8, device=DEVICE, requires_grad=True))


def test_out_write_bumps_version_so_a_stale_saved_tensor_fails_at_backward():
    x = rand((4, 8))
    w = rand((4, 8)).requires_grad_()
    z = w * x  # saves x: dz/dw = x
    version = x._version
    sm.softmax(x, x)
    assert x._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize(
    "make_x_out",
    [
        lambda b: (b[:64].view(8, 8), b[32:96].view(8, 8)),  # out starts inside x
        lambda b: (b[32:96].view(8, 8), b[:64].view(8, 8)),  # x starts inside out
        lambda b: (b[:64].view(8, 8), b[1:65].view(8, 8)),  # off by one element
        lambda b: (b.view(8, 16)[:, :8], b[8:72].view(8, 8)),  # in the gaps of padded rows
        lambda b: (b.view(8, 16)[:, :8], b[:64].view(8, 8)),  # same start, other layout
    ],
    ids=["out-inside-x", "x-inside-out", "shifted", "padded-gaps", "same-start"],
)
def test_refuses_out_overlapping_x(make_x_out):
    x, out = make_x_out(rand(128))
    with pytest.raises(ValueError, match="softmax: out overlaps x"):
        sm.softmax(x, out)


def test_catches_overlap_through_another_storage():
    b = rand(128)
    x, alias = b[:64].view(8, 8), torch.from_dlpack(b[32:96]).view(8, 8)
    assert alias.untyped_storage().data_ptr() != b.untyped_storage().data_ptr()
    with pytest.raises(ValueError, match="softmax: out overlaps x"):
        sm.softmax(x, alias)


def test_accepts_a_disjoint_out_in_the_same_buffer():
    seed = fresh_seed()
    b = rand(3000)
    x, out, after = b[:1000].view(10, 100), b[1000:2000].view(10, 100), b[2000:]
    before = b.clone()
    out.fill_(float("nan"))
    sm.softmax(x, out)
    assert_softmax_close(out, before[:1000].view(10, 100), seed)
    assert torch.equal(b[:1000], before[:1000]) and torch.equal(after, before[2000:])


def test_refuses_a_negated_out():
    x = rand((4, 8))
    with pytest.raises(ValueError, match="softmax: out is a view with the negative bit"):
        sm.softmax(x, torch._neg_view(torch.empty_like(x)))


@pytest.mark.parametrize(
    "make_out, error, match",
    [
        (lambda: [0.0] * 64, TypeError, "out must be a torch.Tensor"),
        (lambda: rand((8, 9)), ValueError, "out must match x"),
        (lambda: rand(64), ValueError, "out must match x"),
        (lambda: rand((8, 8), torch.float16), ValueError, "out must match x"),
        (lambda: rand((8, 16))[:, :8], ValueError, "out must be contiguous"),
        (lambda: torch.empty(8, 8, device="meta"), ValueError, "out is a meta tensor"),
        (lambda: rand((8, 8)).to_sparse(), ValueError, "out must be a dense tensor"),
    ],
    ids=["not-tensor", "shape", "flat", "dtype", "strided", "meta", "sparse"],
)
def test_rejects_bad_out(make_out, error, match, monkeypatch):
    spies = [LaunchSpy(getattr(sm, name)) for name in KERNELS]
    for name, spy in zip(KERNELS, spies, strict=True):
        monkeypatch.setattr(sm, name, spy)
    with pytest.raises(error, match=f"^softmax: {match}"):
        sm.softmax(rand((8, 8)), make_out())
    assert all(spy.devices == [] for spy in spies)


# ---- devices ------------------------------------------------------------------------


def test_rejects_cpu_tensors_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(sm, "_INTERPRET", False)
    with pytest.raises(ValueError, match="softmax: x must be on a CUDA device"):
        sm.softmax(torch.ones(2, 8))


@requires_two_gpus
@pytest.mark.parametrize("n_cols", [1000, 40000], ids=["whole", "online"])
def test_runs_on_a_gpu_that_is_not_the_current_one(n_cols, monkeypatch):
    seed = fresh_seed()
    for name in KERNELS:
        monkeypatch.setattr(sm, name, LaunchSpy(getattr(sm, name), expect_device=1))
    with torch.cuda.device(0):
        x = rand((300, n_cols), device="cuda:1", scale=3.0).requires_grad_()
        dy = rand((300, n_cols), device="cuda:1")
        y = sm.softmax(x)
        y.backward(dy)
        assert torch.cuda.current_device() == 0  # the wrapper put it back
    assert y.device == x.device and x.grad.device == x.device
    assert_softmax_close(y.detach(), x.detach(), seed)
    assert_grad_close(x.grad, sm.reference_backward(y.detach(), dy).double(), y, dy, seed)
    assert sum(len(getattr(sm, name).devices) for name in KERNELS) == 2


@requires_two_gpus
def test_refuses_out_on_another_gpu():
    with pytest.raises(ValueError, match="softmax: out must match x"):
        sm.softmax(rand((4, 8), device="cuda:0"), rand((4, 8), device="cuda:1"))


# ---- knobs --------------------------------------------------------------------------


@pytest.mark.parametrize("knob", ["block_n", "num_warps", "programs_per_sm"])
@pytest.mark.parametrize("value", [True, 4.0, "4", np.int64(4)], ids=repr)
def test_knobs_must_be_exact_ints(knob, value):
    with pytest.raises(TypeError, match=f"softmax: {knob} must be an int or None"):
        sm.softmax(rand((4, 8)), **{knob: value})


@pytest.mark.parametrize("block_n", [0, -16, 8, 48, 1000, 131072, 2**70])
def test_rejects_bad_block_n(block_n):
    with pytest.raises(ValueError, match=r"block_n must be a power of two in \[16, 65536\]"):
        sm.softmax(rand((4, 8)), block_n=block_n)


@pytest.mark.parametrize("num_warps", [0, -1, 3, 64])
def test_rejects_bad_num_warps(num_warps):
    with pytest.raises(ValueError, match=r"num_warps must be a power of two in \[1, 32\]"):
        sm.softmax(rand((4, 8)), num_warps=num_warps)


@pytest.mark.parametrize("programs_per_sm", [0, -1, 33])
def test_rejects_bad_programs_per_sm(programs_per_sm):
    with pytest.raises(ValueError, match=r"programs_per_sm must be in \[1, 32\]"):
        sm.softmax(rand((4, 8)), programs_per_sm=programs_per_sm)


@pytest.mark.parametrize("block_n, num_warps", [(65536, 8), (8192, 1), (16384, 2)])
def test_rejects_too_many_values_per_thread(block_n, num_warps, monkeypatch):
    spies = [LaunchSpy(getattr(sm, name)) for name in KERNELS]
    for name, spy in zip(KERNELS, spies, strict=True):
        monkeypatch.setattr(sm, name, spy)
    with pytest.raises(ValueError, match=r"block_n=.*num_warps=.*more than 128.*spill"):
        sm.softmax(rand((4, 8)), block_n=block_n, num_warps=num_warps)
    assert all(spy.devices == [] for spy in spies)


# ---- hostile inputs: every check raises before anything is launched -------------------


@pytest.mark.parametrize(
    "make_x, error, match",
    [
        (lambda: [[1.0, 2.0]], TypeError, "x must be a torch.Tensor"),
        (lambda: rand((4, 8), torch.float64), TypeError, "x has dtype torch.float64"),
        (lambda: torch.arange(8, device=DEVICE), TypeError, "x has dtype torch.int64"),
        (
            lambda: torch.randn(4, 8, dtype=torch.complex64, device=DEVICE).conj(),
            TypeError,
            "x has dtype torch.complex64",
        ),
        (lambda: torch.empty(4, 8, device="meta"), ValueError, "x is a meta tensor"),
        (lambda: rand((4, 8)).to_sparse(), ValueError, "x must be a dense tensor"),
        (lambda: rand((4, 8)).to_sparse_csr(), ValueError, "x must be a dense tensor"),
    ],
    ids=["not-tensor", "float64", "int64", "conj-complex", "meta", "sparse-coo", "sparse-csr"],
)
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_rejects_bad_inputs(make_x, error, match, monkeypatch):
    spies = [LaunchSpy(getattr(sm, name)) for name in KERNELS]
    for name, spy in zip(KERNELS, spies, strict=True):
        monkeypatch.setattr(sm, name, spy)
    with pytest.raises(error, match=f"^softmax: {match}"):
        sm.softmax(make_x())
    assert all(spy.devices == [] for spy in spies)


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
