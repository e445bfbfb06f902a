"""Exercise 09.1, a solution (the starter is exercises/lesson09/ex1_masked_matmul.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
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
        # other=0.0: a padded element of a meets a padded element of b, and 0 * 0 adds
        # nothing to the sum (the last K step hangs over K when BLOCK_K does not divide it).
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

    inside = (rows < M)[:, None] & (cols < N)[None, :]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16), mask=inside)


# --8<-- [end:solution]
