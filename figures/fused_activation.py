"""Figures and values of the fused-activation family: lesson 08.

Data: ``fused_activation`` (scripts/bench/benchmarks/fused_activation.py): Triton, eager
PyTorch and torch.compile on ``gelu(x + bias) * mask``; a size sweep in bf16 and, at the
largest size, variants (tanh GELU, no mask, fp16, fp32).

Bytes: every row's ``bytes`` is the least a fused kernel must move (each input read once,
the output written once). What the eager chain moves is *counted* here from its three
kernels; no hardware counter measured it (our GPU machines expose none to us).
"""

from __future__ import annotations

import re

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    copy_bw,
    count,
    doc,
    duration,
    error_bars,
    hline,
    line,
    micros,
    millis,
    named,
    or_not_measured,
    percent,
    plain,
    rate,
    ratio,
    rows,
    tbps,
)

BENCH = "fused_activation"
IMPLS = (
    ("triton", "Triton (kernels/fused_activation.py)"),
    ("compile", "torch.compile"),
    ("eager", "eager PyTorch"),
)
ROLE = {"triton": "triton", "compile": "compile", "eager": "torch"}  # colours in figures.js
SIZES = {"float32": 4, "float16": 2, "bfloat16": 2}  # bytes per element
# The cases measured at the largest size: (dtype, approximate, mask) and a short label.
CASES = {
    "bf16": (("bfloat16", "none", True), "bf16, exact GELU, mask"),
    "tanh": (("bfloat16", "tanh", True), "bf16, tanh GELU, mask"),
    "nomask": (("bfloat16", "none", False), "bf16, exact GELU, no mask"),
    "fp16": (("float16", "none", True), "fp16, exact GELU, mask"),
    "fp32": (("float32", "none", True), "fp32, exact GELU, mask"),
}


# ---- helpers ----------------------------------------------------------------------------


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row (the fused byte count over time), bytes/s."""
    return row["bytes"] / row["time_s"]["p50"]


def of(docs: Docs, impl: str, case: str = "bf16") -> list[dict]:
    """Rows of one implementation for one case, by size."""
    (dtype, approximate, mask), _ = CASES[case]
    found = rows(docs, BENCH, impl=impl, dtype=dtype, approximate=approximate, mask=mask)
    return sorted(found, key=lambda r: r["m"])


def measured(docs: Docs) -> list[tuple[str, str]]:
    """(impl, legend name) of the implementations this device has rows for: a peer that
    could not run (say torch.compile without a working compiler) is left out of figures."""
    return [(impl, name) for impl, name in IMPLS if rows(docs, BENCH, impl=impl)]


def largest(docs: Docs, impl: str, case: str = "bf16") -> dict:
    """The row of ``impl`` at the largest size measured for ``case``."""
    return of(docs, impl, case)[-1]


def median(docs: Docs, impl: str, case: str = "bf16") -> float:
    """Median time of ``impl`` at the largest size of ``case``, seconds."""
    return largest(docs, impl, case)["time_s"]["p50"]


def copy(docs: Docs) -> float:
    return copy_bw(doc(docs, BENCH))


def counted_bytes(m: int, n: int, dtype: str, mask: bool, eager: bool) -> int:
    """HBM bytes of one call, counted. Fused: read x (and mask), write out, read bias.
    Eager: x + bias reads x and writes t (2 passes), gelu reads t and writes g (2), and
    g * mask reads g and mask and writes out (3): 7 passes over M x N, 4 without the mask."""
    s = SIZES[dtype]
    passes = (7 if mask else 4) if eager else (3 if mask else 2)
    return passes * m * n * s + n * s


def row_bytes(row: dict, eager: bool) -> int:
    return counted_bytes(row["m"], row["n"], row["dtype"], row["mask"], eager)


def kernels(row: dict) -> int | str:
    return row.get("kernels") or "not measured"


# ---- values: the sweep's case (bf16, exact GELU, mask) at the largest size ----------------


def n_cols(docs: Docs) -> int:
    """Columns N of every measured tensor."""
    return largest(docs, "triton")["n"]


def largest_m(docs: Docs) -> int:
    """The largest number of rows M measured."""
    return largest(docs, "triton")["m"]


def smallest_m(docs: Docs) -> int:
    """The smallest number of rows M measured."""
    return of(docs, "triton")[0]["m"]


def fused_mb(docs: Docs) -> str:
    """Bytes a fused call moves at the largest bf16 size, with mask, in MB (10^6 bytes)."""
    return f"{row_bytes(largest(docs, 'triton'), eager=False) / 1e6:,.0f} MB"


def eager_mb(docs: Docs) -> str:
    """Bytes the eager chain's three kernels move at the largest bf16 size, counted, in MB."""
    return f"{row_bytes(largest(docs, 'triton'), eager=True) / 1e6:,.0f} MB"


def byte_ratio(docs: Docs) -> float:
    """Counted eager bytes over fused bytes at the largest size, with mask (about 7/3)."""
    r = largest(docs, "triton")
    return row_bytes(r, eager=True) / row_bytes(r, eager=False)


def triton_bw(docs: Docs) -> float:
    """Triton's bandwidth at the largest bf16 size (exact GELU, mask)."""
    return bandwidth(largest(docs, "triton"))


def compile_bw(docs: Docs) -> float:
    """torch.compile's bandwidth (fused byte count) at the largest bf16 size."""
    return bandwidth(largest(docs, "compile"))


def eager_bw(docs: Docs) -> float:
    """Eager PyTorch's bandwidth, fused byte count over its time, at the largest bf16 size."""
    return bandwidth(largest(docs, "eager"))


def triton_time(docs: Docs) -> float:
    """Triton's median time at the largest bf16 size, seconds."""
    return median(docs, "triton")


def compile_time(docs: Docs) -> float:
    """torch.compile's median time at the largest bf16 size, seconds."""
    return median(docs, "compile")


def eager_time(docs: Docs) -> float:
    """Eager PyTorch's median time at the largest bf16 size, seconds."""
    return median(docs, "eager")


def fused_floor(docs: Docs) -> float:
    """Fused bytes at the largest bf16 size over the copy bandwidth: the fastest possible."""
    return row_bytes(largest(docs, "triton"), eager=False) / copy(docs)


def eager_floor(docs: Docs) -> float:
    """The eager chain's counted bytes over the copy bandwidth, at the largest bf16 size."""
    return row_bytes(largest(docs, "triton"), eager=True) / copy(docs)


def eager_counted_fraction(docs: Docs) -> float:
    """Eager's counted bytes over its time, as a fraction of the copy bandwidth: how close
    its three kernels together run to copy speed."""
    return eager_floor(docs) / eager_time(docs)


def smallest_vs_eager(docs: Docs) -> float:
    """Eager's time over Triton's at the smallest size of the sweep."""
    return of(docs, "eager")[0]["time_s"]["p50"] / of(docs, "triton")[0]["time_s"]["p50"]


IN_WORDS = {"triton": "the Triton kernel", "compile": "torch.compile", "eager": "eager"}


def smallest_fastest(docs: Docs) -> str:
    """Which of Triton, torch.compile and eager had the shortest median time at the
    smallest size of the sweep."""
    return IN_WORDS[min(IN_WORDS, key=lambda impl: smallest_time(docs, impl))]


def smallest_host_fastest(docs: Docs) -> str | None:
    """Which of the three had the shortest host time per call at the smallest size of the
    sweep; None where the run did not record host times."""
    hosts = {impl: smallest_host(impl)(docs) for impl in IN_WORDS}
    if None in hosts.values():
        return None
    return IN_WORDS[min(hosts, key=hosts.get)]


def smallest_compile_clocks(docs: Docs) -> str | None:
    """How torch.compile's two clocks compare at the smallest size: a sentence for the
    page; None where the run did not record host times."""
    host = smallest_host("compile")(docs)
    if host is None:
        return None
    if smallest_time(docs, "compile") > host:
        return (
            "torch.compile's do_bench time is the longer of its two here; "
            "the benchmark does not show why."
        )
    return "torch.compile's do_bench time is the shorter of its two as well."


def smallest_time(docs: Docs, impl: str) -> float:
    """Median time of ``impl`` at the smallest size of the sweep, seconds."""
    return of(docs, impl)[0]["time_s"]["p50"]


def smallest_host(impl: str):
    def compute(docs: Docs) -> float | None:
        return of(docs, impl)[0].get("host_s", {}).get("p50")  # None: run predates it

    doc_ = (
        f"{impl}: the host's wall time per call at the smallest size of the sweep (loops of "
        "back-to-back calls), seconds; None where the run did not record it."
    )
    return named(f"smallest_{impl}_host", doc_, compute)


def smallest_triton_time(docs: Docs) -> float:
    """Triton's median time at the smallest size of the sweep (bf16, exact GELU, mask)."""
    return smallest_time(docs, "triton")


def smallest_eager_time(docs: Docs) -> float:
    """Eager PyTorch's median time at the smallest size of the sweep."""
    return smallest_time(docs, "eager")


def smallest_compile_time(docs: Docs) -> float:
    """torch.compile's median time at the smallest size of the sweep."""
    return smallest_time(docs, "compile")


def smallest_floor(docs: Docs) -> float:
    """Fused bytes at the smallest size over the copy bandwidth: the fastest possible there."""
    return row_bytes(of(docs, "triton")[0], eager=False) / copy(docs)


def l2_bytes(docs: Docs) -> int:
    """The L2 cache of the GPU that ran the benchmark, bytes."""
    return doc(docs, BENCH)["provenance"]["l2_bytes"]


def past_l2_row(docs: Docs, impl: str) -> dict:
    """The row of ``impl`` at the smallest swept size whose fused bytes exceed the L2."""
    # [0] raises IndexError (reported by the renderer) when no size is past the L2.
    return [r for r in of(docs, impl) if row_bytes(r, eager=False) > l2_bytes(docs)][0]


def past_l2_m(docs: Docs) -> int:
    """The smallest swept M whose fused bytes (x, mask, out) exceed the GPU's L2 cache."""
    return past_l2_row(docs, "triton")["m"]


def past_l2_fraction_of_copy(docs: Docs) -> float:
    """Triton's bandwidth over the copy bandwidth at the smallest swept size past the L2."""
    return bandwidth(past_l2_row(docs, "triton")) / copy(docs)


def past_l2_compile_fraction_of_copy(docs: Docs) -> float:
    """torch.compile's bandwidth over the copy bandwidth at the smallest size past the L2."""
    return bandwidth(past_l2_row(docs, "compile")) / copy(docs)


def first_m_at_90(docs: Docs) -> str:
    """The smallest swept M at which Triton reaches 90% of the copy bandwidth."""
    hits = [r["m"] for r in of(docs, "triton") if bandwidth(r) >= 0.9 * copy(docs)]
    return f"{hits[0]:,}" if hits else "none of the sizes"


def tanh_vs_exact(docs: Docs) -> float:
    """Triton's time with the tanh GELU over its time with the exact (erf) GELU, bf16, mask."""
    return median(docs, "triton", "tanh") / median(docs, "triton")


def compile_tanh_vs_exact(docs: Docs) -> float:
    """torch.compile's time with the tanh GELU over its time with the exact GELU, bf16, mask."""
    return median(docs, "compile", "tanh") / median(docs, "compile")


def kernels_eager(docs: Docs) -> int | str:
    """CUDA kernels one eager call launches (torch.profiler), largest bf16 size."""
    return kernels(largest(docs, "eager"))


def kernels_compile(docs: Docs) -> int | str:
    """CUDA kernels one torch.compile call launches (torch.profiler), largest bf16 size."""
    return kernels(largest(docs, "compile"))


def kernels_triton(docs: Docs) -> int | str:
    """CUDA kernels one call of the Triton wrapper launches (torch.profiler)."""
    return kernels(largest(docs, "triton"))


def triton_regs(docs: Docs) -> int:
    """Registers per thread of the compiled Triton kernel (bf16, exact GELU, mask)."""
    return largest(docs, "triton")["n_regs"]


def triton_regs_tanh(docs: Docs) -> int:
    """Registers per thread of the compiled Triton kernel with the tanh GELU (bf16, mask)."""
    return largest(docs, "triton", "tanh")["n_regs"]


def triton_spills(docs: Docs) -> int:
    """Register spills of the compiled Triton kernel (bf16, exact GELU, mask)."""
    return largest(docs, "triton")["n_spills"]


def max_spills(docs: Docs) -> int:
    """The most register spills of any compiled Triton variant at the largest size."""
    return max(largest(docs, "triton", case)["n_spills"] for case in CASES)


def load_bits(op: str) -> int:
    """Bits one PTX load moves per thread: 'ld.global.v4.b32' -> 4 * 32 = 128."""
    vector = re.search(r"\.v(\d+)\b", op)
    width = re.search(r"\.[bfsu](\d+)\b", op)
    return (int(vector.group(1)) if vector else 1) * (int(width.group(1)) if width else 0)


def widest_load(docs: Docs) -> str:
    """The widest global load in the compiled Triton kernel's PTX (bf16, exact GELU, mask)."""
    return f"{max(load_bits(op) for op in largest(docs, 'triton')['ptx_loads'])}-bit"


# ---- values per case at the largest size (bf16, tanh, nomask, fp16, fp32) ---------------


def fraction_of_copy(docs: Docs, case: str) -> float:
    """Triton's bandwidth over the measured copy bandwidth"""
    return bandwidth(largest(docs, "triton", case)) / copy(docs)


def vs_eager(docs: Docs, case: str) -> float:
    """Eager PyTorch's time over Triton's (the speed-up)"""
    return median(docs, "eager", case) / median(docs, "triton", case)


def vs_compile(docs: Docs, case: str) -> float:
    """torch.compile's time over Triton's (above 1: Triton is faster)"""
    return median(docs, "compile", case) / median(docs, "triton", case)


def eager_fraction_of_copy(docs: Docs, case: str) -> float:
    """Eager's counted bytes over its time, as a fraction of the copy bandwidth"""
    r = largest(docs, "eager", case)
    return row_bytes(r, eager=True) / r["time_s"]["p50"] / copy(docs)


def per_case(metric, case: str):
    """``metric`` for one case, as a named function with its own docstring."""

    def value(docs: Docs) -> float:
        return metric(docs, case)

    value.__name__ = f"{metric.__name__}_{case}"
    value.__doc__ = f"{metric.__doc__} at the largest size, {CASES[case][1]}."
    return value


def worst(metric):
    """The lowest value of ``metric`` over every case at the largest size."""

    def value(docs: Docs) -> float:
        return min(metric(docs, case) for case in CASES)

    value.__name__ = f"min_{metric.__name__}"
    value.__doc__ = f"The lowest over all five cases of: {metric.__doc__}, at the largest size."
    return value


VALUES = {
    "fused_activation.n": Value(n_cols, count),
    "fused_activation.largest_m": Value(largest_m, count),
    "fused_activation.smallest_m": Value(smallest_m, count),
    "fused_activation.fused_mb": Value(fused_mb),
    "fused_activation.eager_mb": Value(eager_mb),
    "fused_activation.byte_ratio": Value(byte_ratio, ratio),
    "fused_activation.triton": Value(triton_bw, tbps),
    "fused_activation.compile": Value(compile_bw, tbps),
    "fused_activation.eager": Value(eager_bw, tbps),
    "fused_activation.triton_ms": Value(triton_time, millis(3)),
    "fused_activation.compile_ms": Value(compile_time, millis(3)),
    "fused_activation.eager_ms": Value(eager_time, millis(3)),
    "fused_activation.fused_floor_ms": Value(fused_floor, millis(3)),
    "fused_activation.eager_floor_ms": Value(eager_floor, millis(3)),
    "fused_activation.eager_counted_fraction": Value(eager_counted_fraction, percent),
    "fused_activation.smallest_vs_eager": Value(smallest_vs_eager, ratio),
    "fused_activation.smallest_fastest": Value(smallest_fastest, plain),
    "fused_activation.smallest_compile_clocks": Value(
        smallest_compile_clocks, or_not_measured(plain)
    ),
    "fused_activation.smallest_host_fastest": Value(smallest_host_fastest, or_not_measured(plain)),
    **{
        f"fused_activation.smallest_{impl}_host_us": Value(
            smallest_host(impl), or_not_measured(micros(0))
        )
        for impl in ("triton", "compile", "eager")
    },
    "fused_activation.smallest_triton_us": Value(smallest_triton_time, micros(0)),
    "fused_activation.smallest_eager_us": Value(smallest_eager_time, micros(0)),
    "fused_activation.smallest_compile_us": Value(smallest_compile_time, micros(0)),
    "fused_activation.smallest_floor_us": Value(smallest_floor, micros(1)),
    "fused_activation.past_l2_m": Value(past_l2_m, count),
    "fused_activation.past_l2_fraction_of_copy": Value(past_l2_fraction_of_copy, percent),
    "fused_activation.past_l2_compile_fraction_of_copy": Value(
        past_l2_compile_fraction_of_copy, percent
    ),
    "fused_activation.first_m_at_90": Value(first_m_at_90),
    "fused_activation.tanh_vs_exact": Value(tanh_vs_exact, ratio),
    "fused_activation.compile_tanh_vs_exact": Value(compile_tanh_vs_exact, ratio),
    "fused_activation.kernels_eager": Value(kernels_eager, plain),
    "fused_activation.kernels_compile": Value(kernels_compile, plain),
    "fused_activation.kernels_triton": Value(kernels_triton, plain),
    "fused_activation.triton_regs": Value(triton_regs, plain),
    "fused_activation.triton_regs_tanh": Value(triton_regs_tanh, plain),
    "fused_activation.triton_spills": Value(triton_spills, plain),
    "fused_activation.max_spills": Value(max_spills, plain),
    "fused_activation.widest_load": Value(widest_load),
    "fused_activation.min_fraction_of_copy": Value(worst(fraction_of_copy), percent),
    "fused_activation.min_vs_eager": Value(worst(vs_eager), ratio),
    "fused_activation.min_vs_compile": Value(worst(vs_compile), ratio),
    **{
        f"fused_activation.{metric.__name__}_{case}": Value(per_case(metric, case), fmt)
        for metric, fmt in (
            (fraction_of_copy, percent),
            (vs_eager, ratio),
            (vs_compile, ratio),
            (eager_fraction_of_copy, percent),
        )
        for case in CASES
    },
}


# ---- figures ----------------------------------------------------------------------------


def rows_axis(ms: list[int], n: int) -> dict:
    """The log x axis over the swept rows. On a phone the labels must tilt; tilted
    counter-clockwise (-30°), the last one (at the right edge) stays inside the figure,
    where Plotly's default clockwise tilt would push it out and hide it."""
    return axis(
        f"rows M (x is M × {n:,}, bf16)",
        log=True,
        tickvals=ms,
        tickformat=",",
        autotickangles=[0, -30, -90],
    )


def fig_bandwidth(docs: Docs) -> dict:
    traces = []
    for impl, name in measured(docs):
        rs = of(docs, impl)
        traces.append(
            line(
                [r["m"] for r in rs],
                [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                name,
                ROLE[impl],
                hover="M = %{x:,}<br>%{y:.2f} TB/s",
            )
        )
    ms = [r["m"] for r in of(docs, "triton")]
    bw = copy(docs) / 1e12
    traces.append(hline(bw, min(ms), max(ms), f"copy ceiling ({bw:.2f} TB/s)"))
    n = n_cols(docs)
    return {
        "data": traces,
        "layout": {
            "xaxis": rows_axis(ms, n),
            "yaxis": axis("achieved bandwidth (TB/s, fused bytes)", rangemode="tozero"),
        },
    }


def fig_time(docs: Docs) -> dict:
    traces = []
    for impl, name in measured(docs):
        rs = of(docs, impl)
        traces.append(
            line(
                [r["m"] for r in rs],
                [duration(r["time_s"], 1e-6) for r in rs],
                name,
                ROLE[impl],
                hover="M = %{x:,}<br>%{y:.1f} µs",
            )
        )
    rs = of(docs, "triton")
    ms = [r["m"] for r in rs]
    bw = copy(docs)
    for eager, name, role in (
        (True, "eager's counted bytes ÷ copy bandwidth", "ceiling-2"),
        (False, "fused bytes ÷ copy bandwidth", "ceiling"),
    ):
        traces.append(
            line(
                ms,
                [row_bytes(r, eager) / bw * 1e6 for r in rs],
                name,
                role,
                dash="dash",
                mode="lines",
                hover="M = %{x:,}<br>%{y:.1f} µs",
            )
        )
    return {
        "data": traces,
        "layout": {
            "xaxis": rows_axis(ms, n_cols(docs)),
            "yaxis": axis("time per call (µs)", log=True),
        },
    }


def fig_bytes(docs: Docs) -> dict:
    traces = []
    labels = {True: "with mask", False: "without mask"}
    for eager, impl, name in ((True, "eager", "eager chain"), (False, "triton", "fused kernel")):
        ys, xs, texts = [], [], []
        for case in ("bf16", "nomask"):
            r = largest(docs, impl, case)
            gb = row_bytes(r, eager) / 1e9
            ys.append(labels[r["mask"]])
            xs.append(gb)
            k = kernels(r)
            texts.append(f"{gb:.2f} GB<br>{k} kernel{'' if k == 1 else 's'}")
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": ys,
                "x": xs,
                "text": texts,
                "textposition": "auto",
                "textangle": 0,
                "meta": {"role": "bars", "roles": [ROLE[impl]] * len(xs)},
                "hovertemplate": "%{x:.3f} GB per call<extra>%{fullData.name}</extra>",
            }
        )
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "xaxis": axis("HBM GB per call (counted)", rangemode="tozero"),
            "yaxis": {"automargin": True, "autorange": "reversed"},
        },
    }


def fig_variants(docs: Docs) -> dict:
    traces, top = [], copy(docs) / 1e12
    labels = [label.replace(", ", "<br>", 1) for _, label in CASES.values()]
    for impl, name in measured(docs):
        rs = [largest(docs, impl, case) for case in CASES]
        points = [rate(r["bytes"], r["time_s"], 1e12) for r in rs]
        top = max([top] + [p[2] for p in points])
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": labels,
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "meta": {"role": "bars", "roles": [ROLE[impl]] * len(points)},
                "hovertemplate": "%{x:.2f} TB/s<extra>%{fullData.name}</extra>",
            }
        )
    bw = copy(docs) / 1e12
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "xaxis": axis("TB/s (dashed: copy)", range=[0, top * 1.08]),
            "yaxis": {"automargin": True, "autorange": "reversed"},
            "shapes": [
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": bw,
                    "x1": bw,
                    "y0": 0,
                    "y1": 1,
                    "line": {"dash": "dash", "width": 1.5, "color": "#9e9e9e"},
                }
            ],
        },
    }


FIGURES = {
    "fused-activation-bandwidth": Figure(
        "Bias + GELU + mask: achieved bandwidth against size",
        (BENCH,),
        fig_bandwidth,
        "Achieved bandwidth (fused byte count over time) of the Triton kernel, torch.compile "
        "and eager PyTorch against the number of rows, bf16, with the measured copy ceiling; "
        "error bars span the 20th to 80th percentile.",
    ),
    "fused-activation-time": Figure(
        "Bias + GELU + mask: time per call against size",
        (BENCH,),
        fig_time,
        "Log-log plot of time per call for Triton, torch.compile and eager PyTorch against "
        "the number of rows, with two floors: the fused byte count and the eager chain's "
        "counted bytes, each divided by the measured copy bandwidth.",
    ),
    "fused-activation-bytes": Figure(
        "HBM bytes per call: eager chain against one fused kernel (counted)",
        (BENCH,),
        fig_bytes,
        "Bar chart of HBM bytes per call, counted from the kernels each version runs, at the "
        "largest size (M = 32,768, N = 4,096, bf16), with and without the mask; labels give "
        "the kernels per call measured with torch.profiler.",
    ),
    "fused-activation-variants": Figure(
        "Bias + GELU + mask at the largest size: every variant",
        (BENCH,),
        fig_variants,
        "Grouped bar chart of achieved bandwidth for Triton, torch.compile and eager PyTorch "
        "in five cases (bf16 exact GELU with mask, tanh GELU, no mask, fp16, fp32), with the "
        "copy ceiling as a dashed line; error bars span the 20th to 80th percentile.",
    ),
}


# ---- lesson 01's roofline -----------------------------------------------------------------

GELU_FLOPS = 7  # per element, nominal: x+b, v/sqrt2, erf (as one), 1+, 0.5*v, *, *mask


def roofline_points(rows: list[dict]) -> list[dict]:
    """The Triton kernel at the largest size, exact GELU with a mask, per dtype."""
    largest = max(r["m"] for r in rows)
    return [
        {
            "kernel": f"bias + GELU + mask ({r['dtype']})",
            "flops": GELU_FLOPS * r["m"] * r["n"],
            "bytes": r["bytes"],
            "seconds": r["time_s"]["p50"],
        }
        for r in rows
        if r["impl"] == "triton" and r["m"] == largest and r["approximate"] == "none" and r["mask"]
    ]


ROOFLINE = {BENCH: roofline_points}
