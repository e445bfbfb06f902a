"""Lesson 01's exercises (docs/model/01-why-triton.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson01 import checks

PAGE = "model/01-why-triton.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_one_pass",
        kind="write",
        title="one pass instead of three",
        check=checks.one_pass,
        page=PAGE,
        untouched="out[0] was never written",
        hints=(
            "Each input is one tl.load through x_ptr + offsets with the mask; convert it "
            "with .to(tl.float32) so that fp16 and bf16 are computed in fp32. Until the "
            "kernel stores, out still holds the poison.",
            "relu is tl.maximum(v, 0.0). Store with the same mask, and round once at the "
            "store: result.to(out_ptr.dtype.element_ty).",
        ),
    ),
    "2": Exercise(
        slug="ex2_count_bytes",
        kind="predict",
        title="count the bytes",
        check=checks.count_bytes,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Call T the bytes of one bf16 tensor of y's shape: 4096 x 8192 x 2 bytes, "
            "about 67 MB. Every answer is a whole number of T.",
            "Count per kernel: what it writes, and what it reads that an earlier kernel "
            "wrote (or the mask). Eagerly the product writes T, GELU reads T and writes T, "
            "the multiply reads 2 T and writes T.",
        ),
    ),
}
