"""Exercise 18.1, a solution (the starter is exercises/lesson18/ex1_read_peers.py).

An int64 loaded from ``buffer_ptrs`` becomes a pointer with ``.to(tl.pointer_type(...))``;
from there it is an ordinary pointer: add the offsets, load under the mask. The loop is
unrolled at compile time (``tl.static_range``), one load per rank.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def sum_buffers_kernel(buffer_ptrs, out_ptr, n_elements, WORLD: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for rank in tl.static_range(WORLD):
        buffer = tl.load(buffer_ptrs + rank).to(tl.pointer_type(out_ptr.dtype.element_ty))
        total += tl.load(buffer + offsets, mask=mask).to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
