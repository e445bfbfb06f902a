"""Exercise 17.1 · merge the splits.

The split kernel of lesson 17 leaves, for every output row (one query token of one head),
``n_splits`` partial results: ``part[row, s]``, the attention output over slice s of the
keys, already divided by that slice's own sum of exponentials, and ``lse[row, s]``, the
log-sum-exp of that slice's scores in base 2 (-inf for a slice with no key: its
``part`` row is zeros). Write ``combine_kernel`` so that ``out[row]`` is the attention
output over all the keys: the partial results weighted by each slice's share of the total
sum of exponentials.

``part`` is (rows, n_splits, HEAD_DIM) float32, ``lse`` (rows, n_splits) float32, ``out``
(rows, HEAD_DIM) float32, all contiguous. One program per row; ``BLOCK_S`` is the next
power of two at or above ``n_splits``. A row whose slices are all empty gives zeros.

Check it:  python -m exercises check 17.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def combine_kernel(
    part_ptr, lse_ptr, out_ptr, n_splits, HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr
):  # fmt: skip
    row = tl.program_id(0)
    offs_s = tl.arange(0, BLOCK_S)  # this row's splits (masked past n_splits)
    offs_d = tl.arange(0, HEAD_DIM)
    # Your code: load the row's lse and partial outputs, weigh, add up, divide, store.


# --8<-- [end:starter]
