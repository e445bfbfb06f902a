"""Solution of exercise 02.1 (the starter is exercises/lesson02/ex1_store_mask.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    # The last tile hangs over the end of out: only its first n % BLOCK elements exist.
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


# --8<-- [end:solution]
