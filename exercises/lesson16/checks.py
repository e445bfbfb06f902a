"""Checks of lesson 16's exercises: each launches the reader's kernel with its own grid.

The inputs are exact: 8-bit values that are small integers (|v| <= 4) and scales that are
powers of two, so every sum the kernel forms is exact in float32 whatever its order, and
the only error left is the final rounding to bf16."""

import torch

from exercises.checking import DEVICE, Wrong, compare, guarded, jit, launch, ragged

E4M3 = torch.float8_e4m3fn
BLOCK = 128  # the side of a scale block


def _integers(rows: int, cols: int) -> torch.Tensor:
    v = torch.randint(-4, 5, (rows, cols), device=DEVICE).float()
    v[v == 0] = 1.0
    return v.to(E4M3)


def _powers_of_two(shape) -> torch.Tensor:
    return torch.exp2(torch.randint(-3, 4, shape, device=DEVICE).float())


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def row_scales(module) -> str:
    kernel = jit(module, "fp8_rowwise_kernel")
    done = []
    for _ in range(2):
        m, n, k = ragged(20, 70), ragged(20, 70), 16 * ragged(2, 9)
        a = _integers(m, k)
        b = _integers(n, k).t()  # column-major (K, N), as the tensor cores want B
        sa, sb = _powers_of_two((m,)), _powers_of_two((n,))
        c = guarded((m, n), torch.bfloat16, "c")
        grid = (_cdiv(m, 32), _cdiv(n, 32))
        launch(kernel, grid, a, b, c.out, sa, sb, m, n, k, a.stride(0), b.stride(1), n,
               BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)  # fmt: skip
        c.check()
        want = (sa[:, None].double() * a.double()) @ (b.double() * sb[None, :].double())
        compare(c.out, want, "c", hint=1, unwritten_hint=2)
        done.append(f"{m}x{n}x{k}")
    return ", ".join(done) + ", e4m3 with per-row and per-column scales"


def block_scales(module) -> str:
    kernel = jit(module, "fp8_block_kernel")
    done = []
    for k in (96, 16 * ragged(13, 25)):  # one K block, then several
        m, n = ragged(20, 70), ragged(100, 300)
        a = _integers(m, k)
        b = _integers(n, k).t()
        kb, nb = _cdiv(k, BLOCK), _cdiv(n, BLOCK)
        sa, sb = _powers_of_two((m, kb)), _powers_of_two((kb, nb))
        c = guarded((m, n), torch.bfloat16, "c")
        grid = (_cdiv(m, 32), _cdiv(n, 32))
        launch(kernel, grid, a, b, c.out, sa, sb, m, n, k, a.stride(0), b.stride(1), n,
               sa.stride(0), sb.stride(0), BLOCK_M=32, BLOCK_N=32, BLOCK_K=BLOCK)  # fmt: skip
        c.check()
        each_a = sa.double().repeat_interleave(BLOCK, dim=1)[:, :k]
        each_b = sb.double().repeat_interleave(BLOCK, dim=0)[:k].repeat_interleave(BLOCK, dim=1)
        want = (a.double() * each_a) @ (b.double() * each_b[:, :n])
        try:
            compare(c.out, want, "c", hint=1, unwritten_hint=2)
        except Wrong as w:
            raise Wrong(f"with K = {k} ({kb} block(s) of 128): {w.message}", hint=w.hint) from None
        done.append(f"{m}x{n}x{k}")
    return ", ".join(done) + ", e4m3 with 1x128 and 128x128 block scales"
