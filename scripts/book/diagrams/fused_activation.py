"""08 · Fused activation: one program's tile of gelu(x + bias) * mask in a single pass,
with the bias row broadcast down the tile's rows."""

from scripts.book.diagrams.svg import Drawing

R, C, CW, CH = 3, 6, 16, 14  # a small stand-in for the BLOCK_M x BLOCK_N tile


def _tile(d, x, y, cls, rows=R, dashed_from=None):
    for i in range(rows):
        for j in range(C):
            kind = cls if dashed_from is None or i < dashed_from else "d-off"
            d.rect(x + j * CW, y + i * CH, CW, CH, kind, rx=0)


def draw() -> Drawing:
    d = Drawing(
        "fused-activation",
        494,
        "One program's tile of gelu(x + bias) * mask, in one pass through registers",
        """One program loads a BLOCK_M by BLOCK_N tile of x, the BLOCK_N entries of bias
        above its columns, and the matching tile of the mask. In registers it adds the
        bias row to every row of the tile (b[None, :] broadcasts down the rows), applies
        GELU to each element and multiplies by the mask, then stores the tile of y. The
        intermediate results z and g never reach HBM: the program reads x, the mask and
        one row of bias and writes y. The mask can also be made in the kernel from a
        seed with tl.rand, and then nothing but x and the bias is read.""",
    )
    d.text(8, 18, "gelu(x + bias) * mask: one tile, one pass", 13, "d-b")
    # Reads from HBM.
    d.rect(8, 28, 384, 122, "d-surf", rx=5)
    d.text(20, 46, "HBM: read once", 12, "d-b")
    d.text(20, 73, "bias", 12, "d-mono", room=60)
    _tile(d, 84, 62, "d-orange", rows=1)
    d.text(20, 107, "x", 12, "d-mono", room=60)
    _tile(d, 84, 88, "d-blue")
    d.text(236, 46, "mask", 12, "d-mono", room=150)
    _tile(d, 236, 62, "d-green")
    d.text(236, 122, "or made in the kernel", 12, "d-t2", room=156)
    d.text(236, 139, "from a seed: tl.rand", 12, "d-t2", room=156)
    d.arrow(132, 150, 132, 172, "d-ln", "d-head")
    d.arrow(284, 150, 284, 172, "d-ln", "d-head")

    # One program, in registers.
    d.rect(8, 172, 384, 218, "d-blue", rx=5)
    d.text(20, 192, "one program, in registers", 12, "d-b")
    y = 204
    _tile(d, 20, y, "d-orange")
    for i in range(1, R):  # the broadcast rows: copies of the one row that was loaded
        for j in range(C):
            d.rect(20 + j * CW, y + i * CH, CW, CH, "d-orange d-dash", rx=0)
    d.text(20, y + R * CH + 16, "b[None, :]", 12, "d-mono", room=110)
    d.text(126, y + 26, "+", 14, "d-b", "middle")
    _tile(d, 140, y, "d-blue")
    d.text(140, y + R * CH + 16, "x", 12, "d-mono", room=100)
    d.text(246, y + 26, "=", 14, "d-b", "middle")
    _tile(d, 260, y, "d-box")
    d.text(260, y + R * CH + 16, "z", 12, "d-mono", room=100)
    d.text(20, y + R * CH + 38, "the bias row is loaded once and used by every row", 12, "d-t2")
    lines = [
        ("g = gelu(z)", "each element, in float32"),
        ("y = g * mask", "each element"),
    ]
    for k, (code, note) in enumerate(lines):
        yy = y + R * CH + 66 + 24 * k
        d.text(20, yy, code, 13, "d-mono", room=150)
        d.text(170, yy, note, 12, "d-t2", room=210)
    d.text(20, y + R * CH + 124, "z and g stay here: they never reach HBM", 12, "d-tb d-b")
    d.arrow(132, 390, 132, 412, "d-ln", "d-head")

    # The write.
    d.rect(8, 412, 384, 74, "d-surf", rx=5)
    d.text(20, 430, "HBM: write once", 12, "d-b")
    d.text(20, 459, "y", 12, "d-mono", room=60)
    _tile(d, 84, 440, "d-box")
    d.text(200, 459, "3 passes over M × N, not 7", 12, room=190)
    return d
