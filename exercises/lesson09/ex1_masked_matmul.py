"""Exercise 09.1: the K loop of a tiled matmul, for any M, N and K.

``matmul_kernel`` computes ``c = a @ b`` for fp16 ``a`` (M, K) and ``b`` (K, N) into a
contiguous fp16 ``c`` (M, N), one BLOCK_M x BLOCK_N tile of c per program, on a 1-D grid
of cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs in row-major tile order. Which tile a
program owns and the store are written; complete the loop over K. M, N and K are not
multiples of the blocks, and ``a`` and ``b`` come with strides (the checker passes a
transposed ``b`` too, read in place).

Check it:  python -m exercises check 09.1
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
    # Your code: for each step k0 of BLOCK_K along K, load the (BLOCK_M, BLOCK_K) tile of
    # a and the (BLOCK_K, BLOCK_N) tile of b, masked, and accumulate acc = tl.dot(a, b, acc).

    inside = (rows < M)[:, None] & (cols < N)[None, :]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16), mask=inside)


# --8<-- [end:starter]
