"""Benchmarks of the decoding-attention family (kernels/decode_attention.py): lesson 17.

- ``decode_attention``: one new query token per sequence over a KV cache of N keys, bf16,
  32 query heads over 8 key/value heads (GQA), d = 128, batch 1, 8 and 32, N from 1k to
  128k keys (the cache from 4 MiB to 16 GiB, past the L2 from 4k keys at batch 8). In
  the same loop: the book's split-KV kernels on a contiguous cache and on a paged one
  (pages of PAGE keys, in random order), SDPA (``enable_gqa=True``, the backend torch
  picks; the CUDA kernels it launched are recorded), FlexAttention (compiled) and lesson
  12's prefill kernel used for decoding (the 4 query heads of a group as its 4 queries:
  B x H_kv programs). Bytes: the cache read once, 2 B H_kv N d x 2 bytes.
- ``decode_attention_splits``: the control for "programs < SMs": the book's kernel at
  batch 1 with the number of splits forced from 1 to 256, at two lengths; the rows carry
  the programs each launch ran.

Quick mode (``measure.py --quick``) runs batch 8 at 4k and 64k keys only.
"""

from __future__ import annotations

import functools

import torch
import torch.nn.functional as F

from kernels import attention as at
from kernels import decode_attention as da
from scripts.bench import benchlib

try:
    from torch.nn.attention.flex_attention import flex_attention
except ImportError:  # torch too old: no FlexAttention rows
    flex_attention = None

QUICK = benchlib.quick()  # read at import: the runner sets it before importing this module
DTYPE = torch.bfloat16
HEADS, KV_HEADS, HEAD_DIM = 32, 8, 128
BATCHES = (8,) if QUICK else (1, 8, 32)
LENGTHS = (4096, 65536) if QUICK else (1024, 4096, 16384, 65536, 131072)
PAGE = 16  # keys per page of the paged cache (vLLM's default block size)
SPLIT_LENGTHS = (65536,) if QUICK else (65536, 131072)  # long: the GPU's time, not the host's
SPLITS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# bf16 results against the float64 reference rounded to bf16: two units in the last place
# relative and an atol for values near zero, as the attention benchmark checks.
RTOL, ATOL = 2**-6, 2**-5


def kv_bytes(batch: int, n: int) -> int:
    """The cache read once: keys and values, B x H_kv x N x d elements of 2 bytes each."""
    return 2 * batch * KV_HEADS * n * HEAD_DIM * DTYPE.itemsize


# ---- implementations ------------------------------------------------------------------------


def book(q, cache, scale):
    """The unchecked launch (what a serving loop calls): plan, split kernel, combine."""
    return da.launch(q, cache["k"], cache["v"], cache["seq_lens"], None, False, scale)


def book_paged(q, cache, scale):
    return da.launch(
        q, cache["k_pages"], cache["v_pages"], cache["seq_lens"], cache["table"], False, scale
    )


def sdpa(q, cache, scale):
    return F.scaled_dot_product_attention(q, cache["k"], cache["v"], scale=scale, enable_gqa=True)


@functools.cache
def compiled_flex():
    return torch.compile(flex_attention)


def flex(q, cache, scale):
    return compiled_flex()(q, cache["k"], cache["v"], scale=scale, enable_gqa=True)


def prefill(q, cache, scale):
    """Lesson 12's kernel (its public wrapper), with the group's query heads as queries:
    q (B, H, 1, d) viewed as (B, H_kv, H / H_kv, d) against k, v (B, H_kv, N, d) is the same
    attention, one program per (batch, key/value head)."""
    batch = q.shape[0]
    out = at.attention(q.view(batch, KV_HEADS, HEADS // KV_HEADS, HEAD_DIM), cache["k"],
                       cache["v"], scale=scale)  # fmt: skip
    return out.view(q.shape)


def implementations() -> dict:
    impls = {"triton": book, "triton_paged": book_paged, "sdpa": sdpa}
    if flex_attention is not None:
        impls["flex"] = flex
    impls["attention"] = prefill
    return impls


# ---- inputs and the expected result -----------------------------------------------------------


def make_cache(batch: int, n: int, paged: bool = True) -> dict:
    """k, v (B, H_kv, N, d) and, with ``paged``, the same keys cut into pages of PAGE keys
    stored in a random order, with the block table that finds them."""
    k = torch.randn(batch, KV_HEADS, n, HEAD_DIM, device="cuda", dtype=DTYPE)
    v = torch.randn(batch, KV_HEADS, n, HEAD_DIM, device="cuda", dtype=DTYPE)
    cache = {"k": k, "v": v, "seq_lens": torch.full((batch,), n, device="cuda", dtype=torch.int32)}
    if paged:
        per_seq = n // PAGE
        where = torch.randperm(batch * per_seq, device="cuda")
        for name, t in (("k_pages", k), ("v_pages", v)):
            pages = torch.empty(batch * per_seq, PAGE, KV_HEADS, HEAD_DIM, device="cuda",
                                dtype=DTYPE)  # fmt: skip
            pages[where] = t.transpose(1, 2).reshape(batch * per_seq, PAGE, KV_HEADS, HEAD_DIM)
            cache[name] = pages
        cache["table"] = where.view(batch, per_seq).to(torch.int32)
    return cache


def expected(q, cache) -> torch.Tensor:
    """``reference`` in float64, one sequence at a time, rounded to bf16."""
    out = torch.empty_like(q)
    for b in range(q.shape[0]):
        one = cache["seq_lens"][b : b + 1]
        out[b : b + 1] = da.reference(q[b : b + 1], cache["k"][b : b + 1], cache["v"][b : b + 1],
                                      one)  # fmt: skip
    return out


# ---- the comparison -------------------------------------------------------------------------


def details(impl: str, q, cache) -> dict:
    """What the launch ran: the book's splits and programs; lesson 12's programs (query
    blocks x heads x batch); the CUDA kernels SDPA picked."""
    batch = q.shape[0]
    if impl in ("triton", "triton_paged"):
        max_len = cache["table"].shape[1] * PAGE if impl == "triton_paged" else cache["k"].shape[2]
        splits, block_m, block_n, warps, stages = da.plan(
            batch, KV_HEADS, HEADS // KV_HEADS, max_len, q.get_device(), impl == "triton_paged"
        )
        out = {"splits": splits, "programs": splits * batch * KV_HEADS, "block_n": block_n,
               "num_warps": warps, "num_stages": stages}  # fmt: skip
        if impl == "triton_paged":
            out["page"] = PAGE
        return out
    if impl == "attention":
        return {"programs": batch * KV_HEADS}  # one query block per (batch, kv head)
    if impl == "sdpa":
        return {"kernels": benchlib.cuda_kernels(lambda: sdpa(q, cache, HEAD_DIM**-0.5))}
    return {}


def run(ceilings: dict) -> list[dict]:
    benchlib.warm_up()
    rows = []
    scale = HEAD_DIM**-0.5
    for batch in BATCHES:
        for n in LENGTHS:
            torch.manual_seed(batch * n)
            q = torch.randn(batch, HEADS, 1, HEAD_DIM, device="cuda", dtype=DTYPE)
            cache = make_cache(batch, n)
            want = expected(q, cache)
            found = []
            with torch.inference_mode(), benchlib.head_to_head():
                for impl, fn in implementations().items():
                    call = functools.partial(fn, q, cache, scale)
                    try:
                        timing = benchlib.check_then_time(
                            call, want, f"decode {impl} B={batch} N={n}", exact=False,
                            rtol=RTOL, atol=ATOL, host=True, name=impl, among="decode",
                        )  # fmt: skip
                        extra = details(impl, q, cache)
                    except Exception as exc:  # a peer that cannot run is skipped, not fatal
                        if impl.startswith("triton"):
                            raise
                        print(
                            f"  skipped {impl} B={batch} N={n}: {type(exc).__name__}: {exc}"[:300]
                        )
                        torch.cuda.empty_cache()
                        continue
                    found.append({
                        "impl": impl, "dtype": "bfloat16", "batch": batch, "heads": HEADS,
                        "kv_heads": KV_HEADS, "n": n, "head_dim": HEAD_DIM, "n_q": 1,
                        "bytes": kv_bytes(batch, n), "time_s": timing["time_s"],
                        "host_s": timing["host_s"], **extra,
                    })  # fmt: skip
            rows += found
            copy_bw = ceilings["copy"]["bytes"] / ceilings["copy"]["time_s"]["p50"]
            print(f"  B={batch} N={n}: " + ", ".join(
                f"{r['impl']} {100 * r['bytes'] / r['time_s']['p50'] / copy_bw:.0f}%"
                for r in found) + " of copy")  # fmt: skip
            del q, cache, want
            torch.cuda.empty_cache()
    return rows


def run_splits(ceilings: dict) -> list[dict]:
    """The book's kernel at batch 1 with the splits forced (the rest of the plan kept)."""
    benchlib.warm_up()
    rows = []
    scale = HEAD_DIM**-0.5
    for n in SPLIT_LENGTHS:
        torch.manual_seed(n)
        q = torch.randn(1, HEADS, 1, HEAD_DIM, device="cuda", dtype=DTYPE)
        cache = make_cache(1, n, paged=False)
        want = expected(q, cache)
        plan = da.plan(1, KV_HEADS, HEADS // KV_HEADS, n, q.get_device())
        for splits in SPLITS:
            config = (splits, *plan[1:])
            call = functools.partial(
                da.launch, q, cache["k"], cache["v"], cache["seq_lens"], None, False, scale, config
            )
            timing = benchlib.check_then_time(
                call, want, f"decode splits={splits} N={n}", exact=False, rtol=RTOL, atol=ATOL
            )
            rows.append({
                "batch": 1, "heads": HEADS, "kv_heads": KV_HEADS, "n": n, "head_dim": HEAD_DIM,
                "splits": splits, "programs": splits * KV_HEADS, "planned": splits == plan[0],
                "bytes": kv_bytes(1, n), "time_s": timing["time_s"],
            })  # fmt: skip
        times = [f"{r['splits']}: {r['time_s']['p50'] * 1e6:.0f} us" for r in rows if r["n"] == n]
        print(f"  N={n}: " + ", ".join(times))
        del q, cache, want
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "decode_attention",
        "Decoding attention, bf16: one query token per sequence, 32 query heads over 8 "
        "key/value heads, d = 128, every sequence N keys long; batch 1, 8, 32 and N from 1024 "
        "to 131072. Implementations, timed in turn per (batch, N): kernels/decode_attention.py "
        "through launch (plan, split kernel, combine; no checks) on the contiguous cache "
        "(triton) and on the same keys in pages of 16 in random order through a block table "
        "(triton_paged); F.scaled_dot_product_attention with enable_gqa=True and the backend "
        "torch picks (sdpa; its CUDA kernels recorded); torch.compile(flex_attention) with "
        "enable_gqa=True (flex); kernels/attention.py's attention with the 4 query heads of "
        "each group as its queries (attention: one program per batch and key/value head). "
        "Under torch.inference_mode. Each result checked against a float64 reference before "
        "timing. Device time by CUDA events, L2 flushed, implementations interleaved per "
        "round; host_s: the host's wall time per call in loops of back-to-back calls, timed "
        "in turn likewise (where it exceeds the device time, the host set the pace). bytes: "
        "the cache read once, 2 x B x 8 x N x 128 x 2 bytes.",
        run,
    ),
    benchlib.Benchmark(
        "decode_attention_splits",
        "The book's decoding kernel at batch 1 (32 query heads, 8 key/value heads, d = 128, "
        "bf16), N = 65536 and 131072 keys, with the number of splits forced from 1 to 256 "
        "and plan's tile kept: programs = 8 x splits. Device time by do_bench, L2 flushed; "
        "each result checked against a float64 reference. planned marks plan's own choice.",
        run_splits,
    ),
]
