"""Figures and values of the vector-add family: lessons 02, 03, 04 and 07.

Data (scripts/bench/benchmarks/vector_add.py): ``vector_add`` (size sweep, Triton and
torch.add), ``vector_add_block_sweep`` (BLOCK x num_warps, with an empty control kernel per
grid and the compiled kernel's registers), ``vector_add_ragged`` (n = 2^28 and 2^28 - 1) and
``vector_add_streams`` (the add against read-only, write-only and copy streams). The worked
example of a figure module: each value is one kind of number whose parameters a page
chooses, e.g. ``{{ value h100 vector_add.bandwidth impl=torch }}``.
"""

import math
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

DTYPES = ("float32", "float16", "bfloat16")
SMALL_N = 65536  # sizes up to this are where launch cost, not bandwidth, sets the time
FLOOR_FACTOR = 1.5  # "within 1.5x of the small-size floor": lesson 07's latency region
CONTROL_WARPS = 4  # the num_warps whose empty-kernel control the block-sweep figure draws
BENCH, SWEEP, RAGGED = "vector_add", "vector_add_block_sweep", "vector_add_ragged"
STREAMS = "vector_add_streams"
Impl = Literal["triton", "torch"]
Dtype = Literal["float32", "float16", "bfloat16"]


def by_size(docs: Docs, impl: str, dtype: str = "float32") -> list[dict]:
    return render.rows_by(docs, BENCH, "n", impl=impl, dtype=dtype)


def largest(docs: Docs, impl: Impl = "triton", dtype: Dtype = "float32") -> dict:
    """The row of ``impl`` at the largest size."""
    return by_size(docs, impl, dtype)[-1]


def small_median(docs: Docs, impl: str, field: str) -> float:
    """Median of ``field``'s p50 over the small sizes, where launch cost dominates."""
    return render.median(r[field]["p50"] for r in by_size(docs, impl) if r["n"] <= SMALL_N)


def sweep(docs: Docs, block: int | None = None, warps: int | None = None) -> list[dict]:
    """Rows of the block sweep, all or those at ``block`` and/or ``warps``."""
    return render.select(docs, SWEEP, block=block, num_warps=warps)


def sweep_row(docs: Docs, block: int, warps: int) -> dict:
    """The sweep's row at (block, warps), with the control and register fields."""
    row = render.one(docs, SWEEP, block=block, num_warps=warps)
    if "empty_time_s" not in row:  # runs before commit 6f84e6e did not measure these
        raise render.RenderError("no control or register data for this device")
    return row


largest_n = render.row_kind(largest, lambda r: r["n"], "The largest size measured (elements).")
moved = render.row_kind(largest, lambda r: r["bytes"], "Bytes one add moves at the largest size.")


def bandwidth_at(docs: Docs, impl: Impl, dtype: Dtype = "float32") -> float:
    """Achieved bandwidth of ``impl`` at the largest size, bytes/s."""
    return render.bandwidth(largest(docs, impl, dtype))


device_time = render.row_kind(largest, render.p50, "Median device seconds at the largest size.")


def of_copy(docs: Docs, impl: Impl = "triton", dtype: Dtype = "float32") -> float:
    """``impl``'s bandwidth at the largest size over the run's measured copy bandwidth."""
    return bandwidth_at(docs, impl, dtype) / render.copy(docs, BENCH)


def reaches_copy(docs: Docs, fraction: float) -> int:
    """Smallest fp32 size at which the Triton add reaches ``fraction`` of copy bandwidth."""
    bw = render.copy(docs, BENCH)
    return min(r["n"] for r in by_size(docs, "triton") if render.bandwidth(r) >= fraction * bw)


def small_time(docs: Docs, clock: Literal["device", "host"]) -> float:
    """The Triton add's device or host seconds per call at small sizes (n <= 65,536)."""
    return small_median(docs, "triton", render.CLOCKS[clock])


def floor(docs: Docs) -> float:
    """Bytes at the largest size over the copy bandwidth: the fastest the add can be, s."""
    return moved(docs) / render.copy(docs, BENCH)


def flat_until(docs: Docs) -> int:
    """Largest n up to which device time stays within 1.5x of the small-size floor."""
    floor_time = small_time(docs, "device")
    flat = 0
    for r in by_size(docs, "triton"):
        if r["time_s"]["p50"] > FLOOR_FACTOR * floor_time:
            break
        flat = r["n"]
    return flat


def sweep_bandwidth(docs: Docs, block: int | None = None, warps: int | None = None) -> float:
    """Best bandwidth of the sweep at ``block`` and ``warps`` (left out: any), bytes/s."""
    return max(render.bandwidth(r) for r in sweep(docs, block, warps))


def sweep_gap(docs: Docs, block: int) -> float:
    """Best bandwidth of the whole sweep over the best at ``block``."""
    return sweep_bandwidth(docs) / sweep_bandwidth(docs, block)


empty_time = render.row_kind(
    sweep_row, lambda r: r["empty_time_s"]["p50"], "Device seconds of the empty control kernel."
)


over_empty = render.row_kind(
    sweep_row,
    lambda r: r["time_s"]["p50"] / r["empty_time_s"]["p50"],
    "The add's time over the control's.",
)


def regs(docs: Docs, block: int, warps: int, spilled: bool = False) -> int:
    """Registers per thread (or spilled) of the add compiled for (block, warps)."""
    return sweep_row(docs, block, warps)["n_spills" if spilled else "n_regs"]


def resident_per_sm(docs: Docs, block: int, warps: int) -> dict | None:
    """Programs of the add at (block, warps) one SM holds, by each limit and overall."""
    return render.resident_on_sm(docs, sweep_row(docs, block, warps)["n_regs"], warps)


def resident(docs: Docs, block: int, warps: int, per: Literal["sm", "gpu"] = "gpu") -> int | None:
    """Programs of the add at (block, warps) resident at once on one SM or the whole GPU."""
    r = resident_per_sm(docs, block, warps)
    if r is None:
        return None
    return r["resident"] * (render.provenance(docs)["sm_count"] if per == "gpu" else 1)


def sm_limit(docs: Docs, of: Literal["threads", "blocks", "registers"]) -> int | None:
    """What one SM of this device can hold at once: threads, programs or registers."""
    return render.field(render.sm_limits(docs), of)


def program_rate(
    docs: Docs, block: int, warps: int, clock: Literal["add", "empty"] = "add"
) -> float:
    """Programs finished per second: n / block over the add's (or the control's) time."""
    r = sweep_row(docs, block, warps)
    field = {"add": "time_s", "empty": "empty_time_s"}[clock]
    return (r["n"] // block) / r[field]["p50"]


def lifetime(docs: Docs, block: int, warps: int) -> float | None:
    """Little's law: resident programs over programs per second, seconds a program stays."""
    slots = resident(docs, block, warps)
    return None if slots is None else slots / program_rate(docs, block, warps)


# The add's bytes per element (x and y read, out written, fp32) and per program's loads.
ADD_BYTES = 3 * 4
LOAD_BYTES = 2 * 4
# The sweep point whose programs only wait for memory: the fewest programs in flight (16
# warps each) and the smallest tile, so its Little's-law lifetime is memory's round trip.
ROUND_TRIP_AT = {"block": 4, "warps": 16}


def break_even_block(docs: Docs) -> float:
    """The BLOCK at which starting the programs takes as long as moving the bytes."""
    rate = program_rate(docs, 4, 4, clock="empty")
    return render.copy(docs, SWEEP) / (ADD_BYTES * rate)


def in_flight(docs: Docs, block: int, warps: int, per: Literal["sm", "gpu"] = "sm") -> float | None:
    """Bytes of loads the resident programs have in flight, per SM or on the GPU."""
    r = resident(docs, block, warps, per)
    return None if r is None else r * LOAD_BYTES * block


def in_flight_needed(docs: Docs, per: Literal["sm", "gpu"] = "sm") -> float | None:
    """Bytes in flight needed for copy bandwidth at memory's round trip, per SM or GPU."""
    trip = lifetime(docs, **ROUND_TRIP_AT)
    if trip is None:
        return None
    need = render.copy(docs, SWEEP) * trip
    return need / render.provenance(docs)["sm_count"] if per == "sm" else need


def kib(v: float) -> str:
    """Bytes in KiB (whole), or MiB with one decimal from 1 MiB up."""
    return f"{v / 2**20:.1f} MiB" if v >= 2**20 else f"{v / 2**10:,.0f} KiB"


def per_ns(v: float) -> str:
    """A rate per second shown per nanosecond, two decimals: '0.89 per ns'."""
    return f"{v * 1e-9:.2f} per ns"


def nanos(v: float) -> str:
    """Seconds shown in whole ns."""
    return f"{v * 1e9:,.0f} ns"


Stream = Literal["add", "copy", "read", "fill"]


def stream_row(docs: Docs, stream: Stream, impl: Impl = "triton") -> dict | None:
    """The row of ``stream``, None where not run."""
    return render.maybe_one(docs, STREAMS, absent_ok=True, stream=stream, impl=impl)


stream_bandwidth = render.row_kind(stream_row, render.bandwidth, "Bytes per second of ``stream``.")


def stream_of_copy(docs: Docs, stream: Stream, impl: Impl = "triton") -> float | None:
    """``stream``'s bytes per second over the copy's, both from the same run."""
    copy = stream_bandwidth(docs, "copy", "torch")
    return render.quotient(stream_bandwidth(docs, stream, impl), copy)


def ragged_slowdown(docs: Docs) -> float:
    """Device time with n = 2^28 - 1 over n = 2^28 (scalar loads against 16-byte ones)."""
    ragged, aligned = (render.one(docs, RAGGED, divisible_by_16=d) for d in (False, True))
    return render.speedup(aligned["time_s"], ragged["time_s"])[0]


compare = render.pair_kind(
    largest, "impl", render.tie(BENCH), "``of`` against ``to``, in words.", ("triton", "torch")
)


def copy_compare(docs: Docs, dtype: Dtype = "float32") -> str:
    """The Triton add's bytes per second at the largest size against the copy's, in words."""
    ours, copy = largest(docs, "triton", dtype), render.doc(docs, BENCH)["ceilings"]["copy"]
    return render.tie_words(docs, BENCH, render.per_byte(ours), render.per_byte(copy))


def stream_compare(docs: Docs, stream: Stream, impl: Impl = "triton") -> str | None:
    """Bytes per second of ``stream`` against the copy's, in words; None where not run."""
    rows = (stream_row(docs, stream, impl), stream_row(docs, "copy", "torch"))
    this, base = (None if r is None else render.per_byte(r) for r in rows)
    return render.tie_words(docs, STREAMS, this, base)


Limit = Literal["threads", "blocks", "registers"]


def resident_by(docs: Docs, block: int, warps: int, limit: Limit) -> int | None:
    """Programs of the add at (block, warps) one SM could hold if only ``limit`` counted."""
    return render.field(resident_per_sm(docs, block, warps), limit)


def occupancy(docs: Docs, block: int, warps: int) -> float | None:
    """Resident warps of the add at (block, warps) over the most an SM can hold."""
    r = resident_per_sm(docs, block, warps)
    return None if r is None else r["resident"] * warps / (render.sm_limits(docs)["threads"] // 32)


warp_registers = render.row_kind(
    sweep_row,
    lambda r: render.warp_share(r["n_regs"]),
    "Registers one warp is given (units of 256).",
)


VALUES = {
    "vector_add.largest_n": Value(largest_n, render.count),
    "vector_add.bytes": Value(moved, render.gb),
    "vector_add.bandwidth": Value(bandwidth_at, render.tbps),
    "vector_add.time": Value(device_time, render.millis(3)),
    "vector_add.of_copy": Value(of_copy, render.percent),
    "vector_add.reaches_copy": Value(reaches_copy, render.count),
    "vector_add.small_time": Value(small_time, render.micros(1)),
    "vector_add.floor": Value(floor, render.millis(2)),
    "vector_add.flat_until": Value(flat_until, render.count),
    "vector_add.sweep_bandwidth": Value(sweep_bandwidth, render.tbps),
    "vector_add.sweep_gap": Value(sweep_gap, render.ratio),
    "vector_add.empty_time": Value(empty_time, render.millis(1)),
    "vector_add.over_empty": Value(over_empty, render.ratio),
    "vector_add.regs": Value(regs, render.plain),
    "vector_add.ragged_slowdown": Value(ragged_slowdown, render.ratio),
    "vector_add.resident": Value(resident, render.count, missing="unknown for this GPU"),
    "vector_add.program_rate": Value(program_rate, per_ns),
    "vector_add.lifetime": Value(lifetime, nanos, missing="unknown for this GPU"),
    "vector_add.stream_of_copy": Value(stream_of_copy, render.percent, missing="not measured"),
    "vector_add.sm_limit": Value(sm_limit, render.count, missing="unknown for this GPU"),
    "vector_add.break_even_block": Value(break_even_block, render.whole),
    "vector_add.in_flight": Value(in_flight, kib, missing="unknown for this GPU"),
    "vector_add.in_flight_needed": Value(in_flight_needed, kib, missing="unknown for this GPU"),
    "vector_add.resident_by": Value(resident_by, render.count, missing="unknown for this GPU"),
    "vector_add.warp_registers": Value(warp_registers, render.count),
    "vector_add.occupancy": Value(occupancy, render.percent, missing="unknown for this GPU"),
    "vector_add.compare": Value(compare),
    "vector_add.copy_compare": Value(copy_compare),
    "vector_add.stream_compare": Value(stream_compare, missing="not measured"),
}


def fig_bandwidth(docs: Docs) -> dict:
    """Achieved bandwidth of the Triton vector add and torch.add against element count, with the
    measured copy ceiling; error bars span the 20th to 80th percentile."""
    bw = render.copy(docs, BENCH) / 1e12
    impls = (
        ("triton", "Triton (kernels/vector_add.py)", "triton"),
        ("torch", "torch.add", "torch"),
    )
    hover = "n = %{x:,}<br>%{y:.2f} TB/s"
    traces = render.impl_lines(docs, BENCH, "n", impls, render.tbps_points, hover, dtype="float32")
    ns = [r["n"] for r in by_size(docs, "triton")]
    traces.append(render.copy_ceiling(docs, BENCH, ns))
    l2 = render.provenance(docs).get("l2_bytes") or 0
    annotations = []
    if l2:
        n_l2 = l2 / 12  # elements at which x, y and out together fill the L2
        traces.append(render.vline(n_l2, 0, bw * 1.05, "x, y, out fill the L2"))
        # above the ramp, left of the marker: clear of the curves
        label = render.note(math.log10(n_l2), bw * 0.9, "x + y + out = L2 size ", font={"size": 11})
        annotations.append({**label, "xanchor": "right", "yanchor": "middle"})
    xaxis = render.axis("elements n (fp32; bytes moved = 12·n)", log=True, exponentformat="power")
    yaxis = render.axis("achieved bandwidth (TB/s)", rangemode="tozero")
    return render.plot(traces, xaxis=xaxis, yaxis=yaxis, annotations=annotations)


def fig_block_sweep(docs: Docs) -> dict:
    """Achieved bandwidth of vector add for BLOCK from 4 to 16384, one line per num_warps, with the
    measured copy ceiling."""
    rs = sweep(docs)
    traces = []
    for i, w in enumerate(sorted({r["num_warps"] for r in rs})):
        mine = render.rows_by(docs, SWEEP, "block", num_warps=w)
        name, hover = f"num_warps = {w}", "BLOCK = %{x}<br>%{y:.2f} TB/s"
        traces.append(render.tbps_line(mine, "block", name, f"series-{i}", hover=hover))
    blocks = [r["block"] for r in rs]
    bw = render.copy(docs, SWEEP) / 1e12
    traces.append(render.copy_ceiling(docs, SWEEP, blocks))
    control = render.rows_by(docs, SWEEP, "block", num_warps=CONTROL_WARPS)
    control = [r for r in control if "empty_time_s" in r]
    if control:
        # The bandwidth the add would show if it took only as long as starting its programs.
        name = f"empty kernel, same grid (num_warps = {CONTROL_WARPS})"
        hover = "BLOCK = %{x}<br>12·n bytes ÷ empty-kernel time = %{y:.2f} TB/s"
        dotted = {"time": "empty_time_s", "dash": "dot", "hover": hover}
        traces.append(render.tbps_line(control, "block", name, "marker", **dotted))
    top = max(bw, max(r["bytes"] / r["time_s"]["p20"] for r in rs) / 1e12) * 1.1
    ticks = {"dtick": math.log10(2) * 2, "tickformat": "d"}  # a tick every factor of 4
    xaxis = render.axis("BLOCK (elements per program)", log=True, **ticks)
    # Fixed: the control line leaves the top of the plot once launches stop mattering.
    yaxis = render.axis("achieved bandwidth (TB/s)", range=[0, top])
    return render.plot(traces, xaxis=xaxis, yaxis=yaxis)


FIGURES = {
    "vector-add-bandwidth": Figure(
        "Vector add: achieved bandwidth against size", ("vector_add",), fig_bandwidth
    ),
    "vector-add-block-sweep": Figure(
        "Vector add bandwidth against BLOCK and num_warps",
        ("vector_add_block_sweep",),
        fig_block_sweep,
    ),
}


# One point per dtype: the Triton kernel at the largest size (1 FLOP per element).
ROOFLINE = {
    BENCH: render.roofline_rows(
        "vector add ({dtype})", largest="n", flops=lambda r: r["n"], impl="triton"
    )
}
