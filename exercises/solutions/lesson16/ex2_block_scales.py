"""Exercise 16.2, a solution (the starter is exercises/lesson16/ex2_block_scales.py).

Block scales change along K, so they cannot come out of the whole sum, only out of each
128-long piece of it: each step's product is computed on its own (a fresh float32 tile,
``tl.dot(a, b)``), multiplied by that step's scales and added to the accumulator. As a
side effect the tensor cores' own short-precision sum never runs past 128 terms.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def fp8_block_kernel(
    a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
    stride_am, stride_bn, stride_cm,  # a row-major (M, K); b column-major (K, N); c (M, N)
    stride_sa, stride_sb,  # row strides of a_scale (M, K/128) and b_scale (K/128, N/128)
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,  # BLOCK_K = 128
):  # fmt: skip
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        ks = k * BLOCK_K + offs_k
        a = tl.load(
            a_ptr + offs_m[:, None] * stride_am + ks[None, :],
            mask=(offs_m[:, None] < M) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ks[:, None] + offs_n[None, :] * stride_bn,
            mask=(ks[:, None] < K) & (offs_n[None, :] < N),
            other=0.0,
        )
        # This step's scales: column k of a's, row k of b's.
        sa = tl.load(a_scale_ptr + offs_m * stride_sa + k, mask=offs_m < M, other=0.0)
        sb = tl.load(b_scale_ptr + k * stride_sb + offs_n // 128, mask=offs_n < N, other=0.0)
        acc += tl.dot(a, b) * (sa[:, None] * sb[None, :])
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))  # fmt: skip


# --8<-- [end:solution]
