"""Lesson 05's exercises (docs/dsl/05-dot-and-tensor-cores.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson05 import checks

PAGE = "dsl/05-dot-and-tensor-cores.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_k_loop",
        kind="write",
        title="the K loop, with masks",
        check=checks.k_loop,
        page=PAGE,
        untouched="was never written",
        hints=(
            "a's tile is a_ptr + rows[:, None] * K + ks[None, :], b's is b_ptr + "
            "ks[:, None] * N + cols[None, :]. Until the kernel stores acc, c still holds "
            "the poison.",
            "Mask each load on both of its axes, with other=0.0: a padded k must add "
            "nothing to the sums, and a * 0 = 0 whatever the other tile holds there.",
            "The store's mask is rows < M and cols < N, built as a (BLOCK_M, BLOCK_N) tile.",
        ),
    ),
    "2": Exercise(
        slug="ex2_tf32",
        kind="bughunt",
        title="the fp32 product that is not fp32",
        check=checks.tf32,
        page=PAGE,
        cites=("https://github.com/triton-lang/triton/issues/1800",),
        untouched="inputPrecision is tf32:",
        hints=(
            "What does tl.dot do with fp32 inputs when input_precision is not given? The "
            "table of the three precisions above says.",
            'Pass input_precision="ieee" to tl.dot. ("tf32x3" would come close, at about '
            "21 bits, for less time.)",
        ),
    ),
    "3": Exercise(
        slug="ex3_bf16_over_ieee",
        kind="predict",
        title="what tensor cores buy",
        check=checks.bf16_over_ieee,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one number into ANSWER: 2, 5, 20 or 100.",
            "Compare the two roofs rather than the kernels: the fp32 FMA rate of the CUDA "
            "cores against the bf16 rate of the tensor cores, which this page sets side by "
            "side.",
        ),
    ),
}
