"""Constants the lessons type that are not measurements: each one is tied here to the code
that uses it, so that changing either side without the other fails the build's tests.

A measured number never appears in a lesson as typed text (it comes from a placeholder);
but sizes, factors and hardware facts do ("n = 2²⁸",
        "2²⁸", "within 1.5×",
        "1.5×", "65,536 registers").
Each row below names the page, the exact text, and the value in the code (or the
hardware fact, with its source) the text must agree with. The page must contain the text,
and the text, parsed, must equal the value.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.site.support import DOCS, ROOT

SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def module_constant(path: str, name: str):
    """A module-level constant of a repository file, read with ast (no import, no torch)."""
    tree = ast.parse((ROOT / path).read_text())
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        if name in targets:
            return eval(compile(ast.Expression(node.value), path, "eval"), {})  # noqa: S307
    raise KeyError(f"{path} defines no module constant {name}")


def parse(text: str) -> float:
    """'2²⁸' -> 2**28, '65,536' -> 65536, '1.5×' -> 1.5."""
    text = text.strip().rstrip("×")
    power = re.fullmatch(r"(\d+)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if power:
        return int(power.group(1)) ** int(power.group(2).translate(SUPERSCRIPT))
    return float(text.replace(",", ""))


CASES = [
    # (page, text as typed, the number in it, where the value lives, the value)
    (
        "building/07-vector-add.md",
        "n = 2²⁸",
        "2²⁸",
        "scripts/bench/benchmarks/vector_add.py RAGGED_N",
        module_constant("scripts/bench/benchmarks/vector_add.py", "RAGGED_N"),
    ),
    (
        "building/07-vector-add.md",
        "within 1.5×",
        "1.5×",
        "figures/vector_add.py FLOOR_FACTOR",
        module_constant("figures/vector_add.py", "FLOOR_FACTOR"),
    ),
    (
        "building/07-vector-add.md",
        "sizes up to 65,536",
        "65,536",
        "figures/vector_add.py SMALL_N",
        module_constant("figures/vector_add.py", "SMALL_N"),
    ),
    (
        "building/07-vector-add.md",
        "n = 2²⁸ = ",
        "2²⁸",
        "scripts/bench/benchmarks/vector_add.py SIZES",
        max(module_constant("scripts/bench/benchmarks/vector_add.py", "SIZES")),
    ),
    (
        "dsl/04-loads-stores-masks.md",
        "sweep's 2²⁶",
        "2²⁶",
        "scripts/bench/benchmarks/vector_add.py SWEEP_N",
        module_constant("scripts/bench/benchmarks/vector_add.py", "SWEEP_N"),
    ),
    (
        "building/10-softmax.md",
        "tiles of 32,768",
        "32,768",
        "kernels/softmax.py ONLINE_BLOCK_N",
        module_constant("kernels/softmax.py", "ONLINE_BLOCK_N"),
    ),
    (
        "building/10-softmax.md",
        "at 65,536 columns, launched directly",
        "65,536",
        "scripts/bench/benchmarks/softmax.py BACKWARD_SWEEP_COLS",
        module_constant("scripts/bench/benchmarks/softmax.py", "BACKWARD_SWEEP_COLS"),
    ),
    (
        "building/11-rmsnorm.md",
        "up to 8,192 columns (`PREFETCH_MAX_BLOCK`)",
        "8,192",
        "kernels/rmsnorm.py PREFETCH_MAX_BLOCK",
        module_constant("kernels/rmsnorm.py", "PREFETCH_MAX_BLOCK"),
    ),
    # The attention backward's tile matmuls per pair of blocks (counted in the kernels'
    # source by tests/kernels/test_attention.py) against the FLOP convention's.
    (
        "flagship/12-flash-attention.md",
        "the backward does 7 tile matmuls",
        "7",
        "kernels/attention.py BACKWARD_TILE_MATMULS",
        module_constant("kernels/attention.py", "BACKWARD_TILE_MATMULS"),
    ),
    (
        "flagship/12-flash-attention.md",
        "FlashAttention-2's single pass does 5",
        "5",
        "scripts/bench/benchmarks/attention.py NOMINAL_BACKWARD_MATMULS",
        module_constant("scripts/bench/benchmarks/attention.py", "NOMINAL_BACKWARD_MATMULS"),
    ),
    (
        "flagship/12-flash-attention.md",
        "against the forward's 2",
        "2",
        "kernels/attention.py FORWARD_TILE_MATMULS",
        module_constant("kernels/attention.py", "FORWARD_TILE_MATMULS"),
    ),
    # The decoding paragraph's query block: the d = 128 forward's BLOCK_M.
    (
        "flagship/12-flash-attention.md",
        "a query block of `BLOCK_M = 128` rows",
        "128",
        "kernels/attention.py FORWARD_CONFIG[128]",
        module_constant("kernels/attention.py", "FORWARD_CONFIG")[128][0],
    ),
    (
        "flagship/12-flash-attention.md",
        "runs 7 tile matmuls where the convention counts 5",
        "7",
        "kernels/attention.py BACKWARD_TILE_MATMULS",
        module_constant("kernels/attention.py", "BACKWARD_TILE_MATMULS"),
    ),
    # Hardware facts the occupancy values compute with (scripts/book/render.py SM_LIMITS,
    # compute capability 9.0: the CUDA C Programming Guide's per-capability table).
    (
        "dsl/04-loads-stores-masks.md",
        "holds at most 2,048 threads",
        "2,048",
        "scripts/book/render.py SM_LIMITS['9.0']['threads']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["threads"],
    ),
    (
        "dsl/04-loads-stores-masks.md",
        "2,048 threads and 32 programs",
        "32",
        "scripts/book/render.py SM_LIMITS['9.0']['blocks']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["blocks"],
    ),
    # Lesson 05: the worked example is the dot_tf32 benchmark's tile and size; the sizes
    # and datasheet peaks the measurement section names.
    (
        "dsl/05-dot-and-tensor-cores.md",
        "`BLOCK_K = 32`",
        "32",
        "scripts/bench/benchmarks/dot.py TF32_CONFIG[2]",
        module_constant("scripts/bench/benchmarks/dot.py", "TF32_CONFIG")[2],
    ),
    (
        "dsl/05-dot-and-tensor-cores.md",
        "fp32 inputs, 8 [warps]",
        "8",
        "scripts/bench/benchmarks/dot.py TF32_CONFIG[3]",
        module_constant("scripts/bench/benchmarks/dot.py", "TF32_CONFIG")[3],
    ),
    (
        "dsl/05-dot-and-tensor-cores.md",
        "in a 4096³ product",
        "4096³",
        "scripts/bench/benchmarks/dot.py TF32_N",
        module_constant("scripts/bench/benchmarks/dot.py", "TF32_N") ** 3,
    ),
    (
        "dsl/05-dot-and-tensor-cores.md",
        "8192³ in five precisions",
        "8192³",
        "scripts/bench/benchmarks/dot.py SIZES",
        max(module_constant("scripts/bench/benchmarks/dot.py", "SIZES")) ** 3,
    ),
    *(
        (
            "dsl/05-dot-and-tensor-cores.md",
            typed,
            number,
            f"figures/dot.py DATASHEET_PEAK['H100'][{precision!r}] in TFLOP/s",
            round(module_constant("figures/dot.py", "DATASHEET_PEAK")["H100"][precision] / 1e12),
        )
        for typed, number, precision in (
            ("about 495 TFLOP/s in TF32", "495", "tf32"),
            ("989 in fp16 and bf16", "989", "bf16"),
            ("1,979 in fp8", "1,979", "fp8"),
        )
    ),
    # Lesson 06: the benchmark's tensor and widths, the wrapper's tile, the tile control.
    (
        "dsl/06-reductions.md",
        "reduces a 512 MiB tensor",
        "512",
        "scripts/bench/benchmarks/reduction.py TENSOR_BYTES in MiB",
        module_constant("scripts/bench/benchmarks/reduction.py", "TENSOR_BYTES") // 2**20,
    ),
    (
        "dsl/06-reductions.md",
        "widths of 256 to",
        "256",
        "scripts/bench/benchmarks/reduction.py WIDTHS[0]",
        min(module_constant("scripts/bench/benchmarks/reduction.py", "WIDTHS")),
    ),
    (
        "dsl/06-reductions.md",
        "to 65,536 columns",
        "65,536",
        "scripts/bench/benchmarks/reduction.py WIDTHS[-1]",
        max(module_constant("scripts/bench/benchmarks/reduction.py", "WIDTHS")),
    ),
    (
        "dsl/06-reductions.md",
        "at most 4,096 columns",
        "4,096",
        "kernels/reduction.py TILE_ELEMENTS",
        module_constant("kernels/reduction.py", "TILE_ELEMENTS"),
    ),
    (
        "dsl/06-reductions.md",
        "set by hand to 1 × 8,192",
        "8,192",
        "scripts/bench/benchmarks/reduction.py TILE_BLOCK_N[-1]",
        max(module_constant("scripts/bench/benchmarks/reduction.py", "TILE_BLOCK_N")),
    ),
    (
        "dsl/06-reductions.md",
        "over 4 to 32 warps",
        "32",
        "scripts/bench/benchmarks/reduction.py TILE_WARPS[-1]",
        max(module_constant("scripts/bench/benchmarks/reduction.py", "TILE_WARPS")),
    ),
    (
        "dsl/06-reductions.md",
        "its 2,048 threads",
        "2,048",
        "scripts/book/render.py SM_LIMITS['9.0']['threads']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["threads"],
    ),
    (
        "dsl/06-reductions.md",
        "handed to a warp in blocks of 256",
        "256",
        "scripts/book/render.py REGISTER_UNIT",
        module_constant("scripts/book/render.py", "REGISTER_UNIT"),
    ),
    (
        "dsl/06-reductions.md",
        "has 65,536 registers, handed to a warp",
        "65,536",
        "scripts/book/render.py SM_LIMITS['9.0']['registers']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["registers"],
    ),
    # Lesson 02's occupancy limits and the glossary's: the same table, and the register unit.
    *(
        (
            page,
            typed,
            number,
            f"scripts/book/render.py SM_LIMITS['9.0'][{key!r}]",
            module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"][key],
        )
        for page, typed, number, key in (
            (
                "model/02-programs-and-tiles.md",
                "at most 2,048 resident at once",
                "2,048",
                "threads",
            ),
            (
                "model/02-programs-and-tiles.md",
                "at most 32 programs (thread blocks)",
                "32",
                "blocks",
            ),
            ("model/02-programs-and-tiles.md", "**registers**: 65,536,", "65,536", "registers"),
            (
                "appendix/glossary.md",
                "its threads (2,048 on an H100), its program slots (32), its registers (65,536",
                "2,048",
                "threads",
            ),
            ("appendix/glossary.md", "its program slots (32)", "32", "blocks"),
            (
                "appendix/glossary.md",
                "its registers (65,536, handed out per warp)",
                "65,536",
                "registers",
            ),
        )
    ),
    (
        "model/02-programs-and-tiles.md",
        "handed out per warp in units of 256",
        "256",
        "scripts/book/render.py REGISTER_UNIT",
        module_constant("scripts/book/render.py", "REGISTER_UNIT"),
    ),
    # Hardware facts, not code: shared memory per SM and per thread block on Hopper
    # (NVIDIA's Hopper tuning guide, "Occupancy"; the gpu-hierarchy diagram says the same).
    ("appendix/glossary.md", "its shared memory (228 KiB)", "228", "Hopper", 228),
    ("model/02-programs-and-tiles.md", "**shared memory**: 228 KiB", "228", "Hopper", 228),
    ("model/02-programs-and-tiles.md", "at most 227 KiB of it", "227", "Hopper", 227),
    # Hardware facts the issue budget computes with (figures/fused_activation.py): an SM's
    # four schedulers each issue one warp instruction (32 threads) per clock.
    (
        "building/08-fused-activation.md",
        "SMs × 128 ×",
        "128",
        "figures/fused_activation.py ISSUE_PER_SM_CLOCK",
        module_constant("figures/fused_activation.py", "ISSUE_PER_SM_CLOCK"),
    ),
    # Lesson 13 counts programs per SM with the same limits, and shared memory per SM
    # (figures/matmul_autotune.py SM_SHARED, SHARED_RESERVED).
    (
        "performance/13-autotuning.md",
        "has 65,536 registers, handed to each warp in blocks of 256",
        "65,536",
        "scripts/book/render.py SM_LIMITS['9.0']['registers']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["registers"],
    ),
    (
        "performance/13-autotuning.md",
        "handed to each warp in blocks of 256",
        "256",
        "scripts/book/render.py REGISTER_UNIT",
        module_constant("scripts/book/render.py", "REGISTER_UNIT"),
    ),
    (
        "performance/13-autotuning.md",
        "blocks of 256, and 228 KiB of shared memory",
        "228",
        "figures/matmul_autotune.py SM_SHARED['9.0'] / 1024",
        module_constant("figures/matmul_autotune.py", "SM_SHARED")["9.0"] / 1024,
    ),
    (
        "performance/13-autotuning.md",
        "also takes 1 KiB for the system",
        "1",
        "figures/matmul_autotune.py SHARED_RESERVED / 1024",
        module_constant("figures/matmul_autotune.py", "SHARED_RESERVED") / 1024,
    ),
    (
        "performance/13-autotuning.md",
        "the SM's limits of 2,048 threads",
        "2,048",
        "scripts/book/render.py SM_LIMITS['9.0']['threads']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["threads"],
    ),
    (
        "performance/13-autotuning.md",
        "2,048 threads and 32 programs are far off",
        "32",
        "scripts/book/render.py SM_LIMITS['9.0']['blocks']",
        module_constant("scripts/book/render.py", "SM_LIMITS")["9.0"]["blocks"],
    ),
    (
        "performance/13-autotuning.md",
        "(128 programs suit the 132 SMs",
        "128",
        "kernels/_tuning.py MIN_PROGRAMS",
        module_constant("kernels/_tuning.py", "MIN_PROGRAMS"),
    ),
    # The shared memory one program may use on Hopper, as Triton reads it from the driver
    # (max_shared_mem; the sweep's refusals quote it).
    ("building/09-tiled-matmul.md", "227 KiB on Hopper (232,448", "232,448", "Hopper", 232448),
    # A hardware fact, not code: 64K 32-bit registers per SM on Hopper (NVIDIA's Hopper
    # tuning guide); kernels/softmax.py's register arithmetic assumes the same.
    ("building/10-softmax.md", "An SM has 65,536 registers", "65,536", "Hopper", 65536),
    ("building/11-rmsnorm.md", "an H100 SM has 65,536", "65,536", "Hopper", 65536),
    # The host-bound rule's margin and its limit on GPU work (scripts/book/render.py).
    (
        "appendix/methodology.md",
        "by more than 5%",
        "5",
        "scripts/book/render.py HOST_BOUND_MARGIN",
        round(module_constant("scripts/book/render.py", "HOST_BOUND_MARGIN") * 100),
    ),
    (
        "appendix/methodology.md",
        "at least 150 µs of GPU work",
        "150",
        "scripts/book/render.py HOST_PATH_LIMIT_S",
        round(module_constant("scripts/book/render.py", "HOST_PATH_LIMIT_S") * 1e6),
    ),
]


@pytest.mark.parametrize(
    "md, typed, number, where, value", CASES, ids=[f"{c[0]}: {c[1]!r}" for c in CASES]
)
def test_typed_constant_matches_the_code(md, typed, number, where, value):
    page = " ".join((DOCS / md).read_text().split())
    assert " ".join(typed.split()) in page, f"{md} no longer says {typed!r}: update this test"
    assert number in typed
    assert parse(number) == value, f"{md} says {typed!r} but {where} is {value}"
