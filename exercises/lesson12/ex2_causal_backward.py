"""Exercise 12.2 · bug hunt: a causal forward, and a backward that forgot it.

``attn_bwd_dv_kernel`` computes dV, the gradient of causal attention with respect to v,
for contiguous (batch * heads, n, d) tensors: one program per BLOCK_N keys, walking the
queries BLOCK_M at a time. It recomputes the probabilities from q, k and the forward's
logsumexp ``lse`` (base 2, one per query, taken over the keys each query sees), and adds
P^T dO. The forward was causal; the dV it returns is wrong. Find why and fix it.

The backward of Triton's own fused-attention tutorial has disagreed with its forward about
the causal mask: triton-lang/triton#4541 (the backward ignored the causal flag) and
triton-lang/triton#7216 (gradients off by up to 1.08 in its own test).

Check it:  python -m exercises check 12.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
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
    for start_m in range(0, n, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qt = tl.load(Q + base + offs_d[:, None] + offs_m[None, :] * HEAD_DIM)  # q^T
        do = tl.load(dO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        lse = tl.load(LSE + bh * n + offs_m)
        st = tl.dot(k, qt) * qk_scale  # scores, transposed: (my keys, these queries)
        pt = tl.exp2(st - lse[None, :])  # P^T, from the forward's logsumexp
        dv = tl.dot(pt.to(do.dtype), do, dv)
    tl.store(dV + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], dv.to(dV.dtype.element_ty))


# --8<-- [end:starter]
