"""Benchmarks of the softmax family (kernels/softmax.py): lesson 10.

- ``softmax``: forward and backward bandwidth against row width, fp32 and bf16, for the
  book's kernels, ``torch.softmax``, torch.compile and Liger-Kernel (where it runs), and,
  forward in fp32, the naive five-operation decomposition; for every one, the CUDA kernels
  one call launches (torch.profiler), so that a peer's slow point can be read against
  how many kernels, and which, it ran.
- ``softmax_online``: the online kernel on long rows, fp32 and bf16, against its tile
  (elements, so bytes, per load) and the size of its persistent grid (programs per SM),
  with the whole-row kernel forced onto the same rows as a control; registers and spills
  of every compiled kernel.
"""

from __future__ import annotations

import functools

import torch

from kernels import softmax as sm
from scripts.bench import benchlib

WIDTHS = [256, 1024, 4096, 16384, 65536]
QUICK_WIDTHS = [4096, 65536]  # measure.py --quick; 4096 is the roofline's point
DTYPES = {torch.float32: "float32", torch.bfloat16: "bfloat16"}
TENSOR_BYTES = 512 * 2**20  # each tensor: ten times an H100's L2, eight an H200's
# Forward results against the float64 reference rounded to the dtype: a few fp32 ulps, one
# bf16 ulp; values under the normal range may flush to zero (tests/kernels/test_softmax.py).
TOL = {torch.float32: (1e-5, 2**-126), torch.bfloat16: (8e-3, 2**-126)}
# Gradients: dx = y * (dy - dot) cancels to far below its terms where dy is close to dot,
# so their check also allows this fraction of max |dx| everywhere: a few fp32 ulps, one
# bf16 ulp (what computing dy - dot in bf16, rather than fp32, costs).
GRAD_ATOL = {torch.float32: 1e-5, torch.bfloat16: 8e-3}
TIMING = {"warmup_ms": 10, "rep_ms": 50}  # ~100+ calls of 0.3-0.6 ms each, per number

# The online sweep: each (dtype, columns) with every tile narrower than the row and each
# grid size. Tiles of 8,192 to 32,768 elements are 32 to 128 KiB of fp32, 16 to 64 KiB of
# bf16, so the two dtypes overlap at 32 and 64 KiB: if bytes per tile are what limit the
# kernel, the two meet there. 41 timed points, 9 compiles: about a minute on an H100.
SWEEP_SHAPES = [
    (torch.float32, 32768),
    (torch.float32, 65536),
    (torch.float32, 131072),
    (torch.float32, 262144),
    (torch.bfloat16, 32768),
    (torch.bfloat16, 65536),
    (torch.bfloat16, 131072),
]
SWEEP_BLOCK_N = [8192, 16384, 32768]  # num_warps as the wrapper picks: 16, 16, 32
SWEEP_PROGRAMS_PER_SM = [1, 2]  # 2 programs of 32 warps fill an SM's 2,048 threads
# The control: the whole-row kernel on the same rows, 32 warps (32 or 64 values per thread).
WHOLE_ROW_SHAPES = [(torch.float32, 32768), (torch.float32, 65536), (torch.bfloat16, 32768)]
WHOLE_ROW_WARPS = 32
QUICK_SWEEP_SHAPES = [(torch.float32, 65536)]  # measure.py --quick: one shape of the sweep


def torch_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def naive_softmax(x: torch.Tensor) -> torch.Tensor:
    """Five separate kernels, each a trip through HBM: max, subtract, exp, sum, divide."""
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=-1, keepdim=True)


def grad_of(y: torch.Tensor, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """The backward alone: dL/dx for dL/dy = dy, through y's autograd graph (kept)."""
    return torch.autograd.grad(y, x, dy, retain_graph=True)[0]


def liger_softmax():
    """Liger-Kernel's softmax autograd Function, or None (with the reason printed)."""
    try:
        from liger_kernel.ops.softmax import LigerSoftmaxFunction
    except Exception as exc:  # not installed, or an install that fails to import
        print(f"  liger: skipped, liger_kernel does not import ({type(exc).__name__}: {exc})")
        return None
    return LigerSoftmaxFunction.apply


def resources(fn, *names: str) -> dict:
    """Run ``fn`` once with the named kernels of kernels/softmax.py captured; registers
    and spills of the one that launched."""
    return benchlib.captured(fn, sm, *names)


def launched(fn) -> dict:
    """``kernels`` (how many) and ``kernel_names`` (which, in order) one call of ``fn``
    launches; nothing where the profiler cannot run."""
    names = benchlib.cuda_kernels(fn)
    return {} if names is None else {"kernels": len(names), "kernel_names": names}


def timed(
    impl: str, what: str, fn, expected, tol, *, book: bool, out=None, among: str | None = None
) -> dict | None:
    """check_then_time, but a peer (or a control) that fails to compile, run or match is
    skipped with the reason printed; the book's kernel as it runs by default must pass.
    ``among``: inside ``benchlib.head_to_head``, the comparison it is timed in turn with
    (the impls' forwards, say); None times it at once."""
    rtol, atol = tol
    turn = {} if among is None else {"name": impl, "among": among}
    try:
        return benchlib.check_then_time(
            fn, expected, what, out=out, exact=False, rtol=rtol, atol=atol, **TIMING, **turn
        )
    except Exception as exc:
        if book:
            raise
        print(f"  {impl}: skipped at {what}: {type(exc).__name__}: {str(exc)[:200]}")
        return None


def run_widths(ceilings: dict) -> list[dict]:
    rows = []
    liger = liger_softmax()
    # One compiled function per shape: ten shapes here, more than dynamo's default cache.
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    benchlib.warm_up()
    for dtype, dname in DTYPES.items():
        for n_cols in benchlib.pick(WIDTHS, QUICK_WIDTHS):
            n_rows = TENSOR_BYTES // (n_cols * dtype.itemsize)
            shape = f"{dname} {n_rows}x{n_cols}"
            # randn, never zeros: x (which requires grad, so every forward builds the graph
            # its backward uses) and the incoming gradient dy.
            x = torch.randn(n_rows, n_cols, device="cuda").to(dtype).requires_grad_()
            dy = torch.randn(n_rows, n_cols, device="cuda").to(dtype)
            expected = sm.reference(x.detach())
            impls = {
                "triton": functools.partial(sm.softmax, x),
                "torch": functools.partial(torch.softmax, x, -1),
                "compile": functools.partial(torch.compile(torch_softmax, dynamic=False), x),
            }
            if liger is not None:
                impls["liger"] = functools.partial(liger, x)
            if dtype == torch.float32:
                impls["naive"] = functools.partial(naive_softmax, x)
            size = n_rows * n_cols * dtype.itemsize
            # The impls' forwards timed in turn, and their backwards in turn, when the block
            # ends (each backward keeps its own forward's y and graph until then).
            with benchlib.head_to_head():
                for impl, fwd in impls.items():
                    book = impl == "triton"
                    base = {"impl": impl, "dtype": dname, "rows": n_rows, "cols": n_cols}
                    timing = timed(
                        impl, f"{impl} forward {shape}", fwd, expected, TOL[dtype], book=book,
                        among="forward",
                    )  # fmt: skip
                    if timing is None:
                        continue
                    kernels = ("softmax_kernel", "softmax_online_kernel")
                    extra = resources(fwd, *kernels) if book else {}
                    extra.update(launched(fwd))
                    rows.append(
                        {**base, "direction": "forward", "bytes": 2 * size, **timing, **extra}
                    )
                    if impl == "naive":
                        continue  # forward only: it is here to count HBM trips
                    # The backward of this impl's own forward, checked against the float64
                    # formula on that y; only the backward kernel(s) run inside the timing.
                    y = fwd()
                    bwd = functools.partial(grad_of, y, x, dy)
                    grad = sm.reference_backward(y.detach(), dy)
                    tol = (TOL[dtype][0], GRAD_ATOL[dtype] * grad.abs().max().item())
                    timing = timed(
                        impl, f"{impl} backward {shape}", bwd, grad, tol, book=book,
                        among="backward",
                    )  # fmt: skip
                    if timing is not None:
                        names = ("softmax_backward_kernel", "softmax_backward_online_kernel")
                        extra = resources(bwd, *names) if book else {}
                        extra.update(launched(bwd))
                        rows.append(
                            {**base, "direction": "backward", "bytes": 3 * size, **timing, **extra}
                        )
                    del y, bwd, grad
            del x, dy, expected, impls
            torch.cuda.empty_cache()
            for direction in ("forward", "backward"):
                mine = [r for r in rows if (r["dtype"], r["cols"]) == (dname, n_cols)]
                rates = ", ".join(
                    f"{r['impl']} {r['bytes'] / r['time_s']['p50'] / 1e12:.2f}"
                    for r in mine
                    if r["direction"] == direction
                )
                print(f"  {dname:>8} cols={n_cols:>5} {direction:>8}: {rates} TB/s")
    return rows


def online_configs(dtype: torch.dtype, n_cols: int) -> list[tuple]:
    """(kernel, block_n, num_warps, programs_per_sm) of every point timed at one shape."""
    configs = [
        ("online", block_n, None, per_sm)
        for block_n in SWEEP_BLOCK_N
        if block_n < n_cols
        for per_sm in SWEEP_PROGRAMS_PER_SM
    ]
    if (dtype, n_cols) in WHOLE_ROW_SHAPES:
        configs.append(("whole_row", n_cols, WHOLE_ROW_WARPS, None))
    return configs


def run_online(ceilings: dict) -> list[dict]:
    rows = []
    device = torch.cuda.current_device()
    for dtype, n_cols in benchlib.pick(SWEEP_SHAPES, QUICK_SWEEP_SHAPES):
        size = dtype.itemsize
        n_rows = TENSOR_BYTES // (n_cols * size)
        x = torch.randn(n_rows, n_cols, device="cuda").to(dtype)
        out = torch.empty_like(x)
        expected = sm.reference(x)
        for kernel, block_n, num_warps, per_sm in online_configs(dtype, n_cols):
            whole, _, block_n, num_warps, programs = sm.plan(
                n_rows, n_cols, size, device,
                block_n=block_n, num_warps=num_warps, programs_per_sm=per_sm,
            )  # fmt: skip
            assert whole == (kernel == "whole_row")
            fn = functools.partial(
                sm.softmax, x, out, block_n=block_n, num_warps=num_warps, programs_per_sm=per_sm
            )
            what = (
                f"{kernel} {DTYPES[dtype]} {n_rows}x{n_cols} block_n={block_n} "
                f"num_warps={num_warps} programs={programs}"
            )
            # The whole-row kernel past its default range is a control, and may fail.
            book = kernel == "online"
            timing = timed(kernel, what, fn, expected, TOL[dtype], book=book, out=out)
            if timing is None:
                continue
            extra = resources(fn, "softmax_kernel", "softmax_online_kernel")
            rows.append(
                {
                    "kernel": kernel,
                    "dtype": DTYPES[dtype],
                    "rows": n_rows,
                    "cols": n_cols,
                    "block_n": block_n,
                    "bytes_per_tile": block_n * size,
                    "num_warps": num_warps,
                    "programs_per_sm": per_sm,
                    "programs": programs,
                    "bytes": 2 * n_rows * n_cols * size,
                    **timing,
                    **extra,
                }
            )
            r = rows[-1]
            print(
                f"  {DTYPES[dtype]:>8} cols={n_cols:>6} {kernel:>9} block_n={block_n:>5} "
                f"warps={num_warps:>2} programs={programs:>4}: "
                f"{r['bytes'] / r['time_s']['p50'] / 1e12:.2f} TB/s, "
                f"{r['n_regs']} registers, {r['n_spills']} spilled"
            )
        del x, out, expected
        torch.cuda.empty_cache()
    return rows


# softmax_online_backward: the online backward kernel's tile, swept (the forward's sweep
# is softmax_online). Launched directly through launch_backward, no autograd.
BACKWARD_SWEEP_COLS = 65536
BACKWARD_SWEEP_TILES = [(8192, 16), (16384, 16), (16384, 32), (32768, 32)]


def run_online_backward(ceilings: dict) -> list[dict]:
    rows = []
    for dtype in DTYPES:
        size = dtype.itemsize
        n_cols = BACKWARD_SWEEP_COLS
        n_rows = TENSOR_BYTES // (n_cols * size)
        y = torch.softmax(torch.randn(n_rows, n_cols, device="cuda"), dim=-1).to(dtype)
        dy = torch.randn(n_rows, n_cols, device="cuda").to(dtype)
        dx = torch.empty_like(y)
        expected = sm.reference_backward(y, dy)
        for block_n, num_warps in BACKWARD_SWEEP_TILES:
            config = sm.plan(
                n_rows, n_cols, size, y.get_device(), block_n=block_n, num_warps=num_warps,
                backward=True,
            )  # fmt: skip
            fn = functools.partial(sm.launch_backward, y, dy, dx, config)
            whole, _, _, _, programs = config
            assert not whole
            what = f"online backward {DTYPES[dtype]} block_n={block_n} num_warps={num_warps}"
            rtol, atol = TOL[dtype]
            scale = expected.abs().max().item()
            atol = GRAD_ATOL[dtype] * scale
            timing = benchlib.check_then_time(
                fn, expected, what, out=dx, exact=False, rtol=rtol, atol=atol, **TIMING
            )
            extra = resources(fn, "softmax_backward_online_kernel")
            rows.append(
                {
                    "dtype": DTYPES[dtype],
                    "rows": n_rows,
                    "cols": n_cols,
                    "block_n": block_n,
                    "bytes_per_tile": block_n * size,
                    "num_warps": num_warps,
                    "programs": programs,
                    "bytes": 3 * n_rows * n_cols * size,
                    **timing,
                    **extra,
                }
            )
            r = rows[-1]
            print(
                f"  backward {DTYPES[dtype]:>8} block_n={block_n:>5} warps={num_warps:>2}: "
                f"{r['bytes'] / r['time_s']['p50'] / 1e12:.2f} TB/s, "
                f"{r['n_regs']} registers, {r['n_spills']} spilled"
            )
        del y, dy, dx, expected
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "softmax_online_backward",
        "The online backward kernel of kernels/softmax.py (softmax_backward_online_kernel: "
        "pass 1 sums dy * y over a row, pass 2 writes dx = y * (dy - sum)) at 65536 columns, "
        "512 MiB tensors, float32 and bfloat16, over tiles (block_n, num_warps) "
        f"{BACKWARD_SWEEP_TILES}, programs per SM as the wrapper picks them; launched "
        "directly through the module's launch_backward (no autograd), checked against float64 "
        "first; device time by do_bench, L2 flushed. Bytes: y and dy read once, dx written "
        "once (3 * rows * cols * element size).",
        run_online_backward,
    ),
    benchlib.Benchmark(
        "softmax",
        "Row softmax over the last dimension of an (rows x cols) tensor of 512 MiB, for "
        "cols = 256..65536, float32 and bfloat16. impl triton: kernels/softmax.py (softmax; "
        "its backward through autograd); torch: torch.softmax; compile: torch.compile of "
        "torch.softmax (dynamic=False, one compile per shape); liger: Liger-Kernel's "
        "LigerSoftmaxFunction (skipped where it does not run); naive: max, subtract, exp, "
        "sum, divide as five torch ops (forward, float32 only). forward: device time of one "
        "call on x that requires grad; backward: device time of torch.autograd.grad(y, x, "
        "dy) through that impl's own forward graph, i.e. only its backward kernel(s). Each "
        "is checked against float64 first (backward: against y * (dy - sum(dy * y)) on that "
        "impl's y). do_bench, L2 flushed. Bytes: forward 2 * rows * cols * element size "
        "(read x, write y); backward 3 * rows * cols * element size (read y and dy, write "
        "dx). n_regs and n_spills: the book kernel's compiled registers per thread and "
        "spilled registers. kernels and kernel_names: the CUDA kernels one call (forward, "
        "or the backward alone) launches, in order, from torch.profiler (memcpy and memset "
        "left out; absent where the profiler could not run).",
        run_widths,
    ),
    benchlib.Benchmark(
        "softmax_online",
        "kernels/softmax.py forward on long rows (512 MiB tensors): float32 at 32768.."
        "262144 columns, bfloat16 at 32768..131072. The online kernel (two passes over each "
        "row) with tiles of block_n = 8192, 16384 and 32768 elements (those narrower than "
        "the row; bytes_per_tile = block_n * element size; num_warps as the wrapper picks "
        "it: 16, 16, 32) and a persistent grid of programs_per_sm = 1 or 2 programs per SM "
        "(programs = rows in flight); and, as a control, the whole-row kernel forced onto "
        "the same rows (block_n = cols, 32 warps) at float32 32768 and 65536 and bfloat16 "
        "32768 columns. Device time (do_bench, L2 flushed), checked against float64 first. "
        "Bytes: 2 * rows * cols * element size. n_regs, n_spills: registers per thread and "
        "spilled registers of the compiled kernel.",
        run_online,
    ),
]
