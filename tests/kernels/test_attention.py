"""Flash Attention forward and backward against a float64 reference with the N x N scores
materialised: every head dimension, both dtypes, causal and not, ragged and unequal sequence
lengths, several tile shapes, inputs whose memory past the end is NaN, the causal mask
checked exactly (what a query must not see cannot change its output), autograd's corners.
(The wrapper contract, refusals included, is tested in test_contract.py.)"""

import ast
import inspect
import math
import pathlib
import textwrap

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from kernels import attention as at
from tests.kernels.attention_support import (
    DTYPES,
    causal_mask,
    check,
    diag_of,
    hide_keys_from,
    nan_padded,
    qkv,
)
from tests.support import (
    DEVICE,
    ON_GPU,
    LaunchSpy,
    big_gpu_memory,
    fresh_seed,
    poisoned_empty,  # noqa: F401 (autouse: every torch.empty is NaN)
    rand,
    requires_gpu,
)

KERNELS = (
    "attn_fwd_kernel",
    "attn_bwd_preprocess_kernel",
    "attn_bwd_dkdv_kernel",
    "attn_bwd_dq_kernel",
)
# The tolerances of the output and the gradients: tests/kernels/attention_support.py.


def reference_all(q, k, v, do, causal, scale=None):
    """o, dq, dk, dv in float64, by torch autograd through ``reference``."""
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    o64 = at.reference(q64, k64, v64, causal=causal, scale=scale)
    grads = torch.autograd.grad(o64, (q64, k64, v64), do.double(), allow_unused=True)
    grads = [
        torch.zeros_like(t) if g is None else g for g, t in zip(grads, (q64, k64, v64), strict=True)
    ]
    # dS = P * (dP - delta) subtracts two numbers the kernel has only to within u of their
    # own size: where one key takes nearly all of a row (a sharp softmax, a large scale),
    # dP and delta nearly cancel and dS is far smaller than its rounding error. So each
    # element of dq and dk is held to 4u times the size of the terms summed into it (P and dS
    # are rounded to the dtype once each, o once before delta),
    # scale * (P * (|dO| |v|^T + sum |dO * o|)) times |k| or |q|, never below the element itself.
    q_, k_, v_ = (t.detach().double() for t in (q, k, v))
    eye = torch.eye(k.shape[2], dtype=torch.float64, device=q.device)
    p = at.reference(q_, k_, eye, causal=causal, scale=scale)  # the probabilities P
    if scale is None:
        scale = q.shape[-1] ** -0.5
    do64 = do.double()
    dp = do64.abs() @ v_.abs().transpose(-2, -1)  # the size of dP's terms, and of delta's
    delta = (do64 * o64.detach()).abs().sum(-1, keepdim=True)
    terms = abs(scale) * p * (dp + delta)
    grads[0].bound = terms @ k_.abs()
    grads[1].bound = terms.transpose(-2, -1) @ q_.abs()
    return (o64.detach(), *grads)


def forward_backward(q, k, v, do, causal, scale=None):
    """o, dq, dk, dv from attention and autograd."""
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o = at.attention(q, k, v, causal=causal, scale=scale)
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do)
    return o.detach(), dq, dk, dv


def check_all(got, expected, seed, what=""):
    for g, e, name in zip(got, expected, ("o", "dq", "dk", "dv"), strict=True):
        check(g, e, f"{name} {what}", seed, gradient=name != "o")


# (n_q, n_k): one element, shorter than one 16-row tile, ragged over several tiles, more
# queries than keys and fewer (with causal, the top-left mask then cuts a corner).
SHAPES = [(1, 1), (17, 17), (40, 23), (23, 40)]


# --8<-- [start:ragged]
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", at.HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", SHAPES, ids=str)
def test_forward_and_backward_match_float64(n_q, n_k, dtype, d, causal):
    seed = fresh_seed()  # fresh random inputs every run
    q, k, v = qkv(2, 3, n_q, n_k, d, dtype)
    do = rand((2, 3, n_q, d), dtype)
    # torch.empty is NaN-filled in this file (poisoned_empty): unwritten elements fail.
    got = forward_backward(q, k, v, do, causal)
    check_all(got, reference_all(q, k, v, do, causal), seed)


# --8<-- [end:ragged]


# Tile shapes the interpreter's default (16, 16) does not reach: more query rows than key
# columns (the diagonal spans two or four key blocks), fewer, and the GPU's own shapes.
CONFIGS = [(32, 16), (16, 32), (64, 16), (16, 64), (64, 64)]


@pytest.mark.parametrize("block_m, block_n", CONFIGS, ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("n_q, n_k", [(129, 129), (100, 37), (37, 100)], ids=str)
def test_every_tile_shape_walks_the_diagonal_right(block_m, block_n, causal, n_q, n_k):
    """The forward, dK/dV and dQ kernels with the given tiles (dK/dV and dQ swap them,
    since dK/dV walks queries inside): 129 = 8 x 16 + 1 leaves a one-row last tile."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, 32, torch.float16)
    do = rand((1, 2, n_q, 32), torch.float16)
    config = (block_m, block_n, 4, 2)
    o, lse = at.launch_forward(q, k, v, causal, 32**-0.5, config=config)
    dq, dk, dv = at.launch_backward(
        do, q, k, v, o, lse, causal, 32**-0.5, dkdv_config=config, dq_config=config
    )
    check_all((o, dq, dk, dv), reference_all(q, k, v, do, causal), seed, str(config))


def test_a_long_sequence_with_gpu_sized_tiles():
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 1000, 1000, 64, torch.bfloat16)
    do = rand((1, 1, 1000, 64), torch.bfloat16)
    config = (64, 64, 4, 2)
    o, lse = at.launch_forward(q, k, v, True, 0.125, config=config)
    dq, dk, dv = at.launch_backward(do, q, k, v, o, lse, True, 0.125, config, config)
    check_all((o, dq, dk, dv), reference_all(q, k, v, do, True), seed)


def test_reference_is_torch_sdpa():
    """The definition this file uses is PyTorch's: scale, top-left causal mask with
    n_q != n_k, zeros when there is no key."""
    seed = fresh_seed()
    for n_q, n_k in [(5, 5), (7, 3), (3, 7), (4, 0)]:
        q, k, v = qkv(2, 2, n_q, n_k, 16, torch.float64)
        for causal in (False, True):
            for scale in (None, 0.3):
                expected = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                got = at.reference(q, k, v, causal=causal, scale=scale)
                torch.testing.assert_close(got, expected, msg=f"{n_q, n_k, causal}, seed={seed}")


# ---- causal alignment: top-left (SDPA's is_causal) and bottom-right (decoding) -------------


def sdpa_all(q, k, v, do, mask):
    """o, dq, dk, dv in float64 from SDPA itself, given an explicit boolean mask (SDPA
    gives a row with no True zeros, and no gradient)."""
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    o64 = F.scaled_dot_product_attention(q64, k64, v64, attn_mask=mask)
    return (o64.detach(), *torch.autograd.grad(o64, (q64, k64, v64), do.double()))


def test_reference_is_sdpa_with_an_explicit_mask_both_ways():
    """Both alignments of ``reference``, gradients too, against SDPA given the mask as a
    boolean tensor, including rows that see no key (bottom-right, n_q > n_k)."""
    seed = fresh_seed()
    for n_q, n_k in [(5, 5), (7, 3), (3, 7), (1, 6)]:
        q, k, v = qkv(2, 2, n_q, n_k, 16, torch.float64)
        do = rand((2, 2, n_q, 16), torch.float64)
        for causal in (True, "top_left", "bottom_right"):
            expected = sdpa_all(q, k, v, do, causal_mask(causal, n_q, n_k))
            for got, want in zip(reference_all(q, k, v, do, causal), expected, strict=True):
                torch.testing.assert_close(got, want, msg=f"{n_q, n_k, causal}, seed={seed}")


# (n_q, n_k): decode-like (one query, a few over many keys), equal, more queries than keys
# (bottom-right then leaves the first n_q - n_k rows with no key), all ragged on 16 tiles.
ALIGNMENT_SHAPES = [(1, 7), (5, 40), (23, 23), (40, 23), (37, 5), (17, 50)]


@pytest.mark.parametrize("causal", ["top_left", "bottom_right"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", ALIGNMENT_SHAPES, ids=str)
def test_both_alignments_match_sdpa_with_an_explicit_mask(n_q, n_k, dtype, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 2, n_q, n_k, 32, dtype)
    do = rand((2, 2, n_q, 32), dtype)
    got = forward_backward(q, k, v, do, causal)
    check_all(got, sdpa_all(q, k, v, do, causal_mask(causal, n_q, n_k)), seed, causal)


@pytest.mark.parametrize("block_m, block_n", [(32, 16), (16, 32), (64, 16), (16, 64)], ids=str)
@pytest.mark.parametrize("n_q, n_k", [(100, 37), (37, 100), (129, 129)], ids=str)
def test_bottom_right_with_every_tile_shape(block_m, block_n, n_q, n_k):
    """The bottom-right bounds with tiles the interpreter's (16, 16) does not reach: the
    diagonal then starts part-way into a block, and with n_q > n_k whole query blocks
    see nothing."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, 32, torch.float16)
    do = rand((1, 2, n_q, 32), torch.float16)
    config = (block_m, block_n, 4, 2)
    o, lse = at.launch_forward(q, k, v, "bottom_right", 32**-0.5, config=config)
    dq, dk, dv = at.launch_backward(
        do, q, k, v, o, lse, "bottom_right", 32**-0.5, dkdv_config=config, dq_config=config
    )
    expected = sdpa_all(q, k, v, do, causal_mask("bottom_right", n_q, n_k))
    check_all((o, dq, dk, dv), expected, seed, str(config))


def test_causal_true_is_top_left():
    """``causal=True`` keeps today's meaning, SDPA's is_causal: the same bits as
    "top_left", and different from "bottom_right" when n_q != n_k."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 9, 30, 16, torch.float16)
    do = rand((1, 2, 9, 16), torch.float16)
    true, top_left = (forward_backward(q, k, v, do, c) for c in (True, "top_left"))
    for a, b, name in zip(true, top_left, ("o", "dq", "dk", "dv"), strict=True):
        assert torch.equal(a, b), f"{name}: causal=True is not 'top_left', seed={seed}"
    bottom_right = at.attention(q, k, v, causal="bottom_right")
    assert not torch.equal(true[0], bottom_right)


def test_one_decode_query_sees_every_key_only_bottom_right():
    """One new query against a cache of 7 keys: bottom-right lets it see all 7 (the same
    as no mask at all), top-left only key 0, so its output is exactly v[0]. Copying the
    top-left kernel into a decoder gives that, silently."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 1, 7, 16, torch.float16)
    decoded = at.attention(q, k, v, causal="bottom_right")
    assert torch.equal(decoded, at.attention(q, k, v)), f"seed={seed}"
    assert torch.equal(at.attention(q, k, v, causal=True), v[:, :, :1]), f"seed={seed}"


@pytest.mark.parametrize("n_q, n_k", [(40, 23), (37, 5), (20, 1)], ids=str)
def test_a_query_that_sees_no_key_gives_zeros_and_no_gradient(n_q, n_k):
    """Bottom-right with n_q > n_k: the first n_q - n_k queries see no key. Their outputs
    and their dQ are exactly zero (as SDPA gives with an explicit boolean mask), nothing
    is NaN, and changing them (or their upstream gradient) changes no dK or dV bit."""
    seed = fresh_seed()
    blind = n_q - n_k
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    do = rand((1, 2, n_q, 16), torch.float16)
    o, dq, dk, dv = forward_backward(q, k, v, do, "bottom_right")
    for t, name in ((o, "o"), (dq, "dq"), (dk, "dk"), (dv, "dv")):
        assert not torch.isnan(t).any(), f"{name} has NaN, seed={seed}"
    assert torch.equal(o[:, :, :blind], torch.zeros_like(o[:, :, :blind])), f"seed={seed}"
    assert torch.equal(dq[:, :, :blind], torch.zeros_like(dq[:, :, :blind])), f"seed={seed}"
    assert (o[:, :, blind:] != 0).any()  # the rows that see keys are not zeroed
    q2, do2 = q.clone(), do.clone()
    q2[:, :, :blind] = 100.0
    do2[:, :, :blind] = -7.0
    _, _, dk2, dv2 = forward_backward(q2, k, v, do2, "bottom_right")
    assert torch.equal(dk, dk2) and torch.equal(dv, dv2), f"a blind query moved dk/dv, seed={seed}"


# ---- the minimal forward: divisible sizes (lesson 12 starts there) -----------------------

# bf16 only on a GPU: the interpreter multiplies bf16 tiles as raw bit patterns, and the
# minimal kernel has no UPCAST branch to route them through float32.
BF16_DOT_NEEDS_A_GPU = pytest.mark.skipif(
    not ON_GPU, reason="the interpreter multiplies bf16 tiles as raw bit patterns"
)
MINIMAL_DTYPES = [torch.float16, pytest.param(torch.bfloat16, marks=BF16_DOT_NEEDS_A_GPU)]


@pytest.mark.parametrize("dtype", MINIMAL_DTYPES, ids=str)
@pytest.mark.parametrize(
    "n_q, n_k, d, blocks",
    [(16, 16, 16, (16, 16)), (32, 64, 32, (16, 16)), (64, 32, 64, (32, 16)),
     (48, 80, 128, (16, 16)), (64, 64, 16, (64, 64))],
    ids=str,
)  # fmt: skip
def test_minimal_matches_float64_on_divisible_sizes(n_q, n_k, d, blocks, dtype):
    seed = fresh_seed()
    q, k, v = qkv(2, 3, n_q, n_k, d, dtype)
    o = at.attention_minimal(q, k, v, *blocks)  # its output comes from a NaN-filled empty
    assert o.shape == q.shape and o.dtype == dtype
    check(o, at.reference(q, k, v).double(), f"minimal {blocks}", seed)


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("d", at.HEAD_DIMS)
def test_minimal_at_a_realistic_size(d, dtype):
    seed = fresh_seed()
    q, k, v = qkv(2, 4, 1024, 2048, d, dtype)
    check(at.attention_minimal(q, k, v), at.reference(q, k, v).double(), "minimal", seed)


def test_minimal_never_writes_a_ragged_last_block_of_queries():
    """n_q = 40 on 16-row blocks: the grid has 40 // 16 = 2 blocks, so queries 32..39 are
    never computed (their output stays NaN here). The full kernel masks and writes them."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 40, 32, 16, torch.float16)
    o = at.attention_minimal(q, k, v, 16, 16)
    check(o[:, :, :32], at.reference(q[:, :, :32], k, v).double(), "first 32 rows", seed)
    assert torch.isnan(o[:, :, 32:]).all(), "rows past the last whole block were written"
    check(at.attention(q, k, v), at.reference(q, k, v).double(), "full kernel", seed)


# ---- the tile matmuls each pair of blocks costs, counted in the source ---------------------


def tl_dot_calls(section: str) -> int:
    """``tl.dot`` calls in a snippet section of kernels/attention.py, read with ast: each
    sits in a loop body that runs once per (query block, key block) pair."""
    text = pathlib.Path(at.__file__).read_text()
    start = text.index(f"# --8<-- [start:{section}]")
    end = text.index(f"# --8<-- [end:{section}]")
    tree = ast.parse(text[start:end])
    return sum(
        isinstance(node, ast.Call) and ast.unparse(node.func) == "tl.dot" for node in ast.walk(tree)
    )


def test_tile_matmul_counts_are_the_kernels():
    """FORWARD_TILE_MATMULS and BACKWARD_TILE_MATMULS, which the lesson and the figures
    quote (7 against FlashAttention-2's 5), are the tl.dot calls the kernels make; and each
    step function, which the kernels call once per pair, holds its share (no tl.dot sits
    outside them)."""
    assert tl_dot_calls("forward") == at.FORWARD_TILE_MATMULS == 2
    assert tl_dot_calls("backward") == at.BACKWARD_TILE_MATMULS == 7
    steps = {"_attn_fwd_steps": 2, "_attn_dkdv_steps": 4, "_attn_dq_steps": 3}
    for name, count in steps.items():
        fn = ast.parse(textwrap.dedent(inspect.getsource(getattr(at, name).fn)))
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
        assert sum(ast.unparse(c.func) == "tl.dot" for c in calls) == count, name


# ---- exact tests: no tolerance -----------------------------------------------------------


# (n_q, n_k, causal, cut): ``cut`` is a query in the first test and a key in the second,
# chosen so that on both sides of it some queries see some keys. causal=True is top-left.
QUERY_CUTS = [(40, 40, True, 17), (50, 30, True, 9), (30, 50, True, 16),
              (40, 40, "bottom_right", 17), (50, 30, "bottom_right", 29),
              (30, 50, "bottom_right", 16)]  # fmt: skip
KEY_CUTS = [(40, 40, True, 17), (50, 30, True, 9), (30, 50, True, 16),
            (40, 40, "bottom_right", 17), (50, 30, "bottom_right", 9),
            (30, 50, "bottom_right", 36)]  # fmt: skip


@pytest.mark.parametrize("n_q, n_k, causal, cut", QUERY_CUTS, ids=str)
def test_causal_queries_never_see_later_keys(n_q, n_k, causal, cut):
    """Keys and values from ``cut + diag`` on are replaced by large ones: the output of
    every query before ``cut`` must stay the same to the bit (their probability is
    exactly 0), and the dQ of those queries too."""
    seed = fresh_seed()
    first_hidden = cut + diag_of(causal, n_q, n_k)  # the first key query cut - 1 misses
    assert 0 < first_hidden < n_k
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    do = rand((1, 2, n_q, 16), torch.float16)
    k2, v2 = hide_keys_from(k, v, first_hidden)
    o1, dq1, _, _ = forward_backward(q, k, v, do, causal)
    o2, dq2, _, _ = forward_backward(q, k2, v2, do, causal)
    assert torch.equal(o1[:, :, :cut], o2[:, :, :cut]), f"a query saw a later key, seed={seed}"
    assert torch.equal(dq1[:, :, :cut], dq2[:, :, :cut]), f"dq saw a later key, seed={seed}"
    assert not torch.equal(o1[:, :, cut:], o2[:, :, cut:])  # the change does reach later rows


@pytest.mark.parametrize("n_q, n_k, causal, cut", KEY_CUTS, ids=str)
def test_causal_keys_get_no_gradient_from_earlier_queries(n_q, n_k, causal, cut):
    """Queries and upstream gradients before ``cut - diag`` are changed: dK and dV of
    every key from ``cut`` on must stay the same to the bit (no earlier query sees those
    keys)."""
    seed = fresh_seed()
    changed = cut - diag_of(causal, n_q, n_k)  # queries before it see no key from cut on
    assert 0 < changed < n_q
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    do = rand((1, 2, n_q, 16), torch.float16)
    q2, do2 = q.clone(), do.clone()
    q2[:, :, :changed] = rand((1, 2, changed, 16), torch.float16)
    do2[:, :, :changed] = 5.0
    _, _, dk1, dv1 = forward_backward(q, k, v, do, causal)
    _, _, dk2, dv2 = forward_backward(q2, k, v, do2, causal)
    assert torch.equal(dk1[:, :, cut:], dk2[:, :, cut:]), f"dk from an earlier query, seed={seed}"
    assert torch.equal(dv1[:, :, cut:], dv2[:, :, cut:]), f"dv from an earlier query, seed={seed}"
    assert not torch.equal(dk1[:, :, :cut], dk2[:, :, :cut])  # earlier keys do change


@pytest.mark.parametrize(
    "causal", [False, True, "bottom_right"], ids=["full", "causal", "bottom_right"]
)
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (23, 40), (40, 23), (1, 5)], ids=str)
def test_no_read_past_the_last_row(n_q, n_k, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 2, n_q, n_k, 32, torch.float16)
    do = rand((2, 2, n_q, 32), torch.float16)
    expected = reference_all(q, k, v, do, causal)
    q, k, v, do = (nan_padded(t) for t in (q, k, v, do))
    check_all(forward_backward(q, k, v, do, causal), expected, seed, "(NaN past the end)")


def test_backward_is_deterministic():
    """No atomics: each dK/dV and dQ element is summed by one program in a fixed order."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 45, 45, 32, torch.bfloat16)
    do = rand((1, 2, 45, 32), torch.bfloat16)
    first = forward_backward(q, k, v, do, True)
    again = forward_backward(q, k, v, do, True)
    for a, b, name in zip(first, again, ("o", "dq", "dk", "dv"), strict=True):
        assert torch.equal(a, b), f"{name} changed between runs, seed={seed}"


# ---- no key at all, and empty inputs -------------------------------------------------------


def spies(monkeypatch, expect_device=None):
    found = {}
    for name in KERNELS:
        found[name] = LaunchSpy(getattr(at, name), expect_device)
        monkeypatch.setattr(at, name, found[name])
    return found


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_no_key_gives_zeros_as_sdpa_does(causal, monkeypatch):
    """n_k = 0: every row is a softmax over nothing. SDPA returns zeros there (its 'safe'
    softmax); so does attention, without a launch, and every gradient is zero."""
    launched = spies(monkeypatch)
    q, k, v = qkv(2, 3, 5, 0, 16, torch.float16)
    q.requires_grad_()
    o = at.attention(q, k, v, causal=causal)
    expected = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
    assert torch.equal(o.double(), expected) and torch.equal(o, torch.zeros_like(o))
    o.sum().backward()
    assert torch.equal(q.grad, torch.zeros_like(q))
    assert all(spy.devices == [] for spy in launched.values())


# ---- layouts, scale, autograd --------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.transpose(1, 2).contiguous().transpose(1, 2),  # stored (B, N, H, d)
        lambda t: torch.cat([t, t], dim=-1)[..., ::2],  # head_dim with a stride of 2
        lambda t: t[:, :1].expand(t.shape),  # every head the same memory (stride 0)
        lambda t: t.transpose(2, 3).contiguous().transpose(2, 3),  # stored (B, H, d, N)
    ],
    ids=["bnhd", "strided-d", "expanded-heads", "transposed"],
)
def test_accepts_any_strides(make):
    seed = fresh_seed()
    q, k, v = (make(t) for t in qkv(2, 3, 21, 19, 32, torch.float16))
    do = make(rand((2, 3, 21, 32), torch.float16))
    for causal in (False, True):
        got = forward_backward(q, k, v, do, causal)
        check_all(got, reference_all(q, k, v, do, causal), seed, f"causal={causal}")


def test_gradient_reaches_a_strided_input_itself():
    """q, k, v as slices of one packed (B, N, 3, H, d) projection, as a model has them."""
    seed = fresh_seed()
    packed = rand((2, 20, 3, 2, 16), torch.float16).requires_grad_()
    q, k, v = (packed[:, :, i].transpose(1, 2) for i in range(3))
    do = rand((2, 2, 20, 16), torch.float16)
    at.attention(q, k, v, causal=True).backward(do)
    _, dq64, dk64, dv64 = reference_all(q, k, v, do, True)
    for i, (ref, name) in enumerate(((dq64, "dq"), (dk64, "dk"), (dv64, "dv"))):
        check(packed.grad[:, :, i].transpose(1, 2), ref, name, seed, gradient=True)


@pytest.mark.parametrize(
    "make_do",
    [
        lambda shape: torch.ones((), dtype=torch.float16, device=DEVICE).expand(shape),
        lambda shape: rand(shape[:2] + shape[2:][::-1], torch.float16).transpose(2, 3),
        lambda shape: torch._neg_view(rand(shape, torch.float16)),
    ],
    ids=["expanded", "transposed", "negative-bit"],
)
def test_upstream_gradient_in_any_layout(make_do):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 18, 18, 16, torch.float16)
    do = make_do((1, 2, 18, 16))
    got = forward_backward(q, k, v, do, True)
    check_all(got, reference_all(q, k, v, do.clone(), True), seed)


@pytest.mark.parametrize("scale", [0.3, 1, 2.5], ids=repr)
def test_scale(scale):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 20, 20, 32, torch.float16)
    do = rand((1, 2, 20, 32), torch.float16)
    got = forward_backward(q, k, v, do, True, scale)
    check_all(got, reference_all(q, k, v, do, True, scale), seed, f"scale={scale}")


# ---- realistic sizes on a GPU --------------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize(
    "d, dtype", [(16, torch.bfloat16), (32, torch.bfloat16), (64, torch.bfloat16),
                 (128, torch.bfloat16), (64, torch.float16), (128, torch.float16)], ids=str,
)  # fmt: skip
@pytest.mark.parametrize("n_q, n_k", [(1000, 1000), (2048, 2048), (777, 1500)], ids=str)
def test_realistic_sizes(n_q, n_k, d, dtype, causal):
    """The tables' tiles (FORWARD_CONFIG, DKDV_CONFIG, DQ_CONFIG) at every head dim."""
    seed = fresh_seed()
    q, k, v = qkv(2, 4, n_q, n_k, d, dtype)
    do = rand((2, 4, n_q, d), dtype)
    check_all(forward_backward(q, k, v, do, causal), reference_all(q, k, v, do, causal), seed)


@requires_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n_q, n_k", [(1, 1500), (130, 1500), (777, 1500), (1500, 777)], ids=str)
def test_bottom_right_at_realistic_sizes(n_q, n_k, d, dtype):
    """Decoding and chunked prefill against a longer cache (and more queries than keys)
    with the GPU's own tiles, against SDPA given the bottom-right mask explicitly."""
    seed = fresh_seed()
    q, k, v = qkv(1, 4, n_q, n_k, d, dtype)
    do = rand((1, 4, n_q, d), dtype)
    expected = sdpa_all(q, k, v, do, causal_mask("bottom_right", n_q, n_k))
    check_all(forward_backward(q, k, v, do, "bottom_right"), expected, seed)


@big_gpu_memory
@requires_gpu
def test_offsets_past_int32():
    """q, k, v of 2**31 elements each (batch 16384 x 1024 x 128): int32 batch offsets
    would wrap in the second half. The first and last batch entries are checked."""
    seed = fresh_seed()
    shape = (16384, 1, 1024, 128)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    do = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    got = forward_backward(q, k, v, do, True)
    for b in (0, shape[0] - 1):
        pick = [t[b : b + 1] for t in (q, k, v, do)]
        check_all([t[b : b + 1] for t in got], reference_all(*pick, True), seed, f"batch {b}")


# ---- refusals: every check raises before anything is launched ------------------------------


def t4(shape=(1, 2, 8, 16), dtype=torch.float16):
    return rand(shape, dtype)


def test_positional_knobs_are_refused():
    """causal and scale are keyword-only, as SDPA's scale is: a stray positional True
    cannot be taken for a mask or a dropout probability."""
    with pytest.raises(TypeError):
        at.attention(t4(), t4(), t4(), True)


def test_scale_accepts_float_subclasses():
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 9, 9, 16, torch.float16)
    got = at.attention(q, k, v, scale=np.float64(0.5))  # np.float64 subclasses float
    check(got, at.reference(q, k, v, scale=0.5).double(), "o", seed)


def test_default_scale_is_one_over_sqrt_d():
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 9, 9, 64, torch.float16)
    check(at.attention(q, k, v), at.reference(q, k, v, scale=1 / math.sqrt(64)).double(), "o", seed)
