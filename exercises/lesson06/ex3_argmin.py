"""Exercise 06.3 · a row argmin with your own combine (lesson 06, "Your own combine, and
scans").

Complete ``smaller_first``, the combine that ``row_argmin_kernel`` reduces with: given two
(value, index) pairs it keeps the smaller value, and on a tie the lower index, whichever
side it came from (the combine must be commutative). Then choose the padding the load
needs. ``idx_out[r]`` must equal ``x[r].argmin()``: the first column holding the row's
minimum. The check uses rows full of ties.

    python -m exercises check 06.3
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def smaller_first(v1, i1, v2, i2):
    # TODO: keep_1 = whether pair 1 wins; return the winner's value and index.
    return v2, i2


@triton.jit
def row_argmin_kernel(x_ptr, min_ptr, idx_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    # TODO: other= must never win the minimum.
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    value, index = tl.reduce((x, cols), 0, smaller_first)
    tl.store(min_ptr + row, value)
    tl.store(idx_ptr + row, index)


# --8<-- [end:starter]
