"""Exercise 15.2 · bug hunt: a batch in which every row is ignored.

``cross_entropy_grad_kernel`` is the lesson's kernel with one line written differently:
it zeroes the gradient of an ignored row by multiplying by a 0/1 mask. It passes every
check with at least one row that counts, and breaks on a batch whose labels are all
ignore_index, which happens in fine-tuning when a micro-batch holds only prompt tokens
(their labels masked with -100). For such a batch torch's mean cross-entropy is NaN
(0 / 0) but its gradients are zeros, and so must the kernel's be: a NaN gradient would
poison the weights on the next optimizer step. Find the line and fix it.

Training code has had to guard this case by hand: nvidia-cosmos/cosmos-rl#155 catches the
all-masked batch, and pytorch/pytorch#116349 asks why the mean is NaN there.

Check it:  python -m exercises check 15.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
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
    keep = tl.where(ignored, 0.0, 1.0)  # 0 for an ignored row, 1 otherwise
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(z - lse)
        g = tl.where(cols == label, p - 1.0, p) * scale * keep
        tl.store(base + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:starter]
