"""Exercise 05.2 · a bug hunt: the fp32 product that is not fp32 (lesson 05, "Precision").

``tile_dot_fp32_kernel`` multiplies fp32 tiles for a caller who needs fp32 accuracy: its
result is compared with ``torch.matmul`` in fp32 at a tolerance of 1e-5. It passes under
the interpreter, and on an H100 it misses by about 1e-3. Readers of Triton's matmul
tutorial who switched it to fp32 reported the same surprise
(https://github.com/triton-lang/triton/issues/1800). Find why, and fix it so that the
product is computed in full fp32. The check compiles your kernel for an H100 (no GPU
needed) and reads the precision of its dot from the Triton IR.

    python -m exercises check 05.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def tile_dot_fp32_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])  # fp32
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])  # fp32
    c = tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], c)


# --8<-- [end:starter]
