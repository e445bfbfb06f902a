"""Figures and values of the matmul family: lesson 09 (lesson 13's are in matmul_autotune.py).

Data (scripts/bench/benchmarks/matmul.py): ``matmul`` (squares n³: Triton, cuBLAS,
torch.compile), ``matmul_llm`` (M tokens × 4096 @ 4096 × 14336, bf16), ``matmul_grouped``
(program order, 8192³ fp16) and ``matmul_epilogue`` (fused bias + GELU, bf16), read by the
plain, ``llm_``, ``order_``/``model_`` and ``epilogue_`` kinds. Also the tile-load model of
program order (tested in tests/kernels/test_matmul.py).
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


def program_tiles(num_pid_m: int, num_pid_n: int, group_m: int) -> list[tuple[int, int]]:
    """(pid_m, pid_n) of each program id in launch order, as kernels/matmul.py maps it."""
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
    """(a tiles, b tiles) read from memory, lesson 09's convention: in each wave of ``wave``
    consecutive programs an input tile is read once (shared through the L2), nothing is kept
    between waves; ``waves``: count only the first so many (None: all)."""
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
    """Bytes a matmul_grouped row reads by the tile-load model, waves of ``wave`` programs."""
    bm, bn, bk = row["block_m"], row["block_n"], row["block_k"]
    tiles_m, tiles_n = -(-row["m"] // bm), -(-row["n"] // bn)
    a_tiles, b_tiles = tile_loads(tiles_m, tiles_n, -(-row["k"] // bk), row["group_m"], wave)
    elem = 2  # fp16
    return a_tiles * bm * bk * elem + b_tiles * bk * bn * elem


def square(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> dict:
    """The ``matmul`` row of ``impl`` at n³."""
    return render.one(docs, SQUARES, impl=impl, dtype=dtype, m=n)


def square_clock(docs: Docs, impl: Impl, dtype: Dtype, n: int, clock: Clock = "device"):
    """The time spread of ``impl`` at n³ on ``clock``, None where the run lacks it."""
    return square(docs, impl, dtype, n).get(render.CLOCKS[clock])


def llm(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> dict | None:
    """The time spread of ``impl`` at M = ``tokens`` on ``clock``, None where the run lacks it."""
    return render.one(docs, LLM, impl=impl, m=tokens).get(render.CLOCKS[clock])


def ordered(docs: Docs, order: Order) -> dict:
    """The ``matmul_grouped`` row in ``order``."""
    return render.one(docs, GROUPED, group_m=GROUP_M[order])


def epilogue_row(docs: Docs, impl: Epi, n: int) -> dict:
    """The ``matmul_epilogue`` row of ``impl`` at n³."""
    return render.one(docs, EPILOGUE, impl=impl, m=n)


square_tflops = render.row_kind(square, render.flop_rate, "FLOP/s of ``impl`` at n³.")
square_ratio = render.pair_kind(
    square, "impl", render.divide(render.flop_rate), "``of``'s FLOP/s over ``to``'s at n³."
)
square_time = render.row_kind(
    square_clock, render.middle, "Median seconds per call at n³ on ``clock``."
)
square_compare = render.pair_kind(
    square, "impl", render.tie(SQUARES), "``of`` against ``to`` at n³ in words, by the tie rule."
)


def sm_clock(docs: Docs, which: Literal["after", "max"]) -> str:
    """The SM clock: the range read after the family's benchmarks, or its maximum, MHz."""
    if which == "max":
        return f"{render.doc(docs, SQUARES)['provenance']['clocks_after']['sm_max_mhz']:.0f} MHz"
    mhz = [render.doc(docs, b)["provenance"]["clocks_after"]["sm_mhz"] for b in BENCHES]
    return f"{min(mhz):.0f}–{max(mhz):.0f} MHz"


def power(docs: Docs, which: Literal["after", "limit"]) -> str:
    """The highest power draw after the family's benchmarks, or the board's limit, W."""
    after = [render.doc(docs, b)["provenance"]["clocks_after"] for b in BENCHES]
    if which == "limit":
        return f"{max(a['power_limit_w'] for a in after):.0f} W"
    return f"{max(a['power_draw_w'] for a in after):.0f} W"


llm_time = render.row_kind(
    llm, render.middle, "Median seconds per call at M = ``tokens`` on ``clock``."
)
llm_compare = render.pair_kind(
    llm, "impl", render.tie(LLM), "``of`` against ``to`` at M = ``tokens``, by the tie rule."
)


def llm_of_copy(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> float | None:
    """``impl``'s bandwidth at M = ``tokens`` on ``clock`` over the run's copy bandwidth."""
    t = render.field(llm(docs, impl, tokens, clock), "p50")
    row = render.one(docs, LLM, impl=impl, m=tokens)
    return None if t is None else row["bytes"] / t / render.copy(docs, LLM)


def llm_weight(docs: Docs) -> int:
    """Bytes of the 14336 x 4096 bf16 weight."""
    r = render.rows(docs, LLM)[0]
    return r["n"] * r["k"] * 2


def llm_floor(docs: Docs, tokens: int, part: Literal["memory", "mma"], block_m: int = 64) -> float:
    """Least seconds by one resource: bytes at copy bandwidth, or padded FLOP at cuBLAS's rate."""
    r = render.one(docs, LLM, impl="cublas", m=tokens)
    if part == "memory":
        return r["bytes"] / render.copy(docs, LLM)
    padded = -(-tokens // block_m) * block_m
    return 2 * padded * r["n"] * r["k"] / render.matmul_rate(render.doc(docs, LLM), r["dtype"])


def llm_programs(docs: Docs, tokens: int, block_m: int, block_n: int) -> int:
    """Programs (output tiles) of the LLM product at M = ``tokens`` with these tiles."""
    n = render.one(docs, LLM, impl="cublas", m=tokens)["n"]
    return -(-tokens // block_m) * -(-n // block_n)


def llm_vs_cublas(docs: Docs, tokens: int) -> float:
    """Triton's FLOP/s over cuBLAS's at M = ``tokens``."""
    ours = render.flop_rate(render.one(docs, LLM, impl="triton", m=tokens))
    return ours / render.flop_rate(render.one(docs, LLM, impl="cublas", m=tokens))


def llm_pace(docs: Docs, tokens: int) -> str | None:
    """Who sets the Triton wrapper's pace at M = ``tokens``: "the host" or "the GPU"."""
    r = render.one(docs, LLM, impl="triton", m=tokens)
    if not (r.get("host_s") and r.get("graph_time_s")):
        return None
    return "the host" if render.graph_host_bound(r) else "the GPU"


order_time = render.row_kind(ordered, render.p50, "Median seconds of the matmul in ``order``.")


def order_config(docs: Docs) -> str:
    """The config both orders ran with: BLOCK_M x BLOCK_N x BLOCK_K, warps, stages."""
    return render.config_text(ordered(docs, "grouped"))


def order_compare(docs: Docs) -> str:
    """Grouped order against row-major order in words, by the tie rule."""
    return render.tie_words(docs, GROUPED, ordered(docs, "grouped"), ordered(docs, "rowmajor"))


def programs(docs: Docs) -> int:
    """Programs (output tiles) of the 8192³ grid at the benchmark's config."""
    r = ordered(docs, "grouped")
    return -(-r["m"] // r["block_m"]) * -(-r["n"] // r["block_n"])


def wave(docs: Docs) -> int:
    """Programs per wave in the model: one per SM."""
    return render.doc(docs, GROUPED)["provenance"]["sm_count"]


Reads = Literal["unshared", "rowmajor", "grouped", "compulsory"]


def model_bytes(docs: Docs, reads: Reads) -> int:
    """Bytes read at 8192³ by the tile-load model (unshared: no sharing; compulsory: once)."""
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


epilogue_time = render.row_kind(epilogue_row, render.p50, "Median seconds of ``impl`` at n³.")
epilogue_ratio = render.pair_kind(
    epilogue_row, "impl", render.divide(render.p50), "``of``'s time over ``to``'s at n³."
)
epilogue_extra = render.pair_kind(
    epilogue_row, "impl", render.divide(render.p50, 1), "How much longer ``of`` takes, a fraction."
)
epilogue_vs = render.pair_kind(
    epilogue_row, "impl", render.tie(EPILOGUE), "``of`` against ``to`` at n³, by the tie rule."
)


def epilogue_added(docs: Docs, of: Epi, to: Epi, n: int) -> float:
    """``of``'s time minus ``to``'s at n³, seconds."""
    return render.p50(epilogue_row(docs, of, n)) - render.p50(epilogue_row(docs, to, n))


def epilogue_traffic(docs: Docs, n: int) -> int:
    """Bytes the eager epilogue adds at n³ bf16: 4 passes over the n x n matrix."""
    return 4 * n * n * 2


def eager_floor(docs: Docs, n: int) -> float:
    """``epilogue_traffic`` at the copy bandwidth: the least the eager epilogue adds, s."""
    return epilogue_traffic(docs, n) / render.copy(docs, EPILOGUE)


def fusion_floor(docs: Docs, n: int) -> float:
    """(cuBLAS time + eager_floor) / cuBLAS time: the least a cuBLAS-fast fusion gains."""
    cublas = render.p50(epilogue_row(docs, "cublas", n))
    return (cublas + eager_floor(docs, n)) / cublas


def regs(docs: Docs, impl: Literal["triton_fused", "triton_plain"], n: int, spilled: bool = False):
    """Registers per thread (or spilled) of the kernel the autotuner chose at n³."""
    return epilogue_row(docs, impl, n)["n_spills" if spilled else "n_regs"]


def cublas_spread(docs: Docs, dtype: Dtype, n: int) -> float:
    """(slowest - fastest) / fastest median of this run's cuBLAS timings at n³, a fraction."""
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
    """``of`` against ``to`` at n³ in words, a tie within the run-to-run spread."""
    a, b = (epilogue_row(docs, impl, n)["time_s"] for impl in (of, to))
    if render.paired(a, b) is not None:  # head to head: the rounds cancel the drift
        words = ("faster than", "as fast as, within the run-to-run spread,", "slower than")
        return render.compare(a, b, words)
    beyond = abs(a["p50"] / b["p50"] - 1) > cublas_spread(docs, "bfloat16", n)
    if beyond and a["p80"] < b["p20"]:
        return "faster than"
    if beyond and b["p80"] < a["p20"]:
        return "slower than"
    return "as fast as, within the run-to-run spread,"


def pass_time(docs: Docs, n: int, passes: int) -> float:
    """``passes`` passes over an n x n bf16 matrix at the copy bandwidth, seconds."""
    return passes * n * n * 2 / render.copy(docs, EPILOGUE)


def addmm_note(docs: Docs, n: int) -> str:
    """The clause after "the most fusion can recover": where addmm + GELU minus the bare
    product covers the GELU pass's floor, how much of it the pass takes at least; else why
    it does not: the product inside addmm ran faster than the bare call (at most how long;
    the two are timed in alternating rounds, so not by clock drift)."""
    floor = pass_time(docs, n, 2)
    inside = render.p50(epilogue_row(docs, "cublas_addmm", n)) - floor
    bare = render.p50(epilogue_row(docs, "cublas", n))
    ms = render.millis(2)
    if inside >= bare:
        return f", and the GELU pass takes at least {ms(floor)} of it"
    return (
        f"; it is below the GELU pass's floor because the product inside `addmm` took at "
        f"most {ms(inside)}, against {ms(bare)} for the bare call (the two were timed in "
        "alternating rounds, so this is not the clocks drifting between them)"
    )


VALUES = {
    "matmul.addmm_note": Value(addmm_note),
    "matmul.tflops": Value(square_tflops, render.tflops),
    "matmul.ratio": Value(square_ratio, render.ratio),
    "matmul.time": Value(square_time, render.millis(3), missing="not measured"),
    "matmul.compare": Value(square_compare),
    "matmul.sm_clock": Value(sm_clock),
    "matmul.power": Value(power),
    "matmul.llm_time": Value(llm_time, render.micros(1), missing="not measured"),
    "matmul.llm_compare": Value(llm_compare),
    "matmul.llm_of_copy": Value(llm_of_copy, render.percent, missing="not measured"),
    "matmul.llm_weight": Value(llm_weight, render.mb),
    "matmul.llm_floor": Value(llm_floor, render.micros(0)),
    "matmul.llm_programs": Value(llm_programs, render.count),
    "matmul.llm_vs_cublas": Value(llm_vs_cublas, render.percent),
    "matmul.llm_pace": Value(llm_pace, missing="not measured"),
    "matmul.order_time": Value(order_time, render.millis(2)),
    "matmul.order_config": Value(order_config),
    "matmul.order_compare": Value(order_compare),
    "matmul.programs": Value(programs, render.count),
    "matmul.wave": Value(wave, render.count),
    "matmul.model_bytes": Value(model_bytes, render.gb1),
    "matmul.model_time": Value(model_time, render.millis(2)),
    "matmul.model_ratio": Value(model_ratio, render.ratio),
    "matmul.epilogue_time": Value(epilogue_time, render.millis(2)),
    "matmul.epilogue_ratio": Value(epilogue_ratio, render.ratio),
    "matmul.epilogue_extra": Value(epilogue_extra, render.percent),
    "matmul.epilogue_vs": Value(epilogue_vs),
    "matmul.epilogue_added": Value(epilogue_added, render.millis(2)),
    "matmul.epilogue_traffic": Value(epilogue_traffic, render.gb),
    "matmul.eager_floor": Value(eager_floor, render.millis(2)),
    "matmul.fusion_floor": Value(fusion_floor, render.ratio),
    "matmul.regs": Value(regs, render.count),
    "matmul.cublas_spread": Value(cublas_spread, render.percent1),
    "matmul.epilogue_compare": Value(epilogue_compare),
    "matmul.pass_time": Value(pass_time, render.millis(2)),
}


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
                render.p50(epilogue_row(docs, "cublas", n)),
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


def roofline_llm(rows: list[dict]) -> list[dict]:
    """The Triton kernel at the fewest and the most tokens: one point near each roof."""
    ms = [min(r["m"] for r in rows), max(r["m"] for r in rows)]
    return [render.roofline_point(r, f"matmul M={r['m']} (bf16)") for r in rows
            if r["impl"] == "triton" and r["m"] in ms]  # fmt: skip


ROOFLINE = {  # squares: one point per dtype, the Triton kernel at the largest size
    SQUARES: render.roofline_rows("tiled matmul ({dtype})", largest="m", impl="triton"),
    LLM: roofline_llm,
}
