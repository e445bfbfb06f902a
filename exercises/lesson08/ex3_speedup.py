"""Exercise 08.3 · predict, then check: what fusing buys (lesson 08, "Counting the bytes").

At the largest size the book measures (32,768 x 4,096 in bf16, with the mask), eager's
three kernels move 7/3 = 2.33 times the bytes of the fused kernel. How many times faster
is the fused kernel than eager, measured on our H100? Pick the nearest of 1.5, 2, 2.33, 3
and 4, write it below, then:

    python -m exercises check 08.3

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # your speed-up: 1.5, 2, 2.33, 3 or 4
# --8<-- [end:starter]
