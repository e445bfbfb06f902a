"""Figures and values of the decoding-attention family: lesson 17.

Data (scripts/bench/benchmarks/decode_attention.py): ``decode_attention`` (one query token
per sequence over a cache of N keys, bf16, 32 query heads over 8 key/value heads, d =
128, batch 1, 8 and 32: the book's kernels on a contiguous and a paged cache, SDPA,
FlexAttention and lesson 12's prefill kernel, timed in turn) and
``decode_attention_splits`` (the book's kernel at batch 1 with the splits forced). A row's
``bytes`` is the cache read once, 2 B H_kv N d x 2 bytes; bandwidth is counted on it for
every implementation.

Values name the batch and the length, e.g. ``{{ value h100 decode_attention.of_copy
impl=triton batch=1 n=131072 }}`` or ``{{ value h100 decode_attention.compare peer=sdpa
batch=8 n=65536 }}``.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, SPLITS = "decode_attention", "decode_attention_splits"
IMPLS = (  # key, legend label, colour role
    ("triton", "Triton split-KV (kernels/decode_attention.py)", "triton"),
    ("triton_paged", "Triton split-KV, paged cache", "series-3"),
    ("sdpa", "SDPA (enable_gqa)", "torch"),
    ("flex", "FlexAttention (torch.compile)", "compile"),
    ("attention", "lesson 12's kernel (prefill)", "series-5"),
)
LABEL = {key: label for key, label, _ in IMPLS}
NOT_MEASURED = "not measured"  # a peer that did not run, or a device without the data

Impl = Literal["triton", "triton_paged", "sdpa", "flex", "attention"]
Peer = Literal["triton_paged", "sdpa", "flex", "attention"]
Batch = Literal[1, 8, 32]
Length = Literal[1024, 4096, 16384, 65536, 131072]
SplitLength = Literal[65536, 131072]


def at(docs: Docs, impl: str, batch: int, n: int) -> dict | None:
    """The row, or None where it was not measured (a peer that could not run, no data)."""
    return render.maybe_one(docs, BENCH, absent_ok=True, impl=impl, batch=batch, n=n)


def of_copy(docs: Docs, impl: Impl, batch: Batch, n: Length) -> float | None:
    """Bandwidth on the cache's bytes over the run's measured copy bandwidth."""
    row = at(docs, impl, batch, n)
    return None if row is None else render.bandwidth(row) / render.copy(docs, BENCH)


def time_of(docs: Docs, impl: Impl, batch: Batch, n: Length) -> float | None:
    """Median device seconds of one call."""
    row = at(docs, impl, batch, n)
    return None if row is None else render.p50(row)


def host(docs: Docs, impl: Impl, batch: Batch, n: Length) -> float | None:
    """Median host seconds per call, in loops of back-to-back calls."""
    row = at(docs, impl, batch, n)
    return None if row is None or "host_s" not in row else row["host_s"]["p50"]


def floor(docs: Docs, batch: Batch, n: Length) -> float:
    """The cache's bytes over the copy bandwidth: the least time a call can take, seconds."""
    return render.one(docs, BENCH, impl="triton", batch=batch, n=n)["bytes"] / render.copy(
        docs, BENCH
    )


def cache_bytes(docs: Docs, batch: Batch, n: Length) -> int:
    """The cache's bytes, keys and values: 2 B H_kv N d x 2."""
    return render.one(docs, BENCH, impl="triton", batch=batch, n=n)["bytes"]


def vs(docs: Docs, peer: Peer, batch: Batch, n: Length) -> float | None:
    """``peer``'s median time over the book's (> 1: the book's kernel is faster)."""
    return render.time_ratio(at(docs, peer, batch, n), at(docs, "triton", batch, n))


def compare(docs: Docs, peer: Peer, batch: Batch, n: Length) -> str | None:
    """The book's kernel against ``peer`` in words, by the tie rule."""
    return render.tie_words(docs, BENCH, at(docs, "triton", batch, n), at(docs, peer, batch, n))


def programs(docs: Docs, impl: Literal["triton", "attention"], batch: Batch, n: Length) -> int:
    """Programs the launch ran: the book's splits x B x H_kv, or lesson 12's B x H_kv."""
    return render.one(docs, BENCH, impl=impl, batch=batch, n=n)["programs"]


def splits(docs: Docs, batch: Batch, n: Length) -> int:
    """The splits ``plan`` chose."""
    return render.one(docs, BENCH, impl="triton", batch=batch, n=n)["splits"]


def sms(docs: Docs) -> int:
    """The GPU's SM count."""
    return render.provenance(docs)["sm_count"]


def sdpa_kernels(docs: Docs, batch: Batch, n: Length) -> str | None:
    """What SDPA launched, in words: whose attention kernel, and whether a second kernel
    merged splits (a reduction or combine kernel after it)."""
    row = at(docs, "sdpa", batch, n)
    names = [name.lower() for name in (row or {}).get("kernels") or []]
    if not names:
        return None
    whose = "cuDNN's" if "cudnn" in names[0] else "FlashAttention's" if "flash" in names[0] else "a"
    merged = any(w in name for name in names[1:] for w in ("reduction", "combine"))
    count = len(names)
    if merged:
        return f"{whose} attention kernel and a second kernel that merges its splits"
    kernels = "kernel" if count == 1 else f"kernel and {count - 1} more"
    return f"{whose} attention {kernels}, with no merge of splits"


def split_row(docs: Docs, n: SplitLength, count: int) -> dict:
    return render.one(docs, SPLITS, n=n, splits=count)


def split_of_copy(docs: Docs, n: SplitLength, count: int) -> float:
    """The batch-1 kernel with ``count`` splits forced: bandwidth over copy bandwidth."""
    return render.bandwidth(split_row(docs, n, count)) / render.copy(docs, SPLITS)


def split_best(docs: Docs, n: SplitLength) -> int:
    """The number of splits of the fastest forced launch at batch 1."""
    return max(render.rows(docs, SPLITS, n=n), key=render.bandwidth)["splits"]


VALUES = {
    "decode_attention.of_copy": Value(of_copy, render.percent, missing=NOT_MEASURED),
    "decode_attention.time": Value(time_of, render.micros(0), missing=NOT_MEASURED),
    "decode_attention.host": Value(host, render.micros(0), missing=NOT_MEASURED),
    "decode_attention.floor": Value(floor, render.micros(0)),
    "decode_attention.bytes": Value(cache_bytes, render.mib_gib),
    "decode_attention.vs": Value(vs, render.ratio, missing=NOT_MEASURED),
    "decode_attention.compare": Value(compare, missing=NOT_MEASURED),
    "decode_attention.programs": Value(programs, render.count),
    "decode_attention.splits": Value(splits, render.count),
    "decode_attention.sms": Value(sms, render.count),
    "decode_attention.sdpa_kernels": Value(sdpa_kernels, missing=NOT_MEASURED),
    "decode_attention.split_of_copy": Value(split_of_copy, render.percent),
    "decode_attention.split_best": Value(split_best, render.count),
}


def fig_bandwidth(docs: Docs) -> dict:
    """Bandwidth on the cache's bytes (keys and values read once) of one decoding step, one query
    token per sequence, bf16, 32 query heads over 8 key/value heads, d = 128, for caches of 1,024
    to 131,072 keys at batch 1, 8 and 32: the book's split-KV kernels on a contiguous and on a
    paged cache, SDPA with enable_gqa, FlexAttention and lesson 12's prefill kernel, with the
    measured copy ceiling; error bars span the 20th to 80th percentile."""
    batches = [(b, f"batch {b}") for b in sorted({r["batch"] for r in render.rows(docs, BENCH)})]
    hover = "N = %{x:,}<br>%{y:.2f} TB/s"
    draw = lambda rs, label, role: render.tbps_line(rs, "n", label, role, hover=hover)  # noqa: E731
    panes, ns = render.impl_panes(docs, BENCH, IMPLS, "batch", batches, draw)
    for _, traces in panes:
        traces.append(render.copy_ceiling(docs, BENCH, ns))
    return render.panels(
        panes,
        render.axis(
            "keys in the cache N",
            log=True,
            ticks=sorted(ns),
            ticktext=[f"{n // 1024}k" for n in sorted(ns)],  # 128k fits a phone's panel
        ),
        render.axis("bandwidth (TB/s)", rangemode="tozero"),
    )


def fig_splits(docs: Docs) -> dict:
    """The book's decoding kernel at batch 1 (8 key/value heads, d = 128, bf16) with the number of
    splits forced from 1 to 256, so 8 to 2,048 programs, for caches of 65,536 and 131,072 keys,
    with the GPU's SM count marked and the measured copy ceiling."""
    traces, xs = [], set()
    for i, n in enumerate(sorted({r["n"] for r in render.rows(docs, SPLITS)})):
        rs = render.rows_by(docs, SPLITS, "programs", n=n)
        xs |= {r["programs"] for r in rs}
        hover = f"N = {n:,}<br>%{{x}} programs<br>%{{y:.2f}} TB/s"
        traces.append(render.tbps_line(rs, "programs", f"N = {n:,}", f"series-{i}", hover=hover))
    top = render.copy(docs, SPLITS) / 1e12
    traces.append(render.vline(sms(docs), 0, top, f"{sms(docs)} SMs"))
    traces.append(render.copy_ceiling(docs, SPLITS, xs))
    x = "programs (8 key/value heads × splits)"
    return render.size_chart(traces, x, xs, "bandwidth (TB/s)")


FIGURES = {
    "decode-attention": Figure(
        "Decoding attention: bandwidth on the KV cache against its length", (BENCH,), fig_bandwidth
    ),
    "decode-attention-splits": Figure(
        "Decoding attention at batch 1: bandwidth against the number of programs",
        (SPLITS,),
        fig_splits,
    ),
}
