"""Benchmarks of the fused-activation family (kernels/fused_activation.py): lesson 08.

- ``fused_activation``: ``gelu(x + bias) * mask`` three ways, timed side by side: the
  Triton kernel, the eager PyTorch chain (three kernels) and ``torch.compile`` of that
  chain. A size sweep (bf16, exact GELU, with a dropout-style keep mask, N = 4096, M from
  256 to 32768 rows) and, at the largest size, the variants: fp16 and fp32, the tanh
  approximation, and no mask. Each row also counts the CUDA kernels one call launches
  (torch.profiler), and Triton rows carry the compiled kernel's registers, spills and the
  global loads in its PTX.
"""

from __future__ import annotations

import functools

import torch

from kernels import fused_activation as fa
from scripts.bench import benchlib

N = 4096  # columns: a transformer's hidden size
SWEEP_M = [256, 1024, 4096, 16384, 32768]  # bf16 x: 2 MiB .. 256 MiB
LARGEST = SWEEP_M[-1]
# Below the L2 a call is short enough that its host path may be what do_bench times: at
# these sizes each row also records the host's time per call (loops of back-to-back calls).
HOST_M = SWEEP_M[:2]
DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
# (dtype, approximate, with mask): the sweep's case, then the variants at the largest size
SWEEP_CASE = (torch.bfloat16, "none", True)
VARIANTS = [
    (torch.bfloat16, "tanh", True),
    (torch.bfloat16, "none", False),
    (torch.float16, "none", True),
    (torch.float32, "none", True),
]
DROP_P = 0.1  # the keep mask holds 0 (dropped) or 1 / (1 - p) (kept)
# Check tolerances (rtol, atol) against reference(), float64 rounded once. Eager PyTorch
# rounds to the dtype after each of its three ops, so half precision needs a few ulps.
CHECK_TOL = {
    torch.float32: (2e-5, 2e-5),
    torch.float16: (4e-3, 2e-3),
    torch.bfloat16: (3.2e-2, 1.6e-2),
}


# --8<-- [start:peers]
def chain(x, bias, mask, approximate):
    """The op chain as eager PyTorch runs it: add, GELU, multiply (3 kernels; 2 with no mask)."""
    y = torch.nn.functional.gelu(x + bias, approximate=approximate)
    return y * mask if mask is not None else y


# --8<-- [end:peers]


def inputs(m: int, dtype: torch.dtype, with_mask: bool):
    # randn in fp32, then rounded: never all zeros, which would hide unwritten outputs
    x = torch.randn(m, N, device="cuda").to(dtype)
    bias = torch.randn(N, device="cuda").to(dtype)
    mask = None
    if with_mask:
        keep = torch.rand(m, N, device="cuda") >= DROP_P
        mask = (keep.float() / (1 - DROP_P)).to(dtype)
    return x, bias, mask


def min_bytes(m: int, dtype: torch.dtype, with_mask: bool) -> int:
    """Each input read once, the output written once: x, mask and out are M x N, bias N."""
    s = torch.finfo(dtype).bits // 8
    return (3 if with_mask else 2) * m * N * s + N * s


def kernels_per_call(fn) -> int | None:
    """CUDA kernels one call of ``fn`` launches, from torch.profiler's activity records
    (CUPTI tracing, which needs no hardware counters). None if the profiler cannot run."""
    try:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            fn()
            torch.cuda.synchronize()
        cuda = torch.autograd.DeviceType.CUDA
        names = [e.name for e in prof.events() if e.device_type == cuda]
        return sum(1 for name in names if not name.startswith(("Memcpy", "Memset"))) or None
    except Exception as exc:  # noqa: BLE001 - a profiler that cannot run is reported, not fatal
        print(f"    kernel count skipped: {exc!r}")
        return None


def triton_resources(x, bias, mask, out, approximate: str) -> dict:
    """Registers, spills and PTX global loads of the kernel the wrapper launched: the
    wrapper's own launch (``fa.launch``, tile from ``fa.plan``), so the same compiled
    kernel from Triton's cache."""
    cap = benchlib.Capture(fa.bias_gelu_mask_kernel)
    fa.bias_gelu_mask_kernel = cap
    try:
        fa.launch(x, bias, mask, out, approximate=approximate)
    finally:
        fa.bias_gelu_mask_kernel = cap.kernel
    kernel = cap.compiled
    return {**benchlib.kernel_resources(kernel), "ptx_loads": benchlib.ptx_loads(kernel.asm["ptx"])}


def run_case(
    m: int, dtype: torch.dtype, approximate: str, with_mask: bool, host: bool = False
) -> list[dict]:
    dname = DTYPES[dtype]
    x, bias, mask = inputs(m, dtype, with_mask)
    out = torch.empty_like(x)
    expected = fa.reference(x, bias, mask, approximate)
    rtol, atol = CHECK_TOL[dtype]
    impls = {
        "triton": functools.partial(
            fa.bias_gelu_mask, x, bias, mask, approximate=approximate, out=out
        ),
        "eager": functools.partial(chain, x, bias, mask, approximate),
    }
    try:
        # One compiled function per case, shapes fixed: the best torch.compile can do.
        compiled = torch.compile(chain, dynamic=False)
        impls["compile"] = functools.partial(compiled, x, bias, mask, approximate)
    except Exception as exc:  # noqa: BLE001
        print(f"    torch.compile skipped: {exc!r}")
    rows = []
    for impl, fn in impls.items():
        what = f"fused_activation {impl} {m}x{N} {dname} gelu={approximate} mask={with_mask}"
        try:
            timing = benchlib.check_then_time(
                fn,
                expected,
                what,
                out=out if impl == "triton" else None,
                exact=False,
                rtol=rtol,
                atol=atol,
                host=host,
            )
        except AssertionError:
            raise  # a wrong answer is a finding, never a skip
        except Exception as exc:  # noqa: BLE001 - e.g. torch.compile failing to build
            if impl == "triton":
                raise
            print(f"    {impl} skipped: {exc!r}")
            continue
        row = {
            "impl": impl,
            "dtype": dname,
            "approximate": approximate,
            "mask": with_mask,
            "m": m,
            "n": N,
            "bytes": min_bytes(m, dtype, with_mask),
            **timing,
            "kernels": kernels_per_call(fn),
        }
        if impl == "triton":
            row.update(triton_resources(x, bias, mask, out, approximate))
        rows.append(row)
    del x, bias, mask, out, expected
    speeds = ", ".join(f"{r['impl']} {r['bytes'] / r['time_s']['p50'] / 1e12:.2f}" for r in rows)
    print(f"  {dname:>8} gelu={approximate:<4} mask={with_mask!s:<5} M={m:>5}: {speeds} TB/s")
    return rows


def run(ceilings: dict) -> list[dict]:
    # Every case compiles the same function again with new guards: raise dynamo's limit
    # (8 by default) so that no case silently falls back to eager.
    config = torch._dynamo.config
    names = [k for k in ("recompile_limit", "cache_size_limit") if hasattr(config, k)]
    saved = {k: getattr(config, k) for k in names}
    for k in names:
        setattr(config, k, max(saved[k], 64))
    try:
        rows = []
        benchlib.warm_up()
        for m in SWEEP_M:
            rows += run_case(m, *SWEEP_CASE, host=m in HOST_M)
        for case in VARIANTS:
            rows += run_case(LARGEST, *case)
    finally:
        for k, v in saved.items():
            setattr(config, k, v)
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "fused_activation",
        "out = gelu(x + bias) * mask with kernels/fused_activation.py (default tiles), the "
        "eager PyTorch chain (x + bias, F.gelu, * mask) and torch.compile of that chain "
        "(dynamic=False, one compile per case); x (M, 4096), bias (4096,), mask a dropout "
        "keep mask (0 or 1/(1-p), p = 0.1). Sweep: bfloat16, exact GELU, with mask, M = "
        "256..32768; at M = 32768 also tanh GELU, no mask, float16 and float32. Each checked "
        "against reference() (float64, rounded once) with rtol/atol per dtype, then timed "
        "(do_bench, L2 flushed); at M = 256 and 1024 also the host's wall time per call "
        "(host_s: loops of back-to-back calls, synchronised at the end). Bytes = each input "
        "read once + output written once: "
        "(3 or 2) * M * N * size + N * size for every impl. kernels = CUDA kernels per call "
        "(torch.profiler); Triton rows: n_regs, n_spills and the PTX's global loads of the "
        "compiled kernel. Roofline FLOPs: 7 per element, erf counted as one.",
        run,
    ),
]
