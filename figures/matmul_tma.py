"""Values of the persistent-matmul family (kernels/matmul_tma.py): lesson 13, "Past cuBLAS".

Data (scripts/bench/benchmarks/matmul_tma.py): ``matmul_tma``, squares in fp16 and bf16 of
the persistent kernel on its TMA path (``tma``; ``tma_ws`` warp-specialized) and pointer
path (``pointers``), lesson 09's kernel (``lesson09``) and ``cublas``;
``matmul_tma_epilogue``, bf16, with lesson 09's bias + GELU epilogue (``tma_fused``,
``lesson09_fused``; ``tma_plain`` without) against ``cublas`` and ``cublas_eager``. Every
value is None ("not measured") where the row it needs is missing or failed.
"""

import itertools
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

BENCH, EPI = "matmul_tma", "matmul_tma_epilogue"
DTYPES = (("float16", "fp16"), ("bfloat16", "bf16"))
SIZES = (4096, 8192)
NOT_MEASURED = "not measured"

Impl = Literal["tma", "tma_ws", "pointers", "lesson09", "cublas"]
Dtype = Literal["float16", "bfloat16"]
EpiImpl = Literal["tma_fused", "tma_plain", "lesson09_fused", "cublas", "cublas_eager"]


def row(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> dict | None:
    """The row of ``impl`` at n³ in ``dtype`` that ran (has a time), or None."""
    return render.ran(docs, BENCH, impl=impl, dtype=dtype, m=n, n=n, k=n)


def epi_row(docs: Docs, impl: EpiImpl, n: int) -> dict | None:
    """The row of ``impl`` at n³ in the epilogue benchmark, or None without it."""
    return render.maybe_one(docs, EPI, absent_ok=True, impl=impl, m=n)


def cell(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> str | None:
    """``impl``'s TFLOP/s at n³ and, but for cuBLAS, its share of cuBLAS's (a table cell)."""
    r, c = row(docs, impl, dtype, n), row(docs, "cublas", dtype, n)
    if not r:
        return None
    rate = render.tflops(render.flop_rate(r))
    if impl == "cublas" or not c:
        return rate
    return f"{rate} ({render.percent1(render.flop_rate(r) / render.flop_rate(c))})"


over = render.pair_kind(
    row, "impl", render.divide(render.flop_rate), "``of``'s FLOP/s over ``to``'s at n³."
)
compare = render.pair_kind(row, "impl", render.tie(BENCH), "``of`` against ``to`` at n³, in words.")


def vs_cublas(docs: Docs, impl: Literal["tma", "tma_ws"]) -> str | None:
    """``impl`` against cuBLAS at every shape measured, by the tie rule, as a phrase."""
    groups: dict[str, list[str]] = {}
    for (dtype, short), n in itertools.product(DTYPES, SIZES):
        ours, theirs = row(docs, impl, dtype, n), row(docs, "cublas", dtype, n)
        if said := render.tie_words(docs, BENCH, ours, theirs):
            groups.setdefault(said, []).append(f"{short} {n}³")
    if len(groups) == 1 and len(shapes := next(iter(groups.values()))) > 1:
        return f"{next(iter(groups))} cuBLAS at all {len(shapes)} shapes measured"
    parts = [f"{w} cuBLAS at {', '.join(groups[w])}" for w in render.COMPARE_WORDS if w in groups]
    return "; ".join(parts) or None


regs = render.row_kind(row, lambda r: r.get("n_regs"), "Registers per thread at n³.")


def ws_status(docs: Docs) -> str | None:
    """What warp specialization did in this run: not tried, ran (where), or failed (why)."""
    if BENCH not in docs:
        return None
    found = render.rows(docs, BENCH, impl="tma_ws")
    failed = [r for r in found if "failure" in r]
    if not found:
        return "not tried (the installed Triton has no warp_specialize)"
    if failed:
        return f"failed ({failed[0]['failure'][:120]})"
    short = dict(DTYPES)
    return "ran at " + " and ".join(f"{short[r['dtype']]} {r['m']}³" for r in found)


epilogue_ratio, epilogue_extra, epilogue_vs, epilogue_added = render.time_pair_kinds(
    epi_row, "impl", EPI
)


def epilogue_config(
    docs: Docs, impl: Literal["tma_fused", "tma_plain", "lesson09_fused"], n: int
) -> str | None:
    """The config the autotuner ran for ``impl`` at n³, or None where not recorded."""
    r = epi_row(docs, impl, n)
    return render.config_text(r).replace(" × ", "×") if r and "block_m" in r else None


rounds = render.pair_kind(
    epi_row,
    "impl",
    lambda docs, a, b: a and b and render.paired(b["time_s"], a["time_s"]),
    "The per-round ratio of ``of``'s time over ``to``'s where timed in turn (a spread).",
)
spread = render.row_kind(epi_row, lambda r: r["time_s"], "``impl``'s time spread at n³.")


def round_span(s: dict) -> str:
    """A per-round ratio's 20th to 80th percentile: '0.997–1.004'."""
    return f"{s['p20']:.3f}–{s['p80']:.3f}"


def drift(docs: Docs) -> float | None:
    """What a comparison in the epilogue run is widened by (``render.tie_margin``)."""
    return render.tie_margin(docs[EPI]) if EPI in docs else None


VALUES = {
    "matmul_tma.cell": Value(cell, missing=NOT_MEASURED),
    "matmul_tma.ratio": Value(over, render.ratio, missing=NOT_MEASURED),
    "matmul_tma.compare": Value(compare, missing=NOT_MEASURED),
    "matmul_tma.vs_cublas": Value(vs_cublas, missing=NOT_MEASURED),
    "matmul_tma.regs": Value(regs, render.count, missing=NOT_MEASURED),
    "matmul_tma.ws_status": Value(ws_status, missing=NOT_MEASURED),
    "matmul_tma.epilogue_ratio": Value(epilogue_ratio, render.ratio, missing=NOT_MEASURED),
    "matmul_tma.epilogue_extra": Value(epilogue_extra, render.percent1, missing=NOT_MEASURED),
    "matmul_tma.epilogue_vs": Value(epilogue_vs, missing=NOT_MEASURED),
    "matmul_tma.epilogue_config": Value(epilogue_config, missing=NOT_MEASURED),
    "matmul_tma.epilogue_added": Value(epilogue_added, render.micros(0), missing=NOT_MEASURED),
    "matmul_tma.rounds": Value(rounds, round_span, missing=NOT_MEASURED),
    "matmul_tma.spread": Value(spread, render.FORMATS["span_us0"], missing=NOT_MEASURED),
    "matmul_tma.drift": Value(drift, render.percent1, missing=NOT_MEASURED),
}
FIGURES: dict = {}
