"""Figure and values of the dot family: lesson 05.

Data: ``dot`` (written by scripts/bench/benchmarks/dot.py): the tile kernel of kernels/dot.py
in five input precisions at a few square sizes, one row per block config, and the
matching library rate of the same run (cuBLAS / ``torch._scaled_mm``) as each
precision's roof. Rows that could not run say why in ``skipped``.

And ``dot_tf32``: the same kernel and tile with fp32 inputs as "ieee", "tf32" and
"tf32x3": the PTX's conversions to TF32 and tensor-core instructions, the signed (bias)
and root-mean-square error on positive inputs, and the time.

The figure shows the devices that have ``dot`` data; on a device without it every value
reads "not yet measured".
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

# The worked example of the page: one 128 x 128 output tile, K steps of 32, fp32 inputs, 8
# warps, in a 4096^3 product: the tile and size of the dot_tf32 benchmark
# (scripts/bench/benchmarks/dot.py TF32_CONFIG, TF32_N), so that the PTX counts it measures
# can be predicted from it. Not measured: arithmetic, computed here so the page cannot drift.
EXAMPLE = {
    "block_m": 128,
    "block_n": 128,
    "block_k": 32,
    "num_warps": 8,
    "size": 4096,
    "elem_bytes": 4,
}
# Hopper's TF32 tensor-core instruction, wgmma.m64n128k8: 64 rows by 128 columns by 8 of K,
# issued by a warp group of 4 warps.
WGMMA_TF32 = {"m": 64, "n": 128, "k": 8}


# ---- helpers ----------------------------------------------------------------------------


def measured(docs: Docs) -> bool:
    return BENCH in docs


def timed(docs: Docs, impl: str, precision: str) -> list[dict]:
    """The rows of ``impl`` at ``precision`` that ran (have a time)."""
    return [r for r in render.rows(docs, BENCH, impl=impl, precision=precision) if "time_s" in r]


def largest(docs: Docs) -> int:
    """The largest square size in the data: the size the figure and values are at."""
    return max(r["m"] for r in docs[BENCH]["rows"])


def best(docs: Docs, impl: str, precision: str, n: int | None = None) -> dict | None:
    """The fastest row of ``impl`` at ``precision`` and size n (default: the largest);
    for triton, the best of the block configs. None if it did not run."""
    if not measured(docs):
        return None
    n = largest(docs) if n is None else n
    found = [r for r in timed(docs, impl, precision) if r["m"] == n]
    return max(found, key=render.flop_rate) if found else None


Precision = Literal["ieee", "tf32", "fp16", "bf16", "fp8"]
Impl = Literal["triton", "cublas"]


# ---- values: measured -------------------------------------------------------------------


def size(docs: Docs) -> int | None:
    """The square size (M = N = K) the lesson's numbers are quoted at: the largest run."""
    return largest(docs) if measured(docs) else None


def rate_of(docs: Docs, impl: Impl, precision: Precision) -> float | None:
    """FLOP/s of the tile kernel (triton, best config) or of the library (cublas: cuBLAS,
    torch._scaled_mm for fp8) at ``precision``, largest size; None where it did not run."""
    r = best(docs, impl, precision)
    return None if r is None else render.flop_rate(r)


def over(docs: Docs, of: Precision, to: Precision, impl: Impl = "triton") -> float | None:
    """``impl``'s FLOP/s at precision ``of`` over its FLOP/s at ``to``, largest size."""
    return render.quotient(rate_of(docs, impl, of), rate_of(docs, impl, to))


def of_roof(docs: Docs, precision: Precision) -> float | None:
    """The tile kernel's FLOP/s over the library's, same precision, largest size."""
    return render.quotient(rate_of(docs, "triton", precision), rate_of(docs, "cublas", precision))


def fma_roof(docs: Docs) -> float | None:
    """The run's fp32 CUDA-core ceiling (FLOP/s): kernels/ceilings.py's FMA chains,
    stamped into the dot data by the same run. None for runs made before it existed."""
    return render.fma_rate(docs[BENCH]) if measured(docs) else None


def over_fma(docs: Docs, precision: Precision) -> float | None:
    """The tile kernel's FLOP/s at ``precision`` over the fp32 CUDA-core (FMA) ceiling:
    above 1 means something other than the CUDA cores did the work."""
    return render.quotient(rate_of(docs, "triton", precision), fma_roof(docs))


# ---- values: the worked example (arithmetic, no data) -------------------------------------


Quantity = Literal["step_flops", "step_bytes", "step_intensity", "step_fmas",
                  "fmas_per_thread", "warp_groups", "wgmma_per_step", "rounded_per_thread",
                  "k_steps", "tile_flops", "tiles", "total_flops"]  # fmt: skip


def example(docs: Docs, of: Quantity) -> float:
    """A number of the worked example (EXAMPLE: a 128 x 128 tile, K steps of 32, fp32, 8
    warps, in a 4096^3 product), arithmetic, not measured. One K step of one tile: its
    FLOPs (2 BLOCK_M BLOCK_N BLOCK_K), loaded bytes (an a tile and a b tile), FLOPs per
    byte, fused multiply-adds, and FMA instructions per thread with "ieee"; the warp groups
    (4 warps each), the TF32 tensor-core instructions (wgmma.m64n128k8) one warp group issues
    per K step with "tf32", and the input values each thread rounds to TF32 per K step with
    "tf32x3" (its share of both tiles); then K steps per tile, FLOPs per tile, output tiles
    (programs), and FLOPs of the product, 2 M N K."""
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


# ---- values: what "tf32" does to fp32 inputs (dot_tf32) ------------------------------------

TF32 = "dot_tf32"
Fp32Precision = Literal["ieee", "tf32", "tf32x3"]


def tf32_row(docs: Docs, precision: str) -> dict | None:
    return render.maybe_one(docs, TF32, absent_ok=True, precision=precision)


def ptx_count(
    docs: Docs,
    precision: Fp32Precision,
    op: Literal["cvt_rna_tf32", "wgmma", "mma_sync", "fma_f32"],
) -> int | None:
    """How many ``op`` instructions the PTX of the dot kernel compiled for fp32 inputs with
    ``precision`` holds: cvt.rna.tf32.f32 (an fp32 value rounded to TF32, to nearest),
    wgmma.mma_async or mma.sync (tensor-core products), fma.rn.f32 (CUDA-core FMAs)."""
    return render.field(tf32_row(docs, precision), "ptx", op)


def tf32_error(
    docs: Docs, precision: Fp32Precision, stat: Literal["mean", "rms"] = "mean"
) -> float | None:
    """Relative error of the dot kernel's fp32 product with ``precision`` against the exact
    (float64) product of the same positive inputs, over every element: its mean, signed
    (a bias: negative when the inputs lose value one way, as truncation does), or its
    root mean square."""
    return render.field(tf32_row(docs, precision), f"{stat}_rel_error")


def tf32_ratio(docs: Docs, of: Fp32Precision, to: Fp32Precision) -> float | None:
    """Device time of the dot kernel with precision ``of`` over that with ``to``: same
    size, same block config, same run."""
    return render.time_ratio(tf32_row(docs, of), tf32_row(docs, to))


def tf32_bias(docs: Docs, precision: Fp32Precision) -> str | None:
    """Where the dot kernel's fp32 product with ``precision`` lies against the exact
    product of the same positive inputs, in words: below or above it on average when the
    mean signed error is at least half the root-mean-square error (the errors share one
    sign: a bias, as truncation gives), else centred on it (the errors cancel on average,
    as rounding to nearest gives)."""
    r = tf32_row(docs, precision)
    if r is None:
        return None
    mean, rms = r["mean_rel_error"], r["rms_rel_error"]
    if abs(mean) >= rms / 2:
        side = "below" if mean < 0 else "above"
        return f"{side} the exact product on average, its errors sharing one sign"
    return "centred on the exact product, its errors cancelling on average"


# NVIDIA's datasheet peaks for dense products on the SXM boards, FLOP/s, at the maximum
# boost clock (H100 and H200 share them): TF32, fp16/bf16 and fp8 in the ratio 1 : 2 : 4.
DATASHEET_PEAK = {
    "H100": {"tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12},
    "H200": {"tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12, "fp8": 1978.9e12},
}
TensorPrecision = Literal["tf32", "fp16", "bf16", "fp8"]


def of_peak(docs: Docs, impl: Impl, precision: TensorPrecision) -> float | None:
    """``impl``'s FLOP/s at ``precision`` (largest size) as a fraction of NVIDIA's datasheet
    peak for this GPU (DATASHEET_PEAK); None for a GPU without one there."""
    if not measured(docs):
        return None
    gpu = docs[BENCH]["provenance"]["gpu"]
    peaks = next((v for k, v in DATASHEET_PEAK.items() if k in gpu), None)
    return render.quotient(rate_of(docs, impl, precision), peaks and peaks[precision])


def clock_share(docs: Docs) -> float | None:
    """The SM clock right after the dot benchmark ran, as a fraction of its maximum."""
    if not measured(docs):
        return None
    clocks = docs[BENCH]["provenance"].get("clocks_after") or {}
    return render.quotient(clocks.get("sm_mhz"), clocks.get("sm_max_mhz"))


def sci(v: float) -> str:
    """A small number in scientific notation, two significant figures: '−6.5 × 10⁻⁴'."""
    if v == 0:
        return "0"
    mantissa, exponent = f"{v:.1e}".split("e")
    return f"{mantissa.replace('-', '−')} × 10{str(int(exponent)).translate(render.SUPERSCRIPT)}"


VALUES = {
    "dot.size": Value(size, render.plain, missing=NOT_YET),
    "dot.tflops": Value(rate_of, render.tflops, missing=NOT_YET),
    "dot.over": Value(over, render.ratio, missing=NOT_YET),
    "dot.of_roof": Value(of_roof, render.percent, missing=NOT_YET),
    "dot.fma_roof": Value(fma_roof, render.tflops, missing=NOT_YET),
    "dot.over_fma": Value(over_fma, render.ratio, missing=NOT_YET),
    "dot.example": Value(example, render.count),
    "dot.ptx_count": Value(ptx_count, render.count, missing="not measured"),
    "dot.tf32_error": Value(tf32_error, sci, missing="not measured"),
    "dot.tf32_ratio": Value(tf32_ratio, render.ratio, missing="not measured"),
    "dot.tf32_bias": Value(tf32_bias, missing="not measured"),
    "dot.of_peak": Value(of_peak, render.percent, missing="no datasheet peak for this GPU"),
    "dot.clock_share": Value(clock_share, render.percent, missing=NOT_YET),
}


# ---- the figure ---------------------------------------------------------------------------


def bars(name: str, role, labels: list[str], points: list, text: list[str]) -> dict:
    """TFLOP/s bars, labelled with ``text``."""
    hover = "%{x:.0f} TFLOP/s"
    return render.hbar(labels, points, role, name=name, hover=hover, text=text, textposition="auto")


def fig_dtypes(docs: Docs) -> dict:
    n = largest(docs)
    labels, ours, roof, text = [], [], [], []
    for precision, label in PRECISIONS:
        t, c = best(docs, "triton", precision), best(docs, "cublas", precision)
        if t is None or c is None:
            continue  # this GPU could not run it (the data row says why)
        labels.append(label)
        ours += render.tflops_points([t])
        roof += render.tflops_points([c])
        # One unit on the axis and on every bar: TFLOP/s (the share of the library is
        # in the hover and the text).
        text.append(f"{ours[-1][0]:.0f}")
    roles = ["cublas"] * len(labels)
    roof_labels, roof_text = list(labels), [f"{p[0]:.0f}" for p in roof]
    fma = docs[BENCH]["ceilings"].get("fma_fp32")
    if fma is not None:
        # The control for "ieee": what fp32 FMAs on the CUDA cores reach in this run.
        roof_labels.append(FMA_LABEL)
        roof += render.tflops_points([fma])
        roof_text.append(f"{roof[-1][0]:.0f}")
        roles.append("ceiling")
    share = [f"{o[0] / r[0]:.0%} of the library" for o, r in zip(ours, roof, strict=False)]
    triton = bars("Triton tile kernel, best config", "triton", labels, ours, text)
    triton["customdata"] = share
    triton["hovertemplate"] = "%{x:.0f} TFLOP/s, %{customdata}<extra>%{fullData.name}</extra>"
    data = [
        triton,
        bars("library (cuBLAS; _scaled_mm for fp8)", roles, roof_labels, roof, roof_text),
    ]
    return render.plot(
        data,
        barmode="group",
        xaxis=render.axis(f"TFLOP/s at {n}³<br>(2·n³ FLOPs per product)", rangemode="tozero"),
        yaxis=render.label_axis("inputs"),
    )


FIGURES = {
    "dot-dtypes": Figure(
        "One tile kernel, five input precisions: TFLOP/s against the library",
        (BENCH,),
        fig_dtypes,
        "Horizontal grouped bars of TFLOP/s for the Triton tile kernel of kernels/dot.py "
        "(best of three block configs) and the library's rate at the same precision: fp32 "
        "with input_precision ieee and tf32, fp16, bf16 and fp8, at the largest square "
        "size measured; error bars span the 20th to 80th percentile.",
    ),
}
