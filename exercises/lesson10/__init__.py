"""Lesson 10's exercises (docs/building/10-softmax.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson10 import checks

PAGE = "building/10-softmax.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_padding",
        kind="bughunt",
        title="softmax with the wrong padding",
        check=checks.padding,
        page=PAGE,
        untouched="wrong value at y[0, 0]",
        cites=("https://github.com/flagos-ai/FlagGems/issues/3716",),
        hints=(
            "Follow one padding element, a column past `n_cols`, through the max and the sum."
            " What does `exp(0 - m)` add to the sum?",
            'The padding must lose the max and add nothing to the sum: `other=float("-inf")` '
            "in the load, since `exp(-inf) = 0`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_online",
        kind="write",
        title="online softmax",
        check=checks.online,
        page=PAGE,
        untouched="wrong value at y[0, 0]: got inf",
        hints=(
            "`m_new = tl.maximum(m, tl.max(x, axis=0))`. Then s, and `m = m_new` at the end "
            "of the loop body: pass 2 reads both.",
            "s was summed relative to the old m. Multiplying it by `tl.exp(m - m_new)` moves "
            "it to the new maximum; then add `tl.sum(tl.exp(x - m_new), axis=0)`. On the "
            "first tile m is `-inf` and s is 0, so the product is 0 * 0.",
        ),
    ),
    "3": Exercise(
        slug="ex3_second_read",
        kind="predict",
        title="the second read, once rows outgrow the L2",
        check=checks.second_read,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write a percentage into `ANSWER`, a number such as 50 or 90.",
            "If the second read came from HBM, how many passes would the kernel move, and how"
            " many does its bandwidth count? That ratio is the most it can reach.",
        ),
    ),
}
