"""Exercise 06.1 · a strided column sum (lesson 06, "The reduction calls, and what
``axis`` means").

Complete ``column_sum_kernel``: ``out[c] = x[0, c] + x[1, c] + ... + x[n_rows - 1, c]``.
Program ``j`` owns the ``BLOCK_C`` columns ``j * BLOCK_C ...`` and walks down the rows
``BLOCK_R`` at a time, keeping a running fp32 tile of partial sums; at the end one
reduction along the rows turns it into ``BLOCK_C`` sums. ``x`` may be any strided view.

    python -m exercises check 06.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def column_sum_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_r,
    stride_c,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    cols = tl.program_id(axis=0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for r0 in range(0, n_rows, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        # TODO: load this (BLOCK_R, BLOCK_C) tile of x, masked, padded with the identity of
        # +, as fp32, and add it to acc.
    # TODO: reduce acc along the rows (which axis disappears?) and store the BLOCK_C sums.


# --8<-- [end:starter]
