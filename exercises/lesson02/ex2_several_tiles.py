"""Exercise 02.2 · one program, several tiles (lesson 02, "The grid").

So far every program owned one tile. Here each program owns ``TILES`` consecutive tiles
of ``BLOCK`` elements, so the grid has ``ceil(n / (TILES * BLOCK))`` programs, and a
program walks its tiles in a loop. Complete ``scale_kernel`` (``out = alpha * x``) so
that program ``p`` covers elements ``p * TILES * BLOCK`` up to, not including,
``(p + 1) * TILES * BLOCK``.

    python -m exercises check 02.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    pid = tl.program_id(axis=0)
    for t in range(TILES):  # TILES is known when the kernel compiles
        # TODO: the offsets of tile t of this program, its mask, load, scale, store.
        pass


# --8<-- [end:starter]
