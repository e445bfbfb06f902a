"""Exercise 10.2: online softmax, for rows longer than one tile.

``softmax_online_kernel`` computes a row-wise softmax with one program per row, reading
the row BLOCK elements at a time: pass 1 keeps a running maximum ``m`` and a running sum
``s`` of exp(x - m) over the tiles read so far; pass 2 reads the row again and writes
exp(x - m) / s. Pass 2 and the loops are written; complete the update of ``m`` and ``s``
in pass 1. The checker's rows are several tiles long, their largest value anywhere,
and their values large enough that exp(x) alone would overflow float32.

Check it:  python -m exercises check 10.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
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
        # Your code: the new maximum m_new from m and this tile; s, rescaled from the old
        # maximum to the new one, plus this tile's sum of exp(x - m_new); then m = m_new.

    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_ptr + row * x_stride + c, mask=c < n_cols, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - m) / s
        tl.store(y_ptr + row * y_stride + c, y.to(y_ptr.dtype.element_ty), mask=c < n_cols)


# --8<-- [end:starter]
