"""Exercise 03.3 · one kernel, two versions (lesson 03, "Specialisation").

A ``tl.constexpr`` argument is known when the kernel compiles, so an ``if`` on it is
decided by the compiler: each value gets its own compiled version with only its branch.
Complete ``activation_kernel``: with ``RELU`` true it computes ``max(x, 0)``, with
``RELU`` false ``x * sigmoid(x)`` (SiLU), in fp32, rounded once at the store.

    python -m exercises check 03.3
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def activation_kernel(x_ptr, out_ptr, n, RELU: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # TODO: if RELU, y = max(x, 0); else y = x * sigmoid(x). Then store y, rounded to
    # out's dtype, with the mask.


# --8<-- [end:starter]
