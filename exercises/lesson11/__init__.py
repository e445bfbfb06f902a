"""Lesson 11's exercises (docs/building/11-rmsnorm.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson11 import checks

PAGE = "building/11-rmsnorm.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_layernorm",
        kind="write",
        title="LayerNorm's forward",
        check=checks.layernorm,
        page=PAGE,
        untouched="y[0, 0] was never written",
        hints=(
            "`mean = tl.sum(x, axis=0) / n_cols`: the padding elements were loaded as 0 and "
            "add nothing. Load w and b like x (masked, `other=0.0`), and store y in y's dtype"
            " with `y.to(y_ptr.dtype.element_ty)`.",
            "The padding elements of `x - mean` hold -mean, not 0: zero them with "
            "`tl.where(mask, x - mean, 0.0)` before you square and sum. Then `rstd = "
            "tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)` and `y = d * rstd * w + b`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_dy_stride",
        kind="bughunt",
        title="a gradient laid out unlike x",
        check=checks.dy_stride,
        page=PAGE,
        untouched="with dy a slice of a wider tensor: wrong value at dx[",
        cites=(
            "https://github.com/flagos-ai/FlagGems/issues/1068",
            "https://github.com/flagos-ai/FlagGems/pull/1084",
        ),
        hints=(
            "The kernel takes two row strides. Which tensors are read through which? Where "
            "does `row * x_stride` point in a dy whose rows are `2 * n_cols + 3` apart, or 0 "
            "apart?",
            "Read dy through its own stride: `dy_ptr + row * dy_stride + cols`.",
        ),
    ),
    "3": Exercise(
        slug="ex3_against_compile",
        kind="predict",
        title="the tuned backward against torch.compile",
        check=checks.against_compile,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 0.8, 1, 1.2, 1.5 or 2 into `ANSWER`.",
            "Both backwards read x and dy and write dx: the same bytes. At copy speed they "
            "would tie; the ratio measures how much closer to copy one gets than the other.",
        ),
    ),
}
