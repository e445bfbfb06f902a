"""The checks of lesson 05's exercises."""

from __future__ import annotations

import re

import torch

from exercises.checking import (
    Wrong,
    book_value,
    compare,
    compiled_ir,
    guarded,
    jit,
    launch,
    nearest_choice,
    ragged,
    rand,
)


def k_loop(module) -> str:
    kernel = jit(module, "k_loop_dot_kernel")
    bm, bn, bk = 16, 16, 16
    shapes = []
    for dtype in (torch.float16, torch.float32):
        m, n, k = ragged(17, 40), ragged(17, 40), ragged(33, 70)
        a, b = rand((m, k), dtype), rand((k, n), dtype)
        c = guarded((m, n), torch.float32, "c")
        grid = ((m + bm - 1) // bm, (n + bn - 1) // bn)
        launch(kernel, grid, a, b, c.out, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, hint=1)
        c.check(hint=3)
        # fp32 inputs may be truncated to TF32 on a GPU: compare them at TF32's precision.
        tol = 2e-4 if dtype == torch.float16 else 2e-2
        compare(c.out, a.double() @ b.double(), "c", rtol=tol, atol=tol, hint=2, unwritten_hint=1)
        shapes.append(f"{m}x{k} @ {k}x{n}")
    return f"{', '.join(shapes)} (fp16, fp32), tiles of 16"


DOT_SIGNATURE = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"}
DOT_SIGNATURE.update({"M": "constexpr", "N": "constexpr", "K": "constexpr"})


def tf32(module) -> str:
    kernel = jit(module, "tile_dot_fp32_kernel")
    # First what the compiler makes of the dot, the same on every machine.
    ttir = compiled_ir(module.__file__, "tile_dot_fp32_kernel", DOT_SIGNATURE,
                       {"M": 16, "N": 16, "K": 32})["ttir"]  # fmt: skip
    found = re.findall(r"tt\.dot .*inputPrecision = (\w+)", ttir)
    if not found:
        found = ["ieee"] * len(re.findall(r"tt\.dot ", ttir))  # ieee is not printed
    if "tf32x3" in found:
        raise Wrong(
            "compiled for an H100 the dot's inputPrecision is tf32x3: about 21 of fp32's 23 "
            "mantissa bits, close but not the full fp32 this caller asks for",
            hint=2,
        )
    if any(p != "ieee" for p in found):
        raise Wrong(
            f"compiled for an H100 the dot's inputPrecision is {found[0]}: its inputs keep "
            "10 of fp32's 23 mantissa bits (the interpreter cannot show it: it multiplies "
            "fp32 tiles in fp32 whatever the kernel asks)",
            hint=1,
        )
    a, b = rand((16, 32)), rand((32, 16))
    c = guarded((16, 16), torch.float32, "c")
    launch(kernel, (1,), a, b, c.out, M=16, N=16, K=32, hint=2)
    c.check()
    compare(c.out, a.double() @ b.double(), "c", rtol=1e-5, atol=1e-5, hint=2)
    return "compiled for an H100 the dot multiplies in fp32, and the values are right"


def bf16_over_ieee(module) -> str:
    ratio = book_value("h100", "dot.over", of="bf16", to="ieee")
    wrong = f"not {{guess}}: on our H100 bf16 ran {ratio:.1f} times as fast"
    want = nearest_choice(module, (2, 5, 20, 100), ratio, wrong)
    return f"bf16 ran {ratio:.1f} times as fast as ieee fp32 on our H100: about {want}"
