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


def llm_row(docs: Docs, impl: Peer, tokens: int) -> dict:
    """The ``matmul_llm`` row of ``impl`` at M = ``tokens``."""
    return render.one(docs, LLM, impl=impl, m=tokens)


def llm(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> dict | None:
    """The time spread of ``impl`` at M = ``tokens`` on ``clock``, None where the run lacks it."""
    return llm_row(docs, impl, tokens).get(render.CLOCKS[clock])


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


def after(docs: Docs, of: Literal["sm_mhz", "power_draw_w"]) -> str:
    """Read after each of the family's benchmarks: the SM clock's range (MHz), or the highest
    power draw (W). (The clock's maximum and the power limit: ``device.after``.)"""
    read = [render.doc(docs, b)["provenance"]["clocks_after"][of] for b in BENCHES]
    return f"{min(read):.0f}–{max(read):.0f} MHz" if of == "sm_mhz" else f"{max(read):.0f} W"


llm_time = render.row_kind(
    llm, render.middle, "Median seconds per call at M = ``tokens`` on ``clock``."
)
llm_compare = render.pair_kind(
    llm, "impl", render.tie(LLM), "``of`` against ``to`` at M = ``tokens``, by the tie rule."
)


def llm_of_copy(docs: Docs, impl: Peer, tokens: int, clock: Clock = "device") -> float | None:
    """``impl``'s bandwidth at M = ``tokens`` on ``clock`` over the run's copy bandwidth."""
    t = render.field(llm(docs, impl, tokens, clock), "p50")
    return None if t is None else llm_row(docs, impl, tokens)["bytes"] / t / render.copy(docs, LLM)


def llm_weight(docs: Docs) -> int:
    """Bytes of the 14336 x 4096 bf16 weight."""
    r = render.rows(docs, LLM)[0]
    return r["n"] * r["k"] * 2


def llm_floor(docs: Docs, tokens: int, part: Literal["memory", "mma"], block_m: int = 64) -> float:
    """Least seconds by one resource: bytes at copy bandwidth, or padded FLOP at cuBLAS's rate."""
    r = llm_row(docs, "cublas", tokens)
    if part == "memory":
        return r["bytes"] / render.copy(docs, LLM)
    padded = -(-tokens // block_m) * block_m
    return 2 * padded * r["n"] * r["k"] / render.matmul_rate(render.doc(docs, LLM), r["dtype"])


def llm_programs(docs: Docs, tokens: int, block_m: int, block_n: int) -> int:
    """Programs (output tiles) of the LLM product at M = ``tokens`` with these tiles."""
    n = llm_row(docs, "cublas", tokens)["n"]
    return -(-tokens // block_m) * -(-n // block_n)


llm_ratio = render.pair_kind(
    llm_row, "impl", render.divide(render.flop_rate), "``of``'s FLOP/s over ``to``'s."
)


llm_host_bound = render.row_kind(
    llm_row,
    render.graph_host_bound,
    "Whether the host set ``impl``'s pace (``render.graph_host_bound``): False where the run "
    "lacks the host's or the graph's time.",
)


order_time = render.row_kind(ordered, render.p50, "Median seconds of the matmul in ``order``.")
order_config = render.row_kind(ordered, render.config_text, "The config a program order ran with.")
order_compare = render.pair_kind(
    ordered, "order", render.tie(GROUPED), "``of`` against ``to`` in words, by the tie rule."
)


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


model_ratio = render.pair_kind(
    model_bytes, "reads", lambda docs, a, b: a / b, "Modelled bytes read, ``of`` over ``to``."
)
epilogue_time = render.row_kind(epilogue_row, render.p50, "Median seconds of ``impl`` at n³.")
epilogue_ratio, epilogue_extra, epilogue_vs, epilogue_added = render.time_pair_kinds(
    epilogue_row, "impl", EPILOGUE
)


def epilogue_traffic(docs: Docs, n: int) -> int:
    """Bytes the eager epilogue adds at n³ bf16: 4 passes over the n x n matrix."""
    return 4 * n * n * 2


def fusion_floor(docs: Docs, n: int) -> float:
    """(cuBLAS time + the eager epilogue's 4 passes at copy bandwidth) / cuBLAS time: the
    least a cuBLAS-fast fusion gains."""
    cublas = render.p50(epilogue_row(docs, "cublas", n))
    return (cublas + pass_time(docs, n, 4)) / cublas


def regs(docs: Docs, impl: Literal["triton_fused", "triton_plain"], n: int, spilled: bool = False):
    """Registers per thread (or spilled) of the kernel the autotuner chose at n³."""
    return epilogue_row(docs, impl, n)["n_spills" if spilled else "n_regs"]


def cublas_spread(docs: Docs, dtype: Dtype, n: int) -> float:
    """(slowest - fastest) / fastest median of this run's cuBLAS timings at n³, a fraction."""

    def timed(r: dict) -> bool:
        shape = (r.get("m"), r.get("n"), r.get("k"))
        return r.get("impl") == "cublas" and r.get("dtype") == dtype and shape == (n, n, n)

    # Only the files with such a timing are read (and so can make the value stale).
    found = [b for b, d in dict.items(docs) if any(timed(r) for r in d["rows"])]
    times = [r["time_s"]["p50"] for b in found for r in docs[b]["rows"] if timed(r)]
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


def addmm_inside(docs: Docs, n: int) -> float:
    """addmm + GELU's time minus the GELU pass's floor (two passes over n x n at copy
    bandwidth): the most the product inside addmm can have taken, seconds."""
    return render.p50(epilogue_row(docs, "cublas_addmm", n)) - pass_time(docs, n, 2)


VALUES = {
    "matmul.addmm_inside": Value(addmm_inside, render.millis(2)),
    "matmul.tflops": Value(square_tflops, render.tflops),
    "matmul.ratio": Value(square_ratio, render.ratio),
    "matmul.time": Value(square_time, render.millis(3), missing="not measured"),
    "matmul.compare": Value(square_compare),
    "matmul.after": Value(after),
    "matmul.llm_time": Value(llm_time, render.micros(1), missing="not measured"),
    "matmul.llm_compare": Value(llm_compare),
    "matmul.llm_of_copy": Value(llm_of_copy, render.percent, missing="not measured"),
    "matmul.llm_weight": Value(llm_weight, render.mb),
    "matmul.llm_floor": Value(llm_floor, render.micros(0)),
    "matmul.llm_programs": Value(llm_programs, render.count),
    "matmul.llm_ratio": Value(llm_ratio, render.percent),
    "matmul.llm_host_bound": Value(llm_host_bound),
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
    "matmul.fusion_floor": Value(fusion_floor, render.ratio),
    "matmul.regs": Value(regs, render.count),
    "matmul.cublas_spread": Value(cublas_spread, render.percent1),
    "matmul.epilogue_compare": Value(epilogue_compare),
    "matmul.pass_time": Value(pass_time, render.millis(2)),
}


# Bar labels mid-bar, clear of the error bar's whisker at the bar's end.
MID_BAR = {"textposition": "inside", "insidetextanchor": "middle"}


# The lines of the matmul figures; a peer that could not run on a device is simply absent.
IMPLS = (("triton", "Triton (kernels/matmul.py)", "triton"), ("cublas", "cuBLAS", "cublas"))
COMPILE = (
    "compile",
    "torch.compile max-autotune",
    "compile",
    {"mode": "markers", "marker": {"size": 9}},
)


def fig_squares(docs: Docs) -> dict:
    """TFLOP/s against square size 512 to 8192 for the book's Triton matmul and cuBLAS in fp16 and
    bf16 (a panel each), with torch.compile max-autotune at 4096; error bars span the 20th to
    80th percentile."""
    hover, impls = "n = %{x}<br>%{y:.0f} TFLOP/s", (*IMPLS, COMPILE)
    panes = []
    for d, short in DTYPES:
        lines = render.impl_lines(docs, SQUARES, "m", impls, render.tflops_points, hover, dtype=d)
        panes.append((short, lines))
    sizes = {r["m"] for r in render.rows(docs, SQUARES)}
    x, y = "square size n (M = N = K = n)", "TFLOP/s (2·n³ per matmul)"
    return render.size_chart(panes, x, sizes, y, panes=True)


def fig_llm(docs: Docs) -> dict:
    """Log-log plot of TFLOP/s against the number of tokens M for the Triton matmul and cuBLAS on an
    MLP up-projection shape."""
    hover = "M = %{x} tokens<br>%{y:.0f} TFLOP/s"
    traces = render.impl_lines(docs, LLM, "m", IMPLS, render.tflops_points, hover)
    ms = sorted({r["m"] for r in render.rows(docs, LLM)})
    top = 2 * max(render.flop_rate(r) / 1e12 for r in render.rows(docs, LLM))
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000) if t <= top]
    yaxis = render.axis("TFLOP/s (2·M·N·K per matmul)", log=True, ticks=ticks)
    return render.plot(traces, xaxis=render.axis("tokens M", log=True, ticks=ms), yaxis=yaxis)


def fig_grouped(docs: Docs) -> dict:
    """Bar chart of TFLOP/s at 8192³ fp16 for row-major and grouped program order, with the bytes
    the tile-load model (not a measurement) says each order reads."""
    rs = [ordered(docs, "rowmajor"), ordered(docs, "grouped")]
    cfg = rs[1]
    points = render.tflops_points(rs)
    text = [
        f"{p[0]:.0f} TFLOP/s<br>tile model: {modelled_bytes(r, wave(docs)) / 1e9:.1f} GB read"
        for p, r in zip(points, rs, strict=True)
    ]
    labels = ["row-major<br>(group_m = 1)", "grouped<br>(group_m = 8)"]
    roles, hover = ["series-1", "triton"], "%{x:.0f} TFLOP/s"
    bars = render.hbar(labels, points, roles, hover=hover, text=text, **MID_BAR)
    title = (
        f"TFLOP/s at 8192³ fp16<br>{cfg['block_m']}×{cfg['block_n']}×{cfg['block_k']} "
        f"tiles<br>{cfg['num_warps']} warps, {cfg['num_stages']} stages"
    )
    return render.bar_chart([bars], title, group=False, showlegend=False)


EPILOGUE_IMPLS = (
    ("triton_fused", "Triton, bias + GELU fused", "triton"),
    ("cublas_eager", "cuBLAS, then + bias, then GELU", "torch"),
    ("cublas_addmm", "addmm (cuBLAS + bias), then GELU", "series-4"),
    ("cublas", "cuBLAS matmul alone (no epilogue)", "cublas"),
)


def fig_epilogue(docs: Docs) -> dict:
    """Grouped bars of time relative to the cuBLAS matmul alone, at 4096³ and 8192³ bf16: the fused
    Triton kernel, cuBLAS followed by an eager bias add and GELU, addmm followed by GELU, and the
    cuBLAS matmul without epilogue."""
    sizes = sorted({r["m"] for r in render.rows(docs, EPILOGUE)})
    hover = "%{x:.3f}× the cuBLAS matmul's time"
    base = {n: render.p50(epilogue_row(docs, "cublas", n)) for n in sizes}
    labels = [f"{n}³" for n in sizes]
    traces = []
    for impl, label, role in EPILOGUE_IMPLS:
        points = [render.duration(epilogue_row(docs, impl, n)["time_s"], base[n]) for n in sizes]
        text = [f"{p[0]:.2f}×" for p in points]
        bars = render.hbar(labels, points, role, name=label, hover=hover, text=text, **MID_BAR)
        traces.append(bars)
    title = "time ÷ cuBLAS matmul alone<br>(bf16; lower is faster)"
    return render.bar_chart(traces, title, "M = N = K")


FIGURES = {
    "matmul-squares": Figure(
        "Matmul throughput against size: Triton, cuBLAS, torch.compile", (SQUARES,), fig_squares
    ),
    "matmul-llm": Figure(
        "LLM projection shapes: M tokens × 4096 @ 4096 × 14336, bf16", (LLM,), fig_llm
    ),
    "matmul-grouped": Figure(
        "Program order: row-major against grouped, same config", (GROUPED,), fig_grouped
    ),
    "matmul-epilogue": Figure(
        "Matmul + bias + GELU: fused against cuBLAS and an eager epilogue",
        (EPILOGUE,),
        fig_epilogue,
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
