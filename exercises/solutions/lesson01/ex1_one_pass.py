"""Solution of exercise 01.1 · one pass instead of three (the starter is
exercises/lesson01/ex1_one_pass.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def mul_add_relu_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)  # the tile this program owns
    mask = offsets < n  # the last tile may hang over the end
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask).to(tl.float32)
    z = tl.load(z_ptr + offsets, mask=mask).to(tl.float32)
    # The intermediates x * y and x * y + z live in registers, never in memory.
    result = tl.maximum(x * y + z, 0.0)
    tl.store(out_ptr + offsets, result.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
