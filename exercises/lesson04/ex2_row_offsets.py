"""Exercise 04.2 · a bug hunt: rows past 2**31 elements (lesson 04, "Offsets past 2³¹
elements").

``scale_rows_kernel`` multiplies each row of ``x`` by a weight vector ``w``, one program
per row: ``out[r, :] = x[r, :] * w``. It is right on every tensor a laptop holds, and
wrong on a tensor with more than 2**31 elements. The same mistake was reported in
Liger-Kernel's RMSNorm forward (https://github.com/linkedin/Liger-Kernel/issues/1483).
Find it and fix it; the check compiles your kernel for an H100 with Triton's debug mode
on, which needs no GPU, and looks for the overflow check debug mode adds.

    python -m exercises check 04.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def scale_rows_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)  # one program per row
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
    w = tl.load(w_ptr + cols, mask=mask)
    tl.store(out_ptr + row * stride_out + cols, x * w, mask=mask)


# --8<-- [end:starter]
