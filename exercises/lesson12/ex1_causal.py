"""Exercise 12.1: the causal mask in the smallest flash attention.

``attn_fwd_kernel`` is lesson 12's smallest forward, ``softmax(q k^T / sqrt(d)) v`` for
contiguous (batch * heads, n, d) ``q``, ``k`` and ``v``, one program per BLOCK_M queries,
walking the keys BLOCK_N at a time with the online softmax (scores in base 2, so
``exp2``). Make it causal: query i sees keys 0 to i only (n_q = n_k = n, top-left and
bottom-right alignment agree). Two changes: the scores of keys past a query are -inf
before the max and the exp, and a program stops at the last key block any of its queries
can see (later blocks are all masked: reading them is wasted work).
n is a multiple of the blocks.

Check it:  python -m exercises check 12.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def attn_fwd_kernel(
    Q, K, V, Out, n, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0) * BLOCK_M
    offs_m = start_m + tl.arange(0, BLOCK_M)  # my queries
    bh = tl.program_id(1).to(tl.int64) * n * HEAD_DIM  # my (batch, head)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + bh + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, n, BLOCK_N):  # Your code: stop after the last block I can see
        kt = tl.load(K + bh + offs_d[:, None] + (start_n + offs_n)[None, :] * HEAD_DIM)
        v = tl.load(V + bh + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        s = tl.dot(q, kt) * qk_scale
        # Your code: -inf where the key (start_n + offs_n) comes after the query (offs_m).
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(Out + bh + offs_m[:, None] * HEAD_DIM + offs_d[None, :], o.to(Out.dtype.element_ty))


# --8<-- [end:starter]
