"""Decoding attention: a few new query tokens per sequence attend to a long KV cache,
``softmax(q @ k^T * scale) @ v`` per batch and query head, with grouped-query attention
(GQA) and per-sequence lengths, from a contiguous cache or a paged one.

At one query token, lesson 12's kernel launches one program per (batch, head) and a
single query block: B x H programs, far fewer than the GPU has SMs at small batches, each
walking the whole cache alone. This file splits the work the other way ("split-KV", or
flash-decoding):

- **Split kernel.** One program per (split, key/value head, batch): it takes every query
  head of its GQA group, times every query token, as the rows of one tile (so that
  ``tl.dot`` has its 16 rows even at one token), walks its slice of the sequence's keys
  with an online softmax in base 2, and writes its partial output (already divided by its
  own sum) and the log-sum-exp of each row. The key/value head is read once for the whole
  group; nothing is repeated in memory.
- **Combine kernel.** One program per (batch, head, query token) merges the splits: each
  partial output weighted by ``exp2(lse_split - max)``, divided by the sum of the weights.
  With one split the split kernel writes the output itself and the combine is skipped.
- **Paged cache.** With a block table, the keys of sequence b at position n live in page
  ``block_table[b, n // page]``, row ``n % page``: the kernel looks the page up per row of
  the tile, so any page size works and pages may lie in any order.

``plan`` picks the number of splits (as many as keep the programs within two per SM,
never a slice shorter than ``MIN_SPLIT_KEYS``) and the tile.

Sections, as in every kernel file of the book: ``kernel``, ``launch`` (``plan`` and
``launch``, which launches without a check), ``checks`` (``decode_attention``, the checked
entry point) and ``reference``.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1``
set before this module is imported).
"""

import math

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit(do_not_specialize=["n_q", "group", "page_size"])
def decode_split_kernel(
    Q, K, V, SeqLens, BlockTable, Out, Lse,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,  # contiguous: batch, head, row; paged: page, head, row
    stride_vb, stride_vh, stride_vn,
    stride_tb,  # one row of the block table
    stride_ob, stride_oh, stride_om, stride_os,  # Out: batch, head, query, split
    n_q, group, page_size, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    PAGED: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr, WRITE_LSE: tl.constexpr,
):  # fmt: skip
    # Grid (splits, key/value heads x row blocks, batch).
    split = tl.program_id(0)
    n_splits = tl.num_programs(0)
    row_blocks = (group * n_q + BLOCK_M - 1) // BLOCK_M
    kv_head = tl.program_id(1) // row_blocks
    batch = tl.program_id(2).to(tl.int64)
    # The rows of the tile: query head (kv_head * group + g) x query token t, r = g * n_q + t.
    r = (tl.program_id(1) % row_blocks) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = r < group * n_q
    head = (kv_head * group + r // n_q).to(tl.int64)  # int64: times a stride, past 2**31
    tok = (r % n_q).to(tl.int64)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(
        Q + batch * stride_qb + head[:, None] * stride_qh + tok[:, None] * stride_qm
        + offs_d[None, :], mask=row_ok[:, None], other=0.0,
    )  # fmt: skip
    if UPCAST:  # the CPU interpreter cannot do bf16 arithmetic: work in float32
        q = q.to(tl.float32)
    # This split's slice of the sequence: its keys cut into n_splits slices of whole blocks.
    seq_len = tl.load(SeqLens + batch)
    per_split = tl.cdiv(tl.cdiv(seq_len, n_splits), BLOCK_N) * BLOCK_N
    lo = split * per_split
    hi = tl.minimum(lo + per_split, seq_len)  # hi <= lo: an empty slice
    last_key = seq_len - n_q + tok  # causal: token t sees keys j <= last_key (bottom-right)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)  # running max (base 2)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)  # running sum of exp2(s - m_i)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)  # running sum of p @ v
    k_head = K + kv_head.to(tl.int64) * stride_kh
    v_head = V + kv_head.to(tl.int64) * stride_vh
    for start_n in range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        key_ok = offs_n < hi
        if PAGED:  # row n of the sequence: row n % page of page block_table[b, n // page]
            page = tl.load(BlockTable + batch * stride_tb + offs_n // page_size, mask=key_ok)
            in_page = (offs_n % page_size).to(tl.int64)  # times a stride the caller chose
            k_row = page.to(tl.int64) * stride_kb + in_page * stride_kn
            v_row = page.to(tl.int64) * stride_vb + in_page * stride_vn
        else:
            k_row = batch * stride_kb + offs_n.to(tl.int64) * stride_kn
            v_row = batch * stride_vb + offs_n.to(tl.int64) * stride_vn
        kt = tl.load(k_head + k_row[None, :] + offs_d[:, None], mask=key_ok[None, :], other=0.0)
        v = tl.load(v_head + v_row[:, None] + offs_d[None, :], mask=key_ok[:, None], other=0.0)
        if UPCAST:
            kt = kt.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, kt) * qk_scale  # scores in base 2: exp2(s) = exp(q.k * scale)
        keep = key_ok[None, :]
        if CAUSAL:
            keep = keep & (offs_n[None, :] <= last_key[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)  # a row with no key yet: no NaN
        p = tl.exp2(s - m_sub[:, None])
        alpha = tl.exp2(m_i - m_sub)  # rescales what was summed against the old max
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    # This slice's output, divided by its own sum, and its log-sum-exp (base 2); a row that
    # saw no key (an empty slice) gives zeros and -inf, which the combine weighs as 0.
    seen = l_i > 0
    l_i = tl.where(seen, l_i, 1.0)
    o_row = batch * stride_ob + head * stride_oh + tok * stride_om + split.to(tl.int64) * stride_os
    tl.store(
        Out + o_row[:, None] + offs_d[None, :],
        (acc / l_i[:, None]).to(Out.dtype.element_ty),
        mask=row_ok[:, None],
    )
    if WRITE_LSE:  # Out is then (rows, splits, HEAD_DIM) and Lse (rows, splits), contiguous
        lse = tl.where(seen, m_i + tl.log2(l_i), float("-inf"))
        tl.store(Lse + o_row // HEAD_DIM, lse, mask=row_ok)


@triton.jit
def decode_combine_kernel(
    Part, Lse, Out, n_splits, HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr
):  # fmt: skip
    # One program per output row (batch, head, query token): Part is (rows, splits, d)
    # float32, Lse (rows, splits), Out (rows, d), all contiguous.
    row = tl.program_id(0).to(tl.int64)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.full([], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([], dtype=tl.float32)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for s0 in range(0, n_splits, BLOCK_S):  # BLOCK_S splits at a time, online as above
        offs_s = s0 + tl.arange(0, BLOCK_S)
        lse = tl.load(Lse + row * n_splits + offs_s, mask=offs_s < n_splits, other=float("-inf"))
        part = tl.load(
            Part + (row * n_splits + offs_s[:, None]) * HEAD_DIM + offs_d[None, :],
            mask=offs_s[:, None] < n_splits, other=0.0,
        )  # fmt: skip
        m_new = tl.maximum(m_i, tl.max(lse, 0))
        m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
        w = tl.exp2(lse - m_sub)  # each split's weight: its sum of exp, against the max
        alpha = tl.exp2(m_i - m_sub)
        acc = acc * alpha + tl.sum(part * w[:, None], 0)
        l_i = l_i * alpha + tl.sum(w, 0)
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)  # no key at all: zeros
    tl.store(Out + row * HEAD_DIM + offs_d, (acc / l_i).to(Out.dtype.element_ty))


# --8<-- [end:kernel]


# --8<-- [start:launch]
LOG2_E = 1.4426950408889634  # exp(x) = exp2(x * log2(e))
# From sweeps on an H100 (bf16, 32 query heads over 8 key/value heads, d = 128, batch 1 to
# 32, 4k to 128k keys): as many splits as keep the programs within PROGRAMS_PER_SM per SM
# (none when batch x key/value heads alone reach that); BLOCK_N keys per step, 64 on a
# contiguous cache and 128 on a paged one (fewer steps, each waiting once for its page
# numbers); 4 warps, 3 stages.
PROGRAMS_PER_SM = 2
MIN_SPLIT_KEYS = 256  # no slice shorter than this: below it, the combine costs more
MAX_SPLITS = 256
BLOCK_N_CONTIGUOUS, BLOCK_N_PAGED, NUM_WARPS, NUM_STAGES = 64, 128, 4, 3
COMBINE_BLOCK_S = 16  # the combine's splits per step
INTERPRETER_SPLITS, INTERPRETER_BLOCK_N = 3, 16  # on the CPU: a few splits of small blocks
_SM_COUNT: dict[int, int] = {}  # device index -> SMs, looked up once per device

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


def plan(
    batch: int, kv_heads: int, rows: int, max_len: int, device: int = -1, paged: bool = False
) -> tuple:
    """The launch for ``rows`` = (query heads per key/value head) x (query tokens) rows per
    key/value head, over sequences of at most ``max_len`` keys, on CUDA device ``device``
    (-1: the interpreter), from a ``paged`` cache or not: (splits, BLOCK_M, BLOCK_N,
    num_warps, num_stages)."""
    block_m = min(64, max(16, 1 << (rows - 1).bit_length()))
    if device < 0:
        keys = (max_len + INTERPRETER_BLOCK_N - 1) // INTERPRETER_BLOCK_N
        return max(1, min(INTERPRETER_SPLITS, keys)), block_m, INTERPRETER_BLOCK_N, 1, 1
    if device not in _SM_COUNT:
        _SM_COUNT[device] = torch.cuda.get_device_properties(device).multi_processor_count
    programs = batch * kv_heads * ((rows + block_m - 1) // block_m)
    splits = PROGRAMS_PER_SM * _SM_COUNT[device] // max(programs, 1)
    splits = max(1, min(splits, MAX_SPLITS, (max_len + MIN_SPLIT_KEYS - 1) // MIN_SPLIT_KEYS))
    block_n = BLOCK_N_PAGED if paged else BLOCK_N_CONTIGUOUS
    return splits, block_m, block_n, NUM_WARPS, NUM_STAGES


def launch(q, k, v, seq_lens, block_table=None, causal=False, scale=1.0, config=None):
    """o (B, H, n_q, d) in q's dtype; no checks. q (B, H, n_q, d); k, v (B, H_kv, N, d) or,
    with ``block_table`` (B, pages per sequence), pages (P, page, H_kv, d); the last
    dimension of each contiguous. ``config``: ``plan``'s five values."""
    batch, heads, n_q, d = q.shape
    paged = block_table is not None
    kv_heads = k.shape[2] if paged else k.shape[1]
    max_len = block_table.shape[1] * k.shape[1] if paged else k.shape[2]
    group = heads // kv_heads
    if config is None:
        config = plan(batch, kv_heads, group * n_q, max_len, q.get_device(), paged)
    splits, block_m, block_n, warps, stages = config
    o = torch.empty((batch, heads, n_q, d), dtype=q.dtype, device=q.device)
    rows = batch * heads * n_q
    if splits == 1:  # the split kernel writes the output itself: no partials, no combine
        part, lse, part_strides = o, o, (heads * n_q * d, n_q * d, d, 0)
    else:  # partial outputs (rows, splits, d), then log-sum-exps (rows, splits): float32
        part = torch.empty(rows * splits * (d + 1), dtype=torch.float32, device=q.device)
        lse = part[rows * splits * d :]
        part_strides = (heads * n_q * splits * d, n_q * splits * d, splits * d, d)
    if paged:  # (page, head, row) strides of the pages (P, page, H_kv, d)
        ks, vs = (k.stride(0), k.stride(2), k.stride(1)), (v.stride(0), v.stride(2), v.stride(1))
    else:  # (batch, head, row) strides of (B, H_kv, N, d)
        ks, vs = k.stride()[:3], v.stride()[:3]
    table = block_table if paged else seq_lens  # not read when the cache is not paged
    grid = (splits, kv_heads * ((group * n_q + block_m - 1) // block_m), batch)
    decode_split_kernel[grid](
        q, k, v, seq_lens, table, part, lse, *q.stride()[:3], *ks, *vs, table.stride(0),
        *part_strides, n_q, group, k.shape[1], scale * LOG2_E,
        HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n, PAGED=paged, CAUSAL=causal,
        UPCAST=_INTERPRET and q.dtype == torch.bfloat16, WRITE_LSE=splits > 1,
        num_warps=warps, num_stages=stages,
    )  # fmt: skip
    if splits > 1:
        decode_combine_kernel[(rows,)](
            part, lse, o, splits, HEAD_DIM=d, BLOCK_S=COMBINE_BLOCK_S, num_warps=4
        )
    return o


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16)  # tl.dot on tensor cores
HEAD_DIMS = (16, 32, 64, 128)  # powers of two: tl.arange needs one; tl.dot needs >= 16
MAX_QUERIES = 128  # query tokens per sequence: a decoding kernel, for a few of them
MAX_GRID_YZ = 65535  # batch, and key/value heads x row blocks: CUDA's limit on grid axes 2, 3
MAX_FLOAT32 = 3.4e38  # about float32's largest: the kernel gets scale * log2(e) as a float32
LENGTH_DTYPES = (torch.int32, torch.int64)
_FORWARD_AD = torch.autograd.forward_ad


def _on_device(device: int, fn, *args, **kwargs):
    """Run ``fn`` with ``device`` current: Triton launches on the current GPU. (Device -1
    is the CPU, under the interpreter: nothing to switch.)"""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args, **kwargs)
    with torch.cuda.device(device):
        return fn(*args, **kwargs)


def _check_tensor(name: str, t: object, dims: int, dtypes: tuple, what: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"decode_attention: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"decode_attention: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"decode_attention: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"decode_attention: {name} must be a dense tensor, got {got}")
    if t.dtype not in dtypes:
        raise TypeError(f"decode_attention: {name} has dtype {t.dtype}; supported: {dtypes}")
    if t.dim() != dims:
        raise ValueError(
            f"decode_attention: {name} must be {dims}-D {what}, got shape {tuple(t.shape)}"
        )
    if torch.is_grad_enabled() and t.requires_grad:
        raise ValueError(
            f"decode_attention: {name} requires grad, but this kernel is a forward only (no "
            f"backward); call it under torch.no_grad() or torch.inference_mode()"
        )


def decode_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    seq_lens: torch.Tensor,
    *,
    block_table: torch.Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    """Attention of a few query tokens per sequence over a KV cache, each sequence with its
    own length: for batch b, ``softmax(q[b] @ k[b, :, :L]^T * scale) @ v[b, :, :L]`` with
    L = ``seq_lens[b]``, query head h reading key/value head h // (H / H_kv) (grouped-query
    attention, as SDPA's ``enable_gqa=True``; nothing is repeated in memory). Inference
    only: inputs that require grad are refused while grad mode is on, as are dual tensors.

    ``q`` (B, H, n_q, d), n_q <= 128 query tokens (the newest ones of each sequence).
    The cache, without ``block_table``: ``k`` and ``v`` (B, H_kv, N, d), L <= N. With
    ``block_table`` (B, pages per sequence; int32 or int64): ``k`` and ``v`` are pages
    (P, page, H_kv, d), and key n of sequence b is ``k[block_table[b, n // page], n %
    page]``; entries past a sequence's last page are not read (any value). ``seq_lens``
    (B,), int32 or int64, each in [0, N] (paged: [0, pages per sequence x page]); a
    sequence of length 0 gives zeros. q, k, v: one dtype, float16 or bfloat16, d in 16,
    32, 64, 128; all tensors on one CUDA device (which need not be the current one); any
    strides with the last dimension of q, k, v contiguous (others are copied once).
    ``causal``: False (every query token sees all L keys) or True (token t of n_q sees
    keys j <= L - n_q + t, the bottom-right alignment of a KV cache). ``scale``: None for
    1/sqrt(d), or a Python int or float, > 0 and with ``scale * log2(e)`` finite in
    float32. The result is contiguous (B, H, n_q, d), in q's dtype. Checks the lengths and
    the block table's used entries on the device (one synchronisation); ``launch`` is the
    unchecked path. Raises ``TypeError``/``ValueError`` naming the argument.
    """
    _check_tensor("q", q, 4, SUPPORTED_DTYPES, "(batch, heads, queries, head_dim)")
    paged = block_table is not None
    cache = "(pages, page, kv_heads, head_dim)" if paged else "(batch, kv_heads, keys, head_dim)"
    _check_tensor("k", k, 4, SUPPORTED_DTYPES, cache)
    _check_tensor("v", v, 4, SUPPORTED_DTYPES, cache)
    _check_tensor("seq_lens", seq_lens, 1, LENGTH_DTYPES, "(batch,)")
    if paged:
        _check_tensor("block_table", block_table, 2, LENGTH_DTYPES, "(batch, pages per sequence)")
    if not (k.dtype == v.dtype == q.dtype):
        raise TypeError(
            f"decode_attention: q, k, v have dtypes {q.dtype}, {k.dtype}, {v.dtype}; one"
        )
    device = q.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    named = [("k", k), ("v", v), ("seq_lens", seq_lens)] + [("block_table", block_table)] * paged
    for name, t in named:
        if t.get_device() != device:
            raise ValueError(f"decode_attention: {name} is on {t.device} and q on {q.device}; one")
    batch, heads, n_q, head_dim = q.shape
    if k.shape != v.shape:
        raise ValueError(
            f"decode_attention: k has shape {tuple(k.shape)} and v {tuple(v.shape)}; they "
            "must match"
        )
    kv_heads = k.shape[2] if paged else k.shape[1]
    if not paged and k.shape[0] != batch:
        raise ValueError(
            f"decode_attention: k and v have batch {k.shape[0]}; q has {batch} (no broadcasting)"
        )
    if seq_lens.shape[0] != batch or (paged and block_table.shape[0] != batch):
        got = tuple(seq_lens.shape) if seq_lens.shape[0] != batch else tuple(block_table.shape)
        name = "seq_lens" if seq_lens.shape[0] != batch else "block_table"
        raise ValueError(f"decode_attention: {name} has shape {got}; q has batch {batch}")
    if (kv_heads == 0 and heads) or (kv_heads and heads % kv_heads):
        raise ValueError(
            f"decode_attention: k and v have {kv_heads} heads and q has {heads}; q's heads "
            f"must be a multiple of k's (grouped-query attention)"
        )
    if head_dim not in HEAD_DIMS or k.shape[3] != head_dim:
        raise ValueError(
            f"decode_attention: head_dim (last dimension) of q is {head_dim} and of k, v is "
            f"{k.shape[3]}; it must be one of {HEAD_DIMS} for all three"
        )
    if n_q > MAX_QUERIES:
        raise ValueError(
            f"decode_attention: q has {n_q} query tokens; this decoding kernel takes at most "
            f"{MAX_QUERIES} (use kernels/attention.py for a prompt)"
        )
    rows = (heads // kv_heads if kv_heads else 0) * n_q
    row_blocks = (rows + 63) // 64
    if batch > MAX_GRID_YZ or kv_heads * row_blocks > MAX_GRID_YZ:
        raise ValueError(
            f"decode_attention: q has batch {batch} and k, v {kv_heads} heads; the batch and "
            f"the heads x ceil(rows / 64) must each be at most {MAX_GRID_YZ} (grid axes)"
        )
    if type(causal) is not bool:
        raise TypeError(f"decode_attention: causal must be a bool, got {type(causal).__name__}")
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(
            "decode_attention: scale must be None or a Python float or int, "
            f"got {type(scale).__name__}"
        )
    if not 0 < scale <= MAX_FLOAT32 / LOG2_E:
        raise ValueError(f"decode_attention: scale must be > 0 and finite in float32, got {scale}")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("q", q), ("k", k), ("v", v)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"decode_attention: {name} is a dual tensor (forward-mode AD), but this "
                    f"kernel computes no tangent; pass forward_ad.unpack_dual({name}).primal"
                )
    if q.numel() == 0:
        return torch.empty((batch, heads, n_q, head_dim), dtype=q.dtype, device=q.device)
    page = k.shape[1] if paged else 0
    capacity = block_table.shape[1] * page if paged else k.shape[2]
    # The lengths and the table entries they use, checked on the device: one sync.
    bad_len = (seq_lens < 0) | (seq_lens > capacity)
    flags = [bad_len.any()]
    if paged:
        used = torch.arange(block_table.shape[1], device=q.device) * page < seq_lens[:, None]
        bad_page = used & ((block_table < 0) | (block_table >= k.shape[0]))
        flags.append(bad_page.any())
    flags = torch.stack(flags).tolist()
    if flags[0]:
        raise ValueError(
            f"decode_attention: seq_lens must lie in [0, {capacity}] (the keys the cache "
            f"holds per sequence), got values from {int(seq_lens.min())} to {int(seq_lens.max())}"
        )
    if paged and flags[1]:
        raise ValueError(
            f"decode_attention: block_table has entries outside [0, {k.shape[0]}) (the pages "
            "k and v hold) among those the sequences' lengths use"
        )
    # A view with the neg bit stores -x and reads as x; the kernel sees only memory, whose
    # last dimension it reads as contiguous.
    q, k, v = (t.resolve_neg() if t.is_neg() else t for t in (q, k, v))
    q, k, v = (t if t.stride(3) == 1 or t.shape[3] == 1 else t.contiguous() for t in (q, k, v))
    if paged and block_table.stride(1) != 1:
        block_table = block_table.contiguous()
    return _on_device(device, launch, q, k, v, seq_lens, block_table, causal, float(scale))


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    seq_lens: torch.Tensor,
    *,
    block_table: torch.Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> torch.Tensor:
    """``decode_attention`` in float64 by torch alone, one sequence at a time: the cache
    gathered through the block table when there is one, the key/value heads repeated for
    the groups, the scores materialised; rounded once to q's dtype."""
    batch, heads, n_q, d = q.shape
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    out = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    for b in range(batch):
        n = int(seq_lens[b])
        if block_table is not None:  # its pages (pages, page, H_kv, d) -> (H_kv, keys, d)
            pages = block_table[b, : (n + k.shape[1] - 1) // k.shape[1]].long()
            kb = k[pages].flatten(0, 1)[:n].transpose(0, 1)
            vb = v[pages].flatten(0, 1)[:n].transpose(0, 1)
        else:
            kb, vb = k[b, :, :n], v[b, :, :n]
        group = heads // kb.shape[0] if kb.shape[0] else 1
        kb = kb.double().repeat_interleave(group, 0)
        vb = vb.double().repeat_interleave(group, 0)
        s = q[b].double() @ kb.transpose(-2, -1) * scale  # (H, n_q, n)
        keep = torch.ones(n_q, n, dtype=torch.bool, device=q.device)
        if causal:
            keep = keep.tril(n - n_q)
        seen = keep.any(-1, keepdim=True)  # a token that sees no key: zeros
        p = torch.softmax(s.masked_fill(~keep, float("-inf")).masked_fill(~seen, 0.0), -1)
        out[b] = (p * seen) @ vb
    return out.to(q.dtype)


# --8<-- [end:reference]
