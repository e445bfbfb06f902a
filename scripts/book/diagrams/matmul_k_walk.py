"""09 · Tiled matmul: the walk along K of the program that owns output tile (m, n)."""

from scripts.book.diagrams.svg import Drawing

TM, TN, TK = 3, 3, 4  # tiles of C along M and N, and steps along K
M_, N_, K_NOW = 1, 2, 2  # the program followed, and the step it is on


def draw() -> Drawing:
    t = 40
    d = Drawing(
        "matmul-k-walk",
        470,
        f"Program ({M_}, {N_}) walks along K, one pair of tiles per step",
        f"""C = A @ B is cut into {TM} by {TN} output tiles, one program each. The program
        that owns tile ({M_}, {N_}) of C needs row-block {M_} of A and column-block {N_} of
        B. It walks along K in {TK} steps of BLOCK_K: at step k it loads tile ({M_}, k) of A
        and tile (k, {N_}) of B, multiplies them with tl.dot and adds the product into a
        float32 accumulator that stays in registers. The picture shows step {K_NOW}. After
        the last step it stores the accumulator into its tile of C, once.""",
    )
    d.text(8, 18, f"The program that owns tile ({M_}, {N_}) of C", 13, "d-b")
    d.text(8, 36, "walks along K, loading one tile of A and one of B per step", 12, "d-t2")
    ax, cx = 56, 56 + TK * t + 14
    by = 60
    cy = by + TK * t + 14

    def tile(x, y, on_path, now, label=""):
        cls = "d-orange-s" if now else "d-orange" if on_path else "d-box"
        d.rect(x, y, t, t, cls, rx=0)
        if label:
            d.text(x + t / 2, y + t / 2 + 4.5, label, 12, "d-ti d-b" if now else "", "middle")

    for k in range(TK):
        for j in range(TN):
            on = j == N_
            tile(cx + j * t, by + k * t, on, on and k == K_NOW, f"k={k}" if on else "")
        for i in range(TM):
            on = i == M_
            tile(ax + k * t, cy + i * t, on, on and k == K_NOW, f"k={k}" if on else "")
    for i in range(TM):
        for j in range(TN):
            mine = (i, j) == (M_, N_)
            d.rect(cx + j * t, cy + i * t, t, t, "d-blue-s" if mine else "d-box", rx=0)
    d.text(cx + (N_ + 0.5) * t, cy + (M_ + 0.5) * t + 4.5, "acc", 12, "d-ti d-b", "middle")
    d.text(ax - 8, cy + 16, "A", 13, "d-b d-mono", "end")
    d.text(cx + TN * t + 8, by + 16, "B", 13, "d-b d-mono", room=40)
    d.text(cx + TN * t + 8, cy + 16, "C", 13, "d-b d-mono", room=40)
    d.arrow(ax, cy - 8, ax + TK * t, cy - 8, "d-ln-o", "d-head-o")
    d.text(ax + TK * t / 2, cy - 14, "K", 12, "d-to d-b", "middle")
    d.arrow(cx - 8, by, cx - 8, by + TK * t, "d-ln-o", "d-head-o")
    d.text(cx - 14, by + TK * t / 2 + 4, "K", 12, "d-to d-b", "end")

    y = cy + TM * t + 34
    code = [
        ("acc = zeros((BLOCK_M, BLOCK_N), fp32)", ""),
        (f"for k in range({TK}):", f"# K / BLOCK_K = {TK} steps"),
        (f"    a = A[{M_}, k]; b = B[k, {N_}]", "# load 2 tiles"),
        ("    acc = tl.dot(a, b, acc)", "# in registers"),
        (f"store acc into C[{M_}, {N_}]", "# once"),
    ]
    for i, (line, note) in enumerate(code):
        pieces = [line] + ([("  " + note, "d-t2")] if note else [])
        d.text(8, y + 19 * i, pieces, 12, "d-mono", room=384)
    d.height = y + 19 * len(code)
    return d
