"""What the compiler makes of the book's kernels: lessons 03 and 05.

- ``compiler``: nothing is timed. The vector-add kernel (kernels/vector_add.py) is
  compiled twice, for an ``n_elements`` that is a multiple of 16 and for one that is not,
  and the matmul kernel (kernels/matmul.py) once for bf16 with a fixed tile. Each row
  keeps one stage of the compiler's output as text, read from the compiled kernel's
  ``asm`` dictionary: TTIR (Triton's own IR), TTGIR (the same with GPU layouts), PTX, and
  SASS where the CUDA toolkit's disassembler is installed. The book shows these texts,
  trimmed, instead of typing them.

The matmul's PTX runs to thousands of lines; its row keeps only the lines that issue
tensor-core instructions (``mma``/``wgmma``) and their count. Everything else is stored
whole, so a reader can diff it against their own compiler.
"""

from __future__ import annotations

import re
import shutil

import torch
import triton

from kernels import matmul as mm
from kernels import vector_add as va
from scripts.bench import benchlib

VECTOR_BLOCK = 1024  # the wrapper's default tile
VECTOR_N = {"divisible": 1 << 20, "ragged": (1 << 20) - 1}  # the two specialisations
MATMUL_SIZE = 4096
MATMUL_CONFIG = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
MATMUL_WARPS, MATMUL_STAGES = 4, 3
STAGES = ("ttir", "ttgir", "ptx")
MMA_LINE = re.compile(r"^\s*(w?gmma|mma)\S*", re.IGNORECASE)
MMA_OPCODE = re.compile(r"\b(wgmma\.mma_async[\w.]*|mma\.sync[\w.]*)")


def sass(compiled) -> str | None:
    """SASS of a compiled kernel, or None where cuobjdump is not installed."""
    if shutil.which("cuobjdump") is None or "cubin" not in compiled.asm:
        return None
    try:
        from triton.tools.disasm import get_sass

        return get_sass(compiled.asm["cubin"])
    except Exception as exc:  # an old or odd toolkit: record nothing rather than fail
        print(f"  SASS skipped: {type(exc).__name__}: {exc}"[:200])
        return None


def texts(compiled) -> dict[str, str]:
    out = {stage: compiled.asm[stage] for stage in STAGES if stage in compiled.asm}
    code = sass(compiled)
    if code is not None:
        out["sass"] = code
    return out


def vector_rows() -> list[dict]:
    rows = []
    for variant, n in VECTOR_N.items():
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        grid = (triton.cdiv(n, VECTOR_BLOCK),)
        compiled = va.add_kernel[grid](x, y, out, n, BLOCK=VECTOR_BLOCK)
        torch.cuda.synchronize()
        benchlib.check(out, va.reference(x, y), f"compiler vector_add {variant}", exact=True)
        for stage, text in texts(compiled).items():
            rows.append(
                {
                    "kernel": "vector_add",
                    "variant": variant,
                    "n": n,
                    "stage": stage,
                    "text": text,
                    "lines": text.count("\n") + 1,
                }
            )
    return rows


def matmul_rows() -> list[dict]:
    size = MATMUL_SIZE
    a = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
    config = triton.Config(MATMUL_CONFIG, num_warps=MATMUL_WARPS, num_stages=MATMUL_STAGES)
    capture = benchlib.Capture(mm.matmul_kernel)
    mm.matmul_kernel = capture
    try:
        c = mm.matmul(a, b, config=config)
    finally:
        mm.matmul_kernel = capture.kernel
    torch.cuda.synchronize()
    expected = mm.reference(a, b)
    tol = 2**-6
    benchlib.check(c, expected, "compiler matmul", exact=False, rtol=tol, atol=tol * size**0.5)
    rows = []
    for stage, text in texts(capture.compiled).items():
        lines = text.splitlines()
        row = {
            "kernel": "matmul",
            "variant": "bfloat16",
            "n": size,
            "stage": stage,
            "lines": len(lines),
            "config": {**MATMUL_CONFIG, "num_warps": MATMUL_WARPS, "num_stages": MATMUL_STAGES},
        }
        if stage == "ptx":
            kept = [line.strip() for line in lines if MMA_OPCODE.search(line)]
            row["text"] = "\n".join(kept)
            row["mma_count"] = len(kept)
            opcodes: dict[str, int] = {}
            for line in kept:
                op = MMA_OPCODE.search(line).group(1)
                opcodes[op] = opcodes.get(op, 0) + 1
            row["mma_opcodes"] = opcodes
        elif stage == "sass":
            kept = [line.strip() for line in lines if re.search(r"\b(HGMMA|HMMA)\b", line)]
            row["text"] = "\n".join(kept)
            row["mma_count"] = len(kept)
        else:
            row["text"] = text
        rows.append(row)
    return rows


def run(ceilings: dict) -> list[dict]:
    rows = vector_rows() + matmul_rows()
    for r in rows:
        print(f"  {r['kernel']} {r['variant']} {r['stage']}: {r['lines']} lines")
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "compiler",
        "The compiler's output for two of the book's kernels, read from the compiled "
        "kernel's asm dictionary on this GPU (nothing timed). vector_add: kernels/"
        "vector_add.py's add_kernel with BLOCK=1024, num_warps=4, for n = 2**20 (a multiple "
        "of 16, which Triton specialises on) and n = 2**20 - 1: TTIR, TTGIR, PTX and SASS "
        "(where cuobjdump is installed), whole. matmul: kernels/matmul.py's matmul_kernel, "
        "bf16, 4096^3, BLOCK 128x128x64, 4 warps, 3 stages: TTIR and TTGIR whole; of the PTX "
        "and SASS only the tensor-core (mma/wgmma, HMMA/HGMMA) lines and their count.",
        run,
    ),
]
