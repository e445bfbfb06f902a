"""Solution of exercise 06.2 (the starter is exercises/lesson06/ex2_row_min.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def row_min_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # Without other=, a masked-off element holds no promised value (the interpreter
    # reads 0): pad with the identity of min, +inf, which no row value loses to.
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=float("inf"))
    tl.store(out_ptr + row, tl.min(x, axis=0))


# --8<-- [end:solution]
