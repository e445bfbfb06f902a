"""Checks of lesson 09's exercises: each launches the reader's kernel with its own grid."""

import torch

from exercises.checking import (
    Wrong,
    book_value,
    compare,
    guarded,
    jit,
    launch,
    nearest_choice,
    ragged,
    rand,
)

# A sum over K of products of N(0, 1) values grows like sqrt(K); fp16 keeps 11 bits.
RTOL, ATOL = 2e-3, 2e-2


def _matmul(kernel, a, b, bm=32, bn=32, bk=16, hint=None):
    (m, k), n = a.shape, b.shape[1]
    c = guarded((m, n), torch.float16, "c")
    grid = (((m + bm - 1) // bm) * ((n + bn - 1) // bn),)
    launch(kernel, grid, a, b, c.out, m, n, k, *a.stride(), *b.stride(),
           BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, hint=hint)  # fmt: skip
    return c


def masked_matmul(module) -> str:
    kernel = jit(module, "matmul_kernel")
    shapes = []
    for transposed in (False, True):
        m, n, k = ragged(20, 70), ragged(20, 70), ragged(20, 70)
        a = rand((m, k), torch.float16)
        b = rand((n, k), torch.float16).t() if transposed else rand((k, n), torch.float16)
        c = _matmul(kernel, a, b, hint=2)
        c.check()
        want = a.double() @ b.double()
        compare(c.out, want, "c", rtol=RTOL, atol=ATOL, hint=1 if k % 16 else 2)
        shapes.append(f"{m}x{k} @ {k}x{n}{' (b transposed)' if transposed else ''}")
    return "; ".join(shapes)


def store_mask(module) -> str:
    kernel = jit(module, "matmul_kernel")
    shapes = []
    for n in (64, ragged(33, 63), ragged(65, 95)):
        m, k = ragged(20, 70), ragged(20, 70)
        a, b = rand((m, k), torch.float16), rand((k, n), torch.float16)
        c = _matmul(kernel, a, b, hint=1)
        try:
            c.check()
        except Wrong as w:
            raise Wrong(w.message, hint=1) from None
        compare(c.out, a.double() @ b.double(), "c", rtol=RTOL, atol=ATOL, hint=1)
        shapes.append(f"{m}x{k} @ {k}x{n}")
    return "; ".join(shapes) + ", 32 x 32 tiles"


RATIOS = (1.05, 1.1, 1.25, 1.5, 2)


def epilogue(module) -> str:
    ratio = book_value("h100", "matmul.epilogue_ratio", of="cublas_eager", to="cublas", n=4096)
    wrong = (
        f"not {{guess}}: the chain took {ratio:.2f} times cuBLAS's time on our H100, "
        "nearest to {want}"
    )
    nearest_choice(module, RATIOS, ratio, wrong)
    return f"the chain took {ratio:.2f} times cuBLAS's time at 4096^3 on our H100"
