"""12 · Flash Attention: one program's forward loop, a query block walking the key/value
blocks with a running max, sum and accumulator (the page's notation: m, l, acc)."""

from scripts.book.diagrams.svg import Drawing

BLOCKS, I_, J_ = 4, 1, 2  # blocks per side; the query block followed, the step it is on


def draw() -> Drawing:
    c, strip = 40, 26
    d = Drawing(
        "flash-loop",
        520,
        "Flash attention's forward loop: one query block against each key/value block",
        f"""One program owns query block {I_}. It loads that block of Q once and walks the
        key and value blocks j = 0 to {BLOCKS - 1}. At each step it computes the tile of
        scores S = Q_i K_j transposed, times the scale, in registers; takes the new running
        max m of each row; turns the scores into P = exp(S - m_new); rescales the running
        sum l and the accumulator acc by alpha = exp(m_old - m_new); and adds the row sums
        of P to l and the product P V_j to acc. The picture shows step {J_}. After the last
        block it writes O_i = acc / l and one logsumexp per row; the score matrix is
        never stored.""",
    )
    d.text(8, 18, f"One program: query block {I_} against each key/value block", 13, "d-b")
    sx, sy = 72, 74  # the score matrix S, n_q x n_k, in blocks
    kx, ky = sx, sy - strip - 8
    qx = sx - strip - 8
    vx = sx + BLOCKS * c + 12
    ox = vx + strip + 44
    for j in range(BLOCKS):
        now = j == J_
        d.rect(kx + j * c, ky, c, strip, "d-orange-s" if now else "d-orange", rx=0)
        d.rect(vx, sy + j * c, strip, c, "d-green-s" if now else "d-green", rx=0)
    d.text(kx - 6, ky + 18, "Kᵀ", 13, "d-b", "end")
    d.text(vx + strip / 2, sy - 8, "V", 13, "d-b", "middle")
    for i in range(BLOCKS):
        mine = i == I_
        d.rect(qx, sy + i * c, strip, c, "d-blue-s" if mine else "d-blue", rx=0)
        d.rect(ox, sy + i * c, strip, c, "d-blue-s" if mine else "d-box", rx=0)
        for j in range(BLOCKS):
            cls = "d-box"
            if mine:
                cls = "d-orange-s" if j == J_ else "d-orange" if j < J_ else "d-surf"
            d.rect(sx + j * c, sy + i * c, c, c, cls, rx=0)
    d.text(qx - 6, sy + 18, "Q", 13, "d-b", "end")
    d.text(ox + strip / 2, sy - 8, "O", 13, "d-b", "middle")
    d.text(sx + (J_ + 0.5) * c, sy + (I_ + 0.5) * c + 5, "S", 13, "d-ti d-b", "middle")
    d.arrow(
        sx + 4,
        sy + BLOCKS * c + 14,
        sx + BLOCKS * c - 4,
        sy + BLOCKS * c + 14,
        "d-ln-o",
        "d-head-o",
    )
    lx = sx
    for cls, words in (("d-orange", "done"), ("d-orange-s", "this step"), ("d-surf", "to come")):
        d.rect(lx, sy + BLOCKS * c + 24, 12, 12, cls, rx=0)
        lx += 18 + d.text(lx + 18, sy + BLOCKS * c + 35, words, 12, room=300) + 16

    y = sy + BLOCKS * c + 62
    d.text(8, y, "each row keeps: m (max so far), l (sum so far),", 12)
    d.text(8, y + 18, "acc (d values); for each block j:", 12)
    code = [
        "S = Q_i @ K_jᵀ * scale     # in registers",
        "m_new = max(m, rowmax(S))",
        "P = exp(S - m_new)",
        "alpha = exp(m - m_new)    # ≤ 1",
        "l = alpha * l + rowsum(P)",
        "acc = alpha * acc + P @ V_j",
        "m = m_new",
    ]
    for k, line in enumerate(code):
        d.text(20, y + 42 + 18 * k, line, 12, "d-mono", room=372)
    y2 = y + 42 + 18 * len(code) + 10
    d.text(8, y2, "after the last block: O_i = acc / l, and", 12, "d-b")
    d.text(8, y2 + 18, "lse = m + log(l) per row for the backward", 12, "d-b")
    d.height = y2 + 26
    return d
