"""Lesson 04's 2-D pointer tile, small enough to print: run it and read what each program saw.

``tiles_kernel`` gives each program one tile of a 2-D tensor: a column of row offsets plus
a row of column offsets, broadcast to a tile of offsets, and a mask built the same way.
Each program stores the tile it loaded (``-1`` where the mask is off) into its own slot of
the output, so the host can print what one program saw. Any strided view works, a
transposed one included, because the kernel takes both strides as arguments.

Run it on a laptop, without a GPU (the Triton interpreter runs the kernel on the CPU):

    TRITON_INTERPRET=1 python -m kernels._tiles

tests/kernels/test_tiles.py checks that it prints what lesson 04 says it prints.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def tiles_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_r,
    stride_c,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    pid_r = tl.program_id(axis=0)  # which tile down
    pid_c = tl.program_id(axis=1)  # which tile across
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)  # shape (BLOCK_R,)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)  # shape (BLOCK_C,)
    # (BLOCK_R, 1) + (1, BLOCK_C) -> (BLOCK_R, BLOCK_C): one offset per element.
    offs = rows[:, None] * stride_r + cols[None, :] * stride_c
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    tile = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    # This program's own slot of out, (BLOCK_R, BLOCK_C), contiguous.
    slot = (pid_r * tl.num_programs(axis=1) + pid_c) * BLOCK_R * BLOCK_C
    here = tl.arange(0, BLOCK_R)[:, None] * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    tl.store(out_ptr + slot + here, tile)


# --8<-- [end:kernel]


# --8<-- [start:launch]
def tiles(x, block_r=2, block_c=4):
    """out[i, j]: the (block_r, block_c) tile of the 2-D tensor ``x`` (any
    strides) that program (i, j) loaded, -1 where its mask was off."""
    n_rows, n_cols = x.shape
    grid = ((n_rows + block_r - 1) // block_r, (n_cols + block_c - 1) // block_c)
    out = torch.empty(grid + (block_r, block_c), dtype=x.dtype, device=x.device)
    strides = x.stride(0), x.stride(1)
    tiles_kernel[grid](x, out, n_rows, n_cols, *strides, BLOCK_R=block_r, BLOCK_C=block_c)
    return out


# --8<-- [end:launch]


# --8<-- [start:example]
def show(title, tile):
    print(title)
    for row in tile.tolist():
        print("".join(f"{v:5.0f}" for v in row))


def main():
    device = "cpu" if triton.knobs.runtime.interpret else "cuda"
    # 5 x 6, row-major: strides (6, 1), and each value is its own offset.
    x = torch.arange(30, dtype=torch.float32, device=device).reshape(5, 6)
    show("x: tile (2, 0), rows 4-5, columns 0-3", tiles(x)[2, 0])
    # The same memory, the strides swapped: (1, 6). No copy is made.
    show("x.t(): tile (0, 0), rows 0-1, columns 0-3", tiles(x.t())[0, 0])


if __name__ == "__main__":
    main()
# --8<-- [end:example]
