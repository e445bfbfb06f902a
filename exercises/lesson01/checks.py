"""The checks of lesson 01's exercises."""

from __future__ import annotations

import torch

from exercises.checking import Wrong, answer, compare, guarded, jit, launch, ragged, rand


def one_pass(module) -> str:
    kernel = jit(module, "mul_add_relu_kernel")
    block = 128
    sizes = []
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        n = ragged(200, 1500)
        x, y, z = (rand((n,), dtype) for _ in range(3))
        out = guarded((n,), dtype)
        launch(kernel, ((n + block - 1) // block,), x, y, z, out.out, n, BLOCK=block, hint=1)
        out.check()
        want = torch.relu(x.double() * y.double() + z.double()).to(dtype)
        compare(out.out, want, "out", hint=2, unwritten_hint=1)
        sizes.append(n)
    return f"n = {', '.join(map(str, sizes))} in fp32, fp16 and bf16"


def count_bytes(module) -> str:
    t = 4096 * 8192 * 2 / 1e6  # MB of one bf16 tensor of y's shape
    want = {"EAGER_MB": 6 * t, "GELU_MASK_FUSED_MB": 4 * t, "ALL_FUSED_MB": 2 * t}
    for name, mb in want.items():
        got = answer(module, name, hint=1)
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            raise Wrong(f"{name} is {got!r}: write a number of MB", hint=1)
        if abs(got - mb) > 0.02 * mb:
            raise Wrong(
                f"{name} = {got:g} MB is not it: count the tensors of y's shape "
                f"({t:.1f} MB each) that each kernel reads or writes",
                hint=2,
            )
    mbs = ", ".join(f"{mb:.0f}" for mb in want.values())
    return f"6, 4 and 2 tensors of {t:.0f} MB: {mbs} MB"
