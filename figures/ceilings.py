"""Values from the run's measured ceilings (figures/data/<device>/ceilings.json)."""

from scripts.render import Docs, Value, copy_bw, doc, matmul_rate, tbps, tflops, whole


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


VALUES = {
    "ceilings.copy": Value(copy, tbps),
    "ceilings.matmul_bf16": Value(matmul_bf16, tflops),
    "ceilings.matmul_fp16": Value(matmul_fp16, tflops),
    "ceilings.ridge_bf16": Value(ridge_bf16, whole),
}
