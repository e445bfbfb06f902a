"""03 · What triton.jit does: the compiler's stages, what each decides, and the key of
``compiled.asm`` that shows it (Triton 3.6's NVIDIA backend: make_ttir, make_ttgir,
make_llir, make_ptx, make_cubin; ``asm["sass"]`` is disassembled from the cubin)."""

from scripts.book.diagrams.svg import Drawing

STAGES = [
    ("your @triton.jit function", None, "d-surf",
     ["Python, parsed to its AST; the arguments' dtypes,",
      "constexprs and divisibility by 16 key the compile"]),
    ("TTIR", 'asm["ttir"]', "d-box",
     ["operations on whole tiles; Python gone,",
      "every type fixed"]),
    ("TTGIR", 'asm["ttgir"]', "d-blue",
     ["a layout on every tile (which thread holds which",
      "elements), coalescing, shared memory, tensor-core",
      ["ops, software pipelining (", ("num_stages", "d-mono"), ")"]]),
    ("LLVM IR", 'asm["llir"]', "d-box",
     ["code for one thread: tiles become registers;",
      "shared memory allocated, barriers placed"]),
    ("PTX", 'asm["ptx"]', "d-box",
     ["NVIDIA's virtual assembly: each memory",
      ["instruction and its width (", ("ld.global.v4.b32", "d-mono"), ")"]]),
    ("cubin", 'asm["cubin"], asm["sass"]', "d-orange",
     ["machine code from ptxas (it ships with Triton);",
      ["registers allocated: ", ("n_regs", "d-mono"), ", ", ("n_spills", "d-mono")]]),
]  # fmt: skip


def draw() -> Drawing:
    d = Drawing(
        "compile-pipeline",
        560,
        "The stages of Triton's compiler, and where to read each one",
        """On the first call with a new key, Triton compiles the decorated Python function
        in stages. The Python is parsed to its syntax tree and lowered to TTIR, operations
        on whole tiles with every type fixed. TTGIR adds a layout to every tile, saying
        which thread holds which elements, and is where coalescing, shared memory,
        tensor-core operations and software pipelining are decided. LLVM IR is the code of
        one thread, with tiles turned into registers, shared memory allocated and barriers
        placed. PTX is NVIDIA's virtual assembly, with each memory instruction and its
        width. ptxas turns it into a cubin of machine code and allocates registers. The
        object the launch returns keeps each stage's text in compiled.asm under the keys
        ttir, ttgir, llir, ptx and cubin, and sass for the disassembled machine code; the
        result is cached on disk, so a later call with the same key skips all of it.""",
    )
    d.text(8, 18, "compiled = add_kernel[grid](..., BLOCK=1024)", 12, "d-mono")
    y = 30
    for k, (name, key, cls, lines) in enumerate(STAGES):
        h = 30 + 18 * len(lines)
        d.rect(8, y, 384, h, cls)
        d.text(20, y + 21, name, 13, "d-b", room=360 - (220 if key else 0))
        if key:
            d.text(380, y + 21, key, 12, "d-mono d-tb", "end", room=220)
        for i, line in enumerate(lines):
            d.text(20, y + 41 + 18 * i, line, 12, room=364)
        y += h
        if k < len(STAGES) - 1:
            d.arrow(200, y, 200, y + 16, "d-ln", "d-head")
            y += 16
    d.text(8, y + 22, "All of it is cached on disk (~/.triton/cache or", 12, "d-t2")
    d.text(8, y + 40, "TRITON_CACHE_DIR): the next call with the same key", 12, "d-t2")
    d.text(8, y + 58, "only launches.", 12, "d-t2")
    d.height = y + 66
    return d
