"""Values from the run's measured ceilings (figures/data/<device>/ceilings.json)."""

from __future__ import annotations

from typing import Literal

from scripts.book.render import (
    Docs,
    Value,
    copy,
    doc,
    fma_rate,
    matmul_rate,
    percent1,
    tbps,
    tflops,
    whole,
)

BENCH = "ceilings"
NOT_YET = "not yet measured"  # a run made before the fp32 FMA ceiling existed


def copy_bandwidth(docs: Docs) -> float:
    """Device-to-device copy bandwidth, bytes read plus written per second."""
    return copy(docs, BENCH)


def matmul(docs: Docs, dtype: Literal["bfloat16", "float16"]) -> float:
    """cuBLAS matmul rate at 8192³ in ``dtype``, FLOP/s."""
    return matmul_rate(doc(docs, BENCH), dtype)


def fma_fp32(docs: Docs) -> float | None:
    """fp32 FMA rate on the CUDA cores (kernels/ceilings.py), FLOP/s; None if not measured."""
    return fma_rate(doc(docs, BENCH))


def ridge(docs: Docs, roof: Literal["bf16", "fp32"]) -> float | None:
    """Ridge point of one roof, FLOP per byte: the bf16 tensor-core matmul rate (bf16) or
    the fp32 FMA rate (fp32) over the copy bandwidth; None where that rate was not
    measured."""
    rate = matmul(docs, "bfloat16") if roof == "bf16" else fma_fp32(docs)
    return None if rate is None else rate / copy_bandwidth(docs)


def fp16_bf16_gap(docs: Docs) -> float:
    """How far apart the fp16 and bf16 matmul rates are, as a fraction of the bf16 rate."""
    return abs(matmul(docs, "float16") / matmul(docs, "bfloat16") - 1)


VALUES = {
    "ceilings.copy": Value(copy_bandwidth, tbps),
    "ceilings.matmul": Value(matmul, tflops),
    "ceilings.fma_fp32": Value(fma_fp32, tflops, missing=NOT_YET),
    "ceilings.ridge": Value(ridge, whole, missing=NOT_YET),
    "ceilings.fp16_bf16_gap": Value(fp16_bf16_gap, percent1),
}
