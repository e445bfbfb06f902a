"""Wrong kernels, kept on purpose: each one exists to be shown failing.

Every kernel here is a correct kernel of the book with one mistake put in, the mistake a
comment points at. The lessons include them by section to show what the mistake does, and
tests/kernels/test_wrong.py runs each one and checks that it fails exactly the way the
page says it fails. Do not copy any of them; copy the correct kernel named next to each.

- ``no-pid``: vector add (kernels/vector_add.py) that forgets ``pid *``; lesson 02.
- ``no-mask``: vector add without the mask; lesson 04.
- ``int32-offsets``: vector add whose offsets are int32; lesson 04.
- ``max-other-zero``: a row maximum that pads with ``other=0.0``; lesson 04. Its correct
  twin, ``row_max_kernel`` below, lives here too because no other file holds a row maximum.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported).
"""

import triton
import triton.language as tl


# --8<-- [start:no-pid]
@triton.jit
def add_kernel_no_pid(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # WRONG: the offsets never use tl.program_id, so every program owns tile 0.
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:no-pid]


# --8<-- [start:no-mask]
@triton.jit
def add_kernel_no_mask(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    tile_start = pid.to(tl.int64) * BLOCK
    offsets = tile_start + tl.arange(0, BLOCK)
    # WRONG: no mask, so the last tile's elements past n_elements are read and written
    # out of bounds.
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty))


# --8<-- [end:no-mask]


# --8<-- [start:int32-offsets]
@triton.jit
def add_kernel_int32_offsets(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    # WRONG: pid is int32, so pid * BLOCK wraps to a negative number once it reaches 2**31.
    tile_start = pid * BLOCK
    offsets = tile_start + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:int32-offsets]


# --8<-- [start:max-other-zero]
@triton.jit
def row_max_other_zero_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    # This program owns one row of n_cols values, padded to BLOCK >= n_cols elements.
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # WRONG: the padding reads 0.0, which beats every value of an all-negative row.
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row, tl.max(x, axis=0))


# --8<-- [end:max-other-zero]


# The correct twin of row_max_other_zero_kernel, for the tests to run the same checks on:
# the identity of max, -inf, in the padding.
@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))
