"""Figure and values of the dot family: lesson 05.

Data (scripts/bench/benchmarks/dot.py): ``dot``, the tile kernel of kernels/dot.py in five
input precisions at a few square sizes, one row per block config, with the library's rate
of the same run (cuBLAS / ``torch._scaled_mm``) as each precision's roof (``skipped`` says
why a row could not run); ``dot_tf32``, the same kernel with fp32 inputs as "ieee", "tf32"
and "tf32x3": PTX counts, the error against float64, and the time.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

BENCH = "dot"
# (precision, label) in the order the figure lists them, slowest class first.
PRECISIONS = (
    ("ieee", "fp32, ieee"),
    ("tf32", "fp32, tf32"),
    ("fp16", "fp16"),
    ("bf16", "bf16"),
    ("fp8", "fp8 e4m3"),
)
NOT_YET = "not yet measured"
FMA_LABEL = "fp32 FMA ceiling<br>(CUDA cores)"

# The page's worked example, arithmetic: the dot_tf32 benchmark's tile, warps and size, read
# from its code (TF32_CONFIG, TF32_N), so that its PTX counts can be predicted; fp32 inputs.
TF32_BENCH = "scripts/bench/benchmarks/dot.py"
TILE = ("block_m", "block_n", "block_k", "num_warps")  # TF32_CONFIG's first four
EXAMPLE = dict(zip(TILE, render.code_constant(TF32_BENCH, "TF32_CONFIG")[:4], strict=True))
EXAMPLE.update(size=render.code_constant(TF32_BENCH, "TF32_N"), elem_bytes=4)
# Hopper's TF32 tensor-core instruction, wgmma.m64n128k8, issued by a warp group of 4 warps.
WGMMA_TF32 = {"m": 64, "n": 128, "k": 8}


def timed(docs: Docs, impl: str, precision: str) -> list[dict]:
    """The rows of ``impl`` at ``precision`` that ran (have a time)."""
    return [r for r in render.rows(docs, BENCH, impl=impl, precision=precision) if "time_s" in r]


def largest(docs: Docs) -> int | None:
    """The largest square size (M = N = K) in the data: the size the figure and the lesson's
    numbers are at; None without the data."""
    return max(r["m"] for r in docs[BENCH]["rows"]) if BENCH in docs else None


def best(docs: Docs, impl: str, precision: str, n: int | None = None) -> dict | None:
    """The fastest row of ``impl`` at ``precision`` and size n (default: the largest), or None."""
    if BENCH not in docs:
        return None
    n = largest(docs) if n is None else n
    found = [r for r in timed(docs, impl, precision) if r["m"] == n]
    return max(found, key=render.flop_rate) if found else None


Precision = Literal["ieee", "tf32", "fp16", "bf16", "fp8"]
Impl = Literal["triton", "cublas"]


def rate_of(docs: Docs, precision: Precision, impl: Impl = "triton") -> float | None:
    """FLOP/s of the tile kernel (best config) or the library at ``precision``, largest size."""
    r = best(docs, impl, precision)
    return None if r is None else render.flop_rate(r)


over = render.pair_kind(rate_of, "precision", render.over, "FLOP/s at ``of`` over at ``to``.")
of_roof = render.pair_kind(rate_of, "impl", render.over, "FLOP/s of ``of`` over ``to``'s.")


def fma_roof(docs: Docs) -> float | None:
    """The run's fp32 CUDA-core (FMA) ceiling, FLOP/s."""
    return render.fma_rate(docs[BENCH]) if BENCH in docs else None


def over_fma(docs: Docs, precision: Precision) -> float | None:
    """The tile kernel's FLOP/s at ``precision`` over the fp32 CUDA-core (FMA) ceiling."""
    return render.quotient(rate_of(docs, precision), fma_roof(docs))


Quantity = Literal["step_flops", "step_bytes", "step_intensity", "step_fmas",
                  "fmas_per_thread", "warp_groups", "wgmma_per_step", "rounded_per_thread",
                  "k_steps", "tile_flops", "tiles", "total_flops"]  # fmt: skip


def example(docs: Docs, of: Quantity) -> float:
    """A number of the worked example (EXAMPLE), per K step, tile or product (arithmetic)."""
    m, n, k = EXAMPLE["block_m"], EXAMPLE["block_n"], EXAMPLE["block_k"]
    size, fmas = EXAMPLE["size"], m * n * k
    threads, groups = 32 * EXAMPLE["num_warps"], EXAMPLE["num_warps"] // 4
    step_bytes = (m + n) * k * EXAMPLE["elem_bytes"]
    wgmma = (m // groups // WGMMA_TF32["m"]) * (n // WGMMA_TF32["n"]) * (k // WGMMA_TF32["k"])
    return {
        "step_flops": 2 * fmas,
        "step_bytes": step_bytes,
        "step_intensity": 2 * fmas / step_bytes,
        "step_fmas": fmas,
        "fmas_per_thread": fmas // threads,
        "warp_groups": groups,
        "wgmma_per_step": wgmma,
        "rounded_per_thread": (m * k + k * n) // threads,
        "k_steps": size // k,
        "tile_flops": 2 * fmas * (size // k),
        "tiles": (size // m) * (size // n),
        "total_flops": 2 * size**3,
    }[of]


TF32 = "dot_tf32"
Fp32Precision = Literal["ieee", "tf32", "tf32x3"]
PtxOp = Literal["cvt_rna_tf32", "wgmma", "mma_sync", "fma_f32"]


def tf32_row(docs: Docs, precision: Fp32Precision) -> dict | None:
    """The dot_tf32 row at ``precision``, or None."""
    return render.maybe_one(docs, TF32, absent_ok=True, precision=precision)


def ptx_count(docs: Docs, precision: Fp32Precision, op: PtxOp) -> int | None:
    """How many ``op`` instructions the PTX of the kernel for fp32 inputs holds."""
    return render.field(tf32_row(docs, precision), "ptx", op)


def tf32_error(
    docs: Docs, precision: Fp32Precision, stat: Literal["mean", "rms"] = "mean"
) -> float | None:
    """Relative error against the float64 product: its signed mean, or root mean square."""
    return render.field(tf32_row(docs, precision), f"{stat}_rel_error")


tf32_ratio = render.pair_kind(
    tf32_row, "precision", render.divide(render.p50), "Device time with ``of`` over ``to``."
)


def tf32_skew(docs: Docs, precision: Fp32Precision) -> float | None:
    """The mean relative error over its root mean square: near ±1 the errors share one
    sign (a bias), near 0 they cancel on average."""
    r = tf32_row(docs, precision)
    return None if r is None else r["mean_rel_error"] / r["rms_rel_error"]


# NVIDIA's datasheet peaks for dense products on the SXM boards, FLOP/s.
DATASHEET_PEAK = {
    "H100": {"tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12},
    "H200": {"tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12},
}
TensorPrecision = Literal["tf32", "fp16", "bf16", "fp8"]


def of_peak(docs: Docs, impl: Impl, precision: TensorPrecision) -> float | None:
    """``impl``'s FLOP/s at ``precision`` as a fraction of NVIDIA's datasheet peak."""
    if BENCH not in docs:
        return None
    gpu = docs[BENCH]["provenance"]["gpu"]
    peaks = next((v for k, v in DATASHEET_PEAK.items() if k in gpu), None)
    return render.quotient(rate_of(docs, precision, impl), peaks and peaks[precision])


def clock_share(docs: Docs) -> float | None:
    """The SM clock right after the dot benchmark ran, as a fraction of its maximum."""
    if BENCH not in docs:
        return None
    clocks = docs[BENCH]["provenance"].get("clocks_after") or {}
    return render.quotient(clocks.get("sm_mhz"), clocks.get("sm_max_mhz"))


VALUES = {
    "dot.size": Value(largest, render.plain, missing=NOT_YET),
    "dot.tflops": Value(rate_of, render.tflops, missing=NOT_YET),
    "dot.over": Value(over, render.ratio, missing=NOT_YET),
    "dot.of_roof": Value(of_roof, render.percent, missing=NOT_YET),
    "dot.fma_roof": Value(fma_roof, render.tflops, missing=NOT_YET),
    "dot.over_fma": Value(over_fma, render.ratio, missing=NOT_YET),
    "dot.example": Value(example, render.count),
    "dot.ptx_count": Value(ptx_count, render.count, missing="not measured"),
    "dot.tf32_error": Value(tf32_error, render.sci, missing="not measured"),
    "dot.tf32_ratio": Value(tf32_ratio, render.ratio, missing="not measured"),
    "dot.tf32_skew": Value(tf32_skew, render.ratio3, missing="not measured"),
    "dot.of_peak": Value(of_peak, render.percent, missing="no datasheet peak for this GPU"),
    "dot.clock_share": Value(clock_share, render.percent, missing=NOT_YET),
}


def bars(name: str, role, labels: list[str], points: list, hover="", **extra):
    """TFLOP/s bars, each labelled with its rate; ``hover`` follows the rate (``extra``:
    ``hbar``'s)."""
    text = [f"{p[0]:.0f}" for p in points]
    hover = "%{x:.0f} TFLOP/s" + hover
    return render.hbar(labels, points, role, name=name, hover=hover, text=text,
                       textposition="auto", **extra)  # fmt: skip


def fig_dtypes(docs: Docs) -> dict:
    """Horizontal grouped bars of TFLOP/s for the Triton tile kernel of kernels/dot.py (best of
    three block configs) and the library's rate at the same precision: fp32 with input_precision
    ieee and tf32, fp16, bf16 and fp8, at the largest square size measured; error bars span the
    20th to 80th percentile."""
    n = largest(docs)
    found = [(label, best(docs, "triton", p), best(docs, "cublas", p)) for p, label in PRECISIONS]
    found = [f for f in found if f[1] and f[2]]  # a GPU that could not run one: its row says why
    labels = [label for label, _, _ in found]
    ours = render.tflops_points([t for _, t, _ in found])
    roof = render.tflops_points([c for _, _, c in found])
    roof_labels, roles = list(labels), ["cublas"] * len(labels)
    if (fma := docs[BENCH]["ceilings"].get("fma_fp32")) is not None:
        roof_labels.append(FMA_LABEL)
        roof += render.tflops_points([fma])
        roles.append("ceiling")
    share = [f"{o[0] / r[0]:.0%} of the library" for o, r in zip(ours, roof, strict=False)]
    data = [
        bars("Triton tile kernel, best config", "triton", labels, ours, ", %{customdata}",
             customdata=share),
        bars("library (cuBLAS; _scaled_mm for fp8)", roles, roof_labels, roof),
    ]  # fmt: skip
    return render.bar_chart(data, f"TFLOP/s at {n}³<br>(2·n³ FLOPs per product)", "inputs")


FIGURES = {
    "dot-dtypes": Figure(
        "One tile kernel, five input precisions: TFLOP/s against the library", (BENCH,), fig_dtypes
    )
}
