"""Solution of exercise 02.2 (the starter is exercises/lesson02/ex2_several_tiles.py)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    pid = tl.program_id(axis=0)
    for t in range(TILES):  # TILES is known when the kernel compiles
        # This program's t-th tile: its TILES tiles sit next to each other.
        offsets = (pid * TILES + t) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, alpha * x, mask=mask)


# --8<-- [end:solution]
