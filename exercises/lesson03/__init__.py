"""Lesson 03's exercises (docs/model/03-what-jit-does.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson03 import checks

PAGE = "model/03-what-jit-does.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_first_call",
        kind="predict",
        title="what the first call costs",
        check=checks.first_call,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            'Write one of the four ranges, with the quotes: ANSWER = "10 to 100 ms".',
            "The first call runs the whole pipeline of this page: Python to Triton IR, the "
            "MLIR passes, LLVM, ptxas, and writing each stage to the cache folder, before "
            "the kernel runs at all.",
        ),
    ),
    "2": Exercise(
        slug="ex2_load_width",
        kind="predict",
        title="how wide is a load?",
        check=checks.load_width,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write a number of bits into each: 32, 64 or 128.",
            "A 128-bit load reads four floats that must start on a 16-byte boundary. The "
            "compiler can prove that only for what it was told is a multiple of 16: the "
            "pointers always, n only when it is one.",
        ),
    ),
    "3": Exercise(
        slug="ex3_constexpr_flag",
        kind="write",
        title="one kernel, two versions",
        check=checks.constexpr_flag,
        page=PAGE,
        untouched="was never written",
        hints=(
            "A plain Python if on RELU works inside the kernel because RELU is a "
            "tl.constexpr. tl.maximum(x, 0.0) and x * tl.sigmoid(x) compute the two; store "
            "y.to(out_ptr.dtype.element_ty) with the mask.",
            "Store with the mask: the last tile hangs over the end of out.",
        ),
    ),
}
