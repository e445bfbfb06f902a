"""Exercise 03.2 · predict, then check: how wide is a load? (lesson 03,
"Specialisation").

Compile kernels/vector_add.py's ``add_kernel`` for an H100 (BLOCK = 1024, 4 warps) as a
launch would find its arguments: the pointers are multiples of 16 (torch allocates on
256-byte boundaries), and ``n`` is 4096 in one launch, 4100 in the other. How many bits
does each of its global load instructions read, in each case: 32 (one float), 64 or 128?

    python -m exercises check 03.2

The check compiles the kernel itself (no GPU needed) and reads the PTX.
"""

# --8<-- [start:starter]
BITS_PER_LOAD_4096 = None  # 32, 64 or 128
BITS_PER_LOAD_4100 = None  # 4100 is a multiple of 4, but not of 16
# --8<-- [end:starter]
