"""18 · Beyond one GPU: the one-shot all-reduce of kernels/all_reduce.py on two GPUs.

Each GPU copies its tensor into its symmetric buffer (1), raises a flag in the other's
signal pad and waits for the other's flag (2), reads both buffers, the peer's over NVLink,
and sums (3), then meets the other at a second barrier (4) so the buffers can be reused."""

from scripts.book.diagrams.svg import Drawing

LEFT, RIGHT, COL = 16, 224, 160  # the two GPUs' columns: x of each, width
SIDES = [(LEFT, "0", "d-blue", "d-tb"), (RIGHT, "1", "d-orange", "d-to")]


def draw() -> Drawing:
    d = Drawing(
        "all-reduce-one-shot",
        372,
        "One-shot all-reduce on two GPUs over symmetric memory",
        """Two GPUs, each with its tensor x, a symmetric buffer that both GPUs can address
        and a small signal pad of flags. Step 1: each GPU copies its x into its own
        buffer. Step 2, a barrier: each raises a flag in the other GPU's signal pad, with
        release ordering, then waits until the other's flag appears in its own pad, with
        acquire ordering. Step 3: each GPU reads both buffers, its own locally and the
        other's over NVLink, adds them in float32 and writes its output, so both end with
        x0 plus x1. Step 4: a second barrier, so that neither GPU refills its buffer
        while the other is still reading it.""",
    )
    d.text(8, 18, "One-shot all-reduce: every GPU reads every buffer", 13, "d-b")
    top, buf_y, sum_y, h = 56, 112, 214, 32
    for x, r, fill, ink in SIDES:
        d.text(x + COL / 2, 44, f"GPU {r}", 12, "d-b", "middle", room=COL)
        # The tensor and the signal pad side by side; the pads face each other.
        tx, px = (x, x + 96) if r == "0" else (x + 64, x)
        d.rect(tx, top, 64, h, "d-surf")
        d.text(tx + 32, top + 21, f"x{'₀' if r == '0' else '₁'}", 12, "d-mono", "middle", room=60)
        d.rect(px, top, 64, h, "d-surf")
        d.text(px + 32, top + 21, "flags", 12, "", "middle", room=60)
        d.arrow(tx + 32, top + h, tx + 32, buf_y)
        d.text(tx + 40, top + h + 18, "1", 12, "d-b", room=20)
        d.rect(x, buf_y, COL, h, fill)
        d.text(
            x + COL / 2,
            buf_y + 21,
            f"buffer {r}: a copy of x{'₀' if r == '0' else '₁'}",
            12,
            ink + " d-b",
            "middle",
            room=COL - 8,
        )
        d.rect(x, sum_y, COL, h, "d-green")
        d.text(
            x + COL / 2,
            sum_y + 21,
            "out = buffer 0 + buffer 1",
            12,
            "d-tg d-b",
            "middle",
            room=COL - 8,
        )
        # Its own buffer, read locally, on the outer side.
        own = x + 34 if r == "0" else x + COL - 34
        d.arrow(own, buf_y + h, own, sum_y)
    # The barrier: a flag each way between the pads.
    d.arrow(LEFT + COL, top + 11, RIGHT, top + 11, "d-ln-b", "d-head-b")
    d.arrow(RIGHT, top + 23, LEFT + COL, top + 23, "d-ln-o", "d-head-o")
    d.label(200, top - 6, "2, 4", 12, "d-b")
    # The peers' buffers, read over NVLink: an X between the columns.
    a, b = LEFT + COL - 24, RIGHT + 24
    d.arrow(a, buf_y + h, b, sum_y, "d-ln-b", "d-head-b")
    d.arrow(b, buf_y + h, a, sum_y, "d-ln-o", "d-head-o")
    d.label(200, (buf_y + h + sum_y) / 2 + 4, "3 · NVLink", 12, "d-b")
    legend = [
        "1 · copy x into this GPU's symmetric buffer",
        "2 · barrier: raise a flag in the peer's pad (release),",
        "     then wait for the peer's flag in mine (acquire)",
        "3 · read both buffers, sum in float32, store out",
        "4 · barrier again: now the buffers may be refilled",
    ]
    for i, line in enumerate(legend):
        d.text(8, 276 + 20 * i, line, 12)
    return d
