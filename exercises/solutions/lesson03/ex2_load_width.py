"""Solution of exercise 03.2 (the starter is exercises/lesson03/ex2_load_width.py).

At n = 4096 the compiler knows n is a multiple of 16 (specialisation), so no tile is cut
in the middle of four floats and each thread loads four at once; at 4100 it knows
nothing about n, and loads one float at a time."""

# --8<-- [start:solution]
BITS_PER_LOAD_4096 = 128  # ld.global.v4.b32: four floats per instruction
BITS_PER_LOAD_4100 = 32  # ld.global.b32: one float per instruction
# --8<-- [end:solution]
