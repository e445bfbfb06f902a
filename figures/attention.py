"""Figures and values of the attention family: lesson 12.

Data: ``attention`` (TFLOP/s against N, bf16, d = 64 and 128, causal and not, forward and
backward, the book's kernels against SDPA's backends, FlexAttention and a naive
attention) and ``attention_memory`` (peak memory against N), both written by
scripts/bench/benchmarks/attention.py.

FLOPs: each row's ``flops`` is 4 B H N^2 d for the forward (half with causal) and 2.5
times that for the backward, the same count for every impl: an impl that does more work
(the naive one computes the masked half too) shows as slower, not busier.

Values are at N = 4096 (B * N = 16384, H * d = 4096, bf16) unless an ``n`` says otherwise,
e.g. ``{{ value h100 attention.tflops impl=flex direction=forward d=128 mask=causal }}`` or
``{{ value h100 attention.vs of=sdpa_cudnn to=triton direction=backward d=64 mask=full }}``. The
figures show the devices that have run these benchmarks; on a device that has not, every
value renders as "not measured".
"""

import itertools
import re
from collections.abc import Callable
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, MEMORY = "attention", "attention_memory"
IMPLS = (  # key, legend label, colour role
    ("triton", "Triton (kernels/attention.py)", "triton"),
    ("sdpa_cudnn", "SDPA cuDNN", "cublas"),
    ("sdpa_flash", "SDPA flash", "torch"),
    ("sdpa_efficient", "SDPA memory-efficient", "series-4"),
    ("flex", "FlexAttention (torch.compile)", "compile"),
    ("naive", "naive (N×N scores stored)", "series-5"),
)
N_AT = 4096  # the length at which every peer runs, and the values are read
NOT_MEASURED = "not measured"  # a peer that did not run, or a device without the data

Impl = Literal["triton", "sdpa_cudnn", "sdpa_flash", "sdpa_efficient", "flex", "naive"]
Direction = Literal["forward", "backward"]
HeadDim = Literal[64, 128]
Mask = Literal["full", "causal"]
MemoryImpl = Literal["triton", "naive", "sdpa_flash"]
Step = Literal["forward", "training"]  # one causal step: inference, or forward + backward
MemoryN = Literal[1024, 2048, 4096, 8192, 16384]


# ---- helpers ----------------------------------------------------------------------------


def at(docs: Docs, impl: Impl, direction: Direction, d: HeadDim, mask: Mask) -> dict | None:
    """The row at N = N_AT, or None where it was not measured (peer skipped, or no
    data yet)."""
    match = dict(impl=impl, direction=direction, head_dim=d, causal=mask == "causal")
    return render.maybe_one(docs, BENCH, absent_ok=True, n=N_AT, **match)


# ---- values: at N = 4096, B * N = 16384, H * d = 4096, bf16 --------------------------------


tflops_of = render.row_kind(
    at, render.flop_rate, "FLOP/s of ``impl`` (one FLOP count for every impl: see FLOPs above)."
)


vs = render.pair_kind(at, "impl", render.divide(render.p50), "``of``'s median time over ``to``'s.")
compare = render.pair_kind(at, "impl", render.tie(BENCH), "``of`` against ``to``, in words.")


def tiles(docs: Docs, d: HeadDim) -> str | None:
    """The tiles the book's kernels ran with at head dim ``d`` (forward, full mask)."""
    return render.field(at(docs, "triton", "forward", d, "full"), "tiles")


def memory(docs: Docs, impl: MemoryImpl, direction: Step, n: MemoryN) -> float | None:
    """Peak working memory (beyond the inputs) of one causal step of ``impl``, bytes; B =
    1, H = 16, d = 128."""
    found = render.maybe_one(docs, MEMORY, absent_ok=True, impl=impl, direction=direction, n=n)
    return render.field(found, "peak_bytes")


def memory_ratio(docs: Docs, direction: Step, n: MemoryN) -> float | None:
    """Naive attention's peak working memory over the book's, one causal step."""
    return render.quotient(*(memory(docs, impl, direction, n) for impl in ("naive", "triton")))


VALUES = {
    "attention.tflops": Value(tflops_of, render.tflops, missing=NOT_MEASURED),
    "attention.vs": Value(vs, render.ratio, missing=NOT_MEASURED),
    "attention.compare": Value(compare, missing=NOT_MEASURED),
    "attention.tiles": Value(tiles, missing=NOT_MEASURED),
    "attention.memory": Value(memory, render.mib_gib, missing=NOT_MEASURED),
    "attention.memory_ratio": Value(memory_ratio, render.ratio, missing=NOT_MEASURED),
}


# ---- figures ------------------------------------------------------------------------------


CAUSAL_PANES = ((False, "full"), (True, "causal"))  # (value of the row's field, panel title)
STEP_PANES = (("forward", "inference"), ("training", "training step"))


def fig_rate(direction: str, d: int):
    """One panel for full attention and one for causal, each implementation a line in both,
    with the measured bf16 matmul ceiling."""

    def build(docs: Docs) -> dict:
        top = render.matmul_rate(render.doc(docs, BENCH), "bfloat16") / 1e12
        hover = "N = %{x:,}<br>%{y:.0f} TFLOP/s"
        draw = lambda rs, label, role: render.tflops_line(rs, "n", label, role, hover=hover)  # noqa: E731
        match = {"direction": direction, "head_dim": d}
        panes, ns = render.impl_panes(docs, BENCH, IMPLS, "causal", CAUSAL_PANES, draw, **match)
        ceiling = f"bf16 matmul ceiling ({top:.0f} TFLOP/s)"
        for _, traces in panes:
            traces.append(render.hline(top, min(ns), max(ns), ceiling))
        what = f"sequence length N (bf16, d = {d}, B·N = 16,384, H·d = 4,096)"
        return render.size_chart(panes, what, ns, f"{direction} TFLOP/s", panes=True)

    return build


def fig_memory(docs: Docs) -> dict:
    """Peak memory the CUDA allocator held beyond the inputs during one causal attention forward
    (one panel) and one training step (the other), for the naive attention, the Triton flash
    attention and SDPA's flash backend, N from 1,024 to 16,384, log scale."""

    def draw(rs: list[dict], label: str, role: str) -> dict:
        ns, gib = [r["n"] for r in rs], [r["peak_bytes"] / 2**30 for r in rs]
        return render.line(ns, gib, label, role, hover="N = %{x:,}<br>%{y:.3f} GiB")

    panes, ns = render.impl_panes(docs, MEMORY, IMPLS, "direction", STEP_PANES, draw)
    title = "sequence length N (causal, bf16, B = 1, H = 16, d = 128)"
    return render.size_chart(panes, title, ns, "peak working memory (GiB)", y_log=True, panes=True)


FIGURES = {
    f"attention-{direction}-d{d}": Figure(
        f"Attention {direction}, d = {d}: TFLOP/s against sequence length",
        (BENCH,),
        fig_rate(direction, d),
        f"{direction.capitalize()} TFLOP/s of the Triton flash attention, SDPA's cuDNN, "
        f"flash and memory-efficient backends, FlexAttention and a naive attention "
        f"for N from 1,024 to 16,384 in bf16 at head dim {d}, one panel for full and one "
        "for causal attention, with the measured bf16 matmul ceiling; error bars span the "
        "20th to 80th percentile.",
    )
    for direction in ("forward", "backward")
    for d in (64, 128)
}
FIGURES["attention-memory"] = Figure(
    "Attention: peak working memory against sequence length",
    (MEMORY,),
    fig_memory,
    counted=(
        "bytes the CUDA caching allocator held at its peak beyond the inputs "
        "(torch.cuda.max_memory_allocated), one causal step; the allocator's own "
        "bookkeeping, the same on every GPU with the same torch"
    ),
)


# ---- lesson 01's roofline -----------------------------------------------------------------


# The book's forward and backward, bf16, d = 128, N = 4096, not causal. Bytes: the least
# any attention moves (forward: read q, k, v, write o; backward: read q, k, v, o, dO, write
# dq, dk, dv), so the point sits where a flash kernel's intensity is.
TENSORS_MOVED = {"forward": 4, "backward": 8}
ROOFLINE = {
    BENCH: render.roofline_rows(
        "flash attention {direction} (bf16, d=128)",
        moved=lambda r: (
            TENSORS_MOVED[r["direction"]] * r["batch"] * r["heads"] * r["n"] * r["head_dim"] * 2
        ),
        impl="triton",
        head_dim=128,
        n=4096,
        causal=False,
    )
}


# ---- the backward's tensor-core work as executed (lesson 12) ----------------------------------


# Tile matmuls per (query block, key block) pair: the count the FLOP convention credits a
# backward with (FlashAttention-2's 5, 2.5 times the forward's 2) and the count the book's
# backward runs (7: S and dP each computed in both of its kernels).
NOMINAL_BACKWARD_MATMULS = render.code_constant(
    "scripts/bench/benchmarks/attention.py", "NOMINAL_BACKWARD_MATMULS"
)
EXECUTED_BACKWARD_MATMULS = render.code_constant("kernels/attention.py", "BACKWARD_TILE_MATMULS")


def executed_tflops(docs: Docs, d: HeadDim, mask: Mask) -> float | None:
    """The book's backward in tensor-core FLOP/s executed rather than counted: the row's
    rate (2.5 times the forward's FLOPs) times EXECUTED / NOMINAL (7 / 5). With the causal
    mask both counts are halved alike (the diagonal blocks aside)."""
    rate = tflops_of(docs, "triton", "backward", d, mask)
    return None if rate is None else rate * EXECUTED_BACKWARD_MATMULS / NOMINAL_BACKWARD_MATMULS


VALUES["attention.executed_tflops"] = Value(executed_tflops, render.tflops, missing=NOT_MEASURED)


# ---- lesson 12: every implementation as a multiple of cuDNN's speed (issue 20) -------------
#
# The question the TFLOP/s figures leave to arithmetic, "how far from cuDNN?", drawn as the
# ratio itself. Kept apart from the rest of the module: it reads the same rows.

BASELINE = "sdpa_cudnn"  # the peer every other implementation is measured against
RATIO_IMPLS = tuple(i for i in IMPLS if i[0] in ("triton", "flex", "sdpa_flash"))


def fig_vs_baseline(d: int):
    """One panel per direction and mask: each implementation's speed against N, as a
    multiple of SDPA cuDNN's (a line at 1), with the per-round 20th-80th percentiles."""

    def build(docs: Docs) -> dict:
        panes, ns = [], set()
        hover = "N = %{x:,}<br>%{y:.2f}× cuDNN's speed"
        for direction, (causal, mask) in itertools.product(("forward", "backward"), CAUSAL_PANES):
            match = {"direction": direction, "head_dim": d}
            rows = render.rows(docs, BENCH, impl=BASELINE, causal=causal, **match)
            base = {r["n"]: r for r in rows}
            traces = []
            for _, label, role, _, rs in render.curves(
                docs, BENCH, "n", RATIO_IMPLS, "causal", [(causal, None)], **match
            ):
                rs = [r for r in rs if r["n"] in base]
                ns |= {r["n"] for r in rs}
                # cuDNN's time over the row's: the per-round ratio where timed in turn
                points = [render.speedup(r["time_s"], base[r["n"]]["time_s"]) for r in rs]
                traces.append(render.line([r["n"] for r in rs], points, label, role, hover=hover))
            if base:  # cuDNN itself: the line at 1, drawn first
                one = render.line(
                    [min(base), max(base)], [1, 1], "SDPA cuDNN (= 1)", "cublas",
                    mode="lines", hoverinfo="skip",
                )  # fmt: skip
                traces.insert(0, one)
            panes.append((f"{direction}, {mask}", traces))
        xaxis = render.axis(f"sequence length N (bf16, d = {d})", log=True, ticks=sorted(ns))
        return render.panels(panes, xaxis, render.axis("× cuDNN's speed (higher is faster)"))

    return build


FIGURES |= {
    f"attention-vs-cudnn-d{d}": Figure(
        f"Attention, d = {d}: speed as a multiple of SDPA cuDNN's",
        (BENCH,),
        fig_vs_baseline(d),
        f"Speed of the Triton flash attention, FlexAttention and SDPA's flash backend as "
        f"a multiple of SDPA's cuDNN backend (its time over theirs; 1 is cuDNN, higher "
        f"is faster) for N from 1,024 to 16,384 in bf16 at head dim {d} (B·N = 16,384, "
        "H·d = 4,096), one panel per direction and mask. Where the run timed each pair "
        "in alternating rounds, a point is the median of the per-round ratios and its "
        "error bar spans their 20th to 80th percentile; otherwise it is the ratio of "
        "the median times, its error bar from the two 20th-80th percentile ranges. "
        "SDPA's memory-efficient backend and the naive attention are left to the "
        "TFLOP/s figures.",
    )
    for d in (128, 64)
}


# ---- the last quarter: the forward and the backward step by step (lesson 12) -----------------
#
# Data: ``attention_ladder`` and ``attention_ladder_backward``
# (scripts/bench/benchmarks/attention_ladder.py): an inference forward, and the backward, at
# N = 4096, bf16, d = 128 (B = 4, H = 32) and d = 64 (B = 4, H = 64), full and causal, one
# row per rung (lesson 12's kernel, then kernels/attention_tma.py step by step, and for the
# forward kernels/attention_gluon.py's steps) and per peer, each shape timed head to head.
# On a device without a ladder's file, its figure draws what the ``attention`` benchmark has
# at the same shapes (lesson 12's kernel, "simple", and the peers; a training forward for
# the forward) and its other values render as "not measured". Lesson 12 writes the ladders'
# sentences, chosen on the data (``attention.ladder_plan ... == none``: no ladder data).

LADDER, LADDER_BACKWARD = "attention_ladder", "attention_ladder_backward"
GQA = "attention_ladder_gqa"
RUNGS = (  # impl, bar label: the forward's rungs drawn, in order
    ("simple", "lesson 12's kernel (pointer loads)"),
    ("descriptors", "+ tensor descriptors (same tiles)"),
    ("tuned", "+ other tiles, warps, stages"),
    ("warp_specialize", "+ warp specialisation"),
    ("gluon", "Gluon: loader warp, consumer warp groups"),
)
BACKWARD_RUNGS = (  # impl, bar label
    ("simple", "lesson 12's backward (pointer loads)"),
    ("descriptors", "+ tensor descriptors (same tiles)"),
    ("tuned", "+ other tiles, warps, stages"),
    ("reduce", "dQ by TMA reductions, no dQ kernel"),
)
# ladder=gqa (``attention_ladder_gqa``, no rungs): 32 query heads over 8 key/value heads,
# N = 4096, d = 128, full and causal, attention_tma on the grouped heads and on k and v
# repeated, against SDPA's GQA path and cuDNN on the repeated heads; timed head to head,
# with each call's peak memory. A device without the file renders "not measured".
LADDERS = {
    "forward": (LADDER, RUNGS),
    "backward": (LADDER_BACKWARD, BACKWARD_RUNGS),
    "gqa": (GQA, ()),
}
Ladder = Literal["forward", "backward", "gqa"]
LADDER_PEERS = (  # impl, bar label, colour role
    ("sdpa_cudnn", "SDPA cuDNN", "cublas"),
    ("flex", "FlexAttention (torch.compile)", "compile"),
    ("sdpa_flash", "SDPA flash", "torch"),
)
LADDER_SHAPES = ((128, "full"), (128, "causal"), (64, "full"), (64, "causal"))

# plan: the rung that ran with plan's config (what attention_tma runs by default and trains
# with); gluon_pipelined and gluon_ws: the Gluon kernel's first two steps, told, not drawn
TmaRung = Literal["simple", "descriptors", "tuned", "warp_specialize", "reduce", "plan"]
GluonRung = Literal["gluon_pipelined", "gluon_ws", "gluon"]
GqaRung = Literal["tma", "tma_repeated", "sdpa_gqa", "sdpa_cudnn_repeated"]
Rung = Literal[TmaRung, GluonRung, GqaRung, "sdpa_cudnn", "flex", "sdpa_flash"]
RegisterField = Literal["n_regs", "n_spills", "consumer_regs", "loader_regs"]
Field = Literal[RegisterField, "ex2_total", "ex2_overlapped", "peak_bytes"]


def ladder_plan(
    docs: Docs, ladder: Ladder = "forward", d: HeadDim = 128, mask: Mask = "full"
) -> str | None:
    """The rung that ran with plan's config (what attention_tma runs), or None: a device
    without the ladder's data."""
    bench, rungs = LADDERS[ladder]
    for impl, _ in rungs:
        row = render.ran(docs, bench, impl=impl, head_dim=d, causal=mask == "causal")
        if row and row.get("plan"):
            return impl
    return None


def rung_row(
    docs: Docs, impl: Rung, ladder: Ladder = "forward", d: HeadDim = 128, mask: Mask = "full"
) -> dict | None:
    """The ladder's row of ``impl`` that ran, or None. On a device without the ladder's data,
    lesson 12's kernel (``simple``) and the peers from the ``attention`` benchmark."""
    bench, _ = LADDERS[ladder]
    if bench not in docs:
        impl = "triton" if impl == "simple" else impl
        peers = ("triton", *(peer for peer, _, _ in LADDER_PEERS))
        row = at(docs, impl, ladder, d, mask) if impl in peers else None
        return row if row and "time_s" in row else None
    impl = ladder_plan(docs, ladder, d, mask) if impl == "plan" else impl
    return render.ran(docs, bench, impl=impl, head_dim=d, causal=mask == "causal")


def rung_pair(combine: Callable, doc: str) -> Callable:
    """A kind comparing two rows of one shape, ``combine(docs, bench, of_row, to_row)``
    (None without both); ``to=before`` is the last rung before ``of`` that ran."""

    def pair(
        docs: Docs,
        of: Rung,
        to: Literal[Rung, "before"],
        ladder: Ladder = "forward",
        d: HeadDim = 128,
        mask: Mask = "full",
    ):
        bench, rungs = LADDERS[ladder]
        if to == "before":
            names = [impl for impl, _ in rungs]
            ran = [n for n in names[: names.index(of)] if rung_row(docs, n, ladder, d, mask)]
            to = ran[-1] if ran else None
        a, b = rung_row(docs, of, ladder, d, mask), rung_row(docs, to, ladder, d, mask)
        bench = bench if bench in docs else BENCH
        return None if a is None or b is None else combine(docs, bench, a, b)

    return render.named("pair", doc, pair)


ladder_tflops = render.row_kind(
    rung_row, render.flop_rate, "FLOP/s of a rung or peer (a backward's: 2.5 times the forward's)."
)
ladder_vs = rung_pair(
    lambda docs, bench, a, b: render.speedup(a["time_s"], b["time_s"]),
    "How many times faster ``of`` is than ``to``: (median, low, high) of their per-round "
    "ratio where timed head to head (> 1: ``of`` is faster).",
)
ladder_gain = rung_pair(
    lambda docs, bench, a, b: render.speedup(a["time_s"], b["time_s"])[0],
    "The median of ``ladder_vs``: what ``of`` gained over ``to`` (below 1, it lost time).",
)
ladder_compare = rung_pair(
    lambda docs, bench, a, b: render.tie_words(docs, bench, a, b),
    "``of`` against ``to`` in words, by the tie rule: faster than, as fast as, slower than.",
)


def ladder_field(
    docs: Docs,
    impl: Rung,
    field: Field,
    ladder: Ladder = "forward",
    d: HeadDim = 128,
    mask: Mask = "full",
) -> int | None:
    """A number the row of a rung records: registers per thread (``n_regs``; for a Gluon
    rung, what it is launched at, and ``consumer_regs``/``loader_regs`` what its partitions
    move them to), registers spilled, and for the Gluon kernel its SASS's exp2 instructions
    (``ex2_total``) and those issued while a warp-group product still runs; for GQA, the
    bytes the allocator held at its peak during one call (``peak_bytes``)."""
    return render.field(rung_row(docs, impl, ladder, d, mask), field)


def ladder_setting(
    docs: Docs,
    impl: Rung,
    of: Literal["tiles", "warps", "stages"],
    ladder: Ladder = "forward",
    kernel: Literal["dkdv", "dq"] = "dkdv",
    d: HeadDim = 128,
) -> str | None:
    """One setting of the config a rung ran with: its tiles ("128×128"), warps or stages.
    Configs read "128x128 w8 s3" (a Gluon rung's "ws2 128x128 s3 w4"), and for the
    backward one such part per ``kernel``: "dkdv 64x128 w8 s3; dq 128x64 w8 s3"."""
    config = render.field(rung_row(docs, impl, ladder, d, "full"), "config") or ""
    if config and ladder == "backward":
        config = dict(part.split(" ", 1) for part in config.split("; ")).get(kernel, "")
    pattern = {"tiles": r"(\d+)x(\d+)", "warps": r"w(\d+)", "stages": r"s(\d+)"}[of]
    found = [m for word in config.split() if (m := re.fullmatch(pattern, word))]
    return "×".join(found[0].groups()) if found else None


def ladder_failure(docs: Docs, impl: Rung, d: HeadDim = 128, mask: Mask = "full") -> str | None:
    """Why a forward rung did not run (its exception, shortened), or None where it ran."""
    match = dict(impl=impl, head_dim=d, causal=mask == "causal")
    r = render.maybe_one(docs, LADDER, absent_ok=True, **match)
    return r["failure"][:160] if r and "failure" in r else None


VALUES |= {
    "attention.ladder_plan": Value(ladder_plan, missing=NOT_MEASURED),
    "attention.ladder_tflops": Value(ladder_tflops, render.tflops, missing=NOT_MEASURED),
    "attention.ladder_vs": Value(
        ladder_vs, lambda found: render.ratio_span(*found), missing=NOT_MEASURED
    ),
    "attention.ladder_gain": Value(ladder_gain, render.ratio, missing=NOT_MEASURED),
    "attention.ladder_compare": Value(ladder_compare, missing=NOT_MEASURED),
    "attention.ladder_field": Value(ladder_field, render.count, missing=NOT_MEASURED),
    "attention.ladder_setting": Value(ladder_setting, missing=NOT_MEASURED),
    "attention.ladder_failure": Value(ladder_failure, missing=NOT_MEASURED),
}


RUNG_ROLES = {"simple": "series-4", "descriptors": "series-5", "tuned": "series-6",
              "warp_specialize": "triton", "reduce": "triton", "gluon": "series-3"}  # fmt: skip


def ladder_bars(docs: Docs, direction: Direction, d: int, mask: str) -> dict[str, dict]:
    """impl -> row of every bar of one shape that ran, rungs then peers (``rung_row``)."""
    impls = [impl for impl, *_ in (*LADDERS[direction][1], *LADDER_PEERS)]
    found = {impl: rung_row(docs, impl, direction, d, mask) for impl in impls}
    return {impl: r for impl, r in found.items() if r}


def fig_ladder(direction: Direction):
    """A ladder's figure: one group of bars per (head dim, mask), one bar per rung that ran
    and per peer, TFLOP/s with the 20th to 80th percentile; hovering a bar gives its speed
    as a multiple of cuDNN's in the same comparison."""

    def build(docs: Docs) -> dict:
        shapes = [(f"d = {d}, {m}", ladder_bars(docs, direction, d, m)) for d, m in LADDER_SHAPES]
        rungs = [(impl, label, RUNG_ROLES[impl]) for impl, label in LADDERS[direction][1]]
        # The ratio to cuDNN in the hover, not on the bar: seven bars to a group leave no
        # room for a label beside each.
        hover = "%{x:.0f} TFLOP/s, %{customdata}<extra>%{fullData.name}</extra>"
        traces = []
        for impl, name, role in rungs + list(LADDER_PEERS):
            labels = [shape for shape, bars in shapes if impl in bars]
            rows = [(bars[impl], bars.get("sdpa_cudnn")) for _, bars in shapes if impl in bars]
            points = [render.rate(r["flops"], r["time_s"], 1e12) for r, _ in rows]
            text = [
                f"{render.speedup(r['time_s'], c['time_s'])[0]:.2f}× cuDNN's speed" if c else ""
                for r, c in rows
            ]
            if rows:
                bars = render.hbar(labels, points, role, name=name, hover=hover, customdata=text)
                traces.append(bars)
        return render.bar_chart(traces, f"{direction} TFLOP/s (bf16, N = 4,096)")

    return build


FIGURES["attention-ladder"] = Figure(
    "Attention forward, step by step: from lesson 12's kernel towards cuDNN",
    (BENCH,),
    fig_ladder("forward"),
    "Grouped horizontal bars of forward TFLOP/s at N = 4,096 in bf16, one group each for "
    "d = 128 and d = 64, full and causal: lesson 12's kernel, then the TMA kernel with "
    "tensor descriptors at the same tiles, with other tiles where plan chose them, and "
    "with warp specialisation, the forward written in Gluon (a loader warp feeding "
    "consumer warp groups), then SDPA's cuDNN backend, FlexAttention and SDPA's flash "
    "backend; hovering a bar gives its speed as a multiple of cuDNN's; error bars span "
    "the 20th to 80th percentile. A device without the ladder's data shows lesson 12's "
    "kernel and the peers from the attention benchmark only.",
)
FIGURES["attention-ladder-backward"] = Figure(
    "Attention backward, step by step: from lesson 12's kernel towards cuDNN",
    (BENCH,),
    fig_ladder("backward"),
    "Grouped horizontal bars of backward TFLOP/s (2.5 times the forward's FLOPs) at "
    "N = 4,096 in bf16, one group each for d = 128 and d = 64, full and causal: lesson "
    "12's backward, then the TMA backward with tensor descriptors at the same tiles and "
    "with other tiles where plan chose them, then SDPA's cuDNN backend, FlexAttention and "
    "SDPA's flash backend; hovering a bar gives its speed as a multiple of cuDNN's; error "
    "bars span the 20th to 80th percentile. A device without the backward ladder's data "
    "shows lesson 12's kernel and the peers from the attention benchmark only.",
)
