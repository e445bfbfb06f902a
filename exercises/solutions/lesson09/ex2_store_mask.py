"""Exercise 09.2, a solution (the starter is exercises/lesson09/ex2_store_mask.py).

The store was masked by rows only. A tile in the last column of tiles hangs past column N;
c is contiguous, so c + row * N + col for col >= N is the start of the *next* row: the
overhang overwrote the first columns of the row below with its zeros (b was loaded with
other=0.0 there), and the last row's overhang went past the end of c. The store needs the
same two-axis mask as the tile: rows inside M *and* columns inside N.
"""

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
    inside = (rows < M)[:, None] & (cols < N)[None, :]  # both axes: a tile hangs over N too
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16), mask=inside)


# --8<-- [end:solution]
