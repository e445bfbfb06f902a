"""Exercise 07.1 · a bug hunt: the guard that looks at one stride (lesson 07, "The
contract: never silently wrong").

``scale(x, alpha)`` returns ``alpha * x`` through ``scale_kernel``, which walks ``x`` as
one flat run of ``x.numel()`` elements. Its check refuses a tensor whose last stride is
not 1, and still lets through a tensor the kernel reads wrongly, with no error. The same
guard was fixed in Transformer Engine's cross-entropy
(https://github.com/NVIDIA/TransformerEngine/pull/2746). Find the tensor it lets through,
and make ``scale`` keep the contract: the right answer, or a ``ValueError`` that names
``x``, with nothing launched.

    python -m exercises check 07.1
"""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)  # element i of x is at x_ptr + i
    tl.store(out_ptr + offsets, alpha * x, mask=mask)


# --8<-- [start:starter]
def scale(x, alpha, *, block=256):
    if x.stride(-1) != 1:
        raise ValueError(f"x must have unit stride in its last dimension, got {x.stride()}")
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[((n + block - 1) // block,)](x, out, alpha, n, BLOCK=block)
    return out


# --8<-- [end:starter]
