"""12 · Flash Attention: the backward's data flow, as kernels/attention.py computes it.

Three kernels run one after another. attn_bwd_preprocess_kernel writes delta, one float
per query row. attn_bwd_dkdv_kernel gives each program a block of keys, keeps K_j, V_j
and float32 dK_j, dV_j on chip and walks the query blocks: four tl.dot per step (S^T
again, dV, dP^T, dK). attn_bwd_dq_kernel gives each program a block of queries, keeps
Q_i, dO_i, lse_i, delta_i and float32 dQ_i on chip and walks the key blocks: three tl.dot
per step (S again, dP again, dQ). The numbers 1 to 7 follow the tl.dot calls in the
source, in order; 5 and 6 are the two that FlashAttention-2's single pass does not do."""

from scripts.book.diagrams.svg import Drawing

BLOCKS, CELL = 4, 14  # the little score matrix: blocks per side, units per block
GX = 20  # its left edge
BX, BR = 88, 392  # a kernel's box: left and right edges
LINE = 19  # units between lines in a box


def _grid(d: Drawing, y: float, own: str, solid: str, tint: str) -> None:
    """The score matrix in blocks (queries down, keys across), with what one program owns:
    column 1 of key blocks (``own`` = "col") or row 1 of query blocks ("row"), walked up
    to block 2, and an arrow for the direction of the walk."""
    d.text(GX + BLOCKS * CELL / 2, y - 6, "K", 12, "d-t2 d-b", "middle", room=60)
    d.text(GX - 5, y + CELL - 2, "Q", 12, "d-t2 d-b", "end", room=14)
    for r in range(BLOCKS):
        for c in range(BLOCKS):
            mine, step = (c == 1, r) if own == "col" else (r == 1, c)
            cls = "d-box"
            if mine:
                cls = solid if step == 2 else tint if step < 2 else "d-surf"
            d.rect(GX + c * CELL, y + r * CELL, CELL, CELL, cls, rx=0)
    bottom = y + BLOCKS * CELL
    if own == "col":
        x = GX + 1.5 * CELL
        d.arrow(x, bottom + 4, x, bottom + 24, "d-ln", "d-head", size=6)
    else:
        d.arrow(GX + 2, bottom + 12, GX + BLOCKS * CELL - 2, bottom + 12, "d-ln", "d-head", 6)


def _badge(d: Drawing, y: float, n: int, solid: str) -> None:
    d.circle(BX + 17, y - 4, 8, solid)
    d.text(BX + 17, y, str(n), 12, "d-ti d-b", "middle", room=16)


def _rows(d: Drawing, y: float, rows, solid: str) -> float:
    """Lines of a box: (badge number or None, indent 0 or 1, what, note, note classes).
    Indent 1 is the loop's body, with the tile matmuls' numbers in the margin. Returns
    the y after the last line."""
    for n, indent, what, note, ncls in rows:
        if n is not None:
            _badge(d, y, n, solid)
        x = BX + (34 if indent else 10)
        d.text(x, y, what, 12, "d-mono", room=BR - 8 - 80 - x)
        if note:
            d.text(BR - 8, y, note, 12, ncls, "end", room=80)
        y += LINE
    return y


def draw() -> Drawing:
    d = Drawing(
        "attention-backward",
        640,
        "Flash attention backward: three kernels, seven tile matmuls, no atomics",
        """The backward runs three kernels one after another. From the forward it has Q, K,
        V, the output O and lse, one float per query row; dO, the gradient of O,
        arrives. Kernel 0, the preprocess, gives each program a block of query rows,
        reads O and dO and writes delta = rowsum(dO times O), one float per query row.
        Kernel 1 gives each program one block of keys j, a column of the score matrix.
        It loads K_j and V_j from HBM once and keeps them on chip with float32
        accumulators dK_j and dV_j. For each query block i that sees those keys it reads
        Q_i, dO_i, lse_i and delta_i from HBM and runs four tile matmuls: 1, S
        transposed = K_j times Q_i transposed, recomputed, from which P transposed =
        exp2(S transposed minus lse); 2, dV_j += P transposed times dO_i; 3, dP
        transposed = V_j times dO_i transposed; then, element by element, dS transposed
        = P transposed times (dP transposed minus delta); and 4, dK_j += dS transposed
        times Q_i. After the last query block it writes dK_j times the scale and dV_j to
        HBM. Kernel 2 gives each program one block of queries i, a row of the score
        matrix. It loads Q_i, dO_i, lse_i and delta_i once and keeps them on chip with a
        float32 accumulator dQ_i. For each key block j that those queries see it reads
        K_j and V_j from HBM and runs three tile matmuls: 5, S = Q_i times K_j
        transposed, again, from which P = exp2(S minus lse); 6, dP = dO_i times V_j
        transposed, again; then dS = P times (dP minus delta) element by element; and 7,
        dQ_i += dS times K_j. After the last key block it writes dQ_i times the scale to
        HBM. Matmuls 5 and 6 repeat 1 and 3, transposed: FlashAttention-2's single pass
        computes S and dP once and adds dQ into HBM with atomics, 5 tile matmuls where
        this backward runs 7. Here every program writes only its own rows, so no atomics
        are needed.""",
    )
    d.text(8, 18, "Attention backward: three kernels, 7 tile matmuls", 13, "d-b")
    d.text(8, 38, "From the forward: O, and lse (one float per query row).", 12, "d-t2")
    d.text(8, 56, "Numbered: the 7 tl.dot calls, in the code's order.", 12, "d-t2")

    # Kernel 0: delta.
    y = 84
    d.text(8, y, "0 · preprocess: one program per block of query rows", 12, "d-b")
    d.rect(BX, y + 10, BR - BX, 2 * LINE + 10, "d-box")
    _rows(
        d,
        y + 30,
        [
            (None, 0, "O_i, dO_i", "HBM, once", "d-t2"),
            (None, 0, "δ_i = rowsum(dO_i ∘ O_i)", "→ HBM", "d-b"),
        ],
        "d-blue-s",
    )

    # Kernel 1: one program per key block, walking the query blocks.
    y = 166
    d.text(8, y, "1 · dK/dV kernel: one program per key block j", 12, "d-b")
    rows1 = [
        (None, 0, "K_j, V_j", "HBM, once", "d-t2"),
        (None, 0, "dK_j = dV_j = 0", "fp32, on chip", "d-t2"),
        (None, 0, "for each query block i:", "", ""),
        (None, 1, "Q_i, dO_i, lse_i, δ_i", "HBM, each i", "d-t2"),
        (1, 1, "Sᵀ = K_j Q_iᵀ", "recomputed", "d-t2"),
        (None, 1, "Pᵀ = exp2(Sᵀ − lse_i)", "on chip", "d-t2"),
        (2, 1, "dV_j += Pᵀ dO_i", "", ""),
        (3, 1, "dPᵀ = V_j dO_iᵀ", "", ""),
        (None, 1, "dSᵀ = Pᵀ ∘ (dPᵀ − δ_i)", "no matmul", "d-t2"),
        (4, 1, "dK_j += dSᵀ Q_i", "", ""),
        (None, 0, "then dK_j · scale, dV_j", "→ HBM", "d-b"),
    ]
    top = y + 10
    d.rect(BX, top, BR - BX, len(rows1) * LINE + 10, "d-orange")
    _grid(d, top + 24, "col", "d-orange-s", "d-orange")
    _rows(d, top + 20, rows1, "d-orange-s")

    # Kernel 2: one program per query block, walking the key blocks.
    y = top + len(rows1) * LINE + 10 + 30
    d.text(8, y, "2 · dQ kernel: one program per query block i", 12, "d-b")
    rows2 = [
        (None, 0, "Q_i, dO_i, lse_i, δ_i", "HBM, once", "d-t2"),
        (None, 0, "dQ_i = 0", "fp32, on chip", "d-t2"),
        (None, 0, "for each key block j:", "", ""),
        (None, 1, "K_j, V_j", "HBM, each j", "d-t2"),
        (5, 1, "S = Q_i K_jᵀ", "again", "d-to d-b"),
        (None, 1, "P = exp2(S − lse_i)", "on chip", "d-t2"),
        (6, 1, "dP = dO_i V_jᵀ", "again", "d-to d-b"),
        (None, 1, "dS = P ∘ (dP − δ_i)", "no matmul", "d-t2"),
        (7, 1, "dQ_i += dS K_j", "", ""),
        (None, 0, "then dQ_i · scale", "→ HBM", "d-b"),
    ]
    top = y + 10
    d.rect(BX, top, BR - BX, len(rows2) * LINE + 10, "d-blue")
    again = top + 20 + 4 * LINE
    d.rect(BX + 5, again - 14, BR - BX - 10, 3 * LINE, "d-off")
    _grid(d, top + 24, "row", "d-blue-s", "d-blue")
    _rows(d, top + 20, rows2, "d-blue-s")

    # The count against FlashAttention-2.
    y = top + len(rows2) * LINE + 10 + 26
    d.rect(8, y - 11, 22, 14, "d-off", rx=0)
    d.text(38, y, "5 and 6 redo 1 and 3, transposed.", 12)
    d.text(8, y + 20, "FlashAttention-2 runs one pass: S and dP once,", 12, "d-t2")
    d.text(8, y + 38, "dQ added into HBM with atomics, 5 matmuls, not 7.", 12, "d-t2")
    d.text(8, y + 56, "Here each program writes only its own rows.", 12, "d-t2")
    d.height = y + 64
    return d
