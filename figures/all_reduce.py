"""Figures and values of the all-reduce family: lesson 18.

Data (scripts/bench/benchmarks/all_reduce.py): ``all_reduce``, the time of one all-reduce
(sum) of a bf16 tensor across two GPUs at message sizes from 4 KiB to 256 MiB, the book's
one-shot kernel (``impl=triton``) and NCCL (``impl=nccl``), and how the GPUs are linked.
Bus bandwidth follows the NCCL-tests convention: algbw = bytes / time, busbw = algbw ·
2(n − 1)/n for n ranks (with two ranks, busbw = algbw). The crossover, where NCCL starts
to take less time, is found here from the data, never stored.
"""

import math
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "all_reduce"
Impl = Literal["triton", "nccl"]
Algo = Literal["one_shot", "two_shot"]
Link = Literal["topology", "nvlinks", "nvlink_gbps", "gpus"]
IMPLS = (  # key, legend label, colour role
    ("triton", "one-shot Triton kernel (kernels/all_reduce.py)", "triton"),
    ("nccl", "NCCL (torch.distributed.all_reduce)", "series-1"),
)


def by_size(docs: Docs, impl: str) -> list[dict]:
    return render.rows_by(docs, BENCH, "bytes", impl=impl)


def sizes(docs: Docs) -> list[int]:
    return [r["bytes"] for r in by_size(docs, "triton")]


def row(docs: Docs, impl: Impl, nbytes: int) -> dict:
    """The row of ``impl`` at a message of ``nbytes`` bytes."""
    return render.one(docs, BENCH, impl=impl, bytes=nbytes)


def world(docs: Docs) -> int:
    return by_size(docs, "triton")[0]["gpus"]


def busbw_factor(n: int) -> float:
    """NCCL-tests' bus-bandwidth factor for an all-reduce over n ranks: 2(n - 1)/n."""
    return 2 * (n - 1) / n


def time(docs: Docs, impl: Impl, nbytes: int) -> float:
    """Median seconds of one all-reduce of ``nbytes`` by ``impl`` (rank 0's clock)."""
    return row(docs, impl, nbytes)["time_s"]["p50"]


def busbw(docs: Docs, impl: Impl, nbytes: int) -> float:
    """Bus bandwidth of ``impl`` at ``nbytes``, bytes/s (NCCL-tests: bytes / time ·
    2(n - 1)/n)."""
    return nbytes / time(docs, impl, nbytes) * busbw_factor(world(docs))


def best_busbw(docs: Docs, impl: Impl) -> float:
    """The highest bus bandwidth ``impl`` reached over the sizes, bytes/s."""
    return max(busbw(docs, impl, n) for n in sizes(docs))


def ratio(docs: Docs, nbytes: int) -> float:
    """NCCL's median time over the one-shot kernel's at ``nbytes`` (above 1: ours takes
    less time)."""
    return time(docs, "nccl", nbytes) / time(docs, "triton", nbytes)


def compare(docs: Docs, nbytes: int) -> str:
    """The one-shot kernel against NCCL at ``nbytes``, in words by the tie rule."""
    return render.tie_words(docs, BENCH, row(docs, "triton", nbytes), row(docs, "nccl", nbytes))


def crossover(docs: Docs) -> float | None:
    """Message size (bytes) where NCCL's time falls below the one-shot kernel's: where
    log(NCCL time / ours) crosses 0 for the last time going up in size, interpolated
    linearly in log size between the two measured sizes around it. None where NCCL is
    never faster at the largest size, or is faster at every size."""
    ns = sizes(docs)
    logs = [math.log(ratio(docs, n)) for n in ns]
    if logs[-1] >= 0 or logs[0] < 0:
        return None
    i = max(k for k in range(len(ns) - 1) if logs[k] >= 0)  # the last size where ours wins
    a, b = math.log(ns[i]), math.log(ns[i + 1])
    t = logs[i] / (logs[i] - logs[i + 1])
    return math.exp(a + t * (b - a))


def total(docs: Docs, impl: Impl, nbytes: int, calls: int) -> float:
    """Seconds ``calls`` all-reduces of ``nbytes`` take by ``impl``, at its median."""
    return calls * time(docs, impl, nbytes)


def crossover_words(docs: Docs) -> str:
    """Where NCCL's time drops below the one-shot kernel's, as a clause of a sentence."""
    cross, ns = crossover(docs), sizes(docs)
    if cross is not None:
        return f"NCCL's time drops below the one-shot kernel's at about {size_words(cross)}"
    if ratio(docs, ns[-1]) >= 1:
        return f"NCCL's time stays above the one-shot kernel's up to {size_words(ns[-1])}"
    return f"NCCL's time is below the one-shot kernel's from {size_words(ns[0])} on"


def link(docs: Docs, field: Link):
    """How the GPUs were linked: ``nvidia-smi topo -m``'s entry for GPU0-GPU1 (NV18: 18
    NVLinks), the NVLinks up on GPU 0, their speed (GB/s, one direction) or the GPU count."""
    return by_size(docs, "triton")[0][field]


def nvlink_bandwidth(docs: Docs) -> float | None:
    """GPU 0's NVLink bandwidth in one direction, bytes/s: links up times their speed."""
    r = by_size(docs, "triton")[0]
    if not r.get("nvlinks") or not r.get("nvlink_gbps"):
        return None
    return r["nvlinks"] * r["nvlink_gbps"] * 1e9


def moved(docs: Docs, nbytes: int, algo: Algo = "one_shot", ranks: int = 2) -> float:
    """Bytes each rank receives over the links in an all-reduce of ``nbytes`` over
    ``ranks`` GPUs: one-shot reads every peer's whole tensor, (n - 1) · bytes; two-shot
    (reduce-scatter then all-gather, what a ring also moves) 2(n - 1)/n · bytes. Counted."""
    return nbytes * (ranks - 1) * (1 if algo == "one_shot" else 2 / ranks)


def floor(docs: Docs, nbytes: int) -> float | None:
    """The least time the one-shot kernel's reads over NVLink can take at ``nbytes``:
    (n - 1) · bytes over GPU 0's NVLink bandwidth in one direction, seconds."""
    bw = nvlink_bandwidth(docs)
    return None if bw is None else moved(docs, nbytes, "one_shot", world(docs)) / bw


def copy_in(docs: Docs, nbytes: int) -> float:
    """Seconds the kernel's first step, copying ``nbytes`` into the symmetric buffer (read
    and write: 2 · bytes), takes at the run's measured copy bandwidth."""
    return 2 * nbytes / render.copy(docs, BENCH)


def unexplained(docs: Docs, nbytes: int) -> float | None:
    """The one-shot kernel's median time at ``nbytes`` minus the NVLink floor and the
    copy-in step: what the links' and the copy's speeds do not account for, seconds."""
    least = floor(docs, nbytes)
    if least is None:
        return None
    return time(docs, "triton", nbytes) - least - copy_in(docs, nbytes)


FLAT = 1.25  # "flat": within 25% of the time at the smallest size


def flat_until(docs: Docs) -> int:
    """The largest size up to which both implementations' times stay within FLAT of their
    time at the smallest size (bytes): where the size does not set the time."""
    ns = sizes(docs)
    ends = []
    for impl, *_ in IMPLS:
        first = time(docs, impl, ns[0])
        within = [n for n in ns if time(docs, impl, n) <= FLAT * first]
        ends.append(max(n for n in within if all(m in within for m in ns if m <= n)))
    return min(ends)


def gpu(docs: Docs) -> str:
    """The GPUs the all-reduce ran on, as the run names them ("NVIDIA H200")."""
    return render.doc(docs, BENCH)["provenance"]["gpu"]


def of_link(docs: Docs, impl: Impl) -> float | None:
    """``impl``'s best bus bandwidth as a share of the NVLink bandwidth."""
    return render.quotient(best_busbw(docs, impl), nvlink_bandwidth(docs))


def smallest(docs: Docs, impl: Impl) -> float:
    """Median seconds of ``impl`` at the smallest message: its latency."""
    return time(docs, impl, sizes(docs)[0])


def size_words(v: float) -> str:
    """A message size: whole KiB below 1 MiB, else MiB (one decimal below 10)."""
    if v < 2**20:
        return f"{v / 2**10:,.0f} KiB"
    return f"{v / 2**20:.1f} MiB" if v < 10 * 2**20 else f"{v / 2**20:,.0f} MiB"


def gbps(v: float) -> str:
    return f"{v / 1e9:,.0f} GB/s"


VALUES = {
    "all_reduce.time": Value(time, render.micros(1)),
    "all_reduce.best_busbw": Value(best_busbw, gbps),
    "all_reduce.ratio": Value(ratio, render.ratio),
    "all_reduce.compare": Value(compare),
    "all_reduce.crossover_words": Value(crossover_words),
    "all_reduce.total": Value(total, render.micros(0)),
    "all_reduce.link": Value(link, render.plain),
    "all_reduce.nvlink_bandwidth": Value(nvlink_bandwidth, gbps, missing="not reported"),
    "all_reduce.moved": Value(moved, size_words),
    "all_reduce.floor": Value(floor, render.micros(1), missing="not known"),
    "all_reduce.of_link": Value(of_link, render.percent, missing="not known"),
    "all_reduce.smallest": Value(smallest, render.micros(1)),
    "all_reduce.copy_in": Value(copy_in, render.micros(0)),
    "all_reduce.unexplained": Value(unexplained, render.micros(0), missing="not known"),
    "all_reduce.gpu": Value(gpu),
    "all_reduce.flat_until": Value(flat_until, size_words),
}


def fig_time(docs: Docs) -> dict:
    """Time of one bf16 all-reduce across two GPUs against message size, 4 KiB to 256 MiB, log-log,
    for the book's one-shot Triton kernel and NCCL, with a dotted line where NCCL becomes faster;
    error bars span the 20th to 80th percentile."""
    traces = []
    for impl, name, role in reversed(IMPLS):  # the book's kernel drawn last, on top
        rs = by_size(docs, impl)
        traces.append(
            render.line(
                [r["bytes"] for r in rs],
                render.us_points(rs),
                name,
                role,
                hover="%{x:,} bytes<br>%{y:.1f} µs",
            )
        )
    ns = sizes(docs)
    times = [r["time_s"]["p50"] * 1e6 for impl, *_ in IMPLS for r in by_size(docs, impl)]
    low, high = min(times) * 0.8, max(times) * 1.25
    annotations = []
    cross = crossover(docs)
    if cross is not None:
        traces.append(render.vline(cross, low, high, "crossover"))
        text = f" NCCL faster from {size_words(cross)}"
        label = render.note(math.log10(cross), math.log10(high), text, font={"size": 11})
        annotations.append({**label, "xanchor": "right", "yanchor": "top"})
    return render.plot(
        traces,
        xaxis=size_axis(ns),
        yaxis=render.axis(
            "time per all-reduce (µs)", log=True, range=[math.log10(low), math.log10(high)]
        ),
        annotations=annotations,
    )


def size_axis(ns: list[int]) -> dict:
    """The message-size axis both figures share: log scale, a tick at each measured size."""
    return render.axis(
        "message size (bytes, bf16)", log=True, tickvals=ns, ticktext=[size_words(n) for n in ns]
    )


def fig_busbw(docs: Docs) -> dict:
    """Bus bandwidth (NCCL-tests convention) of the book's one-shot kernel and NCCL against message
    size, with the NVLink bandwidth of one direction as a dashed line."""
    traces = []
    n = world(docs)
    for impl, name, role in reversed(IMPLS):
        rs = by_size(docs, impl)
        points = [render.rate(r["bytes"] * busbw_factor(n), r["time_s"], 1e9) for r in rs]
        traces.append(
            render.line(
                [r["bytes"] for r in rs], points, name, role, hover="%{x:,} bytes<br>%{y:.0f} GB/s"
            )
        )
    ns = sizes(docs)
    bw = nvlink_bandwidth(docs)
    if bw is not None:
        traces.append(
            render.hline(bw / 1e9, ns[0], ns[-1], f"NVLink, one direction ({bw / 1e9:.0f} GB/s)")
        )
    return render.plot(
        traces,
        xaxis=size_axis(ns),
        yaxis=render.axis("bus bandwidth (GB/s)", rangemode="tozero"),
    )


FIGURES = {
    "all-reduce-time": Figure(
        "All-reduce across two GPUs: time against message size", (BENCH,), fig_time
    ),
    "all-reduce-busbw": Figure(
        "All-reduce across two GPUs: bus bandwidth against message size", (BENCH,), fig_busbw
    ),
}
