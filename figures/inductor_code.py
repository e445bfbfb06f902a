"""Values of the inductor_code family: what torch.compile wrote, and what breaks cost.

Data: ``inductor_code`` (scripts/bench/benchmarks/inductor_code.py). Code rows hold the source
of each Triton kernel Inductor generated for lesson 08's eager op chain and lesson 11's
eager RMSNorm, captured on the GPU; the values below trim each to its ``@triton.jit``
function and return it as a Markdown code block (put such a value on a line of its own).
Cost rows hold the first call of a compiled function, a recompile on a new shape, and the
host time per call with and without a graph break. Until a GPU run has written the file,
every value says it is not measured; nothing here is typed by hand.
"""

from __future__ import annotations

import re

from figures.compiler import block
from scripts.book.render import Docs, Value, count, micros, millis, or_not_measured, ratio

BENCH = "inductor_code"
NOT_CAPTURED = (
    "*Not captured yet on this GPU: `python3 scripts/bench/measure.py inductor_code` captures it.*"
)
MEMORY = re.compile(r"tl\.(load|store)\(")
MAX_LINES = 45  # a listing longer than this is cut, and says how many lines it left out


def code_rows(docs: Docs, peer: str) -> list[dict]:
    if BENCH not in docs:
        return []
    return [r for r in docs[BENCH]["rows"] if r["kind"] == "code" and r["peer"] == peer]


def cost(docs: Docs, case: str) -> dict | None:
    if BENCH not in docs:
        return None
    found = [r for r in docs[BENCH]["rows"] if r["kind"] == "cost" and r["case"] == case]
    return found[0] if found else None


def jit_function(text: str) -> list[str]:
    """The kernel from its ``@triton.jit`` line on: Inductor's imports and its heuristics
    decorator (launch hints and metadata) are left out, as are blank lines."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "@triton.jit"), 0)
    kept = [line.rstrip() for line in lines[start:] if line.strip()]
    if len(kept) > MAX_LINES:
        kept = kept[:MAX_LINES] + [f"    # … {len(kept) - MAX_LINES} more lines"]
    return kept


def listing(peer: str):
    def compute(docs: Docs) -> str | None:
        rows = code_rows(docs, peer)
        if not rows:
            return None
        lines = jit_function(rows[0]["text"])
        return block(lines, "python", [i + 1 for i, s in enumerate(lines) if MEMORY.search(s)])

    compute.__name__ = compute.__qualname__ = f"{peer}_kernel"
    compute.__doc__ = (
        f"The first Triton kernel Inductor generated for the {peer} peer, from @triton.jit "
        "on, loads and stores highlighted: a Markdown code block (None before a GPU run)."
    )
    return compute


def kernel_count(peer: str):
    def compute(docs: Docs) -> int | None:
        rows = code_rows(docs, peer)
        return len(rows) if rows else None

    compute.__name__ = compute.__qualname__ = f"{peer}_kernels"
    compute.__doc__ = f"How many Triton kernels Inductor generated for the {peer} peer."
    return compute


def launch_count(peer: str):
    def compute(docs: Docs) -> int | None:
        rows = code_rows(docs, peer)
        return rows[0]["launches"] if rows else None

    compute.__name__ = compute.__qualname__ = f"{peer}_launches"
    compute.__doc__ = f"Triton launches per call of the compiled {peer} peer."
    return compute


def kernel_name(peer: str):
    def compute(docs: Docs) -> str | None:
        rows = code_rows(docs, peer)
        return f"`{rows[0]['kernel']}`" if rows else None

    compute.__name__ = compute.__qualname__ = f"{peer}_name"
    compute.__doc__ = f"The name Inductor gave its (first) kernel for the {peer} peer."
    return compute


def p50_of(case: str, what: str):
    def compute(docs: Docs) -> float | None:
        row = cost(docs, case)
        return row["time_s"]["p50"] if row else None

    compute.__name__ = compute.__qualname__ = f"{case}_time"
    compute.__doc__ = f"{what}, seconds (median)."
    return compute


def graphs_of(case: str):
    def compute(docs: Docs) -> int | None:
        row = cost(docs, case)
        return row["graphs"] if row else None

    compute.__name__ = compute.__qualname__ = f"{case}_graphs"
    compute.__doc__ = f"How many graphs Dynamo made of the {case} example."
    return compute


def break_over_whole(docs: Docs) -> float | None:
    """Host time per call with the graph break over the same values in one graph."""
    broken, whole = cost(docs, "graph_break"), cost(docs, "whole")
    if broken is None or whole is None:
        return None
    return broken["time_s"]["p50"] / whole["time_s"]["p50"]


def code(fmt):
    """A code-block value, or a sentence saying it is not captured yet."""

    def show(v) -> str:
        return NOT_CAPTURED if v is None else fmt(v)

    return show


def seconds(v: float) -> str:
    return f"{v:.1f} s" if v >= 1 else f"{v * 1e3:.0f} ms"


def plain_or_none(v) -> str:
    return "not measured" if v is None else str(v)


VALUES = {
    "inductor_code.fused_activation_kernel": Value(listing("fused_activation"), code(str)),
    "inductor_code.rmsnorm_kernel": Value(listing("rmsnorm"), code(str)),
    "inductor_code.fused_activation_kernels": Value(
        kernel_count("fused_activation"), or_not_measured(count)
    ),
    "inductor_code.rmsnorm_kernels": Value(kernel_count("rmsnorm"), or_not_measured(count)),
    "inductor_code.fused_activation_launches": Value(
        launch_count("fused_activation"), or_not_measured(count)
    ),
    "inductor_code.rmsnorm_launches": Value(launch_count("rmsnorm"), or_not_measured(count)),
    "inductor_code.fused_activation_name": Value(kernel_name("fused_activation"), plain_or_none),
    "inductor_code.rmsnorm_name": Value(kernel_name("rmsnorm"), plain_or_none),
    "inductor_code.first_call": Value(
        p50_of("first_call", "First call of the compiled op chain, compile included"),
        or_not_measured(seconds),
    ),
    "inductor_code.recompile": Value(
        p50_of("recompile", "First call of the compiled op chain on a new shape"),
        or_not_measured(seconds),
    ),
    "inductor_code.cached_call": Value(
        p50_of("cached_call", "A later call of the compiled op chain, per call"),
        or_not_measured(millis(2)),
    ),
    "inductor_code.eager": Value(
        p50_of("eager", "clipped run eagerly, host time per call"), or_not_measured(micros(0))
    ),
    "inductor_code.graph_break": Value(
        p50_of("graph_break", "torch.compile(clipped), one graph break, host time per call"),
        or_not_measured(micros(0)),
    ),
    "inductor_code.whole": Value(
        p50_of("whole", "torch.compile(clipped_whole), one graph, host time per call"),
        or_not_measured(micros(0)),
    ),
    "inductor_code.break_over_whole": Value(break_over_whole, or_not_measured(ratio)),
    "inductor_code.graph_break_graphs": Value(graphs_of("graph_break"), or_not_measured(count)),
}
FIGURES: dict = {}
