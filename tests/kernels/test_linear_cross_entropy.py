"""Fused linear cross-entropy against float64 torch autograd: the loss and both gradients
on ragged shapes (tokens not a multiple of the chunk, vocabulary not a multiple of the
tile), every dtype, both reductions, ignored rows, all rows ignored, and the refusals that
concern ``target`` (the contract row in test_contract.py builds its own valid targets).

Tolerances, derived. Let u be the dtype's unit roundoff (2**-24, 2**-11, 2**-8 for fp32,
fp16, bf16; for bf16 we take 2**-7, since the CPU interpreter truncates instead of
rounding to nearest). Rounding enters in four places:
1. the logits chunk is stored in x's dtype: each logit z is off by up to |z| u, so the
   logsumexp and logit[target] by up to zmax u each (zmax = the largest |logit|), and the
   loss by up to 2 zmax u;
2. the kernel's row statistics are float32 (u32 = 2**-24, negligible beside fp16/bf16);
3. the gradient (softmax - onehot) * scale is stored in x's dtype: relative u per entry,
   on top of the 2 zmax u that item 1 puts into softmax = exp(z - lse);
4. grad_x = dlogits @ weight is rounded once (torch accumulates in float32); grad_weight
   is accumulated in weight's dtype by one addmm per chunk, so rounded once per chunk.
Gradient entries near zero come from cancelling sums, so the gradients are compared
normwise: max |got - want| <= tol * max |want|, with tol = (2 zmax + chunks + 4) u (the
4: item 3, item 4's last rounding and a margin of 2). The loss: |got - want| <=
2 zmax u + u |want| (its own rounding to x's dtype). For fp32 u is 2**-24 but the matmuls
sum H products and the kernel V exponentials, each off by an ulp, so the float32 bounds
use 64 u per term instead.
"""

import pytest
import torch

from kernels import linear_cross_entropy as lce
from tests.support import DEVICE, ON_GPU, fresh_seed, nan_filled, rand, requires_gpu

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
UNIT = {torch.float32: 64 * 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-7}
SHAPES = [(37, 24, 50), (5, 7, 33)]  # (tokens, hidden, vocab): ragged against chunk and tile


@pytest.fixture(autouse=True)
def poisoned_empty(monkeypatch):
    """Every float tensor ``torch.empty``/``empty_like`` makes during a test is NaN, so a
    row's loss, a chunk of grad_x or a tile of logits that nothing writes shows up."""
    monkeypatch.setattr(torch, "empty", nan_filled(torch.empty))
    monkeypatch.setattr(torch, "empty_like", nan_filled(torch.empty_like))


def inputs(n, hidden, vocab, dtype, ignored=(), device=DEVICE):
    """x ~ N(0, 1) and weight ~ N(0, 4 / H), so logits are about N(0, 4): softmax far from
    uniform, zmax about 8; targets uniform, with the rows in ``ignored`` set to -100."""
    x = rand((n, hidden), dtype, device)
    w = rand((vocab, hidden), dtype, device, scale=2 / hidden**0.5)
    t = torch.randint(0, vocab, (n,), device=device)
    for i in ignored:
        t[i] = -100
    return x, w, t


def expected(x, w, t, ignore_index=-100, reduction="mean"):
    """Loss, grad_x and grad_weight in float64 by torch autograd, and zmax."""
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_()
    loss = torch.nn.functional.cross_entropy(
        x64 @ w64.T, t.long(), ignore_index=ignore_index, reduction=reduction
    )
    gx, gw = torch.autograd.grad(loss, (x64, w64)) if loss.isfinite() else (None, None)
    zmax = (x64 @ w64.T).abs().max().item()
    return loss.detach(), gx, gw, zmax


def assert_grad(got, want, tol, msg):
    assert not torch.isnan(got).any(), f"NaN in {msg} (unwritten?)"
    err = (got.double() - want).abs().max().item()
    scale = want.abs().max().item()
    assert err <= tol * scale, f"{msg}: max error {err:.3g} > {tol:.3g} * max |want| {scale:.3g}"


def grad_tol(x, w, zmax, chunks=None):
    """The gradients' error bound relative to their largest element: rounding in logits
    about zmax, one per chunk summed into grad_weight, and a few more."""
    if chunks is None:
        chunk = lce.plan(x.shape[0], w.shape[0], x.shape[1], x.get_device())[0]
        chunks = -(-x.shape[0] // chunk)
    return (2 * zmax + chunks + 4) * UNIT[x.dtype]


def check(x, w, t, *, reduction="mean", ignore_index=-100, chunks=None, msg=""):
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    loss = lce.linear_cross_entropy(xg, wg, t, ignore_index=ignore_index, reduction=reduction)
    assert loss.dtype == x.dtype and loss.shape == ()
    loss.backward()
    want, gx, gw, zmax = expected(x, w, t, ignore_index, reduction)
    u = UNIT[x.dtype]
    loss_tol = 2 * zmax * u + u * want.abs().item()
    assert abs(loss.double().item() - want.item()) <= loss_tol, f"loss {loss} vs {want} {msg}"
    tol = grad_tol(x, w, zmax, chunks)
    assert_grad(xg.grad, gx, tol, f"grad_x {msg}")
    assert_grad(wg.grad, gw, tol, f"grad_weight {msg}")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matches_float64_autograd(shape, dtype, reduction):
    seed = fresh_seed()
    n, hidden, vocab = shape
    chunk, block, _ = lce.plan(n, vocab, hidden, 0 if ON_GPU else -1)
    assert n % chunk or n < chunk or vocab % block, "the shape is not ragged"
    x, w, t = inputs(n, hidden, vocab, dtype, ignored=(1, n - 1))
    check(x, w, t, reduction=reduction, msg=f"{shape} {dtype} {reduction} seed={seed}")


@pytest.mark.parametrize("chunk", [1, 3, 8, 64])
def test_every_chunk_size_gives_the_same_answer(chunk):
    """``launch`` with chunks of 1 row, a ragged 3, 8, and one chunk for everything."""
    seed = fresh_seed()
    x, w, t = inputs(19, 10, 45, torch.float32, ignored=(4,))
    loss, gx, gw = lce.launch(x, w, t, chunk=chunk)
    want, wgx, wgw, zmax = expected(x, w, t)
    u = UNIT[torch.float32]
    assert abs(loss.item() - want.item()) <= 2 * zmax * u + u * want.item(), f"seed={seed}"
    tol = grad_tol(x, w, zmax, chunks=-(-19 // chunk))
    assert_grad(gx, wgx, tol, f"grad_x chunk={chunk} seed={seed}")
    assert_grad(gw, wgw, tol, f"grad_weight chunk={chunk} seed={seed}")


def test_ignore_index_may_be_a_class():
    """ignore_index = 0, a real class: rows with target 0 count for nothing."""
    seed = fresh_seed()
    x, w, t = inputs(21, 12, 40, torch.float32)
    t[::3] = 0
    check(x, w, t, ignore_index=0, msg=f"seed={seed}")


def test_int32_target():
    seed = fresh_seed()
    x, w, t = inputs(13, 8, 35, torch.float32, ignored=(2,))
    check(x, w, t.int(), msg=f"seed={seed}")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_every_row_ignored(reduction):
    """The mean of nothing is NaN, as torch gives (0 / 0), with zero gradients, again as
    torch's; the sum of nothing is 0."""
    x, w, _ = inputs(9, 8, 30, torch.float32)
    t = torch.full((9,), -100, device=DEVICE)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    loss = lce.linear_cross_entropy(xg, wg, t, reduction=reduction)
    want = torch.nn.functional.cross_entropy(x @ w.T, t, reduction=reduction)
    assert torch.equal(loss.isnan(), want.isnan()) and (loss.isnan() or loss.item() == 0.0)
    loss.backward()
    assert torch.equal(xg.grad, torch.zeros_like(x)) and torch.equal(wg.grad, torch.zeros_like(w))


def test_strided_inputs_are_read_in_place():
    """x as a transposed view and weight as every other column: any strides are fine."""
    seed = fresh_seed()
    x = rand((24, 37)).T
    w = rand((50, 48), scale=2 / 24**0.5)[:, ::2]
    t = torch.randint(0, 50, (37,), device=DEVICE)[torch.arange(37).flip(0)]
    check(x, w, t, msg=f"seed={seed}")


def test_gradient_scaled_by_the_incoming_gradient_and_one_backward_only():
    """backward multiplies the saved gradients by dloss (in place, to hold no second copy
    of grad_weight): a second backward through the same loss (retain_graph=True) is
    refused by name, not scaled twice."""
    seed = fresh_seed()
    x, w, t = inputs(11, 8, 30, torch.float32, ignored=(0,))
    xg = x.clone().requires_grad_()
    loss = lce.linear_cross_entropy(xg, w, t)
    (g1,) = torch.autograd.grad(loss * 3.0, xg, retain_graph=True)
    _, gx, _, zmax = expected(x, w, t)
    assert_grad(g1, 3 * gx, grad_tol(x, w, zmax), f"3 x grad_x seed={seed}")
    # and exactly three times the kernel's own gradient: one fp32 multiply, once
    (plain,) = torch.autograd.grad(lce.linear_cross_entropy(xg, w, t), xg)
    assert torch.equal(g1, plain * 3), f"seed={seed}"
    with pytest.raises(RuntimeError, match="^linear_cross_entropy: a second backward"):
        torch.autograd.grad(loss * 3.0, xg)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_backward_scale_reads_the_incoming_gradient_on_the_device(dtype):
    """launch_scale multiplies in place by a one-element tensor of any float dtype (in
    float32, rounded once), leaves the gradient's bits alone for 1, and covers a length
    that is not a multiple of its block."""
    n = lce.SCALE_BLOCK + 37
    g = rand((n,), dtype)
    want = g.clone()
    lce.launch_scale(g, torch.ones((), dtype=dtype, device=DEVICE))
    assert torch.equal(g, want), "scaled by 1: not the same bits"
    lce.launch_scale(g, torch.full((), -2.5, dtype=torch.float32, device=DEVICE))
    # Rounded to nearest on a GPU: torch's own float32 product, rounded, bit for bit. The
    # interpreter truncates float32 to bfloat16 instead: one unit in the last place.
    exact = ON_GPU or dtype != torch.bfloat16
    rtol = 0 if exact else 2.0**-7
    torch.testing.assert_close(g, (want.float() * -2.5).to(dtype), rtol=rtol, atol=0)


def test_no_gradients_without_grad():
    """Inputs that do not require grad: the loss alone, and launch computes no gradient."""
    x, w, t = inputs(10, 8, 30, torch.float32)
    loss = lce.linear_cross_entropy(x, w, t)
    assert not loss.requires_grad
    _, gx, gw = lce.launch(x, w, t, grads=(False, False))
    assert gx is None and gw is None


@pytest.mark.parametrize("bad", [30, 31, -1, -101, 2**40])
def test_target_out_of_range_is_refused(bad):
    x, w, t = inputs(6, 8, 30, torch.float32)
    t[3] = bad
    with pytest.raises(ValueError, match=rf"^linear_cross_entropy: target has {bad} .*\[0, 30\)"):
        lce.linear_cross_entropy(x, w, t)


@pytest.mark.parametrize(
    "make, error, says",
    [
        (lambda t: t.float(), TypeError, "target has dtype"),
        (lambda t: t.to(torch.int16), TypeError, "target has dtype"),
        (lambda t: t[:-1], ValueError, "target has shape"),
        (lambda t: t[:, None], ValueError, "target has shape"),
        (lambda t: t.tolist(), TypeError, "target must be a torch.Tensor"),
        (lambda t: torch.empty(t.shape, dtype=t.dtype, device="meta"), ValueError, "target is a"),
    ],
    ids=["float", "int16", "short", "column", "list", "meta"],
)
def test_target_refused_by_name(make, error, says):
    x, w, t = inputs(6, 8, 30, torch.float32)
    with pytest.raises(error, match=f"^linear_cross_entropy: {says}"):
        lce.linear_cross_entropy(x, w, make(t))


@pytest.mark.parametrize("reduction", ["none", "MEAN", None])
def test_reduction_refused_by_name(reduction):
    x, w, t = inputs(6, 8, 30, torch.float32)
    with pytest.raises(ValueError, match="^linear_cross_entropy: reduction must be"):
        lce.linear_cross_entropy(x, w, t, reduction=reduction)


def test_plan_bounds_the_logits_chunk():
    """Chunks are powers of two (or all the rows), CHUNK_ROWS at most, and the logits chunk
    never holds more than MAX_CHUNK_ELEMENTS unless MIN_CHUNK rows do; the tile covers the
    vocabulary in steps."""
    for n, vocab, hidden in [(4096, 128256, 4096), (8192, 128256, 4096), (300, 2**22, 64)]:
        chunk, block, _ = lce.plan(n, vocab, hidden, 0)
        assert chunk & (chunk - 1) == 0 and chunk <= min(n, lce.CHUNK_ROWS)
        assert chunk * vocab <= max(lce.MAX_CHUNK_ELEMENTS, lce.MIN_CHUNK * vocab)
        assert block == lce.MAX_BLOCK
    assert lce.plan(8192, 128256, 4096, 0)[0] == 1024  # 1024 x 128256 x 2 bytes = 250.5 MiB
    assert lce.plan(300, 2**22, 64, 0)[0] == 64  # 2**28 elements: 64 rows of 2**22
    assert lce.plan(3, 50, 24, -1)[0] == 3  # fewer rows than a chunk: one chunk


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gpu_vocabulary_wider_than_a_tile(dtype):
    """On the GPU the tile is MAX_BLOCK columns: a vocabulary of 20000 takes two, ragged,
    over 300 tokens, in one chunk (the plan's) and in chunks of 64 rows (launch's)."""
    assert lce.plan(300, 20000, 64, 0)[1] == lce.MAX_BLOCK < 20000 < 2 * lce.MAX_BLOCK
    seed = fresh_seed()
    x, w, t = inputs(300, 64, 20000, dtype, ignored=(0, 7, 299))
    check(x, w, t, msg=f"{dtype} seed={seed}")
    loss, gx, gw = lce.launch(x, w, t, chunk=64)
    want, wgx, wgw, zmax = expected(x, w, t)
    u = UNIT[dtype]
    assert abs(loss.double().item() - want.item()) <= 2 * zmax * u + u * want.abs().item()
    tol = grad_tol(x, w, zmax, chunks=5)  # 300 rows in chunks of 64
    assert_grad(gx, wgx, tol, f"grad_x chunk=64 {dtype} seed={seed}")
    assert_grad(gw, wgw, tol, f"grad_weight chunk=64 {dtype} seed={seed}")


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_no_rows(reduction):
    """No tokens at all: as torch, the mean of nothing is NaN and the sum 0; the gradients
    are an empty grad_x and a zero grad_weight, and no kernel needs to run."""
    x, w, t = inputs(0, 8, 30, torch.float32)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    loss = lce.linear_cross_entropy(xg, wg, t, reduction=reduction)
    want = torch.nn.functional.cross_entropy(x @ w.T, t, reduction=reduction)
    assert torch.equal(loss.isnan(), want.isnan()) and (loss.isnan() or loss.item() == 0.0)
    loss.backward()
    assert xg.grad.shape == (0, 8) and torch.equal(wg.grad, torch.zeros_like(w))
