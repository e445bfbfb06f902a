"""Lesson 09's exercises (docs/building/09-tiled-matmul.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson09 import checks

PAGE = "building/09-tiled-matmul.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_masked_matmul",
        kind="write",
        title="the K loop, for any M, N and K",
        check=checks.masked_matmul,
        page=PAGE,
        untouched=": got 0, want",
        hints=(
            "Loop with `for k0 in range(0, K, BLOCK_K)` and `k = k0 + ks`. The tile of a sits"
            " at `rows[:, None] * stride_am + k[None, :] * stride_ak`, the tile of b at `k[:,"
            " None] * stride_bk + cols[None, :] * stride_bn`: strides, not K and N, so that"
            " a transposed b is read in place.",
            "Each load needs a two-axis mask: `(rows < M)[:, None] & (k < K)[None, :]` for a,"
            " `(k < K)[:, None] & (cols < N)[None, :]` for b, and `other=0.0`, so that what "
            "hangs over an edge adds 0 to the sum.",
        ),
    ),
    "2": Exercise(
        slug="ex2_store_mask",
        kind="bughunt",
        title="a matmul that writes where it should not",
        check=checks.store_mask,
        page=PAGE,
        untouched="wrote outside c",
        cites=("https://github.com/huggingface/kernels-community/issues/1153",),
        hints=(
            "Compare the masks of the two loads with the mask of the store. Where does `c + "
            "row * N + col` point when `col >= N`, in a contiguous c?",
            "Mask the store like the tile: `(rows < M)[:, None] & (cols < N)[None, :]`.",
        ),
    ),
    "3": Exercise(
        slug="ex3_epilogue",
        kind="predict",
        title="what an eager epilogue costs",
        check=checks.epilogue,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 1.05, 1.1, 1.25, 1.5 or 2 into `ANSWER`.",
            "Four passes over C (4096 x 4096 x 2 bytes) at the copy bandwidth: how long is "
            "that next to cuBLAS's time for the product? The eager kernels cannot beat copy "
            "speed, so that is the least they add.",
        ),
    ),
}
