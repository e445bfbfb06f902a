"""The controls added for lessons 03-07, on made-up rows shaped as their benchmarks write
them (no GPU, no torch): each made-up file validates against its row schema, and each
kind computes what its docstring says; on a device without the data, each reads as its
``missing`` words. (The committed data predates these benchmarks, so without this test
the kinds' arithmetic would first run on the lead's GPU data.)"""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from figures import compiler, dot, launch, reduction
from figures import vector_add as va
from scripts.book import render
from tests.site.support import ROOT

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
    assert text({}, "vector_add.stream_bandwidth stream=read") == "not measured"


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
    assert text(docs, "dot.tf32_bias precision=tf32").startswith("below the exact product")
    assert text(docs, "dot.tf32_bias precision=tf32x3").startswith("centred on the exact")
    assert text(docs, "dot.tf32_bias precision=ieee").startswith("above the exact product")
    assert text({}, "dot.tf32_bias precision=tf32") == "not measured"


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
    assert finding in text(docs, "reduction.tile_finding op=sum")
    assert text({}, "reduction.tile_finding op=sum") == "not measured"
