"""Values of the inductor_code family: what torch.compile wrote, and what breaks cost.

Data: ``inductor_code`` (scripts/bench/benchmarks/inductor_code.py). Code rows hold each
Triton kernel Inductor generated for lesson 08's eager op chain and lesson 11's eager
RMSNorm, which ``kernel`` trims to its ``@triton.jit`` function as a Markdown code block;
cost rows hold a compiled function's first call, a recompile, and the host time per call
with and without a graph break. Every value says "not measured" before a GPU run.
"""

import re
from typing import Literal

from figures.compiler import block
from scripts.book import render
from scripts.book.render import Docs, Value

BENCH = "inductor_code"
NOT_CAPTURED = (
    "*Not captured yet on this GPU: `python3 scripts/bench/measure.py inductor_code` captures it.*"
)
MEMORY = re.compile(r"tl\.(load|store)\(")
MAX_LINES = 45  # a listing longer than this is cut, and says how many lines it left out


def code_rows(docs: Docs, peer: str) -> list[dict]:
    """The code rows of ``peer``."""
    return render.rows(docs, BENCH, kind="code", peer=peer) if BENCH in docs else []


Peer = Literal["fused_activation", "rmsnorm"]
Case = Literal["first_call", "recompile", "cached_call", "eager", "graph_break", "whole"]


def cost(docs: Docs, case: Case) -> dict | None:
    """The cost row of ``case``, or None."""
    return render.maybe_one(docs, BENCH, kind="cost", case=case, absent_ok=True)


def jit_function(text: str) -> list[str]:
    """The kernel from its ``@triton.jit`` line on, blank lines left out, cut at MAX_LINES."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "@triton.jit"), 0)
    kept = [line.rstrip() for line in lines[start:] if line.strip()]
    if len(kept) > MAX_LINES:
        kept = kept[:MAX_LINES] + [f"    # … {len(kept) - MAX_LINES} more lines"]
    return kept


def listing(row: dict) -> str:
    """A code row's kernel as a Python code block, its loads and stores highlighted."""
    lines = jit_function(row["text"])
    return block(lines, "python", [i + 1 for i, s in enumerate(lines) if MEMORY.search(s)])


def kernels(docs: Docs, peer: Peer) -> int | None:
    """How many Triton kernels Inductor generated for the peer."""
    return len(code_rows(docs, peer)) or None


def first(docs: Docs, peer: Peer) -> dict | None:
    """The first code row of ``peer``, or None."""
    return next(iter(code_rows(docs, peer)), None)


kernel = render.row_kind(first, listing, "The first Triton kernel Inductor generated for the peer.")
launches = render.row_kind(first, lambda r: r["launches"], "Triton launches per compiled call.")
name = render.row_kind(first, lambda r: f"`{r['kernel']}`", "The name of Inductor's first kernel.")
time = render.row_kind(cost, render.p50, "Median seconds of one cost case.")
graphs = render.row_kind(cost, lambda r: r.get("graphs"), "Graphs Dynamo made of the function.")
time_ratio = render.pair_kind(time, "case", render.over, "Median seconds of ``of`` over ``to``.")


def seconds(v: float) -> str:
    """Seconds from 1 s up, else ms."""
    return f"{v:.1f} s" if v >= 1 else f"{v * 1e3:.0f} ms"


NOT_MEASURED = "not measured"


def counted(noun: str):
    """A count with its noun, singular or plural: "1 kernel", "3 kernels"."""
    return lambda v: f"{v:,} {noun}" + ("" if v == 1 else "s")


def times(v: int) -> str:
    """How often, in words: "once", "twice", "3 times"."""
    return {1: "once", 2: "twice"}.get(v, f"{v:,} times")


VALUES = {
    "inductor_code.kernel": Value(kernel, missing=NOT_CAPTURED),
    "inductor_code.kernels": Value(kernels, counted("kernel"), missing=NOT_MEASURED),
    "inductor_code.launches": Value(launches, times, missing=NOT_MEASURED),
    "inductor_code.name": Value(name, missing=NOT_MEASURED),
    "inductor_code.time": Value(time, seconds, missing=NOT_MEASURED),
    "inductor_code.graphs": Value(graphs, render.count, missing=NOT_MEASURED),
    "inductor_code.time_ratio": Value(time_ratio, render.ratio, missing=NOT_MEASURED),
}
FIGURES: dict = {}
