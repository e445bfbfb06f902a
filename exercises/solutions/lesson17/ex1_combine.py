"""Exercise 17.1, a solution (the starter is exercises/lesson17/ex1_combine.py).

Slice s summed exp over its keys to l_s = 2 ** lse_s and stored part_s = acc_s / l_s. Over
all keys the output is sum_s(acc_s) / sum_s(l_s) = sum_s(l_s * part_s) / sum_s(l_s), and
each l_s is taken relative to the largest, 2 ** (lse_s - m), so that nothing overflows. An
empty slice has lse = -inf and weight 0; a row with no key at all has m = -inf, so 0 is
subtracted instead and the sum of weights, 0, is replaced by 1: zeros.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def combine_kernel(
    part_ptr, lse_ptr, out_ptr, n_splits, HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr
):  # fmt: skip
    row = tl.program_id(0)
    offs_s = tl.arange(0, BLOCK_S)  # this row's splits (masked past n_splits)
    offs_d = tl.arange(0, HEAD_DIM)
    keep = offs_s < n_splits
    lse = tl.load(lse_ptr + row * n_splits + offs_s, mask=keep, other=float("-inf"))
    m = tl.max(lse, 0)
    m = tl.where(m == float("-inf"), 0.0, m)  # no key at all: subtract 0, not -inf
    w = tl.exp2(lse - m)  # each slice's sum of exp, relative to the largest
    part = tl.load(
        part_ptr + (row * n_splits + offs_s[:, None]) * HEAD_DIM + offs_d[None, :],
        mask=keep[:, None],
        other=0.0,
    )
    total = tl.sum(w, 0)
    out = tl.sum(part * w[:, None], 0) / tl.where(total > 0, total, 1.0)
    tl.store(out_ptr + row * HEAD_DIM + offs_d, out)


# --8<-- [end:solution]
