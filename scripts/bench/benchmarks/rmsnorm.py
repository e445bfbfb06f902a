"""Benchmarks of the RMSNorm family (kernels/rmsnorm.py): lesson 11.

- ``rmsnorm``: forward and backward bandwidth against hidden size H, with M = 2**28 / H
  rows (x is 512 MiB in bf16 at every width), bf16 at five widths and fp32 at one: the
  book's kernels, the eager formula, torch.compile of the same formula, ``F.rms_norm``
  and Liger-Kernel's RMSNorm (when ``liger_kernel`` is importable), all timed in the
  same loop. The book's rows also carry the compiled kernels' registers and spills, and
  the time of the backward's second stage alone.
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F

from kernels import rmsnorm as rn
from scripts.bench import benchlib

try:  # a peer, never a dependency: without it the benchmark runs without its rows
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
except ImportError as exc:
    LigerRMSNormFunction = None
    LIGER_MISSING = f"{type(exc).__name__}: {exc}"

# M x H = 2**28 elements at every width: x alone is 512 MiB in bf16, ten times the H100's
# L2, and one backward moves at least 1.5 GiB. Smaller problems let do_bench time the
# host's autograd path instead of the GPU: with M fixed at 16384, the narrow widths took
# ~30-60 us per call; at 2**27 elements the H200's backward (about 230 us of kernels) was
# still shorter than its host's autograd call (about 300 us). Lesson 11 shows both
# (rmsnorm_small_m is the control).
ELEMENTS = 2**28
SMALL_M, SMALL_M_HIDDEN = 16384, [1024, 2048, 4096]  # the control, rmsnorm_small_m
# rmsnorm_bwd_sweep: the backward's launch shapes tried (programs per SM, warps, elements
# per step), at three widths.
SWEEP_HIDDEN = [1024, 4096, 8192, 16384]
SWEEP_SHAPES = [
    (per_sm, warps, tile, True)
    for per_sm in (1, 2, 4)
    for warps in (4, 8, 16, 32)
    for tile in (2048, 4096, 8192)
]
# At 16384 columns a step is one whole row: the sweep there is whether to load the next row
# ahead (PREFETCH) or not, on 16 or 32 warps, 1 or 2 programs per SM.
WIDE_SHAPES = [
    (per_sm, warps, 16384, prefetch)
    for per_sm in (1, 2)
    for warps in (16, 32)
    for prefetch in (True, False)
]
HIDDEN = {torch.bfloat16: [1024, 2048, 4096, 8192, 16384], torch.float32: [4096]}
DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
# measure.py --quick: one width of each benchmark (bf16 4096 for the comparison and sweep).
QUICK_HIDDEN = {torch.bfloat16: [4096]}
QUICK_SWEEP_HIDDEN, QUICK_SMALL_M_HIDDEN = [4096], [1024]
EPS = 1e-6
# Results are checked against the float64 reference rounded to the dtype, not bit for bit:
# each implementation rounds its float32 work once or twice. Liger-Kernel's default
# "llama" mode rounds x * rstd to the dtype before the weight (y within two units in the
# last place) and rounds each dy * x_hat term of dweight to bf16 before adding it up (over
# 16384 rows, an error of about 2 on values around 100, emulated on the CPU; it grows like
# the square root of the rows). So: two ulps,
# an atol for dx near zero, and for dweight an atol that still fails any wrong formula.
RTOL = {torch.bfloat16: 2**-6, torch.float16: 2**-9, torch.float32: 1e-5}
ATOL_DX = 1e-4
ATOL_DW = {torch.bfloat16: 4.0, torch.float16: 0.5, torch.float32: 0.05}


def eager_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """The formula as a reader would write it: float32 statistics, one rounding at the end."""
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * rstd * weight.float()).to(x.dtype)


def backward_step(y: torch.Tensor, inputs: tuple, dy: torch.Tensor) -> torch.Tensor:
    """One backward through y's retained graph; returns dx (dweight is computed too)."""
    return torch.autograd.grad(y, inputs, dy, retain_graph=True)[0]


def functional_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """torch's own: F.rms_norm over the last dimension."""
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


def liger_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Liger-Kernel with LigerRMSNorm's defaults: offset 0, "llama" casting, and
    in_place=True, which writes dx over dy (so it gets a dy of its own)."""
    return LigerRMSNormFunction.apply(x, weight, eps, 0.0, "llama", True)


def implementations() -> dict:
    """impl -> forward function f(x, weight, eps), in the order they are timed."""
    impls = {
        "triton": rn.rms_norm,
        "eager": eager_rms_norm,
        # A fresh compiled function for each shape, specialised to it (dynamic=False).
        "compile": torch.compile(eager_rms_norm, dynamic=False),
        "rms_norm": functional_rms_norm,
    }
    if LigerRMSNormFunction is not None:
        impls["liger"] = liger_rms_norm
    return impls


def expected_results(x, w, dy):
    """y, dx, dweight in float64 by autograd through ``reference``, rounded to the dtypes."""
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_()
    y64 = rn.reference(x64, w64, EPS)
    dx64, dw64 = torch.autograd.grad(y64, (x64, w64), dy.double())
    return y64.detach().to(x.dtype), dx64.to(x.dtype), dw64.to(w.dtype)


def resources(x, w, dy) -> dict:
    """Registers and spills of the three compiled kernels, launched as the wrapper launches
    them; the device time of the backward's second stage (summing the partial rows); and,
    the control for timing through autograd, the device time of each direction's kernels
    launched directly."""
    n_rows, hidden = x.shape
    y, rstd = torch.empty_like(x), torch.empty(n_rows, device="cuda")
    forward = functools.partial(direct_forward, x, w, y, rstd)
    fwd = forward()
    programs, rows_per_program, bblock, step_rows, warps, prefetch = rn.plan(
        n_rows, hidden, x.get_device(), backward=True
    )
    partial = torch.empty(programs, hidden, device="cuda")
    dx, dw = torch.empty_like(x), torch.empty_like(w)
    backward = functools.partial(
        direct_backward, dy, x, w, rstd, dx, partial, dw, rows_per_program, bblock, step_rows,
        warps, prefetch,
    )  # fmt: skip
    bwd = backward()
    stage2 = functools.partial(direct_dw, partial, dw)
    return {
        "forward": {
            "num_warps": rn.plan(n_rows, hidden)[2],
            **benchlib.kernel_resources(fwd),
            "kernels_time_s": benchlib.device_time(forward),
        },
        "backward": {
            "num_warps": warps,
            "rows_per_step": step_rows,
            "programs": programs,
            **benchlib.kernel_resources(bwd),
            "dw_time_s": benchlib.device_time(stage2, warmup_ms=10, rep_ms=50),
            "kernels_time_s": benchlib.device_time(backward),
        },
    }


def direct_forward(x, w, y, rstd):
    """The forward kernel, launched as the wrapper launches it; returns the compiled kernel."""
    programs, block, num_warps = rn.plan(*x.shape)
    return rn.rmsnorm_fwd_kernel[(programs,)](
        x, w, y, rstd, x.shape[1], x.stride(0), EPS, BLOCK=block, num_warps=num_warps
    )


def direct_dw(partial, dw):
    """The backward's second stage: the partial rows of dweight summed in a fixed order."""
    programs, hidden = partial.shape
    rn.rmsnorm_dw_kernel[(math.ceil(hidden / rn.DW_BLOCK_N),)](
        partial, dw, programs, hidden, BLOCK_P=rn.DW_BLOCK_P, BLOCK_N=rn.DW_BLOCK_N,
        num_warps=4,
    )  # fmt: skip


def direct_backward(
    dy, x, w, rstd, dx, partial, dw, rows_per_program, block, steps, warps, prefetch=True
):
    """Both backward kernels, launched directly with the given shape; returns the first's
    compiled object (registers, spills)."""
    n_rows, hidden = x.shape
    k = rn.rmsnorm_bwd_kernel[(partial.shape[0],)](
        dy, x, w, rstd, dx, partial, n_rows, hidden, rows_per_program, dy.stride(0),
        x.stride(0), BLOCK=block, ROWS=steps, PREFETCH=prefetch, num_warps=warps,
    )  # fmt: skip
    direct_dw(partial, dw)
    return k


def run_backward_sweep(ceilings: dict) -> list[dict]:
    """The backward's launch shape, swept: programs per SM x warps x elements per step, at
    three widths, bf16, M x H = ELEMENTS. The kernels alone (backward + second stage), launched
    directly; each configuration's dx and dweight are checked against the wrapper's first."""
    rows = []
    dtype = torch.bfloat16
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for hidden in benchlib.pick(SWEEP_HIDDEN, QUICK_SWEEP_HIDDEN):
        n_rows = ELEMENTS // hidden
        x = torch.randn(n_rows, hidden, device="cuda").to(dtype)
        w = (1 + 0.1 * torch.randn(hidden, device="cuda")).to(dtype)
        dy = torch.randn(n_rows, hidden, device="cuda").to(dtype)
        _, rstd = rn.launch_forward(x, w, EPS)
        dx_ref, dw_ref = rn.launch_backward(dy, x, w, rstd)
        block = rn.plan(n_rows, hidden)[1]
        for per_sm, warps, tile, prefetch in SWEEP_SHAPES if hidden < 16384 else WIDE_SHAPES:
            step_rows = max(1, min(rn.BACKWARD_MAX_ROWS, tile // block))
            per_thread = step_rows * block // (32 * warps)
            if tile < block or not 1 <= per_thread <= 64:  # no such step / too many values
                continue
            # The grid as the wrapper would make it from per_sm * sms programs.
            programs, rows_per_program, *_ = rn.plan(
                n_rows, hidden, backward=True, programs=per_sm * sms
            )
            partial = torch.empty(programs, hidden, device="cuda")
            dx, dw = torch.empty_like(x), torch.empty_like(w)
            both = functools.partial(
                direct_backward, dy, x, w, rstd, dx, partial, dw, rows_per_program,
                block, step_rows, warps, prefetch,
            )  # fmt: skip
            compiled = both()
            torch.cuda.synchronize()
            what = f"rmsnorm sweep H={hidden} {per_sm}/SM {warps} warps tile {tile} {prefetch=}"
            rtol = RTOL[dtype]
            benchlib.check(dx, dx_ref, f"{what} dx", exact=False, rtol=rtol, atol=ATOL_DX)
            # A different number of partial rows adds in a different order: a tolerance.
            benchlib.check(dw, dw_ref, f"{what} dweight", exact=False, rtol=rtol, atol=1.0)
            rows.append(
                {
                    "dtype": DTYPES[dtype],
                    "rows": n_rows,
                    "hidden": hidden,
                    "programs_per_sm": per_sm,
                    "programs": programs,
                    "num_warps": warps,
                    "tile": tile,
                    "rows_per_step": step_rows,
                    "prefetch": prefetch,
                    "bytes": 3 * n_rows * hidden * 2 + 2 * hidden * 2,
                    "time_s": benchlib.device_time(both, warmup_ms=10, rep_ms=40),
                    **benchlib.kernel_resources(compiled),
                }
            )
        here = [r for r in rows if r["hidden"] == hidden]
        best = max(here, key=lambda r: r["bytes"] / r["time_s"]["p50"])
        print(
            f"  H={hidden}: best {best['programs_per_sm']}/SM, {best['num_warps']} warps, "
            f"tile {best['tile']}: {best['bytes'] / best['time_s']['p50'] / 1e12:.2f} TB/s"
        )
        del x, w, dy, rstd, dx_ref, dw_ref
        torch.cuda.empty_cache()
    return rows


class NoOpFunction(torch.autograd.Function):
    """The control for autograd's own cost: a Function whose forward returns a view of x
    and whose backward passes dy through, so no kernel runs in either direction."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return x.view_as(x)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        return dy, None


def run_small_m(ceilings: dict) -> list[dict]:
    """The control for the sizes: at M = 16384 rows the narrow widths are small problems,
    and do_bench's time of a call through autograd can be the host's, not the GPU's. Per
    width: the book's forward and backward timed as the benchmark above times them
    (through autograd) and as their kernels alone, launched directly, plus the host time
    of one autograd call. The same kernels, so any gap is the host's path. That host time
    is then split: the wrapper's own launches and allocations called without autograd
    (``launch_forward``, ``launch_backward``), and the same autograd call through
    NoOpFunction, which launches nothing (what autograd itself costs per call)."""
    rows = []
    dtype = torch.bfloat16
    benchlib.warm_up()
    for hidden in benchlib.pick(SMALL_M_HIDDEN, QUICK_SMALL_M_HIDDEN):
        x = torch.randn(SMALL_M, hidden, device="cuda").to(dtype).requires_grad_()
        w = (1 + 0.1 * torch.randn(hidden, device="cuda")).to(dtype).requires_grad_()
        dy = torch.randn(SMALL_M, hidden, device="cuda").to(dtype)
        expected = expected_results(x, w, dy)
        through = measure("triton", rn.rms_norm, x, w, dy, expected, dtype, hidden)
        alone = resources(x.detach(), w.detach(), dy)
        y = rn.rms_norm(x, w, EPS)
        calls = {
            "forward": functools.partial(rn.rms_norm, x, w, EPS),
            "backward": functools.partial(backward_step, y, (x, w), dy),
        }
        xd, wd = x.detach(), w.detach()
        _, rstd = rn.launch_forward(xd, wd, EPS)
        launches = {
            "forward": functools.partial(rn.launch_forward, xd, wd, EPS),
            "backward": functools.partial(rn.launch_backward, dy, xd, wd, rstd),
        }
        y_noop = NoOpFunction.apply(x, w)
        no_ops = {
            "forward": functools.partial(NoOpFunction.apply, x, w),
            "backward": functools.partial(backward_step, y_noop, (x,), dy),
        }
        for direction, call in calls.items():
            rows.append(
                {
                    "direction": direction,
                    "dtype": DTYPES[dtype],
                    "rows": SMALL_M,
                    "hidden": hidden,
                    "autograd_time_s": through[direction]["time_s"],
                    "kernels_time_s": alone[direction]["kernels_time_s"],
                    "host_s": benchlib.host_time(call, calls=200),
                    "host_kernels_s": benchlib.host_time(launches[direction], calls=200),
                    "host_noop_s": benchlib.host_time(no_ops[direction], calls=200),
                }
            )
        del x, w, dy, y, expected, xd, wd, rstd, y_noop
        torch.cuda.empty_cache()
    return rows


def measure(impl: str, fn, x, w, dy, expected, dtype, hidden) -> dict[str, dict]:
    """Forward and backward timing of one implementation, each checked first."""
    what = f"rmsnorm {impl} {DTYPES[dtype]} H={hidden}"
    y_exp, dx_exp, dw_exp = expected
    rtol = RTOL[dtype]
    # Forward as a training step runs it: inputs that require grad, so the graph (and
    # whatever each implementation saves for its backward) is built on every call.
    fwd = functools.partial(fn, x, w, EPS)
    forward = benchlib.check_then_time(
        fwd, y_exp, f"{what} forward", exact=False, rtol=rtol, atol=1e-5, name=impl,
        among="forward",
    )  # fmt: skip
    y = fwd()
    # dweight is checked once, on a copy of dy; dx in check_then_time, then only the
    # backward step is timed: torch.autograd.grad through the graph kept from one forward.
    _, dw = torch.autograd.grad(y, (x, w), dy.clone(), retain_graph=True)
    benchlib.check(dw, dw_exp, f"{what} dweight", exact=False, rtol=rtol, atol=ATOL_DW[dtype])
    step = functools.partial(backward_step, y, (x, w), dy)
    backward = benchlib.check_then_time(
        step, dx_exp, f"{what} backward", exact=False, rtol=rtol, atol=ATOL_DX, name=impl,
        among="backward",
    )  # fmt: skip
    return {"forward": forward, "backward": backward}


def run(ceilings: dict) -> list[dict]:
    if LigerRMSNormFunction is None:
        print(f"  Liger-Kernel rows skipped: liger_kernel is not importable ({LIGER_MISSING})")
    # Each (dtype, width) is a new shape for torch.compile: allow the recompiles.
    config = torch._dynamo.config
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, limit, max(getattr(config, limit), 64))
    benchlib.warm_up()
    rows = []
    for dtype, widths in benchlib.pick(HIDDEN, QUICK_HIDDEN).items():
        for hidden in widths:
            s = torch.finfo(dtype).bits // 8
            n_rows = ELEMENTS // hidden
            n_bytes = {  # each input read once, each output written once
                "forward": 2 * n_rows * hidden * s + hidden * s,  # x, w in; y out
                "backward": 3 * n_rows * hidden * s + 2 * hidden * s,  # x, dy, w in; dx, dw out
            }
            # randn, never zeros; weights near 1 as in a trained model
            x = torch.randn(n_rows, hidden, device="cuda").to(dtype).requires_grad_()
            w = (1 + 0.1 * torch.randn(hidden, device="cuda")).to(dtype).requires_grad_()
            dy = torch.randn(n_rows, hidden, device="cuda").to(dtype)
            expected = expected_results(x, w, dy)
            extra = resources(x.detach(), w.detach(), dy)
            found = []
            # Checked one by one, then the forwards timed in turn, and the backwards (each
            # keeping its own forward's graph until the block ends).
            with benchlib.head_to_head():
                for impl, fn in implementations().items():
                    own_dy = dy.clone() if impl == "liger" else dy
                    try:
                        timing = measure(impl, fn, x, w, own_dy, expected, dtype, hidden)
                    except Exception as exc:  # a peer that cannot run is skipped, not fatal
                        if impl == "triton":
                            raise
                        why = f"{type(exc).__name__}: {exc}"
                        print(f"  skipped {impl} at H={hidden}: {why}"[:300])
                        continue
                    for direction, spread in timing.items():
                        row = {
                            "direction": direction,
                            "impl": impl,
                            "dtype": DTYPES[dtype],
                            "rows": n_rows,
                            "hidden": hidden,
                            "bytes": n_bytes[direction],
                            "time_s": spread["time_s"],
                        }
                        if impl == "triton":
                            row.update(extra[direction])
                        found.append(row)
                    del own_dy
            rows += found
            speeds = {}
            for r in found:
                speeds.setdefault(r["direction"], []).append(
                    f"{r['impl']} {r['bytes'] / r['time_s']['p50'] / 1e12:.2f}"
                )
            print(
                f"  {DTYPES[dtype]:>8} H={hidden}: fwd " + ", ".join(speeds["forward"])
                + " | bwd " + ", ".join(speeds["backward"]) + " TB/s"
            )  # fmt: skip
            del x, w, dy, expected
            torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "rmsnorm",
        "RMSNorm over the last dimension, M = 2**28 / H rows (x is 512 MiB in bf16), eps = "
        "1e-6, bf16 at H = 1024..16384 and fp32 at H = 4096: kernels/rmsnorm.py (rms_norm, an "
        "autograd.Function), the eager formula (float32 statistics, one rounding), "
        "torch.compile of it (dynamic=False, one compile per shape), "
        "torch.nn.functional.rms_norm and Liger-Kernel's LigerRMSNormFunction (offset 0, "
        "'llama' casting, in_place=True: it writes dx over its own copy of dy, so during the "
        "timed repetitions it differentiates its previous output). Each result is checked "
        "against a float64 reference first. Forward: one call with x and weight requiring grad "
        "(a training forward, graph built). Backward: torch.autograd.grad of (x, weight) "
        "through the graph retained from one forward, nothing else. Device time by do_bench, L2"
        " flushed, percentiles over repetitions. Bytes: forward 2*M*H*s + H*s (read x and "
        "weight, write y), backward 3*M*H*s + 2*H*s (read x, dy, weight; write dx, dweight); "
        "rstd and partial rows not counted. The book's rows add registers and spills of its "
        "compiled kernels, its backward's program count and rows per step, and dw_time_s, the "
        "second stage alone.",
        run,
    ),
    benchlib.Benchmark(
        "rmsnorm_bwd_sweep",
        "The book's RMSNorm backward (kernels/rmsnorm.py: rmsnorm_bwd_kernel + "
        "rmsnorm_dw_kernel, launched directly, no autograd), bf16, M x H = 2**28, H = 1024, "
        "4096, 8192, over launch shapes: programs per SM (1, 2, 4) x num_warps (4..32) x "
        "elements per step (tile 2048, 4096, 8192; rows per step = tile / H, at least 1), "
        "skipping shapes with more than 64 or fewer than 1 values per thread; and at H = "
        "16384 (one row per step), loading the next row ahead (prefetch) or not, on 16 or 32 "
        "warps, 1 or 2 programs per SM. Each checked "
        "against the wrapper's result first; device time by do_bench (L2 flushed). Bytes as "
        "in 'rmsnorm' (3*M*H*2 + 2*H*2).",
        run_backward_sweep,
    ),
    benchlib.Benchmark(
        "rmsnorm_small_m",
        "Control for the sizes of 'rmsnorm': the book's RMSNorm, bf16, M = 16384 rows at H = "
        "1024, 2048, 4096. autograd_time_s: do_bench device time of one call as 'rmsnorm' "
        "times it (forward with inputs requiring grad; backward by torch.autograd.grad through "
        "the retained graph); kernels_time_s: do_bench device time of the same kernels "
        "launched directly (forward kernel; backward kernel + dweight's second stage); host_s: "
        "host wall time per autograd call (loops of 200 back-to-back calls, synchronised at "
        "the end). do_bench flushes the L2 before each call and records CUDA events around it; "
        "when the host needs longer per call than the GPU, the events measure the host. "
        "host_kernels_s: the same host timing of the wrapper's launches and allocations called "
        "without autograd (kernels/rmsnorm.py's launch_forward and launch_backward); "
        "host_noop_s: of the same autograd call through a Function that launches nothing "
        "(forward: a view of x; backward: dy passed through, gradient of x only), i.e. "
        "autograd's own cost per call.",
        run_small_m,
    ),
]
