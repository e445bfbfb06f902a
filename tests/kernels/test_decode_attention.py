"""Decoding attention (kernels/decode_attention.py) against a float64 reference with the
scores materialised: both dtypes, GQA groups of 1, 4 and 8, one and several query tokens,
with and without the causal mask, ragged lengths (1, lengths that are not a multiple of
the block or of the page, 0), splits that leave slices empty, one split (no combine), a
paged cache whose block table lists pages in random order and holds garbage past each
sequence's last page, and outputs poisoned with NaN. The refusals of the lengths and the
block table are here too; the rest of the wrapper contract is tested in test_contract.py.

Under the CPU interpreter the shapes are tiny (the interpreter's plan cuts sequences into
blocks of 16 keys over a few splits, so a few dozen keys already walk several blocks and
splits); on a GPU the same tests run, plus one at the benchmark's shape against SDPA."""

import math

import pytest
import torch
import torch.nn.functional as F

from kernels import decode_attention as da
from tests.kernels.attention_support import DTYPES, check
from tests.support import (
    DEVICE,
    fresh_seed,
    poisoned_empty,  # noqa: F401 (autouse: every torch.empty is NaN)
    rand,
    requires_gpu,
)

# The output's tolerance, as in every attention test (tests/kernels/attention_support.py):
# the weights are rounded to the dtype for the second tl.dot, the splits merged in float32
# and the result rounded once: |o - ref| <= 2u |ref| + 4u. An indexing, masking or merging
# bug moves elements by far more.


def lengths(*values):
    return torch.tensor(values, dtype=torch.int32, device=DEVICE)


def reference64(q, k, v, seq_lens, **kwargs):
    """The float64 result, unrounded."""
    return da.reference(q.double(), k.double(), v.double(), seq_lens, **kwargs)


def paged(k, v, page, spare=3):
    """The contiguous cache (B, H_kv, N, d) cut into pages (P, page, H_kv, d) stored in a
    random order, with ``spare`` unused pages of noise, and the block table (B, pages per
    sequence) that finds them."""
    batch, kv_heads, n, d = k.shape
    per_seq = -(-n // page)
    pad = per_seq * page - n
    pages = [
        F.pad(t, (0, 0, 0, pad)).transpose(1, 2).reshape(batch * per_seq, page, kv_heads, d)
        for t in (k, v)
    ]
    total = batch * per_seq + spare
    where = torch.randperm(total, device=DEVICE)[: batch * per_seq]
    k_pages, v_pages = (rand((total, page, kv_heads, d), k.dtype) for _ in range(2))
    k_pages[where], v_pages[where] = pages
    return k_pages, v_pages, where.view(batch, per_seq).to(torch.int32)


# (group, query tokens): one query head per key/value head up to eight, one token or three.
GROUPS = [(1, 1), (4, 1), (8, 1), (4, 3), (1, 5)]
LENGTHS = (1, 37, 70)  # one key; not a multiple of 16 (the block); the whole cache


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("group, n_q", GROUPS, ids=str)
def test_contiguous_cache_matches_float64(group, n_q, dtype, causal):
    seed = fresh_seed()
    kv_heads, d, n = 2, 32, 70
    q = rand((3, kv_heads * group, n_q, d), dtype)
    k, v = rand((3, kv_heads, n, d), dtype), rand((3, kv_heads, n, d), dtype)
    seq_lens = lengths(*LENGTHS)
    got = da.decode_attention(q, k, v, seq_lens, causal=causal)
    assert got.is_contiguous() and got.shape == q.shape and got.dtype == dtype
    check(got, reference64(q, k, v, seq_lens, causal=causal), f"{group=} {n_q=}", seed)


@pytest.mark.parametrize("page", [16, 5, 32], ids=lambda p: f"page{p}")
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("group, n_q", [(1, 1), (4, 2), (8, 1)], ids=str)
def test_paged_cache_matches_float64(group, n_q, dtype, page):
    """Pages in random order; 5 is a page smaller than the block (a tile spans pages) and
    not a power of two; 37 and 70 keys end inside a page."""
    seed = fresh_seed()
    kv_heads, d, n = 2, 32, 70
    q = rand((3, kv_heads * group, n_q, d), dtype)
    k, v = rand((3, kv_heads, n, d), dtype), rand((3, kv_heads, n, d), dtype)
    seq_lens = lengths(*LENGTHS)
    k_pages, v_pages, table = paged(k, v, page)
    # Entries past each sequence's last page are never read: fill them with nonsense.
    for b, n_b in enumerate(LENGTHS):
        table[b, -(-n_b // page) :] = -1
    got = da.decode_attention(q, k_pages, v_pages, seq_lens, block_table=table, causal=n_q > 1)
    want = reference64(q, k, v, seq_lens, causal=n_q > 1)
    check(got, want, f"{page=} {group=} {n_q=}", seed)
    # The reference reads the pages through the table too, and agrees.
    check(got, reference64(q, k_pages, v_pages, seq_lens, block_table=table, causal=n_q > 1),
          "reference through the table", seed)  # fmt: skip


# (splits, BLOCK_M, BLOCK_N, warps, stages): one split (the split kernel writes the output,
# no combine), more splits than the short sequences have blocks (empty slices), more splits
# than the combine takes in one step (COMBINE_BLOCK_S), and wider key blocks.
CONFIGS = [(1, 16, 16, 1, 1), (7, 16, 16, 1, 1), (20, 16, 16, 1, 1), (3, 32, 32, 1, 1),
           (2, 16, 64, 1, 1)]  # fmt: skip


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_split_count_and_block(config, dtype):
    seed = fresh_seed()
    kv_heads, group, d, n = 2, 4, 16, 100
    q = rand((4, kv_heads * group, 2, d), dtype)
    k, v = rand((4, kv_heads, n, d), dtype), rand((4, kv_heads, n, d), dtype)
    seq_lens = lengths(1, 17, 0, 100)  # a sequence of length 0 gives zeros
    got = da.launch(q, k, v, seq_lens, None, True, 0.3, config=config)
    check(got, reference64(q, k, v, seq_lens, causal=True, scale=0.3), str(config), seed)
    assert torch.all(got[2] == 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_causal_with_more_tokens_than_keys_gives_zeros_there(dtype):
    """Bottom-right: token t of n_q sees keys j <= L - n_q + t, so with L = 2 and 5 tokens
    the first three see nothing (zeros) and the last two see one and two keys."""
    seed = fresh_seed()
    q = rand((1, 4, 5, 16), dtype)
    k, v = rand((1, 2, 8, 16), dtype), rand((1, 2, 8, 16), dtype)
    got = da.decode_attention(q, k, v, lengths(2), causal=True)
    assert torch.all(got[:, :, :3] == 0)
    check(got, reference64(q, k, v, lengths(2), causal=True), "L=2, 5 tokens", seed)
    torch.testing.assert_close(got[0, :, 3].float(), v[0, :, 0].repeat_interleave(2, 0).float())


def test_matches_sdpa_with_grouped_heads():
    """Equal lengths, no mask: SDPA with enable_gqa computes the same (in float32 here)."""
    seed = fresh_seed()
    q = rand((2, 8, 1, 64), torch.float16)
    k, v = rand((2, 2, 45, 64), torch.float16), rand((2, 2, 45, 64), torch.float16)
    got = da.decode_attention(q, k, v, lengths(45, 45), scale=0.2)
    want = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=0.2,
                                          enable_gqa=True)  # fmt: skip
    check(got, want, "SDPA", seed)


def test_strided_views_are_read_as_they_are():
    """A cache stored (B, N, H_kv, d) and viewed as (B, H_kv, N, d), a query whose tokens
    lie outside its heads: read in place; a head_dim that is not contiguous: copied."""
    seed = fresh_seed()
    q = rand((2, 1, 4, 32), torch.float16).transpose(1, 2)  # (2, 4, 1, 32)
    k = rand((2, 50, 2, 32), torch.float16).transpose(1, 2)
    v = rand((2, 2, 50, 64), torch.float16)[..., ::2]
    seq_lens = lengths(50, 23)
    got = da.decode_attention(q, k, v, seq_lens)
    check(got, reference64(q, k, v, seq_lens), "views", seed)


def test_plan():
    """At least BLOCK_M = 16 rows (tl.dot), a power of two, at most 64; under the
    interpreter, a few splits (fewer when the sequence has fewer blocks)."""
    for rows in (1, 4, 8, 16, 17, 64, 128):
        splits, block_m, block_n, warps, stages = da.plan(1, 8, rows, 4096)
        assert 16 <= block_m <= 64 and block_m & (block_m - 1) == 0 and block_m >= min(rows, 64)
        assert splits == da.INTERPRETER_SPLITS
    assert da.plan(1, 1, 4, 20)[0] == 2  # 20 keys: two blocks of 16
    for block_n in (da.BLOCK_N_CONTIGUOUS, da.BLOCK_N_PAGED):
        assert block_n >= 16 and block_n & (block_n - 1) == 0


@requires_gpu
def test_plan_on_the_gpu():
    """No split when batch x key/value heads reach PROGRAMS_PER_SM per SM; as many splits
    as stay within that otherwise, never a slice shorter than MIN_SPLIT_KEYS."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert da.plan(2 * sms, 1, 4, 131072, 0)[0] == 1
    splits = da.plan(1, 8, 4, 131072, 0)[0]
    assert splits == da.PROGRAMS_PER_SM * sms // 8
    assert da.plan(1, 8, 4, 1000, 0)[0] <= -(-1000 // da.MIN_SPLIT_KEYS)
    assert da.plan(1, 8, 4, 131072, 0, paged=True)[2] == da.BLOCK_N_PAGED


# ---- what test_contract.py's row does not reach: the lengths and the block table ---------


def _valid():
    q = rand((2, 4, 1, 16), torch.float16)
    k, v = rand((2, 2, 20, 16), torch.float16), rand((2, 2, 20, 16), torch.float16)
    return q, k, v, lengths(20, 3)


@pytest.mark.parametrize(
    "seq_lens, error, says",
    [
        ([20.0, 3.0], TypeError, r"seq_lens has dtype"),
        ([[20, 3]], ValueError, r"seq_lens must be 1-D"),
        ([20], ValueError, r"seq_lens has shape \(1,\); q has batch 2"),
        ([21, 3], ValueError, r"seq_lens must lie in \[0, 20\]"),
        ([20, -1], ValueError, r"seq_lens must lie in \[0, 20\]"),
    ],
    ids=["float", "2-d", "batch", "too-long", "negative"],
)
def test_bad_lengths_are_refused(seq_lens, error, says):
    q, k, v, _ = _valid()
    dtype = torch.float32 if error is TypeError else torch.int32
    with pytest.raises(error, match=f"^decode_attention: {says}"):
        da.decode_attention(q, k, v, torch.tensor(seq_lens, dtype=dtype, device=DEVICE))


def test_lengths_as_a_list_are_refused():
    q, k, v, _ = _valid()
    with pytest.raises(TypeError, match="^decode_attention: seq_lens must be a torch.Tensor"):
        da.decode_attention(q, k, v, [20, 3])


def _paged_valid():
    q, k, v, seq_lens = _valid()
    k_pages, v_pages, table = paged(k, v, 8)  # 3 pages per sequence, 9 pages in all
    return q, k_pages, v_pages, seq_lens, table


def test_bad_block_tables_are_refused():
    q, k, v, seq_lens, table = _paged_valid()
    bad = table.clone()
    bad[1, 0] = 9  # a page that does not exist, in a page sequence 1 (3 keys) reads
    with pytest.raises(ValueError, match=r"^decode_attention: block_table has entries outside"):
        da.decode_attention(q, k, v, seq_lens, block_table=bad)
    with pytest.raises(ValueError, match=r"^decode_attention: block_table has shape"):
        da.decode_attention(q, k, v, seq_lens, block_table=table[:1])
    with pytest.raises(TypeError, match=r"^decode_attention: block_table has dtype"):
        da.decode_attention(q, k, v, seq_lens, block_table=table.float())
    with pytest.raises(ValueError, match=r"^decode_attention: block_table must be 2-D"):
        da.decode_attention(q, k, v, seq_lens, block_table=table.flatten())
    with pytest.raises(ValueError, match=r"^decode_attention: seq_lens must lie in \[0, 24\]"):
        da.decode_attention(q, k, v, lengths(25, 3), block_table=table)
    # An entry past a sequence's last page is never read: any value is accepted.
    bad = table.clone()
    bad[1, 1:] = -7
    da.decode_attention(q, k, v, seq_lens, block_table=bad)


def test_a_transposed_block_table_is_read_right():
    seed = fresh_seed()
    q, k, v, seq_lens, table = _paged_valid()
    got = da.decode_attention(q, k, v, seq_lens, block_table=table.t().contiguous().t())
    want = reference64(q, k, v, seq_lens, block_table=table)
    check(got, want, "transposed table", seed)


@requires_gpu
@pytest.mark.parametrize("paged_cache", [False, True], ids=["contiguous", "paged"])
def test_the_benchmark_shape_against_sdpa(paged_cache):
    """The benchmark's heads (32 query, 8 key/value, d = 128) over 20,000 keys, bf16, with
    the GPU's plan (many splits at batch 2): the same as SDPA (float32) to bf16's tolerance."""
    seed = fresh_seed()
    n = 20000
    q = rand((2, 32, 1, 128), torch.bfloat16)
    k, v = rand((2, 8, n, 128), torch.bfloat16), rand((2, 8, n, 128), torch.bfloat16)
    seq_lens = lengths(n, n)
    if paged_cache:
        k_pages, v_pages, table = paged(k, v, 256)
        got = da.decode_attention(q, k_pages, v_pages, seq_lens, block_table=table)
    else:
        got = da.decode_attention(q, k, v, seq_lens)
    want = F.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), enable_gqa=True, scale=1 / math.sqrt(128)
    )
    check(got, want, "benchmark shape", seed)
