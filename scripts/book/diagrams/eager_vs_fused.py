"""01 · Why Triton: the epilogue as four eager kernels against one fused kernel."""

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
        544,
        "Four eager kernels against one fused kernel: the bytes through HBM",
        """Top: eager PyTorch runs the epilogue as four kernels. The matrix product reads x
        and w and writes z to HBM (1 T, where T is the size of z in bytes); adding the
        bias reads z and writes it back (2 T); GELU reads and writes z again (2 T); the
        mask step reads z and the mask and writes y (3 T): 8 T through HBM after the
        product, and four launches. Bottom: one fused kernel keeps each tile of z in
        registers, applies the bias, GELU and the mask there, reads only the mask (1 T)
        and writes only y (1 T): 2 T, one launch.""",
    )
    d.text(BOX_X, 18, "Eager PyTorch: four kernels, z through HBM", 13, "d-b")
    _hbm(d, 30, 258)
    kernels = [
        ("z = x @ w", "x, w", "z · 1T"),
        ("z = z + b", "z · 1T", "z · 1T"),
        ("z = gelu(z)", "z · 1T", "z · 1T"),
        ("y = z * mask", "z, mask · 2T", "y · 1T"),
    ]
    for k, (code, reads, writes) in enumerate(kernels):
        y = 36 + 56 * k
        d.rect(BOX_X, y, BOX_W, 44, "d-box")
        d.text(BOX_X + 12, y + 27, code, 13, "d-mono", room=BOX_W - 16)
        _read(d, y + 12, "read " + reads)
        _write(d, y + 32, "write " + writes)
    d.text(BOX_X, 282, "after the product: 1 + 2 + 2 + 3 = 8 T through HBM", 12, "d-t2")

    d.text(BOX_X, 318, "Fused: one kernel, each tile of z stays in registers", 13, "d-b")
    _hbm(d, 330, 490)
    d.rect(BOX_X, 336, BOX_W, 148, "d-blue")
    d.text(BOX_X + 12, 356, "one program, one tile:", 12, "d-t2")
    for k, code in enumerate(["acc = x @ w", "acc = acc + b", "acc = gelu(acc)", "y = acc * mask"]):
        d.text(BOX_X + 12, 382 + 24 * k, code, 13, "d-mono", room=BOX_W - 16)
    _read(d, 362, "read x, w")
    _read(d, 436, "read mask · 1T")
    _write(d, 462, "write y · 1T")
    d.text(BOX_X, 514, "after the product: 1 + 1 = 2 T through HBM, one launch", 12, "d-t2")
    d.text(BOX_X, 536, "T: the size of z in bytes (M × N × 2 in bf16)", 12, "d-t2")
    return d
