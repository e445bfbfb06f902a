"""Lesson 03's "look at the compiler yourself": every stage of a kernel, with or without a GPU.

- ``on_gpu``: launch a kernel once; the launch returns the compiled kernel, whose ``asm``
  holds each stage's text.
- ``for_gpu``: compile a kernel for a GPU you do not have (an H100 unless told), on any
  machine: Triton ships the assembler (ptxas) and the disassembler it needs.
- ``memory_instructions``: the global loads and stores of the vector add's PTX and SASS
  for one ``n``, counted by instruction, from ``for_gpu``:

      python -c "from kernels import _look, vector_add;
                 _look.memory_instructions(vector_add.add_kernel, 4096)"

tests/kernels/test_look.py checks that this prints what lesson 03 says it prints.
Run without ``TRITON_INTERPRET``: the interpreter compiles nothing.
"""

import torch
import triton


# --8<-- [start:on-gpu]
def on_gpu(add_kernel, n=1 << 20, block=1024):
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    compiled = add_kernel[((n + block - 1) // block,)](x, y, out, n, BLOCK=block)
    print(compiled.n_regs, compiled.n_spills)  # registers per thread, values spilled
    return compiled.asm  # "ttir", "ttgir", "llir", "ptx", "cubin"; and "sass" on request


# --8<-- [end:on-gpu]


# --8<-- [start:for-gpu]
def for_gpu(kernel, signature, constexprs, divisible=(), target=("cuda", 90, 32), **options):
    """Compile ``kernel`` for ``target`` (backend, compute capability, warp size) without
    launching it. ``signature``: a type per argument ("*fp32" a pointer, "i32" an integer,
    "constexpr"); ``divisible``: the arguments to treat as multiples of 16, as the launch
    would find them."""
    attrs = {(kernel.arg_names.index(a),): [["tt.divisibility", 16]] for a in divisible}
    source = triton.compiler.ASTSource(kernel, signature, constexprs, attrs)
    return triton.compile(
        source, target=triton.backends.compiler.GPUTarget(*target), options=options
    )


# --8<-- [end:for-gpu]


# --8<-- [start:memory-instructions]
def memory_instructions(add_kernel, n, block=1024):
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
                 "BLOCK": "constexpr"}  # fmt: skip
    # torch allocates on 256-byte boundaries: the pointers are multiples of 16; n may not be.
    divisible = ["x_ptr", "y_ptr", "out_ptr"] + (["n_elements"] if n % 16 == 0 else [])
    compiled = for_gpu(add_kernel, signature, {"BLOCK": block}, divisible, num_warps=4)
    for stage, opcodes in (("ptx", ("ld.global", "st.global")), ("sass", ("LDG", "STG"))):
        found = {}
        for line in compiled.asm[stage].splitlines():
            words = line.replace("\t", " ").split()
            for word in words:
                if word.startswith(opcodes):
                    found[word] = found.get(word, 0) + 1
        print(f"{stage}: " + ", ".join(f"{op} x{k}" for op, k in sorted(found.items())))


# --8<-- [end:memory-instructions]
