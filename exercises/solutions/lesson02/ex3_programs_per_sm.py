"""Solution of exercise 02.3 (the starter is exercises/lesson02/ex3_programs_per_sm.py).

Threads allow 2,048 / 64 = 32 programs and the slots 32; at 56 registers per thread a
warp needs 56 x 32 = 1,792 registers (already a multiple of 256), so 65,536 / 1,792 = 36
warps fit, 18 programs of 2 warps: registers decide."""

# --8<-- [start:solution]
ANSWER = 18  # min(2048 // 64, 32, (65536 // (56 * 32)) // 2)
# --8<-- [end:solution]
