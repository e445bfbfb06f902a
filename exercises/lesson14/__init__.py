"""Lesson 14's exercises (docs/performance/14-production.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson14 import checks

PAGE = "performance/14-production.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_strides",
        kind="bughunt",
        title="a wrapper silently wrong on a view",
        check=checks.strides,
        page=PAGE,
        untouched="on a slice with a step, x[:, ::2]: wrong value at out[",
        cites=(
            "https://github.com/pytorch/pytorch/issues/130243",
            "https://github.com/pytorch/executorch/pull/22192",
        ),
        hints=(
            "The kernel reads `x_ptr + 0, 1, 2, ... n - 1`. For which views are x's elements "
            "those n addresses, in order? Compare `x.t()` (dense, and `empty_like` keeps its "
            "layout) with `x[:, ::2]` (gaps between its elements).",
            "Before the launch, either copy a view that is not contiguous (`x = "
            'x.contiguous()`) or refuse it with `raise ValueError("scale: x must be '
            'contiguous ...")`. Either way the wrapper is never silently wrong.',
        ),
    ),
    "2": Exercise(
        slug="ex2_lean",
        kind="predict",
        title="what a lean launch costs",
        check=checks.lean,
        page=PAGE,
        untouched="no prediction yet",
        hints=(
            "Write one of 1, 1.25, 2, 3 or 5 into `ANSWER`.",
            "torch.add checks its arguments too, in C++. LeanAdd checks only what would make "
            "its compiled kernel wrong, then calls Triton's launcher directly. Which of the "
            "two does more work per call, and by how much?",
        ),
    ),
    "3": Exercise(
        slug="ex3_version",
        kind="bughunt",
        title="an out= that autograd cannot see",
        check=checks.version,
        page=PAGE,
        untouched="the backward ran anyway",
        cites=(
            "https://github.com/linkedin/Liger-Kernel/issues/272",
            "https://github.com/pytorch/pytorch/pull/96852",
        ),
        hints=(
            "How does autograd know that a tensor it saved was overwritten? What does every "
            "in-place torch op do that a Triton kernel writing through a pointer does not?",
            "After the launch, call `torch.autograd.graph.increment_version(out)`: the "
            "tensor's version counter goes up, and a backward that saved out raises instead "
            "of using the new values.",
        ),
    ),
}
