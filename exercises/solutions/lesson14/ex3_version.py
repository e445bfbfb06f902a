"""Exercise 14.3, a solution (the starter is exercises/lesson14/ex3_version.py).

Autograd knows a tensor was overwritten by its version counter, which every in-place
torch op bumps; a Triton kernel writes through a raw pointer, and torch never hears of
it. increment_version does what torch's own out= ops do, so that a backward which saved
out refuses to run on the new values instead of computing silently wrong gradients.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


# --8<-- [start:solution]
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
    # The kernel wrote out's memory behind autograd's back: say so, as torch's out= does.
    torch.autograd.graph.increment_version(out)
    return out


# --8<-- [end:solution]
