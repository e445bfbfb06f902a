"""Exercise 15.2, a solution (the starter is exercises/lesson15/ex2_every_row_ignored.py).

When every row is ignored, the mean's scale is 1 / 0 = inf, and an ignored row's gradient
becomes (p or p - 1) * inf * 0 = NaN: in IEEE arithmetic inf times 0 is NaN, not 0. A
select does not multiply: tl.where(ignored, 0.0, g) gives 0 whatever g holds, inf and NaN
included.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def cross_entropy_grad_kernel(
    logits_ptr, label_ptr, loss_ptr, scale_ptr, n_cols, row_stride, ignore_index,
    BLOCK: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * row_stride
    label = tl.load(label_ptr + row).to(tl.int64)
    ignored = label == ignore_index
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        z = tl.load(base + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)
    z_label = tl.load(base + tl.where(ignored, 0, label)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, lse - z_label))
    scale = tl.load(scale_ptr)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(z - lse)
        g = tl.where(cols == label, p - 1.0, p) * scale
        g = tl.where(ignored, 0.0, g)  # a select, not * 0: scale is inf when all are ignored
        tl.store(base + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:solution]
