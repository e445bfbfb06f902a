"""15 · Fused linear cross-entropy: one chunk of rows, as kernels/linear_cross_entropy.py
computes it.

launch walks x in chunks of R rows. For chunk c: torch.matmul writes the chunk's logits
x_c @ W^T into one reused R x V buffer; cross_entropy_grad_kernel (one program per row)
reads the row once for its running maximum and sum of exponentials, writes the row's loss,
then reads it again and overwrites it with (softmax - onehot(target)) * scale; two more
matmuls turn that gradient into the chunk's rows of grad_x and add its share to grad_W.
Nothing of size N x V is ever held."""

from scripts.book.diagrams.svg import Drawing

CHUNKS = 5  # bands of x drawn; the third is the chunk being worked on


def draw() -> Drawing:
    d = Drawing(
        "linear-cross-entropy",
        470,
        "Fused linear cross-entropy: the tokens in chunks, the logits chunk overwritten by "
        "its gradient",
        """x, N rows of H numbers, is cut into chunks of R rows. For the chunk being worked
        on: first, a matrix product writes its logits, x_c times W transposed, R rows of V
        numbers, into one buffer that every chunk reuses. Second, the kernel runs one
        program per row: it reads the row once for the running maximum and the sum of
        exponentials, writes the row's loss, then reads the row again and writes over it
        the gradient of the loss with respect to the logits, softmax minus one at the
        row's label, times the scale. Third, two matrix products use that gradient: it times W
        gives the chunk's rows of grad_x, and its transpose times x_c is added into grad_W.
        Then the next chunk reuses the buffer. Only R by V logits exist at any time,
        never N by V.""",
    )
    d.text(8, 18, "One chunk of R tokens at a time", 13, "d-b")

    # x, cut into chunks; chunk c (the third band) is the one being worked on.
    xx, xy, xw, band = 16, 62, 58, 36
    d.text(xx, xy - 10, "x: N × H", 12, "d-mono", room=90)
    for i in range(CHUNKS):
        cls = "d-orange" if i == 2 else ("d-green-s" if i < 2 else "d-box")
        d.rect(xx, xy + i * band, xw, band, cls, rx=0)
    d.label(xx + xw / 2, xy + 2.5 * band + 4, "x_c", 12, "d-to d-b", mono=True)
    d.text(xx, xy + CHUNKS * band + 18, "done", 12, "d-tg", room=60)
    d.rect(xx + 36, xy + CHUNKS * band + 8, 12, 12, "d-green-s", rx=0)
    d.text(xx, xy + CHUNKS * band + 36, "R rows", 12, "d-to", room=60)
    d.rect(xx + 46, xy + CHUNKS * band + 26, 12, 12, "d-orange", rx=0)

    # 1: the logits of the chunk, into one reused buffer.
    bx, bw = 104, 280
    y1 = 62
    d.text(bx, y1 - 10, ["1 · ", ("torch.matmul", "d-mono"), " into one buffer"], 12, room=bw)
    d.rect(bx, y1, bw, 44, "d-blue")
    d.text(bx + bw / 2, y1 + 19, "z = x_c · Wᵀ", 12, "d-tb d-b", "middle", room=bw - 10)
    d.text(bx + bw / 2, y1 + 36, "logits: R × V", 12, "d-mono", "middle", room=bw - 10)
    d.arrow(xx + xw, xy + 2.5 * band, bx, y1 + 22, "d-ln-o", "d-head-o")

    # 2: the kernel, one program per row, two passes over the row.
    y2 = 152
    d.arrow(bx + bw - 24, y1 + 44, bx + bw - 24, y2 - 2, "d-ln", "d-head")
    d.text(bx, y2 - 10, "2 · the kernel, a program per row", 12, room=bw - 40)
    d.rect(bx, y2, bw, 78, "d-orange")
    d.text(bx + 10, y2 + 19, "pass 1: running max m, sum s", 12, room=bw - 20)
    d.text(bx + 10, y2 + 36, "loss = m + log s − z[target]", 12, "d-mono", room=bw - 20)
    d.text(bx + 10, y2 + 53, "pass 2: over z, in place:", 12, room=bw - 20)
    d.text(bx + 10, y2 + 68, "(softmax − onehot) · scale", 12, "d-mono d-to", room=bw - 20)

    # 3: two matmuls use the gradient.
    y3 = 286
    hw = (bw - 14) / 2
    lx, rx_ = bx, bx + hw + 14
    d.text(bx + bw / 2, y3 - 22, "3 · two matmuls read it", 12, "", "middle", room=bw)
    d.arrow(lx + 16, y2 + 78, lx + 16, y3 - 2, "d-ln", "d-head")
    d.arrow(rx_ + hw - 16, y2 + 78, rx_ + hw - 16, y3 - 2, "d-ln", "d-head")
    d.rect(lx, y3, hw, 44, "d-green")
    d.text(lx + hw / 2, y3 + 19, "grad_x[c] =", 12, "d-mono", "middle", room=hw - 8)
    d.text(lx + hw / 2, y3 + 36, "dz · W", 12, "d-mono", "middle", room=hw - 8)
    d.rect(rx_, y3, hw, 44, "d-green")
    d.text(rx_ + hw / 2, y3 + 19, "grad_W +=", 12, "d-mono", "middle", room=hw - 8)
    d.text(rx_ + hw / 2, y3 + 36, "dzᵀ · x_c", 12, "d-mono", "middle", room=hw - 8)

    # The loop, and what it saves.
    d.elbow([(bx + bw, y3 + 22), (bx + bw + 10, y3 + 22), (bx + bw + 10, y1 + 6),
             (bx + bw + 1, y1 + 6)], "d-ln d-dash")  # fmt: skip
    d.text(8, 370, "Then the next chunk reuses the same buffer.", 12)
    d.text(8, 394, ["Held at once: ", ("R × V", "d-mono"), " logits, never ",
                    ("N × V", "d-mono"), "."], 12, "d-b")  # fmt: skip
    d.text(8, 418, "N = 8,192 tokens, V = 128,256: 2 GiB of bf16 logits", 12, "d-t2")
    d.text(8, 436, "against 250 MiB for a chunk of R = 1,024 rows.", 12, "d-t2")
    d.height = 446
    return d
