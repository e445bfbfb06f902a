"""Checks of lesson 11's exercises: each launches the reader's kernel with its own grid."""

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

EPS = 1e-5


def _block(n: int) -> int:
    return 1 << (n - 1).bit_length()


def layernorm(module) -> str:
    kernel = jit(module, "layernorm_fwd_kernel")
    done = []
    for dtype in (torch.float32, torch.float16):
        n_rows, n_cols = ragged(3, 10), ragged(100, 300)
        # A mean far from 0: a variance taken around 0 instead of the mean is caught.
        x = (rand((n_rows, n_cols + 7)) + 3.0).to(dtype)[:, :n_cols]
        w, b = rand((n_cols,), dtype), rand((n_cols,), dtype)
        y = guarded((n_rows, n_cols), dtype, "y")
        launch(kernel, (n_rows,), x, w, b, y.out, n_cols, x.stride(0), EPS, BLOCK=_block(n_cols))
        y.check()
        want = torch.nn.functional.layer_norm(x.double(), (n_cols,), w.double(), b.double(), EPS)
        compare(y.out, want, "y", hint=2, unwritten_hint=1)
        done.append(f"{n_rows}x{n_cols} {str(dtype).removeprefix('torch.')}")
    return ", ".join(done) + ", rows with a mean near 3"


def _rmsnorm_grads(x, w, dy):
    x64 = x.double().requires_grad_()
    w64 = w.double().requires_grad_()
    rstd = torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + EPS)
    (x64 * rstd * w64).backward(dy.double())
    return x64.grad, w64.grad


def dy_stride(module) -> str:
    kernel = jit(module, "rmsnorm_bwd_kernel")
    n_rows, n_cols = ragged(3, 8), ragged(40, 120)
    x, w = rand((n_rows, n_cols)), rand((n_cols,))
    rstd = torch.rsqrt(x.pow(2).mean(-1) + EPS)
    layouts = (
        ("contiguous", rand((n_rows, n_cols))),
        ("a slice of a wider tensor", rand((n_rows, 2 * n_cols + 3))[:, 5 : 5 + n_cols]),
        ("expanded from one row (stride 0)", rand((1, n_cols)).expand(n_rows, n_cols)),
    )
    for name, dy in layouts:
        dx = guarded((n_rows, n_cols), torch.float32, "dx")
        dw_rows = guarded((n_rows, n_cols), torch.float32, "dw_rows")
        launch(kernel, (n_rows,), dy, x, w, rstd, dx.out, dw_rows.out,
               n_cols, x.stride(0), dy.stride(0), BLOCK=_block(n_cols))  # fmt: skip
        dx.check()
        dw_rows.check()
        want_dx, want_dw = _rmsnorm_grads(x, w, dy)
        hint = None if name == "contiguous" else 1
        try:
            compare(dx.out, want_dx, "dx", rtol=1e-4, atol=1e-4, hint=hint)
            compare(dw_rows.out.sum(0), want_dw, "dweight", rtol=1e-4, atol=1e-4, hint=hint)
        except Wrong as w:
            raise Wrong(f"with dy {name}: {w.message}", hint=w.hint) from None
    return f"{n_rows}x{n_cols}, dy contiguous, sliced and expanded"


RATIOS = (0.8, 1, 1.2, 1.5, 2)


def against_compile(module) -> str:
    ratio = book_value("h100", "rmsnorm.vs", peer="compile", direction="backward", hidden=8192)
    wrong = (
        f"not {{guess}}: torch.compile's backward took {ratio:.2f} times the book's on our "
        "H100, nearest to {want}"
    )
    nearest_choice(module, RATIOS, ratio, wrong)
    return f"torch.compile's backward took {ratio:.2f} times the book's on our H100"
