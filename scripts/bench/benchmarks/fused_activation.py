"""Benchmarks of the fused-activation family (kernels/fused_activation.py): lesson 08.

- ``fused_activation``: ``gelu(x + bias) * mask`` three ways, timed side by side: the
  Triton kernel, the eager PyTorch chain (three kernels) and ``torch.compile`` of that
  chain. A size sweep (bf16, exact GELU, with a dropout-style keep mask, N = 4096, M from
  256 to 32768 rows) and, at the largest size, the variants: fp16 and fp32, the tanh
  approximation, and no mask. Each row also counts the CUDA kernels one call launches
  (torch.profiler), and Triton rows carry the compiled kernel's registers, spills and the
  global loads in its PTX.
- ``fused_activation_dropout``: dropout of ``gelu(x + bias)`` with the keep mask made in
  the kernel from a seed (``tl.rand``), against the same kernel reading the mask from
  memory, eager ``F.dropout(F.gelu(x + bias), p)`` and torch.compile of it, over the same
  sizes.
- ``fused_activation_controls``: the controls for what limits the kernel at the largest
  size: elements per thread (bytes in flight) for each GELU form and keep mask, with the
  compiled kernel's instructions per element (PTX and SASS opcode counts).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import math
import re

import torch

from kernels import fused_activation as fa
from scripts.bench import benchlib

N = 4096  # columns: a transformer's hidden size
SWEEP_M = [256, 1024, 4096, 16384, 32768]  # bf16 x: 2 MiB .. 256 MiB
LARGEST = SWEEP_M[-1]
# Up to the first size past the L2 a call's GPU work is short enough that the host's path
# (50 to 100 µs per call at the smallest size, by the host) may set the pace, and do_bench's
# events may time part of it. So these sizes also record the GPU's time with the host taken
# out (graph_time_s: back-to-back calls replayed from a CUDA graph) and the host's time per
# call (host_s: loops of back-to-back calls). From 16,384 rows a call moves 403 MB, over
# 90 µs of GPU work even at 4.4 TB/s, and do_bench's times there agree within 1% between
# runs on different hosts. The host's loops there, timed head to head, read up to 6% slower
# than the GPU (torch.compile at 32,768 rows); at 16,384 rows, 95 to 140 µs of GPU work is
# below render.HOST_PATH_LIMIT_S, and the host-bound rule would read that excess as the host.
CLOCK_M = SWEEP_M[:3]
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


def dropout_chain(x, bias, p, approximate):
    """GELU then dropout as eager PyTorch runs it: add, GELU, dropout (its own random mask)."""
    y = torch.nn.functional.gelu(x + bias, approximate=approximate)
    return torch.nn.functional.dropout(y, p)


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
    """CUDA kernels one call of ``fn`` launches (``benchlib.cuda_kernels``: memory copies
    and memsets left out). None if the profiler cannot run."""
    names = benchlib.cuda_kernels(fn)
    return len(names) if names else None


def compiled_kernel(x, bias, mask, out, approximate: str, **launch_kw):
    """The compiled kernel the wrapper launched, from the wrapper's own launch
    (``fa.launch``, the tile from ``fa.plan`` unless ``launch_kw`` sets one), so the same
    compiled kernel from Triton's cache."""
    cap = benchlib.Capture(fa.bias_gelu_mask_kernel)
    fa.bias_gelu_mask_kernel = cap
    try:
        fa.launch(x, bias, mask, out, approximate=approximate, **launch_kw)
    finally:
        fa.bias_gelu_mask_kernel = cap.kernel
    return cap.compiled


def triton_resources(x, bias, mask, out, approximate: str, **launch_kw) -> dict:
    """Registers, spills and PTX global loads of the kernel the wrapper launched."""
    kernel = compiled_kernel(x, bias, mask, out, approximate, **launch_kw)
    return {**benchlib.kernel_resources(kernel), "ptx_loads": benchlib.ptx_loads(kernel.asm["ptx"])}


def run_case(
    m: int, dtype: torch.dtype, approximate: str, with_mask: bool, clocks: bool = False
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
    with benchlib.head_to_head():  # checked one by one, then timed in turn: A B C A B C ...
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
                    host=clocks,
                    name=impl,
                )
                if clocks:  # the GPU's own time: the host's path taken out
                    timing["graph_time_s"] = benchlib.graph_time(fn)
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


@contextlib.contextmanager
def more_recompiles():
    """Every case compiles the same function again with new guards: raise dynamo's limit
    (8 by default) so that no case silently falls back to eager."""
    config = torch._dynamo.config
    names = [k for k in ("recompile_limit", "cache_size_limit") if hasattr(config, k)]
    saved = {k: getattr(config, k) for k in names}
    for k in names:
        setattr(config, k, max(saved[k], 64))
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(config, k, v)


def run(ceilings: dict) -> list[dict]:
    with more_recompiles():
        rows = []
        benchlib.warm_up()
        for m in SWEEP_M:
            rows += run_case(m, *SWEEP_CASE, clocks=m in CLOCK_M)
        for case in VARIANTS:
            rows += run_case(LARGEST, *case)
    torch.cuda.empty_cache()
    return rows


# ---- dropout made in the kernel: fused_activation_dropout --------------------------------

SEED = 20240613  # the Triton kernel's dropout seed; the peers draw from torch's generator
# At the largest size, besides the bf16 sweep: the tanh GELU (fewer instructions), and
# float32 (twice the bytes per element for the same instructions).
DROPOUT_VARIANTS = [(torch.bfloat16, "tanh"), (torch.float32, "none")]
DROPOUT_HOST_M = SWEEP_M[:2]  # the sizes below the L2 also record the host's time per call


def dropout_min_bytes(m: int, dtype: torch.dtype, keep: str) -> int:
    """The least one call moves: x read and out written once, bias once; a keep mask read
    from memory adds M x N more (keep="memory"), one made from a seed nothing."""
    s = torch.finfo(dtype).bits // 8
    return (3 if keep == "memory" else 2) * m * N * s + N * s


def keep_bound(p: float, n: int) -> float:
    """Six binomial standard deviations of the kept fraction of n elements."""
    return 6 * math.sqrt(p * (1 - p) / n)


def check_dropout(got, x, bias, p: float, approximate: str, what: str) -> float:
    """Check a dropout whose random numbers are its own (torch's generator): its shape and
    dtype; the fraction it keeps, within six binomial standard deviations of 1 - p (counted
    where |gelu(x + bias)| > 1e-3, far from any underflow, so that a 0 there is a drop);
    and every element against the float64 reference on the mask read back from ``got``
    (kept: gelu * 1/(1-p), dropped: 0). What is left unchecked is which elements it drops,
    the one seed-dependent part. Returns the kept fraction."""
    torch.cuda.synchronize()
    if got.shape != x.shape or got.dtype != x.dtype:
        raise AssertionError(f"{what}: got {got.dtype}{tuple(got.shape)}, expected "
                             f"{x.dtype}{tuple(x.shape)}")  # fmt: skip
    plain = fa.reference(x.double(), bias.double(), None, approximate)  # float64
    kept = got != 0
    clear = plain.abs() > 1e-3
    n = int(clear.sum())
    fraction = kept[clear].double().mean().item()
    if abs(fraction - (1 - p)) > keep_bound(p, n):
        raise AssertionError(f"{what}: kept {fraction:.6f} of {n} elements, expected {1 - p}")
    expected = (plain * kept.double() / (1 - p)).to(x.dtype)
    rtol, atol = CHECK_TOL[x.dtype]
    benchlib.check(got, expected, what, exact=False, rtol=rtol, atol=atol)
    return fraction


def seeded_expected(x, bias, p: float, seed: int, approximate: str):
    """The Triton kernel's exact expectation: the float64 reference on the keep mask the
    kernel makes from ``seed`` (launch_dropout_mask), and the fraction it keeps."""
    keep = fa.launch_dropout_mask(*x.shape, p, seed, x.device)
    scaled = keep.double() / (1 - p)
    expected = fa.reference(x.double(), bias.double(), scaled, approximate).to(x.dtype)
    return expected, keep.double().mean().item()


def run_dropout_case(m: int, dtype: torch.dtype, approximate: str, host: bool) -> list[dict]:
    dname, p = DTYPES[dtype], DROP_P
    x, bias, mask = inputs(m, dtype, with_mask=True)
    out = torch.empty_like(x)
    rows = []

    def add(impl: str, keep: str, timing: dict, fn, fraction: float, resources=None) -> None:
        rows.append({
            "impl": impl, "dtype": dname, "approximate": approximate, "p": p, "m": m, "n": N,
            "bytes": dropout_min_bytes(m, dtype, keep), **timing, "kernels": kernels_per_call(fn),
            "keep_fraction": fraction, **(resources or {}),
        })  # fmt: skip

    what = f"fused_activation_dropout {{}} {m}x{N} {dname} gelu={approximate} p={p}"
    with benchlib.head_to_head():  # the four checked one by one, then timed in turn
        dropout_impls(x, bias, mask, out, dtype, approximate, host, what, add)
    del x, bias, mask, out
    speeds = ", ".join(f"{r['impl']} {r['time_s']['p50'] * 1e6:.1f}" for r in rows)
    print(f"  dropout {dname:>8} gelu={approximate:<4} M={m:>5}: {speeds} us")
    return rows


def dropout_impls(x, bias, mask, out, dtype, approximate, host, what, add) -> None:
    """Check each implementation of one dropout case and note its timing (``add`` makes
    its row): run inside ``benchlib.head_to_head``, which times them when it ends."""
    p = DROP_P
    rtol, atol = CHECK_TOL[dtype]
    # Triton, the keep mask made in the kernel from SEED: checked exactly as it must be.
    expected, fraction = seeded_expected(x, bias, p, SEED, approximate)
    fn = functools.partial(
        fa.bias_gelu_mask, x, bias, approximate=approximate, p=p, seed=SEED, out=out
    )
    timing = benchlib.check_then_time(fn, expected, what.format("triton_seed"), out=out,
                                      exact=False, rtol=rtol, atol=atol, host=host,
                                      name="triton_seed")  # fmt: skip
    resources = triton_resources(x, bias, None, out, approximate, p=p, seed=SEED)
    add("triton_seed", "seed", timing, fn, fraction, resources)
    del expected
    # Triton, the same kernel reading a keep mask (0 or 1/(1-p)) from memory.
    expected = fa.reference(x, bias, mask, approximate)
    fn = functools.partial(fa.bias_gelu_mask, x, bias, mask, approximate=approximate, out=out)
    timing = benchlib.check_then_time(fn, expected, what.format("triton_mask"), out=out,
                                      exact=False, rtol=rtol, atol=atol, host=host,
                                      name="triton_mask")  # fmt: skip
    resources = triton_resources(x, bias, mask, out, approximate)
    add("triton_mask", "memory", timing, fn, (mask != 0).double().mean().item(), resources)
    del expected
    # The peers: F.dropout(F.gelu(x + bias), p), eager and compiled, with their own masks.
    peers = {"eager": functools.partial(dropout_chain, x, bias, p, approximate)}
    try:
        compiled = torch.compile(dropout_chain, dynamic=False)
        peers["compile"] = functools.partial(compiled, x, bias, p, approximate)
    except Exception as exc:  # noqa: BLE001
        print(f"    torch.compile skipped: {exc!r}")
    for impl, fn in peers.items():
        try:
            fraction = check_dropout(fn(), x, bias, p, approximate, what.format(impl))
            timing = {"time_s": benchlib.device_time(fn, name=impl)}
            if host:
                timing["host_s"] = benchlib.host_time(fn, benchlib.host_calls(fn), name=impl)
        except AssertionError:
            raise  # a wrong answer is a finding, never a skip
        except Exception as exc:  # noqa: BLE001 - e.g. torch.compile failing to build
            print(f"    {impl} skipped: {exc!r}")
            continue
        add(impl, "seed", timing, fn, fraction)


def run_dropout(ceilings: dict) -> list[dict]:
    with more_recompiles():
        rows = []
        benchlib.warm_up()
        for m in SWEEP_M:
            rows += run_dropout_case(m, torch.bfloat16, "none", host=m in DROPOUT_HOST_M)
        for dtype, approximate in DROPOUT_VARIANTS:
            rows += run_dropout_case(LARGEST, dtype, approximate, host=False)
    torch.cuda.empty_cache()
    return rows


# ---- what limits the fused kernel: fused_activation_controls ------------------------------

# Tiles at the largest size, bf16, on 4 warps: 8, 16, 32 or 64 elements per thread, with
# plan()'s one row of 2048 columns (32 bytes of a row per thread) made narrower, deeper or
# both, and fp32's shape, two rows of 1024 (16 bytes of each of two rows per thread). Each
# tile with the exact and the tanh GELU, and with no keep mask, one read from memory or
# one made from a seed. In fp32 (plan(): two rows of 1024, 32 bytes of each row a thread
# covers) that tile and one row of 2048, exact GELU, keep mask from memory.
CONTROL_TILES = [(1, 1024, 4), (1, 2048, 4), (2, 1024, 4), (2, 2048, 4), (4, 2048, 4)]
FP32_TILES = [(2, 1024, 4), (1, 2048, 4)]
KEEPS = ("none", "memory", "seed")


def opcodes(text: str, kind: str) -> list[str]:
    """The opcodes of a kernel's PTX or SASS (``kind``), in order, predicates dropped
    (``@%p1 ld.global.b32`` is ``ld.global.b32``); labels, directives, comments and SASS's
    NOP padding are not instructions."""
    if kind == "ptx":
        body = text[text.index("{", text.index(".entry")) :]
        lines = [line.strip() for line in body.splitlines()]
        lines = [t for t in lines if t and not t.startswith(("//", ".", "$", "{", "}"))]
        guard = r"^@!?%p\w+\s+"
    else:  # cuobjdump's SASS as triton.tools.disasm gives it: "<control>\t<instruction>;"
        lines = [line.split("\t", 1)[1].strip() for line in text.splitlines() if "\t" in line]
        guard = r"^@!?U?P\w+\s+"
    ops = [re.sub(guard, "", line).split()[0].rstrip(";") for line in lines]
    return [op for op in ops if op != "NOP"]


def instruction_counts(text: str, kind: str) -> dict[str, int]:
    """Instructions of each opcode in a kernel's PTX or SASS (``kind``): ``opcodes``
    counted. The kernel has no loop, so each instruction runs once per thread."""
    return dict(collections.Counter(opcodes(text, kind)))


def sass_text(compiled) -> str | None:
    """The compiled kernel's SASS (cuobjdump, as Triton bundles it), or None."""
    try:
        from triton.tools.disasm import get_sass

        return get_sass(compiled.asm["cubin"])
    except Exception as exc:  # noqa: BLE001 - no disassembler: record no SASS, keep the PTX
        print(f"    SASS skipped: {type(exc).__name__}: {exc}"[:200])
        return None


def load_positions(sass: str | None) -> list[int] | None:
    """Where each global load (LDG) stands among the SASS's ``opcodes``, from 0; None
    without SASS."""
    if sass is None:
        return None
    return [i for i, op in enumerate(opcodes(sass, "sass")) if op.startswith("LDG")]


def run_controls(ceilings: dict) -> list[dict]:
    rows, m, p = [], LARGEST, DROP_P
    benchlib.warm_up()
    cases = [(torch.bfloat16, a, k, CONTROL_TILES) for a in ("none", "tanh") for k in KEEPS]
    cases.append((torch.float32, "none", "memory", FP32_TILES))
    for dtype, approximate, keep, tiles in cases:
        rtol, atol = CHECK_TOL[dtype]
        x, bias, mask = inputs(m, dtype, with_mask=keep == "memory")
        out = torch.empty_like(x)
        drop = {"p": p, "seed": SEED} if keep == "seed" else {}
        if keep == "seed":
            expected, _ = seeded_expected(x, bias, p, SEED, approximate)
        else:
            expected = fa.reference(x, bias, mask, approximate)
        found = []
        with benchlib.head_to_head():  # the tiles checked, then timed in turn
            for block_m, block_n, warps in tiles:
                tile = {"block_m": block_m, "block_n": block_n, "num_warps": warps}
                fn = functools.partial(fa.bias_gelu_mask, x, bias, mask,
                                       approximate=approximate, out=out, **drop,
                                       **tile)  # fmt: skip
                what = (f"fused_activation_controls {DTYPES[dtype]} {approximate} keep={keep} "
                        f"{block_m}x{block_n}/{warps} warps")  # fmt: skip
                name = f"{block_m}x{block_n}w{warps}"
                timing = benchlib.check_then_time(fn, expected, what, out=out, exact=False,
                                                  rtol=rtol, atol=atol, name=name)  # fmt: skip
                kernel = compiled_kernel(x, bias, mask, out, approximate, **drop, **tile)
                sass = sass_text(kernel)
                planned = (block_m, block_n) == fa.plan(m, N, x.element_size()) and warps == 4
                found.append({
                    "dtype": DTYPES[dtype], "approximate": approximate, "keep": keep,
                    "m": m, "n": N, **tile, "per_thread": block_m * block_n // (32 * warps),
                    "planned": planned, "bytes": dropout_min_bytes(m, dtype, keep), **timing,
                    **benchlib.kernel_resources(kernel),
                    "ptx_ops": instruction_counts(kernel.asm["ptx"], "ptx"),
                    "sass_ops": None if sass is None else instruction_counts(sass, "sass"),
                    "loads_at": load_positions(sass),
                })  # fmt: skip
        rows += found
        for r in found:
            issued = sum((r["sass_ops"] or r["ptx_ops"]).values()) / r["per_thread"]
            print(f"  {r['dtype']} {approximate:<4} keep={keep:<6} {r['block_m']}x{r['block_n']}: "
                  f"{r['bytes'] / r['time_s']['p50'] / 1e12:.2f} TB/s, {r['n_regs']} regs, "
                  f"{issued:.1f} instructions per element, loads at {r['loads_at']}")  # fmt: skip
        del x, bias, mask, out, expected
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
        "(do_bench, L2 flushed); at M = 256, 1024 and 4096 also the GPU's time with the host "
        "taken out (graph_time_s: 20 calls captured in a CUDA graph, replayed 25 times) and "
        "the host's wall time per call (host_s: loops of back-to-back calls, synchronised at "
        "the end). Bytes = each input "
        "read once + output written once: "
        "(3 or 2) * M * N * size + N * size for every impl. kernels = CUDA kernels per call "
        "(torch.profiler); Triton rows: n_regs, n_spills and the PTX's global loads of the "
        "compiled kernel. Roofline FLOPs: 7 per element, erf counted as one.",
        run,
    ),
    benchlib.Benchmark(
        "fused_activation_dropout",
        "Dropout of gelu(x + bias), x (M, 4096), bias (4096,), p = 0.1, four ways: "
        "triton_seed, kernels/fused_activation.py with the keep mask made in the kernel "
        "(bias_gelu_mask(x, bias, p=0.1, seed=20240613): tl.rand on each element's place, no "
        "mask bytes); triton_mask, the same kernel reading a keep mask (0 or 1/(1-p)) from "
        "memory; eager F.dropout(F.gelu(x + bias), p) and torch.compile of it (dynamic=False,"
        " one compile per case), each with torch's own random mask. Sweep: bfloat16, exact "
        "GELU, M = 256..32768; at M = 32768 also tanh GELU (bf16) and float32. Triton rows "
        "checked against the float64 reference on their own mask (launch_dropout_mask for the"
        " seed), then timed (do_bench, L2 flushed). The peers' mask cannot be known in "
        "advance: each is checked for shape, dtype, a kept fraction within 6 binomial "
        "standard deviations of 1 - p (where |gelu| > 1e-3), and every element against the "
        "float64 reference on the mask read back from its output; then timed the same way. At"
        " M = 256 and 1024 also the host's time per call (host_s). bytes = the least the impl"
        " must move: x read, out written, bias read, plus M * N mask elements for "
        "triton_mask. keep_fraction = the kept fraction of the checked call; kernels = CUDA "
        "kernels per call (torch.profiler); Triton rows: n_regs, n_spills and the PTX's "
        "global loads.",
        run_dropout,
    ),
    benchlib.Benchmark(
        "fused_activation_controls",
        "What limits kernels/fused_activation.py at M = 32768, N = 4096: in bf16, each of 2 "
        "GELU forms (exact erf, tanh) x 3 keep masks (none; read from memory; made in the "
        "kernel from a seed, p = 0.1) x 5 tiles on 4 warps (1 x 1024, 1 x 2048, 2 x 1024, "
        "2 x 2048, 4 x 2048: 8, 16, 16, 32 or 64 elements per thread); in fp32, the exact "
        "GELU with a keep mask from memory, 2 x 1024 and 1 x 2048; planned = plan()'s tile "
        "for the dtype. Each checked against the float64 reference and timed in turn with "
        "the others of its case (do_bench, L2 flushed). bytes = x read, out written, bias "
        "read, plus the mask when read from memory. Each row keeps the compiled kernel's "
        "registers and spills, its instructions by opcode in the PTX and (where cuobjdump "
        "runs) in the SASS, predicates dropped and NOPs left out, and where in the SASS each "
        "global load stands (loads_at); the kernel has no loop, so each instruction runs "
        "once per thread and the count over per_thread is instructions per element. The "
        "controls: elements per thread (bytes in flight), the shape of a thread's share "
        "(one row or two), and instructions per element (the GELU form, the random numbers).",
        run_controls,
    ),
]
