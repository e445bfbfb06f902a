"""Exercise 10.2, a solution (the starter is exercises/lesson10/ex2_online.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = float("-inf")  # the largest x of the tiles so far
    s = 0.0  # the sum of exp(x - m) over the tiles so far
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_ptr + row * x_stride + c, mask=c < n_cols, other=float("-inf"))
        x = x.to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # The old sum was taken relative to m: exp(x - m) * exp(m - m_new) = exp(x - m_new).
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new

    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_ptr + row * x_stride + c, mask=c < n_cols, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - m) / s
        tl.store(y_ptr + row * y_stride + c, y.to(y_ptr.dtype.element_ty), mask=c < n_cols)


# --8<-- [end:solution]
