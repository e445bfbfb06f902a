"""Exercise 11.2, a solution (the starter is exercises/lesson11/ex2_dy_stride.py).

dy was read with x's row stride. When dy is contiguous and x is too, the two strides are
equal and nothing shows; when dy is a slice of a wider tensor (or a transpose, or expanded
with stride 0), row * x_stride lands in the wrong row of dy, or in memory that is not dy's
at all. Each tensor is read through its own stride.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def rmsnorm_bwd_kernel(
    dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_rows_ptr,
    n_cols, x_stride, dy_stride, BLOCK: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * dy_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)
    x_hat = x * rstd
    g = dy * w
    c = tl.sum(g * x_hat, axis=0) / n_cols
    dx = (g - x_hat * c) * rstd
    tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_rows_ptr + row * n_cols + cols, dy * x_hat, mask=mask)


# --8<-- [end:solution]
