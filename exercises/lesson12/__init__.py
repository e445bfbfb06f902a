"""Lesson 12's exercises (docs/flagship/12-flash-attention.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson12 import checks

PAGE = "flagship/12-flash-attention.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_causal",
        kind="write",
        title="the causal mask",
        check=checks.causal,
        page=PAGE,
        untouched="wrong value at out[0, 0, ",
        hints=(
            "Query `offs_m[i]` sees key `start_n + offs_n[j]` when "
            "`offs_m[i] >= start_n + offs_n[j]`. Set the other scores to `-inf` with "
            "`tl.where` before `tl.max`: `exp2(-inf) = 0`, so they add nothing to `l_i` or "
            "`acc`.",
            "This program's last query is `start_m + BLOCK_M - 1`, so no key from "
            "`start_m + BLOCK_M` on is visible to any of its queries: "
            "`range(0, start_m + BLOCK_M, BLOCK_N)`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_causal_backward",
        kind="bughunt",
        title="a backward that forgot the mask",
        check=checks.causal_backward,
        page=PAGE,
        untouched="wrong value at dV[",
        cites=(
            "https://github.com/triton-lang/triton/issues/4541",
            "https://github.com/triton-lang/triton/issues/7216",
        ),
        hints=(
            "`dV = P^T dO`, and P is the forward's P. Which entries of the forward's P were "
            "0? Are they 0 in `pt`?",
            "Mask `pt` as the forward masked P, transposed: `tl.where(offs_m[None, :] >= "
            "offs_n[:, None], pt, 0.0)`. Then query blocks that end before `start_n` add "
            "nothing, and the loop can start at `start_n`'s block.",
        ),
    ),
    "3": Exercise(
        slug="ex3_memory",
        kind="predict",
        title="what flash attention saves",
        check=checks.memory,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 2, 8, 32, 128 or 512 into `ANSWER`.",
            "Per head, the naive version holds n x n tensors and the kernels n x d ones. What"
            " is `n / d` here?",
        ),
    ),
}
