"""11 · RMSNorm: the backward's data flow, as kernels/rmsnorm.py computes it.

rmsnorm_bwd_kernel runs two programs per SM; program p owns a contiguous run of rows,
walks them ROWS at a time, writes dx row by row and adds dy * x_hat into a float32
accumulator it keeps on chip, then stores one partial row of dweight. rmsnorm_dw_kernel
gives each program 32 columns (DW_BLOCK_N) and sums them down every partial row, 128 rows
a step (DW_BLOCK_P), always in the same order, and rounds once to the weight's dtype."""

from scripts.book.diagrams.svg import Drawing

BANDS = [("d-blue", "d-tb"), ("d-orange", "d-to"), ("d-green", "d-tg")]


def draw() -> Drawing:
    d = Drawing(
        "rmsnorm-backward",
        560,
        "RMSNorm backward: dx row by row, dweight as partial rows summed by a second kernel",
        """The first kernel runs two programs per SM. Program p owns a contiguous run of
        rows of x and dy. For each of its rows it forms x_hat = x times rstd and g = dy
        times w, reduces c = mean(g times x_hat), writes dx = rstd times (g minus x_hat
        times c) to HBM, and adds dy times x_hat into a float32 accumulator kept on chip.
        At the end it stores that accumulator as one partial row of dweight, so there are
        as many partial rows as programs. The second kernel gives each program 32
        columns; it adds those columns down all the partial rows, 128 rows at a time,
        always in the same order, and rounds once to the weight's dtype. No atomics are
        used, so the same inputs give the same bits on every run.""",
    )
    d.text(8, 18, "RMSNorm backward: two kernels, no atomics", 13, "d-b")
    d.text(8, 42, "1 · program p owns a run of rows (2 programs per SM)", 12, "d-b")

    # x and dy, cut into the programs' runs of rows.
    mx, my, mw, band = 16, 74, 104, 46
    d.text(mx, my - 8, "x, dy: M × H", 12, "d-mono", room=140)
    for p, (cls, tcls) in enumerate(BANDS):
        y = my + p * band
        d.rect(mx, y, mw, band, cls, rx=0)
        for r in range(1, 4):
            d.line(mx, y + r * band / 4, mx + mw, y + r * band / 4, "d-ln d-thin")
        d.label(mx + mw / 2, y + band / 2 + 4, f"program {p}", 12, tcls + " d-b")

    # What program 1 does with each of its rows.
    bx, by, bh = 142, 62, 178
    d.arrow(mx + mw, my + 1.5 * band, bx, my + 1.5 * band, "d-ln-o", "d-head-o")
    d.rect(bx, by, 250, bh, "d-orange")
    d.text(bx + 10, by + 20, "program 1, for each of its rows:", 12, "d-b", room=232)
    body = [
        ("x̂ = x · rstd", "g = dy · w"),
        ("c = mean(g · x̂)", "one number"),
        ("dx = rstd · (g − x̂ · c)", "→ HBM"),
        ("acc += dy · x̂", "fp32, on chip"),
    ]
    for i, (math_, note) in enumerate(body):
        y = by + 46 + 22 * i
        d.text(bx + 10, y, math_, 12, room=150)
        d.text(bx + 240, y, note, 12, "d-t2", "end", room=90)
    d.text(bx + 10, by + 144, "after its last row: store acc", 12, room=232)
    d.text(bx + 10, by + 162, "as one partial row of dw", 12, "d-b", room=232)

    # Outputs of kernel 1.
    oy = 268
    d.elbow([(bx + 30, by + bh), (bx + 30, oy + 30), (mx + mw + 2, oy + 30)])
    d.arrow(bx + 170, by + bh, bx + 170, oy + 8, "d-ln", "d-head")
    d.text(mx, oy, "dx: M × H", 12, "d-mono", room=140)
    for p, (cls, _) in enumerate(BANDS):
        d.rect(mx, oy + 8 + p * 16, mw, 16, cls, rx=0)
    px, pw = 236, 156
    for p, (cls, _) in enumerate(BANDS):
        d.rect(px, oy + 8 + p * 12, pw, 12, cls, rx=0)
    d.text(px, oy + 8 + 3 * 12 + 16, "partial: P × H, fp32,", 12, "d-mono", room=160)
    d.text(px, oy + 8 + 3 * 12 + 32, "one row per program", 12, "d-t2", room=160)

    # Kernel 2.
    ky = 376
    d.text(8, ky, "2 · program j owns 32 columns of the partial rows", 12, "d-b")
    tx, tw, rows = 16, 300, 6
    strip = (tx + 3 * 40, 40)
    for r in range(rows):
        cls = BANDS[r % 3][0] if r < 3 else "d-box"
        d.rect(tx, ky + 14 + r * 12, tw, 12, cls, rx=0)
    d.rect(strip[0], ky + 14, strip[1], rows * 12, "d-edge", rx=0)
    d.text(tx + tw + 8, ky + 30, "P partial", 12, "d-t2", room=70)
    d.text(tx + tw + 8, ky + 46, "rows", 12, "d-t2", room=70)
    sb = ky + 14 + rows * 12
    mid = strip[0] + strip[1] / 2
    d.arrow(mid, sb + 2, mid, sb + 42, "d-ln-b", "d-head-b")
    d.text(strip[0] + strip[1] + 10, sb + 17, "add down, 128 rows a step,", 12, room=230)
    d.text(strip[0] + strip[1] + 10, sb + 34, "always in the same order", 12, room=230)
    d.rect(tx, sb + 42, tw, 14, "d-box", rx=0)
    d.rect(strip[0], sb + 42, strip[1], 14, "d-blue-s", rx=0)
    d.text(tx, sb + 76, "dw: H values, rounded once to w's dtype", 12, "d-mono", room=384)
    d.text(tx, sb + 98, "No atomics: the same inputs give the same bits", 12, "d-t2")
    d.text(tx, sb + 116, "on every run.", 12, "d-t2")
    d.height = sb + 124
    return d
