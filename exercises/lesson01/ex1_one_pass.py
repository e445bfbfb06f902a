"""Exercise 01.1 · one pass instead of three (lesson 01).

In PyTorch, ``torch.relu(x * y + z)`` runs three kernels, and the two intermediate
tensors go out to memory and back. Complete ``mul_add_relu_kernel`` so that one kernel
does all of it: each program reads its tile of ``x``, ``y`` and ``z`` once, and writes its
tile of ``out`` once. Compute in fp32 and round once, at the store, to ``out``'s dtype.

    python -m exercises check 01.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def mul_add_relu_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)  # the tile this program owns
    mask = offsets < n  # the last tile may hang over the end
    # TODO: load x, y and z (as fp32: .to(tl.float32)), compute relu(x * y + z) with
    # tl.maximum, and store it into out, rounded to out's dtype: out_ptr.dtype.element_ty.


# --8<-- [end:starter]
