"""Figures and values of the attention family: lesson 12.

Data: ``attention`` (TFLOP/s against N, bf16, d = 64 and 128, causal and not, forward and
backward, the book's kernels against SDPA's backends, FlexAttention and a naive
attention) and ``attention_memory`` (peak memory against N), both written by
scripts/bench/benchmarks/attention.py.

FLOPs: each row's ``flops`` is 4 B H N^2 d for the forward (half with causal) and 2.5
times that for the backward, the same count for every impl: an impl that does more work
(the naive one computes the masked half too) shows as slower, not busier.

The figures show the devices that have run these benchmarks; on a device that has not,
every value renders as "not measured".
"""

from __future__ import annotations

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    doc,
    hline,
    line,
    matmul_rate,
    named,
    or_not_measured,
    rate,
    ratio,
    rows,
    tflops,
)

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
PEERS = ("sdpa_cudnn", "sdpa_flash", "sdpa_efficient", "flex")
HEAD_DIMS = (64, 128)
N_TARGET = 4096  # the length the targets and the shared notes' peer table name
SHORT = {"forward": "fwd", "backward": "bwd"}
MASK = {False: "full", True: "causal"}


# ---- helpers ----------------------------------------------------------------------------


def find(docs: Docs, bench: str, **match) -> list[dict]:
    """Rows of ``bench`` matching ``match``; none on a device that has not run it."""
    return rows(docs, bench, **match) if bench in docs else []


def speed(row: dict) -> float:
    """Median FLOP/s of a row."""
    return row["flops"] / row["time_s"]["p50"]


def series(docs: Docs, impl: str, direction: str, d: int, causal: bool) -> list[dict]:
    found = find(docs, BENCH, impl=impl, direction=direction, head_dim=d, causal=causal)
    return sorted(found, key=lambda r: r["n"])


def at(docs: Docs, impl: str, direction: str, d: int, causal: bool, n: int = N_TARGET):
    """The row, or None where it was not measured (peer skipped, or no data yet)."""
    found = find(docs, BENCH, impl=impl, direction=direction, head_dim=d, causal=causal, n=n)
    return found[0] if found else None


def byte_size(v: float) -> str:
    return f"{v / 2**30:.1f} GiB" if v >= 2**30 else f"{v / 2**20:.0f} MiB"


# ---- value factories ------------------------------------------------------------------------


def tflops_at(impl: str, direction: str, d: int, causal: bool):
    def compute(docs: Docs) -> float | None:
        row = at(docs, impl, direction, d, causal)
        return None if row is None else speed(row)

    doc_ = (
        f"{LABEL[impl]}: {direction} FLOP/s, bf16, d = {d}, {MASK[causal]}, N = {N_TARGET} "
        f"(B * N = 16384, H * d = 4096)."
    )
    return named(f"{SHORT[direction]}_{impl}_d{d}_{MASK[causal]}", doc_, compute)


def ratio_at(peer: str, direction: str, d: int, causal: bool):
    def compute(docs: Docs) -> float | None:
        mine = at(docs, "triton", direction, d, causal)
        theirs = at(docs, peer, direction, d, causal)
        if mine is None or theirs is None:
            return None
        return theirs["time_s"]["p50"] / mine["time_s"]["p50"]

    doc_ = (
        f"{LABEL[peer]}'s {direction} time over the book's, bf16, d = {d}, {MASK[causal]}, "
        f"N = {N_TARGET} (> 1: the book's kernel is faster)."
    )
    return named(f"{SHORT[direction]}_vs_{peer}_d{d}_{MASK[causal]}", doc_, compute)


def memory_at(impl: str, direction: str, n: int):
    def compute(docs: Docs) -> float | None:
        found = find(docs, MEMORY, impl=impl, direction=direction, n=n)
        return found[0]["peak_bytes"] if found else None

    doc_ = f"{LABEL[impl]}: peak working memory of one causal {direction} step, N = {n}, bytes."
    return named(f"memory_{impl}_{direction}_{n}", doc_, compute)


def memory_ratio(direction: str, n: int):
    def compute(docs: Docs) -> float | None:
        naive = find(docs, MEMORY, impl="naive", direction=direction, n=n)
        mine = find(docs, MEMORY, impl="triton", direction=direction, n=n)
        if not naive or not mine:
            return None
        return naive[0]["peak_bytes"] / mine[0]["peak_bytes"]

    doc_ = f"Naive attention's peak working memory over the book's, causal {direction}, N = {n}."
    return named(f"memory_ratio_{direction}_{n}", doc_, compute)


def tiles(d: int):
    def compute(docs: Docs) -> str | None:
        row = at(docs, "triton", "forward", d, False)
        return None if row is None else row.get("tiles")

    return named(f"tiles_d{d}", f"The tiles the book's kernels ran with at d = {d}.", compute)


VALUES: dict[str, Value] = {}
for _d in HEAD_DIMS:
    VALUES[f"attention.tiles_d{_d}"] = Value(tiles(_d), or_not_measured(str))
    for _causal in (False, True):
        for _dir in ("forward", "backward"):
            _key = f"{SHORT[_dir]}_{{}}_d{_d}_{MASK[_causal]}"
            for _impl, _, _ in IMPLS:
                VALUES[f"attention.{_key.format(_impl)}"] = Value(
                    tflops_at(_impl, _dir, _d, _causal), or_not_measured(tflops)
                )
            for _peer in PEERS:
                VALUES[f"attention.{_key.format('vs_' + _peer)}"] = Value(
                    ratio_at(_peer, _dir, _d, _causal), or_not_measured(ratio)
                )
for _n in (4096, 16384):
    for _dir in ("forward", "training"):
        for _impl in ("triton", "naive", "sdpa_flash"):
            VALUES[f"attention.memory_{_impl}_{_dir}_{_n}"] = Value(
                memory_at(_impl, _dir, _n), or_not_measured(byte_size)
            )
        VALUES[f"attention.memory_ratio_{_dir}_{_n}"] = Value(
            memory_ratio(_dir, _n), or_not_measured(ratio)
        )


# ---- figures ------------------------------------------------------------------------------


def n_axis(ns: list[int], what: str) -> dict:
    return axis(what, log=True, ticks=ns)


def fig_rate(direction: str, d: int):
    def build(docs: Docs) -> dict:
        traces, ns = [], set()
        for impl, label, role in IMPLS:
            for causal in (False, True):
                rs = series(docs, impl, direction, d, causal)
                if not rs:
                    continue
                ns |= {r["n"] for r in rs}
                trace = line(
                    [r["n"] for r in rs],
                    [rate(r["flops"], r["time_s"], 1e12) for r in rs],
                    f"{label}, {MASK[causal]}",
                    role,
                    dash="dash" if causal else None,
                    hover="N = %{x:,}<br>%{y:.0f} TFLOP/s",
                )
                # One legend entry per implementation (solid full, dashed causal, as the
                # axis says): twelve entries do not fit under the plot on a phone.
                trace["legendgroup"] = impl
                if causal:
                    trace["showlegend"] = False
                else:
                    trace["name"] = label
                traces.append(trace)
        peak = matmul_rate(doc(docs, BENCH), "bfloat16") / 1e12
        traces.append(hline(peak, min(ns), max(ns), f"bf16 matmul ceiling ({peak:.0f} TFLOP/s)"))
        batch_heads = "B·N = 16,384, H·d = 4,096"
        return {
            "data": traces,
            "layout": {
                "xaxis": n_axis(
                    sorted(ns),
                    f"sequence length N (bf16, d = {d}, {batch_heads});"
                    " solid: full, dashed: causal",
                ),
                "yaxis": axis(f"{direction} TFLOP/s", rangemode="tozero"),
            },
        }

    return build


def fig_memory(docs: Docs) -> dict:
    traces, ns = [], set()
    for impl, label, role in IMPLS:
        for direction, dash in (("forward", None), ("training", "dash")):
            rs = sorted(find(docs, MEMORY, impl=impl, direction=direction), key=lambda r: r["n"])
            if not rs:
                continue
            ns |= {r["n"] for r in rs}
            traces.append(
                line(
                    [r["n"] for r in rs],
                    [r["peak_bytes"] / 2**30 for r in rs],
                    f"{label}, {'inference' if direction == 'forward' else 'training step'}",
                    role,
                    dash=dash,
                    hover="N = %{x:,}<br>%{y:.3f} GiB",
                )
            )
    return {
        "data": traces,
        "layout": {
            "xaxis": n_axis(sorted(ns), "sequence length N (causal, bf16, B = 1, H = 16, d = 128)"),
            "yaxis": axis("peak working memory (GiB)", log=True),
        },
    }


FIGURES: dict[str, Figure] = {}
for _dir in ("forward", "backward"):
    for _d in HEAD_DIMS:
        FIGURES[f"attention-{_dir}-d{_d}"] = Figure(
            f"Attention {_dir}, d = {_d}: TFLOP/s against sequence length",
            (BENCH,),
            fig_rate(_dir, _d),
            f"{_dir.capitalize()} TFLOP/s of the Triton flash attention, SDPA's cuDNN, "
            f"flash and memory-efficient backends, FlexAttention and a naive attention "
            f"for N from 1,024 to 16,384 in bf16 at head dim {_d}, full (solid) and causal "
            "(dashed), with the measured bf16 matmul ceiling; error bars span the 20th "
            "to 80th percentile.",
        )
FIGURES["attention-memory"] = Figure(
    "Attention: peak working memory against sequence length",
    (MEMORY,),
    fig_memory,
    "Peak memory the CUDA allocator held beyond the inputs during one causal attention "
    "forward (solid) and one training step (dashed), for the naive attention, the Triton "
    "flash attention and SDPA's flash backend, N from 1,024 to 16,384, log scale.",
)


# ---- verdicts against the targets (TARGETS.md), at N = N_TARGET ----------------------------


def verdict(direction: str, d: int, causal: bool):
    """Forward: >= FlexAttention and >= 85% of cuDNN. Backward: >= FlexAttention and
    >= 1.3x SDPA's flash backend."""
    bars = (("flex", 1.0), ("sdpa_cudnn", 0.85)) if direction == "forward" else (
        ("flex", 1.0), ("sdpa_flash", 1.3))  # fmt: skip

    def compute(docs: Docs) -> str | None:
        misses = []
        for peer, need in bars:
            r = ratio_at(peer, direction, d, causal)(docs)
            if r is None:
                return None
            if r < need:
                misses.append(f"{LABEL[peer]} {r:.2f}× (needs {need:.2f}×)")
        return "met" if not misses else "missed: " + "; ".join(misses)

    doc_ = f"Verdict against the {direction} targets, bf16, d = {d}, {MASK[causal]}, N = {N_TARGET}"
    return named(f"verdict_{SHORT[direction]}_d{d}_{MASK[causal]}", doc_ + ".", compute)


for _dir in ("forward", "backward"):
    for _d in HEAD_DIMS:
        for _causal in (False, True):
            VALUES[f"attention.verdict_{SHORT[_dir]}_d{_d}_{MASK[_causal]}"] = Value(
                verdict(_dir, _d, _causal), or_not_measured(str)
            )


# ---- lesson 01's roofline -----------------------------------------------------------------


def roofline_points(rows: list[dict]) -> list[dict]:
    """The book's forward and backward, bf16, d = 128, N = 4096, not causal. Bytes: the
    least any attention moves (forward: read q, k, v, write o; backward: read q, k, v, o,
    dO, write dq, dk, dv), so the point sits where a flash kernel's intensity is."""
    tensors = {"forward": 4, "backward": 8}
    return [
        {
            "kernel": f"flash attention {r['direction']} (bf16, d=128)",
            "flops": r["flops"],
            "bytes": tensors[r["direction"]] * r["batch"] * r["heads"] * r["n"] * r["head_dim"] * 2,
            "seconds": r["time_s"]["p50"],
        }
        for r in rows
        if r["impl"] == "triton" and r["head_dim"] == 128 and r["n"] == 4096 and not r["causal"]
    ]


ROOFLINE = {BENCH: roofline_points}
