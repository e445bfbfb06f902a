"""01 · Why Triton: y = gelu(F.linear(x, w, b)) * mask as three eager kernels against one
fused kernel (the bias already inside cuBLAS's matmul, as addmm does it)."""

from scripts.book.diagrams.svg import Drawing

BOX_X, BOX_W, HBM_X, HBM_W = 16, 164, 326, 58


def _hbm(d: Drawing, top: float, bottom: float) -> None:
    d.rect(HBM_X, top, HBM_W, bottom - top, "d-surf")
    d.text(HBM_X + HBM_W / 2, top + 20, "HBM", 13, "d-b", "middle")


def _read(d: Drawing, y: float, what: str) -> None:
    d.arrow(HBM_X, y, BOX_X + BOX_W, y, "d-ln-o", "d-head-o")
    d.label((HBM_X + BOX_X + BOX_W) / 2 + 4, y + 4, what, 12, "d-to")


def _write(d: Drawing, y: float, what: str) -> None:
    d.arrow(BOX_X + BOX_W, y, HBM_X, y, "d-ln-b", "d-head-b")
    d.label((HBM_X + BOX_X + BOX_W) / 2 - 4, y + 4, what, 12, "d-tb")


def draw() -> Drawing:
    d = Drawing(
        "eager-vs-fused",
        488,
        "Three eager kernels against one fused kernel: the bytes through HBM",
        """Top: eager PyTorch runs y = gelu(F.linear(x, w, b)) * mask as three kernels. The
        matrix product (cuBLAS, with the bias added inside it) reads x, w and b and writes
        z to HBM (1 T, where T is the size of z in bytes); GELU reads z and writes it back
        (2 T); the mask step reads z and the mask and writes y (3 T): 6 T through HBM after
        the product's inputs, and three launches. Bottom: one fused kernel keeps each tile
        of z in registers, applies the bias, GELU and the mask there, reads only the mask
        (1 T) and writes only y (1 T): 2 T, one launch.""",
    )
    d.text(BOX_X, 18, "Eager PyTorch: three kernels, z through HBM", 13, "d-b")
    _hbm(d, 30, 202)
    kernels = [
        ("F.linear(x, w, b)", "x, w, b", "z · 1T"),
        ("z = gelu(z)", "z · 1T", "z · 1T"),
        ("y = z * mask", "z, mask · 2T", "y · 1T"),
    ]
    for k, (code, reads, writes) in enumerate(kernels):
        y = 36 + 56 * k
        d.rect(BOX_X, y, BOX_W, 44, "d-box")
        d.text(BOX_X + 12, y + 27, code, 13, "d-mono", room=BOX_W - 16)
        _read(d, y + 12, "read " + reads)
        _write(d, y + 32, "write " + writes)
    d.text(BOX_X, 226, "after the product's inputs: 1 + 2 + 3 = 6 T", 12, "d-t2")

    d.text(BOX_X, 262, "Fused: one kernel, each tile of z stays in registers", 13, "d-b")
    _hbm(d, 274, 434)
    d.rect(BOX_X, 280, BOX_W, 148, "d-blue")
    d.text(BOX_X + 12, 300, "one program, one tile:", 12, "d-t2")
    steps = ["acc = x @ w.T", "acc = acc + b", "acc = gelu(acc)", "y = acc * mask"]
    for k, code in enumerate(steps):
        d.text(BOX_X + 12, 326 + 24 * k, code, 13, "d-mono", room=BOX_W - 16)
    _read(d, 306, "read x, w, b")
    _read(d, 380, "read mask · 1T")
    _write(d, 406, "write y · 1T")
    d.text(BOX_X, 458, "after the product's inputs: 1 + 1 = 2 T, one launch", 12, "d-t2")
    d.text(BOX_X, 480, "T: the size of z in bytes (M × N × 2 in bf16)", 12, "d-t2")
    return d
