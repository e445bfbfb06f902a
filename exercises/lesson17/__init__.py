"""Lesson 17's exercises (docs/llm/17-decoding-attention.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson17 import checks

PAGE = "llm/17-decoding-attention.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_combine",
        kind="write",
        title="merge the splits",
        check=checks.combine,
        page=PAGE,
        untouched="out[0, 0] was never written",
        hints=(
            "Weigh split s by `2 ** (lse_s - m)` with m the row's largest lse: subtracting "
            "m first keeps the largest weight at 1, where `2 ** lse_s` alone overflows "
            "float32 past 128 (the check has lse near 200). Then "
            "`out = sum_s(w_s * part_s) / sum_s(w_s)`.",
            "A row whose splits are all empty has every lse at -inf, so m is -inf and "
            "`lse - m` is NaN: subtract 0 there instead (`tl.where(m == float('-inf'), 0.0, "
            "m)`), and divide by 1 where the sum of the weights is 0. The row is then zeros.",
        ),
    ),
    "2": Exercise(
        slug="ex2_page_index",
        kind="bughunt",
        title="a block table read at the wrong column",
        check=checks.page_index,
        page=PAGE,
        untouched="with pages of 4 keys: wrong value at out[",
        cites=("https://github.com/ROCm/aiter/pull/5600",),
        hints=(
            "The block table has one entry per page, not one per key. Which column holds "
            "the page of key n, when a page holds `page_size` keys?",
            "Read the table at `offs_n // page_size`: "
            "`page = tl.load(table_ptr + offs_n // page_size, mask=mask, other=0)`.",
        ),
    ),
}
