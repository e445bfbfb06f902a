"""Checks of lesson 17's exercises: each launches the reader's kernel with its own grid."""

import torch

from exercises.checking import DEVICE, Wrong, compare, guarded, jit, launch, ragged, rand


def _block(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _combined(part: torch.Tensor, lse: torch.Tensor) -> torch.Tensor:
    """The merge in float64: weights 2 ** (lse - max), zeros where every lse is -inf."""
    lse64 = lse.double()
    top = lse64.max(dim=1, keepdim=True).values
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    w = torch.exp2(lse64 - top)
    total = w.sum(1, keepdim=True)
    out = (w[:, :, None] * part.double()).sum(1) / torch.where(total > 0, total, 1.0)
    return out


def combine(module) -> str:
    kernel = jit(module, "combine_kernel")
    done = []
    # (splits, lse offset): one split; several; large lse, where 2 ** lse overflows float32.
    for n_splits, offset in ((1, 0.0), (5, 0.0), (7, 200.0)):
        rows, d = ragged(3, 12), 16
        part = rand((rows, n_splits, d))
        lse = rand((rows, n_splits), scale=3.0) + offset
        empty = torch.rand((rows, n_splits), device=DEVICE) < 0.3  # slices with no key
        empty[:, 0] = False
        if rows > 2:
            empty[1] = True  # a row with no key at all
        lse = lse.masked_fill(empty, float("-inf"))
        part = part.masked_fill(empty[:, :, None], 0.0)
        out = guarded((rows, d), torch.float32, "out")
        launch(kernel, (rows,), part, lse, out.out, n_splits, HEAD_DIM=d,
               BLOCK_S=_block(n_splits))  # fmt: skip
        out.check()
        want = _combined(part, lse)
        # The rows with a key first (hint 1), then the row with none (hint 2).
        others = [r for r in range(rows) if r != 1 or rows <= 2]
        compare(out.out[others], want[others], "out", rtol=1e-5, atol=1e-5, hint=1)
        if rows > 2:
            try:
                compare(out.out[1], want[1], "out[1]", rtol=1e-5, atol=1e-5, hint=2)
            except Wrong as w:
                raise Wrong(f"a row with every slice empty: {w.message}", hint=2) from None
        done.append(f"{rows} rows x {n_splits} split{'s' * (n_splits > 1)}")
    return ", ".join(done) + " (empty slices, a row with none, lse near 200)"


def page_index(module) -> str:
    kernel = jit(module, "gather_keys_kernel")
    d, block_n = 16, 16
    done = []
    for page_size in (1, 4, 16, 5):
        seq_len = ragged(20, 60)
        n_pages = -(-seq_len // page_size) + 7
        pages = rand((n_pages, page_size, d))
        used = -(-seq_len // page_size)
        # The sequence's pages in random order; the table row is longer than it needs
        # (one entry per key), its spare columns other valid pages.
        table = torch.randint(0, n_pages, (seq_len + block_n,), device=DEVICE, dtype=torch.int32)
        table[:used] = torch.randperm(n_pages, device=DEVICE)[:used].to(torch.int32)
        out = guarded((seq_len, d), torch.float32, "out")
        grid = (-(-seq_len // block_n),)
        launch(kernel, grid, pages, table, out.out, seq_len, page_size, pages.stride(0),
               HEAD_DIM=d, BLOCK_N=block_n)  # fmt: skip
        out.check()
        n = torch.arange(seq_len, device=DEVICE)
        want = pages[table[n // page_size].long(), n % page_size]
        try:
            compare(out.out, want, "out", rtol=0.0, atol=0.0, hint=1)
        except Wrong as w:
            raise Wrong(f"with pages of {page_size} keys: {w.message}", hint=w.hint) from None
        done.append(f"{seq_len} keys in pages of {page_size}")
    return ", ".join(done)
