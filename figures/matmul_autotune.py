"""Figures and values of lesson 13: the matmul's config sweep and the autotuner's cost.

Data (scripts/bench/benchmarks/matmul.py): ``matmul_configs``, one row per config of the
sweep at 4096³ bf16 (``time_s`` where it ran, ``failure`` where the wrapper refused it,
``autotuner_pick`` on matmul_autotuned's choice), and ``matmul_autotune_cost``, the first
call of a new autotuner over 1, 2, 4 and 8 configs ("not measured" where not run). The
sweep's cuBLAS line comes from lesson 09's ``matmul`` data.
"""

import re
from typing import Literal

from figures.matmul import DTYPES
from scripts.book import render
from scripts.book.render import Docs, Figure, Value

SWEEP = "matmul_configs"
AUTOTUNE_COST = "matmul_autotune_cost"
NOT_MEASURED = "not measured"
Which = Literal["best", "worst", "pick"]


def sweep_ran(docs: Docs) -> list[dict]:
    """The sweep's rows that ran (have a time)."""
    return [r for r in render.rows(docs, SWEEP) if "time_s" in r]


def tile(r: dict) -> str:
    return f"{r['block_m']}×{r['block_n']}×{r['block_k']}"


def failure_kind(r: dict) -> str | None:
    """'shared memory', 'registers' or 'other' for a refused config; None if it ran."""
    if "failure" not in r:
        return None
    text = r["failure"]
    if "shared memory" in text:
        return "shared memory"
    if "accumulator" in text:
        return "registers"
    return "other"


SMEM_NUMBERS = r"needs about ([\d,]+) bytes.*?GPU's ([\d,]+)"  # in a shared-memory refusal


def stage_bytes(block_m: int, block_n: int, block_k: int, stages: int, elem: int) -> int:
    """Shared memory of the operand pipeline (kernels/matmul.py's shared_memory_bytes)."""
    return stages * (block_m + block_n) * block_k * elem


def pick(docs: Docs) -> dict:
    return next(r for r in render.rows(docs, SWEEP) if r["autotuner_pick"])


def chosen(docs: Docs, which: Which) -> dict:
    """The fastest or the slowest config that ran, or the autotuner's pick."""
    if which == "pick":
        return pick(docs)
    return (max if which == "best" else min)(sweep_ran(docs), key=render.flop_rate)


def sweep_cublas(docs: Docs) -> dict | None:
    """cuBLAS at the sweep's size and dtype in lesson 09's data, or None."""
    r = render.rows(docs, SWEEP)[0]
    match = {"impl": "cublas", "dtype": r["dtype"], "m": r["m"], "n": r["n"], "k": r["k"]}
    return render.maybe_one(docs, "matmul", absent_ok=True, **match)


def parse_tile(text: str) -> tuple[int, int, int]:
    """'128x256x64' -> (128, 256, 64): BLOCK_M x BLOCK_N x BLOCK_K."""
    parts = text.split("x")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise render.RenderError(f"tile={text} is not BLOCK_MxBLOCK_NxBLOCK_K, e.g. 128x256x64")
    return tuple(map(int, parts))


def sweep_row(docs: Docs, tile: str, warps: int, stages: int) -> dict | None:
    """The sweep's row of one config that ran (has a time), or None."""
    bm, bn, bk = parse_tile(tile)
    found = render.rows(docs, SWEEP, block_m=bm, block_n=bn, block_k=bk, num_warps=warps,
                        num_stages=stages)  # fmt: skip
    return found[0] if len(found) == 1 and "time_s" in found[0] else None


def size_text(docs: Docs) -> str:
    """The sweep's problem: '4096³ bf16'."""
    r = render.rows(docs, SWEEP)[0]
    short = dict(DTYPES).get(r["dtype"], r["dtype"])
    return f"{r['m']}³ {short}" if r["m"] == r["n"] == r["k"] else f"{r['m']}×{r['n']}×{r['k']}"


def configs(docs: Docs, which: Literal["all", "ran", "shared_memory", "registers"] = "all") -> int:
    """Configs of the sweep: all, those that ran, or those refused for memory or registers."""
    if which in ("all", "ran"):
        return len(render.rows(docs, SWEEP) if which == "all" else sweep_ran(docs))
    return sum(failure_kind(r) == which.replace("_", " ") for r in render.rows(docs, SWEEP))


def smem_refusals(docs: Docs) -> list[tuple[int, int, dict]]:
    """(bytes needed, bytes the GPU has, row) of every refusal that quotes both numbers."""
    found = ((re.search(SMEM_NUMBERS, r.get("failure", "")), r) for r in render.rows(docs, SWEEP))
    return [(*(int(g.replace(",", "")) for g in m.groups()), r) for m, r in found if m]


def smem_refused(docs: Docs, of: Literal["limit", "smallest"]) -> int | None:
    """Shared memory per program as refusals quote it: the GPU's, or the least refused, bytes."""
    found = smem_refusals(docs)
    if not found:
        return None
    return found[0][1] if of == "limit" else min(x[0] for x in found)


def smem_smallest_refused_config(docs: Docs) -> str | None:
    """The config behind smem_refused of=smallest (the first if several tie)."""
    found = smem_refusals(docs)
    return render.config_text(min(found, key=lambda x: x[0])[2]) if found else None


config = render.row_kind(chosen, render.config_text, "The fastest or slowest config, or the pick.")


Rated = Literal["best", "worst", "pick", "cublas", "small_tile"]


def tflops_of(docs: Docs, which: Rated) -> float | None:
    """FLOP/s of a chosen config, of cuBLAS at the sweep's size, or of the best 64 x 64 tile."""
    if which == "cublas":
        r = sweep_cublas(docs)
        return None if r is None else render.flop_rate(r)
    if which == "small_tile":
        small = [max(v) for t, v in tile_rates(docs).items() if t.startswith("64×64×")]
        return max(small) if small else None
    r = chosen(docs, which)
    return render.flop_rate(r) if "time_s" in r else None


ratio_of = render.pair_kind(tflops_of, "which", render.over, "FLOP/s of ``of`` over ``to``.")


def pick_rank(docs: Docs) -> int | None:
    """Place of the autotuner's pick among the configs that ran, fastest first (1 = best)."""
    order = sorted(sweep_ran(docs), key=render.flop_rate, reverse=True)
    return next((i for i, r in enumerate(order, 1) if r["autotuner_pick"]), None)


def max_spills(docs: Docs) -> int | None:
    """The most registers any config of the sweep spilled (None: not recorded)."""
    spills = [r["n_spills"] for r in sweep_ran(docs) if "n_spills" in r]
    return max(spills) if spills else None


pick_regs = render.row_kind(pick, lambda r: r.get("n_regs"), "Registers per thread of the pick.")


def pick_shared(docs: Docs, source: Literal["estimate", "compiled"]) -> int | None:
    """Shared memory of the autotuner's pick: the estimate, or the compiled kernel's, bytes."""
    r = pick(docs)
    if source == "compiled":
        return r.get("shared_bytes")
    return stage_bytes(r["block_m"], r["block_n"], r["block_k"], r["num_stages"],
                       render.ELEMENT_BYTES[r["dtype"]])  # fmt: skip


def best_vs_pick(docs: Docs) -> str | None:
    """The sweep's fastest config against the autotuner's pick, in words by their spreads
    alone (the two do_bench runs' 20th-80th percentiles, no margin); None where the pick
    was refused."""
    p = pick(docs)
    if "time_s" not in p:
        return None
    return render.compare(chosen(docs, "best")["time_s"], p["time_s"], margin=0.0)


def tile_rates(docs: Docs) -> dict[str, list[float]]:
    """FLOP/s of every config that ran, grouped by tile shape."""
    out: dict[str, list[float]] = {}
    for r in sweep_ran(docs):
        out.setdefault(tile(r), []).append(render.flop_rate(r))
    return out


def within_tile_max(docs: Docs) -> float | None:
    """The largest fastest-over-slowest ratio within one tile shape (warps, stages varied)."""
    ratios = [max(v) / min(v) for v in tile_rates(docs).values() if len(v) > 1]
    return max(ratios) if ratios else None


config_tflops = render.row_kind(sweep_row, render.flop_rate, "FLOP/s of one config of the sweep.")


def smem(docs: Docs, tile: str, stages: int) -> int:
    """The formula's shared memory of one bf16 config, bytes (arithmetic)."""
    return stage_bytes(*parse_tile(tile), stages, 2)


def cost_row(docs: Docs, configs: int | None) -> dict | None:
    """The cost row with ``configs`` configs, or with the most (None)."""
    if AUTOTUNE_COST not in docs:
        return None
    if configs is None:
        return max(docs[AUTOTUNE_COST]["rows"], key=lambda r: r["configs"])
    return render.maybe_one(docs, AUTOTUNE_COST, configs=configs, absent_ok=True)


def first_call(docs: Docs, configs: int | None = None, compiled: bool = False) -> float | None:
    """Seconds of a new autotuner's first call (``compiled``: benchmarking alone)."""
    return render.field(cost_row(docs, configs), "tune_only_s" if compiled else "first_call_s")


call_ratio = render.pair_kind(first_call, "configs", render.over, "First call, ``of`` over ``to``.")


def most_configs(docs: Docs) -> int | None:
    """The largest number of configs the cost benchmark tried."""
    return render.field(cost_row(docs, None), "configs")


def per_config(docs: Docs, part: Literal["compile", "bench"]) -> float | None:
    """At the most configs, seconds per config of compiling or of benchmarking."""
    r = cost_row(docs, None)
    if r is None:
        return None
    spent = r["first_call_s"] - r["tune_only_s"] if part == "compile" else r["tune_only_s"]
    return spent / r["configs"]


def host(docs: Docs, pinned: bool = False) -> float | None:
    """Median host seconds of a later call through the autotuner, or with the config pinned."""
    return render.field(cost_row(docs, None), "pinned_host_s" if pinned else "host_s", "p50")


# Shared memory one SM holds by compute capability (CUDA C++ Programming Guide), and what
# every resident program takes for the system.
SM_SHARED = {"9.0": 233_472}
SHARED_RESERVED = 1_024
Limit = Literal["all", "registers", "shared"]


def per_sm(docs: Docs, tile: str, warps: int, stages: int, limit: Limit = "all") -> int | None:
    """Programs of one config an SM holds, by registers, shared memory, or every limit."""
    r = sweep_row(docs, tile, warps, stages)
    capability = render.doc(docs, SWEEP)["provenance"].get("compute_capability", "")
    shared = SM_SHARED.get(capability)
    if r is None or shared is None or "n_regs" not in r or "shared_bytes" not in r:
        return None
    by = render.limits_by(capability, r["n_regs"], warps)
    if by is None:
        return None
    by["shared"] = shared // (r["shared_bytes"] + SHARED_RESERVED)
    return min(by.values()) if limit == "all" else by[limit]


config_regs = render.row_kind(sweep_row, lambda r: r.get("n_regs"), "Registers per thread.")
config_shared = render.row_kind(
    sweep_row, lambda r: r.get("shared_bytes"), "Shared memory of the compiled kernel, bytes."
)
stages_compare = render.pair_kind(
    sweep_row, "stages", render.tie(SWEEP), "``of`` stages against ``to`` stages, in words."
)


VALUES = {
    "matmul_autotune.size": Value(size_text),
    "matmul_autotune.configs": Value(configs, render.count),
    "matmul_autotune.smem_refused": Value(smem_refused, render.bytes_kib, missing=NOT_MEASURED),
    "matmul_autotune.smem_smallest_refused_config": Value(
        smem_smallest_refused_config, missing=NOT_MEASURED
    ),
    "matmul_autotune.config": Value(config),
    "matmul_autotune.tflops": Value(tflops_of, render.tflops, missing=NOT_MEASURED),
    "matmul_autotune.ratio": Value(ratio_of, render.ratio, missing=NOT_MEASURED),
    "matmul_autotune.pick_rank": Value(pick_rank, render.count, missing=NOT_MEASURED),
    "matmul_autotune.max_spills": Value(max_spills, render.count, missing=NOT_MEASURED),
    "matmul_autotune.pick_regs": Value(pick_regs, render.count, missing=NOT_MEASURED),
    "matmul_autotune.pick_shared": Value(pick_shared, render.bytes_kib, missing=NOT_MEASURED),
    "matmul_autotune.best_vs_pick": Value(best_vs_pick, missing=NOT_MEASURED),
    "matmul_autotune.within_tile_max": Value(within_tile_max, render.ratio, missing=NOT_MEASURED),
    "matmul_autotune.config_tflops": Value(config_tflops, render.tflops, missing=NOT_MEASURED),
    "matmul_autotune.smem": Value(smem, render.bytes_kib),
    "matmul_autotune.first_call": Value(first_call, render.seconds(2), missing=NOT_MEASURED),
    "matmul_autotune.most_configs": Value(most_configs, missing=NOT_MEASURED),
    "matmul_autotune.per_config": Value(per_config, render.seconds(2), missing=NOT_MEASURED),
    "matmul_autotune.host": Value(host, render.micros(1), missing=NOT_MEASURED),
    "matmul_autotune.first_call_ratio": Value(call_ratio, render.ratio, missing=NOT_MEASURED),
    "matmul_autotune.per_sm": Value(per_sm, render.count, missing=NOT_MEASURED),
    "matmul_autotune.config_regs": Value(config_regs, render.count, missing=NOT_MEASURED),
    "matmul_autotune.config_shared": Value(config_shared, render.kib, missing=NOT_MEASURED),
    "matmul_autotune.stages_compare": Value(stages_compare, missing=NOT_MEASURED),
}


SETTING_GAP = 0.16  # bar pitch within a tile's group, in y units (one unit per tile)


def fig_configs(docs: Docs) -> dict:
    """Horizontal bars of TFLOP/s at 4096³ bf16, one group per tile shape (fastest tile on top) and
    one bar per combination of num_warps and num_stages; configs the wrapper refused (too much
    shared memory, or an accumulator too big for the registers) are marked at the axis by the
    reason, a star marks the autotuner's pick, a dashed line marks cuBLAS at the same size
    (lesson 09's run)."""
    all_rows = render.rows(docs, SWEEP)
    settings = sorted({(r["num_warps"], r["num_stages"]) for r in all_rows})
    rates = tile_rates(docs)
    tiles = sorted({tile(r) for r in all_rows}, key=lambda t: -max(rates.get(t, [0])))
    y_of = {t: i for i, t in enumerate(tiles)}
    top = max(render.flop_rate(r) for r in sweep_ran(docs)) / 1e12

    def ypos(r: dict) -> float:
        j = settings.index((r["num_warps"], r["num_stages"]))
        return y_of[tile(r)] + (j - (len(settings) - 1) / 2) * SETTING_GAP

    def about(r: dict) -> str:
        regs = f"<br>{r.get('n_regs')} registers a thread, {r.get('n_spills', 0)} spilled"
        return render.config_text(r) + (regs if "n_regs" in r else "")

    traces = []
    for j, (warps, stages) in enumerate(settings):
        rs = [r for r in sweep_ran(docs) if (r["num_warps"], r["num_stages"]) == (warps, stages)]
        points = render.tflops_points(rs)
        name, hover = f"{warps} warps, {stages} stages", "%{hovertext}<br>%{x:.0f} TFLOP/s"
        traces.append(
            render.hbar([ypos(r) for r in rs], points, f"series-{j}", name=name,
                        hover=hover + "<extra></extra>", width=SETTING_GAP * 0.9,
                        hovertext=[about(r) for r in rs])
        )  # fmt: skip
    refused = (  # failure kind, legend name, marker symbol, colour role
        ("shared memory", "refused: shared memory", "x", "ceiling"),
        ("registers", "refused: registers", "triangle-left", "ceiling-2"),
    )

    def marks(rs: list[dict], xs: list[float], name: str, role: str, symbol: str, size: int, say):
        """Markers beside the bars of ``rs``, at ``xs``, hovering ``say(row)``."""
        return render.line(xs, [ypos(r) for r in rs], name, role, mode="markers",
                           marker={"symbol": symbol, "size": size},
                           hovertext=[say(r) for r in rs],
                           hovertemplate="%{hovertext}<extra></extra>")  # fmt: skip

    for kind, label, symbol, role in refused:
        if rs := [r for r in all_rows if failure_kind(r) == kind]:
            why = lambda r: f"{render.config_text(r)}<br>{r['failure'][:120]}"  # noqa: E731
            traces.append(marks(rs, [top * 0.015] * len(rs), label, role, symbol, 9, why))
    picked = pick(docs)
    if "time_s" in picked:
        x = render.tflops_points([picked])[0][2] + top * 0.03
        say = lambda r: f"picked by the autotuner<br>{render.config_text(r)}"  # noqa: E731
        traces.append(marks([picked], [x], "the autotuner's pick", "ceiling", "star", 14, say))
    if (cublas := sweep_cublas(docs)) is not None:
        x = render.flop_rate(cublas) / 1e12
        name = f"cuBLAS, same size: {x:.0f} TFLOP/s"
        span = [-0.5, len(tiles) - 0.5]  # the height of every tile's group
        traces.append(
            render.line([x, x], span, name, "cublas", dash="dash", mode="lines", hoverinfo="skip")
        )
    xaxis = render.axis(f"TFLOP/s at {size_text(docs)} (longer is faster)", rangemode="tozero")
    yaxis = {
        "title": {"text": "tile BLOCK_M × BLOCK_N × BLOCK_K"},
        "tickvals": list(range(len(tiles))),
        "ticktext": tiles,
        "range": [len(tiles) - 0.5, -0.5],
        "zeroline": False,
        "showgrid": False,
    }
    return render.plot(traces, height=820, barmode="overlay", xaxis=xaxis, yaxis=yaxis)


COST_LINES = (  # field, legend name, role, dash
    ("first_call_s", "first call: compile and time every config", "triton", None),
    ("tune_only_s", "first call, kernels already compiled: timing alone", "series-1", "dash"),
)


def fig_autotune_cost(docs: Docs) -> dict:
    """Seconds taken by the first call of a new autotuner for 1, 2, 4 and 8 configs: with an empty
    compile cache (compile and time every config), and over kernels already compiled (timing
    alone)."""
    rs = render.rows_by(docs, AUTOTUNE_COST, "configs")
    xs = [r["configs"] for r in rs]
    hover = "%{x} configs<br>%{y:.2f} s"
    traces = [
        render.line(xs, [r[field] for r in rs], name, role, dash=dash, hover=hover)
        for field, name, role, dash in COST_LINES
    ]
    x = f"configs in the autotuner's list ({rs[0]['m']}³ {dict(DTYPES)[rs[0]['dtype']]})"
    return render.size_chart(traces, x, xs, "seconds, first call for a new key")


FIGURES = {
    "matmul-autotune-configs": Figure(
        "Every config of the sweep: TFLOP/s by tile shape, warps and stages",
        (SWEEP, "matmul"),
        fig_configs,
    ),
    "matmul-autotune-cost": Figure(
        "What the autotuner's first call costs, against the number of configs",
        (AUTOTUNE_COST,),
        fig_autotune_cost,
    ),
}
