"""Exercise 18.2, a solution (the starter is exercises/lesson18/ex2_bytes_per_gpu.py).

One-shot: 7 × 64 MiB = 448 MiB received per GPU. Two-shot: 2 × 7/8 × 64 MiB = 112 MiB.
The ratio is (n − 1) / (2 (n − 1) / n) = n / 2 = 4, whatever the tensor's size: on two
GPUs the two move the same bytes, and the gap grows with every GPU added.
"""

# --8<-- [start:solution]
ANSWER = 4  # (n - 1) / (2 (n - 1) / n) = n / 2 with n = 8
# --8<-- [end:solution]
