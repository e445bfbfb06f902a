"""Solution of exercise 07.2 (the starter is exercises/lesson07/ex2_launch.py)."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [start:solution]
def launch(x, y, out=None, *, block=1024):
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    grid = ((n + block - 1) // block,)  # a ceiling division: the ragged last tile counts
    add_kernel[grid](x, y, out, n, BLOCK=block)
    return out


# --8<-- [end:solution]
