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

From Python (a notebook cell: the labs, docs/labs/, walk the exercises this way),
``exercises.check("04.1")`` prints what the command prints and returns True or False,
``exercises.check("04.3", ANSWER=256)`` checks a prediction given in the cell instead of
the file (a name left at None is read from the file), and ``exercises.hint("04.1", 2)``
prints a hint. Neither raises nor exits, for a wrong answer, an unknown exercise or a
check that stops: each says so and returns.
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


def _find(ex_id: str):
    """The exercise ``ex_id``, or None after saying which exercises there are."""
    found = all_exercises()
    if ex_id not in found:
        print(f"no exercise {ex_id!r}; there are: {', '.join(found)}")
        return None
    return found[ex_id]


def check(ex_id: str, *, solution: bool = False, **answers) -> bool:
    """Check exercise ``ex_id`` as ``python -m exercises check ex_id`` does, print the same
    answer (PASS, or the first thing wrong and the hint to read), and return whether it
    passed. Keyword arguments stand in for the names of the file: a prediction written in
    the cell (``check("04.3", ANSWER=256)``) is checked the way the file's would be; one
    left at None is read from the file."""
    # checking first: without a GPU it switches the interpreter on before triton is imported.
    from exercises import checking

    ex = _find(ex_id)
    if ex is None:
        return False
    answers = {name: value for name, value in answers.items() if value is not None}
    path = ex.solution if solution else ex.starter
    where = "the interpreter (CPU)" if checking.INTERPRETED else "the GPU"
    given = ", ".join(f"{k} = {v!r}" for k, v in answers.items())
    mine = f" with {given}" if given else ""
    print(f"checking {path.relative_to(checking.ROOT)}{mine} on {where} ...", flush=True)
    try:
        outcome = checking.run(ex, solution=solution, answers=answers)
    except Exception as exc:  # noqa: BLE001 - a notebook cell must not stop the lab
        print(f"FAIL {ex.id} {ex.title}: the check itself stopped: {type(exc).__name__}: {exc}")
        return False
    print(f"{outcome.message}  [{outcome.seconds:.1f} s]")
    return outcome.passed


def hint(ex_id: str, n: int) -> None:
    """Print hint ``n`` of exercise ``ex_id``, as ``python -m exercises hint ex_id n`` does."""
    ex = _find(ex_id)
    if ex is None:
        return
    if not 1 <= n <= len(ex.hints):
        print(f"{ex.id} has hints 1 to {len(ex.hints)}")
        return
    print(f"Hint {n} of {len(ex.hints)} for {ex.id} {ex.title}:\n{ex.hints[n - 1]}")


def reader_module(ex_id: str, solution: bool = False):
    """The reader's file of exercise ``ex_id`` (or its solution), imported fresh, so that a
    notebook can time the reader's kernel once its check passes."""
    from exercises import checking

    ex = all_exercises()[ex_id]
    return checking.load(ex.solution if solution else ex.starter)
