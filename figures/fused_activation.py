"""Figures and values of the fused-activation family: lesson 08 (and numbers in 01 and 14).

Data (scripts/bench/benchmarks/fused_activation.py): ``fused_activation``, Triton, eager
PyTorch and torch.compile on ``gelu(x + bias) * mask``, a size sweep (rows M) in the ``bf16``
case and four more cases at the largest size (tanh GELU, nomask, fp16, fp32); values choose
a row by ``impl``, ``case`` and ``at``. ``fused_activation_dropout`` (the keep mask made in
the kernel from a seed, ``triton_seed``, or read from memory, ``triton_mask``, against eager
and compile) and ``fused_activation_controls`` (per GELU form, keep mask and elements per
thread: bandwidth, registers, instructions) give None ("not measured") where not run.
A row's ``bytes`` is the least a fused kernel must move; the eager chain's bytes are counted.
"""

import re
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "fused_activation"
IMPLS = (  # impl, legend name, colour role in figures.js
    ("triton", "Triton (kernels/fused_activation.py)", "triton"),
    ("compile", "torch.compile", "compile"),
    ("eager", "eager PyTorch", "torch"),
)
IN_WORDS = {"triton": "the Triton kernel", "compile": "torch.compile", "eager": "eager"}
# The cases measured at the largest size: (dtype, approximate, mask) and a short label.
CASES = {
    "bf16": ({"dtype": "bfloat16", "approximate": "none", "mask": True}, "bf16, exact GELU, mask"),
    "tanh": ({"dtype": "bfloat16", "approximate": "tanh", "mask": True}, "bf16, tanh GELU, mask"),
    "nomask": (
        {"dtype": "bfloat16", "approximate": "none", "mask": False},
        "bf16, exact GELU, no mask",
    ),
    "fp16": ({"dtype": "float16", "approximate": "none", "mask": True}, "fp16, exact GELU, mask"),
    "fp32": ({"dtype": "float32", "approximate": "none", "mask": True}, "fp32, exact GELU, mask"),
}
Impl = Literal["triton", "compile", "eager"]
Case = Literal["bf16", "tanh", "nomask", "fp16", "fp32"]
AnyCase = Literal["bf16", "tanh", "nomask", "fp16", "fp32", "worst"]  # worst: lowest of all
At = Literal["largest", "smallest", "past_l2"]
Chain = Literal["fused", "eager"]
Clock = Literal["device", "graph", "host"]  # do_bench; the GPU alone (a CUDA graph); the host
NOT_MEASURED = "not measured"


def of(docs: Docs, impl: str, case: str = "bf16") -> list[dict]:
    """Rows of one implementation for one case, by size."""
    return render.rows_by(docs, BENCH, "m", impl=impl, **CASES[case][0])


def pick(docs: Docs, impl: Impl, case: Case = "bf16", at: At = "largest") -> dict:
    """The row at the largest or smallest size, or the smallest past the L2 (bf16 only)."""
    if at != "largest" and case != "bf16":
        raise render.RenderError(f"{BENCH}: only the bf16 case is swept over sizes, not {case}")
    found = of(docs, impl, case)
    if at == "past_l2":
        l2 = render.doc(docs, BENCH)["provenance"]["l2_bytes"]
        found = [r for r in found if moved(r, "fused") > l2]
    if not found:
        raise render.RenderError(f"{BENCH} has no row impl={impl} case={case} at={at}")
    return found[-1] if at == "largest" else found[0]


def moved(row: dict, chain: str) -> int:
    """HBM bytes of one call, counted: fused 3 passes over M x N (2 without the mask) plus
    the bias; eager 7 (x + bias 2, gelu 2, * mask 3; 4 without the mask)."""
    passes = (7 if row["mask"] else 4) if chain == "eager" else (3 if row["mask"] else 2)
    return (passes * row["m"] + 1) * row["n"] * render.ELEMENT_BYTES[row["dtype"]]


def worst(metric, case: str, *args) -> float:
    """``metric(case, *args)``, or with case=worst its lowest over every case."""
    return min(metric(c, *args) for c in CASES) if case == "worst" else metric(case, *args)


def timed(
    docs: Docs, impl: Impl, at: At = "largest", clock: Clock = "device", case: Case = "bf16"
) -> dict | None:
    """The time spread on ``clock``, None where not recorded."""
    return pick(docs, impl, case, at).get(render.CLOCKS[clock])


def shape(docs: Docs, of: Literal["m", "n"], at: At = "largest") -> int:
    """Rows M of the sweep's largest or smallest size (or smallest past the L2), or columns N."""
    return pick(docs, "triton", at=at)[of]


def bytes_moved(docs: Docs, chain: Chain) -> int:
    """Bytes one call moves at the largest size (bf16, mask): fused, or eager (counted)."""
    return moved(pick(docs, "triton"), chain)


byte_ratio = render.pair_kind(bytes_moved, "chain", render.over, "Bytes of ``of`` over ``to``'s.")
bandwidth_of = render.row_kind(pick, render.bandwidth, "``impl``'s fused bytes over its time.")


time = render.row_kind(timed, render.middle, "``impl``'s median seconds per call on ``clock``.")
clock_ratio = render.pair_kind(time, "clock", render.over, "``impl``'s time on ``of`` over ``to``.")
host_bound = render.row_kind(
    pick, render.host_bound, "Whether the host, not the GPU, set the pace: the hollow points."
)


def floor(docs: Docs, chain: Chain, at: At = "largest") -> float:
    """The ``chain``'s bytes (bf16, mask) over the copy bandwidth: the fastest it can be, s."""
    return moved(pick(docs, "triton", at=at), chain) / render.copy(docs, BENCH)


def of_copy(
    docs: Docs, impl: Impl = "triton", case: AnyCase = "bf16", at: At = "largest",
    counted: bool = False, clock: Literal["device", "graph"] = "device",
) -> float | None:  # fmt: skip
    """``impl``'s bandwidth on ``clock`` over copy: fused bytes, or eager's counted."""

    def fraction(c: str) -> float | None:
        r = pick(docs, impl, c, at)
        moves = moved(r, "eager") if counted and impl == "eager" else r["bytes"]
        spread = r.get(render.CLOCKS[clock])
        return spread and moves / spread["p50"] / render.copy(docs, BENCH)

    return worst(fraction, case)


def vs(docs: Docs, peer: Literal["eager", "compile"], case: AnyCase = "bf16", at: At = "largest"):
    """The ``peer``'s time over Triton's (above 1: Triton is faster)."""
    return worst(lambda c: time(docs, peer, at, case=c) / time(docs, "triton", at, case=c), case)


case_ratio = render.pair_kind(time, "case", render.over, "``impl``'s time, ``of`` over ``to``.")


def reaches(docs: Docs, fraction: float) -> int | None:
    """The smallest swept M at which Triton reaches ``fraction`` of the copy bandwidth."""
    least = fraction * render.copy(docs, BENCH)
    return next((r["m"] for r in of(docs, "triton") if render.bandwidth(r) >= least), None)


def fastest(docs: Docs, clock: Clock) -> str | None:
    """Which of the three was fastest at the smallest size on ``clock``, in words."""
    times = {impl: time(docs, impl, "smallest", clock) for impl in IN_WORDS}
    return None if None in times.values() else IN_WORDS[min(times, key=times.get)]


def kernels(docs: Docs, impl: Impl, case: Case = "bf16") -> int | str:
    """CUDA kernels one call of ``impl`` launches (torch.profiler), at the largest size."""
    return pick(docs, impl, case).get("kernels") or NOT_MEASURED


compare = render.pair_kind(pick, "impl", render.tie(BENCH), "``of`` against ``to``, in words.")


def widest_load(docs: Docs) -> str:
    """The widest global load in the Triton kernel's PTX: 'ld.global.v4.b32' is 128-bit."""
    bits = []
    for op in pick(docs, "triton")["ptx_loads"]:
        vector, width = re.search(r"\.v(\d+)\b", op), re.search(r"\.[bfsu](\d+)\b", op)
        bits.append((int(vector.group(1)) if vector else 1) * (int(width.group(1)) if width else 0))
    return f"{max(bits)}-bit"


DROPOUT = "fused_activation_dropout"
DropImpl = Literal["triton_seed", "triton_mask", "eager", "compile"]
GeluForm = Literal["none", "tanh"]
DropDtype = Literal["bfloat16", "float32"]


def dropout_row(
    docs: Docs, impl: DropImpl, at: Literal["largest", "smallest"] = "largest",
    approximate: GeluForm = "none", dtype: DropDtype = "bfloat16",
) -> dict | None:  # fmt: skip
    """The dropout row of ``impl`` at its largest or smallest size, None where not run."""
    match = {"impl": impl, "approximate": approximate, "dtype": dtype}
    found = render.rows_by(docs, DROPOUT, "m", **match) if DROPOUT in docs else []
    return (found[-1] if at == "largest" else found[0]) if found else None


def dropout_clock(
    docs: Docs, impl: DropImpl, at: Literal["largest", "smallest"] = "largest",
    approximate: GeluForm = "none", dtype: DropDtype = "bfloat16", clock: Clock = "device",
) -> dict | None:  # fmt: skip
    """The dropout row's time spread on ``clock`` (the host: smallest size only), or None."""
    return render.field(dropout_row(docs, impl, at, approximate, dtype), render.CLOCKS[clock])


dropout_time = render.row_kind(dropout_clock, render.middle, "Median seconds per call of ``impl``.")
dropout_kernels = render.row_kind(
    dropout_row, lambda r: r.get("kernels"), "CUDA kernels one call launches (torch.profiler)."
)
dropout_kept = render.row_kind(
    dropout_row, lambda r: r.get("keep_fraction"), "The fraction kept by the checked call."
)


def dropout_bytes(docs: Docs, keep: Literal["seed", "memory"]) -> int:
    """Least bytes of one call at the largest bf16 size: x, out (and the mask from memory)."""
    r = pick(docs, "triton")
    return ((2 if keep == "seed" else 3) * r["m"] + 1) * r["n"] * render.ELEMENT_BYTES[r["dtype"]]


TRITON_KEEPS = ("triton_seed", "triton_mask")  # the default pair: the mask made or read
dropout_compare = render.pair_kind(
    dropout_row, "impl", render.tie(DROPOUT), "``of`` against ``to``, in words.", TRITON_KEEPS
)


CONTROLS = "fused_activation_controls"
Keep = Literal["none", "memory", "seed"]
PerThread = Literal[8, 16, 32, 64]
ISSUE_PER_SM_CLOCK = 128  # 4 schedulers x 32 thread instructions per clock (H100, H200)


Rows = Literal[1, 2, 4]  # rows of the tile: 1 x 2048 and 2 x 1024 both hold 16 per thread


def control_row(
    docs: Docs, approximate: GeluForm, keep: Keep, per_thread: PerThread = 16,
    block_m: Rows | None = None, dtype: DropDtype = "bfloat16",
) -> dict | None:  # fmt: skip
    """The controls row of one GELU form, keep mask, elements per thread and dtype, of a
    tile of ``block_m`` rows (left out: plan()'s tile where two tiles hold as many), or
    None where not run."""
    if CONTROLS not in docs:
        return None
    match = {"approximate": approximate, "keep": keep, "per_thread": per_thread}
    found = render.select(docs, CONTROLS, **match, block_m=block_m, dtype=dtype)
    found = [r for r in found if r["planned"]] if len(found) > 1 else found
    return found[0] if found else None


control_regs = render.row_kind(
    control_row, lambda r: r.get("n_regs"), "Registers per thread of the compiled kernel."
)


def control_of_copy(
    docs: Docs, approximate: GeluForm, keep: Keep, per_thread: PerThread = 16,
    block_m: Rows | None = None, dtype: DropDtype = "bfloat16",
) -> float | None:  # fmt: skip
    """The kernel's bandwidth (its own least bytes over its time) as a fraction of copy."""
    r = control_row(docs, approximate, keep, per_thread, block_m, dtype)
    return None if r is None else render.bandwidth(r) / render.copy(docs, CONTROLS)


def instructions(
    docs: Docs, approximate: GeluForm, keep: Keep, per_thread: PerThread = 16,
    code: Literal["sass", "ptx"] = "sass", block_m: Rows | None = None,
) -> float | None:  # fmt: skip
    """SASS (or PTX) instructions per element of the compiled kernel."""
    r = control_row(docs, approximate, keep, per_thread, block_m)
    ops = None if r is None else r[f"{code}_ops"]
    return None if ops is None else sum(ops.values()) / r["per_thread"]


def issue_share(
    docs: Docs, approximate: GeluForm, keep: Keep, per_thread: PerThread = 16
) -> float | None:
    """SASS instructions issued per second as a fraction of the GPU's issue rate."""
    r = control_row(docs, approximate, keep, per_thread)
    per_element = instructions(docs, approximate, keep, per_thread)
    if r is None or per_element is None:
        return None
    issued = per_element * r["m"] * r["n"] / r["time_s"]["p50"]
    return render.quotient(issued, issue_rate(docs, CONTROLS))


control_compare = render.pair_kind(
    control_row, "per_thread", render.tie(CONTROLS), "``of`` elements per thread against ``to``."
)
tile_compare = render.pair_kind(
    control_row, "block_m", render.tie(CONTROLS), "A tile of ``of`` rows against one of ``to``."
)


last_load = render.row_kind(
    control_row,
    lambda r: (
        f"instruction {r['loads_at'][-1] + 1:,} of {sum(r['sass_ops'].values()):,}"
        if r.get("loads_at") and r.get("sass_ops")
        else None
    ),
    "Where the kernel's last global load stands in its SASS, counted from 1: 'instruction "
    "627 of 736'; None without the SASS.",
)


def issue_rate(docs: Docs, bench: Literal["fused_activation", "fused_activation_controls"] = BENCH):
    """Thread instructions the GPU can issue per second in the run of ``bench``: SMs x 128 x
    the SM clock after it (or its maximum)."""
    prov = render.doc(docs, bench)["provenance"]
    clocks = prov.get("clocks_after") or prov.get("clocks_at_start") or {}
    mhz = clocks.get("sm_mhz") or clocks.get("sm_max_mhz")
    return prov["sm_count"] * ISSUE_PER_SM_CLOCK * mhz * 1e6 if mhz else None


def issue_budget(docs: Docs, bytes_per_element: Literal[4, 6, 12]) -> float:
    """Instructions per element the GPU can issue while memory moves elements at copy speed."""
    return issue_rate(docs) / (render.copy(docs, BENCH) / bytes_per_element)


def least_time(
    docs: Docs, keep: Keep, limit: Literal["bytes", "issue"], approximate: GeluForm = "none"
) -> float | None:
    """Least seconds per call by one limit: bytes at copy speed, or SASS at the issue rate."""
    if limit == "bytes":
        moves = dropout_bytes(docs, "memory" if keep == "memory" else "seed")
        return moves / render.copy(docs, BENCH)
    r, per_element = pick(docs, "triton"), instructions(docs, approximate, keep)
    return None if per_element is None else per_element * r["m"] * r["n"] / issue_rate(docs)


# The bf16 variants both benchmarks measure: (GELU form, keep mask, fused_activation case).
BUDGET_CASES = (("tanh", "memory", "tanh"), ("none", "memory", "bf16"), ("none", "none", "nomask"))


def issue_need(docs: Docs, approximate: GeluForm, keep: Keep) -> float | None:
    """The share of ``issue_budget`` the kernel's SASS instructions per element take."""
    per_element = instructions(docs, approximate, keep)
    bytes_per_element = 2 * (3 if keep == "memory" else 2)
    return render.quotient(per_element, issue_budget(docs, bytes_per_element))


def budget_rise(docs: Docs) -> float | None:
    """The most a case's share of copy rises over the case before it, the cases in order
    of ``issue_need`` (at most 0.01: the more of its budget a case needs, the lower its share)."""
    needs = [issue_need(docs, form, keep) for form, keep, _ in BUDGET_CASES]
    if None in needs:
        return None
    in_order = sorted(zip(needs, BUDGET_CASES, strict=True), key=lambda pair: pair[0])
    shares = [of_copy(docs, case=case) for _, (_, _, case) in in_order]
    return max(later - earlier for earlier, later in zip(shares, shares[1:], strict=False))


def per_second_e12(v: float) -> str:
    """A rate per second in units of 10^12: '33.5 × 10¹² per second'."""
    return f"{v / 1e12:.1f} × 10¹² per second"


def one_decimal(v: float) -> str:
    return f"{v:.1f}"


VALUES = {
    "fused_activation.shape": Value(shape, render.count),
    "fused_activation.bytes": Value(bytes_moved, render.mb),
    "fused_activation.byte_ratio": Value(byte_ratio, render.ratio),
    "fused_activation.bandwidth": Value(bandwidth_of, render.tbps),
    "fused_activation.time": Value(time, render.millis(3), missing=NOT_MEASURED),
    "fused_activation.clock_ratio": Value(clock_ratio, render.ratio, missing=NOT_MEASURED),
    "fused_activation.host_bound": Value(host_bound),
    "fused_activation.floor": Value(floor, render.millis(3)),
    "fused_activation.of_copy": Value(of_copy, render.percent, missing=NOT_MEASURED),
    "fused_activation.vs": Value(vs, render.ratio),
    "fused_activation.case_ratio": Value(case_ratio, render.ratio),
    "fused_activation.reaches": Value(reaches, render.count, missing="none of the sizes"),
    "fused_activation.fastest": Value(fastest, missing=NOT_MEASURED),
    "fused_activation.kernels": Value(kernels, render.plain),
    "fused_activation.widest_load": Value(widest_load),
    # dropout made in the kernel, and the controls (instructions and bytes in flight)
    "fused_activation.dropout_time": Value(dropout_time, render.millis(3), missing=NOT_MEASURED),
    "fused_activation.dropout_bytes": Value(dropout_bytes, render.mb),
    "fused_activation.dropout_kernels": Value(dropout_kernels, render.plain, missing=NOT_MEASURED),
    "fused_activation.dropout_kept": Value(dropout_kept, render.percent1, missing=NOT_MEASURED),
    "fused_activation.control_of_copy": Value(
        control_of_copy, render.percent, missing=NOT_MEASURED
    ),
    "fused_activation.instructions": Value(instructions, one_decimal, missing=NOT_MEASURED),
    "fused_activation.control_regs": Value(control_regs, render.plain, missing=NOT_MEASURED),
    "fused_activation.issue_share": Value(issue_share, render.percent, missing=NOT_MEASURED),
    # added for lesson 08
    "fused_activation.compare": Value(compare),
    "fused_activation.dropout_compare": Value(dropout_compare, missing=NOT_MEASURED),
    "fused_activation.control_compare": Value(control_compare, missing=NOT_MEASURED),
    "fused_activation.tile_compare": Value(tile_compare, missing=NOT_MEASURED),
    "fused_activation.last_load": Value(last_load, missing=NOT_MEASURED),
    "fused_activation.issue_rate": Value(issue_rate, per_second_e12),
    "fused_activation.issue_budget": Value(issue_budget, render.whole),
    "fused_activation.least_time": Value(least_time, render.millis(3), missing=NOT_MEASURED),
    "fused_activation.issue_need": Value(issue_need, render.percent, missing=NOT_MEASURED),
    "fused_activation.budget_rise": Value(budget_rise, render.percent1, missing=NOT_MEASURED),
}


def rows_axis(docs: Docs) -> dict:
    """The log x axis over the swept rows, labels tilted counter-clockwise on a phone (the
    last one stays inside the figure)."""
    title = f"rows M (x is M × {shape(docs, 'n'):,}, bf16)"
    ms = [r["m"] for r in of(docs, "triton")]
    return render.axis(title, log=True, tickvals=ms, tickformat=",", autotickangles=[0, -30, -90])


def sweep_lines(docs: Docs, points, hover: str) -> list[dict]:
    """One line per measured implementation over the swept sizes (the bf16 case)."""
    return render.impl_lines(docs, BENCH, "m", IMPLS, points, hover, **CASES["bf16"][0])


def fig_bandwidth(docs: Docs) -> dict:
    """Achieved bandwidth (fused byte count over time) of the Triton kernel, torch.compile and eager
    PyTorch against the number of rows, bf16, with the measured copy ceiling; error bars span the
    20th to 80th percentile."""
    traces = sweep_lines(docs, render.tbps_points, "M = %{x:,}<br>%{y:.2f} TB/s")
    traces.append(render.copy_ceiling(docs, BENCH, [r["m"] for r in of(docs, "triton")]))
    yaxis = render.axis("achieved bandwidth (TB/s, fused bytes)", rangemode="tozero")
    return render.plot(traces, xaxis=rows_axis(docs), yaxis=yaxis)


def fig_time(docs: Docs) -> dict:
    """Log-log plot of time per call for Triton, torch.compile and eager PyTorch against the number
    of rows, the Triton kernel's own GPU time (replayed from a CUDA graph) where measured, and two
    floors: the fused byte count and the eager chain's counted bytes, each divided by the measured
    copy bandwidth."""
    hover = "M = %{x:,}<br>%{y:.1f} µs"
    traces = sweep_lines(docs, render.us_points, hover)
    rs, bw = of(docs, "triton"), render.copy(docs, BENCH)
    if graphed := [r for r in rs if "graph_time_s" in r]:
        points = render.us_points(graphed, "graph_time_s")
        name = "Triton, the GPU alone (CUDA graph)"
        traces.append(render.line([r["m"] for r in graphed], points, name, "series-4"))
    for chain, name, role in (
        ("eager", "eager's counted bytes ÷ copy bandwidth", "ceiling-2"),
        ("fused", "fused bytes ÷ copy bandwidth", "ceiling"),
    ):
        ms, floors = [r["m"] for r in rs], [moved(r, chain) / bw * 1e6 for r in rs]
        traces.append(render.line(ms, floors, name, role, dash="dash", mode="lines", hover=hover))
    yaxis = render.axis("time per call (µs)", log=True)
    return render.plot(traces, xaxis=rows_axis(docs), yaxis=yaxis)


def fig_bytes(docs: Docs) -> dict:
    """Bar chart of HBM bytes per call, counted from the kernels each version runs, at the largest
    size (M = 32,768, N = 4,096, bf16), with and without the mask; labels give the kernels per
    call measured with torch.profiler."""
    traces = []
    for chain, impl, name, role in (
        ("eager", "eager", "eager chain", "torch"),
        ("fused", "triton", "fused kernel", "triton"),
    ):
        gbs, texts, labels = [], [], []
        for case in ("bf16", "nomask"):
            gbs.append(moved(pick(docs, impl, case), chain) / 1e9)
            k = kernels(docs, impl, case)
            texts.append(f"{gbs[-1]:.2f} GB<br>{k} kernel{'' if k == 1 else 's'}")
            labels.append("with mask" if CASES[case][0]["mask"] else "without mask")
        hover = "%{x:.3f} GB per call"
        traces.append(
            render.hbar(labels, gbs, role, name=name, hover=hover, text=texts, textposition="auto")
        )
    return render.bar_chart(traces, "HBM GB per call")


def fig_variants(docs: Docs) -> dict:
    """Grouped bar chart of achieved bandwidth for Triton, torch.compile and eager PyTorch in five
    cases (bf16 exact GELU with mask, tanh GELU, no mask, fp16, fp32), with the copy ceiling as a
    dashed line; error bars span the 20th to 80th percentile."""
    traces, bw = [], render.copy(docs, BENCH) / 1e12
    top = bw
    labels = [label.replace(", ", "<br>", 1) for _, label in CASES.values()]
    for impl, name, role in IMPLS:
        if not render.rows(docs, BENCH, impl=impl):
            continue
        points = render.tbps_points([pick(docs, impl, c) for c in CASES])
        top = max([top] + [p[2] for p in points])
        traces.append(render.hbar(labels, points, role, name=name, hover="%{x:.2f} TB/s"))
    line_ = {"dash": "dash", "width": 1.5, "color": "#9e9e9e"}
    copy_line = {"type": "line", "xref": "x", "yref": "paper", "x0": bw, "x1": bw, "y0": 0,
                 "y1": 1, "line": line_}  # fmt: skip
    # The line is a shape (it spans every bar); this trace only names it in the legend.
    name = f"copy ceiling ({bw:.2f} TB/s)"
    key = render.line([None], [None], name, "marker", dash="dash", mode="lines")
    key["line"]["width"] = 1.5
    xaxis = render.axis("achieved bandwidth (TB/s)", range=[0, top * 1.08])
    yaxis = render.label_axis()
    traces.append(key)
    return render.plot(traces, barmode="group", xaxis=xaxis, yaxis=yaxis, shapes=[copy_line])


FIGURES = {
    "fused-activation-bandwidth": Figure(
        "Bias + GELU + mask: achieved bandwidth against size", (BENCH,), fig_bandwidth
    ),
    "fused-activation-time": Figure(
        "Bias + GELU + mask: time per call against size", (BENCH,), fig_time
    ),
    "fused-activation-bytes": Figure(
        "HBM bytes per call: eager chain against one fused kernel",
        (BENCH,),
        fig_bytes,
        counted=(
            "bytes each version must read and write, from the tensor shapes and the "
            "kernels each runs (torch.profiler lists them), at M = 32,768, N = 4,096, bf16; "
            "the same on every GPU"
        ),
    ),
    "fused-activation-variants": Figure(
        "Bias + GELU + mask at the largest size: every variant", (BENCH,), fig_variants
    ),
}


GELU_FLOPS = 7  # per element, nominal: x+b, v/sqrt2, erf (as one), 1+, 0.5*v, *, *mask


# The Triton kernel at the largest size, exact GELU with a mask, per dtype.
ROOFLINE = {
    BENCH: render.roofline_rows(
        "bias + GELU + mask ({dtype})",
        largest="m",
        flops=lambda r: GELU_FLOPS * r["m"] * r["n"],
        impl="triton",
        approximate="none",
        mask=True,
    )
}
