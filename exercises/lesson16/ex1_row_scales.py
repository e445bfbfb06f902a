"""Exercise 16.1 · write: the per-row epilogue of an FP8 matmul.

``fp8_rowwise_kernel`` computes one (BLOCK_M, BLOCK_N) tile of C = A @ B per program from
e4m3 ``a`` (M, K) and ``b`` (K, N), summing the 8-bit products in a float32 accumulator.
The operands come with scales, float32: ``a_scale`` has one per row of A (M of them),
``b_scale`` one per column of B (N): the real matrices are ``a_scale[i] * a[i, k]`` and
``b[k, j] * b_scale[j]``. As written, the kernel never reads the scales. Apply them
before the store, so that ``c[i, j] = a_scale[i] * b_scale[j] * sum_k a[i, k] b[k, j]``.

Check it:  python -m exercises check 16.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def fp8_rowwise_kernel(
    a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
    stride_am, stride_bn, stride_cm,  # a row-major (M, K); b column-major (K, N); c (M, N)
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
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
        acc = tl.dot(a, b, acc)  # 8-bit products, summed in float32
    # The scales: one per row of a, one per column of b.
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))  # fmt: skip


# --8<-- [end:starter]
