"""05 · tl.dot and tensor cores: one tl.dot of a K step, and the Hopper instructions it
becomes. The configuration is the one lesson 05 reads the PTX of (lesson 09's bf16
kernel: BLOCK_M = BLOCK_N = 128, BLOCK_K = 64, 4 warps): 8 wgmma.m64n128k16 per K step,
both operands from shared memory (the SASS shows HGMMA.64x128x16 with two descriptors)."""

from scripts.book.diagrams.svg import Drawing

BM, BN, BK, MI, KI = 128, 128, 64, 64, 16  # the tile, and one instruction's M and K


def draw() -> Drawing:
    s = 1.25  # units per element
    count = (BM // MI) * (BK // KI)
    d = Drawing(
        "dot-wgmma",
        520,
        "One tl.dot on a K step, and the Hopper tensor-core instructions it becomes",
        f"""acc = tl.dot(a, b, acc) multiplies a {BM} by {BK} tile of a by a {BK} by {BN}
        tile of b and adds the product into a {BM} by {BN} float32 accumulator. On an
        H100 the compiler splits it into wgmma instructions of shape m64 n128 k16: each
        takes a 64 by 16 piece of a and a 16 by 128 piece of b, both from shared memory,
        and adds their product into one 64 by 128 half of the accumulator, held in
        registers. The two halves times four slices of 16 along K make {count}
        instructions per K step. One warpgroup, 4 warps or 128 threads, issues each
        instruction together; every thread holds 64 float32 values of each half.""",
    )
    d.text(8, 18, "acc = tl.dot(a, b, acc)", 13, "d-mono d-b")
    d.text(
        8, 36, f"a: {BM} × {BK}, b: {BK} × {BN}, acc: {BM} × {BN} in fp32 (lesson 09,", 12, "d-t2"
    )
    d.text(8, 52, "bf16, 4 warps); highlighted: one wgmma instruction", 12, "d-t2")
    ax, cx, by = 64, 64 + BK * s + 12, 76
    cy = by + BK * s + 12
    aw, ah, bw, bh = BK * s, BM * s, BN * s, BK * s
    # b above acc, a to the left of acc, as in the product's picture.
    d.rect(cx, by, bw, bh, "d-box", rx=0)
    d.rect(cx, by + KI * s, bw, KI * s, "d-orange-s", rx=0)
    for k in range(1, BK // KI):
        d.line(cx, by + k * KI * s, cx + bw, by + k * KI * s, "d-ln d-thin")
    d.text(cx + bw + 6, by + 14, "b", 13, "d-b d-mono", room=40)
    d.rect(ax, cy, aw, ah, "d-box", rx=0)
    d.rect(ax + KI * s, cy, KI * s, MI * s, "d-orange-s", rx=0)
    for k in range(1, BK // KI):
        d.line(ax + k * KI * s, cy, ax + k * KI * s, cy + ah, "d-ln d-thin")
    d.line(ax, cy + MI * s, ax + aw, cy + MI * s, "d-ln")
    d.text(ax - 6, cy + 14, "a", 13, "d-b d-mono", "end")
    d.rect(cx, cy, bw, ah, "d-box", rx=0)
    d.rect(cx, cy, bw, MI * s, "d-orange", rx=0)
    d.line(cx, cy + MI * s, cx + bw, cy + MI * s, "d-ln")
    d.text(cx + bw + 6, cy + 14, "acc", 13, "d-b d-mono", room=60)
    d.text(cx + bw / 2, cy + MI * s / 2 + 5, "64 × 128, fp32", 12, "d-b", "middle")
    d.text(cx + bw / 2, cy + MI * s * 1.5 + 5, "64 × 128, fp32", 12, "", "middle")
    # Dimension marks.
    d.text(ax - 24, cy + ah + 16, f"BLOCK_K = {BK} = 4 × {KI}", 12, "d-t2", room=200)
    d.text(ax - 6, cy + MI * s / 2 + 5, "64", 12, "d-t2", "end")
    d.text(ax - 6, cy + MI * s * 1.5 + 5, "64", 12, "d-t2", "end")
    d.text(cx + bw / 2, by - 6, f"BLOCK_N = {BN}", 12, "d-t2", "middle")

    y = cy + ah + 46
    d.text(8, y, "one wgmma.m64n128k16 (orange):", 13, "d-b")
    lines = [
        "64 × 16 of a times 16 × 128 of b, added into one",
        "64 × 128 half of acc; a and b from shared memory,",
        "acc in registers",
        f"per K step: 2 halves × 4 slices of 16 = {count} of them",
        "issued by one warpgroup: 4 warps, 128 threads;",
        "each thread holds 64 fp32 values of each half",
    ]
    for i, line in enumerate(lines):
        d.text(8, y + 20 + 18 * i, line, 12, room=384)
    d.height = y + 20 + 18 * len(lines)
    return d
