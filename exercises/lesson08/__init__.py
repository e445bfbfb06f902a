"""Lesson 08's exercises (docs/building/08-fused-activation.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson08 import checks

PAGE = "building/08-fused-activation.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_bias_gelu",
        kind="write",
        title="bias + GELU in one kernel",
        check=checks.bias_gelu,
        page=PAGE,
        untouched="out[0, 0] was never written",
        hints=(
            "Until the kernel stores, every element of `out` still holds the poison. Build "
            "the mask from one comparison per axis, `(rows < M)[:, None] & (cols < N)[None, :]`, "
            "and use it for the load of `x` and for the store.",
            "The bias is one row of N values: load it with `cols` (masked by `cols < N`) and add "
            "it as `b[None, :]`, so that every row of the tile gets it. `x` sits at "
            "`rows[:, None] * stride_xm + cols[None, :]`; `out` at "
            "`rows[:, None] * N + cols[None, :]`. "
            "GELU is `0.5 * v * (1 + tl.math.erf(v * 0.7071067811865476))`, in float32, and "
            "the store converts with `.to(out_ptr.dtype.element_ty)`.",
        ),
    ),
    "2": Exercise(
        slug="ex2_tanh_overflow",
        kind="bughunt",
        title="GELU's tanh, NaN for large inputs",
        check=checks.tanh_overflow,
        page=PAGE,
        untouched="is NaN for x =",
        cites=(
            "https://github.com/pytorch/executorch/issues/22323",
            "https://github.com/pytorch/pytorch/issues/186278",
        ),
        hints=(
            "The largest float32 is about 3.4e38 = e^88.7. For which `v` does `2u` pass 88.7, "
            "and what is `(e - 1) / (e + 1)` once `e` is inf?",
            "`0.5 * (1 + tanh(u))` equals `sigmoid(2u) = 1 / (1 + e^(-2u))`. Write it with "
            "`z = tl.exp(-2.0 * tl.abs(u))`, which never exceeds 1: `1 / (1 + z)` where `u >= 0`, "
            "`z / (1 + z)` where `u < 0` (`tl.where`), times `v`.",
        ),
    ),
    "3": Exercise(
        slug="ex3_speedup",
        kind="predict",
        title="what fusing buys",
        check=checks.speedup,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 1.5, 2, 2.33, 3 or 4 into `ANSWER`.",
            "The byte ratio is what fusing buys if every kernel runs at copy speed. Does a "
            "chain of three small passes, each a separate launch, run at copy speed?",
        ),
    ),
}
