"""Exercise 12.3 · predict, then check: what flash attention saves (lesson 12, "Memory").

One causal training step of attention at n = 16,384 tokens (batch 1, 16 heads, d = 128):
the naive version holds its scores, probabilities and their gradients as n x n tensors;
the book's kernels hold q, k, v-sized tensors and one logsumexp per query. How many times
the book's peak working memory (beyond the inputs) did the naive version need, measured
on our H100? Pick the nearest of 2, 8, 32, 128
and 512, write it below, then:

    python -m exercises check 12.3

The check compares it with the book's measured data (figures/data/h100/), the same data
the page's widget reveals.
"""

# --8<-- [start:starter]
ANSWER = None  # your ratio: 2, 8, 32, 128 or 512
# --8<-- [end:starter]
