"""Solution of exercise 05.1 (the starter is exercises/lesson05/ex1_k_loop.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def k_loop_dot_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        # other=0.0: a padded k adds a * 0 = 0 to every sum, whatever the other tile holds.
        a_mask = (rows[:, None] < M) & (ks[None, :] < K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=a_mask, other=0.0)
        b_mask = (ks[:, None] < K) & (cols[None, :] < N)
        b = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=c_mask)


# --8<-- [end:solution]
