"""Solution of exercise 04.1 · a transposing copy (the starter is
exercises/lesson04/ex1_transpose.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def transpose_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_r,  # x's strides, in elements: any view of x works
    stride_c,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    pid_r = tl.program_id(axis=0)
    pid_c = tl.program_id(axis=1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + rows[:, None] * stride_r + cols[None, :] * stride_c, mask=mask)
    # x[r, c] goes to out[c, r], at c * n_rows + r: the tile keeps its (BLOCK_R, BLOCK_C)
    # shape, only the offsets it is stored through change.
    tl.store(out_ptr + cols[None, :] * n_rows + rows[:, None], tile, mask=mask)


# --8<-- [end:solution]
