"""Exercise 09.3 · predict, then check: what an eager epilogue costs (lesson 09, "Why
write your own: the fused epilogue").

At 4096^3 in bf16, cuBLAS computes C = a @ b, then eager PyTorch adds the bias and applies
GELU in two more kernels, four extra passes over C (two reads, two writes). How many times
the time of cuBLAS alone does the whole chain take, measured on our H100? The page gives
C's size, the copy bandwidth and cuBLAS's time to work it out. Pick the nearest of 1.05,
1.1, 1.25, 1.5 and 2, write it below, then:

    python -m exercises check 09.3

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # the chain's time over cuBLAS alone: 1.05, 1.1, 1.25, 1.5 or 2
# --8<-- [end:starter]
