"""Exercise 13.2 · predict, then check: how deep to pipeline (lesson 13, "How many
programs fit on an SM").

The 128 x 128 x 64 tile on 8 warps: the page's exercise gives its registers per thread
and its shared memory with 3, 4 and 5 stages, as compiled for our H100. Count the programs
per SM for each, then predict: which stage count ran the 4096^3 bf16 matmul fastest?
Write 3, 4 or 5 below, then:

    python -m exercises check 13.2

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # the fastest stage count: 3, 4 or 5
# --8<-- [end:starter]
