"""10 · Softmax: online softmax on a row of six numbers in three tiles of two. The first
two tiles are the page's own worked example, [1, 3 | 5, 2]; the third adds a tile whose
maximum does not beat the running one. Every number is computed here, and checked
against the direct sum."""

import math

from scripts.book.diagrams.svg import Drawing

TILES = [[1, 3], [5, 2], [4, 0]]


def steps():
    """(m, s, alpha, terms) after each tile; terms: exp(x - m) of every element so far."""
    m, s, seen, out = -math.inf, 0.0, [], []
    for tile in TILES:
        m_new = max(m, *tile)
        alpha = math.exp(m - m_new) if m != -math.inf else 0.0
        s = s * alpha + sum(math.exp(x - m_new) for x in tile)
        seen += tile
        m = m_new
        out.append((m, s, alpha, [math.exp(x - m) for x in seen]))
    direct = sum(math.exp(x - m) for x in seen)
    assert abs(direct - s) < 1e-12, (direct, s)
    return out


def f4(v: float) -> str:
    return f"{v:.4f}"


def draw() -> Drawing:
    run = steps()
    row = [x for tile in TILES for x in tile]
    m_end, s_end = run[-1][0], run[-1][1]
    d = Drawing(
        "online-softmax",
        470,
        "Online softmax: the running max m and sum s, rescaled when the max rises",
        f"""The row [1, 3, 5, 2, 4, 0] is read in three tiles of two. After tile 1, [1, 3],
        the running max m is 3 and the running sum s of exp(x - m) is
        {f4(run[0][1])}. Tile 2, [5, 2], raises the max to 5, so every term already in s
        is multiplied by exp(3 - 5) = {f4(run[1][2])}: the bars of 1 and 3 shrink, then
        exp(0) and exp(2 - 5) are added, giving {f4(run[1][1])}. Tile 3, [4, 0], does not
        raise the max: the factor is exp(0) = 1, nothing shrinks, and adding exp(4 - 5)
        and exp(0 - 5) gives {f4(s_end)}, the same as summing exp(x - 5) over the whole
        row directly.""",
    )
    d.text(
        8,
        18,
        f"Online softmax on the row {TILES[0]} | {TILES[1]} | {TILES[2]}".replace("] | [", " | "),
        13,
        "d-b",
    )
    d.text(8, 36, "m: the running max; s: the running sum of exp(x − m)", 12, "d-t2")
    legend = [
        ("d-orange-s", "this tile's terms"),
        ("d-blue", "terms already in s"),
        ("d-off", "before the rescale"),
    ]
    lx = 8
    for cls, words in legend:
        d.rect(lx, 45, 12, 12, cls, rx=0)
        lx += 18 + d.text(lx + 18, 56, words, 12, room=392 - lx - 18) + 14
    slot, x0, bar, high = 56, 60, 30, 56
    y0 = 66
    m_old = None
    for k, (m, s, alpha, terms) in enumerate(run):
        tile = TILES[k]
        first = 2 * k
        if k == 0:
            head = f"tile 1, {tile}: m = {m}"
            sum_line = f"s = e^({tile[0]}−{m}) + e^({tile[1]}−{m}) = {f4(s)}"
        else:
            rises = m != m_old
            if rises:
                head = f"tile {k + 1}, {tile}: m {m_old} → {m}, old terms × e^({m_old}−{m})"
            else:
                head = f"tile {k + 1}, {tile}: max {max(tile)} ≤ m = {m}, factor 1"
            prev = f4(run[k - 1][1])
            old = f"{prev} × {f4(alpha)}" if rises else prev
            sum_line = f"s = {old} + e^({tile[0]}−{m}) + e^({tile[1]}−{m}) = {f4(s)}"
        d.text(8, y0 + 14, head, 12, "d-b", room=392)
        base = y0 + 26 + high + 14
        for i, v in enumerate(terms):
            cx = x0 + (i + 0.5) * slot
            new = i >= first
            if not new and k > 0 and alpha != 1.0:  # the height this term had before
                before = run[k - 1][3][i]
                d.rect(cx - bar / 2, base - before * high, bar, before * high, "d-off", rx=0)
            h = max(v * high, 1.5)
            d.rect(cx - bar / 2, base - h, bar, h, "d-orange-s" if new else "d-blue", rx=0)
            d.text(
                cx,
                base - max(h, (run[k - 1][3][i] * high) if not new and k > 0 else 0) - 4,
                f4(v),
                12,
                "d-to" if new else "",
                "middle",
                room=slot,
            )
            d.text(cx, base + 15, str(row[i]), 12, "d-mono d-t2", "middle")
        for i in range(len(terms), len(row)):
            cx = x0 + (i + 0.5) * slot
            d.text(cx, base + 15, str(row[i]), 12, "d-mono d-t2", "middle")
        d.line(x0, base, x0 + slot * len(row), base, "d-ln d-thin")
        for t in (1, 2):
            x = x0 + 2 * t * slot
            d.line(x, base - high - 8, x, base + 18, "d-ln d-dash d-thin")
        d.text(8, base + 36, sum_line, 12, "d-mono", room=392)
        y0 = base + 46
        m_old = m
    direct = " + ".join(f"e^({x}−{m_end})" for x in row[:3])
    d.text(8, y0 + 12, f"check: {direct} + … = {f4(s_end)}", 12, "d-t2", room=392)
    d.height = y0 + 20
    return d
