"""Exercise 12.1, a solution (the starter is exercises/lesson12/ex1_causal.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
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
    # My last query is start_m + BLOCK_M - 1: key blocks from start_m + BLOCK_M on are
    # entirely in its future, for every one of my queries.
    for start_n in range(0, start_m + BLOCK_M, BLOCK_N):
        kt = tl.load(K + bh + offs_d[:, None] + (start_n + offs_n)[None, :] * HEAD_DIM)
        v = tl.load(V + bh + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        s = tl.dot(q, kt) * qk_scale
        # A query sees its own key and earlier ones: -inf where the key comes later.
        s = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(Out + bh + offs_m[:, None] * HEAD_DIM + offs_d[None, :], o.to(Out.dtype.element_ty))


# --8<-- [end:solution]
