"""Exercise 10.1, a solution (the starter is exercises/lesson10/ex1_padding.py).

With other=0.0, each padding element holds 0: exp(0 - m) joins the sum, so every row whose
width is not the tile's is divided by too much (and a row whose values are all negative
also gets m = 0 instead of its maximum). With other=-inf a padding element never wins the max
and adds exp(-inf) = 0 to the sum.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # -inf: a padding element never wins the max, and exp(-inf) = 0 adds nothing to the sum.
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=float("-inf"))
    x = x.to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
