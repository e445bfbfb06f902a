"""Solution of exercise 06.3 (the starter is exercises/lesson06/ex3_argmin.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def smaller_first(v1, i1, v2, i2):
    # The smaller value; on a tie the lower index, so swapping the pairs changes nothing.
    keep_1 = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(keep_1, v1, v2), tl.where(keep_1, i1, i2)


@triton.jit
def row_argmin_kernel(x_ptr, min_ptr, idx_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    # +inf never wins a minimum (and the padding's columns come after every real one).
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("inf"))
    value, index = tl.reduce((x, cols), 0, smaller_first)
    tl.store(min_ptr + row, value)
    tl.store(idx_ptr + row, index)


# --8<-- [end:solution]
