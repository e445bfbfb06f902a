"""A kernel with the two debugging aids lesson 14 shows: a compile-time check and a print.

``tile_sums_kernel`` sums each tile of ``BLOCK`` elements into one output per program.
``tl.static_assert`` refuses a ``BLOCK`` that is not a multiple of 16 while the kernel
compiles (or, under the interpreter, when it runs), before anything is launched; and
with ``DEBUG=True`` each program prints its tile's sum with ``tl.device_print``. ``DEBUG``
is a ``tl.constexpr``, so the print is compiled in only when asked for: the kernel the
book times never carries it. tests/kernels/test_debugging.py runs both.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported).
"""

import triton
import triton.language as tl


# --8<-- [start:checked-kernel]
@triton.jit
def tile_sums_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr, DEBUG: tl.constexpr):
    # Checked once per BLOCK, at compile time: a bad tile size never reaches the GPU.
    tl.static_assert(BLOCK % 16 == 0, "tile_sums_kernel: BLOCK must be a multiple of 16")
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    total = tl.sum(x.to(tl.float32), axis=0)
    if DEBUG:  # compiled in only for DEBUG=True
        tl.device_print("tile sum", total)
    tl.store(out_ptr + pid, total)


# --8<-- [end:checked-kernel]
