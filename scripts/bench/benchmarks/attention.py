"""Benchmarks of the attention family (kernels/attention.py): lesson 12.

- ``attention``: TFLOP/s against sequence length N, bf16, head dims 64 and 128, causal
  and not, forward and backward: the book's kernels, SDPA's flash, cuDNN and
  memory-efficient backends (each forced with ``torch.nn.attention.sdpa_kernel``),
  FlexAttention (``torch.compile(flex_attention)``, which generates Triton kernels) and a
  naive attention that materialises the N x N scores (where it fits). Tokens and width
  stay constant: B * N = 16384 and H * d = 4096, so N = 4096 at d = 128 is B = 4, H = 32,
  the shape of the peer table in the shared notes.
- ``attention_memory``: peak memory the CUDA allocator reports against N, inference
  forward and one training step, naive vs the book's kernels vs SDPA's flash backend.

Quick mode (``measure.py --quick``, which sets BOOK_QUICK=1 before this module is
imported; see ``benchlib.quick``) runs only d = 128, N = 4096 (and a short memory sweep):
the point the targets name, in well under a minute of GPU time.

``python3 -m scripts.bench.benchmarks.attention`` (not run by ``make figures``) times a few
tile configurations at N = 4096 and prints them: the way to retune the per-head-dim
tables in kernels/attention.py on a new GPU.
"""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from kernels import attention as at
from scripts.bench import benchlib

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:  # torch too old: the SDPA rows are skipped
    SDPBackend = sdpa_kernel = None
try:
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
except ImportError:
    flex_attention = create_block_mask = None

QUICK = benchlib.quick()  # read at import: the runner sets it before importing this module
DTYPE = torch.bfloat16
TOKENS = 16384  # B * N
WIDTH = 4096  # H * d
HEAD_DIMS = (128,) if QUICK else (64, 128)
N_FORWARD = (4096,) if QUICK else (1024, 2048, 4096, 8192, 16384)
N_BACKWARD = (4096,) if QUICK else (1024, 4096, 16384)
N_FLEX = (4096,) if QUICK else (4096, 16384)  # each N is a compile of forward + backward
# The naive version stores B * H * N^2 scores several times over (scores, probabilities
# and, for the backward, their gradients): past these N it needs tens of GB.
NAIVE_MAX_N = {"forward": 8192, "backward": 4096}
N_MEMORY = (1024, 4096) if QUICK else (1024, 2048, 4096, 8192, 16384)
MEMORY_SHAPE = (1, 16, 128)  # B, H, d of the memory sweep
# bf16 results against the float64 reference rounded to bf16: two units in the last
# place (2**-7) relative, and an atol for values near zero; the gradients' atol is scaled
# by their largest element, as in tests/kernels/test_attention.py. Every peer passes the
# same check, so a peer is held to the book's bar and vice versa.
RTOL, ATOL = 2**-6, 2**-5
GRAD_ATOL = 2**-4


# The FLOP convention credits a backward with 5 tile matmuls to the forward's 2
# (FlashAttention-2's count); the book's backward executes at.BACKWARD_TILE_MATMULS (7),
# so its rate as counted here is 5/7 of the tensor-core work it does
# (figures/attention.py's executed_tflops).
NOMINAL_BACKWARD_MATMULS = 5


def flops(batch: int, heads: int, n: int, d: int, causal: bool, direction: str) -> int:
    """4 B H N^2 d for the forward (two matmuls of 2 N^2 d each per head), half of it with
    causal, and 2.5 times that for the backward (five matmuls instead of two)."""
    f = 4 * batch * heads * n * n * d // (2 if causal else 1)
    if direction == "forward":
        return f
    return f * NOMINAL_BACKWARD_MATMULS // at.FORWARD_TILE_MATMULS


def shape(n: int, d: int) -> tuple[int, int]:
    """(B, H) with B * N = TOKENS and H * d = WIDTH."""
    return TOKENS // n, WIDTH // d


# ---- implementations ------------------------------------------------------------------------


def triton_attention(q, k, v, causal):
    return at.attention(q, k, v, causal=causal)


def sdpa_with(backend, q, k, v, causal):
    """SDPA with one backend forced (it raises rather than fall back to another)."""
    with sdpa_kernel([backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def naive_attention(q, k, v, causal, keep=None):
    """The formula as a reader would write it, with the N x N scores in HBM (bf16, the
    softmax computed in float32 inside torch.softmax)."""
    s = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    if causal:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def causal_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


@functools.cache
def compiled_flex():
    return torch.compile(flex_attention, dynamic=False)


def flex_fn(n: int, causal: bool):
    mask = None
    if causal:
        mask = create_block_mask(causal_mod, B=None, H=None, Q_LEN=n, KV_LEN=n, device="cuda")

    def run(q, k, v, causal):
        return compiled_flex()(q, k, v, block_mask=mask)

    return run


def implementations(n: int, causal: bool) -> dict:
    """impl -> f(q, k, v, causal), in the order they are timed; a peer that this torch
    lacks, or that cannot run this N, is left out."""
    impls = {"triton": triton_attention}
    if sdpa_kernel is not None:
        impls["sdpa_flash"] = functools.partial(sdpa_with, SDPBackend.FLASH_ATTENTION)
        impls["sdpa_cudnn"] = functools.partial(sdpa_with, SDPBackend.CUDNN_ATTENTION)
        impls["sdpa_efficient"] = functools.partial(sdpa_with, SDPBackend.EFFICIENT_ATTENTION)
    if flex_attention is not None and n in N_FLEX:
        impls["flex"] = flex_fn(n, causal)
    if n <= NAIVE_MAX_N["forward"]:
        keep = torch.ones(n, n, dtype=torch.bool, device="cuda").tril() if causal else None
        impls["naive"] = functools.partial(naive_attention, keep=keep)
    return impls


# ---- expected results: the float64 reference, one head at a time -----------------------------


def expected_results(q, k, v, do, causal, grads: bool):
    """o (and dq, dk, dv) from ``reference`` in float64, one (batch, head) at a time so that
    the N x N float64 scores of only one head exist at once; rounded to bf16."""
    o = torch.empty_like(q)
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    for b in range(q.shape[0]):
        for h in range(q.shape[1]):
            q64, k64, v64 = (t[b, h].detach().double().requires_grad_(grads) for t in (q, k, v))
            with torch.set_grad_enabled(grads):
                o64 = at.reference(q64, k64, v64, causal=causal)
                if grads:
                    g = torch.autograd.grad(o64, (q64, k64, v64), do[b, h].double())
                    for out, gi in zip((dq, dk, dv), g, strict=True):
                        out[b, h] = gi.to(DTYPE)
            o[b, h] = o64.detach().to(DTYPE)
    return (o, dq, dk, dv) if grads else (o,)


def grad_step(o, inputs, do):
    """One backward through o's retained graph; returns dq (dk and dv are computed too)."""
    return torch.autograd.grad(o, inputs, do, retain_graph=True)[0]


def check_grad(got, expected, what):
    atol = GRAD_ATOL * expected.abs().max().item()
    benchlib.check(got, expected, what, exact=False, rtol=RTOL, atol=atol)


def measure(impl, fn, q, k, v, do, causal, expected, directions) -> dict:
    """Forward and (if asked) backward timing of one implementation, each checked first.
    Inside ``benchlib.head_to_head``, every implementation but the naive one (whose
    N x N scores would sit in memory beside the others') is noted, to be timed in turn
    with the others of its direction."""
    what = f"attention {impl} N={q.shape[2]} d={q.shape[3]} causal={causal}"
    fwd = functools.partial(fn, q, k, v, causal)
    timing = {}

    def turn(direction: str) -> dict:
        return {} if impl == "naive" else {"name": impl, "among": direction}

    if "forward" in directions:
        timing["forward"] = benchlib.check_then_time(
            fwd, expected[0], f"{what} forward", exact=False, rtol=RTOL, atol=ATOL,
            **turn("forward"),
        )["time_s"]  # fmt: skip
    if "backward" in directions:
        o = fwd()
        dq, dk, dv = torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        check_grad(dk, expected[2], f"{what} dk")
        check_grad(dv, expected[3], f"{what} dv")
        step = functools.partial(grad_step, o, (q, k, v), do)
        step_check = benchlib.check_then_time  # dq through check_then_time, then timed
        atol = GRAD_ATOL * expected[1].abs().max().item()
        timing["backward"] = step_check(
            step, expected[1], f"{what} backward (dq)", exact=False, rtol=RTOL, atol=atol,
            **turn("backward"),
        )["time_s"]  # fmt: skip
        del o
    return timing


def tiles(d: int) -> str:
    fm, fn, fw, fs = at.plan(d)
    (km, kn, kw, ks), (qm, qn, qw, qs) = at.plan(d, backward=True)
    return f"fwd {fm}x{fn} w{fw} s{fs}; dkdv {km}x{kn} w{kw} s{ks}; dq {qm}x{qn} w{qw} s{qs}"


def run(ceilings: dict) -> list[dict]:
    config = torch._dynamo.config  # every (N, causal) is a new shape for flex: allow it
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, limit, max(getattr(config, limit), 64))
    benchlib.warm_up()
    rows = []
    for d in HEAD_DIMS:
        for causal in (False, True):
            for n in sorted(set(N_FORWARD) | set(N_BACKWARD)):
                directions = [x for x, ns in (("forward", N_FORWARD), ("backward", N_BACKWARD))
                              if n in ns]  # fmt: skip
                batch, heads = shape(n, d)
                q, k, v, do = (
                    torch.randn(batch, heads, n, d, device="cuda").to(DTYPE) for _ in range(4)
                )
                for t in (q, k, v):
                    t.requires_grad_()
                expected = expected_results(q, k, v, do, causal, "backward" in directions)
                found = []
                # Checked one by one (the naive one timed then too); the others' forwards
                # timed in turn when the block ends, and their backwards.
                with benchlib.head_to_head():
                    for impl, fn in implementations(n, causal).items():
                        mine = [x for x in directions if impl != "naive" or n <= NAIVE_MAX_N[x]]
                        try:
                            timing = measure(impl, fn, q, k, v, do, causal, expected, mine)
                        except Exception as exc:  # a peer that cannot run is skipped, not fatal
                            if impl == "triton":
                                raise
                            why = f"{type(exc).__name__}: {exc}"
                            print(f"  skipped {impl} N={n} d={d}: {why}"[:300])
                            torch.cuda.empty_cache()
                            continue
                        for direction, spread in timing.items():
                            f = flops(batch, heads, n, d, causal, direction)
                            row = {
                                "direction": direction, "impl": impl, "dtype": "bfloat16",
                                "batch": batch, "heads": heads, "n": n, "head_dim": d,
                                "causal": causal, "flops": f, "time_s": spread,
                            }  # fmt: skip
                            if impl == "triton":
                                row["tiles"] = tiles(d)
                            found.append(row)
                rows += found
                speeds = [
                    f"{r['impl']} {r['direction'][:3]} {r['flops'] / r['time_s']['p50'] / 1e12:.0f}"
                    for r in found
                ]
                print(f"  d={d} causal={causal} N={n}: " + ", ".join(speeds) + " TFLOP/s")
                del q, k, v, do, expected
                torch.cuda.empty_cache()
    return rows


# ---- peak memory ------------------------------------------------------------------------------


def peak_bytes(step) -> int:
    """Bytes the CUDA allocator held at its peak during ``step`` beyond what it held
    before (the inputs): the working memory of the step itself."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def inference(fn, q, k, v, causal):
    with torch.no_grad():
        fn(q, k, v, causal)


def training(fn, q, k, v, do, causal):
    o = fn(q, k, v, causal)
    o.backward(do)
    for t in (q, k, v):
        t.grad = None


def run_memory(ceilings: dict) -> list[dict]:
    batch, heads, d = MEMORY_SHAPE
    rows = []
    for n in N_MEMORY:
        q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda").to(DTYPE) for _ in range(4))
        for t in (q, k, v):
            t.requires_grad_()
        keep = torch.ones(n, n, dtype=torch.bool, device="cuda").tril()
        impls = {"triton": triton_attention, "naive": functools.partial(naive_attention, keep=keep)}
        if sdpa_kernel is not None:
            impls["sdpa_flash"] = functools.partial(sdpa_with, SDPBackend.FLASH_ATTENTION)
        found = []
        for impl, fn in impls.items():
            for direction, step in (
                ("forward", functools.partial(inference, fn, q, k, v, True)),
                ("training", functools.partial(training, fn, q, k, v, do, True)),
            ):
                try:
                    step()  # once before measuring: compile, allocator pools, workspaces
                    peak = peak_bytes(step)
                except torch.cuda.OutOfMemoryError:
                    print(f"  {impl} {direction} N={n}: out of memory, no row")
                    torch.cuda.empty_cache()
                    continue
                rows.append({
                    "impl": impl, "direction": direction, "dtype": "bfloat16", "batch": batch,
                    "heads": heads, "n": n, "head_dim": d, "causal": True,
                    "input_bytes": 4 * q.numel() * q.element_size(), "peak_bytes": max(peak, 1),
                })  # fmt: skip
                found.append(f"{impl} {direction[:5]} {peak / 2**20:.0f}")
        print(f"  N={n}: " + ", ".join(found) + " MiB")
        del q, k, v, do, keep
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "attention",
        "Attention in bf16, B * N = 16384 tokens and H * d = 4096 (N = 4096, d = 128 is B = 4, "
        "H = 32), head dims 64 and 128, causal (top-left mask, as SDPA's is_causal) and not, "
        "forward and backward: kernels/attention.py (attention, an autograd.Function), "
        "torch.nn.functional.scaled_dot_product_attention with the FLASH_ATTENTION, "
        "CUDNN_ATTENTION and EFFICIENT_ATTENTION backends each forced by sdpa_kernel, "
        "FlexAttention (torch.compile(flex_attention, dynamic=False), block mask from "
        "create_block_mask for causal) and a naive attention that stores the N x N scores "
        "(bf16 matmuls and torch.softmax; forward up to N = 8192, backward up to 4096). Each "
        "result is checked against a float64 reference computed one head at a time (forward: "
        "o; backward: dq, dk, dv) before timing. Forward: one call with inputs that require "
        "grad (a training forward). Backward: torch.autograd.grad of (q, k, v) through the "
        "graph retained from one forward. Device time by do_bench, L2 flushed, percentiles "
        "over repetitions. FLOPs: 4 B H N^2 d forward, half with causal; backward 2.5 times "
        "the forward. The book's rows name their tiles (BLOCK_M x BLOCK_N, warps, stages).",
        run,
    ),
    benchlib.Benchmark(
        "attention_memory",
        "Peak memory of causal attention, bf16, B = 1, H = 16, d = 128, against N: the CUDA "
        "allocator's max_memory_allocated after reset_peak_memory_stats, minus what was "
        "allocated before (q, k, v, dO), for an inference forward (no_grad) and one training "
        "step (forward, then backward into q, k, v's .grad), each run once before it is "
        "measured. Implementations: kernels/attention.py, the naive attention (N x N scores "
        "stored), SDPA's flash backend. A row missing means that step ran out of memory.",
        run_memory,
    ),
]


# ---- tile sweep (by hand, not part of make figures) ---------------------------------------


def sweep(n: int = 4096) -> None:
    """Print forward and backward TFLOP/s of a few tile configs, bf16, N = 4096."""
    fwd_configs = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3),
                   (128, 32, 4, 3), (128, 128, 8, 2)]  # fmt: skip
    bwd_configs = [  # (dK/dV tiles, dQ tiles)
        ((32, 128, 4, 3), (128, 32, 4, 3)), ((32, 64, 4, 3), (64, 32, 4, 3)),
        ((64, 64, 4, 3), (64, 64, 4, 3)), ((64, 128, 8, 3), (128, 64, 8, 3)),
        ((32, 128, 8, 2), (128, 32, 8, 2)), ((64, 64, 8, 2), (64, 64, 8, 2)),
    ]  # fmt: skip
    for d in (64, 128):
        batch, heads = shape(n, d)
        q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda").to(DTYPE) for _ in range(4))
        for causal in (False, True):
            scale = d**-0.5
            expected_o, lse = at.launch_forward(q, k, v, causal, scale)
            for cfg in fwd_configs:
                fn = functools.partial(at.launch_forward, q, k, v, causal, scale, cfg)
                try:
                    torch.testing.assert_close(fn()[0], expected_o, rtol=RTOL, atol=ATOL)
                    t = benchlib.device_time(fn)["p50"]
                except Exception as exc:
                    print(f"d={d} causal={causal} fwd {cfg}: {type(exc).__name__}"[:200])
                    continue
                tf = flops(batch, heads, n, d, causal, "forward") / t / 1e12
                print(f"d={d} causal={causal} fwd {cfg}: {tf:.0f} TFLOP/s")
            ref = at.launch_backward(do, q, k, v, expected_o, lse, causal, scale)
            for dkdv, dq in bwd_configs:
                fn = functools.partial(
                    at.launch_backward, do, q, k, v, expected_o, lse, causal, scale, dkdv, dq
                )
                try:
                    for got, exp in zip(fn(), ref, strict=True):
                        atol = GRAD_ATOL * exp.abs().max().item()
                        torch.testing.assert_close(got, exp, rtol=RTOL, atol=atol)
                    t = benchlib.device_time(fn)["p50"]
                except Exception as exc:
                    print(f"d={d} causal={causal} bwd {dkdv} {dq}: {type(exc).__name__}"[:200])
                    continue
                tf = flops(batch, heads, n, d, causal, "backward") / t / 1e12
                print(f"d={d} causal={causal} bwd dkdv {dkdv} dq {dq}: {tf:.0f} TFLOP/s")


if __name__ == "__main__":
    sweep()
    print("current tables:", *(f"d={d}: {tiles(d)}" for d in (64, 128)), sep="\n")
