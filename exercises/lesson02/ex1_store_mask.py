"""Exercise 02.1 · a bug hunt: the mask that was built and never used (lesson 02).

``relu_kernel`` computes ``out = max(x, 0)``, one tile per program. It is right whenever
``n`` is a multiple of ``BLOCK``, and otherwise it damages memory it does not own. The
same slip, a mask computed on the line above a store that ignores it, was found in
flash-attention's Triton linear kernel
(https://github.com/Dao-AILab/flash-attention/pull/2790). Find it and fix it.

    python -m exercises check 02.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0))


# --8<-- [end:starter]
