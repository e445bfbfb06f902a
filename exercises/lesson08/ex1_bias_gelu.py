"""Exercise 08.1: bias + GELU in one kernel.

Complete ``bias_gelu_kernel`` so that it writes ``out = gelu(x + bias)`` for a 2-D ``x`` of
shape (M, N) and a ``bias`` of N elements (one per column), with the exact GELU,
``0.5 * v * (1 + erf(v / sqrt(2)))``. The checker launches it on a 2-D grid: axis 0 walks
tiles of BLOCK_M rows, axis 1 tiles of BLOCK_N columns; M and N are not multiples of the
tile. Rows of ``x`` may be further apart than N (``stride_xm``); ``out`` is contiguous.
Compute in float32 and round once, at the store, to ``out``'s dtype.

Check it:  python -m exercises check 08.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def bias_gelu_kernel(
    x_ptr, bias_ptr, out_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    # Your code: a mask for the tile's elements inside (M, N); load x (row stride
    # stride_xm) and the tile's BLOCK_N biases; v = x + bias in float32; the exact GELU
    # (tl.math.erf); store into out (row stride N) in out's dtype.
    pass


# --8<-- [end:starter]
