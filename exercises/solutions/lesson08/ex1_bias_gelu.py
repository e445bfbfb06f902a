"""Exercise 08.1, a solution: bias + GELU in one kernel (see the starter for the task)."""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def bias_gelu_kernel(
    x_ptr, bias_ptr, out_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    in_cols = cols < N
    inside = (rows < M)[:, None] & in_cols[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=inside)
    # One bias per column, shared by the tile's BLOCK_M rows: [BLOCK_N] -> [1, BLOCK_N].
    b = tl.load(bias_ptr + cols, mask=in_cols)
    v = x.to(tl.float32) + b.to(tl.float32)[None, :]
    y = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))  # erf(v / sqrt(2))
    tl.store(
        out_ptr + rows[:, None] * N + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=inside
    )


# --8<-- [end:solution]
