"""Exercise 17.2 · bug hunt: a block table read at the wrong column.

``gather_keys_kernel`` copies the keys of one sequence out of a paged cache into a
contiguous ``out`` (seq_len, HEAD_DIM): key n lives in row n % page_size of page
``table[n // page_size]`` of ``pages`` (n_pages, page_size, HEAD_DIM). Each program
copies BLOCK_N keys. It passes every test with pages of one key and copies the wrong
keys with any larger page. Find the line and fix it.

ROCm's aiter had this bug in a paged attention kernel (ROCm/aiter#5600): the block table
was indexed with a key's position instead of the page that holds it, reading past the
table's row into garbage page numbers.

Check it:  python -m exercises check 17.2
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
@triton.jit
def gather_keys_kernel(
    pages_ptr, table_ptr, out_ptr, seq_len, page_size, page_stride,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
):  # fmt: skip
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)  # positions in the sequence
    offs_d = tl.arange(0, HEAD_DIM)
    mask = offs_n < seq_len
    page = tl.load(table_ptr + offs_n, mask=mask, other=0)
    row = page.to(tl.int64) * page_stride + (offs_n % page_size) * HEAD_DIM
    keys = tl.load(pages_ptr + row[:, None] + offs_d[None, :], mask=mask[:, None])
    tl.store(out_ptr + offs_n[:, None] * HEAD_DIM + offs_d[None, :], keys, mask=mask[:, None])


# --8<-- [end:starter]
