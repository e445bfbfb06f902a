"""Solution of exercise 03.3 (the starter is exercises/lesson03/ex3_constexpr_flag.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def activation_kernel(x_ptr, out_ptr, n, RELU: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if RELU:  # decided at compile time: each version holds one branch only
        y = tl.maximum(x, 0.0)
    else:
        y = x * tl.sigmoid(x)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
