"""What torch.compile writes for the book's peers, and what its graph breaks and
recompiles cost: lesson 14.

- Code rows (``kind: "code"``): torch.compile (Dynamo, AOT Autograd, Inductor) of lesson
  08's eager op chain (scripts/bench/benchmarks/fused_activation.py's ``chain``: x + bias, exact
  GELU, * mask) and of lesson 11's eager RMSNorm formula (scripts/bench/benchmarks/rmsnorm.py's
  ``eager_rms_norm``), forward only, with Inductor's caches off so that it generates the
  code now. Each row keeps the source of one Triton kernel Inductor wrote, as it wrote it,
  read from the output code (``torch._inductor.utils.run_and_get_code``), and how many
  Triton kernels the compiled function launches. The result is checked against the
  family's reference first.
- Cost rows (``kind: "cost"``): the first call of a compiled function (Dynamo tracing,
  Inductor code generation, Triton compiling; caches off), the first call on a new shape
  (a recompile), and the host time per call of kernels/_compile_examples.py's ``clipped``
  (one graph break) against ``clipped_whole`` (the same values in one graph) and eager.
"""

from __future__ import annotations

import functools
import re
import time

import torch

from kernels import _compile_examples as ex
from kernels import fused_activation as fa
from kernels import rmsnorm as rn
from scripts.bench import benchlib
from scripts.bench.benchmarks.fused_activation import chain
from scripts.bench.benchmarks.rmsnorm import eager_rms_norm

ACT_M, ACT_N = 8192, 4096  # lesson 08's width, a size well past the L2
ACT_M_NEW = 4096  # the new shape of the recompile
NORM_M, NORM_H = 4096, 4096
DTYPE = torch.bfloat16
CLIP_N = 1 << 20
HOST_CALLS = 500
# One Triton kernel in Inductor's output code: the name and the source it compiles.
KERNEL = re.compile(r"async_compile\.triton\(\s*'(?P<name>\w+)',\s*'''(?P<src>.*?)'''", re.S)


def triton_kernels(code: str) -> list[tuple[str, str]]:
    """(name, source) of every Triton kernel in one of Inductor's output-code modules."""
    return [(m["name"], m["src"].strip("\n")) for m in KERNEL.finditer(code)]


def launches(code: str, names: list[str]) -> int:
    """How many kernel launches (``name.run(``) the output code's ``call`` makes."""
    return sum(len(re.findall(rf"\b{name}\.run\(", code)) for name in names)


def fresh(fn, **options):
    torch._dynamo.reset()
    return torch.compile(fn, **options)


def first_call(fn) -> float:
    """Wall time of one call, to the GPU's end: for a compiled function's first call on
    a shape, tracing, code generation and compiling included."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def code_rows(peer: str, fn, args: tuple, expected: torch.Tensor, tol: float):
    """Compile ``fn`` afresh, call it once on ``args`` and check the result; the rows of
    the Triton kernels Inductor wrote, the compiled function, and the wall time of that
    first call (tracing, code generation and compiling included)."""
    from torch._inductor.utils import run_and_get_code

    compiled = fresh(fn, dynamic=False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    result, codes = run_and_get_code(compiled, *args)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    benchlib.check(result, expected, f"inductor_code {peer}", exact=False, rtol=tol, atol=tol)
    rows = []
    for code in codes:
        found = triton_kernels(code)
        count = launches(code, [name for name, _ in found])
        for name, src in found:
            rows.append(
                {
                    "kind": "code",
                    "peer": peer,
                    "kernel": name,
                    "text": src,
                    "lines": src.count("\n") + 1,
                    "launches": count,
                    "shape": list(args[0].shape),
                    "dtype": str(args[0].dtype).replace("torch.", ""),
                }
            )
    if not rows:
        raise AssertionError(f"inductor_code {peer}: no Triton kernel in Inductor's output")
    return rows, compiled, seconds


def cost_row(case: str, what: str, samples: list[float] | dict, **extra) -> dict:
    spread = samples if isinstance(samples, dict) else benchlib.spread(samples)
    return {"kind": "cost", "case": case, "what": what, "time_s": spread, **extra}


def activation_inputs(m: int):
    x = torch.randn(m, ACT_N, device="cuda").to(DTYPE)
    bias = torch.randn(ACT_N, device="cuda").to(DTYPE)
    mask = ((torch.rand(m, ACT_N, device="cuda") >= 0.1).float() / 0.9).to(DTYPE)
    return x, bias, mask


def run(ceilings: dict) -> list[dict]:
    config = torch._dynamo.config
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    rows = []
    with torch._inductor.config.patch(force_disable_caches=True), config.patch(**{limit: 8}):
        # ---- the code Inductor writes, and the first call that writes it ---------------
        xn = torch.randn(NORM_M, NORM_H, device="cuda").to(DTYPE)
        weight = (1 + 0.5 * torch.randn(NORM_H, device="cuda")).to(DTYPE)
        norm_rows, _, _ = code_rows(
            "rmsnorm", eager_rms_norm, (xn, weight, 1e-6), rn.reference(xn, weight), 2**-6
        )
        x, bias, mask = activation_inputs(ACT_M)
        act_rows, compiled, seconds = code_rows(
            "fused_activation", chain, (x, bias, mask, "none"), fa.reference(x, bias, mask), 2**-6
        )
        rows += act_rows + norm_rows
        rows.append(
            cost_row(
                "first_call",
                f"first call of torch.compile(chain, dynamic=False), x ({ACT_M}, {ACT_N}), "
                "caches off (after one other compile in the process)",
                [seconds],
            )
        )
        # ---- a new shape: the guards fail and it compiles again --------------------------
        x2, bias2, mask2 = activation_inputs(ACT_M_NEW)
        rows.append(
            cost_row(
                "recompile",
                f"first call on a new shape, x ({ACT_M_NEW}, {ACT_N}): a recompile",
                [first_call(functools.partial(compiled, x2, bias2, mask2, "none"))],
            )
        )
        rows.append(
            cost_row(
                "cached_call",
                f"a later call on a shape seen before, x ({ACT_M}, {ACT_N}): wall time per call",
                benchlib.host_time(functools.partial(compiled, x, bias, mask, "none"), calls=50),
            )
        )

        # ---- a graph break ---------------------------------------------------------------
        xc = 8 * torch.randn(CLIP_N, device="cuda")
        expected = ex.clipped_whole(xc)
        cases = (
            ("eager", ex.clipped, False, "clipped, eager"),
            ("graph_break", ex.clipped, True, "torch.compile(clipped): one graph break"),
            ("whole", ex.clipped_whole, True, "torch.compile(clipped_whole): one graph"),
        )
        for case, source, compile_it, what in cases:
            torch._dynamo.reset()
            graphs = torch._dynamo.explain(source)(xc).graph_count if compile_it else 0
            fn = fresh(source) if compile_it else source
            call = functools.partial(fn, xc)
            got = call()
            torch.cuda.synchronize()
            benchlib.check(
                got, expected, f"inductor_code {case}", exact=False, rtol=1e-5, atol=1e-5
            )
            rows.append(cost_row(case, what, benchlib.host_time(call, HOST_CALLS), graphs=graphs))
    for r in rows:
        if r["kind"] == "code":
            print(f"  {r['peer']}: {r['kernel']} ({r['lines']} lines, {r['launches']} launches)")
        else:
            print(f"  {r['case']}: {r['time_s']['p50'] * 1e3:.3f} ms ({r['what']})")
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "inductor_code",
        "What torch.compile (Inductor) generates and what its graph breaks and recompiles "
        "cost. code rows: the Triton kernels Inductor wrote for lesson 08's eager chain "
        "(x + bias, exact GELU, * mask; x (8192, 4096) bf16) and for lesson 11's eager "
        "RMSNorm formula (x (4096, 4096) bf16), forward only, dynamic=False, Inductor's "
        "caches off, read from the output code by run_and_get_code, with the number of "
        "Triton launches per call. cost rows: wall time of the first call of the compiled "
        "chain (caches off), of its first call on a new shape (4096 rows: a recompile), host "
        "time per later call (loops of 50), and host time per call (loops of 500) of "
        "kernels/_compile_examples.py's clipped eager, compiled (one graph break, .item()) "
        "and clipped_whole compiled (one graph) on 2**20 floats, with Dynamo's graph count.",
        run,
    ),
]
