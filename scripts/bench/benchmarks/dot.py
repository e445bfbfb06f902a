"""Benchmark of the dot family (kernels/dot.py): lesson 05.

- ``dot``: TFLOP/s of the tile kernel in each input precision (fp32 "ieee", fp32 "tf32",
  fp16, bf16, fp8 e4m3) at square sizes 2048, 4096 and 8192, for each of a few fixed
  block configs (the figure shows the best), and the matching library rate measured in
  the same run as that precision's roof: cuBLAS through ``torch.matmul`` with fp32
  matmuls set to "ieee" or "tf32", fp16 and bf16, and ``torch._scaled_mm`` (unit scales)
  for fp8. A precision or peer that cannot run on this GPU gets a row that says why.

- ``dot_tf32``: what "tf32" does to fp32 inputs. The same kernel and block config with
  input_precision "ieee", "tf32" and "tf32x3" on positive inputs, so that an error with
  one sign in every input (truncation) shows as a bias of the result: the PTX's
  conversions to TF32 (``cvt.rna.tf32.f32``, round to nearest) and tensor-core
  instructions counted, the mean signed and root-mean-square relative error against a
  float64 product of the same inputs, and the device time.

``b`` is the transposed view of a contiguous (N, K) matrix, as ``nn.Linear`` stores its
weight and as ``torch._scaled_mm`` requires; the same layout for every precision. Kept
small on purpose: 15 kernels to compile, 45 Triton and 15 library timings (not yet timed
on a GPU; the aim is under a minute).
"""

from __future__ import annotations

import contextlib
import functools
import math
import re

import torch

from kernels import dot as kd
from scripts.bench import benchlib

BENCH_PRECISIONS = ("ieee", "tf32", "fp16", "bf16", "fp8")
SIZES = [2048, 4096, 8192]
# (block_m, block_n, block_k, num_warps, num_stages): three per precision, chosen for
# Hopper's 227 KiB of shared memory per block: stages * (block_m + block_n) * block_k *
# bytes per element stays under it. "ieee" multiplies on the CUDA cores from registers,
# so its tiles are smaller.
CONFIGS = {
    "ieee": [(64, 64, 32, 4, 3), (128, 64, 16, 4, 2), (128, 128, 16, 8, 2)],
    "tf32": [(128, 128, 32, 8, 3), (128, 256, 32, 8, 3), (128, 128, 64, 4, 3)],
    "fp16": [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3)],
    "bf16": [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3)],
    "fp8": [(128, 256, 128, 8, 3), (128, 128, 128, 4, 4), (128, 256, 64, 8, 4)],
}
# Results are checked against reference() (float64, rounded once) before timing, with
# rtol TOL and atol TOL * sqrt(K): errors grow like sqrt(K), and so do the values, while
# a wrong tile is off by the size of the values. TF32 keeps 10 of an input's 23 mantissa
# bits; fp8 on Hopper sums in a narrower accumulator (up to ~2% seen at K = 4096).
TOL = {
    "ieee": 2**-14,
    "tf32": 2**-7,
    "tf32x3": 2**-14,
    "fp16": 2**-9,
    "bf16": 2**-6,
    "fp8": 2**-4,
}
# dot_tf32: one size and one block config (block_m, block_n, block_k, warps, stages) for
# the three fp32 precisions, and the PTX instructions counted in each compiled kernel.
TF32_N = 4096
TF32_CONFIG = (128, 128, 32, 8, 3)
TF32_PRECISIONS = ("ieee", "tf32", "tf32x3")
TF32_PTX = {
    "cvt_rna_tf32": r"\bcvt\.rna\.tf32\.f32\b",
    "wgmma": r"\bwgmma\.mma_async\b",
    "mma_sync": r"\bmma\.sync\b",
    "fma_f32": r"\bfma\.rn\.f32\b",
}


def knobs(config: tuple) -> dict:
    """A CONFIGS entry as kernels/dot.py's keyword arguments."""
    names = ("block_m", "block_n", "block_k", "num_warps", "num_stages")
    return dict(zip(names, config, strict=True))


@contextlib.contextmanager
def fp32_matmul(precision: str | None):
    """torch.matmul's float32 mode for the block: "ieee" (no TF32) or "tf32"; None: as is."""
    mm = torch.backends.cuda.matmul
    if precision is None:
        yield
        return
    if hasattr(mm, "fp32_precision"):  # torch >= 2.9
        old = mm.fp32_precision
        mm.fp32_precision = precision
    else:
        old = mm.allow_tf32
        mm.allow_tf32 = precision == "tf32"
    try:
        yield
    finally:
        if hasattr(mm, "fp32_precision"):
            mm.fp32_precision = old
        else:
            mm.allow_tf32 = old


def operands(n: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Random a (n, n) and b = w.t() with w a contiguous (n, n); randn, never zeros."""
    a = torch.randn(n, n, device="cuda").to(dtype)
    w = torch.randn(n, n, device="cuda").to(dtype)
    return a, w.t()


def scaled_mm(a: torch.Tensor, b: torch.Tensor, one: torch.Tensor) -> torch.Tensor:
    """cuBLAS's fp8 matmul with unit scales, bf16 out (the dtype kernels/dot.py returns)."""
    c = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return c[0] if isinstance(c, tuple) else c  # older torch returned (out, amax)


def library_fn(precision: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):
    """The library call that computes the same product: (function, writes into c?)."""
    if precision == "fp8":
        one = torch.ones((), device="cuda", dtype=torch.float32)
        return functools.partial(scaled_mm, a, b, one), False
    return functools.partial(torch.matmul, a, b, out=c), True


def size_fields(precision: str, n: int) -> dict:
    dtype, _ = kd.PRECISIONS[precision]
    elem_in = torch.empty((), dtype=dtype).element_size()
    elem_out = torch.empty((), dtype=kd.OUT_DTYPE[dtype]).element_size()
    return {
        "precision": precision,
        "m": n,
        "n": n,
        "k": n,
        "flops": 2 * n**3,
        "bytes": 2 * n * n * elem_in + n * n * elem_out,  # a, b read once; c written once
    }


def tflops(row: dict) -> float:
    return row["flops"] / row["time_s"]["p50"] / 1e12


def run(ceilings: dict) -> list[dict]:
    rows: list[dict] = []
    fp8_ok = kd.fp8_supported(torch.cuda.current_device())
    for precision in BENCH_PRECISIONS:
        dtype, input_precision = kd.PRECISIONS[precision]
        for n in SIZES:
            fields = size_fields(precision, n)
            if precision == "fp8" and not fp8_ok:
                reason = "this GPU has no fp8 tensor cores (compute capability < 8.9)"
                rows += [
                    {"impl": impl, **fields, "skipped": reason} for impl in ("triton", "cublas")
                ]
                print(f"  fp8 {n}^3: skipped, {reason}")
                continue
            a, b = operands(n, dtype)
            c = torch.empty(n, n, device="cuda", dtype=kd.OUT_DTYPE[dtype])
            expected = kd.reference(a, b)
            tol = {"exact": False, "rtol": TOL[precision], "atol": TOL[precision] * math.sqrt(n)}
            mine: list[dict] = []
            peer = "torch._scaled_mm" if precision == "fp8" else "torch.matmul"
            # Every config and the library checked one by one, then timed in turn when
            # the block ends (inside torch.matmul's float32 mode for this precision).
            with fp32_matmul(input_precision), benchlib.head_to_head():
                for config in CONFIGS[precision]:
                    fn = functools.partial(
                        kd.dot, a, b, input_precision=input_precision, out=c, **knobs(config)
                    )
                    what = f"dot triton {precision} {n}^3 {config}"
                    name = "triton_" + "_".join(map(str, config))
                    try:
                        timing = benchlib.check_then_time(fn, expected, what, out=c, **tol,
                                                          name=name)  # fmt: skip
                    except ValueError as exc:  # the wrapper's "does not fit this GPU"
                        print(f"  {what}: skipped, {exc}")
                        continue
                    mine.append({"impl": "triton", **fields, **knobs(config), **timing})
                if not mine:  # every config needs more shared memory than this GPU has
                    reason = f"no block config of {precision} fits this GPU's shared memory"
                    rows.append({"impl": "triton", **fields, "skipped": reason})
                    print(f"  {precision} {n}^3: skipped, {reason}")
                    del a, b, c, expected
                    continue
                fn, into_c = library_fn(precision, a, b, c)
                try:
                    timing = benchlib.check_then_time(
                        fn,
                        expected,
                        f"dot {peer} {precision} {n}^3",
                        out=c if into_c else None,
                        **tol,
                        name="cublas",
                    )
                except (RuntimeError, TypeError, AttributeError) as exc:  # a peer that cannot run
                    library = {"impl": "cublas", **fields, "skipped": f"{peer}: {exc!r}"[:300]}
                else:
                    library = {"impl": "cublas", **fields, **timing}
            rows += [*mine, library]
            best = max(tflops(r) for r in mine)
            line = f"{peer} {tflops(library):.0f}" if "time_s" in library else library["skipped"]
            print(f"  {precision:>4} {n:>5}^3: triton best {best:.0f} TFLOP/s, {line}")
            del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


def ptx_counts(ptx: str) -> dict[str, int]:
    """How many of each TF32_PTX instruction the PTX holds."""
    return {name: len(re.findall(pattern, ptx)) for name, pattern in TF32_PTX.items()}


def compiled_dot(fn) -> object:
    """Run ``fn`` once with kernels/dot.py's dot_kernel captured; the compiled kernel."""
    cap = benchlib.Capture(kd.dot_kernel)
    kd.dot_kernel = cap
    try:
        fn()
    finally:
        kd.dot_kernel = cap.kernel
    return cap.compiled


def run_tf32(ceilings: dict) -> list[dict]:
    n = benchlib.pick(TF32_N, 1024)
    # Positive inputs, uniform in [0.5, 1.5): every product and every sum is positive, so
    # an input error of one sign (truncation) cannot cancel and shows as a mean bias.
    a = torch.rand(n, n, device="cuda") + 0.5
    b = (torch.rand(n, n, device="cuda") + 0.5).t()
    exact = a.double() @ b.double()
    expected = kd.reference(a, b)
    c = torch.empty(n, n, device="cuda")
    rows = []
    for precision in TF32_PRECISIONS:
        _, input_precision = kd.PRECISIONS[precision]
        fn = functools.partial(
            kd.dot, a, b, input_precision=input_precision, out=c, **knobs(TF32_CONFIG)
        )
        kernel = compiled_dot(fn)
        tol = {"exact": False, "rtol": TOL[precision], "atol": TOL[precision] * math.sqrt(n)}
        timing = benchlib.check_then_time(fn, expected, f"dot_tf32 {precision} {n}^3", out=c, **tol)
        error = (c.double() - exact) / exact
        rows.append(
            {
                **size_fields(precision, n),
                **knobs(TF32_CONFIG),
                **timing,
                **benchlib.kernel_resources(kernel),
                "ptx": ptx_counts(kernel.asm["ptx"]),
                "mean_rel_error": error.mean().item(),
                "rms_rel_error": error.square().mean().sqrt().item(),
            }
        )
        r = rows[-1]
        print(
            f"  {precision:>6}: {tflops(r):.0f} TFLOP/s, mean error {r['mean_rel_error']:+.2e}, "
            f"rms {r['rms_rel_error']:.2e}, PTX {r['ptx']}"
        )
    del a, b, c, exact, expected
    torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "dot",
        "C = A @ B at square sizes 2048, 4096, 8192 in five input precisions: fp32 with "
        "tl.dot input_precision 'ieee' and 'tf32' (fp32 out), fp16 (fp16 out), bf16 (bf16 "
        "out), float8_e4m3fn (bf16 out); all accumulate in fp32. B is the transposed view "
        "of a contiguous matrix. triton = kernels/dot.py, one row per block config "
        "(block_m/n/k, num_warps, num_stages); cublas = torch.matmul with "
        "torch.backends.cuda.matmul fp32 precision 'ieee' or 'tf32' (fp32), plain "
        "torch.matmul (fp16, bf16), torch._scaled_mm with unit scales (fp8), each that "
        "precision's roof. Checked against a float64 reference, then device time "
        "(do_bench, L2 flushed). FLOPs = 2*n^3; bytes = A, B read once + C written once. "
        "Rows with 'skipped' say why a precision or peer did not run.",
        run,
    ),
    benchlib.Benchmark(
        "dot_tf32",
        "kernels/dot.py at 4096^3 (quick: 1024^3), fp32 in and out, block 128x128x32, 8 "
        "warps, 3 stages, with input_precision 'ieee', 'tf32' and 'tf32x3', on positive "
        "inputs (uniform in [0.5, 1.5), B the transposed view of a contiguous matrix). ptx: "
        "counts in the compiled PTX of cvt.rna.tf32.f32 (fp32 rounded to TF32, to "
        "nearest), wgmma.mma_async and mma.sync (tensor-core instructions) and fma.rn.f32. "
        "mean_rel_error / rms_rel_error: mean and root-mean-square of (C - exact) / exact "
        "over every element, exact the float64 product of the same inputs. Checked against "
        "the reference first, then device time (do_bench, L2 flushed).",
        run_tf32,
    ),
]
