"""Exercise 14.1, a solution (the starter is exercises/lesson14/ex1_strides.py).

The kernel reads x's memory in order, and empty_like keeps x's layout only when x is
dense (a transpose or a permute: then memory order matches and the result is right). A
view with gaps, such as x[:, ::2] or x[:8] of a wider row, or an expanded tensor, is not
a run of n elements: the kernel read the wrong ones. Here the wrapper copies such a view
into a contiguous tensor first; refusing it with a ValueError that names x would keep the
contract too, and costs the caller the copy instead.
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


def scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"scale: x must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"scale: x must be a floating-point tensor, got {x.dtype}")
    # The kernel reads n elements in a row: a view with gaps (a slice with a step, an
    # expanded tensor) is copied first. (Or refuse it: ValueError, naming x.)
    if not x.is_contiguous():
        x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[((n + BLOCK - 1) // BLOCK,)](x, out, n, alpha, BLOCK=BLOCK)
    return out


# --8<-- [end:solution]
