"""Exercise 13.3, a solution (the starter is exercises/lesson13/ex3_key.py).

The autotuner looks its choice up by the values of the key's arguments only. With
key=["n_rows"], a call with wider rows but as many of them finds the entry of the first
call and reuses its BLOCK without pruning again: a tile narrower than the row, whose
maximum ignores the columns past it. Every argument that decides which configs are
usable (here n_cols, through the pruning function) belongs in the key.
"""

import triton
import triton.language as tl


# --8<-- [start:solution]
def covers_the_row(configs, named_args, **kwargs):
    """Keep the configs whose BLOCK holds a whole row: the kernel reads a row as one tile."""
    return [c for c in configs if c.kwargs["BLOCK"] >= named_args["n_cols"]]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in (64, 128, 256, 512)],
    key=["n_rows", "n_cols"],  # n_cols decides which BLOCKs are usable: key it
    prune_configs_by={"early_config_prune": covers_the_row},
)
@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


# --8<-- [end:solution]
