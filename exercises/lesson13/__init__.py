"""Lesson 13's exercises (docs/performance/13-autotuning.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson13 import checks

PAGE = "performance/13-autotuning.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_reset_to_zero",
        kind="bughunt",
        title="an autotuned sum that adds up its timing runs",
        check=checks.reset_to_zero,
        page=PAGE,
        untouched="times the sum",
        cites=(
            "https://github.com/triton-lang/triton/issues/4217",
            "https://github.com/triton-lang/triton/issues/6547",
        ),
        hints=(
            "How many times does the first call for a new n run the kernel, counting the "
            "autotuner's timing runs of every config? What does each run do to out?",
            "Tell the autotuner which argument to zero before each run: "
            '`reset_to_zero=["out_ptr"]` in `@triton.autotune` (`restore_value` is the choice'
            " for a kernel that updates its output in place).",
        ),
    ),
    "2": Exercise(
        slug="ex2_stages",
        kind="predict",
        title="how deep to pipeline",
        check=checks.stages,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write 3, 4 or 5 into `ANSWER`.",
            "Count programs per SM by shared memory: 228 KiB / (the program's shared memory +"
            " 1 KiB). Which stage counts leave room for a second program, and what does a "
            "second program do while the first waits for its loads?",
        ),
    ),
    "3": Exercise(
        slug="ex3_key",
        kind="bughunt",
        title="an autotune key that forgets a shape",
        check=checks.key,
        page=PAGE,
        untouched="this call ran with BLOCK = 128",
        cites=(
            "https://github.com/IBM/triton-dejavu/issues/1",
            "https://github.com/tile-ai/tilelang/issues/1250",
        ),
        hints=(
            "The autotuner stores its choice under the values of the key's arguments. Which "
            "argument decides whether a BLOCK is usable, and is it in the key? What happens "
            "on a call whose key values were seen before?",
            "Put every argument that changes which configs are usable, or which is fastest, "
            'into the key: `key=["n_rows", "n_cols"]`.',
        ),
    ),
}
