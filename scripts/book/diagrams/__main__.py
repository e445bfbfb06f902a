"""python -m scripts.book.diagrams [--check] [NAME ...]: write (or check) the SVG files."""

from __future__ import annotations

import sys

from scripts.book.diagrams import OUT, names, render


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = [a for a in argv if not a.startswith("--")] or names()
    stale = []
    for name in wanted:
        text = render(name)
        path = OUT / f"{name}.svg"
        if check:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("out of date (run python -m scripts.book.diagrams):", " ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
