"""Figures and values of the matmul family: lesson 09 (lesson 13's are in matmul_autotune.py).

Data (scripts/bench/benchmarks/matmul.py): ``matmul`` (squares n³: Triton, cuBLAS,
torch.compile), ``matmul_llm`` (M tokens × 4096 @ 4096 × 14336, bf16), ``matmul_grouped``
(program order, 8192³ fp16) and ``matmul_epilogue`` (fused bias + GELU against cuBLAS and an
eager epilogue, bf16): kinds such as ``matmul.tflops impl=triton dtype=float16 n=4096`` read
the first, the ``llm_``, ``order_``/``model_`` and ``epilogue_`` kinds the others. Also the
tile-load model of program order (tested in tests/kernels/test_matmul.py): which output tile
each program computes, as kernels/matmul.py maps it, and the input tiles a wave reads.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Figure, Value

DTYPES = (("float16", "fp16"), ("bfloat16", "bf16"))
SQUARES, LLM, GROUPED, EPILOGUE = "matmul", "matmul_llm", "matmul_grouped", "matmul_epilogue"
BENCHES = (SQUARES, LLM, GROUPED, EPILOGUE)
GROUP_M = {"rowmajor": 1, "grouped": 8}

Impl = Literal["triton", "cublas", "compile"]
Dtype = Literal["float16", "bfloat16"]
Peer = Literal["triton", "cublas"]
Order = Literal["rowmajor", "grouped"]
Epi = Literal["triton_fused", "triton_plain", "cublas", "cublas_eager", "cublas_addmm"]
Clock = Literal["device", "graph", "host"]
CLOCKS = {"device": "time_s", "graph": "graph_time_s", "host": "host_s"}

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
    num_pid_m: int, num_pid_n: int, k_tiles: int, group_m: int, wave: int, waves: int | None = None
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


# ---- rows and formats ---------------------------------------------------------------------


def square(docs: Docs, impl: str, dtype: str, n: int) -> dict:
    return render.one(docs, SQUARES, impl=impl, dtype=dtype, m=n)


def ordered(docs: Docs, order: str) -> dict:
    return render.one(docs, GROUPED, group_m=GROUP_M[order])


def epilogue_row(docs: Docs, impl: str, n: int) -> dict:
    return render.one(docs, EPILOGUE, impl=impl, m=n)


# ---- values: squares (benchmark matmul) ----------------------------------------------------


def square_tflops(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> float:
    """FLOP/s of ``impl`` at n³ (triton: kernels/matmul.py; cublas: torch.matmul; compile:
    torch.compile max-autotune's Triton templates, 4096³ only)."""
    return render.flop_rate(square(docs, impl, dtype, n))


def square_ratio(docs: Docs, of: Impl, to: Impl, dtype: Dtype, n: int) -> float:
    """``of``'s FLOP/s over ``to``'s at n³, medians of one run."""
    return square_tflops(docs, of, dtype, n) / square_tflops(docs, to, dtype, n)


def square_time(
    docs: Docs, impl: Impl, dtype: Dtype, n: int, clock: Clock = "device"
) -> float | None:
    """Median seconds per call of ``impl`` at n³: do_bench's device time (CUDA events
    around each call), the GPU's time inside a CUDA graph (no host cost), or the host's
    wall time per call in a loop of back-to-back calls; None where the run lacks it."""
    return render.field(square(docs, impl, dtype, n).get(CLOCKS[clock]), "p50")


def sm_clock(docs: Docs, which: Literal["after", "max"]) -> str:
    """The SM clock: lowest to highest read right after each of the family's benchmarks
    (after), or its maximum as the driver reports it (max), MHz."""
    if which == "max":
        return f"{render.doc(docs, SQUARES)['provenance']['clocks_after']['sm_max_mhz']:.0f} MHz"
    mhz = [render.doc(docs, b)["provenance"]["clocks_after"]["sm_mhz"] for b in BENCHES]
    return f"{min(mhz):.0f}–{max(mhz):.0f} MHz"


# ---- values: LLM shapes (matmul_llm), M tokens x 4096 @ 4096 x 14336, bf16 ----------------


def llm_time(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> float | None:
    """Median seconds per call of ``impl`` at M = ``tokens``: do_bench's device time, the
    GPU's time inside a CUDA graph (no host cost) or the host's time per call in a loop of
    back-to-back calls (as ``matmul.time``); None where the run lacks that clock."""
    return render.field(render.one(docs, LLM, impl=impl, m=tokens).get(CLOCKS[clock]), "p50")


def llm_bandwidth(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> float | None:
    """``impl``'s achieved bandwidth at M = ``tokens`` (bytes of a, W and out over the
    median time on ``clock``, see ``llm_time``)."""
    t = llm_time(docs, impl, tokens, clock)
    return None if t is None else render.one(docs, LLM, impl=impl, m=tokens)["bytes"] / t


def llm_of_copy(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> float | None:
    """``impl``'s bandwidth at M = ``tokens`` over the run's measured copy bandwidth."""
    return render.quotient(llm_bandwidth(docs, impl, tokens, clock), render.copy(docs, LLM))


def llm_weight(docs: Docs) -> int:
    """Bytes of the 14336 x 4096 bf16 weight."""
    r = render.rows(docs, LLM)[0]
    return r["n"] * r["k"] * 2


# ---- values: program order (matmul_grouped) and the tile-load model at 8192³ fp16 --------


def order_time(docs: Docs, order: Order) -> float:
    """Median seconds of the matmul in ``order``."""
    return ordered(docs, order)["time_s"]["p50"]


def order_config(docs: Docs) -> str:
    """The config both orders ran with: BLOCK_M x BLOCK_N x BLOCK_K, warps, stages."""
    return render.config_text(ordered(docs, "grouped"))


def programs(docs: Docs) -> int:
    """Programs (output tiles) of the 8192³ grid at the benchmark's config."""
    r = ordered(docs, "grouped")
    return -(-r["m"] // r["block_m"]) * -(-r["n"] // r["block_n"])


def wave(docs: Docs) -> int:
    """Programs per wave in the model: one per SM."""
    return render.doc(docs, GROUPED)["provenance"]["sm_count"]


Reads = Literal["unshared", "rowmajor", "grouped", "compulsory"]


def model_bytes(docs: Docs, reads: Reads) -> int:
    """Bytes read at 8192³ by the tile-load model, waves of one program per SM, in
    row-major or grouped order; ``unshared``: no two programs share a tile (every
    program reads its row of a and column of b); ``compulsory``: a and b each read
    once, the least any order can read."""
    r = ordered(docs, "rowmajor" if reads == "rowmajor" else "grouped")
    if reads == "compulsory":
        return (r["m"] * r["k"] + r["k"] * r["n"]) * 2
    return modelled_bytes(r, 1 if reads == "unshared" else wave(docs))


def model_time(docs: Docs, reads: Reads) -> float:
    """``model_bytes`` over the run's measured copy bandwidth, seconds."""
    return model_bytes(docs, reads) / render.copy(docs, GROUPED)


def model_ratio(docs: Docs) -> float:
    """Modelled bytes read, row-major over grouped."""
    return model_bytes(docs, "rowmajor") / model_bytes(docs, "grouped")


# ---- values: the fused epilogue (matmul_epilogue), bf16 -----------------------------------


def epilogue_time(docs: Docs, impl: Epi, n: int) -> float:
    """Median seconds at n³ of ``impl``: triton_fused (matmul + bias + GELU in one kernel),
    triton_plain (the same matmul alone), cublas (torch.matmul alone), cublas_eager
    (torch.matmul, then + bias, then GELU) or cublas_addmm (addmm, then GELU)."""
    return epilogue_row(docs, impl, n)["time_s"]["p50"]


def epilogue_ratio(docs: Docs, of: Epi, to: Epi, n: int) -> float:
    """``of``'s time over ``to``'s at n³ (of=cublas_eager to=triton_fused: the fused
    kernel's speed-up over cuBLAS + eager epilogue)."""
    return epilogue_time(docs, of, n) / epilogue_time(docs, to, n)


def epilogue_extra(docs: Docs, of: Epi, to: Epi, n: int) -> float:
    """How much longer ``of`` takes than ``to`` at n³, a fraction (of=triton_fused
    to=triton_plain: what the fused epilogue adds to the Triton matmul)."""
    return epilogue_ratio(docs, of, to, n) - 1


def epilogue_added(docs: Docs, of: Epi, to: Epi, n: int) -> float:
    """``of``'s time minus ``to``'s at n³, seconds."""
    return epilogue_time(docs, of, n) - epilogue_time(docs, to, n)


def epilogue_traffic(docs: Docs, n: int) -> int:
    """Bytes the eager epilogue adds at n³ bf16: the bias add reads C and writes C', GELU
    reads C' and writes the result, 4 passes over the n x n matrix (arithmetic)."""
    return 4 * n * n * 2


def eager_floor(docs: Docs, n: int) -> float:
    """``epilogue_traffic`` at the measured copy bandwidth: the least time the eager
    epilogue can add, seconds."""
    return epilogue_traffic(docs, n) / render.copy(docs, EPILOGUE)


def fusion_floor(docs: Docs, n: int) -> float:
    """What a fused kernel exactly as fast as cuBLAS would gain over cuBLAS + eager
    epilogue if the eager epilogue ran at copy speed: (cuBLAS time + eager_floor) / cuBLAS
    time. The eager epilogue cannot be faster than copy speed, so the real gain of such a
    kernel is at least this (a floor, not a ceiling)."""
    cublas = epilogue_time(docs, "cublas", n)
    return (cublas + eager_floor(docs, n)) / cublas


Kernel = Literal["triton_fused", "triton_plain"]


def regs(docs: Docs, impl: Kernel, n: int, spilled: bool = False) -> int:
    """Registers per thread of the kernel the autotuner chose at n³, with the epilogue
    (triton_fused) or without (triton_plain); with ``spilled``, those it spills to local
    memory."""
    return epilogue_row(docs, impl, n)["n_spills" if spilled else "n_regs"]


# ---- values: how far the fused epilogue's comparisons can be trusted (added for lesson 01) -


def cublas_spread(docs: Docs, dtype: Dtype, n: int) -> float:
    """How far apart this device's timings of the same cuBLAS matmul land: over every
    benchmark of the run with a row impl=cublas at n³ in ``dtype`` (the squares, the
    epilogue, the TMA files), (slowest median - fastest median) / fastest, a fraction. The
    GPUs run these matmuls at their power limit, below their top clock, so the same call
    lands a few per cent apart from one benchmark to the next."""
    times = [
        r["time_s"]["p50"]
        for d in docs.values()
        for r in d["rows"]
        if r.get("impl") == "cublas"
        and r.get("dtype") == dtype
        and (r.get("m"), r.get("n"), r.get("k")) == (n, n, n)
    ]
    if len(times) < 2:
        raise render.RenderError(f"fewer than two timings of cuBLAS {dtype} at {n}³ on this device")
    return max(times) / min(times) - 1


def epilogue_compare(docs: Docs, of: Epi, to: Epi, n: int) -> str:
    """``of`` against ``to`` at n³, words for a sentence: "faster than", "slower than", or
    "as fast as, within the run-to-run spread," (it sits mid-sentence). A difference counts
    only where the two 20th-80th percentile ranges do not overlap *and* the ratio is further
    from 1 than ``cublas_spread`` for bf16 at that size: closer than that, another run
    could order them the other way. Where the two were timed head to head (in turn, a
    ratio per round), the ratio's own interval decides instead (``render.compare``): the
    rounds cancel the drift that ``cublas_spread`` stands for."""
    a, b = (epilogue_row(docs, impl, n)["time_s"] for impl in (of, to))
    if render.paired(a, b) is not None:
        words = ("faster than", "as fast as, within the run-to-run spread,", "slower than")
        return render.compare(a, b, words)
    beyond = abs(a["p50"] / b["p50"] - 1) > cublas_spread(docs, "bfloat16", n)
    if beyond and a["p80"] < b["p20"]:
        return "faster than"
    if beyond and b["p80"] < a["p20"]:
        return "slower than"
    return "as fast as, within the run-to-run spread,"


def pass_time(docs: Docs, n: int, passes: int) -> float:
    """Time ``passes`` passes over an n x n bf16 matrix (each a read or a write of n * n * 2
    bytes) take at the epilogue run's copy bandwidth, seconds: the least an elementwise
    epilogue kernel that makes them can cost (arithmetic on the measured copy)."""
    return passes * n * n * 2 / render.copy(docs, EPILOGUE)


# ---- values added for lesson 09: comparison words by the tie rule, the LLM shapes' arithmetic


def square_compare(docs: Docs, of: Impl, to: Impl, dtype: Dtype, n: int) -> str:
    """``of`` against ``to`` at n³ in words, by the tie rule (see ``tie_words``)."""
    return render.tie_words(docs, SQUARES, square(docs, of, dtype, n), square(docs, to, dtype, n))


def order_compare(docs: Docs) -> str:
    """Grouped order against row-major order at the program-order benchmark's size and
    config, in words, by the tie rule."""
    return render.tie_words(docs, GROUPED, ordered(docs, "grouped"), ordered(docs, "rowmajor"))


def epilogue_vs(docs: Docs, of: Epi, to: Epi, n: int) -> str:
    """``of`` against ``to`` at n³ in the epilogue benchmark, in words, by the tie rule."""
    return render.tie_words(docs, EPILOGUE, epilogue_row(docs, of, n), epilogue_row(docs, to, n))


def llm_compare(docs: Docs, of: Peer, to: Peer, tokens: int, clock: Clock = "device") -> str:
    """``of`` against ``to`` at M = ``tokens``, on do_bench's device time or inside a CUDA
    graph (``clock=graph``), in words, by the tie rule."""
    ours, peer = (render.one(docs, LLM, impl=i, m=tokens)[CLOCKS[clock]] for i in (of, to))
    return render.tie_words(docs, LLM, ours, peer)


def llm_floor(docs: Docs, tokens: int, part: Literal["memory", "mma"], block_m: int = 64) -> float:
    """The least time the LLM product at M = ``tokens`` can take, seconds, by one resource:
    ``memory``, its bytes (a, the weight, out) at the run's copy bandwidth; ``mma``, its
    multiply-adds at the run's cuBLAS rate, counting the rows a ``block_m``-row tile pads M
    up to (2 · ceil(M / block_m) · block_m · N · K FLOP). Arithmetic on measured ceilings."""
    r = render.one(docs, LLM, impl="cublas", m=tokens)
    if part == "memory":
        return r["bytes"] / render.copy(docs, LLM)
    padded = -(-tokens // block_m) * block_m
    return 2 * padded * r["n"] * r["k"] / render.matmul_rate(render.doc(docs, LLM), r["dtype"])


def llm_programs(docs: Docs, tokens: int, block_m: int, block_n: int) -> int:
    """Programs (output tiles) of the LLM product at M = ``tokens`` with ``block_m`` x
    ``block_n`` tiles: ceil(M / block_m) · ceil(N / block_n)."""
    n = render.one(docs, LLM, impl="cublas", m=tokens)["n"]
    return -(-tokens // block_m) * -(-n // block_n)


def llm_vs_cublas(docs: Docs, tokens: int) -> float:
    """Triton's FLOP/s over cuBLAS's at M = ``tokens`` (do_bench's device time)."""
    ours = render.flop_rate(render.one(docs, LLM, impl="triton", m=tokens))
    return ours / render.flop_rate(render.one(docs, LLM, impl="cublas", m=tokens))


def llm_pace(docs: Docs, tokens: int) -> str | None:
    """Who sets the pace of the Triton wrapper's calls at M = ``tokens``: "the host" where
    its host time per call exceeds the kernel's time inside a CUDA graph beyond both
    spreads (the scoreboard's host-bound rule), else "the GPU"; None without both."""
    r = render.one(docs, LLM, impl="triton", m=tokens)
    if not (r.get("host_s") and r.get("graph_time_s")):
        return None
    return "the host" if render.graph_host_bound(r) else "the GPU"


def power(docs: Docs, which: Literal["after", "limit"]) -> str:
    """The GPU's power draw: the highest read right after the family's benchmarks (after),
    or the board's power limit (limit), in W."""
    after = [render.doc(docs, b)["provenance"]["clocks_after"] for b in BENCHES]
    if which == "limit":
        return f"{max(a['power_limit_w'] for a in after):.0f} W"
    return f"{max(a['power_draw_w'] for a in after):.0f} W"


VALUES = {
    "matmul.tflops": Value(square_tflops, render.tflops),
    "matmul.ratio": Value(square_ratio, render.ratio),
    "matmul.time": Value(square_time, render.millis(3), missing="not measured"),
    "matmul.sm_clock": Value(sm_clock),
    "matmul.llm_of_copy": Value(llm_of_copy, render.percent, missing="not measured"),
    "matmul.llm_weight": Value(llm_weight, render.mb),
    "matmul.order_time": Value(order_time, render.millis(2)),
    "matmul.order_config": Value(order_config),
    "matmul.programs": Value(programs, render.count),
    "matmul.wave": Value(wave, render.count),
    "matmul.model_bytes": Value(model_bytes, render.gb1),
    "matmul.model_time": Value(model_time, render.millis(2)),
    "matmul.model_ratio": Value(model_ratio, render.ratio),
    "matmul.epilogue_time": Value(epilogue_time, render.millis(2)),
    "matmul.epilogue_ratio": Value(epilogue_ratio, render.ratio),
    "matmul.epilogue_extra": Value(epilogue_extra, render.percent),
    "matmul.epilogue_added": Value(epilogue_added, render.millis(2)),
    "matmul.epilogue_traffic": Value(epilogue_traffic, render.gb),
    "matmul.eager_floor": Value(eager_floor, render.millis(2)),
    "matmul.fusion_floor": Value(fusion_floor, render.ratio),
    "matmul.regs": Value(regs, render.count),
    # added for lesson 01
    "matmul.cublas_spread": Value(cublas_spread, render.percent1),
    "matmul.epilogue_compare": Value(epilogue_compare),
    "matmul.pass_time": Value(pass_time, render.millis(2)),
    # added for lesson 09
    "matmul.compare": Value(square_compare),
    "matmul.order_compare": Value(order_compare),
    "matmul.epilogue_vs": Value(epilogue_vs),
    "matmul.llm_time": Value(llm_time, render.micros(1), missing="not measured"),
    "matmul.llm_compare": Value(llm_compare),
    "matmul.llm_floor": Value(llm_floor, render.micros(0)),
    "matmul.llm_programs": Value(llm_programs, render.count),
    "matmul.power": Value(power),
    "matmul.llm_vs_cublas": Value(llm_vs_cublas, render.percent),
    "matmul.llm_pace": Value(llm_pace, missing="not measured"),
}


# ---- figures ----------------------------------------------------------------------------


# Bar labels mid-bar, clear of the error bar's whisker at the bar's end.
MID_BAR = {"textposition": "inside", "insidetextanchor": "middle"}


def fig_squares(docs: Docs) -> dict:
    """One panel per dtype (fp16, bf16): Triton, cuBLAS and torch.compile's point."""
    hover = "n = %{x}<br>%{y:.0f} TFLOP/s"
    panes = []
    for dtype, short in DTYPES:
        traces = [
            render.tflops_line(
                render.rows_by(docs, SQUARES, "m", impl=impl, dtype=dtype), "m", label, impl,
                hover=hover,
            )
            for impl, label in (("triton", "Triton (kernels/matmul.py)"), ("cublas", "cuBLAS"))
        ]  # fmt: skip
        # A peer that could not run on this device is simply absent.
        if rs := render.rows(docs, SQUARES, impl="compile", dtype=dtype):
            name = "torch.compile max-autotune"
            traces.append(
                render.tflops_line(
                    rs, "m", name, "compile", hover=hover, mode="markers", marker={"size": 9}
                )
            )
        panes.append((short, traces))
    sizes = sorted({r["m"] for r in render.rows(docs, SQUARES)})
    return render.panels(
        panes,
        render.axis("square size n (M = N = K = n)", log=True, ticks=sizes),
        render.axis("TFLOP/s (2·n³ per matmul)", rangemode="tozero"),
    )


def fig_llm(docs: Docs) -> dict:
    hover = "M = %{x} tokens<br>%{y:.0f} TFLOP/s"
    traces = [
        render.tflops_line(render.rows_by(docs, LLM, "m", impl=impl), "m", label, impl, hover=hover)
        for impl, label in (("triton", "Triton (kernels/matmul.py)"), ("cublas", "cuBLAS"))
    ]
    ms = sorted({r["m"] for r in render.rows(docs, LLM)})
    top = 2 * max(render.flop_rate(r) / 1e12 for r in render.rows(docs, LLM))
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000) if t <= top]
    return render.plot(
        traces,
        xaxis=render.axis("tokens M", log=True, ticks=ms),
        yaxis=render.axis("TFLOP/s (2·M·N·K per matmul)", log=True, ticks=ticks),
    )


def fig_grouped(docs: Docs) -> dict:
    rs = [ordered(docs, "rowmajor"), ordered(docs, "grouped")]
    cfg = rs[1]
    points = render.tflops_points(rs)
    text = [
        f"{p[0]:.0f} TFLOP/s<br>tile model: {modelled_bytes(r, wave(docs)) / 1e9:.1f} GB read"
        for p, r in zip(points, rs, strict=True)
    ]
    labels = ["row-major<br>(group_m = 1)", "grouped<br>(group_m = 8)"]
    bars = render.hbar(
        labels, points, ["series-1", "triton"], hover="%{x:.0f} TFLOP/s", text=text, **MID_BAR
    )
    return render.plot(
        [bars],
        xaxis=render.axis(
            f"TFLOP/s at 8192³ fp16<br>{cfg['block_m']}×{cfg['block_n']}×{cfg['block_k']} "
            f"tiles<br>{cfg['num_warps']} warps, {cfg['num_stages']} stages",
            rangemode="tozero",
        ),
        yaxis=render.label_axis(),
        showlegend=False,
    )


EPILOGUE_IMPLS = (
    ("triton_fused", "Triton, bias + GELU fused", "triton"),
    ("cublas_eager", "cuBLAS, then + bias, then GELU", "torch"),
    ("cublas_addmm", "addmm (cuBLAS + bias), then GELU", "series-4"),
    ("cublas", "cuBLAS matmul alone (no epilogue)", "cublas"),
)


def fig_epilogue(docs: Docs) -> dict:
    sizes = sorted({r["m"] for r in render.rows(docs, EPILOGUE)})
    hover = "%{x:.3f}× the cuBLAS matmul's time"
    traces = []
    for impl, label, role in EPILOGUE_IMPLS:
        points = [
            render.duration(
                render.one(docs, EPILOGUE, impl=impl, m=n)["time_s"],
                epilogue_time(docs, "cublas", n),
            )
            for n in sizes
        ]
        text = [f"{p[0]:.2f}×" for p in points]
        labels = [f"{n}³" for n in sizes]
        traces.append(
            render.hbar(labels, points, role, name=label, hover=hover, text=text, **MID_BAR)
        )
    return render.plot(
        traces,
        barmode="group",
        xaxis=render.axis(
            "time ÷ cuBLAS matmul alone<br>(bf16; lower is faster)", rangemode="tozero"
        ),
        yaxis=render.label_axis("M = N = K"),
    )


FIGURES = {
    "matmul-squares": Figure(
        "Matmul throughput against size: Triton, cuBLAS, torch.compile",
        (SQUARES,),
        fig_squares,
        "TFLOP/s against square size 512 to 8192 for the book's Triton matmul and cuBLAS in "
        "fp16 and bf16 (a panel each), with torch.compile max-autotune at 4096; error bars "
        "span the 20th to 80th percentile.",
    ),
    "matmul-llm": Figure(
        "LLM projection shapes: M tokens × 4096 @ 4096 × 14336, bf16",
        (LLM,),
        fig_llm,
        "Log-log plot of TFLOP/s against the number of tokens M for the Triton matmul and "
        "cuBLAS on an MLP up-projection shape.",
    ),
    "matmul-grouped": Figure(
        "Program order: row-major against grouped, same config",
        (GROUPED,),
        fig_grouped,
        "Bar chart of TFLOP/s at 8192³ fp16 for row-major and grouped program order, with "
        "the bytes the tile-load model (not a measurement) says each order reads.",
    ),
    "matmul-epilogue": Figure(
        "Matmul + bias + GELU: fused against cuBLAS and an eager epilogue",
        (EPILOGUE,),
        fig_epilogue,
        "Grouped bars of time relative to the cuBLAS matmul alone, at 4096³ and 8192³ bf16: "
        "the fused Triton kernel, cuBLAS followed by an eager bias add and GELU, addmm "
        "followed by GELU, and the cuBLAS matmul without epilogue.",
    ),
}


# ---- lesson 01's roofline -----------------------------------------------------------------


def roofline_llm(rows: list[dict]) -> list[dict]:
    """The Triton kernel at the fewest and the most tokens: one point near each roof."""
    ms = [min(r["m"] for r in rows), max(r["m"] for r in rows)]
    return [render.roofline_point(r, f"matmul M={r['m']} (bf16)") for r in rows
            if r["impl"] == "triton" and r["m"] in ms]  # fmt: skip


ROOFLINE = {  # squares: one point per dtype, the Triton kernel at the largest size
    SQUARES: render.roofline_rows("tiled matmul ({dtype})", largest="m", impl="triton"),
    LLM: roofline_llm,
}
