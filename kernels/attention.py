"""Flash Attention, forward and backward: ``softmax(q @ k^T * scale) @ v`` per batch and
head, as ``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
scale=scale)`` computes it, without ever storing the N x N matrix of scores.

The forward gives each program one block of queries of one (batch, head) and walks the
keys and values block by block: two ``tl.dot`` per step and an online softmax (running
max, running sum, rescaled accumulator) in base 2, with ``scale * log2(e)`` folded into
one multiplication. It saves the logsumexp of every row for the backward. The backward
recomputes the probabilities from that logsumexp instead of storing them: a small kernel
computes ``delta = rowsum(dO * O)``, one kernel gives each program a block of keys and
accumulates dK and dV over the query blocks, and one gives each program a block of
queries and accumulates dQ over the key blocks.

Sections, as in every kernel file of the book: ``minimal`` (``attn_fwd_minimal_kernel``
and ``attention_minimal``: the smallest forward that works, the lesson's first listing),
``kernel``, ``launch`` (``plan``, the
tiles per head dimension, and ``launch_forward`` / ``launch_backward``, which allocate
and launch without a check), ``checks`` (``attention``, the checked entry point),
``autograd`` (``AttentionFunction``, which ties the launches together for autograd) and
``reference``. Lesson 12 of the book walks through this file.

Causal comes in two alignments, which differ only when n_q != n_k. ``causal=True`` (or
``"top_left"``) means what ``is_causal=True`` means in PyTorch: query i sees keys j <= i,
counted from the top-left corner (``torch.tril(torch.ones(n_q, n_k))``,
``torch.nn.attention.bias.causal_upper_left``). ``causal="bottom_right"`` lines the last
query up with the last key: query i sees keys j <= i + n_k - n_q (``torch.tril(...,
diagonal=n_k - n_q)``, ``causal_lower_right``, FlashAttention 2.1's convention), which is
what decoding against a KV cache needs (one new query sees every key). A row that sees no
key at all (bottom-right with n_q > n_k: the first n_q - n_k queries) gives zeros, as SDPA
does with an explicit boolean mask, and passes no gradient.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import math

import torch
import triton
import triton.language as tl


# --8<-- [start:minimal]
# The smallest flash-attention forward that works: one program per (block of BLOCK_M
# queries, batch x head), which walks the keys and values BLOCK_N at a time with an online
# softmax. What it leaves out, each added in the kernels below: the causal mask, masks for
# ragged lengths (n_q and n_k must be multiples of the blocks), strides (q, k, v and the
# output contiguous (B, H, N, d)), the logsumexp a backward needs, and the interpreter's
# bf16 route (on the CPU it is right in fp16 only).
@triton.jit
def attn_fwd_minimal_kernel(
    Q, K, V, Out, n_q, n_k, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)  # my queries
    bh = tl.program_id(1).to(tl.int64)  # my (batch, head); int64: bh * n * d can pass 2**31
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + bh * n_q * HEAD_DIM + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    kt_ptrs = K + bh * n_k * HEAD_DIM + offs_d[:, None] + offs_n[None, :] * HEAD_DIM  # K^T
    v_ptrs = V + bh * n_k * HEAD_DIM + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)  # running max of each row
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)  # running sum of exp2(s - m_i)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)  # running sum of p @ v
    for start_n in range(0, n_k, BLOCK_N):
        kt = tl.load(kt_ptrs + start_n * HEAD_DIM)
        v = tl.load(v_ptrs + start_n * HEAD_DIM)
        s = tl.dot(q, kt) * qk_scale  # scores in base 2: exp2(s) = exp(q.k * scale)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)  # rescales what was summed against the old max
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(
        Out + bh * n_q * HEAD_DIM + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        o.to(Out.dtype.element_ty),
    )


def attention_minimal(q, k, v, block_m=64, block_n=64):
    """``softmax(q @ k^T / sqrt(d)) @ v`` for contiguous fp16/bf16 (B, H, N, d) tensors on
    the current device, n_q and n_k multiples of the blocks, d a power of two >= 16; no
    checks."""
    batch, heads, n_q, d = q.shape
    o = torch.empty((batch, heads, n_q, d), dtype=q.dtype, device=q.device)
    qk_scale = math.log2(math.e) / math.sqrt(d)  # 1/sqrt(d), and log2(e) for exp2
    grid = (n_q // block_m, batch * heads)
    attn_fwd_minimal_kernel[grid](
        q, k, v, o, n_q, k.shape[2], qk_scale, HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n
    )
    return o


# --8<-- [end:minimal]


# --8<-- [start:kernel]
# --8<-- [start:forward]
@triton.jit
def _attn_fwd_steps(
    acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
    offs_m, offs_d, lo, hi, n_k, diag, qk_scale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
):  # fmt: skip
    # Key/value blocks [lo, hi) for one block of queries. MASKED: this stretch holds the
    # diagonal (causal) or the ragged last block of keys, so scores there are masked;
    # every other block is loaded and used whole, with no mask at all.
    for start_n in range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        rows = offs_n.to(tl.int64)  # int64: rows * stride can pass 2**31 in a long sequence
        kt_ptrs = k_base + offs_d[:, None] * stride_kd + rows[None, :] * stride_kn
        v_ptrs = v_base + rows[:, None] * stride_vn + offs_d[None, :] * stride_vd
        if MASKED:
            kt = tl.load(kt_ptrs, mask=offs_n[None, :] < n_k, other=0.0)
            v = tl.load(v_ptrs, mask=offs_n[:, None] < n_k, other=0.0)
        else:
            kt = tl.load(kt_ptrs)
            v = tl.load(v_ptrs)
        if UPCAST:  # the CPU interpreter cannot do bf16 arithmetic: work in float32
            kt = kt.to(tl.float32)
            v = v.to(tl.float32)
        # Scores of this (BLOCK_M, BLOCK_N) tile, in base-2 units: s = q.k * scale * log2(e),
        # so that exp2(s) = exp(q.k * scale). The tile lives in registers, never in HBM.
        s = tl.dot(q, kt) * qk_scale
        if MASKED:
            keep = offs_n[None, :] < n_k
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[None, :] <= offs_m[:, None] + diag)
            s = tl.where(keep, s, float("-inf"))
        # Online softmax: a new running max, the old sum and accumulator rescaled to it.
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_sub = m_new
        if MASKED:  # a row that has seen no key yet (all -inf: bottom-right causal with
            # n_q > n_k) subtracts 0, not -inf, so its p and alpha are 0 rather than NaN
            m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp2(s - m_sub[:, None])
        alpha = tl.exp2(m_i - m_sub)  # 0 on a row's first step, where m_i is -inf
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


# Lengths are not specialised on (divisible by 16 or not): one compile serves every N.
@triton.jit(do_not_specialize=["n_q", "n_k", "n_heads", "diag"])
def attn_fwd_kernel(
    Q, K, V, Out, LSE,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    n_q, n_k, n_heads, diag, qk_scale,
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    # Grid (query blocks, heads, batch): this program owns BLOCK_M queries of one head.
    pid = tl.program_id(0)
    if CAUSAL:  # the last query blocks have the most keys to visit: start them first
        pid = tl.num_programs(0) - 1 - pid
    # int64: the batch, head and head-dim indices each multiply a stride, and any of those
    # products can pass 2**31 (with 512k tokens of d = 128, head 32 starts at 2**31).
    head = tl.program_id(1).to(tl.int64)
    batch = tl.program_id(2).to(tl.int64)
    m0 = pid * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM).to(tl.int64)
    q_base = Q + batch * stride_qb + head * stride_qh
    k_base = K + batch * stride_kb + head * stride_kh
    v_base = V + batch * stride_vb + head * stride_vh
    rows = offs_m.to(tl.int64)
    q = tl.load(
        q_base + rows[:, None] * stride_qm + offs_d[None, :] * stride_qd,
        mask=offs_m[:, None] < n_q,
        other=0.0,
    )
    if UPCAST:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)  # running max (base 2)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)  # running sum of exp2(s - m_i)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)  # running sum of p @ v
    # Which key blocks to visit, and which need a mask. Causal (query i sees keys j <=
    # i + diag): keys [0, m0 + diag] are visible to every query of the block (no mask);
    # the blocks from there to the last query's last key, m0 + BLOCK_M - 1 + diag,
    # straddle the diagonal (masked); later keys are never loaded. The ragged last block
    # of keys is always masked.
    full_end = (n_k // BLOCK_N) * BLOCK_N  # keys in whole blocks
    hi = n_k
    if CAUSAL:
        first_row_sees = tl.maximum(m0 + diag + 1, 0)  # how many keys query m0 sees
        full_end = tl.minimum(full_end, (first_row_sees // BLOCK_N) * BLOCK_N)
        hi = tl.minimum(m0 + BLOCK_M + diag, n_k)
    acc, l_i, m_i = _attn_fwd_steps(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, 0, full_end, n_k, diag, qk_scale, BLOCK_N, False, CAUSAL, UPCAST,
    )  # fmt: skip
    acc, l_i, m_i = _attn_fwd_steps(
        acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, full_end, hi, n_k, diag, qk_scale, BLOCK_N, True, CAUSAL, UPCAST,
    )  # fmt: skip
    # The logsumexp of each row, base 2, for the backward: p = exp2(s - lse). A row that
    # saw no key at all (bottom-right causal, n_q > n_k) has l_i = 0 and m_i = -inf: its
    # lse is -inf and its output zeros, as SDPA gives.
    l_i = tl.where(l_i > 0, l_i, 1.0)
    lse = m_i + tl.log2(l_i)
    o = acc / l_i[:, None]
    row_mask = offs_m < n_q
    tl.store(LSE + (batch * n_heads + head) * n_q + rows, lse, mask=row_mask)
    o_base = Out + batch * stride_ob + head * stride_oh
    tl.store(
        o_base + rows[:, None] * stride_om + offs_d[None, :] * stride_od,
        o.to(Out.dtype.element_ty),  # one rounding, at the store
        mask=row_mask[:, None],
    )


# --8<-- [end:forward]


# --8<-- [start:backward]
@triton.jit(do_not_specialize=["n_q", "n_heads"])
def attn_bwd_preprocess_kernel(
    Out, DO, DELTA,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_dob, stride_doh, stride_dom, stride_dod,
    n_q, n_heads, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
):  # fmt: skip
    # delta_i = sum_d dO[i, d] * O[i, d]: the row sums that dS = P * (dP - delta) needs.
    pid = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)  # int64, as in the forward
    batch = tl.program_id(2).to(tl.int64)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM).to(tl.int64)
    rows = offs_m.to(tl.int64)
    mask = offs_m[:, None] < n_q
    o = tl.load(
        Out + batch * stride_ob + head * stride_oh
        + rows[:, None] * stride_om + offs_d[None, :] * stride_od,
        mask=mask, other=0.0,
    ).to(tl.float32)  # fmt: skip
    do = tl.load(
        DO + batch * stride_dob + head * stride_doh
        + rows[:, None] * stride_dom + offs_d[None, :] * stride_dod,
        mask=mask, other=0.0,
    ).to(tl.float32)  # fmt: skip
    tl.store(DELTA + (batch * n_heads + head) * n_q + rows, tl.sum(o * do, 1), mask=offs_m < n_q)


@triton.jit
def _attn_dkdv_steps(
    dk, dv, k, v, q_base, do_base, lse_base, delta_base,
    stride_qm, stride_qd, stride_dom, stride_dod,
    offs_n, offs_d, lo, hi, n_q, diag, qk_scale,
    BLOCK_M: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
):  # fmt: skip
    # Query blocks [lo, hi) against one block of keys. The tiles are transposed (keys
    # down, queries across) so that dK and dV come out of tl.dot without a transpose.
    for start_m in range(lo, hi, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        rows = offs_m.to(tl.int64)
        qt_ptrs = q_base + offs_d[:, None] * stride_qd + rows[None, :] * stride_qm
        do_ptrs = do_base + rows[:, None] * stride_dom + offs_d[None, :] * stride_dod
        if MASKED:  # rows past n_q read as zeros (and lse, delta as 0): they add nothing
            qt = tl.load(qt_ptrs, mask=offs_m[None, :] < n_q, other=0.0)
            do = tl.load(do_ptrs, mask=offs_m[:, None] < n_q, other=0.0)
            lse = tl.load(lse_base + rows, mask=offs_m < n_q, other=0.0)
            delta = tl.load(delta_base + rows, mask=offs_m < n_q, other=0.0)
        else:
            qt = tl.load(qt_ptrs)
            do = tl.load(do_ptrs)
            lse = tl.load(lse_base + rows)
            delta = tl.load(delta_base + rows)
        if UPCAST:
            qt = qt.to(tl.float32)
            do = do.to(tl.float32)
        # Recompute P^T from the saved logsumexp instead of reading it from memory.
        pt = tl.exp2(tl.dot(k, qt) * qk_scale - lse[None, :])
        if MASKED:
            keep = offs_m[None, :] < n_q
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[:, None] <= offs_m[None, :] + diag)
            pt = tl.where(keep, pt, 0.0)
        dv = tl.dot(pt.to(do.dtype), do, dv)  # dV += P^T dO
        dpt = tl.dot(v, tl.trans(do))  # dP^T = V dO^T
        dst = pt * (dpt - delta[None, :])  # dS^T = P^T * (dP^T - delta)
        dk = tl.dot(dst.to(qt.dtype), tl.trans(qt), dk)  # dK += dS^T Q (scale applied later)
    return dk, dv


@triton.jit(do_not_specialize=["n_q", "n_k", "n_heads", "diag"])
def attn_bwd_dkdv_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    n_q, n_k, n_heads, diag, qk_scale, sm_scale,
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    # Grid (key blocks, heads, batch): this program owns BLOCK_N keys of one head and
    # sums their dK and dV over every query block that sees them. No atomics.
    pid = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)  # int64, as in the forward
    batch = tl.program_id(2).to(tl.int64)
    n0 = pid * BLOCK_N
    offs_n = n0 + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM).to(tl.int64)
    cols = offs_n.to(tl.int64)
    key_mask = offs_n[:, None] < n_k
    k = tl.load(
        K + batch * stride_kb + head * stride_kh
        + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd,
        mask=key_mask, other=0.0,
    )  # fmt: skip
    v = tl.load(
        V + batch * stride_vb + head * stride_vh
        + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
        mask=key_mask, other=0.0,
    )  # fmt: skip
    if UPCAST:
        k = k.to(tl.float32)
        v = v.to(tl.float32)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    q_base = Q + batch * stride_qb + head * stride_qh
    do_base = DO + batch * stride_dob + head * stride_doh
    lse_base = LSE + (batch * n_heads + head) * n_q
    delta_base = DELTA + (batch * n_heads + head) * n_q
    # Query blocks in three stretches: [lo, a_end) needs the causal mask (it holds queries
    # that miss some of these keys), [a_end, q_full) needs none, [tail, n_q) is the ragged
    # last block. Causal (query i sees keys j <= i + diag): the queries before n0 - diag
    # see none of these keys, those from n0 + BLOCK_N - 1 - diag on see all of them.
    # Without causal, lo = first_full = 0 and only the last stretch masks.
    q_full = (n_q // BLOCK_M) * BLOCK_M
    lo = 0
    first_full = 0
    if CAUSAL:
        lo = (tl.maximum(n0 - diag, 0) // BLOCK_M) * BLOCK_M
        first_full = tl.cdiv(tl.maximum(n0 + BLOCK_N - 1 - diag, 0), BLOCK_M) * BLOCK_M
    a_end = tl.minimum(first_full, q_full)
    tail = tl.maximum(lo, q_full)
    dk, dv = _attn_dkdv_steps(
        dk, dv, k, v, q_base, do_base, lse_base, delta_base, stride_qm, stride_qd,
        stride_dom, stride_dod, offs_n, offs_d, lo, a_end, n_q, diag, qk_scale,
        BLOCK_M, True, CAUSAL, UPCAST,
    )  # fmt: skip
    dk, dv = _attn_dkdv_steps(
        dk, dv, k, v, q_base, do_base, lse_base, delta_base, stride_qm, stride_qd,
        stride_dom, stride_dod, offs_n, offs_d, tl.maximum(lo, a_end), q_full, n_q, diag,
        qk_scale, BLOCK_M, False, CAUSAL, UPCAST,
    )  # fmt: skip
    dk, dv = _attn_dkdv_steps(
        dk, dv, k, v, q_base, do_base, lse_base, delta_base, stride_qm, stride_qd,
        stride_dom, stride_dod, offs_n, offs_d, tail, n_q, n_q, diag, qk_scale,
        BLOCK_M, True, CAUSAL, UPCAST,
    )  # fmt: skip
    # dK and dV are written contiguous (B, H, n_k, d): the wrapper allocates them so.
    out = (batch * n_heads + head) * n_k * HEAD_DIM + cols[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(DK + out, (dk * sm_scale).to(DK.dtype.element_ty), mask=key_mask)
    tl.store(DV + out, dv.to(DV.dtype.element_ty), mask=key_mask)


@triton.jit
def _attn_dq_steps(
    dq, q, do, lse, delta, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
    offs_m, offs_d, lo, hi, n_k, diag, qk_scale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
):  # fmt: skip
    # Key blocks [lo, hi) against one block of queries, split as in the forward.
    for start_n in range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        rows = offs_n.to(tl.int64)
        kt_ptrs = k_base + offs_d[:, None] * stride_kd + rows[None, :] * stride_kn
        vt_ptrs = v_base + offs_d[:, None] * stride_vd + rows[None, :] * stride_vn
        if MASKED:
            kt = tl.load(kt_ptrs, mask=offs_n[None, :] < n_k, other=0.0)
            vt = tl.load(vt_ptrs, mask=offs_n[None, :] < n_k, other=0.0)
        else:
            kt = tl.load(kt_ptrs)
            vt = tl.load(vt_ptrs)
        if UPCAST:
            kt = kt.to(tl.float32)
            vt = vt.to(tl.float32)
        p = tl.exp2(tl.dot(q, kt) * qk_scale - lse[:, None])
        if MASKED:
            keep = offs_n[None, :] < n_k
            if CAUSAL:  # query i sees keys j <= i + diag
                keep = keep & (offs_n[None, :] <= offs_m[:, None] + diag)
            p = tl.where(keep, p, 0.0)
        dp = tl.dot(do, vt)  # dP = dO V^T
        ds = p * (dp - delta[:, None])  # dS = P * (dP - delta)
        dq = tl.dot(ds.to(kt.dtype), tl.trans(kt), dq)  # dQ += dS K (scale applied later)
    return dq


@triton.jit(do_not_specialize=["n_q", "n_k", "n_heads", "diag"])
def attn_bwd_dq_kernel(
    Q, K, V, DO, LSE, DELTA, DQ,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    n_q, n_k, n_heads, diag, qk_scale, sm_scale,
    HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    # Grid (query blocks, heads, batch): this program owns BLOCK_M queries of one head
    # and sums their dQ over the key blocks they see, exactly the forward's walk.
    pid = tl.program_id(0)
    if CAUSAL:
        pid = tl.num_programs(0) - 1 - pid
    head = tl.program_id(1).to(tl.int64)  # int64, as in the forward
    batch = tl.program_id(2).to(tl.int64)
    m0 = pid * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM).to(tl.int64)
    rows = offs_m.to(tl.int64)
    row_mask = offs_m < n_q
    q = tl.load(
        Q + batch * stride_qb + head * stride_qh
        + rows[:, None] * stride_qm + offs_d[None, :] * stride_qd,
        mask=row_mask[:, None], other=0.0,
    )  # fmt: skip
    do = tl.load(
        DO + batch * stride_dob + head * stride_doh
        + rows[:, None] * stride_dom + offs_d[None, :] * stride_dod,
        mask=row_mask[:, None], other=0.0,
    )  # fmt: skip
    if UPCAST:
        q = q.to(tl.float32)
        do = do.to(tl.float32)
    stats = (batch * n_heads + head) * n_q + rows
    lse = tl.load(LSE + stats, mask=row_mask, other=0.0)
    delta = tl.load(DELTA + stats, mask=row_mask, other=0.0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    k_base = K + batch * stride_kb + head * stride_kh
    v_base = V + batch * stride_vb + head * stride_vh
    full_end = (n_k // BLOCK_N) * BLOCK_N  # the key blocks, split as in the forward
    hi = n_k
    if CAUSAL:
        first_row_sees = tl.maximum(m0 + diag + 1, 0)
        full_end = tl.minimum(full_end, (first_row_sees // BLOCK_N) * BLOCK_N)
        hi = tl.minimum(m0 + BLOCK_M + diag, n_k)
    dq = _attn_dq_steps(
        dq, q, do, lse, delta, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, 0, full_end, n_k, diag, qk_scale, BLOCK_N, False, CAUSAL, UPCAST,
    )  # fmt: skip
    dq = _attn_dq_steps(
        dq, q, do, lse, delta, k_base, v_base, stride_kn, stride_kd, stride_vn, stride_vd,
        offs_m, offs_d, full_end, hi, n_k, diag, qk_scale, BLOCK_N, True, CAUSAL, UPCAST,
    )  # fmt: skip
    # dQ is written contiguous (B, H, n_q, d).
    out = (batch * n_heads + head) * n_q * HEAD_DIM + rows[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(DQ + out, (dq * sm_scale).to(DQ.dtype.element_ty), mask=row_mask[:, None])


# --8<-- [end:backward]
# --8<-- [end:kernel]

# Tile matmuls (tl.dot) per pair of a query block and a key block, as the kernels above
# run them (tests/kernels/test_attention.py counts the calls in their source). Forward: 2,
# S = Q K^T and O += P V. Backward: 7, four in the dK/dV kernel (S^T = K Q^T again,
# dV += P^T dO, dP^T = V dO^T, dK += dS^T Q) and three in the dQ kernel (S = Q K^T again,
# dP = dO V^T, dQ += dS K): S and dP are each computed twice. FlashAttention-2's single
# pass, which sums dQ with atomics, does 5, the count behind the usual FLOP convention
# (backward = 2.5 x forward) that the benchmark uses.
FORWARD_TILE_MATMULS = 2
BACKWARD_TILE_MATMULS = 7


# --8<-- [start:launch]
LOG2_E = 1.4426950408889634  # exp(x) = exp2(x * log2(e))

# Tile sizes and launch settings per head dimension, one per kernel:
# (BLOCK_M queries, BLOCK_N keys, num_warps, num_stages). A larger head dimension makes
# every tile wider, so the register budget forces fewer rows or more warps.
# d = 64 and 128: the fastest of a small sweep on an H100 at N = 4096, causal and not
# (`python3 -m scripts.bench.benchmarks.attention` prints it); d = 16 and 32 are not tuned.
FORWARD_CONFIG = {16: (128, 64, 4, 3), 32: (128, 64, 4, 3), 64: (128, 64, 8, 3),
                  128: (128, 128, 8, 3)}  # fmt: skip
DKDV_CONFIG = {16: (32, 128, 4, 3), 32: (32, 128, 4, 3), 64: (64, 64, 4, 3),
               128: (64, 128, 8, 3)}  # fmt: skip
DQ_CONFIG = {16: (128, 32, 4, 3), 32: (128, 32, 4, 3), 64: (64, 64, 4, 3),
             128: (128, 64, 8, 3)}  # fmt: skip
PREPROCESS_BLOCK = 64
# On the CPU: small square tiles, so that tiny tests still walk several blocks.
INTERPRETER_CONFIG = (16, 16, 1, 1)

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


def plan(head_dim: int, *, backward: bool = False) -> tuple:
    """The tiles for ``head_dim``, each (BLOCK_M, BLOCK_N, num_warps, num_stages): the
    forward's, or with ``backward``, the pair (dK/dV kernel's, dQ kernel's)."""
    if _INTERPRET:
        return (INTERPRETER_CONFIG, INTERPRETER_CONFIG) if backward else INTERPRETER_CONFIG
    if backward:
        return DKDV_CONFIG[head_dim], DQ_CONFIG[head_dim]
    return FORWARD_CONFIG[head_dim]


def _strides(t: torch.Tensor) -> tuple[int, int, int, int]:
    return t.stride(0), t.stride(1), t.stride(2), t.stride(3)


def launch_forward(q, k, v, causal: bool | str, scale: float, config=None):
    """o (B, H, n_q, d) in q's dtype and lse (B, H, n_q), float32, base 2; no checks.
    ``causal``: False, True (= "top_left") or "bottom_right". ``config``: (BLOCK_M,
    BLOCK_N, num_warps, num_stages) instead of ``plan``'s."""
    batch, heads, n_q, head_dim = q.shape
    n_k = k.shape[2]
    # Causal: query i sees keys j <= i + diag, torch.tril(ones(n_q, n_k), diagonal=diag).
    diag = n_k - n_q if causal == "bottom_right" else 0
    o = torch.empty((batch, heads, n_q, head_dim), dtype=q.dtype, device=q.device)
    lse = torch.empty((batch, heads, n_q), dtype=torch.float32, device=q.device)
    if o.numel() == 0:
        return o, lse
    if n_k == 0:  # no key at all: SDPA gives zeros (a softmax over nothing, made safe)
        return o.zero_(), lse.fill_(float("-inf"))
    block_m, block_n, warps, stages = plan(head_dim) if config is None else config
    grid = ((n_q + block_m - 1) // block_m, heads, batch)
    attn_fwd_kernel[grid](
        q, k, v, o, lse, *_strides(q), *_strides(k), *_strides(v), *_strides(o),
        n_q, n_k, heads, diag, scale * LOG2_E,
        HEAD_DIM=head_dim, CAUSAL=bool(causal), UPCAST=_INTERPRET and q.dtype == torch.bfloat16,
        BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps, num_stages=stages,
    )  # fmt: skip
    return o, lse


def launch_backward(
    do, q, k, v, o, lse, causal: bool | str, scale: float, dkdv_config=None, dq_config=None
):
    """dq, dk, dv (contiguous, the inputs' dtype) from the upstream gradient ``do``; no
    checks. ``dkdv_config``, ``dq_config``: tiles instead of ``plan``'s."""
    batch, heads, n_q, head_dim = q.shape
    n_k = k.shape[2]
    dq = torch.empty((batch, heads, n_q, head_dim), dtype=q.dtype, device=q.device)
    dk = torch.empty((batch, heads, n_k, head_dim), dtype=k.dtype, device=k.device)
    dv = torch.empty((batch, heads, n_k, head_dim), dtype=v.dtype, device=v.device)
    if batch * heads * head_dim == 0:
        return dq, dk, dv
    if n_q == 0 or n_k == 0:  # no query sees any key: every gradient is zero
        return dq.zero_(), dk.zero_(), dv.zero_()
    upcast = _INTERPRET and q.dtype == torch.bfloat16
    delta = torch.empty((batch, heads, n_q), dtype=torch.float32, device=q.device)
    block = PREPROCESS_BLOCK if not _INTERPRET else INTERPRETER_CONFIG[0]
    attn_bwd_preprocess_kernel[((n_q + block - 1) // block, heads, batch)](
        o, do, delta, *_strides(o), *_strides(do), n_q, heads,
        HEAD_DIM=head_dim, BLOCK_M=block, num_warps=4,
    )  # fmt: skip
    if dkdv_config is None or dq_config is None:
        planned_dkdv, planned_dq = plan(head_dim, backward=True)
        dkdv_config = planned_dkdv if dkdv_config is None else dkdv_config
        dq_config = planned_dq if dq_config is None else dq_config
    common = (*_strides(q), *_strides(k), *_strides(v), *_strides(do))
    diag = n_k - n_q if causal == "bottom_right" else 0  # as in launch_forward
    numbers = (n_q, n_k, heads, diag, scale * LOG2_E, scale)
    block_m, block_n, warps, stages = dkdv_config
    attn_bwd_dkdv_kernel[((n_k + block_n - 1) // block_n, heads, batch)](
        q, k, v, do, lse, delta, dk, dv, *common, *numbers,
        HEAD_DIM=head_dim, CAUSAL=bool(causal), UPCAST=upcast,
        BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps, num_stages=stages,
    )  # fmt: skip
    block_m, block_n, warps, stages = dq_config
    attn_bwd_dq_kernel[((n_q + block_m - 1) // block_m, heads, batch)](
        q, k, v, do, lse, delta, dq, *common, *numbers,
        HEAD_DIM=head_dim, CAUSAL=bool(causal), UPCAST=upcast,
        BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps, num_stages=stages,
    )  # fmt: skip
    return dq, dk, dv


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16)  # tl.dot on tensor cores
CAUSAL_ALIGNMENTS = ("top_left", "bottom_right")  # causal=True is "top_left", as in SDPA
HEAD_DIMS = (16, 32, 64, 128)  # powers of two: tl.arange needs one; tl.dot needs >= 16
MAX_GRID_YZ = 65535  # heads and batch are the grid's 2nd and 3rd axes: CUDA's limit there
MAX_FLOAT32 = 3.4e38  # about float32's largest: the kernels get scale * log2(e) as a float32
# Forward-mode AD: a dual tensor carries a tangent, and AttentionFunction has no jvp (torch
# would refuse it without naming the argument). Tangents exist only inside
# forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _on_device(device: int, fn, *args):
    """Run ``fn(*args)`` with ``device`` current: Triton launches on the current GPU.
    (Device -1 is the CPU, under the interpreter: nothing to switch.)"""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args)
    with torch.cuda.device(device):
        return fn(*args)


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"attention: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"attention: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"attention: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"attention: {name} must be a dense tensor, got {got}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"attention: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}")
    if t.dim() != 4:
        raise ValueError(
            f"attention: {name} must be 4-D (batch, heads, sequence, head_dim), "
            f"got shape {tuple(t.shape)}"
        )


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool | str = False,
    scale: float | None = None,
) -> torch.Tensor:
    """``softmax(q @ k^T * scale) @ v``, as ``F.scaled_dot_product_attention(q, k, v,
    is_causal=causal, scale=scale)``, differentiable in q, k and v (``AttentionFunction``),
    once: a second derivative (``create_graph=True``) is refused, as are dual tensors
    (forward-mode AD has no formula here).

    ``q`` (B, H, n_q, d), ``k`` and ``v`` (B, H, n_k, d): dense (not nested), one dtype,
    float16 or bfloat16, one CUDA device (which need not be the current one), d in 16,
    32, 64, 128, B and H at most 65535. Any strides (a transposed (B, N, H, d) layout,
    say): the kernels take them as they are, nothing is copied. n_q and n_k may differ.
    ``causal``: False (no mask), True or "top_left" (query i sees keys j <= i, counted
    from the top-left corner as SDPA's ``is_causal=True``: ``torch.tril(torch.ones(n_q,
    n_k))``), or "bottom_right" (query i sees keys j <= i + n_k - n_q, the last query the
    last key: ``causal_lower_right``, what decoding with a KV cache needs). A row that sees
    no key (n_k = 0, or bottom-right with n_q > n_k for its first n_q - n_k rows) gives
    zeros and no gradient, as SDPA gives with an explicit boolean mask. ``scale``: None
    for 1/sqrt(d), or a Python int or float, > 0 and with ``scale * log2(e)`` finite in
    float32. The result is contiguous, in q's dtype, rounded once from float32. Views with
    the negative bit are read as their values. Raises ``TypeError``/``ValueError`` naming
    the argument instead of launching
    on anything else.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_tensor(name, t)
    if not (k.dtype == v.dtype == q.dtype):
        raise TypeError(f"attention: q, k, v have dtypes {q.dtype}, {k.dtype}, {v.dtype}; one")
    if k.get_device() != q.get_device() or v.get_device() != q.get_device():
        raise ValueError(f"attention: q, k, v are on {q.device}, {k.device}, {v.device}; one")
    batch, heads, _, head_dim = q.shape
    if k.shape != v.shape:
        raise ValueError(
            f"attention: k has shape {tuple(k.shape)} and v {tuple(v.shape)}; they must match"
        )
    if k.shape[0] != batch or k.shape[1] != heads:
        raise ValueError(
            f"attention: k and v have batch, heads {tuple(k.shape[:2])}; "
            f"q has {(batch, heads)} (no broadcasting, no grouped heads)"
        )
    if head_dim not in HEAD_DIMS or k.shape[3] != head_dim:
        raise ValueError(
            f"attention: head_dim (last dimension) of q is {head_dim} and of k, v is "
            f"{k.shape[3]}; it must be one of {HEAD_DIMS} for all three"
        )
    if batch > MAX_GRID_YZ or heads > MAX_GRID_YZ:
        raise ValueError(
            f"attention: q has batch {batch} and heads {heads}; each must be at most "
            f"{MAX_GRID_YZ} (they are axes 2 and 3 of the launch grid)"
        )
    if type(causal) is str:
        if causal not in CAUSAL_ALIGNMENTS:
            raise ValueError(
                f"attention: causal must be a bool, 'top_left' or 'bottom_right', got {causal!r}"
            )
    elif type(causal) is not bool:
        raise TypeError(
            f"attention: causal must be a bool or a str ('top_left', 'bottom_right'), "
            f"got {type(causal).__name__}"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise TypeError(
            f"attention: scale must be None or a Python float or int, got {type(scale).__name__}"
        )
    # The kernel multiplies by scale * log2(e) in float32: finite there, and > 0. (Compared
    # before multiplying: an int too large for a float would overflow the product.)
    if not 0 < scale <= MAX_FLOAT32 / LOG2_E:
        raise ValueError(f"attention: scale must be > 0 and finite in float32, got {scale}")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("q", q), ("k", k), ("v", v)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"attention: {name} is a dual tensor (forward-mode AD), but there is no "
                    f"forward-mode formula (jvp); pass forward_ad.unpack_dual({name}).primal"
                )
    # A view with the neg bit stores -x and reads as x; the kernels see only memory.
    q, k, v = (t.resolve_neg() if t.is_neg() else t for t in (q, k, v))
    return AttentionFunction.apply(q, k, v, causal, float(scale))


# --8<-- [end:checks]


# --8<-- [start:autograd]
class AttentionFunction(torch.autograd.Function):
    """Forward saves q, k, v, o and the logsumexp (4 bytes per query row, never the
    N x N probabilities); backward recomputes what it needs. Call it through
    ``attention``, which checks the arguments first."""

    @staticmethod
    def forward(ctx, q, k, v, causal: bool | str, scale: float) -> torch.Tensor:
        o, lse = _on_device(q.get_device(), launch_forward, q, k, v, causal, scale)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.causal, ctx.scale = causal, scale
        return o

    @staticmethod
    def backward(ctx, do: torch.Tensor):
        # Grad mode is on here only under create_graph=True, for a second derivative. The
        # backward kernels have no backward of their own: their results would count as
        # constants, silently, so refuse.
        if torch.is_grad_enabled():
            raise NotImplementedError(
                "attention: double backward (create_graph=True) is not supported: the "
                "backward kernels have no backward of their own"
            )
        q, k, v, o, lse = ctx.saved_tensors
        # dO comes from whatever followed, in any layout: the kernels take its strides.
        if do.is_neg():
            do = do.resolve_neg()
        if do.dtype != q.dtype:
            do = do.to(q.dtype)
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
    dtype, by torch alone. Differentiable: on float64 leaves it gives float64 gradients.
    Causal True or "top_left" is the mask ``tril(ones(n_q, n_k))``, "bottom_right" is
    ``tril(ones(n_q, n_k), diagonal=n_k - n_q)``; a row with no key gives zeros."""
    q64, k64, v64 = q.double(), k.double(), v.double()
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
