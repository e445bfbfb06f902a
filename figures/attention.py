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
``{{ value h100 attention.vs peer=sdpa_cudnn direction=backward d=64 mask=full }}``. The
figures show the devices that have run these benchmarks; on a device that has not, every
value renders as "not measured".
"""

import ast
from pathlib import Path
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
LABEL = {key: label for key, label, _ in IMPLS}
N_AT = 4096  # the length at which every peer runs, and the values are read
NOT_MEASURED = "not measured"  # a peer that did not run, or a device without the data

Impl = Literal["triton", "sdpa_cudnn", "sdpa_flash", "sdpa_efficient", "flex", "naive"]
Peer = Literal["sdpa_cudnn", "sdpa_flash", "sdpa_efficient", "flex"]
Direction = Literal["forward", "backward"]
HeadDim = Literal[64, 128]
Mask = Literal["full", "causal"]
MemoryImpl = Literal["triton", "naive", "sdpa_flash"]
Step = Literal["forward", "training"]  # one causal step: inference, or forward + backward
MemoryN = Literal[1024, 2048, 4096, 8192, 16384]


# ---- helpers ----------------------------------------------------------------------------


def at(docs: Docs, impl: str, direction: str, d: int, mask: str) -> dict | None:
    """The row at N = N_AT, or None where it was not measured (peer skipped, or no
    data yet)."""
    match = dict(impl=impl, direction=direction, head_dim=d, causal=mask == "causal")
    return render.maybe_one(docs, BENCH, absent_ok=True, n=N_AT, **match)


# ---- values: at N = 4096, B * N = 16384, H * d = 4096, bf16 --------------------------------


def tflops_of(docs: Docs, impl: Impl, direction: Direction, d: HeadDim, mask: Mask) -> float | None:
    """FLOP/s of ``impl`` (the same FLOP count for every impl: 4 B H N^2 d forward, 2.5
    times that backward, half with the causal mask)."""
    row = at(docs, impl, direction, d, mask)
    return None if row is None else render.flop_rate(row)


def vs(docs: Docs, peer: Peer, direction: Direction, d: HeadDim, mask: Mask) -> float | None:
    """``peer``'s median time over the book's (> 1: the book's kernel is faster)."""
    return render.time_ratio(
        at(docs, peer, direction, d, mask), at(docs, "triton", direction, d, mask)
    )


def compare(docs: Docs, peer: Peer, direction: Direction, d: HeadDim, mask: Mask) -> str | None:
    """The book's kernel against ``peer`` in words, by the tie rule (``render.compare``,
    widened by the run's drift): "faster than", "as fast as" or "slower than"."""
    mine, theirs = at(docs, "triton", direction, d, mask), at(docs, peer, direction, d, mask)
    return render.tie_words(docs, BENCH, mine, theirs)


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
        for _, traces in panes:
            traces.append(
                render.hline(top, min(ns), max(ns), f"bf16 matmul ceiling ({top:.0f} TFLOP/s)")
            )
        what = f"sequence length N (bf16, d = {d}, B·N = 16,384, H·d = 4,096)"
        return render.size_chart(panes, what, ns, f"{direction} TFLOP/s", panes=True)

    return build


def fig_memory(docs: Docs) -> dict:
    """Peak memory the CUDA allocator held beyond the inputs during one causal attention forward
    (one panel) and one training step (the other), for the naive attention, the Triton flash
    attention and SDPA's flash backend, N from 1,024 to 16,384, log scale."""

    def draw(rs: list[dict], label: str, role: str) -> dict:
        gib = [r["peak_bytes"] / 2**30 for r in rs]
        return render.line(
            [r["n"] for r in rs], gib, label, role, hover="N = %{x:,}<br>%{y:.3f} GiB"
        )

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


def code_constant(path: str, name: str) -> int:
    """A module-level constant of a repository file, read with ast: the kernel and the
    benchmark import torch, which the site build does without."""
    tree = ast.parse((Path(__file__).resolve().parents[1] / path).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError(f"{path} defines no constant {name}")


# Tile matmuls per (query block, key block) pair: the count the FLOP convention credits a
# backward with (FlashAttention-2's 5, 2.5 times the forward's 2) and the count the book's
# backward runs (7: S and dP each computed in both of its kernels).
NOMINAL_BACKWARD_MATMULS = code_constant(
    "scripts/bench/benchmarks/attention.py", "NOMINAL_BACKWARD_MATMULS"
)
EXECUTED_BACKWARD_MATMULS = code_constant("kernels/attention.py", "BACKWARD_TILE_MATMULS")


def executed_tflops(docs: Docs, d: HeadDim, mask: Mask) -> float | None:
    """The book's backward in tensor-core FLOP/s executed rather than counted: the row's
    rate (2.5 times the forward's FLOPs) times EXECUTED / NOMINAL (7 / 5). With the causal
    mask both counts are halved alike (the diagonal blocks aside)."""
    row = at(docs, "triton", "backward", d, mask)
    if row is None:
        return None
    return render.flop_rate(row) * EXECUTED_BACKWARD_MATMULS / NOMINAL_BACKWARD_MATMULS


VALUES["attention.executed_tflops"] = Value(executed_tflops, render.tflops, missing=NOT_MEASURED)


# ---- lesson 12: every implementation as a multiple of cuDNN's speed (issue 20) -------------
#
# The question the TFLOP/s figures leave to arithmetic, "how far from cuDNN?", drawn as the
# ratio itself. Kept apart from the rest of the module: it reads the same rows.

BASELINE = "sdpa_cudnn"  # the peer every other implementation is measured against
RATIO_IMPLS = tuple(i for i in IMPLS if i[0] in ("triton", "flex", "sdpa_flash"))
RATIO_PANES = (  # (direction, causal, panel title)
    ("forward", False, "forward, full"),
    ("forward", True, "forward, causal"),
    ("backward", False, "backward, full"),
    ("backward", True, "backward, causal"),
)


def fig_vs_baseline(d: int):
    """One panel per direction and mask: each implementation's speed against N, as a
    multiple of SDPA cuDNN's (a line at 1), with the per-round 20th-80th percentiles."""

    def build(docs: Docs) -> dict:
        panes, ns = [], set()
        hover = "N = %{x:,}<br>%{y:.2f}× cuDNN's speed"
        for direction, causal, title in RATIO_PANES:
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
                    [min(base), max(base)], [1, 1], f"{LABEL[BASELINE]} (= 1)", "cublas",
                    mode="lines", hoverinfo="skip",
                )  # fmt: skip
                traces.insert(0, one)
            panes.append((title, traces))
        return render.panels(
            panes,
            render.axis(f"sequence length N (bf16, d = {d})", log=True, ticks=sorted(ns)),
            render.axis("× cuDNN's speed (higher is faster)"),
        )

    return build


FIGURES.update(
    {
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
)


# ---- the last quarter: the forward step by step (lesson 12) -----------------------------------
#
# Data: ``attention_ladder`` (scripts/bench/benchmarks/attention_ladder.py): an inference
# forward at N = 4096, bf16, d = 128 (B = 4, H = 32) and d = 64 (B = 4, H = 64), full and
# causal, one row per rung (lesson 12's kernel, then kernels/attention_tma.py step by step)
# and per peer, each shape timed head to head. On a device without that file the figure
# draws what the ``attention`` benchmark has at the same shapes (lesson 12's kernel and the
# peers, a training forward) and the values render as "not measured".

LADDER = "attention_ladder"
RUNGS = (  # impl, bar label
    ("simple", "lesson 12's kernel (pointer loads)"),
    ("descriptors", "+ tensor descriptors (same tiles)"),
    ("tuned", "+ other tiles, warps, stages"),
    ("warp_specialize", "+ warp specialisation"),
    ("gluon", "Gluon: loader warp, consumer warp groups"),
)
LADDER_PEERS = (  # impl, bar label, colour role
    ("sdpa_cudnn", "SDPA cuDNN", "cublas"),
    ("flex", "FlexAttention (torch.compile)", "compile"),
    ("sdpa_flash", "SDPA flash", "torch"),
)
LADDER_SHAPES = ((128, "full"), (128, "causal"), (64, "full"), (64, "causal"))


def ladder_row(docs: Docs, impl: str, d: int, mask: str) -> dict | None:
    """The ladder's row of ``impl`` that ran (has a time), or None: no ladder data on this
    device, no such row, or a failure."""
    return render.ran(docs, LADDER, impl=impl, head_dim=d, causal=mask == "causal")


def ladder_tflops(docs: Docs, impl: str, d: int = 128, mask: str = "full") -> float | None:
    """FLOP/s of one rung or peer of the forward ladder (4 B H N^2 d, half with causal)."""
    row = ladder_row(docs, impl, d, mask)
    return None if row is None else render.flop_rate(row)


def ladder_ratio(docs: Docs, impl: str, peer: str, d: int = 128, mask: str = "full"):
    """How many times faster ``impl`` is than ``peer`` as (median, low, high): the
    per-round ratio of their times where they were timed head to head (> 1: ``impl`` is
    faster); None where either did not run."""
    a, b = ladder_row(docs, impl, d, mask), ladder_row(docs, peer, d, mask)
    return None if a is None or b is None else render.speedup(a["time_s"], b["time_s"])


def ladder_vs(docs: Docs, impl: str, peer: str, d: int = 128, mask: str = "full") -> float | None:
    """The median of ``ladder_ratio``."""
    found = ladder_ratio(docs, impl, peer, d, mask)
    return None if found is None else found[0]


def ladder_step(docs: Docs, impl: str, d: int = 128, mask: str = "full") -> float | None:
    """What one rung gained over the rung before it that ran (how many times faster it
    is; below 1, it lost time); None for the first rung, or where it did not run."""
    before = ladder_before(docs, impl, d, mask)
    return ladder_vs(docs, impl, before, d, mask) if before else None


def ladder_before(docs: Docs, impl: str, d: int, mask: str) -> str | None:
    """The last rung before ``impl`` that ran, or None."""
    names = [name for name, _ in RUNGS]
    ran = [n for n in names[: names.index(impl)] if ladder_row(docs, n, d, mask)]
    return ran[-1] if ran else None


def plan_rung(docs: Docs, d: int = 128, mask: str = "full") -> str | None:
    """The rung that ran with plan's config (what attention_tma runs by default)."""
    for impl, _ in RUNGS[:4]:
        row = ladder_row(docs, impl, d, mask)
        if row and row.get("plan"):
            return impl
    return None


def ladder_compare(docs: Docs, impl: str, peer: str, d: int = 128, mask: str = "full"):
    """``impl`` against ``peer`` in words, by the tie rule: "faster than", "as fast as" or
    "slower than"; None where either did not run."""
    a, b = ladder_row(docs, impl, d, mask), ladder_row(docs, peer, d, mask)
    return render.tie_words(docs, LADDER, a, b)


def ladder_config(docs: Docs, impl: str, d: int = 128) -> str | None:
    """The tiles a rung ran with: "BLOCK_M×BLOCK_N, W warps, S stages"."""
    text = render.field(ladder_row(docs, impl, d, "full"), "config")
    if text is None:
        return None
    tiles, warps, stages, *ws = text.split()
    said = f"{tiles.replace('x', '×')} tiles, {warps[1:]} warps, {stages[1:]} stages"
    return said + (", warp-specialised" if ws else "")


def ladder_regs(docs: Docs, impl: str, d: int = 128, mask: str = "full") -> int | None:
    """Registers per thread of a rung's compiled kernel (kernels/attention_tma.py)."""
    return render.field(ladder_row(docs, impl, d, mask), "n_regs")


def ladder_failure(docs: Docs, impl: str, d: int = 128, mask: str = "full") -> str | None:
    """Why a rung did not run (its exception, shortened), or None where it ran."""
    if LADDER not in docs:
        return None
    r = render.maybe_one(
        docs, LADDER, absent_ok=True, impl=impl, head_dim=d, causal=mask == "causal"
    )
    return r["failure"][:160] if r and "failure" in r else None


def _times(found) -> str:
    """A ratio with its spread: "0.85× (0.84–0.86)"."""
    return render.ratio_span(*found)


def _benchmark_ends(docs: Docs, direction: str, d: HeadDim, mask: Mask) -> str | None:
    """A ladder story on a device without the ladder's data: its two ends, lesson 12's
    kernel and cuDNN, from the attention benchmark (``direction`` at the same shape)."""
    ours, theirs = (tflops_of(docs, impl, direction, d, mask) for impl in ("triton", "sdpa_cudnn"))
    if ours is None or theirs is None:
        return None
    who = (
        "lesson 12's kernel runs its forward"
        if direction == "forward"
        else ("lesson 12's backward runs")
    )
    return (
        f"At N = 4,096, d = {d}, {mask} attention, {who} at {render.tflops(ours)} and "
        f"cuDNN's at {render.tflops(theirs)}."
    )


def ladder_story(docs: Docs, d: HeadDim = 128, mask: Mask = "full") -> str | None:
    """The ladder at one shape in sentences, every number from the data: each rung's gain
    over the one before, the tuned kernel's rate and registers, and its speed as a
    multiple of cuDNN's and FlexAttention's with the spread of the per-round ratio. On a
    device without the ladder's data, the two ends from the attention benchmark (lesson
    12's kernel and cuDNN, a training forward at the same shape); None without either."""
    where = f"At N = 4,096, d = {d}, {mask} attention"
    if LADDER not in docs:
        return _benchmark_ends(docs, "forward", d, mask)
    best = plan_rung(docs, d, mask)
    simple = ladder_tflops(docs, "simple", d, mask)
    if simple is None or best is None:
        return None
    said = [f"{where}, lesson 12's kernel runs at {render.tflops(simple)}."]
    if (gain := ladder_step(docs, "descriptors", d, mask)) is not None:
        said.append(
            f"Tensor descriptors alone, at the same configuration "
            f"({ladder_config(docs, 'descriptors', d)}), make it {render.ratio(gain)} as fast."
        )
    if (gain := ladder_step(docs, "tuned", d, mask)) is not None:
        said.append(
            f"Other tiles ({ladder_config(docs, 'tuned', d)}) make that {render.ratio(gain)} "
            "as fast again."
        )
    elif ladder_row(docs, "descriptors", d, mask) and not ladder_row(docs, "tuned", d, mask):
        said.append(
            "The sweep behind `plan` found no faster tiles, warps or stages, so it keeps those."
        )
    if (gain := ladder_step(docs, "warp_specialize", d, mask)) is not None:
        before = ladder_before(docs, "warp_specialize", d, mask)
        word = ladder_compare(docs, "warp_specialize", before, d, mask)
        said.append(
            f"Warp specialisation on the same tiles runs {word} the kernel without it "
            f"({render.ratio(gain)} its speed)."
        )
    elif why := ladder_failure(docs, "warp_specialize", d, mask):
        said.append(f"Warp specialisation on the same tiles did not compile ({why}).")
    rate = ladder_tflops(docs, best, d, mask)
    regs = ladder_regs(docs, best, d, mask)
    said.append(
        f"As attention_tma runs it by default, the kernel reaches {render.tflops(rate)}"
        + (f" with {regs} registers per thread." if regs is not None else ".")
    )
    if (vs := ladder_ratio(docs, best, "sdpa_cudnn", d, mask)) is not None:
        flex = ladder_ratio(docs, best, "flex", d, mask)
        said.append(
            f"That is {_times(vs)} cuDNN's speed "
            f"({render.tflops(ladder_tflops(docs, 'sdpa_cudnn', d, mask))})"
            + (f" and {_times(flex)} FlexAttention's" if flex else "")
            + ", each spread the 20th to 80th percentile of the ratio over the rounds in "
            "which the two were timed in turn."
        )
    return " ".join(said)


def ladder_goals(docs: Docs) -> str | None:
    """One sentence: the tuned kernel's speed as a multiple of cuDNN's at every shape of
    the ladder on this device, each with the spread of its per-round ratio. On a device
    without the ladder's data, lesson 12's kernel's, from the attention benchmark (a
    training forward); None without either."""
    parts = []
    for d, mask in LADDER_SHAPES:
        if LADDER in docs:
            best = plan_rung(docs, d, mask)
            vs = ladder_ratio(docs, best, "sdpa_cudnn", d, mask) if best else None
        else:
            ours, cudnn = (at(docs, impl, "forward", d, mask) for impl in ("triton", "sdpa_cudnn"))
            vs = render.speedup(ours["time_s"], cudnn["time_s"]) if ours and cudnn else None
        if vs is not None:
            parts.append(f"{_times(vs)} at d = {d}, {mask}")
    if not parts:
        return None
    gpu = render.provenance(docs)["gpu"]
    if LADDER in docs:
        return (
            f"On the {gpu}, attention_tma runs at these multiples of cuDNN's speed: "
            f"{'; '.join(parts)}."
        )
    return (
        f"On the {gpu}, the book's timings at these shapes are of lesson 12's kernel, not "
        f"attention_tma, and it runs at these multiples of cuDNN's speed: {'; '.join(parts)}."
    )


def gluon_config(docs: Docs, impl: str = "gluon", d: int = 128) -> tuple[str, str] | None:
    """A Gluon rung's schedule in words, and its tiles: ("a loader warp and two consumer
    groups of 4 warps", "128×128 tiles, 3 stages"), from its config "ws2 128x128 s3 w4"."""
    text = render.field(ladder_row(docs, impl, d, "full"), "config")
    if text is None:
        return None
    kind, tiles, stages, warps = text.split()
    who = {
        "ws2": f"a loader warp and two consumer groups of {warps[1:]} warps",
        "ws": f"a loader warp and one consumer partition of {warps[1:]} warps",
        "pipelined": f"one partition of {warps[1:]} warps that copies and computes",
    }.get(kind, kind)
    return who, f"{tiles.replace('x', '×')} tiles, {stages[1:]} stages"


def gluon_story(docs: Docs, d: HeadDim = 128, mask: Mask = "full") -> str | None:
    """The Gluon rungs at one shape in sentences, every number from the data: the kernel
    in one partition, how the loader warp and then the two consumer groups compare with
    the step before, the final rate and registers, and its speed as a multiple of
    attention_tma's (the rung plan runs) and of cuDNN's, each with the spread of the
    per-round ratio. None on a device without the ladder's data or without a Gluon row."""
    if LADDER not in docs:
        return None
    where = f"At N = 4,096, d = {d}, {mask} attention"
    row = ladder_row(docs, "gluon", d, mask)
    if row is None:
        why = ladder_failure(docs, "gluon", d, mask)
        return f"{where}, the Gluon kernel did not run ({why})." if why else None
    rate = render.tflops(render.flop_rate(row))
    said = []
    one = ladder_row(docs, "gluon_pipelined", d, mask)
    loader = ladder_row(docs, "gluon_ws", d, mask)
    if one is not None and loader is not None:
        who, tiles = gluon_config(docs, "gluon_pipelined", d)
        said.append(
            f"{where}, the Gluon kernel runs at {render.tflops(render.flop_rate(one))} in "
            f"{who} ({tiles})."
        )
        word = ladder_compare(docs, "gluon_ws", "gluon_pipelined", d, mask)
        gain = ladder_vs(docs, "gluon_ws", "gluon_pipelined", d, mask)
        again = ladder_vs(docs, "gluon", "gluon_ws", d, mask)
        said.append(
            f"With {gluon_config(docs, 'gluon_ws', d)[0]}, it runs {word} that "
            f"({render.ratio(gain)} its speed); with {gluon_config(docs, 'gluon', d)[0]}, "
            f"{render.ratio(again)} as fast as with one: {rate}."
        )
    else:
        who, tiles = gluon_config(docs, "gluon", d)
        said.append(f"{where}, the Gluon kernel runs at {rate} with {who} ({tiles}).")
    if (consumer := row.get("consumer_regs")) is not None:
        said.append(
            f"It is launched at {row.get('n_regs')} registers per thread and its partitions "
            f"move them as they start: {consumer} to each consumer thread, "
            f"{row.get('loader_regs')} to the loader's."
        )
    tma = plan_rung(docs, d, mask)
    if tma and (vs := ladder_ratio(docs, "gluon", tma, d, mask)) is not None:
        word = ladder_compare(docs, "gluon", tma, d, mask)
        said.append(f"That is {word} attention_tma ({_times(vs)} its speed)")
        if (cudnn := ladder_ratio(docs, "gluon", "sdpa_cudnn", d, mask)) is not None:
            said[-1] += f" and {_times(cudnn)} cuDNN's"
        said[-1] += ", each spread the 20th to 80th percentile of the per-round ratio."
    return " ".join(said)


def gluon_overlap(docs: Docs, d: HeadDim = 128, mask: Mask = "full") -> str | None:
    """From the Gluon kernel's SASS as measured: how many of its exp2 instructions are
    issued while a warp-group product is still running, and, where none is, what that
    means for the schedule the source asked for. None without the row or the count."""
    row = ladder_row(docs, "gluon", d, mask)
    total, overlapped = render.field(row, "ex2_total"), render.field(row, "ex2_overlapped")
    if total is None or overlapped is None:
        return None
    said = (
        f"Of the {render.count(total)} exp2 instructions in the machine code of the kernel "
        f"above (d = {d}, {mask}), "
    )
    if overlapped:
        return said + f"{render.count(overlapped)} are issued while a product is still running."
    return said + (
        "none is issued while a product is still running: the source waits for `O += P V` "
        "after the softmax, but the assembler (`ptxas`) moved that wait ahead of the "
        "exponentials. Within a group the softmax still follows its own products; what "
        "overlaps is one group's softmax with the other group's products."
    )


def gluon_goals(docs: Docs) -> str | None:
    """One sentence: the Gluon kernel's speed as a multiple of cuDNN's and of
    attention_tma's at every shape of the ladder on this device, each with its spread;
    None without the ladder's Gluon rows."""
    if LADDER not in docs:
        return None
    cudnn, tma = [], []
    for d, mask in LADDER_SHAPES:
        if (vs := ladder_ratio(docs, "gluon", "sdpa_cudnn", d, mask)) is not None:
            cudnn.append(f"{_times(vs)} at d = {d}, {mask}")
        best = plan_rung(docs, d, mask)
        if best and (vs := ladder_ratio(docs, "gluon", best, d, mask)) is not None:
            tma.append(f"{_times(vs)} at d = {d}, {mask}")
    if not cudnn:
        return None
    gpu = render.provenance(docs)["gpu"]
    said = f"On the {gpu}, the Gluon kernel runs at these multiples of cuDNN's speed: "
    said += "; ".join(cudnn) + "."
    if tma:
        said += " It runs at these multiples of attention_tma's: " + "; ".join(tma) + "."
    return said


VALUES.update(
    {
        "attention.ladder_story": Value(ladder_story, missing=""),
        "attention.ladder_goals": Value(ladder_goals, missing=""),
        "attention.gluon_story": Value(gluon_story, missing=""),
        "attention.gluon_goals": Value(gluon_goals, missing=""),
        "attention.gluon_overlap": Value(gluon_overlap, missing=""),
    }
)


RUNG_ROLES = {"simple": "series-4", "descriptors": "series-5", "tuned": "series-6",
              "warp_specialize": "triton", "reduce": "triton", "gluon": "series-3"}  # fmt: skip


def ladder_bars(docs: Docs, d: int, mask: str) -> dict[str, dict]:
    """impl -> row of every bar of one shape that ran, rungs then peers. From the ladder's
    data where the device has it; otherwise lesson 12's kernel and the peers from the
    ``attention`` benchmark at N = 4096."""
    if LADDER in docs:
        found = {impl: ladder_row(docs, impl, d, mask) for impl, _ in RUNGS}
        found |= {impl: ladder_row(docs, impl, d, mask) for impl, _, _ in LADDER_PEERS}
    else:
        found = {"simple": at(docs, "triton", "forward", d, mask)}
        found |= {impl: at(docs, impl, "forward", d, mask) for impl, _, _ in LADDER_PEERS}
    return {impl: r for impl, r in found.items() if r and "time_s" in r}


def fig_ladder(docs: Docs) -> dict:
    """Grouped horizontal bars: one group per (head dim, mask), one bar per rung and per
    peer, TFLOP/s with the 20th to 80th percentile; hovering a bar gives its speed as a
    multiple of cuDNN's in the same comparison."""
    return ladder_figure(docs, ladder_bars, RUNGS, "forward")


def ladder_figure(docs: Docs, bars_of, rungs, direction: str) -> dict:
    """The ladder's bars for ``direction``: ``bars_of(docs, d, mask)`` gives each shape's
    rows by impl, ``rungs`` the book's steps before the peers."""
    shapes = [(d, mask, f"d = {d}, {mask}") for d, mask in LADDER_SHAPES]
    bars = {label: bars_of(docs, d, mask) for d, mask, label in shapes}
    series = [(impl, label, RUNG_ROLES[impl]) for impl, label in rungs]
    series += list(LADDER_PEERS)
    traces = []
    for impl, name, role in series:
        labels, points, text = [], [], []
        for _, _, shape in shapes:
            row, cudnn = bars[shape].get(impl), bars[shape].get("sdpa_cudnn")
            if row is None:
                continue
            labels.append(shape)
            points.append(render.rate(row["flops"], row["time_s"], 1e12))
            ratio = render.speedup(row["time_s"], cudnn["time_s"])[0] if cudnn else None
            text.append(f"{ratio:.2f}× cuDNN's speed" if ratio is not None else "")
        if labels:
            # The ratio to cuDNN in the hover, not on the bar: seven bars to a group leave
            # no room for a label beside each.
            trace = render.hbar(labels, points, role, name=name, hover="%{x:.0f} TFLOP/s")
            trace["customdata"] = text
            trace["hovertemplate"] = (
                "%{x:.0f} TFLOP/s, %{customdata}"
                + trace["hovertemplate"][len("%{x:.0f} TFLOP/s") :]
            )
            traces.append(trace)
    return render.plot(
        traces,
        barmode="group",
        xaxis=render.axis(
            f"{direction} TFLOP/s (bf16, N = 4,096)",
            rangemode="tozero",
        ),
        yaxis=render.label_axis(),
    )


FIGURES["attention-ladder"] = Figure(
    "Attention forward, step by step: from lesson 12's kernel towards cuDNN",
    (BENCH,),
    fig_ladder,
    "Grouped horizontal bars of forward TFLOP/s at N = 4,096 in bf16, one group each for "
    "d = 128 and d = 64, full and causal: lesson 12's kernel, then the TMA kernel with "
    "tensor descriptors at the same tiles, with other tiles where plan chose them, and "
    "with warp specialisation, the forward written in Gluon (a loader warp feeding "
    "consumer warp groups), then SDPA's cuDNN backend, FlexAttention and SDPA's flash "
    "backend; hovering a bar gives its speed as a multiple of cuDNN's; error bars span "
    "the 20th to 80th percentile. A device without the ladder's data shows lesson 12's "
    "kernel and the peers from the attention benchmark only.",
)


# ---- the last quarter: the backward step by step (lesson 12) ----------------------------------
#
# Data: ``attention_ladder_backward`` (scripts/bench/benchmarks/attention_ladder.py): the
# backward at the forward ladder's shapes, one row per rung (lesson 12's backward, then
# kernels/attention_tma.py's at lesson 12's tiles and at plan's) and per peer, each shape
# timed head to head. On a device without that file the figure draws the ``attention``
# benchmark's backward rows at the same shapes (lesson 12's kernel and the peers, through
# autograd) and the values render as "not measured".

LADDER_BACKWARD = "attention_ladder_backward"
BACKWARD_RUNGS = (  # impl, bar label
    ("simple", "lesson 12's backward (pointer loads)"),
    ("descriptors", "+ tensor descriptors (same tiles)"),
    ("tuned", "+ other tiles, warps, stages"),
    ("reduce", "dQ by TMA reductions, no dQ kernel"),
)


# plan: the rung that ran with plan's config (what attention_tma trains with)
BackwardImpl = Literal[
    "simple", "descriptors", "tuned", "reduce", "sdpa_cudnn", "flex", "sdpa_flash", "plan"
]


def backward_row(docs: Docs, impl: BackwardImpl, d: HeadDim, mask: Mask) -> dict | None:
    """The backward ladder's row of ``impl`` that ran, or None."""
    impl = backward_plan_rung(docs, d, mask) if impl == "plan" else impl
    return render.ran(docs, LADDER_BACKWARD, impl=impl, head_dim=d, causal=mask == "causal")


def backward_plan_rung(docs: Docs, d: HeadDim, mask: Mask) -> str | None:
    """The backward rung that ran with plan's config (what attention_tma trains with)."""
    for impl, _ in BACKWARD_RUNGS:
        row = backward_row(docs, impl, d, mask)
        if row and row.get("plan"):
            return impl
    return None


def backward_config(docs: Docs, impl: BackwardImpl, d: HeadDim, mask: Mask) -> str | None:
    """A backward rung's tiles in words: "dK/dV 64×128, 8 warps, 3 stages; dQ ..."."""
    text = render.field(backward_row(docs, impl, d, mask), "config")
    if text is None:
        return None
    said = []
    for part in text.split("; "):
        kernel, *rest = part.split()
        if rest in (["atomic"], ["reduce"]):
            how = "atomic adds" if rest == ["atomic"] else "TMA reductions"
            said.append(f"dQ added by the dK/dV kernel with {how}")
            continue
        tiles, warps, stages = rest
        name = {"dkdv": "dK/dV", "dq": "dQ"}[kernel]
        said.append(f"{name} {tiles.replace('x', '×')}, {warps[1:]} warps, {stages[1:]} stages")
    return "; ".join(said)


backward_regs = render.row_kind(
    backward_row, lambda r: r.get("n_regs"), "Registers per thread of a rung's dK/dV kernel."
)
backward_spills = render.row_kind(
    backward_row, lambda r: r.get("n_spills"), "Registers a rung's dK/dV kernel spills."
)

VALUES.update(
    {
        "attention.backward_regs": Value(backward_regs, render.count, missing=NOT_MEASURED),
        "attention.backward_spills": Value(backward_spills, render.count, missing=NOT_MEASURED),
    }
)


def backward_bars(docs: Docs, d: int, mask: str) -> dict[str, dict]:
    """impl -> row of every backward bar of one shape that ran; without the backward
    ladder's data, lesson 12's kernel and the peers from the ``attention`` benchmark."""
    if LADDER_BACKWARD in docs:
        found = {impl: backward_row(docs, impl, d, mask) for impl, _ in BACKWARD_RUNGS}
        found |= {impl: backward_row(docs, impl, d, mask) for impl, _, _ in LADDER_PEERS}
    else:
        found = {"simple": at(docs, "triton", "backward", d, mask)}
        found |= {impl: at(docs, impl, "backward", d, mask) for impl, _, _ in LADDER_PEERS}
    return {impl: r for impl, r in found.items() if r and "time_s" in r}


def backward_bar(docs: Docs, impl: BackwardImpl, d: HeadDim, mask: Mask) -> dict | None:
    """The row behind ``impl``'s bar in the backward figure at one shape, or None; without
    the backward ladder's data, ``simple`` is lesson 12's backward in the attention benchmark."""
    impl = backward_plan_rung(docs, d, mask) if impl == "plan" else impl
    return backward_bars(docs, d, mask).get(impl)


def _vs(docs: Docs, a: dict | None, b: dict | None):
    return None if a is None or b is None else render.speedup(a["time_s"], b["time_s"])


backward_tflops = render.row_kind(backward_bar, render.flop_rate, "FLOP/s of a backward bar.")
backward_vs = render.pair_kind(
    backward_bar, "impl", _vs, "How many times faster ``of``'s backward is than ``to``'s: "
    "(median, low, high) of their per-round ratio (> 1: ``of`` is faster)."
)  # fmt: skip
VALUES.update(
    {
        "attention.backward_plan": Value(backward_plan_rung, missing=NOT_MEASURED),
        "attention.backward_config": Value(backward_config, missing=NOT_MEASURED),
        "attention.backward_tflops": Value(backward_tflops, render.tflops, missing=NOT_MEASURED),
        "attention.backward_vs": Value(backward_vs, _times, missing=NOT_MEASURED),
    }
)


def fig_ladder_backward(docs: Docs) -> dict:
    """The backward's ladder: as the forward's, one bar per rung and per peer."""
    return ladder_figure(docs, backward_bars, BACKWARD_RUNGS, "backward")


FIGURES["attention-ladder-backward"] = Figure(
    "Attention backward, step by step: from lesson 12's kernel towards cuDNN",
    (BENCH,),
    fig_ladder_backward,
    "Grouped horizontal bars of backward TFLOP/s (2.5 times the forward's FLOPs) at "
    "N = 4,096 in bf16, one group each for d = 128 and d = 64, full and causal: lesson "
    "12's backward, then the TMA backward with tensor descriptors at the same tiles and "
    "with other tiles where plan chose them, then SDPA's cuDNN backend, FlexAttention and "
    "SDPA's flash backend; hovering a bar gives its speed as a multiple of cuDNN's; error "
    "bars span the 20th to 80th percentile. A device without the backward ladder's data "
    "shows lesson 12's kernel and the peers from the attention benchmark only.",
)


# ---- grouped-query attention (lesson 12's last quarter) ---------------------------------
#
# Data: ``attention_ladder_gqa`` (scripts/bench/benchmarks/attention_ladder.py): 32 query
# heads over 8 key/value heads, N = 4096, d = 128, bf16, full and causal, timed head to head
# with each call's peak memory. A device without the file renders "not measured".

GQA = "attention_ladder_gqa"
GqaImpl = Literal["tma", "tma_repeated", "sdpa_gqa", "sdpa_cudnn_repeated"]


def gqa_row(docs: Docs, impl: GqaImpl, mask: Mask = "full") -> dict | None:
    """The GQA benchmark's row of ``impl`` that ran, or None."""
    return render.ran(docs, GQA, impl=impl, causal=mask == "causal")


gqa_tflops = render.row_kind(gqa_row, render.flop_rate, "FLOP/s of ``impl`` on the GQA shape.")
gqa_memory = render.row_kind(
    gqa_row, lambda r: r["peak_bytes"], "Peak bytes the allocator held during one call."
)
gqa_compare = render.pair_kind(gqa_row, "impl", render.tie(GQA), "``of`` against ``to`` in words.")

VALUES.update(
    {
        "attention.gqa_tflops": Value(gqa_tflops, render.tflops, missing=NOT_MEASURED),
        "attention.gqa_memory": Value(gqa_memory, render.mib, missing=NOT_MEASURED),
        "attention.gqa_compare": Value(gqa_compare, missing=NOT_MEASURED),
    }
)
