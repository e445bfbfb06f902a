"""Lesson 15's exercises (docs/llm/15-fused-linear-cross-entropy.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson15 import checks

PAGE = "llm/15-fused-linear-cross-entropy.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_label_smoothing",
        kind="write",
        title="label smoothing",
        check=checks.label_smoothing,
        page=PAGE,
        untouched="wrong value at loss[0]",
        hints=(
            "Keep `total`, the sum of the row's logits, next to `m` and `s` in pass 1. The "
            "padding was loaded as `-inf` for the maximum: add `tl.where(mask, z, 0.0)`. "
            "Then `loss = (1 - smoothing) * (lse - z_label) + smoothing * (lse - total / "
            "n_cols)`.",
            "In pass 2, every class loses `smoothing / n_cols` and the true class loses `1 - "
            "smoothing`: `p = tl.exp(z - lse) - smoothing / n_cols`, then `tl.where(cols == "
            "label, p - (1.0 - smoothing), p) * scale`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_every_row_ignored",
        kind="bughunt",
        title="a batch in which every row is ignored",
        check=checks.every_row_ignored,
        page=PAGE,
        untouched="with every row ignored",
        cites=(
            "https://github.com/nvidia-cosmos/cosmos-rl/pull/155",
            "https://github.com/pytorch/pytorch/issues/116349",
        ),
        hints=(
            "The kernel takes `scale` from the host: 1 / (rows not ignored) for a mean. What "
            "is it when no row counts?",
            "In IEEE arithmetic `inf * 0` is NaN, not 0, so multiplying by a 0/1 mask cannot "
            "zero a row whose scale is inf. Select instead: `g = tl.where(ignored, 0.0, g)`.",
        ),
    ),
    "3": Exercise(
        slug="ex3_memory",
        kind="predict",
        title="what the fused step saves",
        check=checks.memory,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 2, 4, 8, 16 or 32 into `ANSWER`.",
            "Eager holds tensors of N x V (the logits, and what its backward keeps and "
            "makes); the fused step holds grad_weight (V x H), grad_x (N x H) and one chunk "
            "of logits. At N = 16,384, how large is N x V x 2 bytes next to V x H x 2?",
        ),
    ),
}
