"""Lesson 16's exercises (docs/llm/16-fp8-matmul.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson16 import checks

PAGE = "llm/16-fp8-matmul.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_row_scales",
        kind="write",
        title="the per-row epilogue",
        check=checks.row_scales,
        page=PAGE,
        untouched="wrong value at c[",
        hints=(
            "The scales are constant along K, so they can wait until the loop is done: row "
            "`i` of the tile needs `a_scale[i]`, column `j` needs `b_scale[j]`. Load them as "
            "two vectors with the tile's `offs_m` and `offs_n` (masked).",
            "`acc = acc * (sa[:, None] * sb[None, :])` after the loop, before the store.",
        ),
    ),
    "2": Exercise(
        slug="ex2_block_scales",
        kind="write",
        title="block scales inside the loop",
        check=checks.block_scales,
        page=PAGE,
        untouched="with K = ",
        hints=(
            "With `BLOCK_K = 128`, step `k` of the loop covers exactly scale column `k` of "
            "both operands. Compute that step's product on its own, `tl.dot(a, b)`, scale "
            "it, then add it to the accumulator.",
            "Inside the loop: load `sa` at column `k` of a's scales (one per row of the "
            "tile) and `sb` at row `k` of b's (one per column of the tile, `offs_n // "
            "128`), then `acc += tl.dot(a, b) * (sa[:, None] * sb[None, :])`; nothing after "
            "the loop.",
        ),
    ),
}
