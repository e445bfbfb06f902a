"""Figures and values of the fused linear cross-entropy family: lesson 15.

Data (scripts/bench/benchmarks/linear_cross_entropy.py): ``linear_cross_entropy`` (one
training step of the last layer, bf16, H = 4096, V = 128256, N = 4096 to 16384 tokens: the
book's kernel, eager PyTorch, torch.compile and Liger-Kernel, timed head to head, with peak
memory and the error against the float32 step) and ``linear_cross_entropy_chunks`` (the
book's launch at N = 8192 by rows per logits chunk, with the four parts of one chunk timed
alone). Sizes in bytes count bf16 (2 bytes an element) where a tensor is named.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, CHUNKS = "linear_cross_entropy", "linear_cross_entropy_chunks"
IMPLS = (  # key, legend label, colour role
    ("triton", "Triton (kernels/linear_cross_entropy.py)", "triton"),
    ("eager", "eager: F.linear + F.cross_entropy", "eager"),
    ("compile", "torch.compile", "compile"),
    ("liger", "Liger-Kernel", "liger"),
)
PARTS = (  # field stem, legend label, colour role
    ("logits", "logits: x_c · Wᵀ", "series-0"),
    ("grad_x", "grad_x: dz · W", "series-1"),
    ("grad_weight", "grad_W += dzᵀ · x_c", "series-3"),
    ("kernel", "the Triton kernel", "triton"),
)
NOT_MEASURED = "not measured"

Impl = Literal["triton", "eager", "compile", "liger"]
Peer = Literal["eager", "compile", "liger"]
Tokens = Literal[4096, 8192, 16384]
Chunk = Literal[128, 256, 512, 1024, 2048, 4096]
Part = Literal["logits", "kernel", "grad_x", "grad_weight"]
Tensor = Literal["logits", "weight", "x", "chunk", "logits_fp32"]
Error = Literal["loss", "grad_x", "grad_weight"]
SweepField = Literal["time", "peak", "chunks"]


def row(docs: Docs, impl: str, tokens: int) -> dict | None:
    """The step's row of ``impl`` at ``tokens`` (None where that impl did not run)."""
    return render.ran(docs, BENCH, impl=impl, tokens=tokens)


def ours(docs: Docs, tokens: int) -> dict:
    render.doc(docs, BENCH)  # a device that never ran the benchmark says so
    found = row(docs, "triton", tokens)
    if found is None:
        raise render.RenderError(f"{BENCH} has no row of the book's kernel at {tokens} tokens")
    return found


def sweep_row(docs: Docs, chunk: int) -> dict:
    return render.one(docs, CHUNKS, chunk=chunk)


def time_of(docs: Docs, impl: Impl, tokens: Tokens) -> float | None:
    """Median device time of one training step (forward and backward), seconds."""
    return render.field(row(docs, impl, tokens), "time_s", "p50")


def peak(docs: Docs, impl: Impl, tokens: Tokens) -> float | None:
    """Peak working memory of one step beyond the inputs, gradients included, bytes."""
    return render.field(row(docs, impl, tokens), "peak_bytes")


def compare(docs: Docs, peer: Peer, tokens: Tokens) -> str | None:
    """The book's step against ``peer``'s in words, by the tie rule."""
    return render.tie_words(docs, BENCH, ours(docs, tokens), row(docs, peer, tokens))


def spread(docs: Docs, peer: Peer, tokens: Tokens) -> str | None:
    """The per-round ratio ``peer`` / book as "1.62× (1.60–1.64)": median, 20th-80th."""
    theirs = row(docs, peer, tokens)
    if theirs is None:
        return None
    mid, low, high = render.speedup(ours(docs, tokens)["time_s"], theirs["time_s"])
    return f"{mid:.2f}× ({low:.2f}–{high:.2f})"


def memory_ratio(docs: Docs, peer: Peer, tokens: Tokens) -> float | None:
    """``peer``'s peak working memory over the book's."""
    return render.quotient(peak(docs, peer, tokens), peak(docs, "triton", tokens))


def tensor_bytes(docs: Docs, of: Tensor, tokens: Tokens = 8192) -> int:
    """Bytes of a tensor of the benchmark's shapes: the logits (N x V, bf16, or fp32), the
    weight (V x H), x (N x H), or the book's logits chunk (its plan's rows x V)."""
    r = ours(docs, tokens)
    n, h, v = r["tokens"], r["hidden"], r["vocab"]
    return {
        "logits": n * v * 2,
        "logits_fp32": n * v * 4,
        "weight": v * h * 2,
        "x": n * h * 2,
        "chunk": r["chunk"] * v * 2,
    }[of]


def chunk(docs: Docs, tokens: Tokens = 8192) -> int:
    """Rows per logits chunk the book's plan chose at ``tokens``."""
    return ours(docs, tokens)["chunk"]


def floor(docs: Docs, tokens: Tokens) -> float:
    """The step's three matmuls (6 N H V FLOPs) at the run's bf16 matmul rate (cuBLAS at
    8192³ on random data), seconds: the time of the work every implementation must do."""
    return ours(docs, tokens)["flops"] / render.matmul_rate(render.doc(docs, BENCH), "bfloat16")


Run = Literal["step", "chunks"]


def ceiling(docs: Docs, of: Literal["matmul", "copy"], run: Run = "step") -> float:
    """The bf16 matmul rate (cuBLAS at 8192³, FLOP/s) or the copy bandwidth (bytes/s) that
    the run of the step benchmark (or of the chunk benchmark) measured at its start."""
    d = render.doc(docs, BENCH if run == "step" else CHUNKS)
    return render.matmul_rate(d, "bfloat16") if of == "matmul" else render.copy_bw(d)


def ridge(docs: Docs) -> float:
    """The run's bf16 matmul rate over its copy bandwidth: FLOPs per byte of memory traffic
    at which a kernel's arithmetic and its memory traffic take the same time."""
    d = render.doc(docs, BENCH)
    return render.matmul_rate(d, "bfloat16") / render.copy_bw(d)


def error(docs: Docs, impl: Impl, tokens: Tokens, of: Error) -> float | None:
    """Normwise distance from the float32 step: max |got - want| / max |want|."""
    return render.field(row(docs, impl, tokens), f"{of}_error")


def liger_version(docs: Docs) -> str | None:
    """The Liger-Kernel release the run measured."""
    found = [r for r in render.rows(docs, BENCH, impl="liger") if "version" in r]
    return found[0]["version"] if found else None


def sweep(docs: Docs, chunk: Chunk, of: SweepField) -> float:
    """At N = 8192, with ``chunk`` rows per chunk: one launch's median time (seconds), its
    peak memory (bytes) or how many chunks it takes."""
    r = sweep_row(docs, chunk)
    return {"time": r["time_s"]["p50"], "peak": r["peak_bytes"], "chunks": r["chunks"]}[of]


def sweep_gain(docs: Docs, small: Chunk, large: Chunk) -> float:
    """How many times faster a launch with ``large`` rows per chunk ran than with
    ``small``, the median of the per-round ratios (timed head to head)."""
    a, b = sweep_row(docs, large)["time_s"], sweep_row(docs, small)["time_s"]
    return render.speedup(a, b)[0]


def part(docs: Docs, chunk: Chunk, of: Part, total: bool = False) -> float:
    """One chunk's ``of`` (timed alone), seconds; ``total``: times the chunks N takes."""
    r = sweep_row(docs, chunk)
    t = r[f"{of}_time_s"]["p50"]
    return t * r["chunks"] if total else t


def part_share(docs: Docs, chunk: Chunk, of: Part) -> float:
    """``of``'s share of the four parts' sum, one chunk."""
    r = sweep_row(docs, chunk)
    return r[f"{of}_time_s"]["p50"] / sum(r[f"{p}_time_s"]["p50"] for p, _, _ in PARTS)


def part_rate(docs: Docs, chunk: Chunk, of: Literal["logits", "grad_x", "grad_weight"]) -> float:
    """A matmul part's FLOP rate (2 R H V FLOPs), FLOP/s."""
    r = sweep_row(docs, chunk)
    return 2 * chunk * r["hidden"] * r["vocab"] / r[f"{of}_time_s"]["p50"]


def update_bandwidth(docs: Docs, chunk: Chunk) -> float:
    """The grad_weight update's traffic on grad_weight alone (read and written, V x H in
    bf16: 4 V H bytes) over its time, bytes/s."""
    r = sweep_row(docs, chunk)
    return 4 * r["vocab"] * r["hidden"] / r["grad_weight_time_s"]["p50"]


def kernel_bandwidth(docs: Docs, chunk: Chunk) -> float:
    """The kernel's bytes (it reads the chunk's logits twice and writes them once) over its
    time, bytes/s."""
    r = sweep_row(docs, chunk)
    return 3 * chunk * r["vocab"] * 2 / r["kernel_time_s"]["p50"]


VALUES = {
    "linear_cross_entropy.time": Value(time_of, render.millis(1), missing=NOT_MEASURED),
    "linear_cross_entropy.peak": Value(peak, render.mib_gib, missing=NOT_MEASURED),
    "linear_cross_entropy.compare": Value(compare, missing=NOT_MEASURED),
    "linear_cross_entropy.spread": Value(spread, missing=NOT_MEASURED),
    "linear_cross_entropy.memory_ratio": Value(memory_ratio, render.ratio, missing=NOT_MEASURED),
    "linear_cross_entropy.bytes": Value(tensor_bytes, render.mib_gib),
    "linear_cross_entropy.chunk": Value(chunk, render.count),
    "linear_cross_entropy.floor": Value(floor, render.millis(1)),
    "linear_cross_entropy.ridge": Value(ridge, render.whole),
    "linear_cross_entropy.ceiling": Value(ceiling, render.plain),
    "linear_cross_entropy.error": Value(error, render.sci, missing=NOT_MEASURED),
    "linear_cross_entropy.liger_version": Value(liger_version, missing=NOT_MEASURED),
    "linear_cross_entropy.sweep": Value(sweep, render.plain),
    "linear_cross_entropy.sweep_gain": Value(sweep_gain, render.ratio),
    "linear_cross_entropy.part": Value(part, render.micros(0)),
    "linear_cross_entropy.part_share": Value(part_share, render.percent),
    "linear_cross_entropy.part_rate": Value(part_rate, render.tflops),
    "linear_cross_entropy.kernel_bandwidth": Value(kernel_bandwidth, render.tbps),
    "linear_cross_entropy.update_bandwidth": Value(update_bandwidth, render.tbps),
}


# ---- figures ------------------------------------------------------------------------------


def fig_step(docs: Docs) -> dict:
    """Two panels against the number of tokens N (4,096 to 16,384; bf16, H = 4,096, V = 128,256):
    the time of one training step of the last layer (forward and backward) and the peak memory it
    held beyond its inputs, for the book's Triton kernel, eager PyTorch, torch.compile and
    Liger-Kernel, with the time the three matmuls take at the run's bf16 matmul rate (cuBLAS at
    8192³); error bars span the 20th to 80th percentile."""
    times, memories, ns = [], [], set()
    for impl, label, role in IMPLS:
        rs = [r for r in render.rows_by(docs, BENCH, "tokens", impl=impl) if "time_s" in r]
        if not rs:
            continue
        xs = [r["tokens"] for r in rs]
        ns |= set(xs)
        points = [render.duration(r["time_s"], 1e-3) for r in rs]
        times.append(render.line(xs, points, label, role, hover="N = %{x:,}<br>%{y:.1f} ms"))
        gib = [r["peak_bytes"] / 2**30 for r in rs]
        memories.append(render.line(xs, gib, label, role, hover="N = %{x:,}<br>%{y:.2f} GiB"))
    ns = sorted(ns)
    floors = [floor(docs, n) * 1e3 for n in ns]
    times.insert(
        0,
        render.line(ns, floors, "the three matmuls at the 8192³ matmul rate", "ceiling",
                    dash="dash", mode="lines", hover="N = %{x:,}<br>%{y:.1f} ms"),
    )  # fmt: skip
    xaxis = render.axis("tokens N (bf16, H = 4,096, V = 128,256)", log=True, ticks=ns)
    return titled(
        render.panels(
            [("one training step", times), ("its peak memory", memories)],
            xaxis,
            render.axis("", rangemode="tozero"),
            same_y=False,
        ),
        "time (ms)",
        "beyond the inputs (GiB)",
    )


def titled(fig: dict, *titles: str) -> dict:
    """``fig``'s panels with a y-axis title each, in panel order."""
    for i, title in enumerate(titles, start=1):
        fig["layout"][f"yaxis{'' if i == 1 else i}"]["title"] = {"text": title}
    return fig


def fig_vs(docs: Docs) -> dict:
    """Against the number of tokens N (4,096 to 16,384; bf16, H = 4,096, V = 128,256), the time of
    one training step of eager PyTorch, torch.compile and Liger-Kernel divided by the book's,
    round by round as they were timed in turn (a point is the median ratio, its bar the 20th to
    80th percentile), log scale; above the line at 1 the book's step takes less time."""
    traces, ns = [], set()
    for impl, label, role in IMPLS[1:]:
        pairs = [
            (n, row(docs, impl, n)) for n in sorted({r["tokens"] for r in render.rows(docs, BENCH)})
        ]
        pairs = [(n, r) for n, r in pairs if r is not None and row(docs, "triton", n) is not None]
        if not pairs:
            continue
        xs = [n for n, _ in pairs]
        ns |= set(xs)
        points = [render.speedup(ours(docs, n)["time_s"], r["time_s"]) for n, r in pairs]
        hover = "N = %{x:,}<br>%{y:.3f}× the book's time"
        traces.append(render.line(xs, points, label, role, hover=hover))
    ns = sorted(ns)
    traces.insert(
        0,
        render.line(ns, [1.0] * len(ns), "the book's kernel (= 1)", "triton", mode="lines",
                    hover="the book's step time"),
    )  # fmt: skip
    x, y = "tokens N (bf16, H = 4,096, V = 128,256)", "step time ÷ the book's (per round)"
    return render.size_chart(traces, x, ns, y, y_log=True)


def fig_chunks(docs: Docs) -> dict:
    """Two panels against rows per logits chunk (128 to 4,096, N = 8,192 tokens, bf16): the time of
    the book's launch (the loss and both gradients), with the three matmuls at the run's bf16
    matmul rate (cuBLAS at 8192³), and its peak memory."""
    rs = render.rows_by(docs, CHUNKS, "chunk")
    xs = [r["chunk"] for r in rs]
    t = render.line(
        xs,
        [render.duration(r["time_s"], 1e-3) for r in rs],
        "launch (loss and both gradients)",
        "triton",
        hover="%{x:,} rows a chunk<br>%{y:.1f} ms",
    )
    m = render.line(xs, [r["peak_bytes"] / 2**30 for r in rs], "peak memory", "triton",
                    hover="%{x:,} rows a chunk<br>%{y:.2f} GiB", showlegend=False)  # fmt: skip
    low = rs[0]["flops"] / render.matmul_rate(render.doc(docs, CHUNKS), "bfloat16") * 1e3
    ceiling = render.hline(low, min(xs), max(xs), "the three matmuls at the 8192³ matmul rate")
    panes = [("one launch, N = 8,192", [ceiling, t]), ("its peak memory", [m])]
    fig = render.size_chart(panes, "rows per logits chunk", xs, "", panes=True, same_y=False)
    return titled(fig, "time (ms)", "beyond the inputs (GiB)")


def fig_parts(docs: Docs) -> dict:
    """Stacked bars, one per chunk size (128 to 4,096 rows, N = 8,192): the logits matmul, the
    grad_x matmul, the grad_weight update and the Triton kernel, each timed alone on one chunk
    and multiplied by the number of chunks, with the whole launch's measured time marked."""
    rs = render.rows_by(docs, CHUNKS, "chunk")
    labels = [f"{r['chunk']:,}" for r in rs]
    traces = []
    for stem, label, role in PARTS:
        ms = [r[f"{stem}_time_s"]["p50"] * r["chunks"] * 1e3 for r in rs]
        traces.append(
            {
                "type": "bar",
                "name": label,
                "x": labels,
                "y": ms,
                "hovertemplate": "%{x} rows a chunk<br>%{y:.1f} ms<extra>%{fullData.name}</extra>",
                "meta": {"role": "bars", "roles": [role] * len(rs)},
            }
        )
    whole = [r["time_s"]["p50"] * 1e3 for r in rs]
    traces.append(
        render.line(
            labels,
            whole,
            "the whole launch, measured",
            "ceiling",
            mode="markers",
            marker={"symbol": "line-ew-open", "size": 28, "line": {"width": 2}},
            hover="%{x} rows a chunk<br>%{y:.1f} ms",
        )  # fmt: skip
    )
    return render.plot(
        traces,
        barmode="stack",
        xaxis=render.axis("rows per logits chunk (N = 8,192)", type="category"),
        yaxis=render.axis("time summed over the chunks (ms)", rangemode="tozero"),
    )


FIGURES = {
    "linear-cross-entropy-step": Figure(
        "Fused linear cross-entropy: step time and peak memory against tokens", (BENCH,), fig_step
    ),
    "linear-cross-entropy-vs": Figure(
        "Fused linear cross-entropy: each peer's step time over the book's", (BENCH,), fig_vs
    ),
    "linear-cross-entropy-chunks": Figure(
        "Fused linear cross-entropy: time and peak memory against rows per chunk",
        (CHUNKS,),
        fig_chunks,
    ),
    "linear-cross-entropy-parts": Figure(
        "Fused linear cross-entropy: where the time goes, by rows per chunk", (CHUNKS,), fig_parts
    ),
}
