"""Lesson 02's exercises (docs/model/02-programs-and-tiles.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson02 import checks

PAGE = "model/02-programs-and-tiles.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_store_mask",
        kind="bughunt",
        title="the mask that was never used",
        check=checks.store_mask,
        page=PAGE,
        cites=("https://github.com/Dao-AILab/flash-attention/pull/2790",),
        untouched="wrote outside out",
        hints=(
            "The check fences out with poison on both sides. Which elements of the last "
            "tile lie past the end of out, and which line touches them?",
            "The load is masked; the store is not. Pass the same mask to tl.store.",
        ),
    ),
    "2": Exercise(
        slug="ex2_several_tiles",
        kind="write",
        title="one program, several tiles",
        check=checks.several_tiles,
        page=PAGE,
        untouched="was never written",
        hints=(
            "Program pid owns tiles pid * TILES + 0, 1, ..., TILES - 1, so tile t starts "
            "at element (pid * TILES + t) * BLOCK. Add tl.arange(0, BLOCK) for the tile's "
            "offsets, and mask them against n as before.",
        ),
    ),
    "3": Exercise(
        slug="ex3_programs_per_sm",
        kind="predict",
        title="how many programs fit on an SM?",
        check=checks.programs_per_sm,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Three limits, and the least of them wins: threads (2,048 per SM, 64 per "
            "program), program slots (32 per SM), registers (65,536 per SM).",
            "Registers go to a warp, not a thread: registers per thread x 32, rounded up to "
            "a multiple of 256. Divide 65,536 by that for the warps that fit, then by the "
            "program's 2 warps.",
        ),
    ),
}
