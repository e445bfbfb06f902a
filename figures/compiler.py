"""Values of the compiler family: the compiler's own output, shown in lessons 03 and 05.

Data (scripts/bench/benchmarks/compiler.py): ``compiler``, per kernel, variant and stage
(TTIR, TTGIR, PTX, SASS) the text the compiler produced, which the values trim to the lines
a lesson discusses and return as Markdown code blocks (a page puts one on a line of its
own); ``compiler_time``, a first call's cost in a fresh process with Triton's cache empty or
filled, against later calls, and the files the compile leaves in the cache.
"""

import re
from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

BENCH = "compiler"
# Source locations (`loc(#loc12)` after each op, `#loc12 = ...` lines), trimmed from listings.
LOC_SUFFIX = re.compile(r"\s*loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")
LOC_LINE = re.compile(r"^#loc\d*\s*=")
GLOBAL_MEMORY = re.compile(r"\b(ld|st)\.global")
# The TTIR lines a reader should look at: the loads, the store, and n_elements's divisibility.
TTIR_LINES = r"tt\.(load|store)|%n_elements: i32"
LANG = {"ttir": "mlir", "ttgir": "mlir", "ptx": "text", "sass": "text"}


Variant = Literal["divisible", "ragged"]


def stage_text(docs: Docs, kernel: str, variant: str, stage: str) -> str:
    """The text the compiler produced for ``kernel`` at ``stage``."""
    return render.one(docs, BENCH, kernel=kernel, variant=variant, stage=stage)["text"]


def clean_ir(text: str) -> list[str]:
    """IR lines without source locations, blank lines or the module's attribute noise."""
    out = []
    for line in text.splitlines():
        if LOC_LINE.match(line) or not line.strip():
            continue
        out.append(LOC_SUFFIX.sub("", line).rstrip())
    return out


def split_signature(lines: list[str]) -> list[str]:
    """The function's signature with one argument per line (the IR writes one long line)."""
    out = []
    for line in lines:
        if "tt.func" in line and ", %" in line:
            indent = line[: len(line) - len(line.lstrip())]
            head, *args = line.split(", %")
            out.append(head + ",")
            out += [f"{indent}    %{a}," for a in args[:-1]]
            out.append(f"{indent}    %{args[-1]}")
        else:
            out.append(line)
    return out


def block(lines: list[str], lang: str, highlight: list[int]) -> str:
    """A fenced code block; ``highlight`` holds 1-based line numbers."""
    hl = f' hl_lines="{" ".join(map(str, highlight))}"' if highlight else ""
    return f"```{lang}{hl}\n" + "\n".join(lines) + "\n```"


def listing(lines: list[str], lang: str, pattern: re.Pattern) -> str:
    return block(lines, lang, [i + 1 for i, line in enumerate(lines) if pattern.search(line)])


VECTOR_HIGHLIGHT = {"ttir": TTIR_LINES, "ttgir": r"^#blocked|tt\.(load|store)"}


def vector_ir(docs: Docs, stage: Literal["ttir", "ttgir"], variant: Variant = "divisible") -> str:
    """The vector-add kernel's TTIR or TTGIR, its key lines highlighted: a code block."""
    lines = split_signature(clean_ir(stage_text(docs, "vector_add", variant, stage)))
    return listing(lines, LANG[stage], re.compile(VECTOR_HIGHLIGHT[stage]))


def vector_ptx_memory(docs: Docs, variant: Variant) -> str:
    """The global loads and stores in the vector-add kernel's PTX: a code block."""
    ptx = stage_text(docs, "vector_add", variant, "ptx").splitlines()
    return block([line.strip() for line in ptx if GLOBAL_MEMORY.search(line)], "text", [])


# A SASS line as Triton's disassembler prints it: scheduling codes, a tab, the instruction.
SASS_CONTROL = re.compile(r"^\S+\t")
SASS_GLOBAL_MEMORY = re.compile(r"\b(LDG|STG)\.")


def vector_sass_memory(docs: Docs, variant: Variant, lines: int = 4) -> str | None:
    """The first ``lines`` LDG / STG lines of the vector-add kernel's SASS: a code block."""
    match = {"kernel": "vector_add", "variant": variant, "stage": "sass"}
    row = render.maybe_one(docs, BENCH, absent_ok=True, **match)
    if row is None:
        return None
    kept = [SASS_CONTROL.sub("", line.strip()) for line in row["text"].splitlines()]
    return block([line for line in kept if SASS_GLOBAL_MEMORY.search(line)][:lines], "text", [])


def vector_ptx_lines(docs: Docs, variant: Variant = "divisible") -> int:
    """Lines of PTX of the vector-add kernel compiled for a divisible or ragged n."""
    return len(stage_text(docs, "vector_add", variant, "ptx").splitlines())


def vector_n(docs: Docs, variant: Variant) -> int:
    """The n the vector-add kernel was compiled for: divisible (by 16) or ragged."""
    return render.one(docs, BENCH, kernel="vector_add", variant=variant, stage="ttir")["n"]


def ragged_signature(docs: Docs) -> str:
    """The kernel's signature in the TTIR for a ragged n: a code block."""
    lines = clean_ir(stage_text(docs, "vector_add", "ragged", "ttir"))
    (sig,) = [line.strip() for line in lines if "tt.func" in line]
    sig_lines = split_signature([sig])
    return listing(sig_lines, "mlir", re.compile(r"%n_elements"))


def matmul_ttgir_dot(docs: Docs) -> str:
    """The matmul kernel's TTGIR lines that hold the dot and its layouts: a code block."""
    lines = clean_ir(stage_text(docs, "matmul", "bfloat16", "ttgir"))
    wanted = re.compile(r"^#mma|^#shared|= ttng\.warp_group_dot |= tt\.dot ")
    kept = [line.strip() for line in lines if wanted.search(line.strip())]
    return block(kept[:8], "mlir", [])


def matmul_ptx_mma(docs: Docs) -> str:
    """The first tensor-core instructions of the matmul kernel's PTX (bf16): a code block."""
    kept = stage_text(docs, "matmul", "bfloat16", "ptx").splitlines()
    return block([shorten_registers(line) for line in kept[:4]], "text", [])


def shorten_registers(line: str) -> str:
    """A long register list ``{%r1,%r2,...,%r64}`` as ``{%r1, …, %r64}`` (N registers)."""

    def short(m: re.Match) -> str:
        regs = [r.strip() for r in m.group(1).split(",")]
        if len(regs) <= 4:
            return m.group(0)
        return f"{{{regs[0]}, …, {regs[-1]}}} /* {len(regs)} registers */"

    return re.sub(r"\{([^{}]*)\}", short, line)


def matmul_ptx(docs: Docs) -> dict:
    """The matmul kernel's PTX row."""
    return render.one(docs, BENCH, kernel="matmul", stage="ptx")


matmul_mma_count = render.row_kind(
    matmul_ptx, lambda r: r["mma_count"], "Tensor-core instructions (mma / wgmma) in the PTX."
)
matmul_mma_opcode = render.row_kind(
    matmul_ptx,
    lambda r: f"`{max(r['mma_opcodes'], key=r['mma_opcodes'].get)}`",
    "The tensor-core instruction the matmul kernel's PTX uses most, as written there.",
)


def matmul_config(docs: Docs) -> str:
    """The tile and launch settings the matmul kernel was compiled with for the listing."""
    c = matmul_ptx(docs)["config"]
    return (
        f"BLOCK_M={c['BLOCK_M']}, BLOCK_N={c['BLOCK_N']}, BLOCK_K={c['BLOCK_K']}, "
        f"num_warps={c['num_warps']}, num_stages={c['num_stages']}"
    )


TIME = "compiler_time"
# The order files come out of the pipeline, for the cache listing.
PIPELINE = (".source", ".ttir", ".ttgir", ".llir", ".ptx", ".cubin", ".json")


def call_time(
    docs: Docs, cache: Literal["cold", "warm"], call: Literal["first", "later", "new_key"] = "first"
) -> float | None:
    """Median wall seconds of a call in a fresh process, with Triton's cache cold or warm."""
    return render.field(render.maybe_one(docs, TIME, cache=cache, call=call), "time_s", "p50")


def cache_files(docs: Docs) -> str | None:
    """The vector-add kernel's files in Triton's cache: a code block."""
    row = render.maybe_one(docs, TIME, cache="cold", call="first")
    if row is None:
        return None
    names = sorted(
        row["cache_files"],
        key=lambda f: (next((i for i, x in enumerate(PIPELINE) if f.endswith(x)), 99), f),
    )
    folders = max(row["cache_files"].values())
    lines = [f"<hash>/{name}" for name in names]
    return block([f"# {folders} folders like this one, one per specialisation", *lines], "text", [])


VALUES = {
    "compiler.vector_ir": Value(vector_ir),
    "compiler.ragged_signature": Value(ragged_signature),
    "compiler.vector_ptx_memory": Value(vector_ptx_memory),
    "compiler.vector_ptx_lines": Value(vector_ptx_lines, render.count),
    "compiler.vector_n": Value(vector_n, render.count),
    "compiler.matmul_ttgir_dot": Value(matmul_ttgir_dot),
    "compiler.matmul_ptx_mma": Value(matmul_ptx_mma),
    "compiler.matmul_mma_count": Value(matmul_mma_count, render.count),
    "compiler.matmul_mma_opcode": Value(matmul_mma_opcode),
    "compiler.matmul_config": Value(matmul_config),
    "compiler.vector_sass_memory": Value(vector_sass_memory, missing="not captured"),
    "compiler.call_time": Value(call_time, render.millis(1), missing="not measured"),
    "compiler.cache_files": Value(cache_files, missing="not measured"),
}
FIGURES: dict = {}
