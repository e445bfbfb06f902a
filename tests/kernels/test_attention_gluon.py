"""The Gluon attention forward (kernels/attention_gluon.py) against a float64 reference with
the N x N scores materialised, and against SDPA: both head dimensions, both dtypes, no
mask and both causal alignments, ragged and unequal sequence lengths, grouped-query heads,
every kind of schedule the file has (one partition, a loader warp, two consumer groups)
and other tiles, the causal mask checked exactly, layouts read in place and layouts
copied, and the refusals the contract asks of a forward without a backward.

Gluon kernels do not run under the Triton interpreter: everything that launches needs a
Hopper GPU (compute capability 9.x) and is skipped elsewhere. On the CPU the refusals that
come before any launch are still tested.
"""

import importlib.util
import math
import re

import pytest
import torch
import torch.nn.functional as F

from kernels import attention_gluon as ag
from tests.kernels import attention_support
from tests.kernels.attention_support import (
    CAUSAL,
    CAUSAL_IDS,
    DTYPES,
    causal_mask,
    check,
    diag_of,
    hide_keys_from,
    nan_padded,
    qkv,
)
from tests.support import (
    ON_GPU,
    LaunchSpy,
    fresh_seed,
    poisoned_empty,  # noqa: F401 (autouse: every torch.empty is NaN)
)

HOPPER = ON_GPU and torch.cuda.get_device_capability()[0] == 9
gluon_gpu = pytest.mark.skipif(
    not HOPPER,
    reason="Gluon kernels do not run under the Triton interpreter"
    if not ON_GPU
    else "the Gluon kernel is written for Hopper (compute capability 9.x)",
)

KINDS = ["pipelined", "ws", "ws2"]


def reference64(q, k, v, causal, scale=None):
    return attention_support.reference64(ag.reference, q, k, v, causal=causal, scale=scale)


def config_of(kind, d):
    """``plan``'s tiles for ``d`` with the schedule ``kind`` (8 warps in one consumer
    partition, 4 per consumer group when there are two)."""
    _, block_m, block_n, stages, _ = ag.plan(d)
    return (kind, block_m, block_n, stages, 4 if kind == "ws2" else 8)


# ---- on the CPU: what the wrapper refuses before it launches ---------------------------------


def test_cpu_tensors_are_refused_by_name():
    q, k, v = (torch.randn(1, 2, 8, 64, dtype=torch.float16) for _ in range(3))
    with pytest.raises(ValueError, match=r"^attention_gluon: q must be on a CUDA device.*interp"):
        ag.attention_gluon(q, k, v)


@pytest.mark.parametrize(
    "make, error, says",
    [
        (lambda t: t.to("meta"), ValueError, r"q is a meta tensor"),
        (lambda t: t.numpy(), TypeError, r"q must be a torch.Tensor"),
    ],
    ids=["meta", "numpy"],
)
def test_refusals_name_the_argument(make, error, says):
    q, k, v = (torch.randn(1, 2, 8, 64, dtype=torch.float16) for _ in range(3))
    with pytest.raises(error, match=f"^attention_gluon: {says}"):
        ag.attention_gluon(make(q), k, v)


def test_plan_has_a_config_for_every_head_dim():
    for d in ag.HEAD_DIMS:
        kind, block_m, block_n, stages, warps = ag.plan(d)
        assert kind in KINDS and block_m % 64 == 0 and block_n % 16 == 0
        assert stages >= 2 and warps in (4, 8)
    assert set(ag.HEAD_DIMS) == {64, 128}


def test_the_file_imports_only_torch_triton_and_math():
    source = importlib.util.find_spec("kernels.attention_gluon").origin
    text = open(source).read()
    imported = re.findall(r"^(?:import|from) (\w+)", text, flags=re.M)
    assert set(imported) <= {"math", "torch", "triton"}, imported


# ---- on a Hopper GPU: the numbers ------------------------------------------------------------

# (n_q, n_k): one element, less than one tile, ragged over several tiles of both consumer
# groups, more queries than keys and fewer.
SHAPES = [(1, 1), (17, 17), (200, 333), (333, 200), (129, 129), (1000, 1000)]


@gluon_gpu
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n_q, n_k", SHAPES, ids=str)
def test_forward_matches_float64(n_q, n_k, dtype, d, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 3, n_q, n_k, d, dtype)
    with torch.no_grad():
        got = ag.attention_gluon(q, k, v, causal=causal)
    assert got.is_contiguous() and got.dtype == dtype
    check(got, reference64(q, k, v, causal), f"d={d} {causal}", seed)


@gluon_gpu
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("n_q, n_k", [(129, 300), (300, 77)], ids=str)
def test_every_schedule_walks_the_diagonal_right(kind, causal, d, n_q, n_k):
    """Each kind of schedule (one partition; a loader warp and one consumer partition; a
    loader and two consumer groups) on ragged lengths: 129 leaves a one-row last tile, 77
    keys a single ragged tile."""
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, d, torch.bfloat16)
    got = ag.launch(q, k, v, causal, d**-0.5, config=config_of(kind, d))
    check(got, reference64(q, k, v, causal, d**-0.5), f"{kind} d={d}", seed)


# Other tiles and ring depths of the two-group schedule: BLOCK_N 64 (two tiles per 128
# keys), two slots, 128 queries per group.
TILES = [("ws2", 128, 64, 3, 4), ("ws2", 128, 128, 2, 4), ("ws2", 256, 64, 3, 4)]


@gluon_gpu
@pytest.mark.parametrize("config", TILES, ids=str)
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
def test_other_tiles_walk_the_diagonal_right(config, causal):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 333, 300, 64, torch.bfloat16)
    got = ag.launch(q, k, v, causal, 0.125, config=config)
    check(got, reference64(q, k, v, causal, 0.125), str(config), seed)


@gluon_gpu
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
@pytest.mark.parametrize("heads, kv_heads", [(4, 1), (6, 2), (3, 3)], ids=str)
@pytest.mark.parametrize("n_q, n_k", [(17, 17), (150, 260), (260, 150)], ids=str)
def test_grouped_query_attention_matches_sdpa(n_q, n_k, heads, kv_heads, causal):
    seed = fresh_seed()
    q, k, v = qkv(2, heads, n_q, n_k, 128, torch.float16, kv_heads)
    got = ag.attention_gluon(q, k, v, causal=causal)
    group = heads // kv_heads
    k_r, v_r = (t.repeat_interleave(group, 1) for t in (k, v))
    check(got, reference64(q, k_r, v_r, causal), f"gqa {heads}/{kv_heads}", seed)
    if causal != "bottom_right":  # SDPA's is_causal is top-left
        sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), enable_gqa=True)
        torch.testing.assert_close(got, sdpa, rtol=4e-3, atol=4e-3)


@gluon_gpu
@pytest.mark.parametrize("causal", ["top_left", "bottom_right"])
@pytest.mark.parametrize("n_q, n_k", [(100, 300), (300, 100), (257, 257)], ids=str)
def test_both_alignments_match_sdpa_with_an_explicit_mask(n_q, n_k, causal):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, n_q, n_k, 64, torch.bfloat16)
    mask = causal_mask(causal, n_q, n_k)
    want = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=mask)
    got = ag.attention_gluon(q, k, v, causal=causal)
    seen = mask.any(-1)  # SDPA gives NaN on a row with no key; the kernel zeros
    check(got[:, :, seen], want[:, :, seen], causal, seed)
    assert torch.equal(got[:, :, ~seen], torch.zeros_like(got[:, :, ~seen]))


QUERY_CUTS = [(300, 300, True, 130), (300, 200, "bottom_right", 140), (200, 300, True, 64)]


@gluon_gpu
@pytest.mark.parametrize("n_q, n_k, causal, cut", QUERY_CUTS, ids=str)
def test_causal_queries_never_see_later_keys(n_q, n_k, causal, cut):
    """Keys and values from ``cut + diag`` on replaced by large ones: every query before
    ``cut`` keeps its output to the bit (its probability there is exactly 0)."""
    seed = fresh_seed()
    first_hidden = cut + diag_of(causal, n_q, n_k)
    q, k, v = qkv(1, 2, n_q, n_k, 128, torch.float16)
    k2, v2 = hide_keys_from(k, v, first_hidden)
    o1 = ag.attention_gluon(q, k, v, causal=causal)
    o2 = ag.attention_gluon(q, k2, v2, causal=causal)
    assert torch.equal(o1[:, :, :cut], o2[:, :, :cut]), f"a query saw a later key, seed={seed}"
    assert not torch.equal(o1[:, :, cut:], o2[:, :, cut:])


@gluon_gpu
def test_a_query_that_sees_no_key_gives_zeros():
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 300, 40, 64, torch.bfloat16)  # bottom-right: 260 queries see none
    o = ag.attention_gluon(q, k, v, causal="bottom_right")
    assert torch.equal(o[:, :, :260], torch.zeros_like(o[:, :, :260])), f"seed={seed}"
    check(o, reference64(q, k, v, "bottom_right"), "blind rows", seed)


@gluon_gpu
@pytest.mark.parametrize("causal", CAUSAL, ids=CAUSAL_IDS)
def test_no_read_past_the_last_row(causal):
    seed = fresh_seed()
    q, k, v = qkv(2, 2, 77, 150, 128, torch.float16)
    expected = reference64(q, k, v, causal)
    q, k, v = (nan_padded(t, extra=130) for t in (q, k, v))
    assert all(ag.tma_readable(t) for t in (q, k, v))
    check(ag.attention_gluon(q, k, v, causal=causal), expected, "NaN past the end", seed)


@gluon_gpu
def test_no_write_past_the_last_row(monkeypatch):
    """The last block of queries is ragged: the TMA store clips the rows past n_q, so the
    NaN memory right after the output stays NaN."""
    seed = fresh_seed()
    tails = []
    empty = torch.empty

    def with_a_tail(shape, **kwargs):
        n = math.prod(shape)
        buf = empty(n + 128 * 128, **kwargs)
        tails.append(buf[n:])
        return buf[:n].view(shape)

    q, k, v = qkv(1, 2, 70, 90, 128, torch.float16)
    monkeypatch.setattr(torch, "empty", with_a_tail)
    o = ag.attention_gluon(q, k, v)
    monkeypatch.undo()
    check(o, reference64(q, k, v, False), "ragged store", seed)
    assert len(tails) == 1 and torch.isnan(tails[0]).all(), "a row past n_q was written"


@gluon_gpu
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_no_key_gives_zeros_without_a_launch(causal, monkeypatch):
    spy = LaunchSpy(ag.attn_fwd_ws_kernel)
    monkeypatch.setattr(ag, "attn_fwd_ws_kernel", spy)
    q, k, v = qkv(2, 3, 5, 0, 64, torch.float16)
    o = ag.attention_gluon(q, k, v, causal=causal)
    assert torch.equal(o, torch.zeros_like(o)) and spy.devices == []


LAYOUTS = [
    ("bnhd", lambda t: t.transpose(1, 2).contiguous().transpose(1, 2), True),
    ("strided-d", lambda t: torch.cat([t, t], dim=-1)[..., ::2], False),
    ("expanded-heads", lambda t: t[:, :1].expand(t.shape), False),
    ("misaligned", lambda t: torch.cat([t.new_zeros(1), t.flatten()])[1:].view(t.shape), False),
]


@gluon_gpu
@pytest.mark.parametrize("name, make, in_place", LAYOUTS, ids=[x[0] for x in LAYOUTS])
def test_any_layout_is_read_in_place_or_copied(name, make, in_place):
    seed = fresh_seed()
    q, k, v = (make(t) for t in qkv(2, 3, 150, 99, 64, torch.float16))
    assert ag.tma_readable(q) == in_place, name
    for causal in (False, True):
        got = ag.attention_gluon(q, k, v, causal=causal)
        check(got, reference64(q, k, v, causal), f"{name}, causal={causal}", seed)


@gluon_gpu
def test_neg_views_are_read_as_their_values():
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 100, 100, 64, torch.bfloat16)
    got = ag.attention_gluon(torch._neg_view(q), k, v)
    check(got, reference64(-q, k, v, False), "neg view", seed)


@gluon_gpu
@pytest.mark.parametrize("scale", [0.3, 1, 2.5], ids=repr)
def test_scale(scale):
    seed = fresh_seed()
    q, k, v = qkv(1, 2, 100, 100, 64, torch.float16)
    check(ag.attention_gluon(q, k, v, scale=scale), reference64(q, k, v, False, scale), "", seed)


@gluon_gpu
def test_inputs_that_require_grad_are_refused_while_grad_mode_is_on():
    q, k, v = qkv(1, 2, 16, 16, 64, torch.float16)
    k.requires_grad_()
    with pytest.raises(ValueError, match=r"^attention_gluon: k requires grad.*no backward"):
        ag.attention_gluon(q, k, v)
    with torch.no_grad():  # inference on a parameter: no graph, so nothing is lost
        ag.attention_gluon(q, k, v)


@gluon_gpu
@pytest.mark.parametrize("capability", [(8, 0), (10, 0)], ids=str)
def test_other_gpu_generations_are_refused(capability, monkeypatch):
    monkeypatch.setitem(ag._CAPABILITIES, torch.cuda.current_device(), capability)
    q, k, v = qkv(1, 2, 16, 16, 64, torch.float16)
    with pytest.raises(ValueError, match=r"^attention_gluon: needs compute capability 9.x"):
        ag.attention_gluon(q, k, v)


@gluon_gpu
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("d", [64, 128])
def test_realistic_sizes(d, causal):
    seed = fresh_seed()
    q, k, v = qkv(1, 4, 4096, 4096, d, torch.bfloat16)
    got = ag.attention_gluon(q, k, v, causal=causal)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2, msg=lambda m: f"seed={seed} {m}")
