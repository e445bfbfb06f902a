"""The controls added for lessons 03-07, on made-up rows shaped as their benchmarks write
them (no GPU, no torch): each made-up file validates against its row schema, and each
kind computes what its docstring says; on a device without the data, each reads as its
``missing`` words. (The committed data predates these benchmarks, so without this test
the kinds' arithmetic would first run on the lead's GPU data.)"""

from __future__ import annotations

import copy
import json
import math

import jsonschema
import pytest

from figures import compiler, dot, launch, reduction
from figures import fused_activation as fa
from figures import vector_add as va
from scripts.book import render
from tests.site.support import ROOT, page_choice

REGISTRY = render.discover()
ENVELOPE = json.loads((ROOT / "figures" / "schema.json").read_text())


def spread(s: float) -> dict:
    return {"p20": s * 0.99, "p50": s, "p80": s * 1.01, "reps": 5}


def validate(benchmark: str, rows: list[dict]) -> None:
    schema = copy.deepcopy(ENVELOPE)
    schema["properties"]["rows"] = json.loads(
        (ROOT / "figures" / "schemas" / f"{benchmark}.json").read_text()
    )
    rows_schema = {**schema["properties"]["rows"], "$defs": schema["$defs"]}
    jsonschema.Draft202012Validator(rows_schema).validate(rows)


def docs_with(benchmark: str, rows: list[dict], base: dict | None = None) -> dict:
    validate(benchmark, rows)
    d = dict(base or {})
    d[benchmark] = {"benchmark": benchmark, "rows": rows, "provenance": {}, "ceilings": {}}
    return d


def text(docs: dict, spec: str) -> str:
    return render.value_text("x", spec, {"x": docs}, REGISTRY)


def chosen(docs: dict, page: str, kind: str, nth: int = 0) -> str:
    """What the page's ``choose`` that reads ``kind`` shows on ``docs`` (its device: h100)."""
    return render.choose_text(page_choice(page, kind, nth), {"h100": docs}, REGISTRY)


def not_decided(docs: dict, page: str, kind: str, nth: int = 0) -> None:
    """Without the data, the page's choice fails the build, naming the value it lacks."""
    with pytest.raises(render.RenderError, match=kind):
        chosen(docs, page, kind, nth)


# ---- lesson 03: compile time, SASS -----------------------------------------------------------

TIME_ROWS = [
    {"kernel": "vector_add", "cache": "cold", "call": "first", "n": 1 << 20,
     "time_s": spread(0.42),
     "cache_files": {"add_kernel.ptx": 2, "add_kernel.cubin": 2, "add_kernel.ttir": 2,
                     "add_kernel.source": 2, "__grp__add_kernel.json": 2}},
    {"kernel": "vector_add", "cache": "cold", "call": "new_key", "n": (1 << 20) - 1,
     "time_s": spread(0.2)},
    {"kernel": "vector_add", "cache": "cold", "call": "later", "n": 1 << 20,
     "time_s": spread(30e-6)},
    {"kernel": "vector_add", "cache": "warm", "call": "first", "n": 1 << 20,
     "time_s": spread(0.004)},
    {"kernel": "vector_add", "cache": "warm", "call": "later", "n": 1 << 20,
     "time_s": spread(31e-6)},
    {"kernel": "vector_add", "cache": "warm", "call": "new_key", "n": (1 << 20) - 1,
     "time_s": spread(0.003)},
]  # fmt: skip


def test_compile_time_and_cache_files():
    docs = docs_with("compiler_time", TIME_ROWS)
    assert compiler.call_time(docs, "cold") == 0.42
    assert compiler.call_time(docs, "warm", "later") == 31e-6
    assert text(docs, "compiler.call_time cache=warm") == "4.0 ms"
    assert text(docs, "compiler.call_time cache=cold call=later as=us0") == "30 µs"
    listing = compiler.cache_files(docs).splitlines()
    assert listing[0] == "```text" and listing[-1] == "```"
    assert listing[1].startswith("# 2 folders")
    # in pipeline order: source, ttir, ptx, cubin, then the metadata
    assert [line.split("/")[1] for line in listing[2:-1]] == [
        "add_kernel.source", "add_kernel.ttir", "add_kernel.ptx", "add_kernel.cubin",
        "__grp__add_kernel.json",
    ]  # fmt: skip
    assert text({}, "compiler.call_time cache=cold") == "not measured"
    assert text({}, "compiler.cache_files") == "not measured"


SASS = """Function:add_kernel
--:-:0:-:1\tLDC R1, c[0x0][0x28];
--:-:2:-:4\t@!P0 LDG.E.128 R12, desc[UR4][R2.64];
--:-:2:-:4\t@!P0 LDG.E.128 R16, desc[UR4][R20.64];
04:-:-:-:1\tFADD R12, R16, R12;
--:1:-:-:1\t@!P0 STG.E.128 desc[UR4][R16.64], R12;
"""


def test_sass_memory_lines_lose_their_scheduling_codes():
    row = {"kernel": "vector_add", "variant": "divisible", "n": 16, "stage": "sass",
           "text": SASS, "lines": 6}  # fmt: skip
    docs = docs_with("compiler", [row])
    assert compiler.vector_sass_memory(docs, "divisible", lines=2) == (
        "```text\n@!P0 LDG.E.128 R12, desc[UR4][R2.64];\n"
        "@!P0 LDG.E.128 R16, desc[UR4][R20.64];\n```"
    )
    assert compiler.vector_sass_memory(docs, "divisible").count("\n") == 4  # 3 lines + fences
    assert text(docs, "compiler.vector_sass_memory variant=ragged") == "not captured"


# ---- lesson 03: the first call after a wait ----------------------------------------------------


def test_launch_time_reads_the_first_call_clock():
    rows = [
        {"key": k, "what": k, "host_s": spread(14e-6), "enqueue_s": spread(13e-6),
         "enqueue_first_s": spread(60e-6), "gpu_s": spread(4e-6)}
        for k in ("triton", "wrapper", "torch_add", "torch", "graph")
    ]  # fmt: skip
    docs = docs_with("launch_overhead", rows)
    assert launch.time(docs, "triton", "enqueue_first") == 60e-6
    old = docs_with("launch_overhead", [{k: v for k, v in r.items() if k != "enqueue_first_s"}
                                        for r in rows])  # fmt: skip
    assert text(old, "launch.time call=triton clock=enqueue_first") == "not measured"


# ---- lesson 04: occupancy and Little's law -----------------------------------------------------


def sweep_docs(cc: str = "9.0", sms: int = 132, regs: int = 16) -> dict:
    n = 1 << 26
    rows = [
        {"block": 4, "num_warps": w, "n": n, "dtype": "float32", "bytes": 12 * n,
         "time_s": spread(t), "n_regs": regs, "n_spills": 0, "empty_time_s": spread(0.01008)}
        for w, t in ((4, 0.01008), (16, 0.01885))
    ]  # fmt: skip
    docs = docs_with("vector_add_block_sweep", rows)
    docs["vector_add_block_sweep"]["provenance"] = {"compute_capability": cc, "sm_count": sms}
    return docs


def test_littles_law_on_the_block_sweep():
    docs = sweep_docs()
    assert va.resident(docs, 4, 16, "sm") == 4  # 2048 threads / 512
    assert va.resident(docs, 4, 16) == 528
    assert va.resident(docs, 4, 4) == 16 * 132  # 2048 / 128 threads, under 32 programs
    rate = va.program_rate(docs, 4, 16)
    assert rate == pytest.approx((1 << 24) / 0.01885)
    assert text(docs, "vector_add.program_rate block=4 warps=16") == "0.89 per ns"
    assert va.lifetime(docs, 4, 16) == pytest.approx(528 / rate)
    assert text(docs, "vector_add.lifetime block=4 warps=16") == "593 ns"
    assert va.program_rate(docs, 4, 4, "empty") == pytest.approx((1 << 24) / 0.01008)


def test_registers_can_be_the_limit_and_unknown_gpus_say_so():
    # 128 registers per thread: 4096 per warp, 16 warps per SM, 1 program of 16 warps
    assert va.resident(sweep_docs(regs=128), 4, 16, "sm") == 1
    assert va.resident(sweep_docs(cc="7.0"), 4, 16) is None
    assert text(sweep_docs(cc="7.0"), "vector_add.lifetime block=4 warps=16") == (
        "unknown for this GPU"
    )


# ---- lesson 07: one-way streams ----------------------------------------------------------------


def test_streams_against_the_copy_of_the_same_run():
    n = 1 << 28
    rows = [
        {"stream": s, "impl": i, "dtype": "float32", "n": n, "reads": r, "writes": w,
         "bytes": r + w, "time_s": spread(t)}
        for s, i, r, w, t in (
            ("add", "triton", 8 * n, 4 * n, 1.06e-3),
            ("copy", "torch", 4 * n, 4 * n, 0.716e-3),
            ("read", "triton", 4 * n, n // 256, 0.33e-3),
            ("fill", "triton", 0, 4 * n, 0.37e-3),
        )
    ]  # fmt: skip
    docs = docs_with("vector_add_streams", rows)
    copy_bw = 8 * n / 0.716e-3
    assert va.stream_bandwidth(docs, "fill") == pytest.approx(4 * n / 0.37e-3)
    assert va.stream_of_copy(docs, "read") == pytest.approx((4 * n + n // 256) / 0.33e-3 / copy_bw)
    assert text(docs, "vector_add.stream_of_copy stream=fill impl=torch") == "not measured"
    # per byte, by the tie rule: the read moves 8% more bytes per second than the copy,
    # the fill 3% fewer, both beyond the spreads (1% each way) and the 1% floor
    assert text(docs, "vector_add.stream_compare stream=read") == "faster than"
    assert text(docs, "vector_add.stream_compare stream=fill") == "slower than"
    assert text(docs, "vector_add.stream_compare stream=add") == "as fast as"
    assert text({}, "vector_add.stream_compare stream=read") == "not measured"


# ---- lesson 07: the add against torch.add and the copy; the wrapper's crossover ---------------


def size_rows(host_us: float = 23.0, offset_us: float = 2.5) -> list[dict]:
    """fp32 rows of the size sweep: device time 5 us up to 2**16, then the bytes at 3 TB/s
    plus ``offset_us``; host time per call ``host_us`` until the GPU is slower, then the
    device time less the offset (back-to-back calls overlap the latency of each)."""
    rows = []
    for p in range(8, 29):
        n = 1 << p
        device = max(5e-6, 12 * n / 3e12 + offset_us * 1e-6)
        host = max(host_us * 1e-6, device - offset_us * 1e-6)
        for impl, scale in (("triton", 1.0), ("torch", 1.05)):
            rows.append({"impl": impl, "dtype": "float32", "n": n, "bytes": 12 * n,
                         "time_s": spread(device * scale), "host_s": spread(host)})  # fmt: skip
    return rows


def test_the_add_against_torch_and_the_copy_in_words():
    docs = docs_with("vector_add", size_rows())
    n = 1 << 28
    largest = 12 * n / 3e12 + 2.5e-6
    # torch.add takes 5% longer: beyond the spreads, so the Triton add is faster
    assert text(docs, "vector_add.compare") == "faster than"
    copy = {"bytes": 8 * n, "time_s": spread(8 * n / (12 * n / largest))}  # the add's rate
    docs["vector_add"]["ceilings"]["copy"] = copy
    assert text(docs, "vector_add.copy_compare") == "as fast as"
    copy["time_s"] = spread(8 * n / (12 * n / largest) * 0.9)  # a copy 10% faster
    assert text(docs, "vector_add.copy_compare") == "slower than"


def test_the_wrapper_crossover_and_the_isolated_call_offset():
    docs = docs_with("vector_add", size_rows(host_us=23.0, offset_us=2.5))
    # device time over host time rises through 1 between 2**22 (19.3 / 23 us) and 2**23
    # (36.05 / 33.55 us): interpolated on log-log axes, as the crossover figure draws it
    below, above = 19.277e-6 / 23e-6, 36.054e-6 / 33.554e-6
    t = -math.log(below) / (math.log(above) - math.log(below))
    assert launch.crossover_n(docs, "wrapper") == pytest.approx(2**22 * 2**t, rel=1e-3)
    assert text(docs, "launch.crossover_n against=wrapper") == "6.9 million"
    # where the loop is paced by the GPU, do_bench is 2.5 us longer per call
    assert launch.isolated_offset(docs) == pytest.approx(2.5e-6)
    assert text(docs, "launch.isolated_offset") == "2.5 µs"


# ---- lesson 05: what tf32 does to fp32 inputs --------------------------------------------------


def test_tf32_counts_errors_and_cost():
    n = 4096
    rows = [
        {"precision": p, "m": n, "n": n, "k": n, "flops": 2 * n**3, "bytes": 12 * n * n,
         "block_m": 128, "block_n": 128, "block_k": 32, "num_warps": 8, "num_stages": 3,
         "time_s": spread(t), "n_regs": 168, "n_spills": 0,
         "ptx": {"cvt_rna_tf32": c, "wgmma": g, "mma_sync": 0, "fma_f32": f},
         "mean_rel_error": e, "rms_rel_error": abs(e) * 1.5}
        for p, t, c, g, f, e in (
            ("ieee", 3e-3, 0, 0, 2048, 1e-8),
            ("tf32", 0.4e-3, 0, 4, 0, -6.5e-4),
            ("tf32x3", 1.1e-3, 32, 12, 0, 2e-8),
        )
    ]  # fmt: skip
    docs = docs_with("dot_tf32", rows)
    assert text(docs, "dot.ptx_count precision=tf32 op=cvt_rna_tf32") == "0"
    assert text(docs, "dot.ptx_count precision=tf32x3 op=wgmma") == "12"
    assert text(docs, "dot.tf32_error precision=tf32") == "−6.5 × 10⁻⁴"
    assert dot.tf32_error(docs, "tf32x3", "rms") == pytest.approx(3e-8)
    assert dot.tf32_ratio(docs, "tf32x3", "tf32") == pytest.approx(1.1 / 0.4)
    assert text({}, "dot.tf32_ratio of=tf32x3 to=tf32") == "not measured"


# ---- lesson 06: the tile control ---------------------------------------------------------------


def test_tile_control_picks_the_best_warps_and_reads_torch():
    rows = []
    for dtype, size in (("bfloat16", 2), ("float32", 4)):
        n_rows = (512 << 20) // (65536 * size)
        common = {"dtype": dtype, "rows": n_rows, "cols": 65536, "bytes": 512 << 20}
        for op in ("sum", "max"):
            rows.append({"impl": "torch", "op": op, **common, "time_s": spread(2e-4),
                         "copy_fraction": 0.95})  # fmt: skip
            for block_n in (4096, 8192):
                for w in (4, 8, 16, 32):
                    fraction = 0.80 + 0.01 * w / 4 + (0.05 if block_n == 8192 else 0)
                    rows.append({
                        "impl": "triton", "op": op, **common, "time_s": spread(2e-4),
                        "copy_fraction": fraction, "block_m": 1, "block_n": block_n,
                        "num_warps": w, "step_bytes": block_n * size, "n_regs": 40,
                        "n_spills": 0,
                    })  # fmt: skip
    docs = docs_with("reduction_tile", rows)
    assert reduction.tile_of_copy(docs, "sum", "bfloat16", 8192) == pytest.approx(0.93)
    assert reduction.tile_of_copy(docs, "sum", "bfloat16", 4096, 4) == pytest.approx(0.81)
    assert reduction.tile_best_warps(docs, "max", "bfloat16", 8192) == 32
    assert text(docs, "reduction.tile_torch_of_copy op=sum dtype=bfloat16") == "95%"
    assert text({}, "reduction.tile_of_copy op=sum dtype=bfloat16 block_n=8192") == ("not measured")


# ---- lessons 05 and 06: the words the controls put into sentences ------------------------------


def test_tf32_bias_says_which_side_of_the_exact_product():
    rows = [
        {"precision": p, "m": 64, "n": 64, "k": 64, "flops": 2 * 64**3, "bytes": 12 * 64 * 64,
         "block_m": 128, "block_n": 128, "block_k": 32, "num_warps": 8, "num_stages": 3,
         "time_s": spread(1e-5), "n_regs": 168, "n_spills": 0,
         "ptx": {"cvt_rna_tf32": 0, "wgmma": 4, "mma_sync": 0, "fma_f32": 0},
         "mean_rel_error": mean, "rms_rel_error": rms}
        for p, mean, rms in (("tf32", -7e-4, 7.1e-4), ("tf32x3", 1e-9, 1e-7), ("ieee", 6e-8, 1e-7))
    ]  # fmt: skip
    docs = docs_with("dot_tf32", rows)
    page, kind = "dsl/05-dot-and-tensor-cores.md", "dot.tf32_skew"
    assert chosen(docs, page, kind, 0).startswith("below the exact product")  # tf32
    assert chosen(docs, page, kind, 1).startswith("centred on the exact")  # tf32x3
    ieee = page_choice(page, kind).replace("precision=tf32 ", "precision=ieee ")
    assert render.choose_text(ieee, {"h100": docs}, REGISTRY).startswith("above the exact")
    assert text({}, "dot.tf32_skew precision=tf32") == "not measured"
    not_decided({}, page, kind)


def test_datasheet_share_and_clock():
    docs = {
        "dot": {
            "benchmark": "dot",
            "ceilings": {},
            "provenance": {
                "gpu": "NVIDIA H100 80GB HBM3",
                "clocks_after": {"sm_mhz": 1320.0, "sm_max_mhz": 1980.0},
            },
            "rows": [
                {
                    "impl": "cublas",
                    "precision": "bf16",
                    "m": 8192,
                    "n": 8192,
                    "k": 8192,
                    "flops": 2 * 8192**3,
                    "bytes": 6 * 8192**2,
                    "time_s": spread(2 * 8192**3 / 680e12),
                },
            ],  # fmt: skip
        }
    }
    assert dot.of_peak(docs, "cublas", "bf16") == pytest.approx(680 / 989.4)
    assert text(docs, "dot.clock_share") == "67%"
    docs["dot"]["provenance"]["gpu"] = "NVIDIA A100-SXM4-80GB"
    assert text(docs, "dot.of_peak impl=cublas precision=bf16") == "no datasheet peak for this GPU"


@pytest.mark.parametrize(
    "wide, default, torch_time, words, finding",
    [
        # 16 KiB per step closes the gap to torch: bytes per step are the cause.
        (2.0e-4, 2.2e-4, 2.0e-4, ("faster than", "as fast as"), "account for the gap"),
        # Better than the default tile, still behind torch: part of the cause.
        (2.1e-4, 2.3e-4, 2.0e-4, ("faster than", "slower than"), "part of the gap"),
        # No better than the default tile: not the cause.
        (2.2e-4, 2.2e-4, 2.0e-4, ("as fast as", "slower than"), "do not account"),
    ],
)
def test_tile_control_words_follow_the_times(wide, default, torch_time, words, finding):
    common = {"dtype": "bfloat16", "rows": 4096, "cols": 65536, "bytes": 512 << 20}
    rows = [{"impl": "torch", "op": "sum", **common, "time_s": spread(torch_time),
             "copy_fraction": 0.95}]  # fmt: skip
    for block_n, w, t in ((4096, 4, default), (4096, 8, default * 1.02), (8192, 8, wide)):
        rows.append({
            "impl": "triton", "op": "sum", **common, "time_s": spread(t),
            "copy_fraction": 0.95 * torch_time / t, "block_m": 1, "block_n": block_n,
            "num_warps": w, "step_bytes": block_n * 2, "n_regs": 40, "n_spills": 0,
        })  # fmt: skip
    docs = docs_with("reduction_tile", rows)
    assert text(docs, "reduction.tile_compare op=sum to=default") == words[0]
    assert text(docs, "reduction.tile_compare op=sum to=torch") == words[1]
    page = "dsl/06-reductions.md"
    assert finding in chosen(docs, page, "reduction.tile_compare")  # op=sum
    not_decided({}, page, "reduction.tile_compare")


# ---- lesson 08: comparisons in words, and bytes against instructions --------------------------

M, N = 32768, 4096
COPY = {"bytes": 2 * 1024**3, "time_s": spread(2 * 1024**3 / 3e12)}  # 3 TB/s
PROVENANCE = {"sm_count": 132, "clocks_after": {"sm_mhz": 1980.0}}
TRITON_FIELDS = {"n_regs": 40, "n_spills": 0, "ptx_loads": {"ld.global.v4.b32": 2}}


def fused_rows(times: dict) -> list[dict]:
    """fused_activation rows at the largest size, bf16: ``times`` {(impl, case): s}."""
    cases = {"bf16": ("none", True), "tanh": ("tanh", True), "nomask": ("none", False)}
    rows = []
    for (impl, case), t in times.items():
        approximate, mask = cases[case]
        extra = TRITON_FIELDS if impl == "triton" else {}
        rows.append({"impl": impl, "dtype": "bfloat16", "approximate": approximate,
                     "mask": mask, "m": M, "n": N, "bytes": ((3 if mask else 2) * M + 1) * N * 2,
                     "time_s": spread(t), "kernels": 1, **extra})  # fmt: skip
    return rows


def control_rows(counts: dict, times: dict | None = None) -> list[dict]:
    """Controls rows at 16 elements per thread (and 32 where ``times`` says): ``counts``
    {(approximate, keep): SASS instructions per element}."""
    rows = []
    for (approximate, keep), per_element in counts.items():
        for per_thread, block_m in ((16, 2), (32, 4)):
            t = (times or {}).get((approximate, keep, per_thread), 3e-4)
            rows.append({"dtype": "bfloat16", "approximate": approximate, "keep": keep, "m": M,
                         "n": N, "block_m": block_m, "block_n": 1024, "num_warps": 4,
                         "per_thread": per_thread, "planned": per_thread == 16,
                         "bytes": ((3 if keep == "memory" else 2) * M + 1) * N * 2,
                         "time_s": spread(t), "n_regs": 40, "n_spills": 0, "ptx_ops": {"ld": 1},
                         "sass_ops": {"FFMA": round(per_element * per_thread)}})  # fmt: skip
    return rows


def fused_docs(times: dict, counts: dict | None = None, control_times: dict | None = None):
    docs = docs_with(fa.BENCH, fused_rows(times))
    docs[fa.BENCH].update(ceilings={"copy": COPY}, provenance=PROVENANCE)
    if counts is not None:
        docs = docs_with(fa.CONTROLS, control_rows(counts, control_times), docs)
        docs[fa.CONTROLS].update(ceilings={"copy": COPY}, provenance=PROVENANCE)
    return docs


def test_the_fused_kernel_against_its_peers_in_words():
    docs = fused_docs({("triton", "bf16"): 2.75e-4, ("compile", "bf16"): 2.60e-4,
                       ("triton", "tanh"): 2.70e-4, ("compile", "tanh"): 2.70e-4,
                       ("eager", "nomask"): 6e-4, ("triton", "nomask"): 2.4e-4})  # fmt: skip
    assert text(docs, "fused_activation.compare of=triton to=compile") == "slower than"
    assert text(docs, "fused_activation.compare of=triton to=compile case=tanh") == "as fast as"
    assert text(docs, "fused_activation.compare of=triton to=eager case=nomask") == "faster than"


def test_the_issue_budget_and_the_least_times():
    docs = fused_docs({("triton", "bf16"): 2.75e-4}, {("none", "seed"): 100.0})
    issue = 132 * 128 * 1980e6
    assert fa.issue_rate(docs) == pytest.approx(issue)
    assert text(docs, "fused_activation.issue_rate") == "33.5 × 10¹² per second"
    # 3 TB/s at 6 bytes per element: 5e11 elements per second
    assert fa.issue_budget(docs, 6) == pytest.approx(issue / 5e11)
    assert text(docs, "fused_activation.issue_budget bytes_per_element=4") == "45"
    seed_bytes = (2 * M + 1) * N * 2
    assert fa.least_time(docs, "seed", "bytes") == pytest.approx(seed_bytes / 3e12)
    assert fa.least_time(docs, "seed", "issue") == pytest.approx(100.0 * M * N / issue)
    assert fa.least_time(docs, "memory", "issue") is None  # not in these controls
    assert text(docs, "fused_activation.least_time keep=memory limit=issue") == "not measured"
    # 100 instructions against a budget of 45 at 4 bytes per element
    assert fa.issue_need(docs, "none", "seed") == pytest.approx(100.0 / (issue / 7.5e11))


def test_the_budget_reading_follows_the_data():
    times = {("triton", "tanh"): 2.70e-4, ("triton", "bf16"): 2.77e-4,
             ("triton", "nomask"): 2.2e-4}  # fmt: skip
    counts = {("tanh", "memory"): 32.0, ("none", "memory"): 45.0, ("none", "none"): 42.0}
    # shares of copy: tanh 99%, exact with mask 97%, no mask 81%; needs 48%, 67%, 93%
    page, kind = "building/08-fused-activation.md", "fused_activation.budget_rise"
    docs = fused_docs(times, counts)
    assert chosen(docs, page, kind).startswith("the more of its budget")
    # the case needing the least lands lowest: instructions do not order the shares
    docs = fused_docs(times, {**counts, ("tanh", "memory"): 10.0, ("none", "none"): 20.0})
    assert "not the whole story" in chosen(docs, page, kind)
    assert text(fused_docs(times), kind) == "not measured"
    not_decided(fused_docs(times), page, kind)


@pytest.mark.parametrize(
    "t32, says",
    [(2.0e-4, "help"), (2.4e-4, "change nothing"), (2.8e-4, "make it slower")],
)
def test_bytes_in_flight_in_words(t32, says):
    control_times = {("none", "none", 16): 2.4e-4, ("none", "none", 32): t32}
    docs = fused_docs({("triton", "bf16"): 2.75e-4}, {("none", "none"): 42.0}, control_times)
    page, kind = "building/08-fused-activation.md", "fused_activation.control_compare"
    assert says in chosen(docs, page, kind)


def test_the_dropout_comparison_in_words():
    rows = [
        {"impl": impl, "dtype": "bfloat16", "approximate": "none", "p": 0.1, "m": M, "n": N,
         "bytes": ((2 if impl == "triton_seed" else 3) * M + 1) * N * 2, "time_s": spread(t),
         "kernels": 1, "keep_fraction": 0.9, **TRITON_FIELDS}
        for impl, t in (("triton_seed", 4.3e-4), ("triton_mask", 2.8e-4))
    ]  # fmt: skip
    docs = docs_with(fa.DROPOUT, rows)
    assert text(docs, "fused_activation.dropout_compare") == "slower than"
    assert fa.dropout_compare(docs, "triton_mask", "triton_seed") == "faster than"
    assert text({}, "fused_activation.dropout_compare") == "not measured"
