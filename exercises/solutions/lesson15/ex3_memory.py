"""Exercise 15.3, a solution (the starter is exercises/lesson15/ex3_memory.py).

At N = 16,384 one bf16 tensor of N x V is 4 GiB, and eager PyTorch's step holds about three
of them at its peak (the logits, the log-softmax its backward keeps, their gradient). The
fused step holds grad_weight (V x H, 1 GiB), grad_x (128 MiB) and one chunk of logits. The
page's widget shows the measured ratio.
"""

# --8<-- [start:solution]
ANSWER = 8  # about 12 GiB against about 1.4 GiB
# --8<-- [end:solution]
