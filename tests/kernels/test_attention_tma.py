"""The TMA flash attention (kernels/attention_tma.py), forward and backward, against a
float64 reference with the N x N scores materialised (the backward against torch autograd
through it): every head dimension, both dtypes, no mask and both causal alignments,
ragged and unequal sequence lengths, grouped-query heads, several tile shapes (warp
specialisation and dQ by atomics included), inputs whose memory past the end is NaN, the
causal mask checked exactly, layouts read in place and layouts copied. (The wrapper
contract, refusals included, is tested in test_contract.py.)

Under the CPU interpreter everything here runs except the realistic sizes: the
interpreter reads host ``TensorDescriptor``s in software (zero-filled rows past the end
on loads, clipped rows on stores, as the TMA unit does), and it runs a
``warp_specialize=True`` loop as a plain loop, so only its result, not its schedule, is
tested on the CPU."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from kernels import attention_tma as at
from tests.kernels import attention_support
from tests.kernels.attention_support import (
    CAUSAL,
    CAUSAL_IDS,
    DTYPES,
    UNIT,
    causal_mask,
    check,
    diag_of,
    hide_keys_from,
    nan_padded,
    qkv,
)
from tests.support import (
    DEVICE,
    LaunchSpy,
    fresh_seed,
    poisoned_empty,  # noqa: F401 (autouse: every torch.empty is NaN)
    rand,
    requires_gpu,
)


def reference64(q, k, v, causal, scale=None):
    """The float64 result, unrounded: ``reference`` on float64 copies."""
    return attention_support.reference64(at.reference, q, k, v, causal=causal, scale=scale)


# Tolerances: tests/kernels/attention_support.py.
# (n_q, n_k): one element, shorter than one 16-row tile, ragged over several tiles, more
# queries than keys and fewer.
SHAPES = [(1, 1), (17, 17), (40, 23), (23, 40)]


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("d", at.HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", SHAPES, ids=str)
def test_forward_matches_float64(n_q, n_k, dtype, d, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 3, n_q, n_k, d, dtype)
    # torch.empty is NaN-filled in this file (poisoned_empty): unwritten elements fail.
    got = at.attention_tma(q, k, v, causal=causal)
    assert got.is_contiguous() and got.dtype == dtype
    check(got, reference64(q, k, v, causal), f"d={d} {causal}", seed)


# Tiles the interpreter's (16, 16) does not reach: more query rows than key columns (the
# diagonal spans several key blocks), fewer, the GPU's own, and warp specialisation on.
CONFIGS = [(32, 16, 4, 2, False), (16, 32, 4, 2, False), (64, 16, 4, 2, False),
           (16, 64, 4, 2, False), (64, 64, 4, 2, False), (32, 32, 4, 2, True)]  # fmt: skip


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("n_q, n_k", [(129, 129), (100, 37), (37, 100)], ids=str)
def test_every_tile_shape_walks_the_diagonal_right(config, causal, n_q, n_k):
    """129 = 8 x 16 + 1 leaves a one-row last tile of queries and of keys."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, 32, torch.float16)
    got = at.launch(q, k, v, causal, 32**-0.5, config=config)
    check(got, reference64(q, k, v, causal, 32**-0.5), str(config), seed)


def test_a_long_sequence_with_gpu_sized_tiles():
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 1000, 1000, 64, torch.bfloat16)
    got = at.launch(q, k, v, True, 0.125, config=(64, 64, 4, 2, False))
    check(got, reference64(q, k, v, True, 0.125), "1000 x 1000", seed)


def test_plan_has_a_config_for_every_head_dim():
    """Five values for every supported head dim, tiles that tl.dot and TMA take."""
    for d in at.HEAD_DIMS:
        block_m, block_n, warps, stages, ws = at.FORWARD_CONFIG[d]
        assert block_m >= 16 and block_n >= 16 and warps in (4, 8) and stages >= 1, d
        assert block_m & (block_m - 1) == 0 and block_n & (block_n - 1) == 0, d
        assert isinstance(ws, bool), d
    assert len(at.plan(64)) == 5


# ---- causal alignment: top-left (SDPA's is_causal) and bottom-right (decoding) -------------

ALIGNMENT_SHAPES = [(1, 7), (5, 40), (23, 23), (40, 23), (37, 5), (17, 50)]


@pytest.mark.parametrize("causal", ["top_left", "bottom_right"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", ALIGNMENT_SHAPES, ids=str)
def test_both_alignments_match_sdpa_with_an_explicit_mask(n_q, n_k, dtype, causal):
    """SDPA given the boolean mask (a row with no True gives zeros there)."""
    seed = fresh_seed()
    q, k, v = qkv(2, 2, n_q, n_k, 32, dtype)
    mask = causal_mask(causal, n_q, n_k)
    expected = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=mask)
    check(at.attention_tma(q, k, v, causal=causal), expected, causal, seed)


def test_causal_true_is_top_left():
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 9, 30, 16, torch.float16)
    true = at.attention_tma(q, k, v, causal=True)
    assert torch.equal(true, at.attention_tma(q, k, v, causal="top_left")), f"seed={seed}"
    assert not torch.equal(true, at.attention_tma(q, k, v, causal="bottom_right"))


def test_one_decode_query_sees_every_key_only_bottom_right():
    """One new query against 7 cached keys: bottom-right sees all 7 (as no mask), top-left
    only key 0, so its output is exactly v[0]."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 1, 7, 16, torch.float16)
    decoded = at.attention_tma(q, k, v, causal="bottom_right")
    assert torch.equal(decoded, at.attention_tma(q, k, v)), f"seed={seed}"
    assert torch.equal(at.attention_tma(q, k, v, causal=True), v[:, :, :1]), f"seed={seed}"


@pytest.mark.parametrize("n_q, n_k", [(40, 23), (37, 5), (20, 1)], ids=str)
def test_a_query_that_sees_no_key_gives_zeros(n_q, n_k):
    """Bottom-right with n_q > n_k: the first n_q - n_k queries see no key; their outputs
    are exactly zero, and nothing is NaN."""
    seed = fresh_seed()
    blind = n_q - n_k
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    o = at.attention_tma(q, k, v, causal="bottom_right")
    assert not torch.isnan(o).any(), f"seed={seed}"
    assert torch.equal(o[:, :, :blind], torch.zeros_like(o[:, :, :blind])), f"seed={seed}"
    assert (o[:, :, blind:] != 0).any()


# ---- exact tests: no tolerance -----------------------------------------------------------

QUERY_CUTS = [(40, 40, True, 17), (50, 30, True, 9), (30, 50, True, 16),
              (40, 40, "bottom_right", 17), (50, 30, "bottom_right", 29),
              (30, 50, "bottom_right", 16)]  # fmt: skip


@pytest.mark.parametrize("n_q, n_k, causal, cut", QUERY_CUTS, ids=str)
def test_causal_queries_never_see_later_keys(n_q, n_k, causal, cut):
    """Keys and values from ``cut + diag`` on are replaced by large ones: every query
    before ``cut`` keeps its output to the bit (their probability is exactly 0)."""
    seed = fresh_seed()
    first_hidden = cut + diag_of(causal, n_q, n_k)
    assert 0 < first_hidden < n_k
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    k2, v2 = hide_keys_from(k, v, first_hidden)
    o1 = at.attention_tma(q, k, v, causal=causal)
    o2 = at.attention_tma(q, k2, v2, causal=causal)
    assert torch.equal(o1[:, :, :cut], o2[:, :, :cut]), f"a query saw a later key, seed={seed}"
    assert not torch.equal(o1[:, :, cut:], o2[:, :, cut:])


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (23, 40), (40, 23), (1, 5)], ids=str)
def test_no_read_past_the_last_row(n_q, n_k, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 2, n_q, n_k, 32, torch.float16)
    expected = reference64(q, k, v, causal)
    q, k, v = (nan_padded(t) for t in (q, k, v))
    assert all(at.tma_readable(t) for t in (q, k, v))  # read in place, not copied
    check(at.attention_tma(q, k, v, causal=causal), expected, "NaN past the end", seed)


def test_no_write_past_the_last_row(monkeypatch):
    """A ragged last block of queries: the store clips the rows past n_q. The output is
    allocated here with NaN memory after it, which the last head's last block would
    overwrite if it wrote whole tiles."""
    seed = fresh_seed()
    tails = []
    empty = torch.empty  # already NaN-filling (poisoned_empty)

    def with_a_tail(shape, **kwargs):
        if kwargs.get("dtype") not in UNIT:  # the descriptors' scratch: as it was
            return empty(shape, **kwargs)
        n = math.prod(shape)
        buf = empty(n + 16 * 32, **kwargs)
        tails.append(buf[n:])
        return buf[:n].view(shape)

    monkeypatch.setattr(torch, "empty", with_a_tail)
    q, k, v = qkv(1, 2, 21, 19, 32, torch.float16)
    o = at.launch(q, k, v, False, 32**-0.5, config=(16, 16, 1, 1, False))
    check(o, reference64(q, k, v, False, 32**-0.5), "ragged store", seed)
    assert len(tails) == 1 and torch.isnan(tails[0]).all(), "a row past n_q was written"


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_no_key_gives_zeros_without_a_launch(causal, monkeypatch):
    """n_k = 0: every row is a softmax over nothing; SDPA returns zeros there."""
    spy = LaunchSpy(at.attn_fwd_tma_kernel)
    monkeypatch.setattr(at, "attn_fwd_tma_kernel", spy)
    q, k, v = qkv(2, 3, 5, 0, 16, torch.float16)
    o = at.attention_tma(q, k, v, causal=causal)
    expected = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=causal)
    assert torch.equal(o.double(), expected) and torch.equal(o, torch.zeros_like(o))
    assert spy.devices == []


# ---- layouts, scale, grad mode -------------------------------------------------------------

LAYOUTS = [
    # (name, make, read in place by the descriptors)
    ("bnhd", lambda t: t.transpose(1, 2).contiguous().transpose(1, 2), True),
    ("padded-d", lambda t: torch.cat([t, t], dim=-1)[..., : t.shape[-1]], True),
    ("strided-d", lambda t: torch.cat([t, t], dim=-1)[..., ::2], False),
    ("expanded-heads", lambda t: t[:, :1].expand(t.shape), False),
    ("transposed", lambda t: t.transpose(2, 3).contiguous().transpose(2, 3), False),
    ("misaligned", lambda t: torch.cat([t.new_zeros(1), t.flatten()])[1:].view(t.shape), False),
]


@pytest.mark.parametrize("name, make, in_place", LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_any_layout_is_read_in_place_or_copied(name, make, in_place):
    seed = fresh_seed()
    q, k, v = (make(t) for t in qkv(2, 3, 21, 19, 32, torch.float16))
    assert at.tma_readable(q) == in_place, name
    for causal in (False, True):
        got = at.attention_tma(q, k, v, causal=causal)
        check(got, reference64(q, k, v, causal), f"{name}, causal={causal}", seed)


def test_a_length_one_dimension_takes_any_stride():
    """A size-1 batch or head dimension is never stepped over: its stride (here one that
    is not a multiple of 16 bytes) does not stop the tensor being read in place."""
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 20, 20, 16, torch.float16)
    q = q.as_strided(q.shape, (3, 5, 16, 1))
    assert at.tma_readable(q)
    check(at.attention_tma(q, k, v), reference64(q, k, v, False), "odd strides", seed)


@pytest.mark.parametrize("scale", [0.3, 1, 2.5, np.float64(0.5)], ids=repr)
def test_scale(scale):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 20, 20, 32, torch.float16)
    got = at.attention_tma(q, k, v, causal=True, scale=scale)
    check(got, reference64(q, k, v, True, float(scale)), f"scale={scale}", seed)


def test_default_scale_is_one_over_sqrt_d():
    seed = fresh_seed()
    q, k, v = qkv(1, 1, 9, 9, 64, torch.float16)
    check(at.attention_tma(q, k, v), reference64(q, k, v, False, 1 / math.sqrt(64)), "o", seed)


def test_grad_mode_decides_whether_a_graph_is_built():
    """Inputs that require grad get a result with a backward while grad mode is on, and a
    plain one (no log-sum-exp saved) under torch.no_grad() and torch.inference_mode()."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 9, 9, 16, torch.float16)
    q.requires_grad_()
    o = at.attention_tma(q, k, v)
    assert isinstance(o.grad_fn, at.AttentionTMAFunction._backward_cls), f"seed={seed}"
    for mode in (torch.no_grad, torch.inference_mode):
        with mode():
            got = at.attention_tma(q, k, v)
            assert got.grad_fn is None
            check(got, reference64(q, k, v, False), str(mode), seed)


def test_positional_knobs_are_refused():
    q, k, v = qkv(1, 2, 8, 8, 16, torch.float16)
    with pytest.raises(TypeError):
        at.attention_tma(q, k, v, True)


# ---- realistic sizes on a GPU --------------------------------------------------------------


def test_plan_takes_the_unmasked_tiles_only_without_a_mask(monkeypatch):
    monkeypatch.setattr(at, "_INTERPRET", False)  # plan as on a GPU
    for d in at.HEAD_DIMS:
        assert at.plan(d, backward=True) == at.BACKWARD_CONFIG_FULL.get(d, at.BACKWARD_CONFIG[d])
        for causal in (True, "bottom_right"):
            assert at.plan(d, backward=True, causal=causal) == at.BACKWARD_CONFIG[d], causal


@requires_gpu
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize(
    "d, dtype", [(16, torch.bfloat16), (32, torch.bfloat16), (64, torch.bfloat16),
                 (128, torch.bfloat16), (64, torch.float16), (128, torch.float16)], ids=str,
)  # fmt: skip
@pytest.mark.parametrize(
    "n_q, n_k", [(1000, 1000), (2048, 2048), (777, 1500), (1500, 777)], ids=str
)
def test_realistic_sizes(n_q, n_k, d, dtype, causal):
    """plan's tiles (FORWARD_CONFIG) at every head dim."""
    seed = fresh_seed()
    q, k, v = qkv(2, 4, n_q, n_k, d, dtype)
    check(at.attention_tma(q, k, v, causal=causal), reference64(q, k, v, causal), "", seed)


@requires_gpu
@pytest.mark.parametrize("ws", [False, True], ids=["plain", "warp-specialized"])
@pytest.mark.parametrize("d", [64, 128])
def test_gpu_tiles_with_and_without_warp_specialisation(d, ws):
    """The sweep's tiles with warp_specialize on and off, on a ragged sequence."""
    seed = fresh_seed()
    q, k, v = qkv(2, 4, 1000, 1000, d, torch.bfloat16)
    for causal in (False, True):
        got = at.launch(q, k, v, causal, d**-0.5, config=(128, 128, 8, 2, ws))
        check(got, reference64(q, k, v, causal, d**-0.5), f"ws={ws} {causal}", seed)


# ---- grouped-query attention: fewer key/value heads than query heads -----------------------


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("heads, kv_heads", [(4, 1), (6, 2), (3, 3)], ids=str)
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (23, 40), (40, 23)], ids=str)
def test_grouped_query_attention_matches_sdpa(n_q, n_k, heads, kv_heads, causal):
    """Query head h reads key/value head h // (heads / kv_heads), as SDPA's
    enable_gqa=True; the keys are read where they are (the same memory for every query
    head of a group)."""
    seed = fresh_seed()
    q = rand((2, heads, n_q, 32), torch.float16)
    k, v = (rand((2, kv_heads, n_k, 32), torch.float16) for _ in range(2))
    if causal:
        mask = causal_mask(causal, n_q, n_k)
        expected = F.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), attn_mask=mask, enable_gqa=True
        )
    else:
        expected = F.scaled_dot_product_attention(
            q.double(), k.double(), v.double(), enable_gqa=True
        )
    check(at.attention_tma(q, k, v, causal=causal), expected, f"gqa {heads}/{kv_heads}", seed)
    torch.testing.assert_close(
        at.reference(q, k, v, causal=causal).double(), expected.to(q.dtype).double()
    )


def test_grouped_query_attention_reads_each_kv_head_in_place():
    """One key/value head stored once, against four query heads: the same result as the
    four-head copy made by repeat_interleave, bit for bit."""
    seed = fresh_seed()
    q = rand((1, 4, 33, 16), torch.float16)
    k, v = (rand((1, 1, 29, 16), torch.float16) for _ in range(2))
    shared = at.attention_tma(q, k, v, causal=True)
    copied = at.attention_tma(q, k.repeat_interleave(4, 1), v.repeat_interleave(4, 1), causal=True)
    assert torch.equal(shared, copied), f"seed={seed}"


@requires_gpu
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_grouped_query_attention_at_a_realistic_size(causal):
    seed = fresh_seed()
    q = rand((2, 16, 1500, 128), torch.bfloat16)
    k, v = (rand((2, 2, 1500, 128), torch.bfloat16) for _ in range(2))
    check(at.attention_tma(q, k, v, causal=causal), reference64(q, k, v, causal), "gqa", seed)


# ---- the backward: dQ, dK, dV against torch autograd through the float64 reference --------


def grads64(q, k, v, do, causal, scale=None):
    """dq, dk, dv in float64: autograd through ``reference`` (k and v's gradients summed
    over the query heads of their group by repeat_interleave's backward)."""
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    o64 = at.reference(q64, k64, v64, causal=causal, scale=scale)
    if not o64.requires_grad:  # no key at all: zeros, whatever the inputs
        return tuple(torch.zeros_like(t) for t in (q64, k64, v64))
    found = torch.autograd.grad(o64, (q64, k64, v64), do.double(), allow_unused=True)
    return tuple(
        torch.zeros_like(t) if g is None else g for g, t in zip(found, (q64, k64, v64), strict=True)
    )


def backward(q, k, v, do, causal, scale=None):
    """dq, dk, dv from attention_tma and autograd."""
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o = at.attention_tma(q, k, v, causal=causal, scale=scale)
    return torch.autograd.grad(o, (q, k, v), do)


def check_grads(got, expected, seed, what=""):
    for g, e, name in zip(got, expected, ("dq", "dk", "dv"), strict=True):
        check(g, e, f"{name} {what}", seed, gradient=True)


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("d", at.HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", SHAPES, ids=str)
def test_backward_matches_float64(n_q, n_k, dtype, d, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 3, n_q, n_k, d, dtype)
    do = rand((2, 3, n_q, d), dtype)
    # torch.empty is NaN-filled (poisoned_empty): lse, delta, dq, dk, dv must all be written.
    check_grads(backward(q, k, v, do, causal), grads64(q, k, v, do, causal), seed, str(causal))


# Backward tiles the interpreter's (16, 16) does not reach: more query rows than key rows
# in the dK/dV kernel and fewer, the same for the dQ kernel, and dQ by atomics.
BACKWARD_CONFIGS = [((32, 16, 4, 2), (16, 32, 4, 2)), ((16, 32, 4, 2), (32, 16, 4, 2)),
                    ((64, 16, 4, 2), (16, 64, 4, 2)), ((16, 64, 4, 2), (64, 64, 4, 2)),
                    ((32, 16, 4, 2), "atomic"), ((16, 64, 4, 2), "atomic")]  # fmt: skip


@pytest.mark.parametrize("config", BACKWARD_CONFIGS, ids=str)
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("n_q, n_k", [(129, 129), (100, 37), (37, 100)], ids=str)
def test_every_backward_tile_shape_walks_the_diagonal_right(config, causal, n_q, n_k):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, 32, torch.float16)
    do = rand((1, 2, n_q, 32), torch.float16)
    lse = torch.empty((1, 2, n_q), dtype=torch.float32, device=DEVICE)
    o = at.launch(q, k, v, causal, 32**-0.5, lse=lse)
    got = at.launch_backward(do, q, k, v, o, lse, causal, 32**-0.5, config=config)
    check_grads(got, grads64(q, k, v, do, causal, 32**-0.5), seed, str(config))


def test_the_forward_saves_the_log_sum_exp_in_base_2():
    """lse = log2(sum_j exp2(s_ij * scale * log2(e))), -inf on a row that sees no key."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 30, 20, 16, torch.float16)
    lse = torch.empty((1, 2, 30), dtype=torch.float32, device=DEVICE)
    at.launch(q, k, v, "bottom_right", 0.25, lse=lse)
    s = (q.double() @ k.double().transpose(-2, -1)) * 0.25
    s = s.masked_fill(~causal_mask("bottom_right", 30, 20), float("-inf"))
    expected = torch.logsumexp(s, -1) / math.log(2)
    assert torch.isneginf(lse[:, :, :10]).all(), f"seed={seed}"
    torch.testing.assert_close(lse[:, :, 10:].double(), expected[:, :, 10:], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("heads, kv_heads", [(4, 1), (6, 2)], ids=str)
@pytest.mark.parametrize("config", [None, ((16, 16, 1, 1), "atomic")], ids=["split", "atomic"])
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (23, 40), (40, 23)], ids=str)
def test_grouped_query_backward_sums_each_group(n_q, n_k, config, heads, kv_heads, causal):
    """dK and dV of a key/value head are the sums over the query heads that read it: the
    float64 reference repeats k and v, and autograd sums the copies' gradients back."""
    seed = fresh_seed()
    q, do = (rand((2, heads, n_q, 32), torch.bfloat16) for _ in range(2))
    k, v = (rand((2, kv_heads, n_k, 32), torch.bfloat16) for _ in range(2))
    lse = torch.empty((2, heads, n_q), dtype=torch.float32, device=DEVICE)
    o = at.launch(q, k, v, causal, 32**-0.5, lse=lse)
    got = at.launch_backward(do, q, k, v, o, lse, causal, 32**-0.5, config=config)
    assert got[1].shape == k.shape and got[2].shape == v.shape
    check_grads(got, grads64(q, k, v, do, causal, 32**-0.5), seed, f"gqa {heads}/{kv_heads}")


def test_grouped_query_backward_through_autograd():
    seed = fresh_seed()
    q, do = (rand((1, 4, 33, 16), torch.float16) for _ in range(2))
    k, v = (rand((1, 2, 29, 16), torch.float16) for _ in range(2))
    got = backward(q, k, v, do, True)
    check_grads(got, grads64(q, k, v, do, True), seed, "gqa autograd")


@pytest.mark.parametrize("n_q, n_k", [(40, 23), (37, 5), (20, 1)], ids=str)
def test_a_query_that_sees_no_key_gets_no_gradient(n_q, n_k):
    """Bottom-right with n_q > n_k: the first n_q - n_k queries see no key. Their dQ is
    exactly zero, nothing is NaN, and changing them (or their upstream gradient) changes
    no dK or dV bit."""
    seed = fresh_seed()
    blind = n_q - n_k
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    do = rand((1, 2, n_q, 16), torch.float16)
    dq, dk, dv = backward(q, k, v, do, "bottom_right")
    for t, name in ((dq, "dq"), (dk, "dk"), (dv, "dv")):
        assert not torch.isnan(t).any(), f"{name} has NaN, seed={seed}"
    assert torch.equal(dq[:, :, :blind], torch.zeros_like(dq[:, :, :blind])), f"seed={seed}"
    q2, do2 = q.clone(), do.clone()
    q2[:, :, :blind] = 100.0
    do2[:, :, :blind] = -7.0
    _, dk2, dv2 = backward(q2, k, v, do2, "bottom_right")
    assert torch.equal(dk, dk2) and torch.equal(dv, dv2), f"a blind query moved dk/dv, seed={seed}"


KEY_CUTS = [(40, 40, True, 17), (30, 50, True, 16), (40, 40, "bottom_right", 17),
            (50, 30, "bottom_right", 9)]  # fmt: skip


@pytest.mark.parametrize("n_q, n_k, causal, cut", KEY_CUTS, ids=str)
def test_causal_keys_get_no_gradient_from_earlier_queries(n_q, n_k, causal, cut):
    """Queries and upstream gradients before ``cut - diag`` are changed: dK and dV of
    every key from ``cut`` on stay the same to the bit (no earlier query sees them)."""
    seed = fresh_seed()
    changed = cut - diag_of(causal, n_q, n_k)
    assert 0 < changed < n_q
    q, k, v = qkv(1, 2, n_q, n_k, 16, torch.float16)
    do = rand((1, 2, n_q, 16), torch.float16)
    q2, do2 = q.clone(), do.clone()
    q2[:, :, :changed] = rand((1, 2, changed, 16), torch.float16)
    do2[:, :, :changed] = 5.0
    _, dk1, dv1 = backward(q, k, v, do, causal)
    _, dk2, dv2 = backward(q2, k, v, do2, causal)
    assert torch.equal(dk1[:, :, cut:], dk2[:, :, cut:]), f"dk from an earlier query, seed={seed}"
    assert torch.equal(dv1[:, :, cut:], dv2[:, :, cut:]), f"dv from an earlier query, seed={seed}"
    assert not torch.equal(dk1[:, :, :cut], dk2[:, :, :cut])


@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (23, 40), (40, 23)], ids=str)
def test_backward_reads_no_row_past_the_end(n_q, n_k, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 2, n_q, n_k, 32, torch.float16)
    do = rand((2, 2, n_q, 32), torch.float16)
    expected = grads64(q, k, v, do, causal)
    q, k, v, do = (nan_padded(t) for t in (q, k, v, do))
    check_grads(backward(q, k, v, do, causal), expected, seed, "NaN past the end")


def test_split_backward_is_deterministic():
    """plan's split backward (no atomics): each dK/dV and dQ element is summed by one
    program in a fixed order."""
    seed = fresh_seed()
    q, k, v = qkv(1, 4, 45, 45, 32, torch.bfloat16)
    do = rand((1, 4, 45, 32), torch.bfloat16)
    first, again = backward(q, k, v, do, True), backward(q, k, v, do, True)
    for a, b, name in zip(first, again, ("dq", "dk", "dv"), strict=True):
        assert torch.equal(a, b), f"{name} changed between runs, seed={seed}"


@pytest.mark.parametrize("name, make, in_place", LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_backward_of_any_layout(name, make, in_place):
    """Gradients of inputs read in place or copied, and an upstream gradient in the same
    layout, reach the inputs themselves."""
    seed = fresh_seed()
    q, k, v = (make(t) for t in qkv(2, 3, 21, 19, 32, torch.float16))
    do = make(rand((2, 3, 21, 32), torch.float16))
    for causal in (False, True):
        got = backward(q, k, v, do, causal)
        check_grads(got, grads64(q, k, v, do, causal), seed, f"{name}, causal={causal}")


@pytest.mark.parametrize(
    "make_do",
    [
        lambda shape: torch.ones((), dtype=torch.float16, device=DEVICE).expand(shape),
        lambda shape: rand(shape[:2] + shape[2:][::-1], torch.float16).transpose(2, 3),
        lambda shape: torch._neg_view(rand(shape, torch.float16)),
        lambda shape: rand(shape, torch.float32),
    ],
    ids=["expanded", "transposed", "negative-bit", "float32"],
)
def test_upstream_gradient_in_any_layout(make_do):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 18, 18, 16, torch.float16)
    do = make_do((1, 2, 18, 16))
    got = backward(q, k, v, do, True)
    check_grads(got, grads64(q, k, v, do.to(torch.float16).clone(), True), seed)


def test_gradient_reaches_a_packed_projection():
    """q, k, v as slices of one (B, N, 3, H, d) projection, as a model has them: read in
    place by the descriptors, and the gradient lands in the projection's own layout."""
    seed = fresh_seed()
    packed = rand((2, 20, 3, 2, 16), torch.float16).requires_grad_()
    q, k, v = (packed[:, :, i].transpose(1, 2) for i in range(3))
    assert all(at.tma_readable(t) for t in (q, k, v))
    do = rand((2, 2, 20, 16), torch.float16)
    at.attention_tma(q, k, v, causal=True).backward(do)
    for i, (ref, name) in enumerate(
        zip(grads64(q, k, v, do, True), ("dq", "dk", "dv"), strict=True)
    ):
        check(packed.grad[:, :, i].transpose(1, 2), ref, name, seed, gradient=True)


def test_plan_has_a_backward_config_for_every_head_dim():
    configs = [(d, at.BACKWARD_CONFIG[d]) for d in at.HEAD_DIMS]
    assert set(at.BACKWARD_CONFIG_FULL) <= set(at.HEAD_DIMS)
    for d, (dkdv, dq) in configs + list(at.BACKWARD_CONFIG_FULL.items()):
        assert dq in ("atomic", "reduce") or len(dq) == 4, d
        for tiles in (dkdv,) if isinstance(dq, str) else (dkdv, dq):
            block_m, block_n, warps, stages = tiles
            assert block_m >= 16 and block_n >= 16 and warps in (4, 8) and stages >= 1, d
            assert block_m & (block_m - 1) == 0 and block_n & (block_n - 1) == 0, d


@requires_gpu
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize(
    "d, dtype", [(16, torch.bfloat16), (32, torch.bfloat16), (64, torch.bfloat16),
                 (128, torch.bfloat16), (64, torch.float16), (128, torch.float16)], ids=str,
)  # fmt: skip
@pytest.mark.parametrize("n_q, n_k", [(1000, 1000), (777, 1500), (1500, 777)], ids=str)
def test_backward_at_realistic_sizes(n_q, n_k, d, dtype, causal):
    """plan's backward tiles (BACKWARD_CONFIG, or BACKWARD_CONFIG_FULL without a mask) at
    every head dim."""
    seed = fresh_seed()
    q, k, v = qkv(1, 4, n_q, n_k, d, dtype)
    do = rand((1, 4, n_q, d), dtype)
    check_grads(backward(q, k, v, do, causal), grads64(q, k, v, do, causal), seed, str(causal))


@requires_gpu
@pytest.mark.parametrize("config", [None, "atomic", "reduce"])
@pytest.mark.parametrize("d", [64, 128])
def test_grouped_query_backward_at_a_realistic_size(d, config):
    """plan's tiles, and dQ by atomics and by TMA reductions (which the interpreter lacks)."""
    seed = fresh_seed()
    q, do = (rand((1, 8, 1500, d), torch.bfloat16) for _ in range(2))
    k, v = (rand((1, 2, 1500, d), torch.bfloat16) for _ in range(2))
    tiles = None if config is None else (at.BACKWARD_CONFIG[d][0], config)
    for causal in (False, True):
        lse = torch.empty((1, 8, 1500), dtype=torch.float32, device=DEVICE)
        o = at.launch(q, k, v, causal, d**-0.5, lse=lse)
        got = at.launch_backward(do, q, k, v, o, lse, causal, d**-0.5, config=tiles)
        check_grads(got, grads64(q, k, v, do, causal), seed, f"gqa {config} {causal}")
