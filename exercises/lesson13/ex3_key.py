"""Exercise 13.3 · bug hunt: an autotune key that forgets a shape.

``row_max_kernel`` writes the maximum of each row of ``x``, one program per row, the whole
row as one tile, so a config is only usable if its BLOCK covers the row: the pruning
function drops the others before the autotuner times what is left. The autotuner is
right on the first call, and wrong on a later call whose rows are wider. Find why and
fix the autotuner. (The check times the configs with a stand-in for ``do_bench``; the
settings it reads are yours.)

IBM's triton-dejavu, which stores autotuner results across runs, had a report of a kernel
right when tuned and wrong once a stored config was restored (IBM/triton-dejavu#1), and
warns that pruning can steer the choice in ways its stored key does not see; TileLang's
autotuner had a cache keyed without the problem size (tile-ai/tilelang#1250).

Check it:  python -m exercises check 13.3
"""

import triton
import triton.language as tl


# --8<-- [start:starter]
def covers_the_row(configs, named_args, **kwargs):
    """Keep the configs whose BLOCK holds a whole row: the kernel reads a row as one tile."""
    return [c for c in configs if c.kwargs["BLOCK"] >= named_args["n_cols"]]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in (64, 128, 256, 512)],
    key=["n_rows"],
    prune_configs_by={"early_config_prune": covers_the_row},
)
@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


# --8<-- [end:starter]
