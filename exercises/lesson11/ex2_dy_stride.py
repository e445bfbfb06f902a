"""Exercise 11.2 · bug hunt: a backward that assumes its gradient is laid out like x.

``rmsnorm_bwd_kernel`` is lesson 11's smallest backward (one program per row, the whole
row as one tile): it writes dx and this row's share of dweight. It is given the row
stride of ``x`` and the row stride of ``dy`` separately, because the gradient autograd
hands a backward need not be laid out like the input (a slice of a wider tensor, a
transpose, an expanded tensor). It passes every test in which dy is contiguous and gives
wrong gradients otherwise. Find the line and fix it.

FlagGems' rms_norm backward had this bug (flagos-ai/FlagGems#1068, fixed in
flagos-ai/FlagGems#1084): a non-contiguous dy read through the wrong strides gave NaN and
gradients off by more than 1000%.

Check it:  python -m exercises check 11.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def rmsnorm_bwd_kernel(
    dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_rows_ptr,
    n_cols, x_stride, dy_stride, BLOCK: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)
    x_hat = x * rstd
    g = dy * w
    c = tl.sum(g * x_hat, axis=0) / n_cols
    dx = (g - x_hat * c) * rstd
    tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_rows_ptr + row * n_cols + cols, dy * x_hat, mask=mask)


# --8<-- [end:starter]
