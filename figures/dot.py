"""Figure and values of the dot family: lesson 05.

Data: ``dot`` (written by scripts/bench/benchmarks/dot.py): the tile kernel of kernels/dot.py
in five input precisions at a few square sizes, one row per block config, and the
matching library rate of the same run (cuBLAS / ``torch._scaled_mm``) as each
precision's roof. Rows that could not run say why in ``skipped``.

The figure shows the devices that have ``dot`` data; on a device without it every value
reads "not yet measured".
"""

from __future__ import annotations

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    count,
    error_bars,
    percent,
    rate,
    ratio,
    tflops,
)

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

# The worked example of the page: one 128 x 128 output tile, K steps of 64, fp16 inputs,
# in a 4096^3 product. Not measured: arithmetic, computed here so the page cannot drift.
EXAMPLE = {
    "block_m": 128,
    "block_n": 128,
    "block_k": 64,
    "num_warps": 8,
    "size": 4096,
    "elem_bytes": 2,
}


def pending(fmt):
    """``fmt``, except that None (no ``dot`` data on this device yet, or a precision this
    GPU cannot run) reads as words."""

    def show(v) -> str:
        return NOT_YET if v is None else fmt(v)

    return show


# ---- helpers ----------------------------------------------------------------------------


def measured(docs: Docs) -> bool:
    return BENCH in docs


def timed(docs: Docs, impl: str, precision: str) -> list[dict]:
    """The rows of ``impl`` at ``precision`` that ran (have a time)."""
    return [
        r
        for r in docs[BENCH]["rows"]
        if r["impl"] == impl and r["precision"] == precision and "time_s" in r
    ]


def largest(docs: Docs) -> int:
    """The largest square size in the data: the size the figure and values are at."""
    return max(r["m"] for r in docs[BENCH]["rows"])


def flop_rate(row: dict) -> float:
    return row["flops"] / row["time_s"]["p50"]


def best(docs: Docs, impl: str, precision: str, n: int | None = None) -> dict | None:
    """The fastest row of ``impl`` at ``precision`` and size n (default: the largest);
    for triton, the best of the block configs. None if it did not run."""
    if not measured(docs):
        return None
    n = largest(docs) if n is None else n
    found = [r for r in timed(docs, impl, precision) if r["m"] == n]
    return max(found, key=flop_rate) if found else None


def rate_of(docs: Docs, impl: str, precision: str) -> float | None:
    r = best(docs, impl, precision)
    return None if r is None else flop_rate(r)


def triton_over(docs: Docs, fast: str, slow: str) -> float | None:
    """The tile kernel's FLOP/s at ``fast`` over its FLOP/s at ``slow``, largest size."""
    f, s = rate_of(docs, "triton", fast), rate_of(docs, "triton", slow)
    return None if f is None or s is None else f / s


def of_roof(docs: Docs, precision: str) -> float | None:
    """The tile kernel's FLOP/s over the library's, same precision, largest size."""
    t, c = rate_of(docs, "triton", precision), rate_of(docs, "cublas", precision)
    return None if t is None or c is None else t / c


# ---- values -------------------------------------------------------------------------------


def size(docs: Docs) -> int | None:
    """The square size (M = N = K) the lesson's numbers are quoted at: the largest run."""
    return largest(docs) if measured(docs) else None


def bf16_over_ieee(docs: Docs) -> float | None:
    """Tile kernel: bf16 FLOP/s over fp32 "ieee" FLOP/s, largest size."""
    return triton_over(docs, "bf16", "ieee")


def tf32_over_ieee(docs: Docs) -> float | None:
    """Tile kernel: fp32 "tf32" FLOP/s over fp32 "ieee" FLOP/s, largest size."""
    return triton_over(docs, "tf32", "ieee")


def bf16_over_tf32(docs: Docs) -> float | None:
    """Tile kernel: bf16 FLOP/s over fp32 "tf32" FLOP/s, largest size."""
    return triton_over(docs, "bf16", "tf32")


def fp8_over_bf16(docs: Docs) -> float | None:
    """Tile kernel: fp8 FLOP/s over bf16 FLOP/s, largest size (None without fp8)."""
    return triton_over(docs, "fp8", "bf16")


def cublas_bf16_over_ieee(docs: Docs) -> float | None:
    """Library: bf16 FLOP/s over fp32 ieee (no TF32) FLOP/s, largest size."""
    b, i = rate_of(docs, "cublas", "bf16"), rate_of(docs, "cublas", "ieee")
    return None if b is None or i is None else b / i


def fma_roof(docs: Docs) -> float | None:
    """The run's fp32 CUDA-core ceiling (FLOP/s): kernels/ceilings.py's FMA chains,
    stamped into the dot data by the same run. None for runs made before it existed."""
    if not measured(docs):
        return None
    fma = docs[BENCH]["ceilings"].get("fma_fp32")
    return fma["flops"] / fma["time_s"]["p50"] if fma else None


def ieee_of_fma(docs: Docs) -> float | None:
    """Tile kernel at fp32 "ieee" over the run's fp32 CUDA-core (FMA) ceiling."""
    t, f = rate_of(docs, "triton", "ieee"), fma_roof(docs)
    return None if t is None or f is None else t / f


def tf32_over_fma(docs: Docs) -> float | None:
    """Tile kernel at fp32 "tf32" over the fp32 CUDA-core ceiling: above 1 means the
    tf32 kernel does more than the CUDA cores can, so something else did the work."""
    t, f = rate_of(docs, "triton", "tf32"), fma_roof(docs)
    return None if t is None or f is None else t / f


def _rate_value(impl: str, precision: str):
    def value(docs: Docs) -> float | None:
        return rate_of(docs, impl, precision)

    who = "the tile kernel (best config)" if impl == "triton" else "the library"
    value.__name__ = f"{impl}_{precision}"
    value.__doc__ = f"FLOP/s of {who} at {precision}, largest size."
    return value


def _roof_value(precision: str):
    def value(docs: Docs) -> float | None:
        return of_roof(docs, precision)

    value.__name__ = f"of_roof_{precision}"
    value.__doc__ = f"Tile kernel FLOP/s over the library's at {precision}, largest size."
    return value


def step_flops(docs: Docs) -> int:
    """FLOPs of one K step of one tile: 2 * BLOCK_M * BLOCK_N * BLOCK_K (a multiply and
    an add per term)."""
    return 2 * EXAMPLE["block_m"] * EXAMPLE["block_n"] * EXAMPLE["block_k"]


def step_bytes(docs: Docs) -> int:
    """Bytes one K step loads: a BLOCK_M x BLOCK_K tile of a and a BLOCK_K x BLOCK_N tile
    of b, fp16."""
    e = EXAMPLE
    return (e["block_m"] + e["block_n"]) * e["block_k"] * e["elem_bytes"]


def step_intensity(docs: Docs) -> float:
    """FLOPs per loaded byte of one K step."""
    return step_flops(docs) / step_bytes(docs)


def step_fmas(docs: Docs) -> int:
    """Fused multiply-adds of one K step of one tile: BLOCK_M * BLOCK_N * BLOCK_K."""
    return EXAMPLE["block_m"] * EXAMPLE["block_n"] * EXAMPLE["block_k"]


def fmas_per_thread(docs: Docs) -> int:
    """FMA instructions each thread issues per K step with "ieee", 8 warps of 32 threads."""
    return step_fmas(docs) // (EXAMPLE["num_warps"] * 32)


def k_steps(docs: Docs) -> int:
    """K steps of one tile in the 4096^3 example."""
    return EXAMPLE["size"] // EXAMPLE["block_k"]


def tile_flops(docs: Docs) -> int:
    """FLOPs of one whole tile in the 4096^3 example: all its K steps."""
    return step_flops(docs) * k_steps(docs)


def tiles(docs: Docs) -> int:
    """Output tiles (programs) of the 4096^3 example."""
    e = EXAMPLE
    return (e["size"] // e["block_m"]) * (e["size"] // e["block_n"])


def total_flops(docs: Docs) -> int:
    """FLOPs of the whole 4096^3 product, 2 * M * N * K; equals tiles x tile FLOPs."""
    return 2 * EXAMPLE["size"] ** 3


def whole1(v: float) -> str:
    """A number with no decimals."""
    return f"{v:.0f}"


VALUES = {
    "dot.size": Value(size, pending(str)),
    "dot.bf16_over_ieee": Value(bf16_over_ieee, pending(ratio)),
    "dot.tf32_over_ieee": Value(tf32_over_ieee, pending(ratio)),
    "dot.bf16_over_tf32": Value(bf16_over_tf32, pending(ratio)),
    "dot.fp8_over_bf16": Value(fp8_over_bf16, pending(ratio)),
    "dot.cublas_bf16_over_ieee": Value(cublas_bf16_over_ieee, pending(ratio)),
    "dot.fma_roof": Value(fma_roof, pending(tflops)),
    "dot.ieee_of_fma": Value(ieee_of_fma, pending(percent)),
    "dot.tf32_over_fma": Value(tf32_over_fma, pending(ratio)),
    "dot.step_flops": Value(step_flops, count),
    "dot.step_bytes": Value(step_bytes, count),
    "dot.step_intensity": Value(step_intensity, whole1),
    "dot.k_steps": Value(k_steps, count),
    "dot.step_fmas": Value(step_fmas, count),
    "dot.fmas_per_thread": Value(fmas_per_thread, count),
    "dot.tile_flops": Value(tile_flops, count),
    "dot.tiles": Value(tiles, count),
    "dot.total_flops": Value(total_flops, count),
}
for _p, _ in PRECISIONS:
    VALUES[f"dot.triton_{_p}"] = Value(_rate_value("triton", _p), pending(tflops))
    VALUES[f"dot.cublas_{_p}"] = Value(_rate_value("cublas", _p), pending(tflops))
    VALUES[f"dot.of_roof_{_p}"] = Value(_roof_value(_p), pending(percent))


# ---- the figure ---------------------------------------------------------------------------


def bars(name: str, role, labels: list[str], points: list, text: list[str]) -> dict:
    """Horizontal bars with the 20th-80th percentile as error bars; ``role`` is one
    colour role, or a list of one per bar."""
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": labels,
        "x": [p[0] for p in points],
        "error_x": error_bars(points),
        "text": text,
        "textposition": "auto",
        "textangle": 0,
        "meta": {"role": "bars", "roles": role if isinstance(role, list) else [role] * len(labels)},
        "hovertemplate": "%{x:.0f} TFLOP/s<extra>%{fullData.name}</extra>",
    }


def fig_dtypes(docs: Docs) -> dict:
    n = largest(docs)
    labels, ours, roof, text = [], [], [], []
    for precision, label in PRECISIONS:
        t, c = best(docs, "triton", precision), best(docs, "cublas", precision)
        if t is None or c is None:
            continue  # this GPU could not run it (the data row says why)
        labels.append(label)
        ours.append(rate(t["flops"], t["time_s"], 1e12))
        roof.append(rate(c["flops"], c["time_s"], 1e12))
        text.append(f"{ours[-1][0] / roof[-1][0]:.0%} of library")
    roles = ["cublas"] * len(labels)
    roof_labels, roof_text = list(labels), [f"{p[0]:.0f}" for p in roof]
    fma = docs[BENCH]["ceilings"].get("fma_fp32")
    if fma is not None:
        # The control for "ieee": what fp32 FMAs on the CUDA cores reach in this run.
        roof_labels.append(FMA_LABEL)
        roof.append(rate(fma["flops"], fma["time_s"], 1e12))
        roof_text.append(f"{roof[-1][0]:.0f}")
        roles.append("ceiling")
    data = [
        bars("Triton tile kernel, best config", "triton", labels, ours, text),
        bars("library (cuBLAS; _scaled_mm for fp8)", roles, roof_labels, roof, roof_text),
    ]
    return {
        "data": data,
        "layout": {
            "barmode": "group",
            "xaxis": axis(f"TFLOP/s at {n}³<br>(2·n³ FLOPs per product)", rangemode="tozero"),
            "yaxis": {"automargin": True, "autorange": "reversed", "title": {"text": "inputs"}},
        },
    }


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
