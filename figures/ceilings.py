"""Values from the run's measured ceilings (figures/data/<device>/ceilings.json)."""

from scripts.book.render import (
    Docs,
    Value,
    copy_bw,
    doc,
    fma_rate,
    matmul_rate,
    tbps,
    tflops,
    whole,
)


def copy(docs: Docs) -> float:
    """Device-to-device copy bandwidth, bytes read plus written per second."""
    return copy_bw(doc(docs, "ceilings"))


def matmul_bf16(docs: Docs) -> float:
    """cuBLAS bf16 matmul rate at 8192³, FLOP/s."""
    return matmul_rate(doc(docs, "ceilings"), "bfloat16")


def matmul_fp16(docs: Docs) -> float:
    """cuBLAS fp16 matmul rate at 8192³, FLOP/s."""
    return matmul_rate(doc(docs, "ceilings"), "float16")


def ridge_bf16(docs: Docs) -> float:
    """Ridge point of the bf16 roofline: matmul rate over copy bandwidth, FLOP per byte."""
    return matmul_bf16(docs) / copy(docs)


def fma_fp32(docs: Docs) -> float | None:
    """fp32 FMA rate on the CUDA cores (kernels/ceilings.py), FLOP/s; None if not measured."""
    return fma_rate(doc(docs, "ceilings"))


def ridge_fp32(docs: Docs) -> float | None:
    """Ridge point of the fp32 CUDA-core roof: FMA rate over copy bandwidth, FLOP per byte;
    None where the FMA rate was not measured."""
    rate = fma_fp32(docs)
    return None if rate is None else rate / copy(docs)


def tensor_over_fp32(docs: Docs) -> float | None:
    """How many times the bf16 tensor-core rate exceeds the fp32 FMA rate; None if the
    latter was not measured."""
    rate = fma_fp32(docs)
    return None if rate is None else matmul_bf16(docs) / rate


def fp16_bf16_gap(docs: Docs) -> float:
    """How far apart the fp16 and bf16 matmul rates are, as a fraction of the bf16 rate."""
    return abs(matmul_fp16(docs) / matmul_bf16(docs) - 1)


def not_yet(fmt):
    """``fmt``, except that None (a run made before the FMA ceiling existed) reads as
    words the page can use in a table or a sentence."""

    def show(v) -> str:
        return "not yet measured" if v is None else fmt(v)

    return show


def one_decimal_percent(v: float) -> str:
    return f"{v:.1%}"


def times(v: float) -> str:
    return f"{v:.0f}×"


VALUES = {
    "ceilings.copy": Value(copy, tbps),
    "ceilings.matmul_bf16": Value(matmul_bf16, tflops),
    "ceilings.matmul_fp16": Value(matmul_fp16, tflops),
    "ceilings.ridge_bf16": Value(ridge_bf16, whole),
    "ceilings.fma_fp32": Value(fma_fp32, not_yet(tflops)),
    "ceilings.ridge_fp32": Value(ridge_fp32, not_yet(whole)),
    "ceilings.tensor_over_fp32": Value(tensor_over_fp32, not_yet(times)),
    "ceilings.fp16_bf16_gap": Value(fp16_bf16_gap, one_decimal_percent),
}
