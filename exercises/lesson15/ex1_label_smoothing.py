"""Exercise 15.1: label smoothing in the fused cross-entropy kernel.

With label smoothing eps, the label of a row is no longer one class but a mix: 1 - eps
on the labelled class and eps spread evenly over all V classes. The row's loss becomes

    loss = (1 - eps) * (lse - z[label]) + eps * (lse - mean(z))

(lse is the row's logsumexp) and its gradient, written over the logits,

    dz = (softmax(z) - (1 - eps) * onehot(label) - eps / V) * scale

``cross_entropy_grad_kernel`` below is the lesson's kernel with a new argument,
``smoothing`` (eps). As given it ignores it. Make it match
``torch.nn.functional.cross_entropy(..., label_smoothing=eps)``: pass 1 must also add up
the row's logits (for mean(z)), and both the loss and pass 2 must use eps. Ignored rows
still get a loss of 0 and a gradient of 0. The check's rows are several tiles long.

Check it:  python -m exercises check 15.1
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
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
    # Your code: a running sum of the row's logits, for mean(z) (padding must add 0).
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        z = tl.load(base + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)
    z_label = tl.load(base + tl.where(ignored, 0, label)).to(tl.float32)
    loss = lse - z_label  # Your code: the smoothed loss
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, loss))
    scale = tl.load(scale_ptr)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(z - lse)
        g = tl.where(cols == label, p - 1.0, p) * scale  # Your code: the smoothed gradient
        g = tl.where(ignored, 0.0, g)
        tl.store(base + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:starter]
