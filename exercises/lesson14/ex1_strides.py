"""Exercise 14.1 · bug hunt: a wrapper that is silently wrong on a view.

``scale`` is a small public wrapper: it returns ``alpha * x`` through ``scale_kernel``, a
kernel that reads ``x`` and writes ``out`` as flat, contiguous runs of ``n`` elements. It
is right on every tensor ``torch.randn`` makes, and silently wrong on some views. Find
which and fix the wrapper so that it is never silently wrong: it either returns the right
answer or raises a ``ValueError`` whose message names ``x``, as lesson 14's contract asks.
(Keep using ``scale_kernel``: the check counts its launches.)

Two real reports of this: pytorch/pytorch#130243 (a user's flat-indexed Triton kernel,
handed tensors whose strides torch.compile had reordered, gave wrong results) and the
review of pytorch/executorch#22192 (a cast kernel that read its activations with a flat
index: a transposed view and a plain row slice came out badly wrong).

Check it:  python -m exercises check 14.1
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


def scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"scale: x must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"scale: x must be a floating-point tensor, got {x.dtype}")
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[((n + BLOCK - 1) // BLOCK,)](x, out, n, alpha, BLOCK=BLOCK)
    return out


# --8<-- [end:starter]
