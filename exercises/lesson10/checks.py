"""Checks of lesson 10's exercises: each launches the reader's kernel with its own grid."""

import numpy as np
import torch

from exercises.checking import (
    Wrong,
    answer,
    book_value,
    compare,
    guarded,
    jit,
    launch,
    ragged,
    rand,
)


def _softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.double(), dim=-1)


def padding(module) -> str:
    kernel = jit(module, "softmax_kernel")
    widths = []
    for n_cols in (64, ragged(20, 60), ragged(65, 200)):
        n_rows = ragged(3, 12)
        x = rand((n_rows, n_cols + 5))[:, :n_cols]  # rows further apart than n_cols
        y = guarded((n_rows, n_cols))
        block = 1 << (n_cols - 1).bit_length()
        launch(kernel, (n_rows,), x, y.out, n_cols, x.stride(0), n_cols, BLOCK=block)
        y.check()
        compare(y.out, _softmax(x), "y", hint=1)
        widths.append(str(n_cols))
    return f"widths {', '.join(widths)}, each in one tile of the next power of two"


def online(module) -> str:
    kernel = jit(module, "softmax_online_kernel")
    done = []
    for dtype in (torch.float32, torch.float16):
        n_rows, n_cols, block = ragged(4, 9), ragged(100, 200), 32
        # Values up to about +-150: exp(x) alone overflows float32 (and fp16).
        x = rand((n_rows, n_cols), dtype, scale=40.0)
        # The maximum of every other row in its last tile: the rescale must happen.
        x[::2, -3] = x.abs().max() + 1
        y = guarded((n_rows, n_cols), dtype, "y")
        with np.errstate(all="ignore"):  # a wrong update overflows; the compare says where
            launch(kernel, (n_rows,), x, y.out, n_cols, x.stride(0), n_cols, BLOCK=block)
        y.check()
        # inf or NaN everywhere: m and s were never updated (hint 1); else the rescale (2).
        hint = 1 if bool((~y.out.isfinite()).all()) else 2
        compare(y.out, _softmax(x), "y", hint=hint, unwritten_hint=1)
        done.append(f"{n_rows}x{n_cols} {str(dtype).removeprefix('torch.')}")
    return f"{', '.join(done)}, tiles of 32, values up to about 150"


def second_read(module) -> str:
    guess = answer(module, "ANSWER", hint=1)
    if not isinstance(guess, (int, float)) or isinstance(guess, bool) or not 0 < guess <= 100:
        raise Wrong(f"ANSWER is {guess!r}: write a percentage, a number from 0 to 100", hint=1)
    share = 100 * book_value("h100", "softmax.sweep_share", cols=262144)
    if abs(guess - share) > 0.1 * share:
        raise Wrong(f"not {guess}%: our H100 reached {share:.0f}% of copy at best", hint=2)
    return f"our H100 reached {share:.0f}% of copy at best, at 262,144 fp32 columns"
