"""Exercise 05.1 · the K loop, with masks (lesson 05).

``tile_dot_kernel`` of the lesson multiplies one tile by one tile. Complete
``k_loop_dot_kernel``: program ``(i, j)`` computes the ``(BLOCK_M, BLOCK_N)`` tile of
``c = a @ b`` at rows ``i * BLOCK_M ...`` and columns ``j * BLOCK_N ...``, walking K in
steps of ``BLOCK_K`` and accumulating in fp32 with ``tl.dot(a, b, acc)``. M, N and K need
not be multiples of the tile: mask every load and the store. ``a`` is (M, K), ``b`` is
(K, N), both contiguous; ``c`` is (M, N), fp32.

    python -m exercises check 05.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def k_loop_dot_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        # TODO: load the (BLOCK_M, BLOCK_K) tile of a and the (BLOCK_K, BLOCK_N) tile of
        # b, masked, with other= the value that adds nothing; then acc = tl.dot(a, b, acc).
    # TODO: store acc into c, masked.


# --8<-- [end:starter]
