"""Exercise 11.1, a solution (the starter is exercises/lesson11/ex1_layernorm.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def layernorm_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, x_stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols  # padding elements are 0: they add nothing
    # ...but 0 - mean is not 0: zero the padding again before squaring.
    d = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
