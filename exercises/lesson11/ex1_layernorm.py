"""Exercise 11.1: LayerNorm's forward, from RMSNorm's.

``layernorm_fwd_kernel`` normalises each row of ``x`` (n_rows, n_cols) like
``torch.nn.functional.layer_norm(x, (n_cols,), w, b, eps)``: subtract the row's mean,
divide by the square root of the row's variance (the mean of the squared differences)
plus eps, then scale by ``w`` and shift by ``b``. One program per row, the whole row as
one tile of BLOCK >= n_cols elements (a power of two), as in lesson 11's
``rmsnorm_fwd_kernel``. Rows of ``x`` are ``x_stride`` apart; ``y`` is contiguous. Compute
in float32 and round once, at the store.

Check it:  python -m exercises check 11.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def layernorm_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, x_stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    # Your code: the row's mean; the differences x - mean (careful: the padding elements
    # must add nothing to the variance); rstd = 1 / sqrt(variance + eps); then
    # y = (x - mean) * rstd * w + b, stored at y_ptr + row * n_cols + cols.


# --8<-- [end:starter]
