"""The book's exercises: a starter file per exercise, its checker, hints and a solution.

Layout (one folder per lesson, found by discovery; adding a lesson's exercises edits no
shared file):

    exercises/checking.py                the shared helpers every checker uses
    exercises/lessonNN/__init__.py       EXERCISES = {"1": Exercise(...), ...}
    exercises/lessonNN/exK_NAME.py       the starter the reader edits
    exercises/lessonNN/checks.py         the check functions (they launch the reader's kernel)
    exercises/solutions/lessonNN/exK_NAME.py   the solution, with the starter's names

Run ``python -m exercises list``, ``python -m exercises check 04.1`` (``make check
EX=04.1``) or ``python -m exercises hint 04.1 2``. Nothing here needs the network or a GPU:
without one, the kernels run under the Triton interpreter.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

HERE = Path(__file__).resolve().parent


def lessons() -> list[str]:
    """The lessons that have exercises, "01" ... "14", in order."""
    return sorted(
        m.name.removeprefix("lesson")
        for m in pkgutil.iter_modules([str(HERE)])
        if m.ispkg and m.name.startswith("lesson")
    )


def all_exercises() -> dict:
    """Every exercise, keyed "04.1", in lesson order then number order."""
    found = {}
    for lesson in lessons():
        module = importlib.import_module(f"exercises.lesson{lesson}")
        for number, ex in sorted(module.EXERCISES.items(), key=lambda kv: int(kv[0])):
            found[f"{lesson}.{number}"] = ex.bind(lesson, number)
    return found
