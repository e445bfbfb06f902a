"""Exercise 13.1 · bug hunt: an autotuned sum that adds up its own timing runs.

``sum_kernel`` sums a vector: each program sums BLOCK elements and adds its partial sum
into ``out[0]`` with ``tl.atomic_add`` (``out`` starts at zero). It gives the right sum with
any one BLOCK. Autotuned over three BLOCKs it is wrong on the first call for each new
``n``, and right on later calls with the same ``n``. Find why and fix the autotuner, not
the kernel. (On the CPU the check times each config with a stand-in for ``do_bench``
that runs it three times; the settings it reads are yours.)

Reported against Triton exactly so: triton-lang/triton#4217 (an autotuned reduction with
atomics, wrong on each new shape); triton-lang/triton#6547 is its in-place cousin.

Check it:  python -m exercises check 13.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in (32, 64, 128)],
    key=["n"],
)
@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


# --8<-- [end:starter]
