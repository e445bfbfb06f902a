"""17 · Decoding attention: split-KV. The query heads of one GQA group are the rows of one
tile; the cache of their key/value head is cut into slices, one program each; a combine
step merges the slices' partial outputs by their log-sum-exps."""

from scripts.book.diagrams.svg import Drawing

SPLITS = 4


def draw() -> Drawing:
    d = Drawing(
        "decode-split-kv",
        330,
        "Split-KV decoding: one key/value head's cache cut into four slices",
        f"""The four query heads of one group (one new token each) become the four rows of
        one tile, padded to the 16 rows a tensor-core dot needs. The keys and values of
        their shared key/value head, N of them, are cut into {SPLITS} slices, and each slice
        is one program: it walks its keys block by block with an online softmax and writes
        a partial output o_s, already divided by its own sum, and the log-sum-exp lse_s of
        each row. A second, small kernel combines the slices: each partial output is
        weighted by w_s = 2 to the power (lse_s minus the largest lse), and the weighted sum
        is divided by the sum of the weights. A slice past the end of a short sequence is
        empty: its lse is minus infinity and its weight zero. The grid has batch times
        key/value heads times splits programs.""",
    )
    d.text(8, 18, "Split-KV: one key/value head, four slices", 13, "d-b")
    d.text(8, 36, "programs = batch × key/value heads × splits", 12, "d-t2")
    # The query tile: the group's heads as rows.
    qx, qy, qw, qh = 8, 50, 60, 11
    for i in range(4):
        d.rect(qx, qy + i * (qh + 2), qw, qh, "d-blue-s", rx=0)
    d.rect(qx, qy + 4 * (qh + 2), qw, 14, "d-box", rx=0)
    d.text(qx + qw + 10, qy + 14, "q: the group's 4 query heads,", 12)
    d.text(qx + qw + 10, qy + 32, "one token each = 4 rows of one tile", 12)
    d.text(qx + qw + 10, qy + 50, "(padded to 16 rows for tl.dot)", 12, "d-t2")
    # The cache of the shared key/value head, cut into slices.
    ky, kh = 146, 30
    left, right = 8, 392
    seg = (right - left) / SPLITS
    d.text(8, ky - 8, "k, v of their key/value head: N keys", 12, "d-b")
    for s in range(SPLITS):
        x = left + s * seg
        d.rect(x + 1, ky, seg - 2, kh, "d-orange-s" if s % 2 == 0 else "d-orange", rx=0)
        on_strong = "d-ti d-b" if s % 2 == 0 else "d-b"  # text on a strong fill: inverted
        d.text(x + seg / 2, ky + 20, f"program {s}", 12, on_strong, "middle", room=seg - 4)
        d.arrow(x + seg / 2, ky + kh + 2, x + seg / 2, ky + kh + 26, "d-ln", "d-head")
        d.rect(x + 8, ky + kh + 28, seg - 16, 24, "d-green", rx=3)
        d.text(x + seg / 2, ky + kh + 45, f"o{s}, lse{s}", 12, "", "middle", room=seg - 18)
    # The combine.
    cy = ky + kh + 100
    for s in range(SPLITS):
        x = left + s * seg + seg / 2
        d.arrow(x, ky + kh + 54, 200 + (s - 1.5) * 30, cy - 2, "d-ln-b", "d-head-b")
    d.rect(60, cy, 280, 28, "d-blue", rx=3)
    d.text(200, cy + 19, "combine: o = Σ wₛ·oₛ / Σ wₛ", 12, "d-b", "middle")
    d.text(8, cy + 52, "wₛ = 2^(lseₛ − max lse); an empty slice has", 12)
    d.text(8, cy + 70, "lse = −∞ and weight 0", 12)
    d.height = cy + 80
    return d
