"""Exercise 11.3 · predict, then check: the tuned backward against torch.compile (lesson
11, "The measurement").

torch.compile of the eager RMSNorm formula generates its own fused Triton kernels for the
forward and the backward. At H = 8,192 in bf16, how many times as fast as torch.compile's
backward is the book's tuned backward (torch.compile's time over the book's), measured on
our H100? Pick the nearest of 0.8, 1, 1.2, 1.5 and 2, write it below, then:

    python -m exercises check 11.3

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # torch.compile's backward time over the book's: 0.8, 1, 1.2, 1.5 or 2
# --8<-- [end:starter]
