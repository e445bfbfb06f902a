"""Hello, Triton: the smallest kernel that does real work, and the lines that run it.

The orientation page of the book (docs/index.md) shows this file as the five-minute start:

    TRITON_INTERPRET=1 python kernels/_hello.py   # any Linux machine: the CPU runs it
    python kernels/_hello.py                      # a machine with an NVIDIA or AMD GPU

and prints what it prints; tests/kernels/test_hello.py runs it and checks the page says
exactly that. The kernel is the vector add of lesson 02 without two details the book's
kernels/vector_add.py adds (64-bit offsets for tensors past 2**31 elements, and fp32
arithmetic for 16-bit inputs): copy that one for real work.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)  # which program am I: 0, 1, 2, ...
    offsets = pid * BLOCK + tl.arange(0, BLOCK)  # the tile of BLOCK elements I own
    mask = offsets < n  # the last tile may run past the end of the data
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:run]
def main():
    # Under TRITON_INTERPRET=1 kernels run on the CPU, so the tensors live there too.
    device = "cpu" if triton.knobs.runtime.interpret else "cuda"
    x = torch.arange(10, dtype=torch.float32, device=device)
    y = torch.full_like(x, 100.0)
    out = torch.empty_like(x)
    block = 4
    grid = ((x.numel() + block - 1) // block,)  # 3 programs: 0-3, 4-7, 8-9 (+2 masked)
    add_kernel[grid](x, y, out, x.numel(), BLOCK=block)
    print("programs:", grid[0])
    print(out.cpu())
    print("same as x + y:", torch.equal(out, x + y))


if __name__ == "__main__":
    main()
# --8<-- [end:run]
