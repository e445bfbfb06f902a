"""Exercise 10.1 · bug hunt: softmax with the wrong padding.

``softmax_kernel`` computes a row-wise softmax, one program per row, the whole row as one
tile of BLOCK >= n_cols elements. It is right whenever n_cols is a power of two, and wrong
on almost every other width. Find the line and fix it.

The value a masked load puts in the elements past the end of the row matters as soon as
those elements meet a reduction: FlagGems, a library of Triton operators, found masked loads
whose padding fed max, sum and softmax reductions (flagos-ai/FlagGems#3716).

Check it:  python -m exercises check 10.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:starter]
