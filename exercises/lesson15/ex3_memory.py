"""Exercise 15.3 · predict, then check: what the fused step saves.

One training step of the last layer at N = 16,384 tokens (bf16, H = 4,096, V = 128,256):
eager PyTorch (F.linear, then F.cross_entropy) holds the logits and what its backward
needs; the book's fused step holds one chunk of logits and the two gradients. How many
times the book's peak working memory (beyond the inputs) did eager PyTorch need, measured
on our H200? Pick the nearest of 2, 4, 8, 16 and 32, write it below, then:

    python -m exercises check 15.3

The check compares it with the book's measured data (figures/data/h200/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # your ratio: 2, 4, 8, 16 or 32
# --8<-- [end:starter]
