"""Exercise 14.3 · bug hunt: an ``out=`` that autograd cannot see.

``scale`` returns ``alpha * x`` through ``scale_kernel``, into a new tensor or into ``out``
when the caller passes one. Its values are right. But when ``out`` is a tensor autograd
saved for a backward pass, overwriting it with ``scale`` goes unnoticed, and the backward
silently computes gradients from the new values, where ``torch.mul(x, alpha, out=out)``
makes the backward raise. Find what the wrapper leaves out and add it (lesson 14's
contract: writing into ``out=`` tells autograd, as torch's own ``out=`` does).

Liger-Kernel, whose kernels write into their inputs to save memory, tracked this as
linkedin/Liger-Kernel#272; PyTorch exposed the call the fix needs to Python for Triton
kernels in pytorch/pytorch#96852.

Check it:  python -m exercises check 14.3
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


# --8<-- [start:starter]
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, (x * alpha).to(out_ptr.dtype.element_ty), mask=offs < n)


def scale(x: torch.Tensor, alpha: float, out: torch.Tensor | None = None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not x.is_contiguous():
        raise ValueError("scale: x must be a contiguous torch.Tensor")
    if out is None:
        out = torch.empty_like(x)
    elif out.shape != x.shape or out.dtype != x.dtype or not out.is_contiguous():
        raise ValueError("scale: out must be contiguous, with x's shape and dtype")
    n = x.numel()
    scale_kernel[((n + BLOCK - 1) // BLOCK,)](x, out, n, alpha, BLOCK=BLOCK)
    return out


# --8<-- [end:starter]
