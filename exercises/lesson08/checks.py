"""Checks of lesson 08's exercises: each launches the reader's kernel with its own grid."""

import numpy as np
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


def _gelu(v: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    return torch.nn.functional.gelu(v.double(), approximate=approximate)


def bias_gelu(module) -> str:
    kernel = jit(module, "bias_gelu_kernel")
    shapes = []
    for dtype in (torch.float32, torch.float16):
        for _ in range(2):
            m, n = ragged(3, 40), ragged(20, 150)
            x = rand((m, n + ragged(1, 20)), dtype)[:, :n]  # rows further apart than N
            bias = rand((n,), dtype)
            out = guarded((m, n), dtype)
            bm, bn = 8, 32
            grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
            launch(kernel, grid, x, bias, out.out, m, n, x.stride(0), BLOCK_M=bm, BLOCK_N=bn)
            out.check()
            want = _gelu(x.double() + bias.double())
            compare(out.out, want, "out", hint=2, unwritten_hint=1)
            shapes.append(f"{m}x{n}")
    return f"shapes {', '.join(shapes)}, fp32 and fp16"


def tanh_overflow(module) -> str:
    kernel = jit(module, "gelu_tanh_kernel")
    block = 128
    # Ordinary inputs first: the fix must not change what the kernel computes for them.
    n = ragged(300, 700)
    x = rand((n,))
    out = guarded((n,))
    launch(kernel, ((n + block - 1) // block,), x, out.out, n, BLOCK=block)
    out.check()
    compare(out.out, _gelu(x, "tanh"), "out", hint=2)
    # Then large ones, of both signs, as activations reach after a bad step.
    n = ragged(300, 700)
    x = rand((n,), scale=30.0)
    out = torch.full((n,), 12345.0, device=x.device)  # not NaN: a NaN here is the kernel's
    with np.errstate(all="ignore"):  # the interpreter's NumPy would warn about the overflow
        launch(kernel, ((n + block - 1) // block,), x, out, n, BLOCK=block)
    bad = out.isnan()
    if bool(bad.any()):
        i = int(bad.nonzero()[0, 0])
        want = _gelu(x[i : i + 1], "tanh").item()
        raise Wrong(
            f"out[{i}] is NaN for x = {x[i].item():.4g}, want {want:.4g}"
            f" ({int(bad.sum())} of {n} large inputs give NaN)",
            hint=1,
        )
    compare(out, _gelu(x, "tanh"), "out", hint=2)
    top = x.abs().max().item()
    return f"ordinary inputs as before, and large ones (|x| up to {top:.0f}) without NaN"


SPEEDUPS = (1.5, 2, 2.33, 3, 4)


def speedup(module) -> str:
    measured = book_value("h100", "fused_activation.vs", peer="eager")
    wrong = (
        f"not {{guess}}: our H100 measured the fused kernel {measured:.2f} times as fast as "
        "eager's kernels, nearest to {want}"
    )
    want = nearest_choice(module, SPEEDUPS, measured, wrong)
    return f"our H100 measured {measured:.2f} times as fast as eager, nearest to {want}"
