"""Exercise 12.2, a solution (the starter is exercises/lesson12/ex2_causal_backward.py).

The forward gave query i no weight on keys after i; the backward recomputed P without that
mask, so every key received gradient from the queries before it, which never saw it. The
recomputed P must be masked exactly as the forward's was. Once it is, query blocks that end
before my first key see none of my keys: the loop can start at my first key's block.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def attn_bwd_dv_kernel(
    Q, K, dO, LSE, dV, n, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    start_n = tl.program_id(0) * BLOCK_N
    offs_n = start_n + tl.arange(0, BLOCK_N)  # my keys
    bh = tl.program_id(1).to(tl.int64)
    base = bh * n * HEAD_DIM
    offs_d = tl.arange(0, HEAD_DIM)
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    # Queries before my first key see none of my keys: start at the block holding it.
    for start_m in range((start_n // BLOCK_M) * BLOCK_M, n, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qt = tl.load(Q + base + offs_d[:, None] + offs_m[None, :] * HEAD_DIM)  # q^T
        do = tl.load(dO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        lse = tl.load(LSE + bh * n + offs_m)
        st = tl.dot(k, qt) * qk_scale  # scores, transposed: (my keys, these queries)
        pt = tl.exp2(st - lse[None, :])  # P^T, from the forward's logsumexp
        # The forward's causal mask, transposed: key j gets weight from query i >= j only.
        pt = tl.where(offs_m[None, :] >= offs_n[:, None], pt, 0.0)
        dv = tl.dot(pt.to(do.dtype), do, dv)
    tl.store(dV + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], dv.to(dV.dtype.element_ty))


# --8<-- [end:solution]
