"""Values of the persistent-matmul family (kernels/matmul_tma.py): lesson 13, "Past cuBLAS".

Data (scripts/bench/benchmarks/matmul_tma.py), one run each: ``matmul_tma``, squares in fp16
and bf16 of the persistent kernel on its TMA path (``tma``; ``tma_ws`` warp-specialized) and
on its pointer path (``pointers``), lesson 09's kernel (``lesson09``) and ``cublas``;
``matmul_tma_epilogue``, bf16, with lesson 09's bias + GELU epilogue (``tma_fused``,
``lesson09_fused``; ``tma_plain`` without it) against ``cublas`` and ``cublas_eager``
(cuBLAS, then an eager bias add and GELU). No figure yet. Every value is None ("not
measured") where the benchmark, or the row it needs, is missing or failed. "Wins" counts a
shape only where one side's slowest (p80) time beats the other's fastest (p20).
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

BENCH, EPI = "matmul_tma", "matmul_tma_epilogue"
DTYPES = (("float16", "fp16"), ("bfloat16", "bf16"))
SIZES = (4096, 8192)
TARGET_SIZE = 4096  # the stretch target: >= 100% of cuBLAS at 4096³, fp16 and bf16
EPI_TARGET = 1.15  # TARGETS.md: fused matmul + bias + GELU >= 1.15x cuBLAS + eager epilogue
NOT_MEASURED = "not measured"

Impl = Literal["tma", "tma_ws", "pointers", "lesson09", "cublas"]
Dtype = Literal["float16", "bfloat16"]
EpiImpl = Literal["tma_fused", "tma_plain", "lesson09_fused", "cublas", "cublas_eager"]


def row(docs: Docs, impl: str, dtype: str, n: int) -> dict | None:
    """The row of ``impl`` at n³ in ``dtype`` that ran (has a time), or None: no data on
    this device, no such row, or a failure."""
    r = render.maybe_one(docs, BENCH, absent_ok=True, impl=impl, dtype=dtype, m=n, n=n, k=n)
    return r if r and "time_s" in r else None


def epi_time(docs: Docs, impl: str, n: int) -> float | None:
    """Median seconds of ``impl`` at n³ in the epilogue benchmark, or None without it."""
    r = render.maybe_one(docs, EPI, absent_ok=True, impl=impl, m=n)
    return None if r is None else r["time_s"]["p50"]


# ---- values: the squares -------------------------------------------------------------------


def cell(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> str | None:
    """``impl``'s TFLOP/s at n³ and, but for cuBLAS itself, its share of cuBLAS's (for a
    table cell)."""
    r, c = row(docs, impl, dtype, n), row(docs, "cublas", dtype, n)
    if not r:
        return None
    rate = render.tflops(render.flop_rate(r))
    if impl == "cublas" or not c:
        return rate
    return f"{rate} ({render.percent1(render.flop_rate(r) / render.flop_rate(c))})"


def over(docs: Docs, of: Impl, to: Impl, dtype: Dtype, n: int) -> float | None:
    """``of``'s FLOP/s over ``to``'s at n³ (of=tma to=pointers: what the descriptors add,
    the persistent loop held fixed)."""
    a, b = row(docs, of, dtype, n), row(docs, to, dtype, n)
    return render.flop_rate(a) / render.flop_rate(b) if a and b else None


def config(docs: Docs, dtype: Dtype, n: int) -> str | None:
    """The autotuner's pick for the TMA kernel at n³."""
    r = row(docs, "tma", dtype, n)
    if not r or "block_m" not in r:
        return None
    return (f"{r['block_m']}×{r['block_n']}×{r['block_k']}, {r['num_warps']} warps, "
            f"{r['num_stages']} stages")  # fmt: skip


def verdict(docs: Docs) -> str | None:
    """'met' if the TMA kernel reaches 100% of cuBLAS's FLOP/s at 4096³ in both fp16 and
    bf16, else 'missed' with the ratios."""
    ratios = {short: over(docs, "tma", "cublas", dtype, TARGET_SIZE) for dtype, short in DTYPES}
    if None in ratios.values():
        return None
    if all(v >= 1.0 for v in ratios.values()):
        return "met"
    return "missed (" + ", ".join(f"{k} {render.percent1(v)}" for k, v in ratios.items()) + ")"


def wins(docs: Docs) -> str | None:
    """Where the TMA kernel beats cuBLAS, where cuBLAS beats it, and where they tie within
    the spread, over every size and dtype measured; words, for prose."""
    groups: dict[int, list[str]] = {1: [], -1: [], 0: []}
    for dtype, short in DTYPES:
        for n in SIZES:
            r, c = row(docs, "tma", dtype, n), row(docs, "cublas", dtype, n)
            if r and c:
                groups[render.winner(r["time_s"], c["time_s"])].append(f"{short} {n}³")
    labels = ((1, "Triton faster"), (-1, "cuBLAS faster"), (0, "tie within spread"))
    parts = [f"{label}: {', '.join(groups[k])}" for k, label in labels if groups[k]]
    return "; ".join(parts) or None


def ws_status(docs: Docs) -> str | None:
    """What warp specialization did in this run: not tried (the installed Triton lacks it),
    ran (with the sizes), or failed (the first failure's message, shortened)."""
    if BENCH not in docs:
        return None
    found = render.rows(docs, BENCH, impl="tma_ws")
    failed = [r for r in found if "failure" in r]
    if not found:
        return "not tried (the installed Triton has no warp_specialize)"
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


def triton(docs: Docs) -> str | None:
    """The Triton version of the run that measured this benchmark."""
    return docs[BENCH]["provenance"]["triton"] if BENCH in docs else None


# ---- values: matmul_tma_epilogue, lesson 09's epilogue target with the TMA kernel, bf16 -----


def epilogue_ratio(docs: Docs, of: EpiImpl, to: EpiImpl, n: int) -> float | None:
    """``of``'s time over ``to``'s at n³ (of=cublas_eager to=tma_fused: the fused call's
    speed-up over cuBLAS + eager, whose target is >= 1.15)."""
    return render.quotient(epi_time(docs, of, n), epi_time(docs, to, n))


def epilogue_extra(docs: Docs, of: EpiImpl, to: EpiImpl, n: int) -> float | None:
    """How much longer ``of`` takes than ``to`` at n³, a fraction (of=tma_fused
    to=tma_plain: what the epilogue adds to the TMA kernel's time)."""
    q = epilogue_ratio(docs, of, to, n)
    return None if q is None else q - 1


def epilogue_config(
    docs: Docs, impl: Literal["tma_fused", "tma_plain", "lesson09_fused"], n: int
) -> str | None:
    """The config the autotuner ran for ``impl`` at n³ in the epilogue benchmark, or None
    for a run that did not record it."""
    found = [r for r in docs.get(EPI, {}).get("rows", []) if r["impl"] == impl and r["m"] == n]
    if not found or "block_m" not in found[0]:
        return None
    r = found[0]
    return (f"{r['block_m']}×{r['block_n']}×{r['block_k']}, {r['num_warps']} warps, "
            f"{r['num_stages']} stages")  # fmt: skip


def epilogue_budget(docs: Docs, n: int) -> float | None:
    """How much longer than cuBLAS's plain matmul a fused call may take and still be 1.15x
    faster than cuBLAS + eager at n³, same run, a fraction."""
    q = epilogue_ratio(docs, "cublas_eager", "cublas", n)
    return None if q is None else q / EPI_TARGET - 1


def epilogue_verdict(docs: Docs) -> str | None:
    """'met' if the TMA kernel's fused call is >= 1.15x cuBLAS + eager at every size
    measured, else 'missed' with the ratios."""
    ratios = {n: epilogue_ratio(docs, "cublas_eager", "tma_fused", n) for n in SIZES}
    if None in ratios.values():
        return None
    if all(v >= EPI_TARGET for v in ratios.values()):
        return "met"
    listed = ", ".join(f"{render.ratio(v)} at {n}³" for n, v in ratios.items())
    return f"missed ({listed}; the target is {EPI_TARGET:.2f}×)"


def epilogue_compare(docs: Docs) -> str | None:
    """Which fused call was the faster at each size, the TMA kernel's or lesson 09's."""
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


VALUES = {
    "matmul_tma.cell": Value(cell, missing=NOT_MEASURED),
    "matmul_tma.ratio": Value(over, render.ratio, missing=NOT_MEASURED),
    "matmul_tma.config": Value(config, missing=NOT_MEASURED),
    "matmul_tma.verdict": Value(verdict, missing=NOT_MEASURED),
    "matmul_tma.wins": Value(wins, missing=NOT_MEASURED),
    "matmul_tma.ws_status": Value(ws_status, missing=NOT_MEASURED),
    "matmul_tma.status": Value(status),
    "matmul_tma.triton": Value(triton, missing=NOT_MEASURED),
    "matmul_tma.epilogue_ratio": Value(epilogue_ratio, render.ratio, missing=NOT_MEASURED),
    "matmul_tma.epilogue_extra": Value(epilogue_extra, render.percent1, missing=NOT_MEASURED),
    "matmul_tma.epilogue_budget": Value(epilogue_budget, render.percent1, missing=NOT_MEASURED),
    # the autotuner's pick for each Triton call of the epilogue comparison
    "matmul_tma.epilogue_config": Value(epilogue_config, missing=NOT_MEASURED),
    "matmul_tma.epilogue_verdict": Value(epilogue_verdict, missing=NOT_MEASURED),
    "matmul_tma.epilogue_compare": Value(epilogue_compare, missing=NOT_MEASURED),
}
FIGURES: dict = {}
