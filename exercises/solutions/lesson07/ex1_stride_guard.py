"""Solution of exercise 07.1 (the starter is exercises/lesson07/ex1_stride_guard.py)."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)  # element i of x is at x_ptr + i
    tl.store(out_ptr + offsets, alpha * x, mask=mask)


# --8<-- [start:solution]
def scale(x, alpha, *, block=256):
    # The kernel reads element i at x_ptr + i: that holds for a contiguous x only. A row
    # slice x[:, :k] has a last stride of 1 and rows further apart than k.
    if not x.is_contiguous():
        raise ValueError(f"x must be contiguous, got shape {tuple(x.shape)} strides {x.stride()}")
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[((n + block - 1) // block,)](x, out, alpha, n, BLOCK=block)
    return out


# --8<-- [end:solution]
