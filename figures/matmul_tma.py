"""Values of the persistent-matmul family (kernels/matmul_tma.py): lesson 13, "Past cuBLAS".

Data: ``matmul_tma`` (scripts/bench/benchmarks/matmul_tma.py): square sizes, fp16 and bf16, the
persistent kernel on its TMA path (``tma``; ``tma_ws`` with warp specialization), the
same kernel on its pointer path (``pointers``), lesson 09's kernel (``lesson09``) and
cuBLAS (``cublas``), timed in one run. ``matmul_tma_epilogue``: the same kernel with lesson
09's bias + GELU epilogue against cuBLAS + eager, bf16, next to lesson 09's fused kernel.

Every value here reads that benchmark only, and is None ("not measured") on a device
that has not run it, or where the row it needs failed: the family lands before its
first GPU run. No figure yet: a figure needs data on at least one device to be drawn.

Ratios compare medians measured in the same run. "Wins" is stricter: one implementation
wins a shape only where its slowest (80th percentile) time beats the other's fastest
(20th percentile); otherwise the shape is a tie within the spread.
"""

from __future__ import annotations

from scripts.book.render import Docs, Value, named, or_not_measured, plain, tflops

BENCH = "matmul_tma"
DTYPES = (("float16", "fp16"), ("bfloat16", "bf16"))
SIZES = (4096, 8192)
IMPLS = {
    "tma": "persistent TMA kernel",
    "tma_ws": "persistent TMA kernel, warp-specialized",
    "pointers": "persistent kernel with pointer loads",
    "lesson09": "lesson 09's kernel",
    "cublas": "cuBLAS",
}
TARGET_SIZE = 4096  # the stretch target: >= 100% of cuBLAS at 4096^3, fp16 and bf16


def percent1(v: float) -> str:
    """A percentage with one decimal: the target's edge is 100%."""
    return f"{v:.1%}"


def ratio2(v: float) -> str:
    """A speed ratio with two decimals (1.00× is a tie)."""
    return f"{v:.2f}×"


# ---- rows -----------------------------------------------------------------------------------


def row(docs: Docs, impl: str, dtype: str, n: int) -> dict | None:
    """The row of ``impl`` at n^3 in ``dtype`` that ran (has a time), or None: no data on
    this device, no such row, or a failure."""
    if BENCH not in docs:
        return None
    for r in docs[BENCH]["rows"]:
        if (r["impl"], r["dtype"], r["m"], r["n"], r["k"]) == (impl, dtype, n, n, n):
            return r if "time_s" in r else None
    return None


def rate(r: dict) -> float:
    """Median FLOP/s of a row."""
    return r["flops"] / r["time_s"]["p50"]


def throughput(impl: str, dtype: str, n: int):
    def compute(docs: Docs) -> float | None:
        r = row(docs, impl, dtype, n)
        return rate(r) if r else None

    doc_ = f"{IMPLS[impl]} at {n}^3 {dtype}: FLOP/s (median)."
    return named(f"{impl}_{dtype}_{n}", doc_, compute)


def over(impl: str, base: str, dtype: str, n: int):
    def compute(docs: Docs) -> float | None:
        r, b = row(docs, impl, dtype, n), row(docs, base, dtype, n)
        return rate(r) / rate(b) if r and b else None

    doc_ = f"{IMPLS[impl]} over {IMPLS[base]} at {n}^3 {dtype}: ratio of median FLOP/s."
    return named(f"{impl}_over_{base}_{dtype}_{n}", doc_, compute)


def config(dtype: str, n: int):
    def compute(docs: Docs) -> str | None:
        r = row(docs, "tma", dtype, n)
        if not r or "block_m" not in r:
            return None
        return (
            f"{r['block_m']}×{r['block_n']}×{r['block_k']}, {r['num_warps']} warps, "
            f"{r['num_stages']} stages"
        )

    doc_ = f"The autotuner's pick for the TMA kernel at {n}^3 {dtype}."
    return named(f"config_{dtype}_{n}", doc_, compute)


def cell(impl: str, dtype: str, n: int):
    def compute(docs: Docs) -> str | None:
        r, c = row(docs, impl, dtype, n), row(docs, "cublas", dtype, n)
        if not r:
            return None
        if impl == "cublas" or not c:
            return tflops(rate(r))
        return f"{tflops(rate(r))} ({percent1(rate(r) / rate(c))})"

    doc_ = f"{IMPLS[impl]} at {n}^3 {dtype}: TFLOP/s and its share of cuBLAS, for a table cell."
    return named(f"cell_{impl}_{dtype}_{n}", doc_, compute)


VALUES: dict[str, Value] = {}
for _dt, _short in DTYPES:
    for _n in SIZES:
        for _impl in IMPLS:
            VALUES[f"matmul_tma.cell_{_impl}_{_short}_{_n}"] = Value(
                cell(_impl, _dt, _n), or_not_measured(plain)
            )
        for _impl in IMPLS:
            VALUES[f"matmul_tma.{_impl}_{_short}_{_n}"] = Value(
                throughput(_impl, _dt, _n), or_not_measured(tflops)
            )
        for _impl in ("tma", "tma_ws", "pointers", "lesson09"):
            VALUES[f"matmul_tma.{_impl}_vs_cublas_{_short}_{_n}"] = Value(
                over(_impl, "cublas", _dt, _n), or_not_measured(percent1)
            )
        for _impl, _base in (("tma", "lesson09"), ("tma", "pointers"), ("pointers", "lesson09")):
            VALUES[f"matmul_tma.{_impl}_over_{_base}_{_short}_{_n}"] = Value(
                over(_impl, _base, _dt, _n), or_not_measured(ratio2)
            )
        VALUES[f"matmul_tma.config_{_short}_{_n}"] = Value(config(_dt, _n), or_not_measured(plain))


# ---- verdicts and summaries --------------------------------------------------------------------


def verdict_4096(docs: Docs) -> str | None:
    """'met' if the TMA kernel reaches 100% of cuBLAS (median FLOP/s) at 4096^3 in both fp16
    and bf16, else 'missed' with the ratios; None before the benchmark has run."""
    ratios = {}
    for dtype, short in DTYPES:
        r, c = row(docs, "tma", dtype, TARGET_SIZE), row(docs, "cublas", dtype, TARGET_SIZE)
        if not (r and c):
            return None
        ratios[short] = rate(r) / rate(c)
    if all(v >= 1.0 for v in ratios.values()):
        return "met"
    return "missed (" + ", ".join(f"{k} {percent1(v)}" for k, v in ratios.items()) + ")"


def winner(a: dict, b: dict) -> int:
    """+1 if a is faster than b beyond the spread (a's p80 time below b's p20), -1 if b is,
    0 for a tie within the spread."""
    if a["time_s"]["p80"] < b["time_s"]["p20"]:
        return 1
    if b["time_s"]["p80"] < a["time_s"]["p20"]:
        return -1
    return 0


def wins(docs: Docs) -> str | None:
    """Where the TMA kernel beats cuBLAS, where cuBLAS beats it, and where they tie within
    the spread, over every size and dtype measured; words, for prose."""
    if BENCH not in docs:
        return None
    groups: dict[int, list[str]] = {1: [], -1: [], 0: []}
    for dtype, short in DTYPES:
        for n in SIZES:
            r, c = row(docs, "tma", dtype, n), row(docs, "cublas", dtype, n)
            if r and c:
                groups[winner(r, c)].append(f"{short} {n}³")
    if not any(groups.values()):
        return None
    parts = []
    for key, label in ((1, "Triton faster"), (-1, "cuBLAS faster"), (0, "tie within spread")):
        if groups[key]:
            parts.append(f"{label}: {', '.join(groups[key])}")
    return "; ".join(parts)


def ws_status(docs: Docs) -> str | None:
    """What warp specialization did in this run: not tried (the installed Triton lacks it),
    ran (with the sizes), or failed (the first failure's message, shortened)."""
    if BENCH not in docs:
        return None
    found = [r for r in docs[BENCH]["rows"] if r["impl"] == "tma_ws"]
    if not found:
        return "not tried (the installed Triton has no warp_specialize)"
    failed = [r for r in found if "failure" in r]
    if failed:
        return f"failed ({failed[0]['failure'][:120]})"
    return "ran at " + ", ".join(f"{r['dtype']} {r['m']}³" for r in found)


def status(docs: Docs) -> str:
    """One sentence on where this section's numbers come from: the run that measured them,
    or that they are not measured yet on this device."""
    if BENCH not in docs:
        return (
            "Not yet measured on this GPU: the numbers below appear once the GPU build "
            "(python3 scripts/bench/measure.py matmul_tma) has run."
        )
    p = docs[BENCH]["provenance"]
    when = p["date"][:10]
    return f"Measured on {p['gpu']} with Triton {p['triton']} and torch {p['torch']}, {when}."


def triton_version(docs: Docs) -> str | None:
    """The Triton version of the run that measured this benchmark."""
    return docs[BENCH]["provenance"]["triton"] if BENCH in docs else None


VALUES["matmul_tma.verdict_4096"] = Value(verdict_4096, or_not_measured(plain))
VALUES["matmul_tma.wins"] = Value(wins, or_not_measured(plain))
VALUES["matmul_tma.ws_status"] = Value(ws_status, or_not_measured(plain))
VALUES["matmul_tma.triton"] = Value(triton_version, or_not_measured(plain))
VALUES["matmul_tma.status"] = Value(status, plain)


# ---- matmul_tma_epilogue: lesson 09's epilogue target, with the persistent TMA kernel -----------

EPI = "matmul_tma_epilogue"
EPI_TARGET = 1.15  # TARGETS.md: fused matmul + bias + GELU >= 1.15x cuBLAS + eager epilogue
FUSED = {"tma": "tma_fused", "lesson09": "lesson09_fused"}


def epi_time(docs: Docs, impl: str, n: int) -> float | None:
    """Median seconds of ``impl`` at n^3 in the epilogue benchmark, or None without it."""
    if EPI not in docs:
        return None
    for r in docs[EPI]["rows"]:
        if r["impl"] == impl and r["m"] == n:
            return r["time_s"]["p50"]
    return None


def epi_quotient(num: str, den: str, n: int, name: str, doc: str, over=1.0, minus=0.0):
    """A value from two rows of one epilogue run at n^3: time(num) / time(den) / over - minus,
    or None where either row is missing."""

    def compute(docs: Docs) -> float | None:
        top, bottom = epi_time(docs, num, n), epi_time(docs, den, n)
        return top / bottom / over - minus if top and bottom else None

    return named(name, doc, compute)


def epi_speedup(kernel: str, n: int):
    doc_ = (
        f"cuBLAS + eager bias and GELU over {kernel}'s fused kernel, bf16 {n}^3 (median times, "
        "one run of matmul_tma_epilogue); the target is >= 1.15."
    )
    return epi_quotient("cublas_eager", FUSED[kernel], n, f"epi_speedup_{kernel}_{n}", doc_)


def epi_plain_of_cublas(n: int):
    doc_ = f"The plain TMA kernel's speed as a share of cuBLAS's, bf16 {n}^3, same run."
    return epi_quotient("cublas", "tma_plain", n, f"epi_plain_of_cublas_{n}", doc_)


def epi_cost(n: int):
    doc_ = f"What the epilogue adds to the TMA kernel's time, bf16 {n}^3 (fused over plain, - 1)."
    return epi_quotient("tma_fused", "tma_plain", n, f"epi_cost_{n}", doc_, minus=1.0)


def epi_budget(n: int):
    doc_ = (
        f"How much longer than cuBLAS's plain matmul a fused call may take and still be "
        f"1.15x faster than cuBLAS + eager, bf16 {n}^3, same run (a fraction)."
    )
    return epi_quotient(
        "cublas_eager", "cublas", n, f"epi_budget_{n}", doc_, over=EPI_TARGET, minus=1.0
    )


def epi_fused_over_cublas(n: int):
    doc_ = (
        f"How much longer than cuBLAS's plain matmul the TMA kernel's fused call took, bf16 "
        f"{n}^3, same run (a fraction)."
    )
    return epi_quotient("tma_fused", "cublas", n, f"epi_fused_over_cublas_{n}", doc_, minus=1.0)


def epi_verdict(docs: Docs) -> str | None:
    """'met' if the TMA kernel's fused matmul is >= 1.15x cuBLAS + eager at every size
    measured, else 'missed' with the ratios; None before the benchmark has run."""
    ratios = {n: epi_speedup("tma", n)(docs) for n in SIZES}
    if None in ratios.values():
        return None
    if all(v >= EPI_TARGET for v in ratios.values()):
        return "met"
    listed = ", ".join(f"{ratio2(v)} at {n}³" for n, v in ratios.items())
    return f"missed ({listed}; the target is {EPI_TARGET:.2f}×)"


def epi_compare(docs: Docs) -> str | None:
    """Which fused kernel was the faster at each size in the epilogue run, in words."""
    names = {}
    for n in SIZES:
        tma, l09 = epi_time(docs, "tma_fused", n), epi_time(docs, "lesson09_fused", n)
        if not (tma and l09):
            return None
        names[n] = "the TMA kernel's" if tma < l09 else "lesson 09's"
    if len(set(names.values())) == 1:
        return f"{names[SIZES[0]]} was the faster at both sizes"
    (n1, w1), (n2, w2) = names.items()
    return f"{w1} was the faster at {n1}³ and {w2} at {n2}³"


VALUES["matmul_tma.epi_compare"] = Value(epi_compare, or_not_measured(plain))
for _n in SIZES:
    for _kernel in FUSED:
        VALUES[f"matmul_tma.epi_speedup_{_kernel}_{_n}"] = Value(
            epi_speedup(_kernel, _n), or_not_measured(ratio2)
        )
    VALUES[f"matmul_tma.epi_plain_of_cublas_{_n}"] = Value(
        epi_plain_of_cublas(_n), or_not_measured(percent1)
    )
    VALUES[f"matmul_tma.epi_cost_{_n}"] = Value(epi_cost(_n), or_not_measured(percent1))
    VALUES[f"matmul_tma.epi_budget_{_n}"] = Value(epi_budget(_n), or_not_measured(percent1))
    VALUES[f"matmul_tma.epi_fused_over_cublas_{_n}"] = Value(
        epi_fused_over_cublas(_n), or_not_measured(percent1)
    )
VALUES["matmul_tma.epi_verdict"] = Value(epi_verdict, or_not_measured(plain))

FIGURES: dict = {}
