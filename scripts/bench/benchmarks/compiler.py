"""What the compiler makes of the book's kernels, and what compiling costs: lessons 03 and 05.

- ``compiler``: nothing is timed. The vector-add kernel (kernels/vector_add.py) is
  compiled twice, for an ``n_elements`` that is a multiple of 16 and for one that is not,
  and the matmul kernel (kernels/matmul.py) once for bf16 with a fixed tile. Each row
  keeps one stage of the compiler's output as text, read from the compiled kernel's
  ``asm`` dictionary: TTIR (Triton's own IR), TTGIR (the same with GPU layouts), PTX, and
  SASS (disassembled from the cubin by the cuobjdump Triton ships). The book shows these
  texts, trimmed, instead of typing them.
- ``compiler_time``: the first call of the vector-add kernel in a fresh Python process,
  with an empty Triton cache (``TRITON_CACHE_DIR`` a new folder: the call compiles) and
  with the cache a previous process filled (the call loads the binary from disk); in the
  same processes, the later calls (found in memory) and the first call with a new
  specialisation (n not a multiple of 16). Also the files the compile left in the cache.

The matmul's PTX runs to thousands of lines; its row keeps only the lines that issue
tensor-core instructions (``mma``/``wgmma``) and their count. Everything else is stored
whole, so a reader can diff it against their own compiler.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

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
    """SASS of a compiled kernel, from its cubin by the cuobjdump Triton ships (or the one
    TRITON_CUOBJDUMP_PATH names); None where that fails."""
    if "cubin" not in compiled.asm:
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


# ---- compile time: the first call against a cache hit --------------------------------------

FIRST_N = 1 << 20  # and FIRST_N - 1, a second specialisation of the same kernel
LATER_CALLS = 20
REPEATS = 3  # fresh processes per cache state
# Run in a fresh interpreter (python -c, the repository as its working directory): every
# call is timed with the GPU synchronised on both sides, so it includes the kernel's few
# microseconds on the GPU. The empty kernel of kernels/launch.py is launched first,
# untimed: it pays Triton's one-time set-up in the process (its driver helpers, the
# compiler's first use), so the timed first call pays only what this kernel needs.
FIRST_CALL_SCRIPT = """
import json, sys, time
import torch
from kernels import vector_add as va
from kernels.launch import launch_empty

n, later, device = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
launch_empty(torch.empty(128, device=device))
sync()
x, y = torch.randn(n, device=device), torch.randn(n, device=device)


def timed(n):
    out = torch.full((n,), float("nan"), device=device)
    sync()
    t0 = time.perf_counter()
    va.launch(x[:n], y[:n], out)
    sync()
    seconds = time.perf_counter() - t0
    if not torch.equal(out, va.reference(x[:n], y[:n])):
        sys.exit(f"vector add n={n}: wrong result")
    return seconds


first = timed(n)
later_s = [timed(n) for _ in range(later)]
print(json.dumps({"first": first, "later": later_s, "new_key": timed(n - 1)}))
"""


def first_call(cache_dir: str) -> dict:
    """Run FIRST_CALL_SCRIPT in a fresh Python with ``cache_dir`` as Triton's cache."""
    env = {**os.environ, "TRITON_CACHE_DIR": cache_dir}
    env.pop("TRITON_INTERPRET", None)
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALL_SCRIPT, str(FIRST_N), str(LATER_CALLS), "cuda"],
        cwd=benchlib.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"compiler_time: the fresh process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cache_files(cache_dir: str, kernel: str = "add_kernel") -> dict[str, int]:
    """File names in the cache that belong to ``kernel`` (each in its own hash-named
    folder, one per compiled specialisation), with how many of each."""
    found: dict[str, int] = {}
    for path in Path(cache_dir).rglob("*"):
        if path.is_file() and kernel in path.name:
            found[path.name] = found.get(path.name, 0) + 1
    return dict(sorted(found.items()))


def run_first_calls(ceilings: dict) -> list[dict]:
    times: dict[tuple[str, str], list[float]] = {}
    files: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="triton-warm-") as warm:
        first_call(warm)  # fills the cache the warm runs read
        for _ in range(benchlib.pick(REPEATS, 1)):
            for cache in ("cold", "warm"):
                if cache == "warm":
                    got = first_call(warm)
                else:  # a new, empty folder each time
                    with tempfile.TemporaryDirectory(prefix="triton-cold-") as cold:
                        got = first_call(cold)
                        files = cache_files(cold)
                times.setdefault((cache, "first"), []).append(got["first"])
                times.setdefault((cache, "new_key"), []).append(got["new_key"])
                times.setdefault((cache, "later"), []).extend(got["later"])
    rows = []
    for (cache, call), samples in times.items():
        row = {
            "kernel": "vector_add",
            "cache": cache,
            "call": call,
            "n": FIRST_N - 1 if call == "new_key" else FIRST_N,
            "time_s": benchlib.spread(samples),
        }
        if cache == "cold" and call == "first":
            row["cache_files"] = files
        rows.append(row)
        print(f"  {cache:>4} cache, {call:>7} call: {row['time_s']['p50'] * 1e3:.2f} ms")
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
    benchlib.Benchmark(
        "compiler_time",
        "Wall time of calls of kernels/vector_add.py's launch (add_kernel, BLOCK=1024, "
        "num_warps=4) on n = 2^20 floats in a fresh Python process, synchronised before and "
        "after each call (so a call includes its few microseconds on the GPU), after an "
        "untimed launch of kernels/launch.py's empty kernel that pays Triton's one-time "
        "set-up. cache cold: TRITON_CACHE_DIR is a new, empty folder, so the first call "
        "compiles (TTIR to cubin, and the launcher's C stub); warm: the folder a previous "
        "process filled, so the first call loads the binary from disk. call first: the "
        f"process's first call of the kernel; later: the {LATER_CALLS} calls after it, found "
        "in memory; new_key: then one call with n = 2^20 - 1, not a multiple of 16, a new "
        f"specialisation (compiled when cold, loaded when warm). {REPEATS} processes per "
        "cache state; each result checked bit for bit against the reference. cache_files: "
        "the add kernel's files the cold run left in the cache (one folder per "
        "specialisation).",
        run_first_calls,
    ),
]
