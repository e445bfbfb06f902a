"""Figures and values of the RMSNorm family: lesson 11.

Data: ``rmsnorm`` (forward and backward against hidden size H, M x H fixed, the book's
kernels and their peers, bf16 at five widths and fp32 at 4096) and ``rmsnorm_small_m``
(the control at M = 16384: through autograd vs the kernels alone), written by
scripts/bench/benchmarks/rmsnorm.py.

Bytes: each row's ``bytes`` is what the operation must move at least (forward: read x and
weight, write y; backward: read x, dy and weight, write dx and dweight), so every impl's
"bandwidth" is that count over its own time; an impl that moves more shows as slower.
Training (forward + backward) adds the two byte counts and the two times.
"""

from __future__ import annotations

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    copy_bw,
    count,
    doc,
    hline,
    line,
    micros,
    named,
    or_not_measured,
    percent,
    plain,
    provenance,
    rate,
    ratio,
    rows,
    tbps,
    whole,
)

BENCH = "rmsnorm"
PEER_TBPS, PEER_RATIO = or_not_measured(tbps), or_not_measured(ratio)  # a peer may not run
IMPLS = (  # key, legend label, colour role
    ("triton", "Triton (kernels/rmsnorm.py)", "triton"),
    ("eager", "eager formula (torch ops)", "torch"),
    ("compile", "torch.compile", "compile"),
    ("rms_norm", "F.rms_norm", "series-4"),
    ("liger", "Liger-Kernel", "series-3"),
)
LABEL = {key: label for key, label, _ in IMPLS}
PEERS = ("compile", "rms_norm", "liger")  # the ones the target says to match or beat
WIDTHS = (1024, 2048, 4096, 8192, 16384)  # the bf16 widths the benchmark measures
# The widths the targets apply to: all of them, as one bf16 tensor of M x H is larger than
# the L2 at every width (512 MiB).
TARGET_WIDTHS = WIDTHS
SMALL = "rmsnorm_small_m"


def megabytes(v: float) -> str:
    """Bytes as decimal megabytes, as the page's worked numbers count them."""
    return f"{v / 1e6:,.0f} MB"


SHORT = {"forward": "fwd", "backward": "bwd"}


# ---- helpers ----------------------------------------------------------------------------


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row (its least byte count over its time), bytes/s."""
    return row["bytes"] / row["time_s"]["p50"]


def series(docs: Docs, impl: str, direction: str, dtype: str = "bfloat16") -> list[dict]:
    """One impl's rows in one direction and dtype, by hidden size."""
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype)
    return sorted(found, key=lambda r: r["hidden"])


def at(docs: Docs, impl: str, direction: str, hidden: int, dtype: str = "bfloat16") -> dict:
    found = rows(docs, BENCH, impl=impl, direction=direction, dtype=dtype, hidden=hidden)
    if not found:
        raise KeyError(f"no {impl} {direction} {dtype} row at H={hidden}")
    return found[0]


def measured(docs: Docs, impl: str, direction: str, hidden: int) -> bool:
    return bool(rows(docs, BENCH, impl=impl, direction=direction, hidden=hidden))


def copy(docs: Docs) -> float:
    return copy_bw(doc(docs, BENCH))


def training(fwd: dict, bwd: dict) -> tuple[int, dict]:
    """Bytes and time of one forward plus one backward. The spread adds percentiles, a
    rough band (the percentile of a sum is not the sum of percentiles)."""
    spread = {p: fwd["time_s"][p] + bwd["time_s"][p] for p in ("p20", "p50", "p80")}
    return fwd["bytes"] + bwd["bytes"], spread


# ---- value factories: one named function per (direction, impl, width) --------------------


def bandwidth_at(direction: str, impl: str, hidden: int, dtype: str = "bfloat16"):
    def compute(docs: Docs) -> float | None:
        if not measured(docs, impl, direction, hidden):
            return None
        return bandwidth(at(docs, impl, direction, hidden, dtype))

    doc_ = f"{LABEL[impl]}: {direction} bandwidth, {dtype}, H = {hidden}, M = 16384 rows."
    return named(f"{SHORT[direction]}_{impl}_{hidden}_{dtype}", doc_, compute)


def fraction_of_copy_at(direction: str, hidden: int, dtype: str = "bfloat16"):
    def compute(docs: Docs) -> float:
        return bandwidth(at(docs, "triton", direction, hidden, dtype)) / copy(docs)

    doc_ = f"The book's {direction} bandwidth over the copy ceiling, {dtype}, H = {hidden}."
    return named(f"{SHORT[direction]}_fraction_of_copy_{hidden}_{dtype}", doc_, compute)


def ratio_at(direction: str, peer: str, hidden: int):
    def compute(docs: Docs) -> float | None:
        if not measured(docs, peer, direction, hidden):
            return None
        peer_time = at(docs, peer, direction, hidden)["time_s"]["p50"]
        return peer_time / at(docs, "triton", direction, hidden)["time_s"]["p50"]

    doc_ = f"{LABEL[peer]}'s {direction} time over the book's, bf16, H = {hidden} (>1: faster)."
    return named(f"{SHORT[direction]}_vs_{peer}_{hidden}", doc_, compute)


def training_ratio_at(peer: str, hidden: int):
    def compute(docs: Docs) -> float | None:
        if not (
            measured(docs, peer, "forward", hidden) and measured(docs, peer, "backward", hidden)
        ):
            return None
        _, mine = training(*(at(docs, "triton", d, hidden) for d in ("forward", "backward")))
        _, theirs = training(*(at(docs, peer, d, hidden) for d in ("forward", "backward")))
        return theirs["p50"] / mine["p50"]

    doc_ = f"{LABEL[peer]}'s forward + backward time over the book's, bf16, H = {hidden}."
    return named(f"train_vs_{peer}_{hidden}", doc_, compute)


TARGET_FRACTION = {"forward": 0.90, "backward": 0.80}  # of copy bandwidth (TARGETS.md)


def verdict_at(direction: str, hidden: int):
    def compute(docs: Docs) -> str:
        mine = at(docs, "triton", direction, hidden)
        fraction = bandwidth(mine) / copy(docs)
        target = TARGET_FRACTION[direction]
        behind = []
        for peer in PEERS:
            if measured(docs, peer, direction, hidden):
                theirs = at(docs, peer, direction, hidden)["time_s"]
                if theirs["p50"] < mine["time_s"]["p50"]:
                    ratio_ = theirs["p50"] / mine["time_s"]["p50"]
                    # slower than the peer by more than the spread, or within it
                    clear = mine["time_s"]["p20"] > theirs["p80"]
                    tie = "" if clear else ", within the spread"
                    behind.append(f"{LABEL[peer]} {ratio_:.2f}×{tie}")
        if fraction < target:
            return f"missed ({fraction:.0%} of copy, target {target:.0%})"
        if behind:
            return "bandwidth met; behind " + "; ".join(behind)
        return "met"

    doc_ = (
        f"Verdict against the targets for the book's {direction}, bf16, H = {hidden}: "
        f"'met', or what is missed (the share of copy below {TARGET_FRACTION[direction]:.0%}, "
        "or each peer with a shorter median time, and whether the gap is within the spread)."
    )
    return named(f"{SHORT[direction]}_verdict_{hidden}", doc_, compute)


# ---- single values ------------------------------------------------------------------------


def n_rows(docs: Docs) -> int:
    """Rows M of the measurements at H = 8192."""
    return at(docs, "triton", "forward", 8192)["rows"]


def elements(docs: Docs) -> int:
    """Elements M x H of one tensor: the same at every width."""
    return at(docs, "triton", "forward", 8192)["rows"] * 8192


def tensor_mib(docs: Docs) -> float:
    """MiB of one bf16 tensor of M x H elements (x, y, dy or dx) at any width."""
    return elements(docs) * 2 / 2**20


def tensor_over_l2(docs: Docs) -> float:
    """One bf16 tensor of M x H elements over this GPU's L2 size."""
    return elements(docs) * 2 / provenance(docs)["l2_bytes"]


def small_m(direction: str, field: str, hidden: int):
    def compute(docs: Docs) -> float | None:
        found = rows(docs, SMALL, direction=direction, hidden=hidden)
        if not found:
            raise KeyError(f"no {SMALL} {direction} row at H={hidden}")
        if field not in found[0]:  # the host breakdown: data from before it was recorded
            return None
        return found[0][field]["p50"]

    what = {
        "autograd_time_s": "device time through autograd, as 'rmsnorm' times it",
        "kernels_time_s": "device time of its kernels launched directly",
        "host_s": "host time of one autograd call",
        "host_kernels_s": "host time of the wrapper's launches and allocations, no autograd",
        "host_noop_s": "host time of the same autograd call through a Function that "
        "launches nothing",
    }[field]
    doc_ = f"M = 16384, bf16, H = {hidden}, the book's {direction}: {what}, seconds (median)."
    return named(f"small_m_{SHORT[direction]}_{field}_{hidden}", doc_, compute)


def small_m_rows(docs: Docs) -> int:
    """Rows M of the control."""
    return rows(docs, SMALL)[0]["rows"]


def kernels_alone(direction: str, hidden: int):
    def compute(docs: Docs) -> float | None:
        row = at(docs, "triton", direction, hidden)
        if "kernels_time_s" not in row:  # data from before the control was added
            return None
        return row["bytes"] / row["kernels_time_s"]["p50"]

    doc_ = (
        f"Bandwidth of the book's {direction} kernels launched directly (no autograd), "
        f"bf16, H = {hidden}, bytes/s."
    )
    return named(f"{SHORT[direction]}_kernels_alone_{hidden}", doc_, compute)


def fwd_time_8192(docs: Docs) -> float:
    """The book's forward time, bf16, H = 8192, seconds."""
    return at(docs, "triton", "forward", 8192)["time_s"]["p50"]


def fwd_floor_8192(docs: Docs) -> float:
    """Forward bytes at bf16, H = 8192, over the copy bandwidth: the fastest possible, s."""
    return at(docs, "triton", "forward", 8192)["bytes"] / copy(docs)


def bwd_time(hidden: int, dtype: str = "bfloat16"):
    def compute(docs: Docs) -> float:
        return at(docs, "triton", "backward", hidden, dtype)["time_s"]["p50"]

    doc_ = f"The book's backward time (median), {dtype}, H = {hidden}, seconds."
    return named(f"bwd_time_{hidden}_{dtype}", doc_, compute)


def backward_median(field: str, hidden: int, name: str, doc_: str):
    """A value: the median of one timing field of the book's bf16 backward row at H."""

    def compute(docs: Docs) -> float:
        return at(docs, "triton", "backward", hidden)[field]["p50"]

    return named(name, doc_, compute)


def bwd_kernels_time(hidden: int):
    doc_ = f"The book's backward kernels launched directly (median), bf16, H = {hidden}, s."
    return backward_median("kernels_time_s", hidden, f"bwd_kernels_time_{hidden}", doc_)


def small_m_host_rest(direction: str):
    def compute(docs: Docs) -> float | None:
        found = rows(docs, SMALL, direction=direction, hidden=1024)
        if not found or "host_noop_s" not in found[0]:
            return None
        r = found[0]
        return r["host_s"]["p50"] - r["host_kernels_s"]["p50"] - r["host_noop_s"]["p50"]

    doc_ = (
        f"M = 16384, bf16, H = 1024, the book's {direction}: host time of one autograd call "
        "minus the wrapper's launches and allocations and minus autograd's own cost (a "
        "Function that launches nothing): the rest of the path (argument checks, the "
        "Function's own code), seconds (medians)."
    )
    return named(f"small_m_{SHORT[direction]}_host_rest_1024", doc_, compute)


def bwd_time_range(hidden: int):
    def compute(docs: Docs) -> tuple[float, float]:
        spread = at(docs, "triton", "backward", hidden)["time_s"]
        return spread["p20"], spread["p80"]

    doc_ = f"The book's backward time, 20th and 80th percentile, bf16, H = {hidden}, seconds."
    return named(f"bwd_time_range_{hidden}", doc_, compute)


def bwd_target_time(hidden: int):
    def compute(docs: Docs) -> float:
        return at(docs, "triton", "backward", hidden)["bytes"] / (0.8 * copy(docs))

    doc_ = (
        f"The longest backward time that still meets the target, 80% of copy bandwidth, "
        f"bf16, H = {hidden}, seconds."
    )
    return named(f"bwd_target_time_{hidden}", doc_, compute)


def micros_range(v: tuple[float, float]) -> str:
    """A (low, high) pair of seconds as 'low–high µs'."""
    return f"{v[0] * 1e6:.0f}–{v[1] * 1e6:.0f} µs"


def bwd_floor_8192(docs: Docs) -> float:
    """Backward bytes at bf16, H = 8192, over the copy bandwidth: the fastest possible, s."""
    return at(docs, "triton", "backward", 8192)["bytes"] / copy(docs)


def stage2_time(hidden: int):
    doc_ = f"Device time of the backward's second stage alone (summing partials), H = {hidden}."
    return backward_median("dw_time_s", hidden, f"dw_time_{hidden}", doc_)


def stage2_share(hidden: int):
    def compute(docs: Docs) -> float:
        row = at(docs, "triton", "backward", hidden)
        return row["dw_time_s"]["p50"] / row["time_s"]["p50"]

    doc_ = f"The second stage's share of the whole backward's device time, bf16, H = {hidden}."
    return named(f"dw_share_{hidden}", doc_, compute)


def partial_bytes_8192(docs: Docs) -> float:
    """Bytes of the backward's partial rows at H = 8192 (programs x H x 4), in MB."""
    return at(docs, "triton", "backward", 8192)["programs"] * 8192 * 4 / 1e6


def tensor_bytes(docs: Docs) -> int:
    """Bytes of one bf16 tensor of M x H elements (the same at every width)."""
    return elements(docs) * 2


def fwd_bytes_8192(docs: Docs) -> float:
    """The least bytes the bf16 forward moves at H = 8192 (x and weight in, y out)."""
    return at(docs, "triton", "forward", 8192)["bytes"]


def rstd_bytes_8192(docs: Docs) -> int:
    """Bytes of the rstd the forward saves at H = 8192: 4 per row."""
    return at(docs, "triton", "forward", 8192)["rows"] * 4


def bwd_bytes_8192(docs: Docs) -> float:
    """The least bytes the bf16 backward moves at H = 8192 (x, dy, weight in; dx, dw out)."""
    return at(docs, "triton", "backward", 8192)["bytes"]


def partial_share_8192(docs: Docs) -> float:
    """The partial rows' bytes over the backward's least bytes, bf16, H = 8192."""
    row = at(docs, "triton", "backward", 8192)
    return row["programs"] * 8192 * 4 / row["bytes"]


def bwd_programs(docs: Docs) -> int:
    """Programs of the backward (two per SM, rounded so none is idle): also the number of
    partial rows of dweight."""
    return at(docs, "triton", "backward", 8192)["programs"]


def registers(direction: str, hidden: int):
    def compute(docs: Docs) -> int:
        return at(docs, "triton", direction, hidden)["n_regs"]

    doc_ = f"Registers per thread of the book's compiled {direction} kernel, bf16, H = {hidden}."
    return named(f"{SHORT[direction]}_regs_{hidden}", doc_, compute)


def registers_per_program(direction: str, hidden: int):
    def compute(docs: Docs) -> int:
        row = at(docs, "triton", direction, hidden)
        return row["n_regs"] * 32 * row["num_warps"]

    doc_ = f"Registers one {direction} program takes (per thread x threads), bf16, H = {hidden}."
    return named(f"{SHORT[direction]}_regs_per_program_{hidden}", doc_, compute)


def spills(direction: str, hidden: int):
    def compute(docs: Docs) -> int:
        return at(docs, "triton", direction, hidden)["n_spills"]

    doc_ = f"Spilled values per thread (Triton's n_spills) of the {direction} kernel, H = {hidden}."
    return named(f"{SHORT[direction]}_spills_{hidden}", doc_, compute)


VALUES = {
    "rmsnorm.rows": Value(n_rows, count),
    "rmsnorm.elements": Value(elements, count),
    "rmsnorm.tensor_mib": Value(tensor_mib, lambda v: f"{v:,.0f} MiB"),
    "rmsnorm.tensor_over_l2": Value(tensor_over_l2, whole),
    "rmsnorm.small_m_rows": Value(small_m_rows, count),
    "rmsnorm.fwd_us_8192": Value(fwd_time_8192, micros(0)),
    "rmsnorm.fwd_floor_us_8192": Value(fwd_floor_8192, micros(0)),
    "rmsnorm.bwd_us_8192": Value(bwd_time(8192), micros(0)),
    "rmsnorm.bwd_us_4096": Value(bwd_time(4096), micros(0)),
    "rmsnorm.bwd_us_fp32_4096": Value(bwd_time(4096, "float32"), micros(0)),
    "rmsnorm.bwd_us_range_4096": Value(bwd_time_range(4096), micros_range),
    "rmsnorm.bwd_us_1024": Value(bwd_time(1024), micros(0)),
    "rmsnorm.bwd_kernels_us_1024": Value(bwd_kernels_time(1024), micros(0)),
    "rmsnorm.bwd_kernels_us_4096": Value(bwd_kernels_time(4096), micros(0)),
    "rmsnorm.bwd_us_range_8192": Value(bwd_time_range(8192), micros_range),
    "rmsnorm.bwd_target_us_4096": Value(bwd_target_time(4096), micros(0)),
    "rmsnorm.bwd_floor_us_8192": Value(bwd_floor_8192, micros(0)),
    "rmsnorm.bwd_programs": Value(bwd_programs, plain),
    "rmsnorm.partial_mb_8192": Value(partial_bytes_8192, lambda v: f"{v:.1f} MB"),
    "rmsnorm.partial_share_8192": Value(partial_share_8192, percent),
    "rmsnorm.bwd_bytes_8192": Value(bwd_bytes_8192, megabytes),
    "rmsnorm.fwd_bytes_8192": Value(fwd_bytes_8192, megabytes),
    "rmsnorm.tensor_bytes": Value(tensor_bytes, count),
    "rmsnorm.tensor_mb": Value(tensor_bytes, megabytes),
    "rmsnorm.rstd_kb_8192": Value(rstd_bytes_8192, lambda v: f"{v / 1e3:,.0f} KB"),
}
for _d in ("forward", "backward"):
    _s = SHORT[_d]
    for _h in WIDTHS:
        VALUES[f"rmsnorm.{_s}_fraction_of_copy_{_h}"] = Value(fraction_of_copy_at(_d, _h), percent)
        for _impl, _, _ in IMPLS:
            VALUES[f"rmsnorm.{_s}_{_impl}_{_h}"] = Value(
                bandwidth_at(_d, _impl, _h), or_not_measured(tbps)
            )
    for _h in TARGET_WIDTHS:
        for _peer in PEERS:
            VALUES[f"rmsnorm.{_s}_vs_{_peer}_{_h}"] = Value(
                ratio_at(_d, _peer, _h), or_not_measured(ratio)
            )
    VALUES[f"rmsnorm.{_s}_fraction_of_copy_fp32_4096"] = Value(
        fraction_of_copy_at(_d, 4096, "float32"), percent
    )
    VALUES[f"rmsnorm.{_s}_regs_8192"] = Value(registers(_d, 8192), plain)
    VALUES[f"rmsnorm.{_s}_regs_per_program_8192"] = Value(registers_per_program(_d, 8192), count)
    VALUES[f"rmsnorm.{_s}_spills_16384"] = Value(spills(_d, 16384), plain)
for _d in ("forward", "backward"):
    for _h in WIDTHS:
        VALUES[f"rmsnorm.{SHORT[_d]}_verdict_{_h}"] = Value(verdict_at(_d, _h), plain)
    for _h in (1024, 2048, 4096):
        for _f in ("autograd_time_s", "kernels_time_s", "host_s"):
            VALUES[f"rmsnorm.small_m_{SHORT[_d]}_{_f.removesuffix('_s')}_{_h}"] = Value(
                small_m(_d, _f, _h), micros(0)
            )
    for _f in ("host_kernels_s", "host_noop_s"):  # the host's parts, at the narrowest width
        VALUES[f"rmsnorm.small_m_{SHORT[_d]}_{_f.removesuffix('_s')}_1024"] = Value(
            small_m(_d, _f, 1024), or_not_measured(micros(0))
        )
    VALUES[f"rmsnorm.small_m_{SHORT[_d]}_host_rest_1024"] = Value(
        small_m_host_rest(_d), or_not_measured(micros(0))
    )
    for _h in WIDTHS:
        VALUES[f"rmsnorm.{SHORT[_d]}_kernels_alone_{_h}"] = Value(
            kernels_alone(_d, _h), or_not_measured(tbps)
        )
for _h in WIDTHS:
    VALUES[f"rmsnorm.dw_us_{_h}"] = Value(stage2_time(_h), micros(1))
    VALUES[f"rmsnorm.dw_share_{_h}"] = Value(stage2_share(_h), percent)
for _peer in PEERS:
    VALUES[f"rmsnorm.train_vs_{_peer}_8192"] = Value(
        training_ratio_at(_peer, 8192), or_not_measured(ratio)
    )


# ---- figures ------------------------------------------------------------------------------


def width_axis(widths: list[int]) -> dict:
    return axis(
        "hidden size H (bf16, M × H fixed)",
        log=True,
        ticks=widths,
    )


def fig_direction(direction: str):
    def build(docs: Docs) -> dict:
        traces, widths = [], set()
        for impl, label, role in IMPLS:
            rs = series(docs, impl, direction)
            if not rs:
                continue
            widths |= {r["hidden"] for r in rs}
            traces.append(
                line(
                    [r["hidden"] for r in rs],
                    [rate(r["bytes"], r["time_s"], 1e12) for r in rs],
                    label,
                    role,
                    hover="H = %{x:,}<br>%{y:.2f} TB/s",
                )
            )
        bw = copy(docs) / 1e12
        traces.append(hline(bw, min(widths), max(widths), f"copy ceiling ({bw:.2f} TB/s)"))
        return {
            "data": traces,
            "layout": {
                "xaxis": width_axis(sorted(widths)),
                # short: the title must fit the plot's height on a phone (390 px wide)
                "yaxis": axis(f"{direction} bandwidth (TB/s)", rangemode="tozero"),
            },
        }

    return build


def fig_training(docs: Docs) -> dict:
    traces, widths = [], set()
    for impl, label, role in IMPLS:
        fwd = {r["hidden"]: r for r in series(docs, impl, "forward")}
        bwd = {r["hidden"]: r for r in series(docs, impl, "backward")}
        both = sorted(set(fwd) & set(bwd))
        if not both:
            continue
        widths |= set(both)
        points = [rate(*training(fwd[h], bwd[h]), 1e12) for h in both]
        traces.append(line(both, points, label, role, hover="H = %{x:,}<br>%{y:.2f} TB/s"))
    bw = copy(docs) / 1e12
    traces.append(hline(bw, min(widths), max(widths), f"copy ceiling ({bw:.2f} TB/s)"))
    return {
        "data": traces,
        "layout": {
            "xaxis": width_axis(sorted(widths)),
            "yaxis": axis("forward + backward (TB/s)", rangemode="tozero"),
        },
    }


SWEEP = "rmsnorm_bwd_sweep"


def sweep_best(docs: Docs, hidden: int, **match) -> dict:
    """The fastest sweep row at ``hidden`` among those matching ``match``."""
    found = rows(docs, SWEEP, hidden=hidden, **match)
    if not found:
        raise KeyError(f"no {SWEEP} rows at H={hidden} matching {match}")
    return max(found, key=bandwidth)


def fig_sweep(docs: Docs) -> dict:
    traces, per_sm_all = [], set()
    widths = sorted({r["hidden"] for r in rows(docs, SWEEP)})
    for i, hidden in enumerate(widths):
        per_sm = sorted({r["programs_per_sm"] for r in rows(docs, SWEEP, hidden=hidden)})
        per_sm_all |= set(per_sm)
        best = [sweep_best(docs, hidden, programs_per_sm=k) for k in per_sm]
        traces.append(
            line(
                per_sm,
                [rate(r["bytes"], r["time_s"], 1e12) for r in best],
                f"H = {hidden:,}",
                f"series-{i}",
                hover=f"H = {hidden:,}, %{{x}} per SM<br>%{{y:.2f}} TB/s (best warps and step)",
            )
        )
    bw = copy_bw(doc(docs, SWEEP)) / 1e12
    lo, hi = min(per_sm_all), max(per_sm_all)
    traces.append(hline(bw, lo, hi, f"copy ceiling ({bw:.2f} TB/s)"))
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "backward programs per SM",
                log=True,
                ticks=sorted(per_sm_all),
            ),
            "yaxis": axis("best backward bandwidth (TB/s)", rangemode="tozero"),
        },
    }


def sweep_value(hidden: int, what: str):
    def compute(docs: Docs):
        best = sweep_best(docs, hidden)
        if what == "best":
            return bandwidth(best)
        if what == "shape":
            return (
                f"{best['programs_per_sm']} per SM, {best['num_warps']} warps, "
                f"{best['rows_per_step']} row{'s' if best['rows_per_step'] > 1 else ''} per step"
            )
        one = sweep_best(docs, hidden, programs_per_sm=1)
        return bandwidth(one)

    doc_ = {
        "best": f"Best backward bandwidth in the launch-shape sweep at H = {hidden}, bytes/s.",
        "shape": f"The launch shape of the sweep's fastest backward at H = {hidden}.",
        "one_per_sm": f"Best backward bandwidth with one program per SM at H = {hidden}, bytes/s.",
    }[what]
    return named(f"sweep_{what}_{hidden}", doc_, compute)


def sweep_count(docs: Docs) -> int:
    """How many launch shapes the backward sweep measured, over all widths."""
    return len(rows(docs, SWEEP))


for _h in (1024, 4096, 8192):
    VALUES[f"rmsnorm.sweep_best_{_h}"] = Value(sweep_value(_h, "best"), tbps)
    VALUES[f"rmsnorm.sweep_shape_{_h}"] = Value(sweep_value(_h, "shape"), plain)
    VALUES[f"rmsnorm.sweep_one_per_sm_{_h}"] = Value(sweep_value(_h, "one_per_sm"), tbps)
VALUES["rmsnorm.sweep_count"] = Value(sweep_count, count)


def sweep_wide(prefetch: bool, what: str):
    def compute(docs: Docs):
        found = [r for r in rows(docs, SWEEP, hidden=16384) if r.get("prefetch") is prefetch]
        if not found:
            return None  # a run from before the wide rows were swept
        best = max(found, key=bandwidth)
        if what == "bandwidth":
            return bandwidth(best)
        return (
            f"{best['num_warps']} warps, {best['programs_per_sm']} per SM: "
            f"{best['n_regs']} registers per thread, {best['n_spills']} spilled"
        )

    label = "loading the next row ahead" if prefetch else "without loading ahead"
    doc_ = f"H = 16384, the backward {label}: best {what} in the sweep."
    return named(f"sweep_wide_{'prefetch' if prefetch else 'no_prefetch'}_{what}", doc_, compute)


for _pre, _key in ((True, "prefetch"), (False, "no_prefetch")):
    VALUES[f"rmsnorm.sweep_16384_{_key}"] = Value(
        sweep_wide(_pre, "bandwidth"), or_not_measured(tbps)
    )
    VALUES[f"rmsnorm.sweep_16384_{_key}_shape"] = Value(
        sweep_wide(_pre, "shape"), or_not_measured(plain)
    )

FIGURES = {
    "rmsnorm-forward": Figure(
        "RMSNorm forward: achieved bandwidth against hidden size",
        (BENCH,),
        fig_direction("forward"),
        "Forward bandwidth (read x, write y) of the Triton RMSNorm, the eager formula, "
        "torch.compile, F.rms_norm and Liger-Kernel for hidden sizes 1024 to 16384 in bf16, "
        "with the measured copy ceiling; error bars span the 20th to 80th percentile.",
    ),
    "rmsnorm-backward": Figure(
        "RMSNorm backward: achieved bandwidth against hidden size",
        (BENCH,),
        fig_direction("backward"),
        "Backward bandwidth (read x and dy, write dx) of the same implementations, timed as "
        "the backward step alone, with the measured copy ceiling.",
    ),
    "rmsnorm-backward-sweep": Figure(
        "RMSNorm backward: launch shapes, best bandwidth per programs-per-SM",
        (SWEEP,),
        fig_sweep,
        "For hidden sizes 1024, 4096 and 8192 in bf16, the best bandwidth of the book's "
        "backward kernels (launched directly) over num_warps and rows per step, at 1, 2 and 4 "
        "programs per SM, with the measured copy ceiling.",
    ),
    "rmsnorm-training": Figure(
        "RMSNorm forward + backward: bandwidth against hidden size",
        (BENCH,),
        fig_training,
        "Bytes of one forward and one backward over the sum of their times, per "
        "implementation and hidden size, with the measured copy ceiling.",
    ),
}


# ---- lesson 01's roofline -----------------------------------------------------------------

# FLOPs per element, counted from the kernels: forward 4 (square, add, two products),
# backward 10 (x_hat, g, g * x_hat, its sum, x_hat * c, the difference, * rstd, dy * x_hat
# and its sum into dweight).
FLOPS_PER_ELEMENT = {"forward": 4, "backward": 10}


def roofline_points(rows: list[dict]) -> list[dict]:
    """The book's forward and backward, bf16, H = 8192."""
    return [
        {
            "kernel": f"RMSNorm {r['direction']} (bf16)",
            "flops": FLOPS_PER_ELEMENT[r["direction"]] * r["rows"] * r["hidden"],
            "bytes": r["bytes"],
            "seconds": r["time_s"]["p50"],
        }
        for r in rows
        if r["impl"] == "triton" and r["dtype"] == "bfloat16" and r["hidden"] == 8192
    ]


ROOFLINE = {BENCH: roofline_points}
