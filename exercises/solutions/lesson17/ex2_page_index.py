"""Exercise 17.2, a solution (the starter is exercises/lesson17/ex2_page_index.py).

The table has one entry per page. Reading it at the key's position n is right only when
a page holds one key; with pages of p keys, key n's page number is in column n // p, and
column n is some other page's entry (or, past the sequence's last page, whatever the
table holds there).
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
@triton.jit
def gather_keys_kernel(
    pages_ptr, table_ptr, out_ptr, seq_len, page_size, page_stride,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)  # positions in the sequence
    offs_d = tl.arange(0, HEAD_DIM)
    mask = offs_n < seq_len
    page = tl.load(table_ptr + offs_n // page_size, mask=mask, other=0)
    row = page.to(tl.int64) * page_stride + (offs_n % page_size) * HEAD_DIM
    keys = tl.load(pages_ptr + row[:, None] + offs_d[None, :], mask=mask[:, None])
    tl.store(out_ptr + offs_n[:, None] * HEAD_DIM + offs_d[None, :], keys, mask=mask[:, None])


# --8<-- [end:solution]
