"""Benchmark of lesson 12's last quarter: the attention forward, one step at a time.

- ``attention_ladder``: TFLOP/s of an inference forward (inputs that do not require
  grad), bf16, N = 4096, d = 128 (B = 4, H = 32) and d = 64 (B = 4, H = 64: the attention
  benchmark's B * N = 16384, H * d = 4096), full and causal (top-left), for each rung of
  the ladder and the peers, all timed head to head in one comparison per shape so that
  every ratio carries its spread:

  * ``simple``: lesson 12's kernel (kernels/attention.py, ``attention``, its own tiles);
  * ``descriptors``: kernels/attention_tma.py at the simple kernel's tiles (warps and
    stages too): the loads and the store through tensor descriptors, nothing else new;
  * ``tuned``: kernels/attention_tma.py at ``plan``'s tiles, warps and stages, warp
    specialisation off (left out where those are the simple kernel's own);
  * ``warp_specialize``: plan's tiles with ``tl.range(..., warp_specialize=True)`` on
    the unmasked loop (a compile failure is a row with ``failure``, not fatal);
  * the forward written in Gluon (kernels/attention_gluon.py: TMA copies into a ring of
    key/value slots with mbarriers, asynchronous warp-group products), in three steps:
    ``gluon_pipelined``, one partition of 8 warps that copies and computes;
    ``gluon_ws``, a loader warp feeding one consumer partition of 8 warps (both at plan's
    tiles and ring); ``gluon``, the kernel at its ``plan`` (a loader warp and two consumer
    groups). The two first are rows of the data, not bars of the figure;

  The rung whose config is ``plan``'s, the one ``attention_tma`` runs, has ``plan: true``.
  * peers: SDPA's cuDNN backend (``sdpa_cudnn``), FlexAttention compiled (``flex``) and
    SDPA's flash backend (``sdpa_flash``).

  Every result is checked against the float64 reference first (one head at a time). The
  rows of kernels/attention_tma.py record their config and the compiled kernel's
  registers and spills.

- ``attention_ladder_backward``: the same shapes, the backward (dQ, dK, dV from dO), one
  row per rung and peer, timed head to head per shape:

  * ``simple``: lesson 12's backward (kernels/attention.py's ``launch_backward``, its own
    tiles);
  * ``descriptors``: kernels/attention_tma.py's ``launch_backward`` at lesson 12's
    backward tiles: every tile through a descriptor, nothing else new;
  * ``tuned``: at ``plan(d, backward=True, causal=causal)``'s tiles (left out where
    those are lesson 12's);
  * ``reduce``: plan's dK/dV tiles, dQ added by the dK/dV kernel with one TMA reduction
    per tile instead of a dQ kernel (five tile matmuls instead of seven; left out where
    plan already adds dQ so);
  * peers: SDPA cuDNN, FlexAttention compiled and SDPA flash, each the backward of a
    retained graph (``torch.autograd.grad(o, (q, k, v), do, retain_graph=True)``).

  The book's rungs are timed as their launch functions (the forward's o and log-sum-exp
  computed once, outside the timing); each result (dq, dk, dv) is checked against the
  float64 reference first. The TMA rows record the registers and spills of the dK/dV and
  dQ kernels.

Measure it on a Hopper GPU with ``python3 scripts/bench/measure.py attention_ladder``
(a few minutes, most of it the float64 references and FlexAttention's compiles). Quick
mode times d = 128 only.
"""

from __future__ import annotations

import functools
import math
import re
import traceback

import torch
from torch._functorch import config as functorch_config

from kernels import attention as at
from kernels import attention_gluon as agl
from kernels import attention_tma as atm
from scripts.bench import benchlib
from scripts.bench.benchmarks.attention import (
    ATOL,
    DTYPE,
    RTOL,
    SDPBackend,
    check_grad,
    expected_results,
    flex_attention,
    flex_fn,
    flops,
    peak_bytes,
    sdpa_kernel,
    sdpa_with,
    shape,
)

N = 4096
HEAD_DIMS = benchlib.pick((128, 64), (128,))
# The rungs, in the order they are drawn, then the peers.
STEPS = ("simple", "descriptors", "tuned", "warp_specialize", "gluon_pipelined", "gluon_ws",
         "gluon")  # fmt: skip
PEERS = ("sdpa_cudnn", "flex", "sdpa_flash")


def config_text(config: tuple) -> str:
    block_m, block_n, warps, stages, ws = config
    return f"{block_m}x{block_n} w{warps} s{stages}" + (" ws" if ws else "")


def gluon_config_text(config: tuple) -> str:
    """ "ws2 128x128 s2 w4": the schedule kind, BLOCK_M x BLOCK_N, ring stages, warps per
    consumer partition."""
    kind, block_m, block_n, stages, warps = config
    return f"{kind} {block_m}x{block_n} s{stages} w{warps}"


def gluon_ladder(d: int) -> dict[str, tuple]:
    """The Gluon rungs at head dim ``d``: one partition of 8 warps, a loader warp and one
    consumer partition of 8 warps (both at plan's tiles and ring), and plan's kernel."""
    _, block_m, block_n, stages, _ = agl.plan(d)
    return {
        "gluon_pipelined": ("pipelined", block_m, block_n, stages, 8),
        "gluon_ws": ("ws", block_m, block_n, stages, 8),
        "gluon": agl.plan(d),
    }


def gluon_resources(fn, config: tuple) -> dict:
    """What the compiled Gluon kernel is: registers per thread at launch and spills
    (n_regs, n_spills); for a warp-specialised kernel the budgets its partitions take at
    run time (consumer_regs, loader_regs: setmaxnreg); and from its SASS, ``ex2_total``
    exp2 instructions of which ``ex2_overlapped`` are issued while a warp-group product
    (HGMMA) is still in flight (``overlapped_ex2``)."""
    names = ("attn_fwd_ws_kernel", "attn_fwd_pipelined_kernel")
    captures = {name: benchlib.Capture(getattr(agl, name)) for name in names}
    for name, cap in captures.items():
        setattr(agl, name, cap)
    try:
        fn()
    finally:
        for name, cap in captures.items():
            setattr(agl, name, cap.kernel)
    compiled = next((c.compiled for c in captures.values() if c.compiled is not None), None)
    found = {k: v for k, v in benchlib.kernel_resources(compiled).items() if v is not None}
    if config[0] != "pipelined":
        found["consumer_regs"], found["loader_regs"] = agl.PARTITION_REGISTERS
    try:
        sass = compiled.asm["sass"]
    except Exception as exc:  # noqa: BLE001 - no disassembler here: the row goes without
        print(f"    sass skipped: {exc!r}")
        return found
    found["ex2_total"], found["ex2_overlapped"] = overlapped_ex2(sass)
    return found


def overlapped_ex2(sass: str) -> tuple[int, int]:
    """(exp2 instructions, those issued while a warp-group MMA is in flight), reading the
    SASS in order: an HGMMA that ends a group (``gsb0``) opens one, ``WARPGROUP.DEPBAR.LE
    gsb0, N`` leaves at most N open. A static count of the code as laid out, loops read
    once."""
    open_groups = total = overlapped = 0
    for line in sass.splitlines():
        if "MUFU.EX2" in line:
            total += 1
            overlapped += open_groups > 0
        elif "HGMMA" in line and "gsb0" in line:
            open_groups += 1
        elif m := re.search(r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x([0-9a-f]+)", line):
            open_groups = min(open_groups, int(m.group(1), 16))
    return total, overlapped


def ladder(d: int) -> dict[str, tuple]:
    """The config of each rung of kernels/attention_tma.py at head dim ``d``: the simple
    kernel's tiles; plan's tiles, warps and stages where they differ from those; and
    plan's with warp specialisation."""
    simple = (*at.plan(d), False)
    tuned = (*atm.plan(d)[:4], False)
    rungs = {"descriptors": simple, "tuned": tuned, "warp_specialize": (*tuned[:4], True)}
    if tuned == simple:  # the sweep kept lesson 12's tiles: one rung, not two the same
        del rungs["tuned"]
    return rungs


def implementations(d: int, causal: bool) -> dict:
    """impl -> (f(q, k, v), config or None): every rung, then the peers this torch has."""
    scale = 1 / math.sqrt(d)
    impls = {"simple": (lambda q, k, v: at.attention(q, k, v, causal=causal), None)}
    for step, config in ladder(d).items():
        impls[step] = (
            lambda q, k, v, config=config: atm.launch(q, k, v, causal, scale, config=config),
            config,
        )
    for step, config in gluon_ladder(d).items():
        impls[step] = (
            lambda q, k, v, config=config: agl.launch(q, k, v, causal, scale, config=config),
            None,
        )
    if sdpa_kernel is not None:
        cudnn = functools.partial(sdpa_with, SDPBackend.CUDNN_ATTENTION)
        impls["sdpa_cudnn"] = (lambda q, k, v: cudnn(q, k, v, causal), None)
    if flex_attention is not None:
        flex = flex_fn(N, causal)
        impls["flex"] = (lambda q, k, v: flex(q, k, v, causal), None)
    if sdpa_kernel is not None:
        flash = functools.partial(sdpa_with, SDPBackend.FLASH_ATTENTION)
        impls["sdpa_flash"] = (lambda q, k, v: flash(q, k, v, causal), None)
    return impls


def measure_one(impl, fn, config, q, k, v, expected, base: dict) -> dict:
    """One row: checked, then noted for the head-to-head timing; or the failure."""
    d, causal = q.shape[3], base["causal"]
    what = f"attention_ladder {impl} d={d} causal={causal}"
    row = {"impl": impl, **base}
    call = functools.partial(fn, q, k, v)
    try:
        timing = benchlib.check_then_time(
            call, expected, what, exact=False, rtol=RTOL, atol=ATOL, name=impl, among="forward"
        )
    except Exception as exc:  # recorded and shown: one broken rung or peer keeps the rest
        print(f"  !! {what} failed: {type(exc).__name__}: {exc}"[:400])
        traceback.print_exc()
        row["failure"] = f"{type(exc).__name__}: {exc}"[:400]
        torch.cuda.empty_cache()
        return row
    row["time_s"] = timing["time_s"]
    if config is not None:
        row["config"] = config_text(config)
        row["plan"] = config == atm.plan(d)  # the rung attention_tma runs by default
        resources = benchlib.captured(call, atm, "attn_fwd_tma_kernel")
        row.update({key: v for key, v in resources.items() if v is not None})
    elif impl == "simple":
        row["config"] = config_text((*at.plan(d), False))
    elif impl in gluon_ladder(d):
        config = gluon_ladder(d)[impl]
        row["config"] = gluon_config_text(config)
        row.update(gluon_resources(call, config))
    return row


def run(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "attention_ladder (tensor descriptors)")
    config = torch._dynamo.config  # every (d, causal) is a new shape for flex: allow it
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, limit, max(getattr(config, limit), 64))
    benchlib.warm_up()
    rows = []
    for d in HEAD_DIMS:
        batch, heads = shape(N, d)
        q, k, v = (torch.randn(batch, heads, N, d, device="cuda").to(DTYPE) for _ in range(3))
        for causal in (False, True):
            (expected,) = expected_results(q, k, v, None, causal, grads=False)
            base = {
                "direction": "forward", "dtype": "bfloat16", "batch": batch, "heads": heads,
                "n": N, "head_dim": d, "causal": causal,
                "flops": flops(batch, heads, N, d, causal, "forward"),
            }  # fmt: skip
            found = []
            with benchlib.head_to_head():  # every rung and peer in turn, the ratio per round
                for impl, (fn, cfg) in implementations(d, causal).items():
                    found.append(measure_one(impl, fn, cfg, q, k, v, expected, base))
            rows += found
            speeds = [
                f"{r['impl']} "
                + (f"{r['flops'] / r['time_s']['p50'] / 1e12:.0f}" if "time_s" in r else "FAILED")
                for r in found
            ]
            print(f"  d={d} causal={causal}: " + ", ".join(speeds) + " TFLOP/s")
            del expected
            torch.cuda.empty_cache()
        del q, k, v
        torch.cuda.empty_cache()
    return rows


# ---- the backward, one step at a time -------------------------------------------------------

BACKWARD_STEPS = ("simple", "descriptors", "tuned", "reduce")


def backward_config_text(config: tuple) -> str:
    """ "dkdv 64x128 w8 s3; dq 128x64 w8 s3", or "...; dq atomic" ("dq reduce") for dQ
    added by the dK/dV kernel with atomics (TMA reductions)."""
    (m, n, w, s), dq = config
    return f"dkdv {m}x{n} w{w} s{s}; dq " + (
        dq if isinstance(dq, str) else "{}x{} w{} s{}".format(*dq)
    )


def backward_ladder(d: int, causal: bool) -> dict[str, tuple]:
    """The config of each TMA rung of the backward at head dim ``d`` and mask
    ``causal``: lesson 12's backward tiles; plan's where they differ; and plan's dK/dV
    tiles with dQ added by TMA reductions instead of its own kernel (five tile matmuls
    per pair of blocks instead of seven), where plan keeps the dQ kernel."""
    simple = at.plan(d, backward=True)
    planned = atm.plan(d, backward=True, causal=causal)
    rungs = {"descriptors": simple, "tuned": planned}
    if planned == simple:
        del rungs["tuned"]
    if not isinstance(planned[1], str):
        rungs["reduce"] = (planned[0], "reduce")
    return rungs


def backward_implementations(d: int, causal: bool, q, k, v, do) -> dict:
    """impl -> (build, config or None), the rungs then the peers: ``build()`` gives the
    call to time, which returns (dq, dk, dv)."""
    scale = 1 / math.sqrt(d)
    o12, lse12 = at.launch_forward(q, k, v, causal, scale)
    simple = functools.partial(at.launch_backward, do, q, k, v, o12, lse12, causal, scale)
    impls = {"simple": (lambda: simple, None)}
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    o = atm.launch(q, k, v, causal, scale, lse=lse)
    for step, config in backward_ladder(d, causal).items():
        call = functools.partial(atm.launch_backward, do, q, k, v, o, lse, causal, scale, config)
        impls[step] = (lambda call=call: call, config)
    peers = {}  # impl -> make(): the peer's forward, made only when its turn comes
    if sdpa_kernel is not None:
        peers["sdpa_cudnn"] = lambda: functools.partial(sdpa_with, SDPBackend.CUDNN_ATTENTION)
    if flex_attention is not None:
        peers["flex"] = lambda: flex_fn(N, causal)
    if sdpa_kernel is not None:
        peers["sdpa_flash"] = lambda: functools.partial(sdpa_with, SDPBackend.FLASH_ATTENTION)
    for impl, make in peers.items():
        impls[impl] = (functools.partial(peer_backward, make, causal, q, k, v, do), None)
    return impls


def peer_backward(make, causal, q, k, v, do):
    """A peer's backward: the call that runs it through the graph retained from one
    forward (the forward runs once, here, outside the timing)."""
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    o = make()(*leaves, causal)
    return lambda: torch.autograd.grad(o, leaves, do, retain_graph=True)


def measure_backward(impl, build, config, expected, base: dict) -> dict:
    """One backward row: built, checked (dq, dk, dv), then noted for the head-to-head
    timing; or the failure."""
    d, causal = base["head_dim"], base["causal"]
    what = f"attention_ladder_backward {impl} d={d} causal={causal}"
    row = {"impl": impl, **base}
    try:
        call = build()
        got = call()
        torch.cuda.synchronize()
        for name, g, e in zip(("dq", "dk", "dv"), got, expected, strict=True):
            check_grad(g, e, f"{what} {name}")
        row["time_s"] = benchlib.device_time(call, name=impl, among="backward")
    except Exception as exc:  # recorded and shown: one broken rung or peer keeps the rest
        print(f"  !! {what} failed: {type(exc).__name__}: {exc}"[:400])
        traceback.print_exc()
        row["failure"] = f"{type(exc).__name__}: {exc}"[:400]
        torch.cuda.empty_cache()
        return row
    if impl == "simple":
        row["config"] = backward_config_text(at.plan(d, backward=True))
        kernels = (at, "attn_bwd_dkdv_kernel", "attn_bwd_dq_kernel")
    elif config is not None:
        row["config"] = backward_config_text(config)
        # what attention_tma runs
        row["plan"] = config == atm.plan(d, backward=True, causal=causal)
        kernels = (atm, "attn_bwd_dkdv_tma_kernel", "attn_bwd_dq_tma_kernel")
    else:
        return row
    module, dkdv, dq = kernels
    for prefix, name in (("", dkdv), ("dq_", dq)):
        resources = benchlib.captured(call, module, name)
        row.update({prefix + key: v for key, v in resources.items() if v is not None})
    return row


def run_backward(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "attention_ladder_backward (tensor descriptors)")
    config = torch._dynamo.config  # every (d, causal) is a new shape for flex: allow it
    limit = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
    setattr(config, limit, max(getattr(config, limit), 64))
    benchlib.warm_up()
    # FlexAttention's compiled backward frees ("donates") its saved buffers unless told
    # not to, and then refuses a second backward through the same graph (retain_graph).
    with functorch_config.patch(donated_buffer=False):
        return backward_rows()


def backward_rows() -> list[dict]:
    rows = []
    for d in HEAD_DIMS:
        batch, heads = shape(N, d)
        q, k, v, do = (torch.randn(batch, heads, N, d, device="cuda").to(DTYPE) for _ in range(4))
        for causal in (False, True):
            _, *expected = expected_results(q, k, v, do, causal, grads=True)
            base = {
                "direction": "backward", "dtype": "bfloat16", "batch": batch, "heads": heads,
                "n": N, "head_dim": d, "causal": causal,
                "flops": flops(batch, heads, N, d, causal, "backward"),
            }  # fmt: skip
            found = []
            impls = backward_implementations(d, causal, q, k, v, do)
            with benchlib.head_to_head():  # every rung and peer in turn, the ratio per round
                for impl, (build, cfg) in impls.items():
                    found.append(measure_backward(impl, build, cfg, expected, base))
            rows += found
            speeds = [
                f"{r['impl']} "
                + (f"{r['flops'] / r['time_s']['p50'] / 1e12:.0f}" if "time_s" in r else "FAILED")
                for r in found
            ]
            print(f"  backward d={d} causal={causal}: " + ", ".join(speeds) + " TFLOP/s")
            del expected, impls
            torch.cuda.empty_cache()
        del q, k, v, do
        torch.cuda.empty_cache()
    return rows


# ---- grouped-query attention: fewer key/value heads, read in place or repeated ------------

GQA_SHAPE = (4, 32, 8, 128)  # B, query heads, key/value heads, d (N = 4096)


def repeated(t: torch.Tensor, group: int) -> torch.Tensor:
    """``t`` with every head repeated ``group`` times: what a kernel without grouped heads
    needs, and what it costs in memory."""
    return t.repeat_interleave(group, 1)


def gqa_implementations(causal: bool, group: int) -> dict:
    """impl -> f(q, k, v) with k, v of H / group heads."""
    scale = GQA_SHAPE[3] ** -0.5
    impls = {
        "tma": lambda q, k, v: atm.launch(q, k, v, causal, scale),
        "tma_repeated": lambda q, k, v: atm.launch(
            q, repeated(k, group), repeated(v, group), causal, scale
        ),
    }
    if sdpa_kernel is not None:
        impls["sdpa_gqa"] = lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal, enable_gqa=True
        )
        cudnn = functools.partial(sdpa_with, SDPBackend.CUDNN_ATTENTION)
        impls["sdpa_cudnn_repeated"] = lambda q, k, v: cudnn(
            q, repeated(k, group), repeated(v, group), causal
        )
    return impls


def run_gqa(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "attention_ladder_gqa (tensor descriptors)")
    batch, heads, kv_heads, d = GQA_SHAPE
    group = heads // kv_heads
    q = torch.randn(batch, heads, N, d, device="cuda").to(DTYPE)
    k, v = (torch.randn(batch, kv_heads, N, d, device="cuda").to(DTYPE) for _ in range(2))
    rows = []
    for causal in (False, True):
        (expected,) = expected_results(
            q, repeated(k, group), repeated(v, group), None, causal, grads=False
        )
        base = {
            "dtype": "bfloat16", "batch": batch, "heads": heads, "kv_heads": kv_heads,
            "n": N, "head_dim": d, "causal": causal,
            "flops": flops(batch, heads, N, d, causal, "forward"),
        }  # fmt: skip
        found = []
        with benchlib.head_to_head():
            for impl, fn in gqa_implementations(causal, group).items():
                row = {"impl": impl, **base}
                call = functools.partial(fn, q, k, v)
                what = f"attention_ladder_gqa {impl} causal={causal}"
                try:
                    timing = benchlib.check_then_time(
                        call, expected, what, exact=False, rtol=RTOL, atol=ATOL, name=impl
                    )
                    row["time_s"] = timing["time_s"]
                    row["peak_bytes"] = max(peak_bytes(call), 1)
                except Exception as exc:  # a peer that cannot run is a row, not the end
                    print(f"  !! {what} failed: {type(exc).__name__}: {exc}"[:400])
                    row["failure"] = f"{type(exc).__name__}: {exc}"[:400]
                    torch.cuda.empty_cache()
                found.append(row)
        rows += found
        print(
            f"  gqa causal={causal}: "
            + ", ".join(
                f"{r['impl']} {r['flops'] / r['time_s']['p50'] / 1e12:.0f} TFLOP/s "
                f"{r['peak_bytes'] / 2**20:.0f} MiB"
                if "time_s" in r
                else f"{r['impl']} FAILED"
                for r in found
            )
        )
        del expected
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "attention_ladder",
        "Attention forward for inference (inputs not requiring grad), bf16, N = 4096, "
        "d = 128 (B = 4, H = 32) and d = 64 (B = 4, H = 64), full and causal (top-left), "
        "one rung per row: kernels/attention.py's attention (simple); "
        "kernels/attention_tma.py's launch with the simple kernel's tiles (descriptors: "
        "TMA loads and store, nothing else changed), with plan's tiles (tuned) and with "
        "plan's tiles and warp_specialize=True (warp_specialize); kernels/attention_gluon.py's "
        "launch in one partition of 8 warps (gluon_pipelined), with a loader warp and one "
        "consumer partition of 8 warps (gluon_ws), both at plan's tiles and stages, and at "
        "its plan (gluon); and the peers SDPA cuDNN "
        "(sdpa_cudnn), FlexAttention compiled (flex) and SDPA flash (sdpa_flash), each "
        "backend forced with sdpa_kernel. Each result checked against a float64 reference "
        "computed one head at a time, then all of one shape timed head to head (do_bench's "
        "way, L2 flushed, in turn, round by round). FLOPs: 4 B H N^2 d, half with causal. "
        "config: BLOCK_M x BLOCK_N, warps, stages (ws: warp-specialised; gluon rows: kind, "
        "tiles, stages, warps per consumer partition); plan: whether that is plan's config "
        "(what attention_tma runs); n_regs, n_spills of the "
        "compiled kernel of kernels/attention_tma.py (of the gluon row: its kernel as "
        "launched, and consumer_regs, loader_regs: the registers per thread its "
        "partitions take at run time; ex2_total, ex2_overlapped: its exp2 instructions and "
        "those its SASS issues while a warp-group MMA is in flight); tuned is left out "
        "where plan's tiles are the simple kernel's. A row with failure did not run.",
        run,
    ),
    benchlib.Benchmark(
        "attention_ladder_gqa",
        "Grouped-query attention forward for inference, bf16, B = 4, 32 query heads over 8 "
        "key/value heads, N = 4096, d = 128, full and causal: kernels/attention_tma.py "
        "reading each key/value head in place (tma) and on k, v repeated to 32 heads with "
        "repeat_interleave inside the call (tma_repeated); SDPA with enable_gqa=True, its "
        "default backend (sdpa_gqa); SDPA's cuDNN backend on repeated k, v "
        "(sdpa_cudnn_repeated). Each checked against a float64 reference on the repeated "
        "heads, then timed head to head; peak_bytes: the most the CUDA allocator held "
        "during one call beyond what it held before (the repeated copies included). A row "
        "with failure did not run.",
        run_gqa,
    ),
    benchlib.Benchmark(
        "attention_ladder_backward",
        "Attention backward (dq, dk, dv from dO), bf16, N = 4096, d = 128 (B = 4, H = 32) "
        "and d = 64 (B = 4, H = 64), full and causal (top-left), one rung per row: "
        "kernels/attention.py's launch_backward (simple); kernels/attention_tma.py's "
        "launch_backward at lesson 12's backward tiles (descriptors: every tile through a "
        "tensor descriptor, nothing else changed) and at plan's backward tiles (tuned, left "
        "out where those are lesson 12's), and at plan's dK/dV tiles with dQ added by TMA "
        "reductions instead of a dQ kernel (reduce); and the peers SDPA cuDNN (sdpa_cudnn), "
        "FlexAttention compiled (flex) and SDPA flash (sdpa_flash), each the backward of a "
        "graph retained from one forward (torch.autograd.grad with retain_graph). The "
        "book's rungs are timed as their launch functions, the forward's o and log-sum-exp "
        "computed once beforehand. Each result checked against a float64 reference "
        "computed one head at a time (dq, dk, dv), then all of one shape timed head to "
        "head (do_bench's way, L2 flushed, in turn, round by round). FLOPs: 2.5 times the "
        "forward's 4 B H N^2 d, half with causal (five tile matmuls to the forward's two, "
        "FlashAttention-2's count). config: each kernel's BLOCK_M x BLOCK_N, warps, "
        "stages (dq atomic, dq reduce: dQ added by the dK/dV kernel, with atomics or TMA "
        "reductions); plan: whether that "
        "is plan's config (what attention_tma runs); n_regs, n_spills: the dK/dV kernel's; "
        "dq_n_regs, dq_n_spills: the dQ kernel's. A row with failure did not run.",
        run_backward,
    ),
]
