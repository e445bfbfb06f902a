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
}
