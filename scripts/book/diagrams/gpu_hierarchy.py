"""02 · Programs and tiles: the H100 SXM from the GPU down to one SM, with its limits.

Numbers: NVIDIA H100 Tensor Core GPU datasheet and architecture whitepaper (132 SMs on the
SXM5 board, 50 MB L2, 80 GB HBM3, four partitions per SM each with a warp scheduler, a
16,384 x 32-bit register file, 32 FP32 units and one tensor core) and the Hopper tuning
guide, section "Occupancy" (64 warps, 32 thread blocks, 64K registers and up to 228 KB of
shared memory per SM, 227 KB per block; 256 KB of combined L1 and shared memory).
"""

from scripts.book.diagrams.svg import Drawing


def draw() -> Drawing:
    d = Drawing(
        "gpu-hierarchy",
        592,
        "The H100 SXM, from the GPU to one SM (datasheet numbers)",
        """The GPU chip holds 132 SMs and an L2 cache of 50 MB that all SMs share; HBM3
        memory, 80 GB, sits off the chip. One SM is split into four partitions, each with
        a warp scheduler, 16,384 32-bit registers (64 KB), 32 FP32 units and one tensor
        core: 65,536 registers, 256 KB, per SM. The SM's 256 KB of L1 cache and shared
        memory are one block, of which up to 228 KB can be shared memory (227 KB for one
        program). An SM holds at most 2,048 threads (64 warps) and at most 32 programs
        (thread blocks) at a time.""",
    )
    d.text(12, 18, "H100 SXM (datasheet numbers)", 13, "d-b")
    d.rect(8, 26, 384, 518, "d-box", rx=6)
    d.text(20, 46, "the GPU chip", 12, "d-t2")
    # A row of SMs standing for all 132; the first is opened up below.
    for i in range(9):
        d.rect(20 + 30 * i, 54, 24, 20, "d-blue-s" if i == 0 else "d-blue", rx=2)
    d.text(20 + 30 * 9 + 2, 69, "… 132 SMs", 12, room=100)
    d.line(20, 74, 20, 98, "d-ln d-dash d-thin")
    d.line(44, 74, 380, 98, "d-ln d-dash d-thin")

    d.rect(20, 98, 360, 382, "d-blue", rx=5)
    d.text(32, 118, "one SM (streaming multiprocessor)", 13, "d-b")
    for k in range(4):
        x, y = 32 + 172 * (k % 2), 128 + 116 * (k // 2)
        d.rect(x, y, 164, 108, "d-box")
        lines = ["1 warp scheduler", "16,384 registers (64 KB)", "32 FP32 units", "1 tensor core"]
        d.text(x + 10, y + 20, f"partition {k + 1}", 12, "d-b", room=148)
        for i, line in enumerate(lines):
            d.text(x + 10, y + 40 + 20 * i, line, 12, room=148)
    d.rect(32, 362, 336, 46, "d-green")
    d.text(44, 381, "L1 cache + shared memory: 256 KB", 12, "d-b", room=316)
    d.text(44, 399, "up to 228 KB of it shared (227 KB for one program)", 12, room=316)
    d.text(32, 428, "registers: 4 × 64 KB = 256 KB (65,536 of 32 bits)", 12, room=340)
    d.text(32, 448, "at most 2,048 threads (64 warps) at a time,", 12, room=340)
    d.text(32, 466, "in at most 32 programs (thread blocks)", 12, room=340)

    d.rect(20, 492, 360, 40, "d-green")
    d.text(200, 517, "L2 cache · 50 MB · shared by all 132 SMs", 13, "d-b", "middle", room=340)
    d.line(200, 544, 200, 554, "d-ln")
    d.rect(8, 554, 384, 34, "d-orange", rx=6)
    d.text(200, 576, "HBM3 · 80 GB · off the chip", 13, "d-b", "middle", room=360)
    return d
