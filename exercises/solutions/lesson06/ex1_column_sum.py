"""Solution of exercise 06.1 (the starter is exercises/lesson06/ex1_column_sum.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
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
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        offs = rows[:, None] * stride_r + cols[None, :] * stride_c
        acc += tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # axis=0 is the rows' axis: it disappears, leaving one sum per column.
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + cols, total.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


# --8<-- [end:solution]
