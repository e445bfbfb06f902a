"""Exercise 04.1 · a transposing copy (lesson 04, "A tile of pointers in two dimensions").

Complete ``transpose_kernel``: program (i, j) loads the (BLOCK_R, BLOCK_C) tile of ``x``
at rows ``i * BLOCK_R ...`` and columns ``j * BLOCK_C ...`` and stores it transposed into
``out``, a contiguous (n_cols, n_rows) tensor: ``x[r, c]`` goes to ``out[c, r]``. ``x`` may
be any strided view (transposed, sliced); its strides come in as arguments.

Check it (from the repository's root; no GPU needed):

    python -m exercises check 04.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def transpose_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_r,  # x's strides, in elements: any view of x works
    stride_c,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    pid_r = tl.program_id(axis=0)
    pid_c = tl.program_id(axis=1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    # TODO 1: the offsets of this tile in x, its mask, and the load.
    # TODO 2: where x[r, c] goes in the contiguous (n_cols, n_rows) out, and the store.


# --8<-- [end:starter]
