"""Figures and values of the matmul family: lesson 09 (lesson 13's config sweep and the
autotuner's cost are in figures/matmul_autotune.py).

Data: ``matmul`` (square sizes, Triton / cuBLAS / torch.compile), ``matmul_llm`` (LLM
projection shapes), ``matmul_grouped`` (program order) and ``matmul_epilogue`` (fused
bias + GELU against cuBLAS and an eager epilogue), all written by
scripts/bench/benchmarks/matmul.py.

It also holds the tile-load model of program order (pure Python, tested in
tests/kernels/test_matmul.py): which output tile each program id computes, as
kernels/matmul.py maps it, and how many input tiles the programs that run at the same
time need between them.
"""

from __future__ import annotations

from scripts.book.render import (
    Docs,
    Figure,
    Value,
    axis,
    count,
    doc,
    duration,
    error_bars,
    line,
    matmul_rate,
    micros,
    millis,
    or_not_measured,
    percent,
    plain,
    rate,
    ratio,
    rows,
    tbps,
    tflops,
)
from scripts.book.render import copy_bw as run_copy_bw

DTYPES = (("float16", "fp16"), ("bfloat16", "bf16"))

# ---- the tile-load model of program order -------------------------------------------------


def program_tiles(num_pid_m: int, num_pid_n: int, group_m: int) -> list[tuple[int, int]]:
    """(pid_m, pid_n), the output tile, of each program id in launch order, computed as
    kernels/matmul.py computes it. group_m = 1 is row-major order."""
    tiles = []
    for pid in range(num_pid_m * num_pid_n):
        in_group = group_m * num_pid_n
        first_m = (pid // in_group) * group_m
        size_m = min(num_pid_m - first_m, group_m)
        tiles.append((first_m + (pid % in_group) % size_m, (pid % in_group) // size_m))
    return tiles


def tile_loads(
    num_pid_m: int,
    num_pid_n: int,
    k_tiles: int,
    group_m: int,
    wave: int,
    waves: int | None = None,
) -> tuple[int, int]:
    """(a tiles, b tiles) read from memory under the counting convention of lesson 09.

    The programs run in waves of ``wave`` consecutive program ids. Within a wave an
    input tile is read once, however many programs of the wave use it (they share it
    through the L2 cache); nothing is kept from one wave to the next. A program for
    output tile (m, n) uses a tiles (m, 0..k_tiles-1) and b tiles (0..k_tiles-1, n), so
    a wave reads k_tiles tiles of ``a`` per distinct tile row it touches and k_tiles of
    ``b`` per distinct tile column. ``waves``: count only the first so many waves
    (None: all)."""
    order = program_tiles(num_pid_m, num_pid_n, group_m)
    a_tiles = b_tiles = 0
    for i, start in enumerate(range(0, len(order), wave)):
        if waves is not None and i >= waves:
            break
        chunk = order[start : start + wave]
        a_tiles += k_tiles * len({m for m, _ in chunk})
        b_tiles += k_tiles * len({n for _, n in chunk})
    return a_tiles, b_tiles


def modelled_bytes(row: dict, wave: int) -> int:
    """Bytes read from memory at a matmul_grouped row's size, config and order, by the
    tile-load model with waves of ``wave`` programs (one per SM; 1: no sharing at all)."""
    bm, bn, bk = row["block_m"], row["block_n"], row["block_k"]
    tiles_m, tiles_n = -(-row["m"] // bm), -(-row["n"] // bn)
    a_tiles, b_tiles = tile_loads(tiles_m, tiles_n, -(-row["k"] // bk), row["group_m"], wave)
    elem = 2  # fp16
    return a_tiles * bm * bk * elem + b_tiles * bk * bn * elem


# ---- helpers ----------------------------------------------------------------------------


def flop_rate(row: dict) -> float:
    """Median FLOP/s of a row."""
    return row["flops"] / row["time_s"]["p50"]


def one(docs: Docs, bench: str, **match) -> dict:
    found = rows(docs, bench, **match)
    if len(found) != 1:
        raise ValueError(f"{bench} has {len(found)} rows matching {match}")
    return found[0]


def square(docs: Docs, impl: str, dtype: str, n: int) -> dict:
    return one(docs, "matmul", impl=impl, dtype=dtype, m=n)


def vs_cublas(docs: Docs, dtype: str, n: int) -> float:
    return flop_rate(square(docs, "triton", dtype, n)) / flop_rate(square(docs, "cublas", dtype, n))


def llm(docs: Docs, impl: str, m: int) -> dict:
    return one(docs, "matmul_llm", impl=impl, m=m)


def llm_vs_cublas(docs: Docs, m: int) -> float:
    return flop_rate(llm(docs, "triton", m)) / flop_rate(llm(docs, "cublas", m))


def grouped(docs: Docs, group_m: int) -> dict:
    return one(docs, "matmul_grouped", group_m=group_m)


def sm_count(docs: Docs) -> int:
    return doc(docs, "matmul_grouped")["provenance"]["sm_count"]


def epilogue(docs: Docs, impl: str, n: int) -> dict:
    return one(docs, "matmul_epilogue", impl=impl, m=n)


def epilogue_speedup(docs: Docs, peer: str, n: int) -> float:
    """Time of ``peer`` over the fused Triton kernel's at n^3."""
    fused = epilogue(docs, "triton_fused", n)["time_s"]["p50"]
    return epilogue(docs, peer, n)["time_s"]["p50"] / fused


def span(s: dict, scale: float, unit: str, digits: int) -> str:
    """The 20th to 80th percentile of a time spread, as text: "49.7–85.4 µs"."""
    return f"{s['p20'] * scale:.{digits}f}–{s['p80'] * scale:.{digits}f} {unit}"


def percent1(v: float) -> str:
    """A percentage with one decimal, for a ratio that sits next to a target's edge."""
    return f"{v:.1%}"


BENCHES = ("matmul", "matmul_llm", "matmul_grouped", "matmul_epilogue")


# ---- values: clocks ------------------------------------------------------------------------


def sm_clock_after(docs: Docs) -> str:
    """Lowest to highest SM clock read right after each of the family's benchmarks, MHz."""
    mhz = [doc(docs, b)["provenance"]["clocks_after"]["sm_mhz"] for b in BENCHES]
    return f"{min(mhz):.0f}–{max(mhz):.0f} MHz"


def sm_clock_max(docs: Docs) -> str:
    """The SM clock's maximum as the driver reports it, MHz."""
    return f"{doc(docs, 'matmul')['provenance']['clocks_after']['sm_max_mhz']:.0f} MHz"


# ---- values: squares -----------------------------------------------------------------------


def triton_fp16_4096(docs: Docs) -> float:
    """Triton's FLOP/s at 4096^3 fp16."""
    return flop_rate(square(docs, "triton", "float16", 4096))


def cublas_fp16_4096(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 4096^3 fp16."""
    return flop_rate(square(docs, "cublas", "float16", 4096))


def triton_fp16_8192(docs: Docs) -> float:
    """Triton's FLOP/s at 8192^3 fp16."""
    return flop_rate(square(docs, "triton", "float16", 8192))


def cublas_fp16_8192(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 8192^3 fp16."""
    return flop_rate(square(docs, "cublas", "float16", 8192))


def triton_bf16_4096(docs: Docs) -> float:
    """Triton's FLOP/s at 4096^3 bf16."""
    return flop_rate(square(docs, "triton", "bfloat16", 4096))


def cublas_bf16_4096(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 4096^3 bf16."""
    return flop_rate(square(docs, "cublas", "bfloat16", 4096))


def triton_bf16_8192(docs: Docs) -> float:
    """Triton's FLOP/s at 8192^3 bf16."""
    return flop_rate(square(docs, "triton", "bfloat16", 8192))


def cublas_bf16_8192(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 8192^3 bf16."""
    return flop_rate(square(docs, "cublas", "bfloat16", 8192))


def vs_cublas_fp16_4096(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 4096^3 fp16 (the target is at least 95%)."""
    return vs_cublas(docs, "float16", 4096)


def vs_cublas_fp16_8192(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 8192^3 fp16 (the target is at least 95%)."""
    return vs_cublas(docs, "float16", 8192)


def vs_cublas_bf16_4096(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 4096^3 bf16 (the target is at least 95%)."""
    return vs_cublas(docs, "bfloat16", 4096)


def vs_cublas_bf16_8192(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 8192^3 bf16 (the target is at least 95%)."""
    return vs_cublas(docs, "bfloat16", 8192)


def min_vs_cublas(docs: Docs) -> float:
    """The lowest Triton / cuBLAS ratio over fp16 and bf16 at 4096^3 and 8192^3."""
    return min(vs_cublas(docs, d, n) for d, _ in DTYPES for n in (4096, 8192))


def vs_cublas_fp16_512(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 512^3 fp16, the smallest size."""
    return vs_cublas(docs, "float16", 512)


def vs_cublas_fp16_1024(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 1024^3 fp16."""
    return vs_cublas(docs, "float16", 1024)


def vs_cublas_bf16_512(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 512^3 bf16, the smallest size."""
    return vs_cublas(docs, "bfloat16", 512)


def vs_cublas_bf16_1024(docs: Docs) -> float:
    """Triton's FLOP/s over cuBLAS's at 1024^3 bf16."""
    return vs_cublas(docs, "bfloat16", 1024)


def triton_bf16_512(docs: Docs) -> float:
    """Triton's FLOP/s at 512^3 bf16."""
    return flop_rate(square(docs, "triton", "bfloat16", 512))


def cublas_bf16_512(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 512^3 bf16."""
    return flop_rate(square(docs, "cublas", "bfloat16", 512))


def triton_bf16_1024(docs: Docs) -> float:
    """Triton's FLOP/s at 1024^3 bf16."""
    return flop_rate(square(docs, "triton", "bfloat16", 1024))


def cublas_bf16_1024(docs: Docs) -> float:
    """cuBLAS's FLOP/s at 1024^3 bf16."""
    return flop_rate(square(docs, "cublas", "bfloat16", 1024))


def triton_fp16_512_time(docs: Docs) -> float:
    """Triton's median time at 512^3 fp16, seconds."""
    return square(docs, "triton", "float16", 512)["time_s"]["p50"]


def triton_bf16_512_time(docs: Docs) -> float:
    """Triton's median time at 512^3 bf16, seconds."""
    return square(docs, "triton", "bfloat16", 512)["time_s"]["p50"]


def cublas_bf16_512_time(docs: Docs) -> float:
    """cuBLAS's median time at 512^3 bf16, seconds."""
    return square(docs, "cublas", "bfloat16", 512)["time_s"]["p50"]


def triton_bf16_512_span(docs: Docs) -> str:
    """20th to 80th percentile of Triton's time at 512^3 bf16."""
    return span(square(docs, "triton", "bfloat16", 512)["time_s"], 1e6, "µs", 1)


def cublas_bf16_512_span(docs: Docs) -> str:
    """20th to 80th percentile of cuBLAS's time at 512^3 bf16."""
    return span(square(docs, "cublas", "bfloat16", 512)["time_s"], 1e6, "µs", 1)


def triton_fp16_512_span(docs: Docs) -> str:
    """20th to 80th percentile of Triton's time at 512^3 fp16."""
    return span(square(docs, "triton", "float16", 512)["time_s"], 1e6, "µs", 1)


def cublas_fp16_8192_span(docs: Docs) -> str:
    """20th to 80th percentile of cuBLAS's time at 8192^3 fp16."""
    return span(square(docs, "cublas", "float16", 8192)["time_s"], 1e3, "ms", 2)


def triton_fp16_8192_span(docs: Docs) -> str:
    """20th to 80th percentile of Triton's time at 8192^3 fp16."""
    return span(square(docs, "triton", "float16", 8192)["time_s"], 1e3, "ms", 2)


def run_cublas_fp16_8192(docs: Docs) -> float:
    """cuBLAS fp16 8192^3 FLOP/s as the same run measured it for its ceilings (a second,
    separate timing of the same product, before the family's benchmarks)."""
    return matmul_rate(doc(docs, "matmul"), "float16")


def vs_run_cublas_fp16_8192(docs: Docs) -> float:
    """Triton's FLOP/s at 8192^3 fp16 over the run's ceiling timing of cuBLAS at that size."""
    return triton_fp16_8192(docs) / run_cublas_fp16_8192(docs)


def compile_fp16_4096(docs: Docs) -> float:
    """torch.compile max-autotune (Triton templates) FLOP/s at 4096^3 fp16."""
    return flop_rate(square(docs, "compile", "float16", 4096))


def compile_bf16_4096(docs: Docs) -> float:
    """torch.compile max-autotune (Triton templates) FLOP/s at 4096^3 bf16."""
    return flop_rate(square(docs, "compile", "bfloat16", 4096))


def vs_compile_fp16_4096(docs: Docs) -> float:
    """The book's kernel over torch.compile's Triton templates, FLOP/s at 4096^3 fp16."""
    return triton_fp16_4096(docs) / compile_fp16_4096(docs)


def vs_compile_bf16_4096(docs: Docs) -> float:
    """The book's kernel over torch.compile's Triton templates, FLOP/s at 4096^3 bf16."""
    return triton_bf16_4096(docs) / compile_bf16_4096(docs)


def seconds_4096(docs: Docs) -> float:
    """Triton's median time for one 4096^3 fp16 matmul, seconds."""
    return square(docs, "triton", "float16", 4096)["time_s"]["p50"]


# ---- values: LLM shapes ------------------------------------------------------------------


def llm_vs_cublas_16(docs: Docs) -> float:
    """Triton over cuBLAS (FLOP/s) at M=16 tokens x 4096 @ 4096 x 14336, bf16."""
    return llm_vs_cublas(docs, 16)


def llm_vs_cublas_128(docs: Docs) -> float:
    """Triton over cuBLAS (FLOP/s) at M=128 tokens x 4096 @ 4096 x 14336, bf16."""
    return llm_vs_cublas(docs, 128)


def llm_vs_cublas_1024(docs: Docs) -> float:
    """Triton over cuBLAS (FLOP/s) at M=1024 tokens x 4096 @ 4096 x 14336, bf16."""
    return llm_vs_cublas(docs, 1024)


def llm_vs_cublas_4096(docs: Docs) -> float:
    """Triton over cuBLAS (FLOP/s) at M=4096 tokens x 4096 @ 4096 x 14336, bf16."""
    return llm_vs_cublas(docs, 4096)


def llm_triton_128_span(docs: Docs) -> str:
    """20th to 80th percentile of Triton's time at M=128 tokens."""
    return span(llm(docs, "triton", 128)["time_s"], 1e6, "µs", 0)


def llm_cublas_128_span(docs: Docs) -> str:
    """20th to 80th percentile of cuBLAS's time at M=128 tokens."""
    return span(llm(docs, "cublas", 128)["time_s"], 1e6, "µs", 0)


def llm_triton_bw_16(docs: Docs) -> float:
    """Triton's achieved bandwidth at M=16 (bytes of a, W and out over time)."""
    r = llm(docs, "triton", 16)
    return r["bytes"] / r["time_s"]["p50"]


def llm_cublas_bw_16(docs: Docs) -> float:
    """cuBLAS's achieved bandwidth at M=16 (bytes of a, W and out over time)."""
    r = llm(docs, "cublas", 16)
    return r["bytes"] / r["time_s"]["p50"]


def llm_triton_16_of_copy(docs: Docs) -> float:
    """Triton's bandwidth at M=16 over the measured copy bandwidth."""
    d = doc(docs, "matmul_llm")
    copy = d["ceilings"]["copy"]["bytes"] / d["ceilings"]["copy"]["time_s"]["p50"]
    return llm_triton_bw_16(docs) / copy


def llm_weight_mb(docs: Docs) -> str:
    """Size of the 14336 x 4096 bf16 weight, MB."""
    r = llm(docs, "triton", 16)
    return f"{r['n'] * r['k'] * 2 / 1e6:.0f} MB"


# ---- values: program order ---------------------------------------------------------------


def example_rowmajor(docs: Docs) -> int:
    """Tiles the first 9 programs load on a 9 x 9 tile grid (K = 9 tiles), row-major."""
    return sum(tile_loads(9, 9, 9, 1, 9, waves=1))


def example_grouped(docs: Docs) -> int:
    """Tiles the first 9 programs load on a 9 x 9 tile grid (K = 9 tiles), group_m = 3."""
    return sum(tile_loads(9, 9, 9, 3, 9, waves=1))


def grouped_tflops(docs: Docs) -> float:
    """FLOP/s at 8192^3 fp16 in grouped order (group_m = 8)."""
    return flop_rate(grouped(docs, 8))


def rowmajor_tflops(docs: Docs) -> float:
    """FLOP/s at 8192^3 fp16 in row-major order (group_m = 1), same config."""
    return flop_rate(grouped(docs, 1))


def grouped_speedup(docs: Docs) -> float:
    """Grouped order's FLOP/s over row-major's, same config, 8192^3 fp16."""
    return grouped_tflops(docs) / rowmajor_tflops(docs)


def grouped_config(docs: Docs) -> str:
    """The config both orders ran with: BLOCK_M x BLOCK_N x BLOCK_K, warps, stages."""
    r = grouped(docs, 8)
    return (
        f"{r['block_m']} × {r['block_n']} × {r['block_k']}, {r['num_warps']} warps, "
        f"{r['num_stages']} stages"
    )


def grouped_programs(docs: Docs) -> int:
    """Programs (output tiles) of the 8192^3 grid at the grouped benchmark's config."""
    r = grouped(docs, 8)
    return -(-r["m"] // r["block_m"]) * -(-r["n"] // r["block_n"])


def grouped_wave(docs: Docs) -> int:
    """Programs per wave in the model: one per SM."""
    return sm_count(docs)


def model_rowmajor_gb(docs: Docs) -> str:
    """Modelled bytes read at 8192^3 in row-major order, GB."""
    return f"{modelled_bytes(grouped(docs, 1), sm_count(docs)) / 1e9:.1f} GB"


def model_grouped_gb(docs: Docs) -> str:
    """Modelled bytes read at 8192^3 in grouped order (group_m = 8), GB."""
    return f"{modelled_bytes(grouped(docs, 8), sm_count(docs)) / 1e9:.1f} GB"


def model_ratio(docs: Docs) -> float:
    """Modelled bytes read, row-major over grouped, at 8192^3."""
    wave = sm_count(docs)
    return modelled_bytes(grouped(docs, 1), wave) / modelled_bytes(grouped(docs, 8), wave)


def copy_bw(docs: Docs, bench: str) -> float:
    """The measured copy bandwidth of the run that wrote ``bench``, bytes per second."""
    return run_copy_bw(doc(docs, bench))


def model_unshared_gb(docs: Docs) -> str:
    """Bytes read at 8192^3 if no two programs shared a tile (every program reads its own
    row of a and column of b from memory), GB."""
    return f"{modelled_bytes(grouped(docs, 8), 1) / 1e9:.1f} GB"


def model_unshared_ms(docs: Docs) -> float:
    """The unshared bytes at 8192^3 over the measured copy bandwidth, seconds."""
    return modelled_bytes(grouped(docs, 8), 1) / copy_bw(docs, "matmul_grouped")


def model_rowmajor_ms(docs: Docs) -> float:
    """Modelled row-major bytes at 8192^3 over the measured copy bandwidth, seconds."""
    return modelled_bytes(grouped(docs, 1), sm_count(docs)) / copy_bw(docs, "matmul_grouped")


def model_grouped_ms(docs: Docs) -> float:
    """Modelled grouped bytes at 8192^3 over the measured copy bandwidth, seconds."""
    return modelled_bytes(grouped(docs, 8), sm_count(docs)) / copy_bw(docs, "matmul_grouped")


def grouped_ms(docs: Docs) -> float:
    """Measured time of the grouped-order matmul at 8192^3 fp16, seconds."""
    return grouped(docs, 8)["time_s"]["p50"]


def rowmajor_ms(docs: Docs) -> float:
    """Measured time of the row-major-order matmul at 8192^3 fp16, seconds."""
    return grouped(docs, 1)["time_s"]["p50"]


def grouped_span(docs: Docs) -> str:
    """20th to 80th percentile of the grouped-order time at 8192^3 fp16."""
    return span(grouped(docs, 8)["time_s"], 1e3, "ms", 2)


def rowmajor_span(docs: Docs) -> str:
    """20th to 80th percentile of the row-major-order time at 8192^3 fp16."""
    return span(grouped(docs, 1)["time_s"], 1e3, "ms", 2)


def compulsory_gb(docs: Docs) -> str:
    """Bytes of a and b at 8192^3 fp16, each read once: the least any order can read, GB."""
    r = grouped(docs, 8)
    return f"{(r['m'] * r['k'] + r['k'] * r['n']) * 2 / 1e9:.2f} GB"


# ---- values: fused epilogue --------------------------------------------------------------


def fused_ms_8192(docs: Docs) -> float:
    """Fused Triton matmul + bias + GELU at 8192^3 bf16, seconds."""
    return epilogue(docs, "triton_fused", 8192)["time_s"]["p50"]


def eager_ms_8192(docs: Docs) -> float:
    """cuBLAS matmul, then bias add and GELU in eager, at 8192^3 bf16, seconds."""
    return epilogue(docs, "cublas_eager", 8192)["time_s"]["p50"]


def addmm_ms_8192(docs: Docs) -> float:
    """torch.addmm (cuBLAS with the bias), then GELU, at 8192^3 bf16, seconds."""
    return epilogue(docs, "cublas_addmm", 8192)["time_s"]["p50"]


def speedup_vs_eager_4096(docs: Docs) -> float:
    """cuBLAS + eager epilogue time over the fused kernel's, 4096^3 bf16 (target 1.15x)."""
    return epilogue_speedup(docs, "cublas_eager", 4096)


def speedup_vs_eager_8192(docs: Docs) -> float:
    """cuBLAS + eager epilogue time over the fused kernel's, 8192^3 bf16 (target 1.15x)."""
    return epilogue_speedup(docs, "cublas_eager", 8192)


def speedup_vs_addmm_4096(docs: Docs) -> float:
    """addmm + GELU time over the fused kernel's, 4096^3 bf16."""
    return epilogue_speedup(docs, "cublas_addmm", 4096)


def speedup_vs_addmm_8192(docs: Docs) -> float:
    """addmm + GELU time over the fused kernel's, 8192^3 bf16."""
    return epilogue_speedup(docs, "cublas_addmm", 8192)


def epilogue_cost_fused_8192(docs: Docs) -> float:
    """Extra time the fused epilogue adds to the Triton matmul at 8192^3, as a fraction."""
    plain = epilogue(docs, "triton_plain", 8192)["time_s"]["p50"]
    return fused_ms_8192(docs) / plain - 1


def epilogue_cost_eager_8192(docs: Docs) -> float:
    """Extra time the eager epilogue adds to the cuBLAS matmul at 8192^3, as a fraction."""
    plain = epilogue(docs, "cublas", 8192)["time_s"]["p50"]
    return eager_ms_8192(docs) / plain - 1


def epilogue_traffic_gb(docs: Docs) -> str:
    """Bytes the eager epilogue adds at 8192^3 bf16: the bias add reads C and writes C',
    GELU reads C' and writes the result: 4 passes over the 8192 x 8192 bf16 matrix, GB."""
    n = 8192
    return f"{4 * n * n * 2 / 1e9:.2f} GB"


def eager_extra_ms(docs: Docs, n: int) -> float:
    """The eager epilogue's 4 extra passes over the n x n bf16 result at the measured copy
    bandwidth: the least time it can add, seconds."""
    return 4 * n * n * 2 / copy_bw(docs, "matmul_epilogue")


def eager_extra_ms_8192(docs: Docs) -> float:
    """The eager epilogue's 4 passes over the 8192^2 bf16 result at copy speed, seconds."""
    return eager_extra_ms(docs, 8192)


def fusion_floor(docs: Docs, n: int) -> float:
    """What a fused kernel exactly as fast as cuBLAS would gain over cuBLAS + eager
    epilogue if the eager epilogue ran at copy speed: (cuBLAS time + its 4 passes over C
    at copy speed) / cuBLAS time. The eager epilogue cannot be faster than copy speed, so
    the real gain of such a kernel is at least this (a floor, not a ceiling)."""
    cublas = epilogue(docs, "cublas", n)["time_s"]["p50"]
    return (cublas + eager_extra_ms(docs, n)) / cublas


def fusion_floor_4096(docs: Docs) -> float:
    """(cuBLAS time + 4 passes over C at copy speed) / cuBLAS time, 4096^3 bf16."""
    return fusion_floor(docs, 4096)


def fusion_floor_8192(docs: Docs) -> float:
    """(cuBLAS time + 4 passes over C at copy speed) / cuBLAS time, 8192^3 bf16."""
    return fusion_floor(docs, 8192)


def eager_over_cublas(docs: Docs, n: int) -> float:
    """Measured cuBLAS + eager epilogue time over the cuBLAS matmul's alone, n^3 bf16: what
    a fused kernel exactly as fast as cuBLAS would gain."""
    return epilogue_speedup(docs, "cublas_eager", n) / epilogue_speedup(docs, "cublas", n)


def eager_over_cublas_4096(docs: Docs) -> float:
    """cuBLAS + eager epilogue over cuBLAS alone (time), 4096^3 bf16, measured."""
    return eager_over_cublas(docs, 4096)


def eager_over_cublas_8192(docs: Docs) -> float:
    """cuBLAS + eager epilogue over cuBLAS alone (time), 8192^3 bf16, measured."""
    return eager_over_cublas(docs, 8192)


def eager_extra_measured_ms_8192(docs: Docs) -> float:
    """Measured time the eager epilogue adds to the cuBLAS matmul at 8192^3 bf16, seconds."""
    return eager_ms_8192(docs) - cublas_ms_8192(docs)


def plain_vs_cublas(docs: Docs, n: int) -> float:
    """The plain Triton matmul's FLOP/s over cuBLAS's in the epilogue benchmark, n^3 bf16."""
    return (
        epilogue(docs, "cublas", n)["time_s"]["p50"]
        / epilogue(docs, "triton_plain", n)["time_s"]["p50"]
    )


def plain_vs_cublas_4096(docs: Docs) -> float:
    """Plain Triton matmul over cuBLAS (FLOP/s), epilogue benchmark, 4096^3 bf16."""
    return plain_vs_cublas(docs, 4096)


def plain_vs_cublas_8192(docs: Docs) -> float:
    """Plain Triton matmul over cuBLAS (FLOP/s), epilogue benchmark, 8192^3 bf16."""
    return plain_vs_cublas(docs, 8192)


def fused_over_cublas(docs: Docs, n: int) -> float:
    """The fused kernel's time over the cuBLAS matmul's alone, n^3 bf16."""
    return 1 / epilogue_speedup(docs, "cublas", n)


def fused_over_cublas_4096(docs: Docs) -> float:
    """Fused Triton matmul + bias + GELU time over cuBLAS matmul alone, 4096^3 bf16."""
    return fused_over_cublas(docs, 4096)


def fused_over_cublas_8192(docs: Docs) -> float:
    """Fused Triton matmul + bias + GELU time over cuBLAS matmul alone, 8192^3 bf16."""
    return fused_over_cublas(docs, 8192)


EPILOGUE_TARGET = 1.15  # /work/shared/TARGETS.md: fused >= 1.15x cuBLAS + eager epilogue


def target_budget(docs: Docs, n: int) -> float:
    """How much longer than the cuBLAS matmul alone a fused kernel may take and still be
    1.15x faster than cuBLAS + eager epilogue (as measured), n^3 bf16, as a fraction."""
    return eager_over_cublas(docs, n) / EPILOGUE_TARGET - 1


def target_budget_4096(docs: Docs) -> float:
    """Time over cuBLAS alone a fused kernel may take to meet the 1.15x target, 4096^3."""
    return target_budget(docs, 4096)


def target_budget_8192(docs: Docs) -> float:
    """Time over cuBLAS alone a fused kernel may take to meet the 1.15x target, 8192^3."""
    return target_budget(docs, 8192)


def epilogue_cost_fused_4096(docs: Docs) -> float:
    """Extra time the fused epilogue adds to the Triton matmul at 4096^3, as a fraction."""
    return (
        epilogue(docs, "triton_fused", 4096)["time_s"]["p50"]
        / epilogue(docs, "triton_plain", 4096)["time_s"]["p50"]
        - 1
    )


def resource(docs: Docs, impl: str, field: str) -> int:
    value = epilogue(docs, impl, 8192).get(field)
    if value is None:
        raise ValueError(f"this triton reported no {field} for {impl}")
    return value


def fused_regs_8192(docs: Docs) -> int:
    """Registers per thread of the fused (bias + GELU) kernel the autotuner chose, 8192^3."""
    return resource(docs, "triton_fused", "n_regs")


def fused_spills_8192(docs: Docs) -> int:
    """Registers the fused (bias + GELU) kernel spills to local memory, 8192^3."""
    return resource(docs, "triton_fused", "n_spills")


def plain_regs_8192(docs: Docs) -> int:
    """Registers per thread of the plain matmul kernel the autotuner chose, 8192^3 bf16."""
    return resource(docs, "triton_plain", "n_regs")


def plain_spills_8192(docs: Docs) -> int:
    """Registers the plain matmul kernel spills to local memory, 8192^3 bf16."""
    return resource(docs, "triton_plain", "n_spills")


def cublas_ms_8192(docs: Docs) -> float:
    """cuBLAS matmul alone at 8192^3 bf16 in the epilogue benchmark, seconds."""
    return epilogue(docs, "cublas", 8192)["time_s"]["p50"]


VALUES = {
    "matmul.triton_fp16_4096": Value(triton_fp16_4096, tflops),
    "matmul.cublas_fp16_4096": Value(cublas_fp16_4096, tflops),
    "matmul.triton_fp16_8192": Value(triton_fp16_8192, tflops),
    "matmul.cublas_fp16_8192": Value(cublas_fp16_8192, tflops),
    "matmul.triton_bf16_4096": Value(triton_bf16_4096, tflops),
    "matmul.cublas_bf16_4096": Value(cublas_bf16_4096, tflops),
    "matmul.triton_bf16_8192": Value(triton_bf16_8192, tflops),
    "matmul.cublas_bf16_8192": Value(cublas_bf16_8192, tflops),
    "matmul.vs_cublas_fp16_4096": Value(vs_cublas_fp16_4096, percent),
    "matmul.vs_cublas_fp16_8192": Value(vs_cublas_fp16_8192, percent),
    "matmul.vs_cublas_bf16_4096": Value(vs_cublas_bf16_4096, percent),
    "matmul.vs_cublas_bf16_8192": Value(vs_cublas_bf16_8192, percent),
    "matmul.min_vs_cublas": Value(min_vs_cublas, percent),
    "matmul.vs_cublas_fp16_512": Value(vs_cublas_fp16_512, percent),
    "matmul.vs_cublas_fp16_1024": Value(vs_cublas_fp16_1024, percent),
    "matmul.vs_cublas_bf16_512": Value(vs_cublas_bf16_512, percent),
    "matmul.vs_cublas_bf16_1024": Value(vs_cublas_bf16_1024, percent),
    "matmul.triton_bf16_512": Value(triton_bf16_512, tflops),
    "matmul.cublas_bf16_512": Value(cublas_bf16_512, tflops),
    "matmul.triton_bf16_1024": Value(triton_bf16_1024, tflops),
    "matmul.cublas_bf16_1024": Value(cublas_bf16_1024, tflops),
    "matmul.triton_fp16_512_us": Value(triton_fp16_512_time, micros(1)),
    "matmul.triton_bf16_512_us": Value(triton_bf16_512_time, micros(1)),
    "matmul.cublas_bf16_512_us": Value(cublas_bf16_512_time, micros(1)),
    "matmul.triton_fp16_512_span": Value(triton_fp16_512_span),
    "matmul.triton_bf16_512_span": Value(triton_bf16_512_span),
    "matmul.cublas_bf16_512_span": Value(cublas_bf16_512_span),
    "matmul.triton_fp16_8192_span": Value(triton_fp16_8192_span),
    "matmul.cublas_fp16_8192_span": Value(cublas_fp16_8192_span),
    "matmul.run_cublas_fp16_8192": Value(run_cublas_fp16_8192, tflops),
    "matmul.vs_run_cublas_fp16_8192": Value(vs_run_cublas_fp16_8192, percent1),
    "matmul.sm_clock_after": Value(sm_clock_after),
    "matmul.sm_clock_max": Value(sm_clock_max),
    "matmul.compile_fp16_4096": Value(compile_fp16_4096, tflops),
    "matmul.compile_bf16_4096": Value(compile_bf16_4096, tflops),
    "matmul.vs_compile_fp16_4096": Value(vs_compile_fp16_4096, ratio),
    "matmul.vs_compile_bf16_4096": Value(vs_compile_bf16_4096, ratio),
    "matmul.ms_4096": Value(seconds_4096, millis(3)),
    "matmul.llm_vs_cublas_16": Value(llm_vs_cublas_16, percent),
    "matmul.llm_vs_cublas_128": Value(llm_vs_cublas_128, percent),
    "matmul.llm_vs_cublas_1024": Value(llm_vs_cublas_1024, percent),
    "matmul.llm_vs_cublas_4096": Value(llm_vs_cublas_4096, percent),
    "matmul.llm_triton_bw_16": Value(llm_triton_bw_16, tbps),
    "matmul.llm_triton_128_span": Value(llm_triton_128_span),
    "matmul.llm_cublas_128_span": Value(llm_cublas_128_span),
    "matmul.llm_cublas_bw_16": Value(llm_cublas_bw_16, tbps),
    "matmul.llm_triton_16_of_copy": Value(llm_triton_16_of_copy, percent),
    "matmul.llm_weight_mb": Value(llm_weight_mb),
    "matmul.example_rowmajor": Value(example_rowmajor, count),
    "matmul.example_grouped": Value(example_grouped, count),
    "matmul.grouped_tflops": Value(grouped_tflops, tflops),
    "matmul.rowmajor_tflops": Value(rowmajor_tflops, tflops),
    "matmul.grouped_speedup": Value(grouped_speedup, ratio),
    "matmul.grouped_config": Value(grouped_config, plain),
    "matmul.grouped_programs": Value(grouped_programs, count),
    "matmul.grouped_wave": Value(grouped_wave, count),
    "matmul.model_rowmajor_gb": Value(model_rowmajor_gb),
    "matmul.model_grouped_gb": Value(model_grouped_gb),
    "matmul.model_ratio": Value(model_ratio, ratio),
    "matmul.compulsory_gb": Value(compulsory_gb),
    "matmul.model_unshared_gb": Value(model_unshared_gb),
    "matmul.model_unshared_ms": Value(model_unshared_ms, millis(2)),
    "matmul.model_rowmajor_ms": Value(model_rowmajor_ms, millis(2)),
    "matmul.model_grouped_ms": Value(model_grouped_ms, millis(2)),
    "matmul.grouped_ms": Value(grouped_ms, millis(2)),
    "matmul.rowmajor_ms": Value(rowmajor_ms, millis(2)),
    "matmul.grouped_span": Value(grouped_span),
    "matmul.rowmajor_span": Value(rowmajor_span),
    "matmul.fused_ms_8192": Value(fused_ms_8192, millis(2)),
    "matmul.eager_ms_8192": Value(eager_ms_8192, millis(2)),
    "matmul.addmm_ms_8192": Value(addmm_ms_8192, millis(2)),
    "matmul.speedup_vs_eager_4096": Value(speedup_vs_eager_4096, ratio),
    "matmul.speedup_vs_eager_8192": Value(speedup_vs_eager_8192, ratio),
    "matmul.speedup_vs_addmm_4096": Value(speedup_vs_addmm_4096, ratio),
    "matmul.speedup_vs_addmm_8192": Value(speedup_vs_addmm_8192, ratio),
    "matmul.epilogue_cost_fused_8192": Value(epilogue_cost_fused_8192, percent),
    "matmul.epilogue_cost_eager_8192": Value(epilogue_cost_eager_8192, percent),
    "matmul.epilogue_traffic_gb": Value(epilogue_traffic_gb),
    "matmul.eager_extra_ms_8192": Value(eager_extra_ms_8192, millis(2)),
    "matmul.fusion_floor_4096": Value(fusion_floor_4096, ratio),
    "matmul.fusion_floor_8192": Value(fusion_floor_8192, ratio),
    "matmul.eager_over_cublas_4096": Value(eager_over_cublas_4096, ratio),
    "matmul.eager_over_cublas_8192": Value(eager_over_cublas_8192, ratio),
    "matmul.eager_extra_measured_ms_8192": Value(eager_extra_measured_ms_8192, millis(2)),
    "matmul.plain_vs_cublas_4096": Value(plain_vs_cublas_4096, percent),
    "matmul.plain_vs_cublas_8192": Value(plain_vs_cublas_8192, percent),
    "matmul.epilogue_cost_fused_4096": Value(epilogue_cost_fused_4096, percent),
    "matmul.fused_over_cublas_4096": Value(fused_over_cublas_4096, ratio),
    "matmul.fused_over_cublas_8192": Value(fused_over_cublas_8192, ratio),
    "matmul.target_budget_4096": Value(target_budget_4096, percent),
    "matmul.target_budget_8192": Value(target_budget_8192, percent),
    "matmul.cublas_ms_8192": Value(cublas_ms_8192, millis(2)),
    "matmul.fused_regs_8192": Value(fused_regs_8192, count),
    "matmul.fused_spills_8192": Value(fused_spills_8192, count),
    "matmul.plain_regs_8192": Value(plain_regs_8192, count),
    "matmul.plain_spills_8192": Value(plain_spills_8192, count),
}


# ---- values: small squares, the GPU alone (CUDA graph) and the host ------------------------


def small(impl: str, dtype: str, n: int, field: str):
    def compute(docs: Docs) -> float | None:
        row = square(docs, impl, dtype, n)
        return row[field]["p50"] if field in row else None  # older data lacks the field

    what = {
        "graph_time_s": "GPU time per call inside a CUDA graph (no host cost)",
        "host_s": "host wall time per call, loop of back-to-back calls",
        "time_s": "do_bench device time (CUDA events around each call)",
    }[field]
    compute.__name__ = compute.__qualname__ = f"small_{impl}_{dtype}_{n}_{field}"
    compute.__doc__ = f"{impl} at {n}^3 {dtype}: {what}, seconds (median)."
    return compute


SMALL_FIELDS = (("graph_time_s", "graph"), ("host_s", "host"), ("time_s", "bench"))
for _impl in ("triton", "cublas"):
    for _dt, _short in (("float16", "fp16"), ("bfloat16", "bf16")):
        for _n in (512, 1024):
            for _field, _key in SMALL_FIELDS:
                VALUES[f"matmul.{_key}_{_impl}_{_short}_{_n}_us"] = Value(
                    small(_impl, _dt, _n, _field), or_not_measured(micros(1))
                )


# ---- figures ----------------------------------------------------------------------------


def fig_squares(docs: Docs) -> dict:
    traces = []
    for impl, label in (("triton", "Triton (kernels/matmul.py)"), ("cublas", "cuBLAS")):
        for dtype, short in DTYPES:
            rs = sorted(rows(docs, "matmul", impl=impl, dtype=dtype), key=lambda r: r["m"])
            traces.append(
                line(
                    [r["m"] for r in rs],
                    [rate(r["flops"], r["time_s"], 1e12) for r in rs],
                    f"{label}, {short}",
                    impl,
                    dash="dash" if short == "bf16" else None,
                    hover="n = %{x}<br>%{y:.0f} TFLOP/s",
                )
            )
    for dtype, short in DTYPES:
        rs = rows(docs, "matmul", impl="compile", dtype=dtype)
        if rs:  # a peer that could not run on this device is simply absent
            traces.append(
                line(
                    [r["m"] for r in rs],
                    [rate(r["flops"], r["time_s"], 1e12) for r in rs],
                    f"torch.compile max-autotune, {short}",
                    "compile",
                    mode="markers",
                    marker={"symbol": "diamond" if short == "bf16" else "circle", "size": 9},
                    hover="n = %{x}<br>%{y:.0f} TFLOP/s",
                )
            )
    sizes = sorted({r["m"] for r in rows(docs, "matmul")})
    return {
        "data": traces,
        "layout": {
            "xaxis": axis(
                "square size n (M = N = K = n)",
                log=True,
                ticks=sizes,
            ),
            "yaxis": axis("TFLOP/s (2·n³ per matmul)", rangemode="tozero"),
        },
    }


def fig_llm(docs: Docs) -> dict:
    traces = []
    for impl, label in (("triton", "Triton (kernels/matmul.py)"), ("cublas", "cuBLAS")):
        rs = sorted(rows(docs, "matmul_llm", impl=impl), key=lambda r: r["m"])
        traces.append(
            line(
                [r["m"] for r in rs],
                [rate(r["flops"], r["time_s"], 1e12) for r in rs],
                label,
                impl,
                hover="M = %{x} tokens<br>%{y:.0f} TFLOP/s",
            )
        )
    ms = sorted({r["m"] for r in rows(docs, "matmul_llm")})
    rates = [flop_rate(r) / 1e12 for r in rows(docs, "matmul_llm")]
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000) if t <= 2 * max(rates)]
    return {
        "data": traces,
        "layout": {
            "xaxis": axis("tokens M", log=True, ticks=ms),
            "yaxis": axis(
                "TFLOP/s (2·M·N·K per matmul)",
                log=True,
                ticks=ticks,
            ),
        },
    }


def fig_grouped(docs: Docs) -> dict:
    wave = sm_count(docs)
    rs = [grouped(docs, 1), grouped(docs, 8)]
    cfg = rs[1]
    points = [rate(r["flops"], r["time_s"], 1e12) for r in rs]
    labels = ["row-major<br>(group_m = 1)", "grouped<br>(group_m = 8)"]
    text = [
        f"{p[0]:.0f} TFLOP/s<br>tile model: {modelled_bytes(r, wave) / 1e9:.1f} GB read"
        for p, r in zip(points, rs, strict=True)
    ]
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": labels,
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "text": text,
                "textposition": "inside",
                "insidetextanchor": "middle",
                "textangle": 0,
                "meta": {"role": "bars", "roles": ["series-1", "triton"]},
                "hovertemplate": "%{x:.0f} TFLOP/s<extra></extra>",
            }
        ],
        "layout": {
            "xaxis": axis(
                f"TFLOP/s at 8192³ fp16<br>{cfg['block_m']}×{cfg['block_n']}×{cfg['block_k']} "
                f"tiles<br>{cfg['num_warps']} warps, {cfg['num_stages']} stages",
                rangemode="tozero",
            ),
            "yaxis": {"automargin": True, "autorange": "reversed"},
            "showlegend": False,
        },
    }


EPILOGUE_IMPLS = (
    ("triton_fused", "Triton, bias + GELU fused", "triton"),
    ("cublas_eager", "cuBLAS, then + bias, then GELU", "torch"),
    ("cublas_addmm", "addmm (cuBLAS + bias), then GELU", "series-4"),
    ("cublas", "cuBLAS matmul alone (no epilogue)", "cublas"),
)


def fig_epilogue(docs: Docs) -> dict:
    sizes = sorted({r["m"] for r in rows(docs, "matmul_epilogue")})
    traces = []
    for impl, label, role in EPILOGUE_IMPLS:
        points = []
        for n in sizes:
            base = epilogue(docs, "cublas", n)["time_s"]["p50"]
            points.append(duration(epilogue(docs, impl, n)["time_s"], base))
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": label,
                "y": [f"{n}³" for n in sizes],
                "x": [p[0] for p in points],
                "error_x": error_bars(points),
                "text": [f"{p[0]:.2f}×" for p in points],
                # mid-bar, clear of the error bar's whisker at the bar's end
                "textposition": "inside",
                "insidetextanchor": "middle",
                "textangle": 0,
                "meta": {"role": "bars", "roles": [role] * len(sizes)},
                "hovertemplate": "%{x:.3f}× the cuBLAS matmul's time"
                "<extra>%{fullData.name}</extra>",
            }
        )
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "xaxis": axis(
                "time ÷ cuBLAS matmul alone<br>(bf16; lower is faster)", rangemode="tozero"
            ),
            "yaxis": {"automargin": True, "autorange": "reversed", "title": {"text": "M = N = K"}},
        },
    }


FIGURES = {
    "matmul-squares": Figure(
        "Matmul throughput against size: Triton, cuBLAS, torch.compile",
        ("matmul",),
        fig_squares,
        "TFLOP/s against square size 512 to 8192 for the book's Triton matmul and cuBLAS in "
        "fp16 (solid) and bf16 (dashed), with torch.compile max-autotune at 4096; error bars "
        "span the 20th to 80th percentile.",
    ),
    "matmul-llm": Figure(
        "LLM projection shapes: M tokens × 4096 @ 4096 × 14336, bf16",
        ("matmul_llm",),
        fig_llm,
        "Log-log plot of TFLOP/s against the number of tokens M for the Triton matmul and "
        "cuBLAS on an MLP up-projection shape.",
    ),
    "matmul-grouped": Figure(
        "Program order: row-major against grouped, same config",
        ("matmul_grouped",),
        fig_grouped,
        "Bar chart of TFLOP/s at 8192³ fp16 for row-major and grouped program order, with "
        "the bytes the tile-load model (not a measurement) says each order reads.",
    ),
    "matmul-epilogue": Figure(
        "Matmul + bias + GELU: fused against cuBLAS and an eager epilogue",
        ("matmul_epilogue",),
        fig_epilogue,
        "Grouped bars of time relative to the cuBLAS matmul alone, at 4096³ and 8192³ bf16: "
        "the fused Triton kernel, cuBLAS followed by an eager bias add and GELU, addmm "
        "followed by GELU, and the cuBLAS matmul without epilogue.",
    ),
}


# ---- values: verdicts against the target (>= 95% of cuBLAS at 4096^3 and 8192^3) ----------

TARGET_VS_CUBLAS = 0.95
TARGET_SIZES = (4096, 8192)


def verdict(dtype: str, n: int):
    def compute(docs: Docs) -> str:
        r = vs_cublas(docs, dtype, n)
        return "met" if r >= TARGET_VS_CUBLAS else "missed"

    compute.__name__ = compute.__qualname__ = f"verdict_{dtype}_{n}"
    compute.__doc__ = f"'met' if Triton reaches 95% of cuBLAS at {n}^3 {dtype}, else 'missed'."
    return compute


def targets_met(docs: Docs) -> str:
    """How many of the four target cases (fp16/bf16 x 4096^3/8192^3) reach 95% of cuBLAS."""
    met = sum(
        vs_cublas(docs, dt, n) >= TARGET_VS_CUBLAS
        for dt in ("float16", "bfloat16")
        for n in TARGET_SIZES
    )
    return f"{met} of the 4"


for _dt, _short in (("float16", "fp16"), ("bfloat16", "bf16")):
    for _n in TARGET_SIZES:
        VALUES[f"matmul.verdict_{_short}_{_n}"] = Value(verdict(_dt, _n), plain)
VALUES["matmul.targets_met"] = Value(targets_met, plain)


def epilogue_verdict(n: int):
    def compute(docs: Docs) -> str:
        r = epilogue_speedup(docs, "cublas_eager", n)
        return "met" if r >= 1.15 else "missed"

    compute.__name__ = compute.__qualname__ = f"epilogue_verdict_{n}"
    compute.__doc__ = f"'met' if the fused kernel is 1.15x cuBLAS + eager epilogue at {n}^3."
    return compute


for _n in (4096, 8192):
    VALUES[f"matmul.epilogue_verdict_{_n}"] = Value(epilogue_verdict(_n), plain)


# ---- lesson 01's roofline -----------------------------------------------------------------


def roofline_squares(rows: list[dict]) -> list[dict]:
    """One point per dtype: the Triton kernel at the largest square size."""
    largest = max(r["m"] for r in rows)
    return [roofline_point(r, f"tiled matmul ({r['dtype']})") for r in rows
            if r["impl"] == "triton" and r["m"] == largest]  # fmt: skip


def roofline_llm(rows: list[dict]) -> list[dict]:
    """The Triton kernel at the fewest and the most tokens: one point near each roof."""
    ms = [min(r["m"] for r in rows), max(r["m"] for r in rows)]
    return [roofline_point(r, f"matmul M={r['m']} (bfloat16)") for r in rows
            if r["impl"] == "triton" and r["m"] in ms]  # fmt: skip


def roofline_point(r: dict, kernel: str) -> dict:
    return {
        "kernel": kernel,
        "flops": r["flops"],
        "bytes": r["bytes"],
        "seconds": r["time_s"]["p50"],
    }


ROOFLINE = {"matmul": roofline_squares, "matmul_llm": roofline_llm}
