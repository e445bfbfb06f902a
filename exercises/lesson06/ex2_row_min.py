"""Exercise 06.2 · a bug hunt: the row minimum of positive numbers (lesson 06).

``row_min_kernel`` gives each program one row of ``n_cols`` values, padded to a tile of
``BLOCK >= n_cols`` elements, and stores its minimum. On rows that hold a negative value it
is right. A review of FlagGems found the same pattern in several of its reductions
(https://github.com/flagos-ai/FlagGems/issues/3716). Find what goes wrong on a row of
positive numbers, and fix it.

    python -m exercises check 06.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def row_min_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask)
    tl.store(out_ptr + row, tl.min(x, axis=0))


# --8<-- [end:starter]
