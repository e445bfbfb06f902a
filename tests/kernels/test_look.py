"""Lesson 03's "look at the compiler yourself" (kernels/_look.py): compiled for an H100
without a GPU, the vector add prints the memory instructions the page shows; on a GPU, the
launch returns the compiled kernel with every stage."""

import pytest

from tests.support import ROOT, compiled_python, requires_gpu

PAGE = ROOT / "docs" / "model" / "03-what-jit-does.md"
COMMAND = (
    '$ python -c "from kernels import _look, vector_add; '
    '_look.memory_instructions(vector_add.add_kernel, {n})"'
)


def printed_on_the_page(command: str) -> str:
    lines = PAGE.read_text().splitlines()
    start = lines.index(command) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("n", [4096])
def test_the_offline_compile_prints_what_the_page_says(n):
    script = COMMAND.format(n=n).removeprefix('$ python -c "').removesuffix('"')
    assert compiled_python(script, "lesson 03's example").rstrip("\n") == printed_on_the_page(
        COMMAND.format(n=n)
    )


def test_a_ragged_n_gets_scalar_loads():
    """Exercise 1's answer: n = 4100 is a multiple of 4 but not of 16."""
    script = COMMAND.format(n=4100).removeprefix('$ python -c "').removesuffix('"')
    out = compiled_python(script, "lesson 03's example")
    assert "ld.global.b32 x16" in out and "LDG.E x16" in out and "v4" not in out


@requires_gpu
def test_the_launch_returns_the_compiled_kernel():
    script = (
        "from kernels import _look, vector_add\n"
        "asm = _look.on_gpu(vector_add.add_kernel)\n"
        "print(sorted(k for k in asm if k != 'source'))\n"
        "print('ld.global.v4.b32' in asm['ptx'], 'LDG.E.128' in asm['sass'])\n"
    )
    lines = compiled_python(script, "lesson 03's example").splitlines()
    assert (
        lines[-2] == str(sorted(["cubin", "llir", "ptx", "ttgir", "ttir"])) or "sass" in lines[-2]
    )
    assert lines[-1] == "True True"
