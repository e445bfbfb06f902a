"""Figures and values of the RMSNorm family: lesson 11.

Data (scripts/bench/benchmarks/rmsnorm.py): ``rmsnorm`` (forward and backward against hidden
size H, M x H fixed, the book's kernels and their peers, bf16 at five widths and fp32 at
4096), ``rmsnorm_small_m`` (the control at M = 16384: autograd against the kernels alone,
and the host's parts) and ``rmsnorm_bwd_sweep`` (the backward's launch shapes). A row's
``bytes`` is the least the step must move; training adds forward and backward. Values are
at bf16 unless a ``dtype`` says otherwise.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH, SMALL, SWEEP = "rmsnorm", "rmsnorm_small_m", "rmsnorm_bwd_sweep"
IMPLS = (  # key, legend label, colour role
    ("triton", "Triton (kernels/rmsnorm.py)", "triton"),
    ("eager", "eager formula (torch ops)", "torch"),
    ("compile", "torch.compile", "compile"),
    ("rms_norm", "F.rms_norm", "series-4"),
    ("liger", "Liger-Kernel", "series-3"),
)
NOT_MEASURED = "not measured"  # a peer that did not run, or a run older than a field

Direction = Literal["forward", "backward"]
Hidden = Literal[1024, 2048, 4096, 8192, 16384]
Impl = Literal["triton", "eager", "compile", "rms_norm", "liger"]
Peer = Literal["compile", "rms_norm", "liger"]
Dtype = Literal["bfloat16", "float32"]
Step = Literal["forward", "backward", "training"]  # training: one forward plus one backward
Timed = Literal["autograd", "kernels"]  # through autograd, or the kernels launched directly
Part = Literal["autograd", "kernels", "stage2"]  # stage2: the backward's second kernel alone
Bytes = Literal["tensor", "forward", "backward", "rstd", "partials", "dw_rows"]
KernelField = Literal["programs", "regs", "regs_per_program", "spills"]
HostPart = Literal["autograd", "kernels", "host", "host_kernels", "host_noop"]


def row(docs: Docs, direction: str, hidden: int, impl="triton", dtype="bfloat16") -> dict:
    return render.one(docs, BENCH, impl=impl, direction=direction, dtype=dtype, hidden=hidden)


def peer_row(docs: Docs, impl: Impl, direction: Direction, hidden: Hidden) -> dict | None:
    """A bf16 row, or None where that impl did not run (Liger-Kernel not installed)."""
    match = {"impl": impl, "direction": direction, "dtype": "bfloat16", "hidden": hidden}
    return render.maybe_one(docs, BENCH, absent_ok=True, **match)


def step(docs: Docs, impl: str, direction: str, hidden: int) -> tuple[int, dict] | None:
    """Bytes and time spread of one step (training: forward plus backward), or None."""
    if direction != "training":
        r = peer_row(docs, impl, direction, hidden)
        return None if r is None else (r["bytes"], r["time_s"])
    fwd, bwd = (step(docs, impl, d, hidden) for d in ("forward", "backward"))
    if fwd is None or bwd is None:
        return None
    return fwd[0] + bwd[0], {p: fwd[1][p] + bwd[1][p] for p in ("p20", "p50", "p80")}


def sweep_best(
    docs: Docs, hidden: Hidden, per_sm: int | None = None, prefetch: bool | None = None
) -> dict | None:
    """The fastest sweep row at ``hidden`` with these settings (None: any), or None."""
    found = render.select(docs, SWEEP, hidden=hidden, programs_per_sm=per_sm, prefetch=prefetch)
    if not found and prefetch is None:
        raise render.RenderError(f"{SWEEP} has no row hidden={hidden} programs_per_sm={per_sm}")
    return max(found, key=render.bandwidth, default=None)


def bandwidth_of(
    docs: Docs, direction: Direction, impl: Impl, hidden: Hidden, part: Timed = "autograd"
) -> float | None:
    """Achieved bandwidth of ``impl`` through autograd, or of the kernels alone, bytes/s."""
    r = peer_row(docs, impl, direction, hidden)
    if part == "autograd" or r is None:
        return None if r is None else render.bandwidth(r)
    if impl != "triton":
        raise render.RenderError("part=kernels is measured for impl=triton only")
    return r["bytes"] / r["kernels_time_s"]["p50"] if "kernels_time_s" in r else None


def time_of(docs: Docs, direction: Direction, hidden: Hidden, part: Part = "autograd") -> float:
    """The book's median device seconds: through autograd, kernels alone, or stage 2 alone."""
    field = {"autograd": "time_s", "kernels": "kernels_time_s", "stage2": "dw_time_s"}[part]
    return row(docs, direction, hidden)[field]["p50"]


def floor(docs: Docs, direction: Direction, hidden: Hidden) -> float:
    """The least bytes over the copy bandwidth: the fastest the step can be, seconds."""
    return row(docs, direction, hidden)["bytes"] / render.copy(docs, BENCH)


def of_copy(docs: Docs, direction: Direction, hidden: Hidden, dtype: Dtype = "bfloat16") -> float:
    """The book's bandwidth over the run's measured copy bandwidth."""
    return render.bandwidth(row(docs, direction, hidden, dtype=dtype)) / render.copy(docs, BENCH)


def vs(docs: Docs, peer: Peer, direction: Step, hidden: Hidden) -> float | None:
    """``peer``'s median time over the book's (> 1: the book's is faster)."""
    theirs, mine = step(docs, peer, direction, hidden), step(docs, "triton", direction, hidden)
    return None if theirs is None else theirs[1]["p50"] / mine[1]["p50"]


compare = render.pair_kind(peer_row, "impl", render.tie(BENCH), "``of`` against ``to``, in words.")


def bytes_of(docs: Docs, of: Bytes, hidden: Hidden) -> int:
    """Bytes at bf16: a tensor, a step's least, rstd, dweight's partial rows, or M float32 rows."""
    if of in ("forward", "backward"):
        return row(docs, of, hidden)["bytes"]
    if of == "dw_rows":
        return row(docs, "forward", hidden)["rows"] * hidden * 4
    if of == "partials":
        return row(docs, "backward", hidden)["programs"] * hidden * 4
    return row(docs, "forward", hidden)["rows"] * (hidden * 2 if of == "tensor" else 4)


def share(docs: Docs, of: Literal["partials", "stage2"], hidden: Hidden) -> float:
    """The partial rows' share of the backward's bytes, or the second stage's of its time."""
    r = row(docs, "backward", hidden)
    if of == "partials":
        return bytes_of(docs, "partials", hidden) / r["bytes"]
    return r["dw_time_s"]["p50"] / r["time_s"]["p50"]


def kernel(docs: Docs, direction: Direction, hidden: Hidden, of: KernelField) -> int:
    """The book's launch and kernel: programs, registers per thread or program, or spills."""
    r = row(docs, direction, hidden)
    if of == "regs_per_program":
        return r["n_regs"] * 32 * r["num_warps"]
    return r[{"regs": "n_regs", "spills": "n_spills"}.get(of, of)]


def n_rows(docs: Docs, control: bool = False) -> int:
    """Rows M of the measurements at H = 8192, or (control) of rmsnorm_small_m."""
    return render.rows(docs, SMALL)[0]["rows"] if control else row(docs, "forward", 8192)["rows"]


def elements(docs: Docs) -> int:
    """Elements M x H of one tensor: the same at every width."""
    return row(docs, "forward", 8192)["rows"] * 8192


def tensor_over_l2(docs: Docs) -> float:
    """One bf16 tensor of M x H elements over this GPU's L2 size."""
    return elements(docs) * 2 / render.provenance(docs)["l2_bytes"]


def small_m(
    docs: Docs, direction: Direction, hidden: Literal[1024, 2048, 4096], of: HostPart
) -> float | None:
    """Median seconds at M = 16384: device time, or the host's time and its parts."""
    r = render.one(docs, SMALL, direction=direction, hidden=hidden)
    field = {"autograd": "autograd_time_s", "kernels": "kernels_time_s"}.get(of, of + "_s")
    return r[field]["p50"] if field in r else None


sweep_bandwidth = render.row_kind(
    sweep_best, render.bandwidth, "Best backward bytes/s of the sweep at ``hidden`` (none: any)."
)


SweepField = Literal["programs_per_sm", "num_warps", "rows_per_step", "n_regs", "n_spills"]


def sweep_field(
    docs: Docs, hidden: Hidden, of: SweepField, prefetch: bool | None = None
) -> int | None:
    """One field of the sweep's fastest backward shape at ``hidden``: its launch or registers."""
    return render.field(sweep_best(docs, hidden, None, prefetch), of)


def sweep_count(docs: Docs) -> int:
    """How many launch shapes the backward sweep measured, over all widths."""
    return len(render.rows(docs, SWEEP))


VALUES = {
    "rmsnorm.bandwidth": Value(bandwidth_of, render.tbps, missing=NOT_MEASURED),
    "rmsnorm.time": Value(time_of, render.micros(0)),
    "rmsnorm.floor": Value(floor, render.micros(0)),
    "rmsnorm.of_copy": Value(of_copy, render.percent),
    "rmsnorm.vs": Value(vs, render.ratio, missing=NOT_MEASURED),
    "rmsnorm.compare": Value(compare, missing=NOT_MEASURED),
    "rmsnorm.bytes": Value(bytes_of, render.kb_mb),
    "rmsnorm.share": Value(share, render.percent),
    "rmsnorm.kernel": Value(kernel, render.count),
    "rmsnorm.rows": Value(n_rows, render.count),
    "rmsnorm.elements": Value(elements, render.count),
    "rmsnorm.tensor_over_l2": Value(tensor_over_l2, render.whole),
    "rmsnorm.small_m": Value(small_m, render.micros(0), missing=NOT_MEASURED),
    "rmsnorm.sweep_bandwidth": Value(sweep_bandwidth, render.tbps, missing=NOT_MEASURED),
    "rmsnorm.sweep_field": Value(sweep_field, render.plain, missing=NOT_MEASURED),
    "rmsnorm.sweep_count": Value(sweep_count, render.count),
}


def fig_bandwidth(direction: str, y_title: str):
    """Bandwidth against H per impl; ``training``: one forward plus one backward."""

    def build(docs: Docs) -> dict:
        traces, widths = [], set()
        for impl, label, role in IMPLS:
            mine = render.rows(docs, BENCH, impl=impl, dtype="bfloat16")
            hs = sorted({r["hidden"] for r in mine})
            steps = {h: s for h in hs if (s := step(docs, impl, direction, h))}
            if not steps:
                continue
            widths |= set(steps)
            points = [render.rate(*s, 1e12) for s in steps.values()]
            hover = "H = %{x:,}<br>%{y:.2f} TB/s"
            traces.append(render.line(list(steps), points, label, role, hover=hover))
        traces.append(render.copy_ceiling(docs, BENCH, widths))
        return render.size_chart(traces, "hidden size H (bf16, M × H fixed)", widths, y_title)

    return build


def fig_sweep(docs: Docs) -> dict:
    """For hidden sizes 1024, 4096 and 8192 in bf16, the best bandwidth of the book's backward
    kernels (launched directly) over num_warps and rows per step, at 1, 2 and 4 programs per SM,
    with the measured copy ceiling."""
    traces, per_sm_all = [], set()
    for i, hidden in enumerate(sorted({r["hidden"] for r in render.rows(docs, SWEEP)})):
        per_sm = sorted({r["programs_per_sm"] for r in render.rows(docs, SWEEP, hidden=hidden)})
        per_sm_all |= set(per_sm)
        best = [sweep_best(docs, hidden, k, None) for k in per_sm]
        hover = f"H = {hidden:,}, %{{x}} per SM<br>%{{y:.2f}} TB/s (best warps and step)"
        name, role = f"H = {hidden:,}", f"series-{i}"
        traces.append(render.tbps_line(best, "programs_per_sm", name, role, hover=hover))
    traces.append(render.copy_ceiling(docs, SWEEP, per_sm_all))
    y = "best backward bandwidth (TB/s)"
    return render.size_chart(traces, "backward programs per SM", per_sm_all, y)


FIGURES = {
    "rmsnorm-forward": Figure(
        "RMSNorm forward: achieved bandwidth against hidden size",
        (BENCH,),
        fig_bandwidth("forward", "forward bandwidth (TB/s)"),
        "Forward bandwidth (read x, write y) of the Triton RMSNorm, the eager formula, "
        "torch.compile, F.rms_norm and Liger-Kernel for hidden sizes 1024 to 16384 in bf16, "
        "with the measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "rmsnorm-backward": Figure(
        "RMSNorm backward: achieved bandwidth against hidden size",
        (BENCH,),
        fig_bandwidth("backward", "backward bandwidth (TB/s)"),
        "Backward bandwidth (read x and dy, write dx) of the same implementations, timed as "
        "the backward step alone, with the measured copy ceiling.",
    ),
    "rmsnorm-backward-sweep": Figure(
        "RMSNorm backward: launch shapes, best bandwidth per programs-per-SM", (SWEEP,), fig_sweep
    ),
    "rmsnorm-training": Figure(
        "RMSNorm forward + backward: bandwidth against hidden size",
        (BENCH,),
        fig_bandwidth("training", "forward + backward (TB/s)"),
        "Bytes of one forward and one backward over the sum of their times, per "
        "implementation and hidden size, with the measured copy ceiling.",
    ),
}


# FLOPs per element, counted from the kernels.
FLOPS_PER_ELEMENT = {"forward": 4, "backward": 10}


# The book's forward and backward, bf16, H = 8192.
ROOFLINE = {
    BENCH: render.roofline_rows(
        "RMSNorm {direction} (bf16)",
        flops=lambda r: FLOPS_PER_ELEMENT[r["direction"]] * r["rows"] * r["hidden"],
        impl="triton",
        dtype="bfloat16",
        hidden=8192,
    )
}
