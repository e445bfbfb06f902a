"""Exercise 18.1 · write: read every rank's buffer (lesson 18, "The kernel").

``sum_buffers_kernel`` is step 3 of the one-shot all-reduce on its own: ``buffer_ptrs``
holds ``WORLD`` addresses (int64), entry ``r`` the address of rank ``r``'s buffer, and
each buffer holds ``n_elements`` values of ``out``'s dtype. Every program must add its
tile of every buffer, in rank order, in float32, and store the sum. As written it adds
nothing. Fill in the loop.

The check runs it with ordinary tensors standing in for the ranks' buffers (the kernel
sees only addresses, so it cannot tell), on the CPU under the interpreter or on one GPU:

    python -m exercises check 18.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def sum_buffers_kernel(buffer_ptrs, out_ptr, n_elements, WORLD: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    # Your code: for each rank, turn its address into a pointer to out's element type
    # and add its tile to total.
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:starter]
