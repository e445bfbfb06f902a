"""Checks of lesson 15's exercises: each launches the reader's kernel with its own grid."""

import numpy as np
import torch

from exercises.checking import (
    DEVICE,
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

BLOCK, IGNORE = 32, -100


def _batch(n_rows: int, n_cols: int, dtype, ignored: str):
    """Logits about N(0, 4), targets uniform; ``ignored``: "last" (the last row's target is
    IGNORE) or "all"."""
    z = rand((n_rows, n_cols), dtype, scale=2.0)
    target = torch.randint(0, n_cols, (n_rows,), device=DEVICE)
    if ignored == "all":
        target[:] = IGNORE
    else:
        target[-1] = IGNORE
    return z, target


def _run(kernel, z, target, *extra, dtype):
    """Launch over a guarded copy of ``z`` (the kernel writes dz over it): (dz, loss rows)."""
    n_rows, n_cols = z.shape
    dz = guarded((n_rows, n_cols), dtype, "dz")
    dz.out.copy_(z)
    loss = guarded((n_rows,), torch.float32, "loss")
    valid = (target != IGNORE).sum()
    with np.errstate(all="ignore"):  # 1 / 0 for a batch with no row that counts
        scale = (1.0 / valid.float()).reshape(())
    launch(kernel, (n_rows,), dz.out, target, loss.out, scale, n_cols, n_cols, IGNORE, *extra,
           BLOCK=BLOCK)  # fmt: skip
    dz.check()
    loss.check()
    return dz.out, loss.out


def _expected(z, target, smoothing=0.0):
    """Row losses and the mean loss's gradient, float64, by torch."""
    z64 = z.double().requires_grad_()
    f = torch.nn.functional.cross_entropy
    rows = f(z64, target, ignore_index=IGNORE, label_smoothing=smoothing, reduction="none")
    mean = f(z64, target, ignore_index=IGNORE, label_smoothing=smoothing)
    (dz,) = torch.autograd.grad(mean, z64)
    return dz.nan_to_num(0.0), rows.detach()


def label_smoothing(module) -> str:
    kernel = jit(module, "cross_entropy_grad_kernel")
    done = []
    for dtype in (torch.float32, torch.float16):
        n_rows, n_cols, eps = ragged(4, 9), ragged(100, 200), 0.1
        z, target = _batch(n_rows, n_cols, dtype, "last")
        dz, loss = _run(kernel, z, target, eps, dtype=dtype)
        want_dz, want_loss = _expected(z, target, eps)
        compare(loss, want_loss.float(), "loss", rtol=1e-4, atol=1e-4, hint=1)
        compare(dz, want_dz, "dz", hint=2)
        done.append(f"{n_rows}x{n_cols} {str(dtype).removeprefix('torch.')}")
    return f"{', '.join(done)}, label smoothing 0.1, tiles of {BLOCK}, the last row ignored"


def every_row_ignored(module) -> str:
    kernel = jit(module, "cross_entropy_grad_kernel")
    n_rows, n_cols = ragged(4, 9), ragged(60, 120)
    z, target = _batch(n_rows, n_cols, torch.float32, "last")
    dz, loss = _run(kernel, z, target, dtype=torch.float32)
    want_dz, want_loss = _expected(z, target)
    compare(loss, want_loss.float(), "loss", hint=1)
    compare(dz, want_dz.float(), "dz", hint=1)
    z, target = _batch(n_rows, n_cols, torch.float32, "all")
    dz, loss = _run(kernel, z, target, dtype=torch.float32)
    bad = ~(dz == 0)
    if bool(bad.any()):
        i, j = (int(k) for k in bad.nonzero()[0])
        raise Wrong(
            f"with every row ignored (the mean's scale is 1 / 0 = inf): dz[{i}, {j}] is "
            f"{dz[i, j].item()}, want 0, as torch's gradient is ({int(bad.sum())} of "
            f"{dz.numel()} elements are not 0)",
            hint=2,
        )
    compare(loss, torch.zeros_like(loss), "loss (every row ignored)", hint=2)
    return f"{n_rows}x{n_cols}: one row ignored, then every row ignored (zero gradients)"


RATIOS = (2, 4, 8, 16, 32)


def memory(module) -> str:
    ratio = book_value("h200", "linear_cross_entropy.memory_ratio", peer="eager", tokens=16384)
    wrong = f"not {{guess}}: our H200 measured {ratio:.1f} times the memory, nearest to {{want}}"
    nearest_choice(module, RATIOS, ratio, wrong)
    return f"our H200 measured eager's step at {ratio:.1f} times the book's memory"
