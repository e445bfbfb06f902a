"""Lesson 07's exercises (docs/building/07-vector-add.md, "Exercises")."""

from exercises.checking import Exercise
from exercises.lesson07 import checks

PAGE = "building/07-vector-add.md"

EXERCISES = {
    "1": Exercise(
        slug="ex1_stride_guard",
        kind="bughunt",
        title="the guard that looks at one stride",
        check=checks.stride_guard,
        page=PAGE,
        cites=("https://github.com/NVIDIA/TransformerEngine/pull/2746",),
        untouched="silently wrong on x[:, :k]",
        hints=(
            "Take a contiguous (rows, 2k) tensor and slice x[:, :k]. What is its last "
            "stride, and where in memory is its element (1, 0)?",
            "The kernel needs a contiguous x. Check x.is_contiguous() and raise a "
            "ValueError that names x before anything is launched (or compute on "
            "x.contiguous(), and say so).",
        ),
    ),
    "2": Exercise(
        slug="ex2_launch",
        kind="write",
        title="write the launch",
        check=checks.launch_code,
        page=PAGE,
        untouched="launch raised NotImplementedError",
        hints=(
            "Four lines: out = torch.empty_like(x) if out is None; n = x.numel(); "
            "grid = ((n + block - 1) // block,); add_kernel[grid](x, y, out, n, "
            "BLOCK=block). Then return out.",
            "The grid is a tuple with one entry per axis, and the division rounds up: "
            "n // block programs would leave the ragged last tile unwritten.",
        ),
    ),
}
