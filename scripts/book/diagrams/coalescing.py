"""02 · Programs and tiles: one warp's addresses against 32-byte sectors.

The same row-major fp32 matrix of 32 columns (a row is 128 bytes, four sectors) read two
ways by one warp: along its rows, each lane loading 16 bytes next to its neighbour's (the
layout Triton gives a contiguous fp32 tile: four elements per thread), and down a column,
each lane loading 4 bytes from a row of its own.
"""

from scripts.book.diagrams.svg import Drawing

LANES, SECTOR, ROW_BYTES, ELEM = 32, 32, 128, 4


def draw() -> Drawing:
    per_lane = 16
    used_a = LANES * per_lane
    sectors_a = used_a // SECTOR
    used_b, sectors_b = LANES * ELEM, LANES
    d = Drawing(
        "coalescing",
        428,
        "One warp's load against 32-byte sectors: along a row and down a column",
        f"""A row-major float32 matrix with 32 columns: each row is 128 bytes, four sectors
        of 32 bytes. Top: the warp reads along the rows, each of its 32 lanes loading 16
        bytes next to its neighbour's, {used_a} contiguous bytes in {sectors_a} sectors, every
        byte used. Bottom: the warp reads down column 0, lane t loading the 4 bytes of row
        t, so each lane's bytes lie in a sector of their own: {sectors_b} sectors,
        {sectors_b * SECTOR:,} bytes moved for {used_b} bytes used, one eighth.""",
    )
    x0, x1 = 60, 388
    cell = (x1 - x0) / (ROW_BYTES // ELEM)  # one fp32 element
    sec = cell * SECTOR / ELEM
    d.text(8, 18, "One warp's load against 32-byte sectors", 13, "d-b")
    d.text(8, 36, "fp32, 32 columns, row-major: a row is 128 B, 4 sectors", 12, "d-t2")

    # Along the rows: lane t holds elements 4t .. 4t+3, 16 bytes.
    d.text(8, 64, "Along the rows: each lane loads 16 B", 13, "d-b")
    top, h = 74, 22
    for r in range(used_a // ROW_BYTES):
        y = top + r * h
        d.text(8, y + 15, f"row {r}", 12, "d-t2")
        for j in range(ROW_BYTES // per_lane):
            lane = r * (ROW_BYTES // per_lane) + j
            x = x0 + j * 4 * cell
            solid = lane % 2 == 0
            d.rect(x, y, 4 * cell, h, "d-blue-s" if solid else "d-blue", rx=0)
            d.text(x + 2 * cell, y + 15, str(lane), 12, "d-ti" if solid else "", "middle")
        for s in range(ROW_BYTES // SECTOR):
            d.rect(x0 + s * sec, y, sec, h, "d-edge", rx=0)
    y = top + 4 * h + 18
    d.text(
        8,
        y,
        f"{LANES} lanes × 16 B = {used_a} B in {sectors_a} sectors: all of it used",
        12,
        room=384,
    )

    # Down a column: lane t loads element 0 of row t, 4 bytes.
    d.text(8, 208, "Down column 0: lane t loads the 4 B of row t", 13, "d-b")
    top, h = 218, 20
    rows = [0, 1, 2, 3, 4, None, LANES - 1]
    for k, r in enumerate(rows):
        y = top + k * h
        if r is None:
            d.text(x0 + sec / 2, y + 14, "⋮", 13, "d-t2", "middle")
            d.text(8, y + 14, "⋮", 13, "d-t2")
            continue
        d.text(8, y + 14, f"lane {r}", 12, "d-t2")
        d.rect(x0, y, sec, h, "d-orange", rx=0)
        d.rect(x0, y, cell, h, "d-orange-s", rx=0)
        for s in range(1, ROW_BYTES // SECTOR):
            d.rect(x0 + s * sec, y, sec, h, "d-box", rx=0)
        for s in range(ROW_BYTES // SECTOR):
            d.rect(x0 + s * sec, y, sec, h, "d-edge", rx=0)
    d.text(x0 + sec + 8, top + 5 * h + 14, f"rows 5 to {LANES - 2}", 12, "d-t2", room=200)
    y = top + len(rows) * h + 20
    d.rect(8, y - 11, 14, 14, "d-orange-s", rx=0)
    d.text(28, y, "the 4 B a lane uses", 12, room=120)
    d.rect(160, y - 11, 14, 14, "d-orange", rx=0)
    d.text(180, y, "the rest of its sector, moved too", 12, room=210)
    d.text(8, y + 22, f"{LANES} lanes × 4 B = {used_b} B used, from {sectors_b} sectors:", 12)
    d.text(8, y + 40, f"{sectors_b * SECTOR:,} B moved, one byte in eight used", 12)
    return d
