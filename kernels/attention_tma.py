"""Flash Attention, forward and backward, for Hopper, with every tile moved by the Tensor
Memory Accelerator: ``softmax(q @ k^T * scale) @ v`` per batch and head, as
``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
scale=scale)`` computes it, differentiable in q, k and v.

Lesson 12's kernel (``kernels/attention.py``) computes the same thing with pointer loads.
This file keeps its algorithm (one program per block of queries of one head, an online
softmax in base 2 with ``scale * log2(e)`` folded into one multiplication, the causal
mask applied only on the blocks that straddle the diagonal) and changes how tiles move:

- **Tensor descriptors.** The host describes q, k, v and the output to Triton once, as
  4-D tensors (``TensorDescriptor``: base address, the sizes (batch, heads, sequence,
  head_dim), the strides, and the box one copy moves, one head's BLOCK_M or BLOCK_N rows).
  In the kernel, ``desc.load([batch, head, row, 0])`` is one TMA instruction that brings
  a whole (rows, head_dim) tile into shared memory, rows past the end of the sequence
  filled with zeros, and ``desc.store`` writes the output tile back, rows past the end
  clipped. No per-element address or mask is left in the program, and the tiles land in
  shared memory in the layout the tensor cores read. (Descriptors built in the kernel
  with ``tl.make_tensor_descriptor``, one per program and head, ran slower at d = 128 in
  a sweep on an H100.)
- **Grouped-query attention.** k and v may have fewer heads than q: query head h reads
  key/value head h // (H / H_kv) where it lies, with no repeated copy.
- **Tiles and warp specialisation as measured.** ``plan`` gives each head dimension the
  tile, warps, pipeline stages and ``tl.range(..., warp_specialize=...)`` setting measured
  fastest on an H100.
- **The backward**, lesson 12's in its algorithm: the forward saves each row's
  log-sum-exp (base 2) when a gradient is wanted; a small kernel computes ``delta =
  rowsum(dO * O)``; one kernel gives each program a block of keys of one key/value head
  and sums its dK and dV over the query blocks of every query head of its group; one
  gives each program a block of queries and sums its dQ over the key blocks (or, as
  ``plan`` may choose, the dK/dV kernel adds dQ in float32 with atomics). Every tile
  moves through a descriptor; the probabilities are recomputed with ``exp2``.

Sections, as in every kernel file of the book: ``kernel`` (``forward`` and ``backward``),
``launch`` (``plan``, ``launch`` and ``launch_backward``, which launch without a check),
``checks`` (``attention_tma``, the checked entry point), ``autograd``
(``AttentionTMAFunction``) and ``reference``.

Causal comes in the two alignments of lesson 12: ``causal=True`` (or ``"top_left"``)
lets query i see keys j <= i, as SDPA's ``is_causal=True``; ``"bottom_right"`` lets it
see keys j <= i + n_k - n_q (the last query sees the last key, as decoding with a KV
cache needs). A row that sees no key gives zeros and passes no gradient.

Runs on a CUDA GPU of compute capability 9.0 or newer (H100, H200), or on the CPU under
the Triton interpreter (``TRITON_INTERPRET=1`` set before this module is imported),
which reads host descriptors in software. It imports ``TensorDescriptor`` from
``triton.tools.tensor_descriptor`` (Triton 3.4 and newer).
"""

import math

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor  # the host side of a TMA copy


# --8<-- [start:kernel]
# --8<-- [start:forward]
@triton.jit
def _load_tile(desc, batch, head, row, ROWS: tl.constexpr, HEAD_DIM: tl.constexpr):
    # One TMA copy: the (1, 1, ROWS, HEAD_DIM) box of a 4-D (batch, heads, sequence,
    # head_dim) descriptor at (batch, head, row, 0), rows past the sequence read as zeros;
    # the two leading 1s are dropped.
    return desc.load([batch, head, row, 0]).reshape(ROWS, HEAD_DIM)


@triton.jit
def _attn_fwd_tma_steps(
    acc, l_i, m_i, q, k_desc, v_desc, batch, kv_head, offs_m, lo, hi, n_k, diag, qk_scale,
    BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr,
    CAUSAL: tl.constexpr, UPCAST: tl.constexpr, WARP_SPECIALIZE: tl.constexpr,
):  # fmt: skip
    # Key/value blocks [lo, hi) for one block of queries, as in lesson 12's kernel; only
    # the loads changed. MASKED: the blocks on the diagonal (causal) or the ragged last
    # block of keys; every other block is used whole.
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        k = _load_tile(k_desc, batch, kv_head, start_n, BLOCK_N, HEAD_DIM)
        v = _load_tile(v_desc, batch, kv_head, start_n, BLOCK_N, HEAD_DIM)
        if UPCAST:  # the CPU interpreter cannot do bf16 arithmetic: work in float32
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, k.T)  # k.T: a view of the tile in shared memory, no data moved
        if MASKED:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            keep = offs_n[None, :] < n_k  # zero-filled rows past n_k must not count
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[None, :] <= offs_m[:, None] + diag)
            s = tl.where(keep, s * qk_scale, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            # A row that has seen no key yet subtracts 0, not -inf (no NaN).
            m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
            s = s - m_sub[:, None]
        else:
            # No mask: the scale goes in with the subtraction, one fused multiply-add
            # per score (the max of s * scale is the max of s, times scale > 0).
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            m_sub = m_new
            s = s * qk_scale - m_new[:, None]
        p = tl.exp2(s)
        alpha = tl.exp2(m_i - m_sub)  # rescales what was summed against the old max
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


# Lengths are not specialised on (divisible by 16 or not): one compile serves every N.
@triton.jit(do_not_specialize=["n_q", "n_k", "diag"])
def attn_fwd_tma_kernel(
    q_desc, k_desc, v_desc, o_desc,  # 4-D descriptors (batch, heads, sequence, head_dim)
    LSE,  # (B, H, n_q) float32 for the backward's log-sum-exp, or None (inference)
    n_q, n_k, diag, qk_scale,
    GROUP,  # query heads per key/value head (grouped-query attention; 1: one each)
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WARP_SPECIALIZE: tl.constexpr,
):  # fmt: skip
    # Grid (query blocks, heads, batch): this program owns BLOCK_M queries of one head.
    pid = tl.program_id(0)
    if CAUSAL:  # the last query blocks have the most keys to visit: start them first
        pid = tl.num_programs(0) - 1 - pid
    head = tl.program_id(1)
    kv_head = head // GROUP  # the key/value head this query head reads, never copied
    batch = tl.program_id(2)
    m0 = pid * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    q = _load_tile(q_desc, batch, head, m0, BLOCK_M, HEAD_DIM)  # stays in shared memory
    if UPCAST:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)  # running max (base 2)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)  # running sum of exp2(s - m_i)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)  # running sum of p @ v
    # Which key blocks need a mask, as in lesson 12: causal, keys [0, m0 + diag] are seen
    # by every query of the block; the blocks up to the last query's last key straddle
    # the diagonal; later keys are never loaded. The ragged last block is masked too.
    full_end = (n_k // BLOCK_N) * BLOCK_N
    hi = n_k
    if CAUSAL:
        first_row_sees = tl.maximum(m0 + diag + 1, 0)  # how many keys query m0 sees
        full_end = tl.minimum(full_end, (first_row_sees // BLOCK_N) * BLOCK_N)
        hi = tl.minimum(m0 + BLOCK_M + diag, n_k)
    acc, l_i, m_i = _attn_fwd_tma_steps(
        acc, l_i, m_i, q, k_desc, v_desc, batch, kv_head, offs_m, 0, full_end, n_k, diag,
        qk_scale, BLOCK_N, HEAD_DIM, False, CAUSAL, UPCAST, WARP_SPECIALIZE,
    )  # fmt: skip
    acc, l_i, m_i = _attn_fwd_tma_steps(
        acc, l_i, m_i, q, k_desc, v_desc, batch, kv_head, offs_m, full_end, hi, n_k, diag,
        qk_scale, BLOCK_N, HEAD_DIM, True, CAUSAL, UPCAST, False,
    )  # fmt: skip
    l_i = tl.where(l_i > 0, l_i, 1.0)  # a row that saw no key: zeros, not NaN
    if LSE is not None:  # training: p = exp2(s - lse) later, -inf on a row with no key
        stats = (batch.to(tl.int64) * tl.num_programs(1) + head) * n_q
        tl.store(LSE + stats + offs_m, m_i + tl.log2(l_i), mask=offs_m < n_q)
    o = (acc / l_i[:, None]).to(o_desc.dtype)  # one rounding, at the store
    # One TMA copy back; rows past n_q (a ragged last block) are not written.
    o_desc.store([batch, head, m0, 0], o.reshape(1, 1, BLOCK_M, HEAD_DIM))


# --8<-- [end:forward]


# --8<-- [start:backward]
@triton.jit(do_not_specialize=["n_q"])
def attn_bwd_preprocess_tma_kernel(
    o_desc, do_desc, DELTA, n_q, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr
):
    # delta_i = sum_d dO[i, d] * O[i, d], the row sums that dS = P * (dP - delta) needs.
    m0 = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)
    batch = tl.program_id(2)
    o = _load_tile(o_desc, batch, head, m0, BLOCK_M, HEAD_DIM).to(tl.float32)
    do = _load_tile(do_desc, batch, head, m0, BLOCK_M, HEAD_DIM).to(tl.float32)
    offs_m = m0 + tl.arange(0, BLOCK_M)
    stats = (batch.to(tl.int64) * tl.num_programs(1) + head) * n_q
    tl.store(DELTA + stats + offs_m, tl.sum(o * do, 1), mask=offs_m < n_q)


@triton.jit
def _attn_dkdv_tma_steps(
    dk, dv, k, v, q_desc, do_desc, lse_ptr, delta_ptr, dq_out, batch, head, offs_n,
    lo, hi, n_q, diag, qk_scale, sm_scale,
    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr,
    CAUSAL: tl.constexpr, UPCAST: tl.constexpr, ATOMIC_DQ: tl.constexpr,
):  # fmt: skip
    # Query blocks [lo, hi) of one query head against one block of keys, as in lesson 12:
    # the tiles are transposed (keys down, queries across), so dK and dV come out of
    # tl.dot as they are stored. Rows past n_q load as zeros and add nothing.
    for start_m in range(lo, hi, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        q = _load_tile(q_desc, batch, head, start_m, BLOCK_M, HEAD_DIM)
        do = _load_tile(do_desc, batch, head, start_m, BLOCK_M, HEAD_DIM)
        if MASKED:
            lse = tl.load(lse_ptr + offs_m, mask=offs_m < n_q, other=0.0)
            delta = tl.load(delta_ptr + offs_m, mask=offs_m < n_q, other=0.0)
        else:
            lse = tl.load(lse_ptr + offs_m)
            delta = tl.load(delta_ptr + offs_m)
        if UPCAST:  # the CPU interpreter cannot do bf16 arithmetic: work in float32
            q = q.to(tl.float32)
            do = do.to(tl.float32)
        # P^T recomputed from the saved log-sum-exp (base 2, the scale folded in).
        pt = tl.exp2(tl.dot(k, q.T) * qk_scale - lse[None, :])
        if MASKED:
            keep = offs_m[None, :] < n_q
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[:, None] <= offs_m[None, :] + diag)
            pt = tl.where(keep, pt, 0.0)
        dv = tl.dot(pt.to(do.dtype), do, dv)  # dV += P^T dO
        dpt = tl.dot(v, do.T)  # dP^T = V dO^T
        dst = (pt * (dpt - delta[None, :])).to(q.dtype)  # dS^T = P^T * (dP^T - delta)
        dk = tl.dot(dst, q, dk)  # dK += dS^T Q (the scale at the end)
        if ATOMIC_DQ:  # dQ += dS K, added in float32 by every key block that sees it
            dq = tl.dot(dst.T, k) * sm_scale
            if ATOMIC_DQ == 2:  # one TMA reduction of the whole tile (rows past n_q clipped)
                dq_out.atomic_add([batch, head, start_m, 0], dq.reshape(1, 1, BLOCK_M, HEAD_DIM))
            else:  # an atomic add per element
                offs_d = tl.arange(0, HEAD_DIM)
                dq_ptrs = dq_out + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
                tl.atomic_add(dq_ptrs, dq, mask=offs_m[:, None] < n_q, sem="relaxed")
    return dk, dv


@triton.jit(do_not_specialize=["n_q", "n_k", "diag"])
def attn_bwd_dkdv_tma_kernel(
    q_desc, k_desc, v_desc, do_desc, dk_desc, dv_desc, LSE, DELTA, DQ,
    n_q, n_k, diag, qk_scale, sm_scale, GROUP,
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ATOMIC_DQ: tl.constexpr,
):  # fmt: skip
    # Grid (key blocks, key/value heads, batch): this program owns BLOCK_N keys of one
    # key/value head and sums their dK and dV over every query block of every query head
    # of its group (grouped-query attention, no repeat), in registers. No atomics.
    n0 = tl.program_id(0) * BLOCK_N
    kv_head = tl.program_id(1)
    batch = tl.program_id(2)
    offs_n = n0 + tl.arange(0, BLOCK_N)
    k = _load_tile(k_desc, batch, kv_head, n0, BLOCK_N, HEAD_DIM)
    v = _load_tile(v_desc, batch, kv_head, n0, BLOCK_N, HEAD_DIM)
    if UPCAST:
        k = k.to(tl.float32)
        v = v.to(tl.float32)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    # The query blocks in lesson 12's three stretches: [lo, a_end) masked (causal: it
    # holds queries that miss some of these keys), then unmasked up to the last whole
    # block, then the ragged last block masked. Causal: the queries before n0 - diag see
    # none of these keys, those from n0 + BLOCK_N - 1 - diag on see all of them.
    q_full = (n_q // BLOCK_M) * BLOCK_M
    lo = 0
    first_full = 0
    if CAUSAL:
        lo = (tl.maximum(n0 - diag, 0) // BLOCK_M) * BLOCK_M
        first_full = tl.cdiv(tl.maximum(n0 + BLOCK_N - 1 - diag, 0), BLOCK_M) * BLOCK_M
    a_end = tl.minimum(first_full, q_full)
    tail = tl.maximum(lo, q_full)
    for head in range(kv_head * GROUP, kv_head * GROUP + GROUP):
        stats = (batch.to(tl.int64) * tl.num_programs(1) * GROUP + head) * n_q
        lse, delta = LSE + stats, DELTA + stats
        dq = DQ  # ATOMIC_DQ 2: a descriptor of the float32 dQ; 1: a pointer to this head's
        if ATOMIC_DQ == 1:
            dq = DQ + stats * HEAD_DIM
        dk, dv = _attn_dkdv_tma_steps(
            dk, dv, k, v, q_desc, do_desc, lse, delta, dq, batch, head, offs_n, lo, a_end,
            n_q, diag, qk_scale, sm_scale, BLOCK_M, HEAD_DIM, True, CAUSAL, UPCAST, ATOMIC_DQ,
        )  # fmt: skip
        dk, dv = _attn_dkdv_tma_steps(
            dk, dv, k, v, q_desc, do_desc, lse, delta, dq, batch, head, offs_n,
            tl.maximum(lo, a_end), q_full, n_q, diag, qk_scale, sm_scale,
            BLOCK_M, HEAD_DIM, False, CAUSAL, UPCAST, ATOMIC_DQ,
        )  # fmt: skip
        dk, dv = _attn_dkdv_tma_steps(
            dk, dv, k, v, q_desc, do_desc, lse, delta, dq, batch, head, offs_n, tail, n_q,
            n_q, diag, qk_scale, sm_scale, BLOCK_M, HEAD_DIM, True, CAUSAL, UPCAST, ATOMIC_DQ,
        )  # fmt: skip
    # Rows past n_k (a ragged last block of keys) are clipped by the store.
    dk = (dk * sm_scale).to(dk_desc.dtype)
    dk_desc.store([batch, kv_head, n0, 0], dk.reshape(1, 1, BLOCK_N, HEAD_DIM))
    dv_desc.store([batch, kv_head, n0, 0], dv.to(dv_desc.dtype).reshape(1, 1, BLOCK_N, HEAD_DIM))


@triton.jit
def _attn_dq_tma_steps(
    dq, q, do, lse, delta, k_desc, v_desc, batch, kv_head, offs_m, lo, hi, n_k, diag,
    qk_scale, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, MASKED: tl.constexpr,
    CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
):  # fmt: skip
    # Key blocks [lo, hi) against one block of queries, split as in the forward.
    for start_n in range(lo, hi, BLOCK_N):
        k = _load_tile(k_desc, batch, kv_head, start_n, BLOCK_N, HEAD_DIM)
        v = _load_tile(v_desc, batch, kv_head, start_n, BLOCK_N, HEAD_DIM)
        if UPCAST:
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        p = tl.exp2(tl.dot(q, k.T) * qk_scale - lse[:, None])
        if MASKED:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            keep = offs_n[None, :] < n_k
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[None, :] <= offs_m[:, None] + diag)
            p = tl.where(keep, p, 0.0)
        dp = tl.dot(do, v.T)  # dP = dO V^T
        ds = p * (dp - delta[:, None])  # dS = P * (dP - delta)
        dq = tl.dot(ds.to(k.dtype), k, dq)  # dQ += dS K (the scale at the end)
    return dq


@triton.jit(do_not_specialize=["n_q", "n_k", "diag"])
def attn_bwd_dq_tma_kernel(
    q_desc, k_desc, v_desc, do_desc, dq_desc, LSE, DELTA,
    n_q, n_k, diag, qk_scale, sm_scale, GROUP,
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    # Grid (query blocks, heads, batch): this program owns BLOCK_M queries of one head
    # and sums their dQ over the key blocks they see: the forward's walk.
    pid = tl.program_id(0)
    if CAUSAL:
        pid = tl.num_programs(0) - 1 - pid
    head = tl.program_id(1)
    kv_head = head // GROUP
    batch = tl.program_id(2)
    m0 = pid * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    q = _load_tile(q_desc, batch, head, m0, BLOCK_M, HEAD_DIM)
    do = _load_tile(do_desc, batch, head, m0, BLOCK_M, HEAD_DIM)
    if UPCAST:
        q = q.to(tl.float32)
        do = do.to(tl.float32)
    stats = (batch.to(tl.int64) * tl.num_programs(1) + head) * n_q + offs_m
    lse = tl.load(LSE + stats, mask=offs_m < n_q, other=0.0)
    delta = tl.load(DELTA + stats, mask=offs_m < n_q, other=0.0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    full_end = (n_k // BLOCK_N) * BLOCK_N  # the key blocks, split as in the forward
    hi = n_k
    if CAUSAL:
        first_row_sees = tl.maximum(m0 + diag + 1, 0)
        full_end = tl.minimum(full_end, (first_row_sees // BLOCK_N) * BLOCK_N)
        hi = tl.minimum(m0 + BLOCK_M + diag, n_k)
    dq = _attn_dq_tma_steps(
        dq, q, do, lse, delta, k_desc, v_desc, batch, kv_head, offs_m, 0, full_end, n_k,
        diag, qk_scale, BLOCK_N, HEAD_DIM, False, CAUSAL, UPCAST,
    )  # fmt: skip
    dq = _attn_dq_tma_steps(
        dq, q, do, lse, delta, k_desc, v_desc, batch, kv_head, offs_m, full_end, hi, n_k,
        diag, qk_scale, BLOCK_N, HEAD_DIM, True, CAUSAL, UPCAST,
    )  # fmt: skip
    dq = (dq * sm_scale).to(dq_desc.dtype)
    dq_desc.store([batch, head, m0, 0], dq.reshape(1, 1, BLOCK_M, HEAD_DIM))


# --8<-- [end:backward]
# --8<-- [end:kernel]


# --8<-- [start:launch]
# --8<-- [start:launch_forward]
LOG2_E = 1.4426950408889634  # exp(x) = exp2(x * log2(e))
# (BLOCK_M, BLOCK_N, num_warps, num_stages, warp_specialize) per head dimension: the
# fastest of sweeps on an H100 (bf16, N = 4096, B * N = 16384, H * d = 4096, full and
# causal, timed in turn with cuDNN). Lesson 12's tiles stayed the fastest, and warp
# specialisation on them ran as fast, not faster (at 4 warps it does not compile in
# Triton 3.6), so it is off. d = 16 and 32 take lesson 12's tiles, untuned.
FORWARD_CONFIG = {16: (128, 64, 4, 3, False), 32: (128, 64, 4, 3, False),
                  64: (128, 64, 8, 3, False), 128: (128, 128, 8, 3, False)}  # fmt: skip
# The backward's (dK/dV kernel's, dQ kernel's) (BLOCK_M, BLOCK_N, num_warps, num_stages)
# per head dimension. A dQ entry "atomic" or "reduce" has the dK/dV kernel add each dQ
# tile into float32 memory instead (no dQ kernel): by an atomic add per element, or by
# one TMA reduction per tile (GPU only: the interpreter has no descriptor reductions).
# d = 64 and 128: the fastest of a sweep on an H100 (bf16, N = 4096, full and causal);
# either way of adding dQ from the dK/dV kernel ran slower there (more registers in a
# kernel that already spills). d = 16 and 32 take lesson 12's tiles, untuned.
BACKWARD_CONFIG = {16: ((32, 128, 4, 3), (128, 32, 4, 3)),
                   32: ((32, 128, 4, 3), (128, 32, 4, 3)),
                   64: ((32, 128, 4, 3), (128, 64, 4, 3)),
                   128: ((64, 128, 8, 2), (128, 64, 8, 3))}  # fmt: skip
# Where attention without a mask wants other tiles: at d = 128 the dK/dV kernel's third
# stage, which the causal backward runs 2-3% slower with, makes the full one 2-4% faster
# (lesson 12's ladder data at commit f206636 timed both, on an H100 and an H200).
BACKWARD_CONFIG_FULL = {128: ((64, 128, 8, 3), (128, 64, 8, 3))}
PREPROCESS_BLOCK = 64  # rows per program of delta = rowsum(dO * O)
# On the CPU: small square tiles, so that tiny tests still walk several blocks.
INTERPRETER_CONFIG = (16, 16, 1, 1, False)

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


def plan(head_dim: int, *, backward: bool = False, causal: bool | str = False) -> tuple:
    """The launch configuration for ``head_dim``: (BLOCK_M, BLOCK_N, num_warps,
    num_stages, warp_specialize); with ``backward``, the pair (dK/dV kernel's (BLOCK_M,
    BLOCK_N, num_warps, num_stages), dQ kernel's or "atomic" / "reduce") for attention
    with the mask ``causal`` (False, True or "bottom_right")."""
    if _INTERPRET:
        return (INTERPRETER_CONFIG[:4],) * 2 if backward else INTERPRETER_CONFIG
    if backward:
        full = None if causal else BACKWARD_CONFIG_FULL.get(head_dim)
        return full or BACKWARD_CONFIG[head_dim]
    return FORWARD_CONFIG[head_dim]


def launch(q, k, v, causal: bool | str, scale: float, config=None, lse=None):
    """o (B, H, n_q, d), contiguous, in q's dtype, for q (B, H, n_q, d) and k, v
    (B, H_kv, n_k, d) that ``tma_readable`` accepts, H a multiple of H_kv; n_q, n_k >= 1;
    no checks. ``causal``: False, True (= "top_left") or "bottom_right". ``config``:
    ``plan``'s five values. ``lse``: None, or a contiguous (B, H, n_q) float32 tensor
    that gets each row's log-sum-exp (base 2) for ``launch_backward``."""
    batch, heads, n_q, d = q.shape
    n_k = k.shape[2]
    o = torch.empty((batch, heads, n_q, d), dtype=q.dtype, device=q.device)
    block_m, block_n, warps, stages, ws = plan(d) if config is None else config
    diag = n_k - n_q if causal == "bottom_right" else 0  # query i sees keys j <= i + diag
    grid = ((n_q + block_m - 1) // block_m, heads, batch)
    attn_fwd_tma_kernel[grid](
        _desc(q, block_m), _desc(k, block_n), _desc(v, block_n), _desc(o, block_m), lse,
        n_q, n_k, diag, scale * LOG2_E, heads // k.shape[1],
        HEAD_DIM=d, CAUSAL=bool(causal), UPCAST=_INTERPRET and q.dtype == torch.bfloat16,
        BLOCK_M=block_m, BLOCK_N=block_n, WARP_SPECIALIZE=ws,
        num_warps=warps, num_stages=stages,
    )  # fmt: skip
    return o


def _desc(t: torch.Tensor, rows: int) -> TensorDescriptor:
    # A 4-D (batch, heads, sequence, head_dim) tensor described to the TMA unit: its
    # sizes, its strides (elements) and the box one copy moves, `rows` rows of one head.
    # A dimension of length 1 is never stepped over, but TMA checks its stride all the
    # same: give it one that meets the 16-byte rule.
    strides = [
        s if n > 1 else 16 // t.element_size() for n, s in zip(t.shape, t.stride(), strict=True)
    ]
    return TensorDescriptor(t, t.shape, strides, [1, 1, rows, t.shape[3]])


# --8<-- [end:launch_forward]


# --8<-- [start:launch_backward]
def launch_backward(do, q, k, v, o, lse, causal: bool | str, scale: float, config=None):
    """dq, dk, dv, contiguous, in q's dtype (dk, dv with k's heads: each summed over its
    group of query heads), from the upstream gradient ``do`` and the forward's ``o`` and
    ``lse``, all ``tma_readable``; n_q, n_k >= 1; no checks. ``config``: ``plan(d,
    backward=True, causal=causal)``'s pair: the dK/dV kernel's tiles, and the dQ kernel's
    or "atomic" / "reduce" for dQ added by the dK/dV kernel."""
    batch, heads, n_q, d = q.shape
    kv_heads, n_k = k.shape[1], k.shape[2]
    (m1, n1, w1, s1), dq_tiles = plan(d, backward=True, causal=causal) if config is None else config
    upcast = _INTERPRET and q.dtype == torch.bfloat16
    delta = torch.empty((batch, heads, n_q), dtype=torch.float32, device=q.device)
    pm = INTERPRETER_CONFIG[0] if _INTERPRET else PREPROCESS_BLOCK
    attn_bwd_preprocess_tma_kernel[((n_q + pm - 1) // pm, heads, batch)](
        _desc(o, pm), _desc(do, pm), delta, n_q, HEAD_DIM=d, BLOCK_M=pm
    )
    dk = torch.empty((batch, kv_heads, n_k, d), dtype=k.dtype, device=k.device)
    dv = torch.empty((batch, kv_heads, n_k, d), dtype=k.dtype, device=k.device)
    # dQ by its own kernel (0), or summed in float32 by the dK/dV kernel: an atomic add per
    # element ("atomic", 1) or a TMA reduction per tile ("reduce", 2; not interpreted).
    atomic = {"atomic": 1, "reduce": 2}.get(dq_tiles, 0) if isinstance(dq_tiles, str) else 0
    if atomic:
        dq = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    else:
        dq = torch.empty((batch, heads, n_q, d), dtype=q.dtype, device=q.device)
    diag = n_k - n_q if causal == "bottom_right" else 0
    numbers = (n_q, n_k, diag, scale * LOG2_E, scale, heads // kv_heads)
    attn_bwd_dkdv_tma_kernel[((n_k + n1 - 1) // n1, kv_heads, batch)](
        _desc(q, m1), _desc(k, n1), _desc(v, n1), _desc(do, m1), _desc(dk, n1),
        _desc(dv, n1), lse, delta, _desc(dq, m1) if atomic == 2 else dq, *numbers,
        HEAD_DIM=d, CAUSAL=bool(causal), UPCAST=upcast, BLOCK_M=m1, BLOCK_N=n1,
        ATOMIC_DQ=atomic, num_warps=w1, num_stages=s1,
    )  # fmt: skip
    if atomic:
        return dq.to(q.dtype), dk, dv
    m2, n2, w2, s2 = dq_tiles
    attn_bwd_dq_tma_kernel[((n_q + m2 - 1) // m2, heads, batch)](
        _desc(q, m2), _desc(k, n2), _desc(v, n2), _desc(do, m2), _desc(dq, m2), lse, delta,
        *numbers, HEAD_DIM=d, CAUSAL=bool(causal), UPCAST=upcast,
        BLOCK_M=m2, BLOCK_N=n2, num_warps=w2, num_stages=s2,
    )  # fmt: skip
    return dq, dk, dv


# --8<-- [end:launch_backward]
# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16)  # tl.dot on tensor cores
CAUSAL_ALIGNMENTS = ("top_left", "bottom_right")  # causal=True is "top_left", as in SDPA
HEAD_DIMS = (16, 32, 64, 128)  # powers of two: tl.arange needs one; tl.dot needs >= 16
MAX_GRID_YZ = 65535  # heads and batch are the grid's 2nd and 3rd axes: CUDA's limit there
MAX_TMA_DIM = 2**31 - 1  # descriptor sizes and tile coordinates are 32-bit
TMA_ALIGN = 16  # bytes: TMA needs the base address and every stride a multiple of 16
MAX_FLOAT32 = 3.4e38  # about float32's largest: the kernel gets scale * log2(e) as a float32
# Forward-mode AD: a dual tensor carries a tangent this kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad
_CAPABILITIES: dict[int, tuple[int, int]] = {}


def _capability(device: int) -> tuple[int, int]:
    if device not in _CAPABILITIES:
        _CAPABILITIES[device] = tuple(torch.cuda.get_device_capability(device))
    return _CAPABILITIES[device]


def tma_readable(t: torch.Tensor) -> bool:
    """Whether a descriptor can address ``t`` (B, H, N, d) as it is: the last dimension
    contiguous, the base address and every other stride (of a dimension longer than 1) a
    positive multiple of 16 bytes. ``attention_tma`` copies a tensor that is not."""
    if (t.stride(3) != 1 and t.shape[3] > 1) or t.data_ptr() % TMA_ALIGN:
        return False
    return all(
        size == 1 or (stride > 0 and stride * t.element_size() % TMA_ALIGN == 0)
        for size, stride in zip(t.shape[:3], t.stride()[:3], strict=True)
    )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"attention_tma: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"attention_tma: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"attention_tma: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"attention_tma: {name} must be a dense tensor, got {got}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"attention_tma: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}")
    if t.dim() != 4:
        raise ValueError(
            f"attention_tma: {name} must be 4-D (batch, heads, sequence, head_dim), "
            f"got shape {tuple(t.shape)}"
        )


def attention_tma(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool | str = False,
    scale: float | None = None,
) -> torch.Tensor:
    """``softmax(q @ k^T * scale) @ v``, as ``F.scaled_dot_product_attention(q, k, v,
    is_causal=causal, scale=scale)``, by the TMA kernels, differentiable in q, k and v
    (``AttentionTMAFunction``: with grad mode on and an input that requires grad, the
    forward saves the log-sum-exp for the backward), once: a second derivative
    (``create_graph=True``) is refused, as are dual tensors (forward-mode AD has no
    formula here).

    ``q`` (B, H, n_q, d), ``k`` and ``v`` (B, H_kv, n_k, d) with H a multiple of H_kv
    (grouped-query attention: query head h reads key/value head h // (H / H_kv), as SDPA's
    ``enable_gqa=True``; the keys are never repeated in memory): dense (not nested), one dtype,
    float16 or bfloat16, one CUDA device of compute capability 9.0 or newer (which need
    not be the current one), d in 16, 32, 64, 128, B and H at most 65535, n_q and n_k
    below 2**31. n_q and n_k may differ. Strides: a tensor a descriptor can address
    (``tma_readable``: the last dimension contiguous, other strides and the base address
    multiples of 16 bytes, as a contiguous tensor or a (B, N, H, d) one transposed to
    (B, H, N, d) has) is read in place; any other layout is copied once, contiguous.
    ``causal``: False, True or "top_left" (query i sees keys j <= i, SDPA's
    ``is_causal=True``), or "bottom_right" (query i sees keys j <= i + n_k - n_q). A row
    that sees no key (n_k = 0, or bottom-right with n_q > n_k) gives zeros and no gradient,
    as SDPA does with an explicit boolean mask. ``scale``: None for 1/sqrt(d), or a Python int or
    float, > 0 and with ``scale * log2(e)`` finite in float32. The result is contiguous,
    in q's dtype, rounded once from float32. Views with the negative bit are read as their
    values. Raises ``TypeError``/``ValueError`` naming the argument instead of launching
    on anything else.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_tensor(name, t)
    if not (k.dtype == v.dtype == q.dtype):
        raise TypeError(f"attention_tma: q, k, v have dtypes {q.dtype}, {k.dtype}, {v.dtype}; one")
    device = q.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if k.get_device() != device or v.get_device() != device:
        raise ValueError(f"attention_tma: q, k, v are on {q.device}, {k.device}, {v.device}; one")
    batch, heads, n_q, head_dim = q.shape
    if k.shape != v.shape:
        raise ValueError(
            f"attention_tma: k has shape {tuple(k.shape)} and v {tuple(v.shape)}; they must match"
        )
    if k.shape[0] != batch:
        raise ValueError(
            f"attention_tma: k and v have batch {k.shape[0]}; q has {batch} (no broadcasting)"
        )
    if (k.shape[1] == 0 and heads) or (k.shape[1] and heads % k.shape[1]):
        raise ValueError(
            f"attention_tma: k and v have {k.shape[1]} heads and q has {heads}; q's heads "
            f"must be a multiple of k's (grouped-query attention: q's heads h read k's "
            f"head h // (q heads / k heads))"
        )
    if head_dim not in HEAD_DIMS or k.shape[3] != head_dim:
        raise ValueError(
            f"attention_tma: head_dim (last dimension) of q is {head_dim} and of k, v is "
            f"{k.shape[3]}; it must be one of {HEAD_DIMS} for all three"
        )
    if batch > MAX_GRID_YZ or heads > MAX_GRID_YZ:
        raise ValueError(
            f"attention_tma: q has batch {batch} and heads {heads}; each must be at most "
            f"{MAX_GRID_YZ} (they are axes 2 and 3 of the launch grid)"
        )
    if max(n_q, k.shape[2]) > MAX_TMA_DIM:
        raise ValueError(
            f"attention_tma: q has {n_q} queries and k {k.shape[2]} keys; each must be at "
            f"most {MAX_TMA_DIM} (descriptor coordinates are 32-bit)"
        )
    if type(causal) is str:
        if causal not in CAUSAL_ALIGNMENTS:
            raise ValueError(
                "attention_tma: causal must be a bool, 'top_left' or 'bottom_right', "
                f"got {causal!r}"
            )
    elif type(causal) is not bool:
        raise TypeError(
            f"attention_tma: causal must be a bool or a str ('top_left', 'bottom_right'), "
            f"got {type(causal).__name__}"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(
            "attention_tma: scale must be None or a Python float or int, "
            f"got {type(scale).__name__}"
        )
    # The kernel multiplies by scale * log2(e) in float32: finite there, and > 0. (Compared
    # before multiplying: an int too large for a float would overflow the product.)
    if not 0 < scale <= MAX_FLOAT32 / LOG2_E:
        raise ValueError(f"attention_tma: scale must be > 0 and finite in float32, got {scale}")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("q", q), ("k", k), ("v", v)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"attention_tma: {name} is a dual tensor (forward-mode AD), but this "
                    f"kernel computes no tangent; pass forward_ad.unpack_dual({name}).primal"
                )
    if device >= 0 and _capability(device) < (9, 0):
        major, minor = _capability(device)
        raise ValueError(
            f"attention_tma: needs compute capability 9.0 (Hopper) or newer for TMA; "
            f"{q.device} has {major}.{minor}"
        )
    # A view with the neg bit stores -x and reads as x, and a layout TMA cannot address is
    # copied (a fresh allocation is aligned): the descriptors see only memory, as laid out.
    q, k, v = (_readable(t.resolve_neg() if t.is_neg() else t) for t in (q, k, v))
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return AttentionTMAFunction.apply(q, k, v, causal, float(scale))
    return _on_device(device, _forward, q, k, v, causal, float(scale), None)


def _readable(t: torch.Tensor) -> torch.Tensor:
    return t if tma_readable(t) else t.clone(memory_format=torch.contiguous_format)


def _on_device(device: int, fn, *args):
    """``fn(*args)`` with ``device`` current (Triton launches on the current GPU); -1 is
    the CPU, under the interpreter."""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args)
    with torch.cuda.device(device):
        return fn(*args)


def _forward(q, k, v, causal, scale, lse):
    """``launch``, and the empty cases it does not take: no query, or no key (SDPA gives
    zeros there: a softmax over nothing, made safe; the log-sum-exp is -inf)."""
    if q.numel() == 0 or k.shape[2] == 0:
        if lse is not None:
            lse.fill_(float("-inf"))
        return torch.zeros(q.shape, dtype=q.dtype, device=q.device)
    return launch(q, k, v, causal, scale, lse=lse)


# --8<-- [end:checks]


# --8<-- [start:autograd]
class AttentionTMAFunction(torch.autograd.Function):
    """The forward saves q, k, v, o and the log-sum-exp of each row; the backward
    recomputes the probabilities from them. Call it through ``attention_tma``, which
    checks the arguments (and makes q, k, v readable by descriptors) first."""

    @staticmethod
    def forward(ctx, q, k, v, causal: bool | str, scale: float) -> torch.Tensor:
        batch, heads, n_q, _ = q.shape
        lse = torch.empty((batch, heads, n_q), dtype=torch.float32, device=q.device)
        o = _on_device(q.get_device(), _forward, q, k, v, causal, scale, lse)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal, ctx.scale = causal, scale
        return o

    @staticmethod
    def backward(ctx, do: torch.Tensor):
        # Grad mode is on here only under create_graph=True: the backward kernels have no
        # backward of their own, so their results would count as constants. Refuse.
        if torch.is_grad_enabled():
            raise NotImplementedError(
                "attention_tma: double backward (create_graph=True) is not supported: the "
                "backward kernels have no backward of their own"
            )
        q, k, v, o, lse = ctx.saved_tensors
        if q.numel() == 0 or k.numel() == 0:  # nothing seen: every gradient is zero
            return torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v), None, None
        # dO comes from whatever followed, in any layout and dtype: made readable.
        do = _readable((do.resolve_neg() if do.is_neg() else do).to(q.dtype))
        dq, dk, dv = _on_device(
            q.get_device(), launch_backward, do, q, k, v, o, lse, ctx.causal, ctx.scale
        )
        return dq, dk, dv, None, None


# --8<-- [end:autograd]


# --8<-- [start:reference]
def reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool | str = False,
    scale: float | None = None,
) -> torch.Tensor:
    """Attention in float64 with the N x N scores materialised, rounded once to q's
    dtype, by torch alone; k and v with fewer heads than q are repeated to q's (each
    serving q's heads in consecutive groups). Causal True or "top_left" is the mask
    ``tril(ones(n_q, n_k))``, "bottom_right" is ``tril(ones(n_q, n_k), diagonal=n_k -
    n_q)``; a row with no key gives zeros."""
    q64, k64, v64 = q.double(), k.double(), v.double()
    if q.dim() >= 3 and k.shape[-3] != q.shape[-3]:  # grouped-query: repeat each kv head
        group = q.shape[-3] // k.shape[-3]
        k64, v64 = k64.repeat_interleave(group, -3), v64.repeat_interleave(group, -3)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = (q64 @ k64.transpose(-2, -1)) * scale
    n_q, n_k = s.shape[-2:]
    if n_k == 0:
        return torch.zeros(q.shape[:-1] + v.shape[-1:], dtype=q.dtype, device=q.device)
    if not causal:
        return (torch.softmax(s, dim=-1) @ v64).to(q.dtype)
    diag = n_k - n_q if causal == "bottom_right" else 0
    keep = torch.ones(n_q, n_k, dtype=torch.bool, device=s.device).tril(diag)
    seen = keep.any(-1, keepdim=True)  # False on a row that sees no key: zeros there
    p = torch.softmax(s.masked_fill(~keep, float("-inf")).masked_fill(~seen, 0.0), dim=-1)
    return ((p * seen) @ v64).to(q.dtype)


# --8<-- [end:reference]
