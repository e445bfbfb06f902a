"""``python -m exercises list | check 04.1 [--solution] | hint 04.1 N`` (see __init__.py)."""

from __future__ import annotations

import argparse
import sys

# checking first: without a GPU it switches the interpreter on before triton is imported.
from exercises import checking  # isort: skip
from exercises import all_exercises


def find(ex_id: str):
    found = all_exercises()
    if ex_id not in found:
        known = ", ".join(found)
        sys.exit(f"no exercise {ex_id!r}; there are: {known}")
    return found[ex_id]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m exercises")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every exercise, its kind and its file")
    check = sub.add_parser("check", help="check your file: PASS, or the first thing wrong")
    check.add_argument("id", help="lesson.number, e.g. 04.1")
    check.add_argument("--solution", action="store_true", help="check the solution instead")
    hint = sub.add_parser("hint", help="print one hint")
    hint.add_argument("id")
    hint.add_argument("n", type=int)
    args = parser.parse_args(argv)

    if args.command == "list":
        for ex_id, ex in all_exercises().items():
            path = ex.starter.relative_to(checking.ROOT)
            print(f"{ex_id:6} {ex.kind:8} {ex.title:40} {path}")
        return 0
    ex = find(args.id)
    if args.command == "hint":
        if not 1 <= args.n <= len(ex.hints):
            sys.exit(f"{ex.id} has hints 1 to {len(ex.hints)}")
        print(f"Hint {args.n} of {len(ex.hints)} for {ex.id} {ex.title}:\n{ex.hints[args.n - 1]}")
        return 0
    where = "the interpreter (CPU)" if checking.INTERPRETED else "the GPU"
    print(f"checking {ex.solution if args.solution else ex.starter} on {where} ...", flush=True)
    outcome = checking.run(ex, solution=args.solution)
    print(f"{outcome.message}  [{outcome.seconds:.1f} s]")
    return 0 if outcome.passed else 1


if __name__ == "__main__":
    sys.exit(main())
