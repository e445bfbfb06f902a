"""Solution of exercise 05.2 (the starter is exercises/lesson05/ex2_tf32.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def tile_dot_fp32_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])  # fp32
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])  # fp32
    # Unset, input_precision is "tf32" on tensor-core GPUs: the inputs keep 10 of their 23
    # mantissa bits. "ieee" multiplies in full fp32 (on CUDA cores, slower).
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], c)


# --8<-- [end:solution]
