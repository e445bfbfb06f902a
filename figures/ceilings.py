"""Values from the run's measured ceilings (figures/data/<device>/ceilings.json)."""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

BENCH = "ceilings"
NOT_YET = "not yet measured"  # a run made before the fp32 FMA ceiling existed


def copy_bandwidth(docs: Docs) -> float:
    """Device-to-device copy bandwidth, bytes read plus written per second."""
    return render.copy(docs, BENCH)


def matmul(docs: Docs, dtype: Literal["bfloat16", "float16"]) -> float:
    """cuBLAS matmul rate at 8192³ in ``dtype``, FLOP/s."""
    return render.matmul_rate(render.doc(docs, BENCH), dtype)


def fma_fp32(docs: Docs) -> float | None:
    """fp32 FMA rate on the CUDA cores (kernels/ceilings.py), FLOP/s; None if not measured."""
    return render.fma_rate(render.doc(docs, BENCH))


def ridge(docs: Docs, roof: Literal["bf16", "fp32"]) -> float | None:
    """Ridge point of the bf16 matmul or fp32 FMA roof over copy bandwidth, FLOP per byte."""
    rate = matmul(docs, "bfloat16") if roof == "bf16" else fma_fp32(docs)
    return None if rate is None else rate / copy_bandwidth(docs)


def fp16_bf16_gap(docs: Docs) -> float:
    """How far apart the fp16 and bf16 matmul rates are, as a fraction of the bf16 rate."""
    return abs(matmul(docs, "float16") / matmul(docs, "bfloat16") - 1)


VALUES = {
    "ceilings.copy": Value(copy_bandwidth, render.tbps),
    "ceilings.matmul": Value(matmul, render.tflops),
    "ceilings.fma_fp32": Value(fma_fp32, render.tflops, missing=NOT_YET),
    "ceilings.ridge": Value(ridge, render.whole, missing=NOT_YET),
    "ceilings.fp16_bf16_gap": Value(fp16_bf16_gap, render.percent1),
}
