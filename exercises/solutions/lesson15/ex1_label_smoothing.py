"""Exercise 15.1, a solution (the starter is exercises/lesson15/ex1_label_smoothing.py).

Pass 1 keeps a third running quantity, the sum of the logits (the padding loads -inf for
the maximum, so it is zeroed before the sum). The loss mixes the label's loss with the
uniform one; the gradient subtracts 1 - eps at the label and eps / V everywhere. Both still
come from one read of the row for the statistics and one read and write for the gradient.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def cross_entropy_grad_kernel(
    logits_ptr, label_ptr, loss_ptr, scale_ptr, n_cols, row_stride, ignore_index,
    smoothing, BLOCK: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * row_stride
    label = tl.load(label_ptr + row).to(tl.int64)
    ignored = label == ignore_index
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), tl.float32)
    total = tl.zeros((), tl.float32)  # the sum of the row's logits
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
        total += tl.sum(tl.where(mask, z, 0.0), axis=0)  # padding (-inf) adds nothing
    lse = m + tl.log(s)
    z_label = tl.load(base + tl.where(ignored, 0, label)).to(tl.float32)
    loss = (1.0 - smoothing) * (lse - z_label) + smoothing * (lse - total / n_cols)
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, loss))
    scale = tl.load(scale_ptr)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(z - lse) - smoothing / n_cols
        g = tl.where(cols == label, p - (1.0 - smoothing), p) * scale
        g = tl.where(ignored, 0.0, g)
        tl.store(base + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
