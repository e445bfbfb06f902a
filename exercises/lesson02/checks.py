"""The checks of lesson 02's exercises."""

from __future__ import annotations

import torch

from exercises.checking import Wrong, book_value, compare, guarded, jit, launch, ragged, rand


def store_mask(module) -> str:
    kernel = jit(module, "relu_kernel")
    block = 64
    sizes = [4 * block, ragged(100, 600), ragged(600, 1200)]  # one size with no ragged tile
    for n in sizes:
        x = rand((n,))
        out = guarded((n,))
        launch(kernel, ((n + block - 1) // block,), x, out.out, n, BLOCK=block, hint=2)
        compare(out.out, torch.relu(x), "out", hint=2)
        out.check(hint=1)
    return f"n = {', '.join(map(str, sizes))}, nothing written outside out"


def several_tiles(module) -> str:
    kernel = jit(module, "scale_kernel")
    block, tiles = 32, 4
    sizes = []
    for dtype in (torch.float32, torch.float16):
        for n in (ragged(40, 127), ragged(300, 900)):
            x = rand((n,), dtype)
            out = guarded((n,), dtype)
            grid = ((n + tiles * block - 1) // (tiles * block),)
            launch(kernel, grid, x, out.out, 1.5, n, BLOCK=block, TILES=tiles, hint=1)
            out.check()
            compare(out.out, (1.5 * x.double()).to(dtype), "out", hint=1, unwritten_hint=1)
            sizes.append(n)
    return f"n = {', '.join(map(str, sizes))}, {tiles} tiles of {block} per program"


def programs_per_sm(module) -> str:
    cfg = {"block": 2048, "warps": 2}
    regs = book_value("h100", "vector_add.regs", **cfg)
    guess = getattr(module, "ANSWER", None)
    if guess is None:
        raise Wrong(
            f"no prediction yet: the add at BLOCK = 2048 on 2 warps uses {regs} registers "
            "per thread on our H100; write into ANSWER how many of its programs fit on one SM",
            hint=1,
        )
    want = book_value("h100", "vector_add.resident", per="sm", **cfg)
    limits = {
        name: book_value("h100", "vector_add.resident_by", limit=limit, **cfg)
        for name, limit in (("threads", "threads"), ("slots", "blocks"), ("registers", "registers"))
    }
    if guess != want:
        worked = ", ".join(f"{k} allow {v}" for k, v in limits.items())
        raise Wrong(f"not {guess}: {worked}; the least of them fits", hint=2)
    deciding = " and ".join(k for k, v in limits.items() if v == want)
    return f"{want} programs at {regs} registers per thread: {deciding} decide"
