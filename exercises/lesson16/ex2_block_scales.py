"""Exercise 16.2 · write: block scales inside the K loop.

``fp8_block_kernel`` computes one (BLOCK_M, BLOCK_N) tile of C = A @ B per program from
e4m3 ``a`` (M, K) and ``b`` (K, N) with DeepSeek-V3's block scales, float32:
``a_scale[i, kb]`` for row i of A and the 128 columns kb*128 ... kb*128 + 127 (shape
(M, ceil(K/128))), and ``b_scale[kb, nb]`` for the 128 x 128 block of B at rows kb*128...
and columns nb*128... (shape (ceil(K/128), ceil(N/128))). BLOCK_K is 128, so loop step k
covers scale column k of a and scale row k of b exactly.

As written, the kernel sums every product first and then applies the FIRST K block's
scales to the whole sum: right when K <= 128, wrong beyond. Apply each step's scales to
that step's product instead.

Check it:  python -m exercises check 16.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
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
        acc = tl.dot(a, b, acc)
    # One scale per row of the tile and one per column (a column's 128-block of b).
    sa = tl.load(a_scale_ptr + offs_m * stride_sa, mask=offs_m < M, other=0.0)
    sb = tl.load(b_scale_ptr + offs_n // 128, mask=offs_n < N, other=0.0)
    acc = acc * (sa[:, None] * sb[None, :])
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))  # fmt: skip


# --8<-- [end:starter]
