"""Lesson 06's exercises (docs/dsl/06-reductions.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson06 import checks

PAGE = "dsl/06-reductions.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_column_sum",
        kind="write",
        title="a strided column sum",
        check=checks.column_sum,
        page=PAGE,
        untouched="was never written",
        hints=(
            "The tile's offsets are rows[:, None] * stride_r + cols[None, :] * stride_c, "
            "its mask one comparison per axis joined by &, and other=0.0 (the identity of "
            "+). Until the kernel stores, out still holds the poison.",
            "axis names the dimension that disappears: tl.sum(acc, axis=0) adds down the "
            "rows and leaves BLOCK_C column sums.",
            "The store's mask is cols < n_cols: the last program's columns hang over the end.",
        ),
    ),
    "2": Exercise(
        slug="ex2_row_min",
        kind="bughunt",
        title="the row minimum of positive numbers",
        check=checks.row_min,
        page=PAGE,
        cites=("https://github.com/flagos-ai/FlagGems/issues/3716",),
        untouched="the load has a mask and no other=",
        hints=(
            "The tile has BLOCK elements and the row only n_cols. What do the other "
            "BLOCK - n_cols elements hold when tl.load is given a mask and no other=?",
            'Pad with the identity of min: other=float("inf"), a value that never wins. '
            "other=0.0 would not do: 0.0 wins the minimum of a row of positive numbers.",
        ),
    ),
    "3": Exercise(
        slug="ex3_argmin",
        kind="write",
        title="a row argmin with your own combine",
        check=checks.argmin,
        page=PAGE,
        untouched="wrong value at idx_out",
        hints=(
            "Pair 1 wins when v1 < v2, or when v1 == v2 and i1 < i2. Return "
            "tl.where(keep_1, v1, v2) and tl.where(keep_1, i1, i2).",
            'The padding must never be the minimum: other=float("inf"), the identity of '
            "min. With 0.0, a row of positive values finds its minimum in the padding.",
        ),
    ),
}
