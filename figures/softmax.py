"""Figures and values of the softmax family: lesson 10.

Data: ``softmax`` (forward and backward against row width, the book's kernels and their
peers, fp32 and bf16) and ``softmax_online`` (the online kernel's persistent grid swept on
long fp32 rows, with the whole-row kernel as a control), both written by
scripts/benchmarks/softmax.py.

Bytes: each row's ``bytes`` is the least any softmax must move (forward: read x, write y;
backward: read y and dy, write dx), so every impl's "bandwidth" is that count over its
time; an impl that moves more (the naive decomposition) shows as slower, not as busier.
"""

from __future__ import annotations

import math

from scripts.render import (
    Docs,
    Figure,
    Value,
    axis,
    copy_bw,
    count,
    doc,
    hline,
    line,
    millis,
    percent,
    plain,
    provenance,
    rate,
    ratio,
    rows,
    tbps,
    vline,
)

BENCH, ONLINE = "softmax", "softmax_online"
DTYPES = ("float32", "bfloat16")
DASH = {"float32": None, "bfloat16": "dash"}
IMPLS = (
    ("triton", "Triton (kernels/softmax.py)", "triton"),
    ("torch", "torch.softmax", "torch"),
    ("compile", "torch.compile", "compile"),
    ("liger", "Liger-Kernel", "series-3"),
    ("naive", "five torch ops (max, sub, exp, sum, div)", "series-4"),
)
WHOLE_ROW_MAX = 16384  # the widths the target "rows ≤ 16k columns" covers
LONG = 65536  # the width the long-row target names
TABLE_COLS = 4096  # the width of the peer numbers in the shared notes


# ---- helpers ----------------------------------------------------------------------------


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row (its least byte count over its time), bytes/s."""
    return row["bytes"] / row["time_s"]["p50"]


def series(docs: Docs, impl: str, direction: str, dtype: str) -> list[dict]:
    """One impl's rows in one direction and dtype, by width."""
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype)
    return sorted(found, key=lambda r: r["cols"])


def at(docs: Docs, impl: str, direction: str, dtype: str, cols: int) -> dict:
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype, cols=cols)
    if not found:
        raise KeyError(f"no {impl} {direction} {dtype} row at {cols} columns")
    return found[0]


def copy(docs: Docs) -> float:
    return copy_bw(doc(docs, BENCH))


def widths(docs: Docs) -> list[int]:
    return sorted({r["cols"] for r in rows(docs, BENCH, impl="triton")})


def fraction_of_copy(docs: Docs, direction: str, dtype: str, cols: int) -> float:
    return bandwidth(at(docs, "triton", direction, dtype, cols)) / copy(docs)


def min_copy_fraction(docs: Docs, direction: str) -> float:
    """Lowest Triton bandwidth over copy, over fp32 and bf16, widths up to 16,384."""
    return min(
        fraction_of_copy(docs, direction, dtype, c)
        for dtype in DTYPES
        for c in widths(docs)
        if c <= WHOLE_ROW_MAX
    )


def min_ratio(docs: Docs, direction: str, peer: str) -> float | None:
    """Lowest Triton-over-peer bandwidth ratio over every width and dtype the peer ran at;
    None where the peer has no rows (it did not import, compile or pass its check)."""
    ratios = [
        bandwidth(at(docs, "triton", direction, r["dtype"], r["cols"])) / bandwidth(r)
        for r in rows(docs, BENCH, impl=peer, direction=direction)
    ]
    return min(ratios) if ratios else None


def peer_bw(docs: Docs, impl: str, cols: int) -> float | None:
    """An impl's fp32 forward bandwidth at ``cols``, or None where it did not run."""
    found = rows(docs, BENCH, impl=impl, direction="forward", dtype="float32", cols=cols)
    return bandwidth(found[0]) if found else None


def or_not_measured(fmt):
    """A value format that shows None (a peer that did not run) as words, not 'nan'."""

    def show(v) -> str:
        return "not measured" if v is None else fmt(v)

    return show


def sweep(docs: Docs, kernel: str = "online", cols: int | None = None) -> list[dict]:
    found = rows(docs, ONLINE, kernel=kernel)
    found = [r for r in found if cols in (None, r["cols"])]
    return sorted(found, key=lambda r: (r["cols"], r["programs"]))


def in_flight_bytes(row: dict) -> int:
    """Bytes of the rows the online kernel's programs work on at once: programs x row."""
    return row["programs"] * row["cols"] * 4


# ---- values: targets ----------------------------------------------------------------------


def fwd_copy_min(docs: Docs) -> float:
    """Forward: the lowest fraction of copy bandwidth over fp32 and bf16 at widths ≤ 16,384."""
    return min_copy_fraction(docs, "forward")


def bwd_copy_min(docs: Docs) -> float:
    """Backward: the lowest fraction of copy bandwidth over fp32 and bf16 at widths ≤ 16,384."""
    return min_copy_fraction(docs, "backward")


def fwd_copy_long_fp32(docs: Docs) -> float:
    """Forward, fp32, 65,536 columns (online kernel): fraction of copy bandwidth."""
    return fraction_of_copy(docs, "forward", "float32", LONG)


def fwd_copy_long_bf16(docs: Docs) -> float:
    """Forward, bf16, 65,536 columns (online kernel): fraction of copy bandwidth."""
    return fraction_of_copy(docs, "forward", "bfloat16", LONG)


def bwd_copy_long_min(docs: Docs) -> float:
    """Backward at 65,536 columns (online kernel): the lower fraction of copy, fp32 or bf16."""
    return min(fraction_of_copy(docs, "backward", d, LONG) for d in DTYPES)


def fwd_vs_torch_min(docs: Docs) -> float | None:
    """Forward: Triton over torch.softmax, the lowest ratio over every width and dtype."""
    return min_ratio(docs, "forward", "torch")


def fwd_vs_compile_min(docs: Docs) -> float | None:
    """Forward: Triton over torch.compile, the lowest ratio over every width and dtype."""
    return min_ratio(docs, "forward", "compile")


def fwd_vs_liger_min(docs: Docs) -> float | None:
    """Forward: Triton over Liger-Kernel, the lowest ratio where Liger ran."""
    return min_ratio(docs, "forward", "liger")


def bwd_vs_torch_min(docs: Docs) -> float | None:
    """Backward: Triton over torch's backward, the lowest ratio over every width and dtype."""
    return min_ratio(docs, "backward", "torch")


def bwd_vs_compile_min(docs: Docs) -> float | None:
    """Backward: Triton over torch.compile's backward, the lowest ratio."""
    return min_ratio(docs, "backward", "compile")


def bwd_vs_liger_min(docs: Docs) -> float | None:
    """Backward: Triton over Liger-Kernel's backward, the lowest ratio where Liger ran."""
    return min_ratio(docs, "backward", "liger")


def liger_dtypes(docs: Docs) -> str:
    """The dtypes in which Liger-Kernel's forward ran and passed its check."""
    found = {r["dtype"] for r in rows(docs, BENCH, impl="liger", direction="forward")}
    return " and ".join(d for d in DTYPES if d in found) or "none"


# ---- values: the peer table (fp32 forward) and the worked number at 4,096 columns --------


def triton_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of the Triton kernels at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "triton", 4096)


def triton_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of the Triton kernels at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "triton", 65536)


def torch_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.softmax at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "torch", 4096)


def torch_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.softmax at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "torch", 65536)


def compile_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.compile at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "compile", 4096)


def compile_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of torch.compile at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "compile", 65536)


def liger_4096(docs: Docs) -> float | None:
    """fp32 forward bandwidth of Liger-Kernel at 4,096 columns (None: it did not run)."""
    return peer_bw(docs, "liger", 4096)


def liger_65536(docs: Docs) -> float | None:
    """fp32 forward bandwidth of Liger-Kernel at 65,536 columns (None: it did not run)."""
    return peer_bw(docs, "liger", 65536)


def rows_4096(docs: Docs) -> int:
    """Rows of the fp32 tensor at 4,096 columns (512 MiB)."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["rows"]


def gb_4096(docs: Docs) -> str:
    """Bytes the forward must move at 4,096 fp32 columns (read x, write y), in GB."""
    return f"{at(docs, 'triton', 'forward', 'float32', TABLE_COLS)['bytes'] / 1e9:.2f} GB"


def floor_4096(docs: Docs) -> float:
    """Those bytes over the measured copy bandwidth: the fastest the forward can be, s."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["bytes"] / copy(docs)


def triton_4096_time(docs: Docs) -> float:
    """Median device time of the Triton forward at 4,096 fp32 columns, seconds."""
    return at(docs, "triton", "forward", "float32", TABLE_COLS)["time_s"]["p50"]


def naive_4096_time(docs: Docs) -> float:
    """Median device time of the five-op decomposition at 4,096 fp32 columns, seconds."""
    return at(docs, "naive", "forward", "float32", TABLE_COLS)["time_s"]["p50"]


def naive_over_triton(docs: Docs) -> float:
    """The five-op decomposition's time over the Triton forward's, 4,096 fp32 columns."""
    return naive_4096_time(docs) / triton_4096_time(docs)


def naive_floor_4096(docs: Docs) -> float:
    """Eight full passes (five reads, three writes) over the copy bandwidth, seconds."""
    return 4 * floor_4096(docs)


# ---- values: registers, and the online kernel's sweep -------------------------------------


def _resource(docs: Docs, direction: str, cols: int, field: str):
    v = at(docs, "triton", direction, "float32", cols).get(field)
    return "not reported" if v is None else v


def regs_16384(docs: Docs):
    """Registers per thread of the fp32 forward kernel compiled for 16,384 columns."""
    return _resource(docs, "forward", WHOLE_ROW_MAX, "n_regs")


def spills_16384(docs: Docs):
    """Spilled registers of the fp32 forward kernel compiled for 16,384 columns."""
    return _resource(docs, "forward", WHOLE_ROW_MAX, "n_spills")


def whole_row(docs: Docs, cols: int) -> dict:
    found = sweep(docs, "whole_row", cols)
    if not found:
        raise KeyError(f"no whole-row control at {cols} columns")
    return found[0]


def whole_row_long(docs: Docs) -> float:
    """The whole-row kernel forced onto 65,536 fp32 columns (32 warps): bandwidth."""
    return bandwidth(whole_row(docs, LONG))


def whole_row_long_regs(docs: Docs):
    """Registers per thread of that whole-row kernel."""
    v = whole_row(docs, LONG).get("n_regs")
    return "not reported" if v is None else v


def whole_row_long_spills(docs: Docs):
    """Spilled registers of that whole-row kernel."""
    v = whole_row(docs, LONG).get("n_spills")
    return "not reported" if v is None else v


def online_long_best(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns: best bandwidth over programs per SM."""
    return max(bandwidth(r) for r in sweep(docs, "online", LONG))


def online_long_best_per_sm(docs: Docs) -> int:
    """The programs per SM at which the online kernel is fastest at 65,536 fp32 columns."""
    return max(sweep(docs, "online", LONG), key=bandwidth)["programs_per_sm"]


def online_long_one_per_sm(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns with one program per SM: bandwidth."""
    return bandwidth(next(r for r in sweep(docs, "online", LONG) if r["programs_per_sm"] == 1))


def online_long_four_per_sm(docs: Docs) -> float:
    """The online kernel at 65,536 fp32 columns with four programs per SM: bandwidth."""
    return bandwidth(next(r for r in sweep(docs, "online", LONG) if r["programs_per_sm"] == 4))


def online_over_whole_row(docs: Docs) -> float:
    """At 65,536 fp32 columns: the online kernel's best over the whole-row kernel's."""
    return online_long_best(docs) / whole_row_long(docs)


def in_flight_long_mib(docs: Docs) -> str:
    """Rows in flight with one program per SM at 65,536 fp32 columns, in MiB."""
    return f"{provenance(docs)['sm_count'] * LONG * 4 / 2**20:.0f} MiB"


def l2_mib(docs: Docs) -> str:
    """The L2 size the device reports, MiB."""
    return f"{provenance(docs)['l2_bytes'] / 2**20:.0f} MiB"


VALUES = {
    "softmax.fwd_copy_min": Value(fwd_copy_min, percent),
    "softmax.bwd_copy_min": Value(bwd_copy_min, percent),
    "softmax.fwd_copy_long_fp32": Value(fwd_copy_long_fp32, percent),
    "softmax.fwd_copy_long_bf16": Value(fwd_copy_long_bf16, percent),
    "softmax.bwd_copy_long_min": Value(bwd_copy_long_min, percent),
    "softmax.fwd_vs_torch_min": Value(fwd_vs_torch_min, or_not_measured(ratio)),
    "softmax.fwd_vs_compile_min": Value(fwd_vs_compile_min, or_not_measured(ratio)),
    "softmax.fwd_vs_liger_min": Value(fwd_vs_liger_min, or_not_measured(ratio)),
    "softmax.bwd_vs_torch_min": Value(bwd_vs_torch_min, or_not_measured(ratio)),
    "softmax.bwd_vs_compile_min": Value(bwd_vs_compile_min, or_not_measured(ratio)),
    "softmax.bwd_vs_liger_min": Value(bwd_vs_liger_min, or_not_measured(ratio)),
    "softmax.liger_dtypes": Value(liger_dtypes),
    "softmax.triton_4096": Value(triton_4096, or_not_measured(tbps)),
    "softmax.triton_65536": Value(triton_65536, or_not_measured(tbps)),
    "softmax.torch_4096": Value(torch_4096, or_not_measured(tbps)),
    "softmax.torch_65536": Value(torch_65536, or_not_measured(tbps)),
    "softmax.compile_4096": Value(compile_4096, or_not_measured(tbps)),
    "softmax.compile_65536": Value(compile_65536, or_not_measured(tbps)),
    "softmax.liger_4096": Value(liger_4096, or_not_measured(tbps)),
    "softmax.liger_65536": Value(liger_65536, or_not_measured(tbps)),
    "softmax.rows_4096": Value(rows_4096, count),
    "softmax.gb_4096": Value(gb_4096),
    "softmax.floor_4096_ms": Value(floor_4096, millis(3)),
    "softmax.triton_4096_ms": Value(triton_4096_time, millis(3)),
    "softmax.naive_4096_ms": Value(naive_4096_time, millis(3)),
    "softmax.naive_floor_4096_ms": Value(naive_floor_4096, millis(3)),
    "softmax.naive_over_triton": Value(naive_over_triton, ratio),
    "softmax.regs_16384": Value(regs_16384, plain),
    "softmax.spills_16384": Value(spills_16384, plain),
    "softmax.whole_row_long": Value(whole_row_long, tbps),
    "softmax.whole_row_long_regs": Value(whole_row_long_regs, plain),
    "softmax.whole_row_long_spills": Value(whole_row_long_spills, plain),
    "softmax.online_long_best": Value(online_long_best, tbps),
    "softmax.online_long_best_per_sm": Value(online_long_best_per_sm, plain),
    "softmax.online_long_one_per_sm": Value(online_long_one_per_sm, tbps),
    "softmax.online_long_four_per_sm": Value(online_long_four_per_sm, tbps),
    "softmax.online_over_whole_row": Value(online_over_whole_row, ratio),
    "softmax.in_flight_long_mib": Value(in_flight_long_mib),
    "softmax.l2_mib": Value(l2_mib),
}


# ---- figures ----------------------------------------------------------------------------


def fig_widths(direction: str):
    def build(docs: Docs) -> dict:
        traces = []
        for impl, name, role in IMPLS:
            for dtype in DTYPES:
                rs = series(docs, impl, direction, dtype)
                if not rs:
                    continue  # a peer that did not run here, or naive outside fp32 forward
                traces.append(
                    line(
                        [r["cols"] for r in rs],
                        [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                        f"{name}, {dtype}",
                        role,
                        dash=DASH[dtype],
                        hover="%{x:,} columns<br>%{y:.2f} TB/s",
                    )
                )
        ws = widths(docs)
        bw = copy(docs) / 1e12
        traces.append(hline(bw, min(ws), max(ws), f"copy ceiling ({bw:.2f} TB/s)"))
        return {
            "data": traces,
            "layout": {
                "xaxis": axis(
                    "columns per row (512 MiB tensors)",
                    log=True,
                    tickvals=ws,
                    ticktext=[f"{w:,}" for w in ws],
                ),
                "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
            },
        }

    return build


def fig_online(docs: Docs) -> dict:
    traces = []
    all_rows = sweep(docs, "online")
    for i, cols in enumerate(sorted({r["cols"] for r in all_rows})):
        rs = sweep(docs, "online", cols)
        traces.append(
            line(
                [in_flight_bytes(r) / 2**20 for r in rs],
                [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                f"{cols:,} columns",
                f"series-{i}",
                customdata=[r["programs_per_sm"] for r in rs],
                hover="%{customdata} programs per SM<br>%{x:.0f} MiB in flight<br>%{y:.2f} TB/s",
            )
        )
    xs = [in_flight_bytes(r) / 2**20 for r in all_rows]
    # Powers of two across the range: readable ticks on a log axis.
    ticks = [2**k for k in range(int(math.log2(min(xs))), int(math.log2(max(xs))) + 2)]
    bw = copy_bw(doc(docs, ONLINE)) / 1e12
    traces.append(hline(bw, min(xs), max(xs), f"copy ceiling ({bw:.2f} TB/s)"))
    l2 = provenance(docs).get("l2_bytes") or 0
    if l2:
        traces.append(vline(l2 / 2**20, 0, bw * 1.05, "L2 size"))
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "rows in flight × bytes per row (MiB)",
                log=True,
                tickvals=ticks,
                ticktext=[f"{t:,}" for t in ticks],
            ),
            "yaxis": axis("bandwidth (TB/s)", rangemode="tozero"),
            "annotations": (
                [
                    {
                        "x": math.log10(l2 / 2**20),
                        "y": bw * 0.15,
                        "text": " L2 size",
                        "showarrow": False,
                        "xanchor": "left",
                        "font": {"size": 11},
                    }
                ]
                if l2
                else []
            ),
        },
    }


FIGURES = {
    "softmax-forward": Figure(
        "Softmax forward: bandwidth against row width",
        (BENCH,),
        fig_widths("forward"),
        "Forward softmax bandwidth (bytes of x read and y written over time) against columns "
        "per row, fp32 solid and bf16 dashed, for the Triton kernels, torch.softmax, "
        "torch.compile, Liger-Kernel where it ran and five separate torch ops, with the "
        "measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "softmax-backward": Figure(
        "Softmax backward: bandwidth against row width",
        (BENCH,),
        fig_widths("backward"),
        "Backward softmax bandwidth (bytes of y and dy read and dx written over time) "
        "against columns per row, fp32 solid and bf16 dashed, for the Triton kernels, "
        "torch, torch.compile and Liger-Kernel where it ran, with the copy ceiling.",
    ),
    "softmax-online": Figure(
        "Online softmax: bandwidth against the bytes of rows in flight",
        (ONLINE,),
        fig_online,
        "Bandwidth of the online softmax kernel on long fp32 rows against the bytes of the "
        "rows its persistent programs work on at once (programs × row bytes), one line per "
        "row width, with the L2 size and the copy ceiling marked.",
    ),
}
