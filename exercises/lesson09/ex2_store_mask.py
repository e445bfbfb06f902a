"""Exercise 09.2 · bug hunt: a matmul that writes where it should not.

``matmul_kernel`` computes ``c = a @ b`` for fp16 ``a`` (M, K) and ``b`` (K, N) into a
contiguous fp16 ``c``, one tile per program, and it passes every test whose N is a
multiple of BLOCK_N. On other shapes some elements of c come out wrong, and the kernel
writes past the end of c. Find the line and fix it.

A grouped matmul in Hugging Face's kernels-community (huggingface/kernels-community#1153)
had this bug: right on its tests, wrong on ordinary expert shapes.

Check it:  python -m exercises check 09.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + ks
        a = tl.load(
            a_ptr + rows[:, None] * stride_am + k[None, :] * stride_ak,
            mask=(rows < M)[:, None] & (k < K)[None, :],
            other=0.0,
        )
        b = tl.load(
            b_ptr + k[:, None] * stride_bk + cols[None, :] * stride_bn,
            mask=(k < K)[:, None] & (cols < N)[None, :],
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    row_inside = (rows < M)[:, None]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16), mask=row_inside)


# --8<-- [end:starter]
