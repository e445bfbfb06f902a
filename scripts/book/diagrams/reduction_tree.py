"""06 · Reductions: what tl.sum(acc, axis=1) becomes for the widest rows' 1 x 4,096 tile
on 4 warps: partials per thread, a 5-step butterfly of shuffles in each warp (xor 16, 8,
4, 2, 1, the order Triton's lowering uses), one value per warp through shared memory, a
barrier, and 2 more shuffles over the 4 warp totals (7 in all, as the PTX test counts)."""

from scripts.book.diagrams.svg import Drawing

LANES, WARPS, PER_THREAD = 32, 4, 32


def draw() -> Drawing:
    steps = [16, 8, 4, 2, 1]
    d = Drawing(
        "reduction-tree",
        540,
        "How tl.sum combines a tile: per thread, across a warp, across warps",
        f"""A 1 by 4,096 tile on {WARPS} warps: each of the {WARPS * LANES} threads holds
        {PER_THREAD} elements. Step 1: each thread adds its own {PER_THREAD} elements into
        one partial, with no other thread involved. Step 2: in each warp, five butterfly
        shuffles, with partners lane xor 16, 8, 4, 2 and 1, each add a partner's partial;
        after them the sum that lane 0 holds covers 2, 4, 8, 16 and finally all 32 lanes.
        Step 3: warps cannot shuffle with each other, so each warp writes its total to
        shared memory, a barrier waits until all {WARPS} have written, and two more
        shuffles, xor 2 and xor 1, combine the {WARPS} totals into the row's sum. With
        one warp, step 3 disappears.""",
    )
    d.text(8, 18, "tl.sum(acc, axis=1): a 1 × 4,096 tile on 4 warps", 13, "d-b")

    # 1. Each thread's own elements.
    d.text(8, 46, f"1 · each thread adds its {PER_THREAD} elements", 13, "d-b")
    for i in range(PER_THREAD):
        d.rect(16 + 8 * i, 58, 8, 16, "d-blue", rx=0)
    d.arrow(16 + 8 * PER_THREAD + 6, 66, 16 + 8 * PER_THREAD + 40, 66, "d-ln", "d-head")
    d.rect(16 + 8 * PER_THREAD + 44, 56, 48, 20, "d-blue-s")
    d.text(16 + 8 * PER_THREAD + 68, 70, "partial", 12, "d-ti", "middle")
    d.text(
        8, 94, f"{WARPS * LANES} threads × {PER_THREAD} = 4,096 elements, no exchange", 12, "d-t2"
    )

    # 2. The butterfly in one warp: lane 0's partner at each step, and the lanes its sum
    # covers after the step.
    d.text(8, 124, "2 · in each warp: 5 butterfly shuffles", 13, "d-b")
    x0, cw, top, gap = 64, 8.5, 150, 34
    for lane in (0, 8, 16, 24, 31):
        d.text(x0 + (lane + 0.5) * cw, top - 4, str(lane), 12, "d-t2", "middle")
    for k, step in enumerate(steps):
        y = top + 12 + k * gap
        covered = 1 << (k + 1)
        group = {lane for lane in range(LANES) if lane % (LANES // covered) == 0}
        for lane in range(LANES):
            d.rect(x0 + lane * cw, y, cw, 14, "d-blue-s" if lane in group else "d-blue", rx=0)
        d.text(8, y + 12, f"xor {step}", 12, "d-mono")
        a, b = x0 + 0.5 * cw, x0 + (step + 0.5) * cw  # lane 0 and its partner
        d.path(f"M{a} {y} C{a} {y - 10} {b} {y - 10} {b} {y}", "d-ln-o")
        label = "all 32" if covered == LANES else f"{covered} lanes"
        d.text(x0 + LANES * cw + 8, y + 12, label, 12, room=60)
    y = top + 12 + len(steps) * gap
    d.text(8, y, "each lane adds the partial of lane ^ step (shfl.sync.bfly)", 12, "d-t2")
    d.rect(8, y + 8, 12, 12, "d-blue-s", rx=0)
    d.text(26, y + 18, "the lanes whose partials lane 0's sum holds after the step", 12, "d-t2")

    # 3. Across warps: one value each through shared memory, a barrier, two more shuffles.
    y = y + 52
    d.text(8, y, "3 · across warps: shared memory and a barrier", 13, "d-b")
    wy = y + 12
    for w in range(WARPS):
        x = 16 + 94 * w
        d.rect(x, wy, 84, 24, "d-blue-s")
        d.text(x + 42, wy + 17, f"warp {w} total", 12, "d-ti", "middle", room=80)
        d.arrow(x + 42, wy + 24, x + 42, wy + 48, "d-ln", "d-head")
    sy = wy + 48
    d.rect(16, sy, 366, 26, "d-green")
    d.text(199, sy + 18, "shared memory: 4 values", 12, "d-b", "middle")
    by = sy + 44
    d.line(16, by, 382, by, "d-ln-o d-dash")
    d.label(199, by + 4, "barrier (bar.sync): every warp has written", 12, "d-to")
    d.arrow(199, by + 8, 199, by + 26, "d-ln", "d-head")
    d.rect(40, by + 26, 318, 26, "d-blue-s")
    d.text(
        199, by + 44, "2 more shuffles, xor 2 and xor 1: the sum", 12, "d-ti", "middle", room=310
    )
    d.text(8, by + 76, "With one warp, step 3 disappears: 5 shuffles in all, not 7.", 12, "d-t2")
    d.height = by + 84
    return d
