"""02 · Programs and tiles: a grid dealt onto SMs over time, in waves.

An illustration, not a measurement: 4 SMs that hold 2 programs each, a grid of 20
programs whose run times differ a little, and each program started, in id order, in the
first slot to come free (the hardware's scheduler makes that choice on a real GPU).
"""

from scripts.book.diagrams.svg import Drawing

SMS, SLOTS, PROGRAMS = 4, 2, 20
TIMES = [10, 11, 10, 12, 11, 10, 12, 11, 11, 10, 12, 10, 11, 12, 10, 11, 12, 10, 11, 10]


def schedule() -> list[tuple[int, int, float, float]]:
    """(program, slot, start, end) for every program: each in turn takes the slot that
    frees first (the lowest-numbered one on a tie)."""
    free = [0.0] * (SMS * SLOTS)
    out = []
    for p, t in zip(range(PROGRAMS), TIMES, strict=True):
        slot = min(range(len(free)), key=lambda s: (free[s], s))
        out.append((p, slot, free[slot], free[slot] + t))
        free[slot] += t
    return out


def draw() -> Drawing:
    runs = schedule()
    first_wave = SMS * SLOTS
    d = Drawing(
        "grid-waves",
        364,
        f"A grid of {PROGRAMS} programs dealt onto {SMS} SMs over time",
        f"""An illustration with {SMS} SMs that each hold {SLOTS} programs at a time. The
        first {first_wave} programs, 0 to {first_wave - 1}, start at once: that is the
        first wave. Each later program starts in the first slot that comes free, so
        program {first_wave} starts as soon as the quickest of the first wave finishes.
        At the end the last programs run while the other slots sit idle. An H100 has
        132 SMs, and how many programs each holds at once depends on the programs'
        registers, shared memory and warps.""",
    )
    d.text(8, 18, f"A grid of {PROGRAMS} programs on {SMS} SMs", 13, "d-b")
    d.text(8, 36, f"each SM holds {SLOTS} programs at a time (an illustration)", 12, "d-t2")
    x0, x1, top, row, gap = 60, 388, 50, 22, 10
    end = max(e for *_, e in runs)
    scale = (x1 - x0) / end

    def y_of(slot: int) -> float:
        return top + (slot // SLOTS) * (SLOTS * row + gap) + (slot % SLOTS) * row

    for sm in range(SMS):
        y = y_of(sm * SLOTS)
        d.rect(x0 - 4, y - 3, x1 - x0 + 8, SLOTS * row + 4, "d-surf", rx=3)
        d.text(8, y + row + 4, f"SM {sm}", 12, "d-b")
    for p, slot, start, stop in runs:
        x, y = x0 + start * scale, y_of(slot)
        wave1 = p < first_wave
        d.rect(x + 1, y, (stop - start) * scale - 2, row - 4, "d-blue-s" if wave1 else "d-blue")
        d.text(
            x + (stop - start) * scale / 2,
            y + 13,
            str(p),
            12,
            "d-ti d-b" if wave1 else "d-b",
            "middle",
        )
    axis = y_of(SMS * SLOTS - 1) + row + 10
    d.arrow(x0, axis, x1, axis, "d-ln", "d-head")
    d.text(x1, axis + 18, "time", 12, "d-t2", "end")
    y = axis + 44
    d.rect(8, y - 11, 22, 14, "d-blue-s", rx=2)
    d.text(38, y, f"first wave: programs 0–{first_wave - 1} start at once", 12, room=350)
    d.rect(8, y + 9, 22, 14, "d-blue", rx=2)
    d.text(38, y + 20, "later programs: each takes the first slot to free up", 12, room=350)
    d.text(8, y + 46, "At the end, slots sit idle while the last programs finish.", 12, "d-t2")
    return d
