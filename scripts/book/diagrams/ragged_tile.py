"""07 · Vector add: the ragged last tile, n = 1000 and BLOCK = 256."""

from scripts.book.diagrams.svg import Drawing

N, BLOCK = 1000, 256


def draw() -> Drawing:
    programs = (N + BLOCK - 1) // BLOCK
    last = (programs - 1) * BLOCK
    live = N - last
    d = Drawing(
        "ragged-tile",
        300,
        f"The ragged last tile: n = {N}, BLOCK = {BLOCK}, {programs} programs",
        f"""With n = {N} and BLOCK = {BLOCK} the grid has {programs} programs. Programs 0 to
        {programs - 2} each own {BLOCK} offsets, all inside the vectors, so their masks are
        all true. Program {programs - 1} owns offsets {last} to {last + BLOCK - 1}: the first
        {live}, {last} to {N - 1}, exist; the last {BLOCK - live}, {N} to {last + BLOCK - 1},
        lie past the end, and the mask offsets < n switches them off, so they are neither
        loaded nor stored.""",
    )
    d.text(8, 18, f"n = {N}, BLOCK = {BLOCK}: {programs} programs", 13, "d-b")
    d.text(8, 40, f"offsets = pid * {BLOCK} + tl.arange(0, {BLOCK})", 12, "d-mono")
    d.text(8, 58, "mask = offsets < n", 12, "d-mono")
    x0, top, h = 60, 76, 26
    for pid in range(programs):
        y = top + pid * (h + 12)
        start = pid * BLOCK
        d.text(8, y + 18, f"pid {pid}", 12, "d-b")
        inside = min(BLOCK, N - start)
        d.rect(x0, y, inside, h, "d-blue")
        d.text(x0 + inside / 2, y + 18, f"{start} … {start + inside - 1}", 12, "", "middle")
        if inside < BLOCK:
            d.rect(x0 + inside, y, BLOCK - inside, h, "d-off", rx=0)
            d.text(x0 + BLOCK + 8, y + 18, f"{N}–{start + BLOCK - 1}", 12, "d-to", room=80)
        else:
            d.text(x0 + BLOCK + 8, y + 18, "mask: all ✓", 12, "d-t2", room=80)
    y = top + programs * (h + 12) + 12
    d.text(
        8, y, f"Program {programs - 1} holds {live} elements and {BLOCK - live} offsets past", 12
    )
    d.text(8, y + 18, f"the end: the mask is false there, so those {BLOCK - live} are", 12)
    d.text(8, y + 36, "neither loaded nor stored.", 12)
    d.height = y + 44
    return d
