"""13 · Autotuning and num_stages: the software pipeline of the matmul's K loop, with
num_stages buffers in shared memory (Triton 3.6 on the H100 allocates exactly
num_stages x (BM*BK + BK*BN) x 2 bytes for the bf16 matmul: 96 KiB at 128 x 128 x 64 with
3 stages, 128 KiB with 4, as the compiled kernels in matmul_configs report)."""

from scripts.book.diagrams.svg import Drawing

STAGES, BM, BN, BK, ELEM = 3, 128, 128, 64, 2
ITERS = 5


def draw() -> Drawing:
    per_stage = (BM * BK + BK * BN) * ELEM // 1024
    d = Drawing(
        "pipeline-stages",
        470,
        f"num_stages = {STAGES}: the loads of later K steps in flight while one is multiplied",
        f"""With num_stages = {STAGES} the compiler keeps {STAGES} buffers in shared memory,
        each holding one K step's tile of a and tile of b: ({BM} × {BK} + {BK} × {BN}) × 2
        bytes = {per_stage} KiB in bf16, {STAGES * per_stage} KiB in all. Before the loop
        it issues the loads of steps 0 and 1. In iteration i the tensor cores multiply the
        tiles of step i from buffer i mod 3 while the loads of steps i + 1 and i + 2 are in
        flight; the load of step i + 2 goes into the buffer that iteration i - 1 has just
        finished with. With 4 stages the buffers take {4 * per_stage} KiB: two programs of
        {STAGES * per_stage} KiB fit in an SM's 228 KB of shared memory, but only one of
        {4 * per_stage} KiB.""",
    )
    d.text(8, 18, f"num_stages = {STAGES}: {STAGES} buffers in shared memory", 13, "d-b")
    d.text(8, 38, "shared memory = num_stages × (BM·BK + BK·BN) × 2 B", 12, "d-mono")
    d.text(
        8,
        56,
        f"= {STAGES} × ({BM}·{BK} + {BK}·{BN}) × 2 B = {STAGES} × {per_stage} KiB"
        f" = {STAGES * per_stage} KiB",
        12,
        "d-mono",
    )
    x0, cw, top, rh = 76, 104, 92, 30
    for b in range(STAGES):
        d.text(x0 + (b + 0.5) * cw, top - 8, f"buffer {b}", 12, "d-b", "middle")
    rows = [("before", {0: ("load", 0), 1: ("load", 1)})]
    for i in range(ITERS):
        rows.append(
            (
                f"i = {i}",
                {
                    i % STAGES: ("dot", i),
                    (i + 1) % STAGES: ("wait", i + 1),
                    (i + 2) % STAGES: ("load", i + 2),
                },
            )
        )
    for r, (label, cells) in enumerate(rows):
        y = top + r * rh
        d.text(8, y + 19, label, 12, "d-mono", room=64)
        for b in range(STAGES):
            x = x0 + b * cw + 2
            kind, step = cells.get(b, (None, None))
            if kind is None:
                d.rect(x, y + 2, cw - 4, rh - 4, "d-off")
                d.text(x + (cw - 4) / 2, y + 19, "free", 12, "d-t2", "middle")
            elif kind == "dot":
                d.rect(x, y + 2, cw - 4, rh - 4, "d-blue-s")
                d.text(x + (cw - 4) / 2, y + 19, f"tl.dot k={step}", 12, "d-ti d-b", "middle")
            else:
                d.rect(x, y + 2, cw - 4, rh - 4, "d-orange")
                text = f"load k={step}" if kind == "load" else f"k={step} in flight"
                d.text(
                    x + (cw - 4) / 2,
                    y + 19,
                    text,
                    12,
                    "d-b" if kind == "load" else "",
                    "middle",
                    room=cw - 6,
                )
    y = top + len(rows) * rh + 8
    d.text(8, y + 14, "time runs down the rows", 12, "d-t2")
    both, four = STAGES * per_stage, 4 * per_stage
    notes = [
        "In iteration i the tensor cores multiply step i while the",
        f"loads of steps i + 1 and i + {STAGES - 1} are in flight: num_stages − 1",
        "steps ahead. Step i's buffer then takes step i + 3's load.",
        f"4 stages: 4 × {per_stage} = {four} KiB. Two programs of {both} KiB",
        f"fit in an SM's 228 KB of shared memory; one of {four} KiB",
        "leaves no room for a second.",
    ]
    for k, line in enumerate(notes):
        d.text(8, y + 40 + 18 * k + (8 if k >= 3 else 0), line, 12, room=384)
    d.height = y + 40 + 18 * len(notes) + 8
    return d
