"""Lesson 18's exercises (docs/llm/18-beyond-one-gpu.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson18 import checks

PAGE = "llm/18-beyond-one-gpu.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_read_peers",
        kind="write",
        title="read every rank's buffer",
        check=checks.read_peers,
        page=PAGE,
        untouched="wrong value at out[0]",
        hints=(
            "`tl.load(buffer_ptrs + rank)` gives rank's address as an int64; "
            "`.to(tl.pointer_type(out_ptr.dtype.element_ty))` makes it a pointer.",
            "Loop with `for rank in tl.static_range(WORLD):`, load `buffer + offsets` under "
            "the mask, convert to float32 and add it to `total`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_bytes_per_gpu",
        kind="predict",
        title="what one-shot costs on eight GPUs",
        check=checks.bytes_per_gpu,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write a number into ANSWER.",
            "One-shot: 7 whole tensors per GPU. Two-shot: 2 · 7/8 of one. Divide.",
        ),
    ),
}
