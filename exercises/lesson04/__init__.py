"""Lesson 04's exercises (docs/dsl/04-loads-stores-masks.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson04 import checks

PAGE = "dsl/04-loads-stores-masks.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_transpose",
        kind="write",
        title="a transposing copy",
        check=checks.transpose,
        page=PAGE,
        untouched="out[0, 0] was never written",
        hints=(
            "The load is the one of tiles_kernel: offsets rows[:, None] * stride_r + "
            "cols[None, :] * stride_c, and a mask from one comparison per axis joined by &. "
            "Until the kernel stores, every element of out still holds the poison.",
            "x[r, c] goes to out[c, r], which sits c * n_rows + r elements into the "
            "contiguous out. Keep the tile's (BLOCK_R, BLOCK_C) shape and change only the "
            "offsets it is stored through: cols[None, :] * n_rows + rows[:, None].",
            "The store needs the same mask as the load: an element that was not loaded "
            "must not be stored, or the last tiles write past the end of out.",
        ),
    ),
    "2": Exercise(
        slug="ex2_row_offsets",
        kind="bughunt",
        title="rows past 2**31 elements",
        check=checks.row_offsets,
        page=PAGE,
        untouched="int32 overflow detected for operation mul",
        cites=("https://github.com/linkedin/Liger-Kernel/issues/1483",),
        hints=(
            "tl.program_id returns an int32, and stride_x arrives as an int32. What type is "
            "their product, and what happens to it once the row starts 2**31 elements in?",
            "Cast before multiplying, once: row = tl.program_id(axis=0).to(tl.int64). "
            "Everything computed from row is then int64.",
        ),
    ),
    "3": Exercise(
        slug="ex3_break_even",
        kind="predict",
        title="the smallest tile worth its programs",
        check=checks.break_even,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write a number into ANSWER: one of 32, 64, 128, 256, 512 or 1024.",
            "The two times are equal at BLOCK = C / (12 R). Below it the programs cost more; "
            "the answer is the first power of two above it.",
        ),
    ),
}
