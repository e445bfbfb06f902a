"""Solution of exercise 01.2 (the starter is exercises/lesson01/ex2_count_bytes.py)."""

# --8<-- [start:solution]
T = 4096 * 8192 * 2 / 1e6  # one bf16 tensor of y's shape, in MB: about 67
EAGER_MB = 6 * T  # product writes; GELU reads, writes; multiply reads two, writes
GELU_MASK_FUSED_MB = 4 * T  # product writes; the fused kernel reads two, writes
ALL_FUSED_MB = 2 * T  # the product reads mask and writes y
# --8<-- [end:solution]
