"""Exercise 13.1, a solution (the starter is exercises/lesson13/ex1_reset_to_zero.py).

To time a config, the autotuner runs the kernel, several times, into the caller's out.
Each run adds the sum once more, so the first call for a new n returns the sum times
(runs of every config + 1). reset_to_zero names the arguments the autotuner zeroes
before each timed run and before the real one (restore_value would save and restore
them instead, for a kernel that updates its output in place).
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in (32, 64, 128)],
    key=["n"],
    reset_to_zero=["out_ptr"],  # the kernel adds into out: zero it before every run
)
@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


# --8<-- [end:solution]
