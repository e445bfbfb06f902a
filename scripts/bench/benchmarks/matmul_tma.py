"""Benchmark of the persistent matmul family (kernels/matmul_tma.py): lesson 13.

- ``matmul_tma``: TFLOP/s at square sizes 4096 and 8192, fp16 and bf16, for the
  persistent kernel on its TMA path, the same persistent kernel on its pointer path
  (forced), lesson 09's kernel (kernels/matmul.py, autotuned) and cuBLAS
  (``torch.matmul``), all into one preallocated C; and the TMA path with
  ``warp_specialize=True`` where the installed Triton has it (a failure to compile is
  recorded in its row, not fatal). Each row of ours records the path that ran and the
  config the autotuner chose, with its registers and spills.
- ``matmul_tma_epilogue``: lesson 09's epilogue target (a fused matmul + bias + GELU at
  least 1.15x faster than cuBLAS + eager) tried with the persistent TMA kernel, bf16,
  4096^3 and 8192^3, next to lesson 09's fused kernel, cuBLAS + eager, and both plain
  matmuls, in one run; each Triton row records the config its autotuner chose.

Most of the time is compiling: 4 TMA configs and 3 pointer configs per dtype (and 4 more
for warp specialization, bf16 only), plus lesson 09's 8 configs per dtype unless Triton's
cache already holds them (``measure.py matmul matmul_tma`` shares them). Under two minutes
on an H100 from a cold cache (an estimate: not yet run); quick mode times 4096^3 only.
"""

from __future__ import annotations

import functools
import traceback

import torch
import triton

from kernels import matmul as mm
from kernels import matmul_tma as mt
from scripts.bench import benchlib
from scripts.bench.benchmarks.matmul import (
    DTYPES,
    cublas_then_eager,
    operands,
    sizes,
    tflops,
    time_epilogue_impls,
    tolerance,
)

SIZES = [4096, 8192]
QUICK_SIZES = [4096]
WS_DTYPES = (torch.bfloat16,)  # warp specialization is tried on one dtype: compile time
IMPLS = ("tma", "tma_ws", "pointers", "lesson09", "cublas")


def config_fields(autotuner) -> dict:
    """The config the autotuner chose for the call just made (its best_config)."""
    config = getattr(autotuner, "best_config", None)
    if config is None:
        return {}
    kw = config.kwargs
    return {
        "block_m": kw["BLOCK_M"],
        "block_n": kw["BLOCK_N"],
        "block_k": kw["BLOCK_K"],
        "num_warps": config.num_warps,
        "num_stages": config.num_stages,
    }


def implementations(a, b, c) -> dict:
    """name: (function writing a @ b into c, expected path or None, its autotuner or None,
    the module and attribute to capture its compiled kernel from)."""
    ws = a.dtype in WS_DTYPES and mt.HAS_WARP_SPECIALIZE
    impls = {
        "tma": (functools.partial(mt.matmul_tma, a, b, out=c, path="tma"), "tma",
                (mt, "matmul_tma_autotuned")),
        "tma_ws": (
            functools.partial(mt.matmul_tma, a, b, out=c, path="tma", warp_specialize=True),
            "tma", (mt, "matmul_tma_autotuned"),
        ),
        "pointers": (functools.partial(mt.matmul_tma, a, b, out=c, path="pointers"), "pointers",
                     (mt, "matmul_persistent_autotuned")),
        "lesson09": (functools.partial(mm.matmul, a, b, out=c), None, (mm, "matmul_autotuned")),
        "cublas": (functools.partial(torch.matmul, a, b, out=c), None, None),
    }  # fmt: skip
    if not ws:
        del impls["tma_ws"]
    return impls


def measure_one(impl: str, fn, path, capture, a, b, c, expected, what: str) -> dict:
    """One row: checked, then timed; or the failure, with the traceback printed."""
    (m, k), n = a.shape, b.shape[1]
    row = {"impl": impl, **sizes(m, n, k, a.dtype)}
    if path is not None:
        row["path"] = path
    try:
        timing = benchlib.check_then_time(
            fn, expected, what, out=c, **tolerance(a.dtype, k), name=impl
        )
    except Exception as exc:  # recorded and shown, so one broken variant keeps the rest
        print(f"  !! {what} failed: {type(exc).__name__}: {exc}")
        traceback.print_exc()
        row["failure"] = f"{type(exc).__name__}: {exc}"[:400]
        return row
    row.update(timing)
    if capture is not None:
        module, name = capture
        row.update(config_fields(getattr(module, name)))
        res = benchlib.captured(fn, module, name)
        row.update({key: v for key, v in res.items() if v is not None})
    return row


def run(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "matmul_tma (its TMA path)")
    if not mt.HAS_TENSOR_DESCRIPTORS:
        raise benchlib.Skip(f"triton {triton.__version__} has no tl.make_tensor_descriptor")
    rows = []
    for dtype, dname in DTYPES.items():
        for n in benchlib.pick(SIZES, QUICK_SIZES):
            a, b = operands(n, n, n, dtype)
            c = torch.empty(n, n, device="cuda", dtype=dtype)
            chosen = mt.path_for(a, b, c)
            assert chosen == "tma", f"{n}^3 {dname} should take TMA: {mt.tma_refusal(a, b, c)}"
            expected = mt.reference(a, b)
            impls = implementations(a, b, c)
            with benchlib.head_to_head():  # every impl in turn, the ratio per round
                for impl, (fn, path, capture) in impls.items():
                    what = f"matmul_tma {impl} {n}^3 {dname}"
                    rows.append(measure_one(impl, fn, path, capture, a, b, c, expected, what))
            line = []
            for r in rows[-len(impls) :]:
                impl = r["impl"]
                if "time_s" in r:
                    cfg = (
                        f" [{r['block_m']}x{r['block_n']}x{r['block_k']} w{r['num_warps']} "
                        f"s{r['num_stages']}]"
                        if "block_m" in r
                        else ""
                    )
                    line.append(f"{impl} {tflops(r):.0f}{cfg}")
                else:
                    line.append(f"{impl} FAILED")
            by_impl = {r["impl"]: r for r in rows[-len(line) :]}
            ratio = ""
            if "time_s" in by_impl["tma"]:
                ratio = f"; tma/cublas {tflops(by_impl['tma']) / tflops(by_impl['cublas']):.1%}"
            print(f"  {dname:>8} {n:>5}^3: " + ", ".join(line) + " TFLOP/s" + ratio)
            del a, b, c, expected
            torch.cuda.empty_cache()
    return rows


# matmul_tma_epilogue: lesson 09 measured its fused kernel short of the 1.15x target and
# found its plain matmul slower than cuBLAS; this asks whether a matmul nearer cuBLAS's
# speed (the persistent TMA kernel) meets it with the same epilogue.
EPILOGUE_SIZES = [4096, 8192]
EPILOGUE_DTYPE = torch.bfloat16
# The autotuner behind each Triton impl of the epilogue comparison: (module, name).
EPILOGUE_TUNERS = {
    "tma_fused": (mt, "matmul_tma_autotuned"),
    "lesson09_fused": (mm, "matmul_autotuned"),
    "tma_plain": (mt, "matmul_tma_autotuned"),
}


def tuned_config(fn, module, name: str) -> dict:
    """The config the autotuner ``module.name`` runs for ``fn``'s problem (its cached
    winner for that key, the one the timing used), with that compiled kernel's registers
    and spills: ``fn`` called once more, its kernel captured. One autotuner serves
    several impls (with and without the epilogue: two keys), so its best_config is read
    right after this call, not after the whole comparison."""
    res = benchlib.captured(fn, module, name)
    return {
        **config_fields(getattr(module, name)),
        **{key: v for key, v in res.items() if v is not None},
    }


def run_epilogue(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "matmul_tma_epilogue (the TMA path)")
    if not mt.HAS_TENSOR_DESCRIPTORS:
        raise benchlib.Skip(f"triton {triton.__version__} has no tl.make_tensor_descriptor")
    rows, dtype = [], EPILOGUE_DTYPE
    for n in benchlib.pick(EPILOGUE_SIZES, QUICK_SIZES):
        a, b = operands(n, n, n, dtype)
        bias = torch.randn(n, device="cuda", dtype=dtype)
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        assert mt.path_for(a, b, c) == "tma", mt.tma_refusal(a, b, c)
        expected = {True: mt.reference(a, b, bias, "gelu"), False: mt.reference(a, b)}
        impls = {  # name: (function, with the epilogue?, writes into c?)
            "tma_fused": (
                functools.partial(
                    mt.matmul_tma, a, b, out=c, bias=bias, activation="gelu", path="tma"
                ),
                True,
                True,
            ),
            "lesson09_fused": (
                functools.partial(mm.matmul, a, b, out=c, bias=bias, activation="gelu"),
                True,
                True,
            ),
            "cublas_eager": (functools.partial(cublas_then_eager, a, b, bias), True, False),
            "tma_plain": (functools.partial(mt.matmul_tma, a, b, out=c, path="tma"), False, True),
            "cublas": (functools.partial(torch.matmul, a, b, out=c), False, True),
        }
        rows += time_epilogue_impls(impls, expected, bias, c, f"matmul_tma_epilogue {n}^3")
        for r in rows[-len(impls) :]:
            if r["impl"] in EPILOGUE_TUNERS:  # the config each Triton call ran, and its cost
                r.update(tuned_config(impls[r["impl"]][0], *EPILOGUE_TUNERS[r["impl"]]))
        t = {r["impl"]: r["time_s"]["p50"] for r in rows[-len(impls) :]}
        print(
            f"  bf16 {n}^3: cuBLAS + eager over fused: TMA kernel "
            f"{t['cublas_eager'] / t['tma_fused']:.2f}x, lesson 09's "
            f"{t['cublas_eager'] / t['lesson09_fused']:.2f}x; plain TMA kernel at "
            f"{t['cublas'] / t['tma_plain']:.1%} of cuBLAS"
        )
        del a, b, bias, c, expected
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "matmul_tma",
        "C = A @ B for square sizes 4096 and 8192, fp16 and bf16, random normal inputs, "
        "into a preallocated C: kernels/matmul_tma.py on its TMA path (impl tma; persistent, "
        "device-side tensor descriptors, autotuned over TMA_CONFIGS), with "
        "warp_specialize=True (tma_ws, bf16, where triton has it; a compile failure is a "
        "row with 'failure'), on its pointer path (pointers; same persistent loop, masked "
        "pointer loads, POINTER_CONFIGS); kernels/matmul.py autotuned (lesson09); "
        "torch.matmul (cublas). Each checked against reference() (float64), then timed "
        "(do_bench, L2 flushed). path: the kernel that ran; block_m/n/k, num_warps, "
        "num_stages: the autotuner's pick for that problem; n_regs, n_spills: of that "
        "compiled kernel. FLOPs = 2*M*N*K; bytes = A, B read once + C written once.",
        run,
    ),
    benchlib.Benchmark(
        "matmul_tma_epilogue",
        "out = gelu(A @ B + bias) (exact GELU), bf16, square sizes 4096 and 8192, random "
        "normal inputs: kernels/matmul_tma.py on its TMA path with its epilogue (tma_fused), "
        "kernels/matmul.py with its epilogue (lesson09_fused), torch.matmul then + bias then "
        "F.gelu (cublas_eager, three kernels), and the plain matmuls: kernels/matmul_tma.py "
        "(tma_plain) and torch.matmul (cublas). Each checked against reference() (float64) "
        "first, then timed (do_bench, L2 flushed). FLOPs = 2*M*N*K; bytes = A, B read once + "
        "C written once (+ the bias where there is an epilogue). Triton rows (tma_fused, "
        "lesson09_fused, tma_plain): block_m/n/k, num_warps, num_stages = the config the "
        "autotuner chose for that call's key (the one timed), n_regs and n_spills of that "
        "compiled kernel.",
        run_epilogue,
    ),
]
