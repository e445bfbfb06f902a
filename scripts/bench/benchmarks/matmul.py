"""Benchmarks of the matmul family (kernels/matmul.py): lesson 09.

- ``matmul``: TFLOP/s against square size (512 .. 8192), fp16 and bf16: the autotuned
  Triton kernel, cuBLAS (``torch.matmul``), and at 4096^3 only, torch.compile's own
  Triton matmul templates (max-autotune; slow to compile, so one size).
- ``matmul_llm``: LLM projection shapes, M tokens x K=4096 @ a 4096 x 14336 weight
  stored as ``nn.Linear`` stores it (N x K, used transposed), bf16: Triton vs cuBLAS.
- ``matmul_grouped``: one config at 8192^3 fp16, grouped (group_m=8) vs row-major
  (group_m=1) program order.
- ``matmul_epilogue``: bias + exact GELU fused into the Triton kernel vs cuBLAS followed
  by the eager epilogue, at 4096^3 and 8192^3 bf16.

The whole family takes about two minutes on an H100, most of it compiling: the
autotuner compiles each of its configs once per dtype and layout, and max-autotune
compiles and times Inductor's templates.
"""

from __future__ import annotations

import functools
import math
import tempfile
import time

import torch
import torch.nn.functional as F
import triton

from kernels import matmul as mm
from scripts.bench import benchlib

DTYPES = {torch.float16: "float16", torch.bfloat16: "bfloat16"}
SQUARES = [512, 1024, 2048, 4096, 8192]
SMALL_FLOPS = 1024**3  # m*n*k up to here also gets graph_time_s and host_s
COMPILE_AT = 4096  # the one square size torch.compile max-autotune is timed at
LLM_M = [16, 128, 1024, 4096]  # tokens
LLM_N, LLM_K = 14336, 4096  # an MLP up-projection: hidden 4096 -> 14336
GROUPED_SIZE = 8192
EPILOGUE_SIZES = [4096, 8192]
TRITON = ("triton_fused", "triton_plain")
# measure.py --quick: two squares and no torch.compile (its autotuning alone takes minutes),
# two LLM shapes, one epilogue size, and a sweep of three tiles x two warps/stages.
QUICK_SQUARES, QUICK_LLM_M, QUICK_EPILOGUE_SIZES = [1024, 4096], [16, 4096], [4096]
# Results are checked against reference() (float64, rounded once) before timing. cuBLAS
# may reduce fp16 partial sums in fp16, and the eager epilogue rounds three times in
# bf16; errors grow like sqrt(K) while the values do too. Relative TOL, absolute
# TOL * sqrt(K): a wrong tile (errors of the size of the values) still fails.
TOL = {torch.float16: 2**-9, torch.bfloat16: 2**-6}


def tolerance(dtype: torch.dtype, k: int) -> dict:
    return {"exact": False, "rtol": TOL[dtype], "atol": TOL[dtype] * math.sqrt(k)}


def operands(m: int, n: int, k: int, dtype: torch.dtype, weight_layout: bool = False):
    """Random a (m, k) and b (k, n); randn, never zeros. With ``weight_layout``, b is the
    transposed view of a contiguous (n, k) weight, as torch.nn.Linear holds it."""
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    if weight_layout:
        b = torch.randn(n, k, device="cuda", dtype=dtype).t()
    else:
        b = torch.randn(k, n, device="cuda", dtype=dtype)
    return a, b


def sizes(m: int, n: int, k: int, dtype: torch.dtype, extra_bytes: int = 0) -> dict:
    """Row fields: FLOPs = 2*m*n*k; bytes = each input read once + the output written once."""
    elem = torch.empty((), dtype=dtype).element_size()
    return {
        "dtype": DTYPES[dtype],
        "m": m,
        "n": n,
        "k": k,
        "flops": 2 * m * n * k,
        "bytes": (m * k + k * n + m * n) * elem + extra_bytes,
    }


def tflops(row: dict) -> float:
    return row["flops"] / row["time_s"]["p50"] / 1e12


def triton_and_cublas(a, b, c, expected, what: str, peers: dict | None = None) -> list[dict]:
    """The book's matmul and cuBLAS on the same operands, each checked then timed into
    ``c``, head to head (in turn, with the ratio per round): one row each, with sizes,
    FLOPs and bytes. ``peers``: more implementations (name: function returning its
    product), timed in the same turns; one that fails its check is skipped, not fatal."""
    (m, k), n = a.shape, b.shape[1]
    impls = {
        "triton": functools.partial(mm.matmul, a, b, out=c),
        "cublas": functools.partial(torch.matmul, a, b, out=c),
    }
    rows = []
    with benchlib.head_to_head():
        for impl, fn in {**impls, **(peers or {})}.items():
            try:
                timing = benchlib.check_then_time(
                    fn,
                    expected,
                    f"matmul {impl} {what}",
                    out=c if impl in impls else None,
                    **tolerance(a.dtype, k),
                    name=impl,
                )
            except Exception as exc:
                if impl in impls:
                    raise
                print(f"  skipped {impl} at {what}: {exc!r}")  # a peer that cannot run
                continue
            if m * n * k <= SMALL_FLOPS:
                # Small problems: the GPU work is a few microseconds, less than a validated
                # launch costs the host; time the GPU alone too (a CUDA graph) and the host.
                timing["graph_time_s"] = benchlib.graph_time(fn)
                timing["host_s"] = benchlib.host_time(fn, calls=200, name=impl)
            rows.append({"impl": impl, **sizes(m, n, k, a.dtype), **timing})
    return rows


def a_at_b(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


def compiled_matmul(a: torch.Tensor, b: torch.Tensor):
    """torch.compile's max-autotune matmul, restricted to Inductor's Triton templates (so
    that it cannot hand back cuBLAS), without CUDA graphs (whose input copies would land
    in the timed region). Compiles and autotunes on this first call."""
    import torch._inductor.config as inductor_config  # here: a failed import skips the peer

    fn = torch.compile(a_at_b, mode="max-autotune-no-cudagraphs", dynamic=False)
    with inductor_config.patch(max_autotune_gemm_backends="TRITON"):
        fn(a, b)
    return functools.partial(fn, a, b)


def run_squares(ceilings: dict) -> list[dict]:
    rows = []
    for dtype, dname in DTYPES.items():
        for n in benchlib.pick(SQUARES, QUICK_SQUARES):
            a, b = operands(n, n, n, dtype)
            c = torch.empty(n, n, device="cuda", dtype=dtype)
            expected = mm.reference(a, b)
            peers = {}
            if n == COMPILE_AT and not benchlib.quick():
                try:
                    peers["compile"] = compiled_matmul(a, b)
                except Exception as exc:  # a peer that cannot run is skipped, not fatal
                    print(f"  skipped torch.compile max-autotune at {n}^3 {dname}: {exc!r}")
            found = triton_and_cublas(a, b, c, expected, f"{n}^3 {dname}", peers)
            rows += found
            print(
                f"  {dname:>8} {n:>5}^3: "
                + ", ".join(f"{r['impl']} {tflops(r):.0f}" for r in found)
                + " TFLOP/s"
            )
            del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


def run_llm(ceilings: dict) -> list[dict]:
    rows = []
    dtype = torch.bfloat16
    for m in benchlib.pick(LLM_M, QUICK_LLM_M):
        a, b = operands(m, LLM_N, LLM_K, dtype, weight_layout=True)
        c = torch.empty(m, LLM_N, device="cuda", dtype=dtype)
        expected = mm.reference(a, b)
        rows += triton_and_cublas(a, b, c, expected, f"M={m}")
        t, p = rows[-2], rows[-1]
        print(
            f"  M={m:>5} x {LLM_N} x {LLM_K} bf16: triton {tflops(t):.0f}, cublas "
            f"{tflops(p):.0f} TFLOP/s ({t['bytes'] / t['time_s']['p50'] / 1e12:.2f} vs "
            f"{p['bytes'] / p['time_s']['p50'] / 1e12:.2f} TB/s)"
        )
        del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


def run_grouped(ceilings: dict) -> list[dict]:
    n, dtype = GROUPED_SIZE, torch.float16
    a, b = operands(n, n, n, dtype)
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    expected = mm.reference(a, b)
    # The autotuner's pick at this size (grouped order), then pinned for both orders.
    mm.matmul(a, b, out=c)
    config = getattr(mm.matmul_autotuned, "best_config", None) or mm.CONFIGS[0]
    kw = config.kwargs
    fields = {
        "block_m": kw["BLOCK_M"],
        "block_n": kw["BLOCK_N"],
        "block_k": kw["BLOCK_K"],
        "num_warps": config.num_warps,
        "num_stages": config.num_stages,
    }
    rows = []
    for group_m in (8, 1):
        fn = functools.partial(mm.matmul, a, b, out=c, group_m=group_m, config=config)
        timing = benchlib.check_then_time(
            fn, expected, f"matmul group_m={group_m}", out=c, **tolerance(dtype, n)
        )
        rows.append(
            {"impl": "triton", "group_m": group_m, **sizes(n, n, n, dtype), **fields, **timing}
        )
    print(
        f"  {n}^3 fp16, {kw['BLOCK_M']}x{kw['BLOCK_N']}x{kw['BLOCK_K']} "
        f"w{config.num_warps} s{config.num_stages}: grouped {tflops(rows[0]):.0f}, "
        f"row-major {tflops(rows[1]):.0f} TFLOP/s"
    )
    del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


def resources(fn) -> dict:
    """Run ``fn`` once with the autotuned kernel captured: registers per thread and
    spilled registers of the config the autotuner chose."""
    return benchlib.captured(fn, mm, "matmul_autotuned")


def cublas_then_eager(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Three kernels: cuBLAS matmul, bias add, GELU; each writes the full (M, N) result."""
    return F.gelu(a @ b + bias)


def addmm_then_gelu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Two kernels, what nn.Linear + nn.GELU run in eager: cuBLAS with the bias, then GELU."""
    return F.gelu(torch.addmm(bias, a, b))


def time_epilogue_impls(impls: dict, expected: dict, bias, c, what: str) -> list[dict]:
    """Rows for an epilogue comparison at one square size: each implementation, given as
    name: (function, has the epilogue?, writes into c?), checked against ``expected[has
    the epilogue]`` and then timed. Bytes count the bias where there is an epilogue."""
    (n, _), dtype = c.shape, c.dtype
    rows = []
    with benchlib.head_to_head():  # all of them in turn: each ratio is per round
        for impl, (fn, epilogue, into_c) in impls.items():
            timing = benchlib.check_then_time(
                fn,
                expected[epilogue],
                f"{what} {impl}",
                out=c if into_c else None,
                **tolerance(dtype, n),
                name=impl,
            )
            bias_bytes = n * bias.element_size() if epilogue else 0
            rows.append({"impl": impl, **sizes(n, n, n, dtype, bias_bytes), **timing})
    return rows


def run_epilogue(ceilings: dict) -> list[dict]:
    rows = []
    dtype = torch.bfloat16
    for n in benchlib.pick(EPILOGUE_SIZES, QUICK_EPILOGUE_SIZES):
        a, b = operands(n, n, n, dtype)
        bias = torch.randn(n, device="cuda", dtype=dtype)
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        expected = {True: mm.reference(a, b, bias, "gelu"), False: mm.reference(a, b)}
        impls = {  # name: (function, with the epilogue?, writes into c?)
            "triton_fused": (
                functools.partial(mm.matmul, a, b, bias=bias, activation="gelu", out=c),
                True,
                True,
            ),
            "cublas_eager": (functools.partial(cublas_then_eager, a, b, bias), True, False),
            "cublas_addmm": (functools.partial(addmm_then_gelu, a, b, bias), True, False),
            "triton_plain": (functools.partial(mm.matmul, a, b, out=c), False, True),
            "cublas": (functools.partial(torch.matmul, a, b, out=c), False, True),
        }
        rows += time_epilogue_impls(impls, expected, bias, c, f"matmul epilogue {n}^3")
        for r in rows[-len(impls) :]:
            if r["impl"].startswith("triton"):  # what the epilogue costs in registers
                r.update(resources(impls[r["impl"]][0]))
        t = {r["impl"]: r["time_s"]["p50"] for r in rows[-len(impls) :]}
        fused, plain = (next(r for r in rows[-len(impls) :] if r["impl"] == i) for i in TRITON)
        print(
            f"  {n}^3 bf16: fused {t['triton_fused'] * 1e3:.3f} ms, cuBLAS + eager "
            f"{t['cublas_eager'] * 1e3:.3f} ms ({t['cublas_eager'] / t['triton_fused']:.2f}x), "
            f"addmm + gelu {t['cublas_addmm'] * 1e3:.3f} ms "
            f"({t['cublas_addmm'] / t['triton_fused']:.2f}x); registers (spills) fused "
            f"{fused['n_regs']} ({fused['n_spills']}), "
            f"plain {plain['n_regs']} ({plain['n_spills']})"
        )
        del a, b, bias, c, expected
    torch.cuda.empty_cache()
    return rows


# matmul_configs: lesson 13's sweep. Every config of the autotuner's list and the tile
# shapes around them, each with a few warps/stages settings, at one problem per dtype.
SWEEP_SIZE = 4096
SWEEP_TILES = [(128, 256, 64), (256, 128, 64), (128, 128, 64), (128, 128, 128), (64, 256, 32),
               (128, 64, 64), (64, 128, 64), (64, 64, 128), (64, 64, 64)]  # fmt: skip
SWEEP_WARPS_STAGES = [(4, 3), (4, 4), (8, 3), (8, 4), (8, 5)]


def sweep_configs() -> list:
    """The sweep's configs: SWEEP_TILES x SWEEP_WARPS_STAGES, plus any config of the
    autotuner's list not already in it."""
    tiles = benchlib.pick(SWEEP_TILES, SWEEP_TILES[:3])
    configs = [
        mm.make_config(bm, bn, bk, w, st)
        for bm, bn, bk in tiles
        for w, st in benchlib.pick(SWEEP_WARPS_STAGES, [(4, 3), (8, 3)])
    ]
    seen = {config_key(c) for c in configs}
    return configs + [c for c in mm.CONFIGS if config_key(c) not in seen]


def config_key(c) -> tuple:
    kw = c.kwargs
    return (kw["BLOCK_M"], kw["BLOCK_N"], kw["BLOCK_K"], c.num_warps, c.num_stages)


def run_configs(ceilings: dict) -> list[dict]:
    rows = []
    n = SWEEP_SIZE
    for dtype, dname in ((torch.bfloat16, "bfloat16"),):
        a, b = operands(n, n, n, dtype)
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        expected = mm.reference(a, b)
        mm.matmul(a, b, out=c)  # the autotuner's choice for this problem, in this run
        pick = config_key(mm.matmul_autotuned.best_config)
        for config in sweep_configs():
            bm, bn, bk, warps, stages = config_key(config)
            row = {
                "impl": "triton",
                **sizes(n, n, n, dtype),
                "group_m": 8,
                "block_m": bm,
                "block_n": bn,
                "block_k": bk,
                "num_warps": warps,
                "num_stages": stages,
                "autotuner_pick": config_key(config) == pick,
            }
            fn = functools.partial(mm.matmul, a, b, out=c, config=config)
            try:
                capture = benchlib.Capture(mm.matmul_kernel)
                mm.matmul_kernel = capture
                try:
                    fn()
                finally:
                    mm.matmul_kernel = capture.kernel
                timing = benchlib.check_then_time(
                    fn, expected, f"matmul config {config_key(config)}", out=c,
                    **tolerance(dtype, n),
                )  # fmt: skip
            except ValueError as exc:  # the wrapper refuses what does not fit the GPU
                row["failure"] = str(exc)[:300]
            else:
                row.update(timing)
                res = benchlib.kernel_resources(capture.compiled)
                row.update({k: v for k, v in res.items() if v is not None})
                # What the compiler allocated, to set against shared_memory_bytes' estimate.
                shared = getattr(getattr(capture.compiled, "metadata", None), "shared", None)
                if shared is not None:
                    row["shared_bytes"] = int(shared)
            rows.append(row)
        ok = [r for r in rows if "time_s" in r]
        best = max(ok, key=tflops)
        picked = next(r for r in rows if r["autotuner_pick"])
        print(
            f"  {dname} {n}^3: {len(ok)} of {len(rows)} configs ran; best "
            f"{best['block_m']}x{best['block_n']}x{best['block_k']} w{best['num_warps']} "
            f"s{best['num_stages']} {tflops(best):.0f} TFLOP/s; the autotuner's pick "
            + (f"{tflops(picked):.0f}" if "time_s" in picked else "failed")
        )
        del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


# matmul_autotune_cost: lesson 13's price of @triton.autotune. The first call for a new key
# compiles every config and times each with do_bench; later calls look the winner up.
AUTOTUNE_SIZE = 2048
AUTOTUNE_COUNTS = (1, 2, 4, 8)  # the first so many configs of mm.CONFIGS


def autotuner(configs: list, kernel):
    """``kernel`` behind a new @triton.autotune over ``configs``, with the key and pruning
    of mm.matmul_autotuned: a new, empty cache of winners."""
    return triton.autotune(
        configs=configs,
        key=list(mm.matmul_autotuned.keys),
        prune_configs_by={"early_config_prune": mm.configs_that_fit},
    )(kernel)


def enqueue_times(fn, calls: int = 200) -> dict:
    """Host time of each of ``calls`` calls, timed one by one without synchronising (the
    GPU runs behind; at 2048^3 a call's GPU work is shorter than its host path, so the
    launch queue never fills and each sample is the host's cost of that call)."""
    samples = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    return benchlib.spread(samples)


def first_call(fn) -> float:
    """Wall time of one call, synchronised: everything it does, GPU work included."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def run_autotune_cost(ceilings: dict) -> list[dict]:
    n, dtype = AUTOTUNE_SIZE, torch.bfloat16
    a, b = operands(n, n, n, dtype)
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    expected = mm.reference(a, b)
    tol = tolerance(dtype, n)
    fn = functools.partial(mm.matmul, a, b, out=c)
    rows = []
    for count in AUTOTUNE_COUNTS:
        configs = mm.CONFIGS[:count]
        # A new JIT function too (triton.jit of the same Python function): none of the
        # kernels compiled earlier in this process is reused.
        tuner = autotuner(configs, triton.jit(mm.matmul_kernel.fn))
        row = {"impl": "triton", **sizes(n, n, n, dtype), "configs": count}
        # An empty on-disk cache: every config of this tuner is compiled from source.
        with tempfile.TemporaryDirectory() as cache_dir, triton.knobs.cache.scope():
            triton.knobs.cache.dir = cache_dir
            saved = mm.matmul_autotuned
            mm.matmul_autotuned = tuner  # mm.matmul launches whatever this name holds
            try:
                c.fill_(float("nan"))
                row["first_call_s"] = first_call(fn)
                benchlib.check(c, expected, f"autotune {count} configs, first call", **tol)
                if getattr(tuner, "bench_time", None) is not None and count > 1:
                    row["bench_time_s"] = tuner.bench_time  # the tuner's own clock
                row["host_s"] = enqueue_times(fn)  # the winner, looked up by key
                # Control: the same kernels already compiled (in memory), a new tuner: the
                # first call now only benchmarks.
                mm.matmul_autotuned = autotuner(configs, tuner.fn)
                c.fill_(float("nan"))
                row["tune_only_s"] = first_call(fn)
                benchlib.check(c, expected, f"autotune {count} configs, compiled", **tol)
            finally:
                mm.matmul_autotuned = saved
        pick = tuner.best_config
        bm, bn, bk, warps, stages = config_key(pick)
        row.update(
            {"block_m": bm, "block_n": bn, "block_k": bk, "num_warps": warps, "num_stages": stages}
        )
        # Control for the lookup: the picked config passed to the wrapper, no autotuner.
        pinned = functools.partial(mm.matmul, a, b, out=c, config=pick)
        pinned()
        row["pinned_host_s"] = enqueue_times(pinned)
        rows.append(row)
        print(
            f"  {count} config(s): first call {row['first_call_s']:.2f} s, of which "
            f"benchmarking alone {row['tune_only_s']:.2f} s; later calls "
            f"{row['host_s']['p50'] * 1e6:.0f} us on the host "
            f"(pinned config {row['pinned_host_s']['p50'] * 1e6:.0f} us)"
        )
    del a, b, c, expected
    torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "matmul_configs",
        "Lesson 13's config sweep: kernels/matmul.py with one fixed config per row (tiles "
        f"{SWEEP_TILES} x (num_warps, num_stages) {SWEEP_WARPS_STAGES}, plus every config of "
        "the autotuner's list), group_m = 8, bf16, 4096^3, random normal inputs, checked "
        "against reference() then timed (do_bench, L2 flushed). failure: the wrapper's "
        "refusal where a config needs more shared memory than the GPU has. autotuner_pick: "
        "the config matmul_autotuned chose for the same problem in the same run.",
        run_configs,
    ),
    benchlib.Benchmark(
        "matmul",
        "C = A @ B for square sizes 512..8192, fp16 and bf16, random normal inputs: "
        "kernels/matmul.py autotuned (group_m=8) and torch.matmul (cuBLAS), both into a "
        "preallocated C; at 4096^3 only, torch.compile(mode='max-autotune-no-cudagraphs', "
        "dynamic=False) restricted to Inductor's Triton GEMM templates "
        "(max_autotune_gemm_backends='TRITON'), one size because its autotuning is slow. "
        "Device time (do_bench, L2 flushed). FLOPs = 2*M*N*K; bytes = A, B read once + C "
        "written once.",
        run_squares,
    ),
    benchlib.Benchmark(
        "matmul_llm",
        "LLM MLP up-projection shapes, bf16: A (M tokens x 4096) @ W.t() with W a "
        "contiguous 14336 x 4096 weight (nn.Linear's layout), M = 16, 128, 1024, 4096; "
        "kernels/matmul.py autotuned vs torch.matmul (cuBLAS), into a preallocated C. "
        "Device time (do_bench, L2 flushed). FLOPs = 2*M*N*K; bytes = A, W read once + C "
        "written once.",
        run_llm,
    ),
    benchlib.Benchmark(
        "matmul_grouped",
        "Program order at 8192^3 fp16: kernels/matmul.py with one config (the autotuner's "
        "pick at this size, recorded in each row) and group_m = 8 (grouped) or 1 "
        "(row-major). Device time (do_bench, L2 flushed). FLOPs = 2*M*N*K.",
        run_grouped,
    ),
    benchlib.Benchmark(
        "matmul_epilogue",
        "GELU(A @ B + bias) (exact erf GELU), bf16, 4096^3 and 8192^3: triton_fused = "
        "kernels/matmul.py with bias and activation in its epilogue; cublas_eager = "
        "F.gelu(a @ b + bias) (three kernels); cublas_addmm = F.gelu(torch.addmm(bias, a, "
        "b)) (two kernels, as nn.Linear + nn.GELU); triton_plain and cublas = the matmul "
        "alone, for the epilogue's cost. Device time (do_bench, L2 flushed). FLOPs = "
        "2*M*N*K; bytes = A, B (and bias) read once + C written once. Triton rows: n_regs "
        "and n_spills of the compiled kernel the autotuner chose.",
        run_epilogue,
    ),
    benchlib.Benchmark(
        "matmul_autotune_cost",
        "What @triton.autotune costs on the first call: kernels/matmul.py's kernel behind a "
        f"new autotuner (same key and pruning as matmul_autotuned) over the first "
        f"{AUTOTUNE_COUNTS} configs of CONFIGS, bf16 {AUTOTUNE_SIZE}^3, group_m = 8. Per "
        "count: a fresh triton.jit of the kernel and an empty TRITON_CACHE_DIR, so every "
        "config compiles; first_call_s = wall time of the first wrapper call, synchronised "
        "(compile + do_bench of every config + the run); bench_time_s = the autotuner's own "
        "bench_time (absent with one config: nothing to time); tune_only_s = the first call "
        "of a second new autotuner over the already compiled kernel (benchmarking without "
        "compiling); host_s = host time per later call (enqueue, one call per sample, 200 "
        "calls); pinned_host_s = the same with the picked config passed as config=, no "
        "autotuner. One cold first call per count, so first_call_s and tune_only_s are "
        "single samples. block_m..num_stages: the config the autotuner picked.",
        run_autotune_cost,
    ),
]
