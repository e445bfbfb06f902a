"""Solution of exercise 04.2 · rows past 2**31 elements (the starter is
exercises/lesson04/ex2_row_offsets.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def scale_rows_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    # int64: row * stride passes 2**31 - 1 once the tensor has more than 2**31 elements,
    # and in int32 it would wrap to a negative offset.
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
    w = tl.load(w_ptr + cols, mask=mask)
    tl.store(out_ptr + row * stride_out + cols, x * w, mask=mask)


# --8<-- [end:solution]
