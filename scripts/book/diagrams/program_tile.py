"""00 · Orientation: the book's one sentence as a picture, on the vector add."""

from scripts.book.diagrams.svg import Drawing

TILES, OWN = 8, 2  # eight tiles; program 2's is the one followed


def draw() -> Drawing:
    d = Drawing(
        "program-tile",
        376,
        "A program owns a tile; it loads, computes, stores; the grid repeats that",
        f"""Two vectors x and y in HBM are cut into {TILES} tiles numbered 0 to {TILES - 1},
        each owned by the program with that id. Program {OWN} is followed: it loads its tile
        of x and of y into registers, adds them on the whole tile at once, and stores the
        sum into its own tile of out, the only part of out it writes. The grid is
        {TILES} programs running the same code, each on its own tile, in any order.""",
    )
    x0, w = 16, 46
    cx = x0 + (OWN + 0.5) * w

    d.text(x0, 16, "x and y in HBM, cut into tiles of BLOCK elements;", 12, "d-t2")
    d.text(x0, 32, "the number in a tile: the program (pid) that owns it", 12, "d-t2")
    for i in range(TILES):
        mine = i == OWN
        d.rect(x0 + i * w, 40, w, 28, "d-blue-s" if mine else "d-box", rx=0)
        d.text(x0 + (i + 0.5) * w, 59, str(i), 13, "d-ti d-b" if mine else "", "middle")
    d.arrow(cx, 68, cx, 96, "d-ln-b", "d-head-b")

    # Program OWN, with the other programs' copies of the same code stacked behind it.
    for k in (2, 1):
        d.rect(40 + 7 * k, 98 + 7 * k, 320, 134, "d-surf")
    d.rect(40, 98, 320, 134, "d-blue")
    d.text(56, 122, f"program {OWN}", 14, "d-b")
    d.text(344, 122, f"pid = tl.program_id(0) = {OWN}", 12, "d-mono", "end")
    steps = [
        ("load", "its tiles of x and y into registers"),
        ("compute", "x + y on the whole tile at once"),
        ("store", "the tile of the sum into out"),
    ]
    for k, (verb, what) in enumerate(steps):
        y = 154 + 28 * k
        d.text(56, y, verb, 13, "d-tb d-b")
        d.text(128, y, what, 13, room=224)
    d.arrow(cx, 232, cx, 268, "d-ln-b", "d-head-b")

    for i in range(TILES):
        mine = i == OWN
        d.rect(x0 + i * w, 268, w, 28, "d-blue-s" if mine else "d-box", rx=0)
        d.text(x0 + (i + 0.5) * w, 287, str(i), 13, "d-ti d-b" if mine else "", "middle")
    d.text(x0, 316, f"out in HBM: program {OWN} writes only its own tile", 12, "d-t2")
    d.text(x0, 346, f"The grid: {TILES} programs run this same code, each on", 13, "d-b")
    d.text(x0, 364, "its own tile, in any order, many at once.", 13, "d-b")
    return d
