"""04 · Loads, stores and masks: a 2-D tile of offsets built by broadcasting, its mask on
a ragged edge, and a transposed view read through swapped strides."""

from scripts.book.diagrams.svg import Drawing

M, N = 5, 6  # x is M x N, row-major: strides (N, 1)
# The tile of program (2, 0) with BLOCK_M = 2, BLOCK_N = 4 (powers of two, as tl.arange
# requires): rows 4-5, columns 0-3, row 5 past the end. kernels/_tiles.py prints it.
ROWS, COLS = [4, 5], [0, 1, 2, 3]
BM = len(ROWS)


def _grid(d, x, y, values, w, h, cls_of, text_cls_of=lambda i, j: "", size=12):
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            d.rect(x + j * w, y + i * h, w, h, cls_of(i, j), rx=0)
            if v is not None:
                d.text(
                    x + (j + 0.5) * w,
                    y + i * h + h / 2 + 4.5,
                    str(v),
                    size,
                    text_cls_of(i, j),
                    "middle",
                    room=w,
                )


def draw() -> Drawing:
    offs = [[r * N + c for c in COLS] for r in ROWS]
    keep = [[r < M and c < N for c in COLS] for r in ROWS]
    t_offs = [[r * 1 + c * N for c in range(4)] for r in range(BM)]  # y = x.t(): strides (1, N)
    d = Drawing(
        "pointer-tile",
        620 - 3 * 24,
        "A 2-D tile of offsets from two 1-D ranges, its mask, and a transposed view",
        f"""x is a {M} by {N} row-major matrix, so element (i, j) sits at offset {N} times i
        plus j. Program (2, 0), with tiles of 2 by 4, covers rows 4 and 5 and columns 0 to
        3. The column of row offsets, rows[:, None] * {N}, holds 24 and 30; the row of
        column offsets, cols[None, :], holds 0 to 3; their sum broadcasts to a 2 by 4 tile
        of offsets, 24 to 27 and 30 to 33. Row 5 does not exist, so the mask, built the
        same way from rows < {M} and cols < {N}, is true on the tile's first row and false
        on its second, and the load never touches offsets 30 to 33. The transposed view
        x.t() is the same memory with the strides swapped, (1, {N}): the same expression
        with those strides gives offsets 0, 6, 12, 18 along the tile's first row, walking
        down a column of x.""",
    )
    d.text(8, 18, "A 2-D pointer tile over a strided matrix", 13, "d-b")
    d.text(8, 36, f"x: {M} × {N}, row-major, strides ({N}, 1): x[i, j] at {N}·i + j", 12, "d-t2")

    # The matrix with its offsets; the tile's cells in blue, its row past the end dashed.
    cw, ch, mx, my = 30, 22, 40, 64
    for j in range(N):
        d.text(mx + (j + 0.5) * cw, my - 6, str(j), 12, "d-t2", "middle")
    for i in range(M):
        d.text(mx - 10, my + i * ch + 15, str(i), 12, "d-t2", "end")
    in_tile = {(r, c) for r in ROWS for c in COLS}
    _grid(
        d,
        mx,
        my,
        [[i * N + j for j in range(N)] for i in range(M)],
        cw,
        ch,
        lambda i, j: "d-blue-s" if (i, j) in in_tile else "d-box",
        lambda i, j: "d-ti d-b" if (i, j) in in_tile else "",
    )
    _grid(d, mx, my + M * ch, [[None] * len(COLS)], cw, ch, lambda i, j: "d-off")
    d.text(mx - 10, my + M * ch + 15, "5", 12, "d-t2", "end")
    tx = mx + N * cw + 16
    d.text(tx, my + 12, "program (2, 0):", 12, room=400 - tx)
    d.text(tx, my + 30, "rows 4–5, columns 0–3", 12, room=400 - tx)
    d.text(tx, my + 48, f"BLOCK_M = {BM}", 12, "d-t2 d-mono", room=400 - tx)
    d.text(tx, my + 66, "BLOCK_N = 4", 12, "d-t2 d-mono", room=400 - tx)
    d.text(tx, my + M * ch + 15, "← row 5: past the end", 12, "d-to", room=400 - tx)

    # Broadcasting: a (2, 1) column plus a (1, 4) row is a (2, 4) tile.
    y0 = 224
    d.text(8, y0, f"offs = rows[:, None] * {N} + cols[None, :]", 13, "d-mono")
    bw, bh, gy = 36, 24, y0 + 14

    def ok_or_off(i, j, grid=keep):
        return "d-blue" if grid[i][j] else "d-off"

    _grid(d, 16, gy, [[r * N] for r in ROWS], bw, bh, lambda i, j: "d-box")
    mid = BM * bh / 2  # the middle of the column: the row and the signs sit there
    d.text(68, gy + mid + 5, "+", 14, "d-b", "middle")
    _grid(d, 84, gy + mid - bh / 2, [COLS], bw, bh, lambda i, j: "d-box")
    d.text(240, gy + mid + 5, "=", 14, "d-b", "middle")
    _grid(d, 252, gy, offs, bw, bh, ok_or_off, lambda i, j: "" if keep[i][j] else "d-t2")
    for x, shape in ((34, f"({BM}, 1)"), (156, "(1, 4)"), (324, f"({BM}, 4)")):
        d.text(x, gy + BM * bh + 18, shape, 12, "d-t2", "middle")

    # The mask, broadcast the same way.
    y1 = 352 - bh
    d.text(8, y1, f"mask = (rows[:, None] < {M}) & (cols[None, :] < {N})", 12, "d-mono")
    my2 = y1 + 14
    mark = lambda b: "✓" if b else "✗"  # noqa: E731
    _grid(
        d,
        16,
        my2,
        [[mark(r < M)] for r in ROWS],
        bw,
        bh,
        lambda i, j: "d-box" if ROWS[i] < M else "d-off",
    )
    d.text(68, my2 + mid + 5, "&", 14, "d-b", "middle")
    _grid(d, 84, my2 + mid - bh / 2, [[mark(c < N) for c in COLS]], bw, bh, lambda i, j: "d-box")
    d.text(240, my2 + mid + 5, "=", 14, "d-b", "middle")
    _grid(d, 252, my2, [[mark(k) for k in row] for row in keep], bw, bh, ok_or_off)
    d.text(8, my2 + BM * bh + 22, "tl.load(x_ptr + offs, mask=mask) never reads 30–33", 12, "d-t2")

    # The transposed view: the same memory, the strides swapped.
    y2 = 486 - 2 * bh
    d.text(8, y2, f"y = x.t(): shape ({N}, {M}), strides (1, {N}), no copy", 13, "d-b")
    d.text(8, y2 + 20, f"offs = rows[:, None] * 1 + cols[None, :] * {N}", 12, "d-mono")
    _grid(d, 16, y2 + 32, t_offs, bw, bh, lambda i, j: "d-orange")
    sx, sw, sh = 196, 18, 12
    picked = {v for row in t_offs for v in row}
    for i in range(M):
        for j in range(N):
            d.rect(
                sx + j * sw,
                y2 + 32 + i * sh,
                sw,
                sh,
                "d-orange-s" if i * N + j in picked else "d-box",
                rx=0,
            )
    for k, words in enumerate(["in x:", "rows 0–3", "of columns", f"0–{BM - 1}"]):
        d.text(sx + N * sw + 10, y2 + 44 + 16 * k, words, 12, "d-t2", room=400 - sx - N * sw - 10)
    d.text(8, y2 + 32 + BM * bh + 22, "each row of the tile walks down a column of x", 12, "d-t2")
    return d
