"""The fused-activation benchmarks' logic with the GPU's timing stubbed: the dropout
comparison and the controls run end to end at tiny sizes (under the interpreter on a
CPU, for real on a GPU), their checks included; their rows validate against the row
schemas; the peer check refuses a wrong dropout; the instruction counter reads PTX and
SASS as the compiler writes them; and the value kinds read the rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import triton

from kernels import fused_activation as fa
from scripts.bench import benchlib
from scripts.bench.benchmarks import fused_activation as bench
from tests.support import DEVICE, compiled_python, fresh_seed

ROOT = Path(__file__).resolve().parents[2]
REAL_DEVICE_TIME, REAL_HOST_TIME = benchlib.device_time, benchlib.host_time

PTX = """
.visible .entry bias_gelu_mask_kernel(
	.param .u64 .ptr .global .align 1 bias_gelu_mask_kernel_param_0
)
.reqntid 128
{
	.reg .pred 	%p<43>;
	.loc	1 23 0                          // fused_activation.py:23:0
$L__func_begin0:
// %bb.0:
	ld.param.b64 	%rd37, [bias_gelu_mask_kernel_param_0];
	@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];
	@!%p3 bra 	$L__BB0_4;
	fma.rn.ftz.f32 	%r84, %r338, %r339, %r337;
	fma.rn.ftz.f32 	%r85, %r84, %r339, %r336;
$L__BB0_4:                              // %__nv_erff.exit
	ret;
}
"""
SASS = """Function:bias_gelu_mask_kernel
--:-:-:-:8	LDC R1, c[0x0][0x28];
--:-:2:-:4	@P1 LDG.E.128 R8, desc[UR4][R12.64];
--:0:3:-:1	@!P0 LDG.E.128 R4, desc[UR4][R18.64];
--:-:-:-:1	FFMA.FTZ R18, R21, R0, R18;
--:-:0:-:3	@P0 MUFU.EX2 R25, R0;
--:-:-:-:6	@!P0 EXIT;
--:-:-:Y:0	NOP;
--:-:-:Y:0	BRA LBB0;
"""


def test_instruction_counts_read_ptx_and_sass():
    assert bench.instruction_counts(PTX, "ptx") == {
        "ld.param.b64": 1,
        "ld.global.v4.b32": 1,
        "bra": 1,
        "fma.rn.ftz.f32": 2,
        "ret": 1,
    }
    assert bench.instruction_counts(SASS, "sass") == {
        "LDC": 1,
        "LDG.E.128": 2,
        "FFMA.FTZ": 1,
        "MUFU.EX2": 1,
        "EXIT": 1,
        "BRA": 1,
    }


class FakeCompiled:
    asm = {"ptx": PTX, "cubin": b""}
    n_regs, n_spills = 40, 0


@pytest.fixture(autouse=True)
def no_cuda_sync(monkeypatch):
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)


FAKE_SPREAD = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 7}


@pytest.fixture
def stubbed(monkeypatch):
    """The benchmarks' timing stubbed: tiny inputs on the test device, times, kernel counts
    and compiled kernels faked, torch.compile left out (the identity)."""
    monkeypatch.setattr(bench, "N", 96)
    monkeypatch.setattr(bench, "SWEEP_M", [5, 33])
    monkeypatch.setattr(bench, "DROPOUT_HOST_M", [5])
    monkeypatch.setattr(bench, "LARGEST", 33)
    monkeypatch.setattr(bench, "CONTROL_TILES", [(1, 32, 1), (16, 128, 4)])
    monkeypatch.setattr(bench, "FP32_TILES", [(1, 32, 1), (16, 128, 4)])

    def inputs(m, dtype, with_mask):
        x = torch.randn(m, bench.N, device=DEVICE).to(dtype)
        bias = torch.randn(bench.N, device=DEVICE).to(dtype)
        keep = torch.rand(m, bench.N, device=DEVICE) >= bench.DROP_P
        mask = (keep.float() / (1 - bench.DROP_P)).to(dtype) if with_mask else None
        return x, bias, mask

    monkeypatch.setattr(bench, "inputs", inputs)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    monkeypatch.setattr(benchlib, "warm_up", lambda: None)
    monkeypatch.setattr(benchlib, "device_time", lambda fn, **kw: dict(FAKE_SPREAD))
    monkeypatch.setattr(benchlib, "host_time", lambda fn, calls, **kw: dict(FAKE_SPREAD))
    monkeypatch.setattr(benchlib, "graph_time", lambda fn, **kw: dict(FAKE_SPREAD))
    monkeypatch.setattr(bench, "kernels_per_call", lambda fn: 1)
    monkeypatch.setattr(bench, "compiled_kernel", lambda *a, **kw: FakeCompiled())
    monkeypatch.setattr(bench, "sass_text", lambda kernel: SASS)
    monkeypatch.setattr(bench.torch, "compile", lambda fn, **kw: fn)


def validate(rows, benchmark):
    jsonschema = pytest.importorskip("jsonschema")  # a site dependency: GPU boxes may lack it
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((ROOT / "figures" / "schemas" / f"{benchmark}.json").read_text())
    jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]}).validate(rows)


def test_the_small_sizes_record_every_clock(stubbed, monkeypatch):
    """The sweep's sizes in CLOCK_M carry the host's time per call and the GPU's with the
    host taken out, so that a figure can tell a host-bound point; the other sizes and the
    variants at the largest size carry do_bench's time only."""
    monkeypatch.setattr(bench, "CLOCK_M", [5])
    fresh_seed()
    rows = bench.run({})
    validate(rows, "fused_activation")
    clocked = [r for r in rows if "host_s" in r or "graph_time_s" in r]
    assert clocked and all("host_s" in r and "graph_time_s" in r for r in clocked)
    assert {(r["m"], r["dtype"], r["approximate"], r["mask"]) for r in clocked} == {
        (5, "bfloat16", "none", True)
    }
    assert {r["impl"] for r in clocked} == {"triton", "eager", "compile"}


def test_dropout_benchmark_checks_and_rows(stubbed):
    fresh_seed()
    rows = bench.run_dropout({})
    validate(rows, "fused_activation_dropout")
    # every size and the tanh variant at the largest, four impls each
    assert len(rows) == 4 * (len(bench.SWEEP_M) + len(bench.DROPOUT_VARIANTS))
    assert {(r["dtype"], r["approximate"]) for r in rows if r["m"] == 33} == {
        ("bfloat16", "none"),
        ("bfloat16", "tanh"),
        ("float32", "none"),
    }
    by = {(r["impl"], r["m"], r["approximate"]): r for r in rows if r["dtype"] == "bfloat16"}
    n = bench.N
    assert by[("triton_seed", 33, "none")]["bytes"] == (2 * 33 * n + n) * 2
    assert by[("triton_mask", 33, "none")]["bytes"] == (3 * 33 * n + n) * 2
    assert "host_s" in by[("eager", 5, "none")] and "host_s" not in by[("eager", 33, "none")]
    keep = fa.launch_dropout_mask(33, n, bench.DROP_P, bench.SEED, DEVICE)
    assert by[("triton_seed", 33, "none")]["keep_fraction"] == keep.double().mean().item()


def test_controls_benchmark_checks_and_rows(stubbed):
    fresh_seed()
    rows = bench.run_controls({})
    validate(rows, "fused_activation_controls")
    assert len(rows) == 2 * len(bench.KEEPS) * len(bench.CONTROL_TILES) + len(bench.FP32_TILES)
    assert {r["per_thread"] for r in rows} == {1, 16}
    # plan(33, 96) is 16 x 128 for 2- and 4-byte elements alike
    assert [r["planned"] for r in rows[:2]] == [False, True]
    fp32 = [(r["dtype"], r["planned"]) for r in rows[-2:]]
    assert fp32 == [("float32", False), ("float32", True)]
    assert rows[0]["sass_ops"]["LDG.E.128"] == 2
    lines = [line for line in SASS.splitlines() if "\t" in line and "NOP" not in line]
    assert rows[0]["loads_at"] == [i for i, line in enumerate(lines) if "LDG" in line]


def peer_inputs():
    fresh_seed()
    x, bias = torch.randn(64, 200, device=DEVICE), torch.randn(200, device=DEVICE)
    return x, bias, 0.3


def test_the_peer_check_passes_torch_dropout():
    x, bias, p = peer_inputs()
    got = bench.dropout_chain(x, bias, p, "none")
    fraction = bench.check_dropout(got, x, bias, p, "none", "eager")
    assert abs(fraction - 0.7) < 0.05


@pytest.mark.parametrize(
    "wrong, says",
    [
        (lambda x, b, p: torch.nn.functional.gelu(x + b), "kept"),  # dropped nothing
        (lambda x, b, p: torch.nn.functional.dropout(torch.nn.functional.gelu(x + b), 0.6),
         "kept"),  # another p
        (lambda x, b, p: torch.nn.functional.dropout(torch.nn.functional.gelu(x + b), p)
         * (1 - p), "Tensor-likes are not close"),  # not scaled by 1 / (1 - p)
        (lambda x, b, p: torch.nn.functional.dropout(torch.nn.functional.gelu(x), p),
         "Tensor-likes are not close"),  # no bias
        (lambda x, b, p: torch.nn.functional.dropout(x + b, p)[:, :100], "got"),  # shape
    ],
)  # fmt: skip
def test_the_peer_check_refuses_a_wrong_dropout(wrong, says):
    x, bias, p = peer_inputs()
    with pytest.raises(AssertionError, match=says):
        bench.check_dropout(wrong(x, bias, p), x, bias, p, "none", "wrong")


def test_seeded_expected_is_the_kernels_result():
    fresh_seed()
    x = torch.randn(7, 50, dtype=torch.bfloat16, device=DEVICE)
    bias = torch.randn(50, dtype=torch.bfloat16, device=DEVICE)
    expected, fraction = bench.seeded_expected(x, bias, 0.25, 99, "tanh")
    got = fa.bias_gelu_mask(x, bias, approximate="tanh", p=0.25, seed=99)
    rtol, atol = bench.CHECK_TOL[torch.bfloat16]
    torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)
    assert 0 < fraction < 1


def test_the_value_kinds_read_the_rows_the_benchmarks_write(stubbed):
    """figures/fused_activation.py's dropout and control kinds on rows made by the two
    benchmarks (GPU stubbed), and None on a device without them."""
    from figures import fused_activation as fig

    fresh_seed()
    spread = {"p20": 1e-3, "p50": 1e-3, "p80": 1e-3, "reps": 5}
    envelope = {
        "ceilings": {"copy": {"bytes": 10**9, "time_s": spread}},
        "provenance": {"sm_count": 132, "clocks_after": {"sm_mhz": 1980.0}},
    }
    docs = {
        fig.DROPOUT: {**envelope, "rows": bench.run_dropout({})},
        fig.CONTROLS: {**envelope, "rows": bench.run_controls({})},
    }
    copy_bw = 10**9 / 1e-3
    seed_row = fig.dropout_row(docs, "triton_seed")
    assert seed_row["m"] == 33 and seed_row["approximate"] == "none"
    assert fig.dropout_row(docs, "eager", at="smallest")["m"] == 5
    assert fig.dropout_time(docs, "triton_seed") == FAKE_SPREAD["p50"]
    assert fig.dropout_time(docs, "eager", at="smallest", clock="host") == FAKE_SPREAD["p50"]
    assert fig.dropout_time(docs, "eager", clock="host") is None  # not timed at the largest
    assert fig.dropout_compare(docs) == "as fast as"  # the same stubbed times: a tie
    fp32 = fig.dropout_row(docs, "triton_seed", dtype="float32")
    assert fp32["dtype"] == "float32" and fp32["bytes"] == (2 * 33 * bench.N + bench.N) * 4
    assert fig.dropout_time(docs, "compile", dtype="float32") == FAKE_SPREAD["p50"]
    assert fig.dropout_compare(docs, "eager", "compile", dtype="float32") == "as fast as"
    main = {"rows": [{"impl": "triton", "dtype": "bfloat16", "approximate": "none",
                      "mask": True, "m": 33, "n": bench.N}]}  # fmt: skip
    assert fig.dropout_bytes({fig.BENCH: main}, "seed") == seed_row["bytes"]
    assert fig.dropout_bytes({fig.BENCH: main}, "memory") == (3 * 33 + 1) * bench.N * 2
    assert fig.dropout_kernels(docs, "compile") == 1
    assert 0.8 < fig.dropout_kept(docs, "triton_seed") < 1.0
    # controls: CONTROL_TILES of the fixture hold 1 and 16 elements per thread
    row = fig.control_row(docs, "none", "seed", 16)
    assert row["per_thread"] == 16 and row["keep"] == "seed"
    sass = sum(bench.instruction_counts(SASS, "sass").values())
    assert fig.instructions(docs, "none", "seed") == sass / 16
    assert fig.instructions(docs, "tanh", "none", code="ptx") == 6 / 16
    assert fig.control_regs(docs, "none", "none") == FakeCompiled.n_regs
    issued = sass / 16 * 33 * bench.N / FAKE_SPREAD["p50"]
    assert fig.issue_share(docs, "none", "none") == issued / (132 * 128 * 1980e6)
    memory = fig.control_row(docs, "none", "memory", 16)
    assert memory["bytes"] == (3 * 33 * bench.N + bench.N) * 2
    assert fig.control_of_copy(docs, "none", "memory") == memory["bytes"] / 1.1e-3 / copy_bw
    last = memory["loads_at"][-1] + 1
    assert fig.last_load(docs, "none", "memory") == f"instruction {last} of {sass}"
    assert fig.last_load({fig.CONTROLS: {"rows": [{**memory, "loads_at": None}]}},
                         "none", "memory") is None  # fmt: skip
    # a device whose run predates the two benchmarks: every kind says None
    assert fig.dropout_time({}, "triton_seed") is None
    assert fig.instructions({}, "none", "none") is None
    assert fig.issue_share({}, "none", "none") is None
    assert fig.dropout_compare({}) is None
    assert fig.control_compare({}, "none", "none", 32, 16) is None
    assert fig.last_load({}, "none", "memory") is None


def compile_for_sm90(approximate: str, keep: str):
    """bias_gelu_mask_kernel compiled for an H100 (sm_90) on this machine, as the wrapper
    launches it for a contiguous bf16 (32768, 4096) input with plan()'s tile: pointers and
    sizes multiples of 16, unit column strides. Needs no GPU (Triton's bundled ptxas), but
    the kernel module imported without TRITON_INTERPRET (see sm90_counts)."""
    from triton.backends.compiler import GPUTarget

    kernel = fa.bias_gelu_mask_kernel
    flags = {"TANH": approximate == "tanh", "HAS_MASK": keep == "memory",
             "DROPOUT": keep == "seed"}  # fmt: skip
    constexprs = {"BLOCK_M": 1, "BLOCK_N": 2048, **flags}
    signature, attrs = {}, {}
    for i, name in enumerate(kernel.arg_names):
        if name in constexprs:
            signature[name] = "constexpr"
        elif name in ("stride_xn", "stride_b", "stride_mn", "stride_on"):
            signature[name], constexprs[name] = "constexpr", 1
        elif name.endswith("_ptr"):
            signature[name], attrs[(i,)] = "*bf16", [["tt.divisibility", 16]]
        elif name == "p":
            signature[name] = "fp32"
        elif name == "seed":
            signature[name] = "i32"
        else:
            signature[name], attrs[(i,)] = "i32", [["tt.divisibility", 16]]
    src = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs,
                                    attrs=attrs)  # fmt: skip
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def sm90_counts() -> dict:
    """{"approximate keep": (PTX counts, SASS counts or None)} of three variants compiled
    for sm_90; run in a subprocess, where kernels are JIT functions, not interpreted."""
    out = {}
    for approximate, keep in (("none", "none"), ("tanh", "none"), ("none", "seed")):
        compiled = compile_for_sm90(approximate, keep)
        sass = bench.sass_text(compiled)
        out[f"{approximate} {keep}"] = (
            bench.instruction_counts(compiled.asm["ptx"], "ptx"),
            sass and bench.instruction_counts(sass, "sass"),
            bench.load_positions(sass),
        )
    return out


def test_instruction_counts_of_the_kernel_compiled_for_sm90():
    """The counter on the real compiler's output for an H100: every variant loads with
    128-bit vectors, and the random numbers of the in-kernel mask cost tens of
    instructions per element. (Triton on this machine, not the GPU's: the benchmark
    records the GPU's own.)"""
    code = (
        "import json; from tests.scripts.test_fused_activation_benchmark import sm90_counts; "
        "print(json.dumps(sm90_counts()))"
    )
    out = compiled_python(code, "the fused activation kernel for sm_90")
    counts = json.loads(out.strip().splitlines()[-1])
    per_thread = 1 * 2048 // 128
    for ptx, sass, loads in counts.values():
        assert ptx.get("ld.global.v4.b32", 0) >= 2 and ptx.get("st.global.v4.b32", 0) >= 1
        if sass is not None:
            assert sass.get("LDG.E.128", 0) >= 2 and "NOP" not in sass
            # one position per load, each within the kernel's instructions
            assert len(loads) == sum(n for op, n in sass.items() if op.startswith("LDG"))
            assert loads == sorted(set(loads)) and loads[-1] < sum(sass.values())

    def per_element(key):
        ptx, sass, _ = counts[key]
        return sum((sass or ptx).values()) / per_thread

    assert per_element("none seed") > per_element("none none") + 20


class TickingClock:
    """A stand-in for CUDA events: every mark is one tick (50 ms) after the last, and the
    time per tick grows call by call (a GPU slowing down): what head-to-head timing of a
    real module needs on a CPU. No flush, no synchronise."""

    def __init__(self):
        self.ticks = 0

    def flush(self) -> None:
        pass

    def mark(self) -> float:
        self.ticks += 1
        return self.ticks * 0.05 * (1 + self.ticks / 1000)

    def seconds(self, start: float, end: float) -> float:
        return end - start

    def sync(self) -> None:
        pass


def test_a_case_is_timed_head_to_head_through_the_real_harness(stubbed, monkeypatch):
    """run_case with the harness itself (only its clocks faked): every impl's row gets a
    spread that names its comparison and its per-round ratio to each other impl, filled
    when the head-to-head block ends, and the rows validate."""
    monkeypatch.setattr(benchlib, "device_time", REAL_DEVICE_TIME)
    monkeypatch.setattr(benchlib, "host_time", REAL_HOST_TIME)
    monkeypatch.setattr(benchlib, "CLOCKS", {"device": TickingClock, "host": TickingClock})
    monkeypatch.setattr(benchlib, "HOST_ROUNDS", 3)
    monkeypatch.setattr(benchlib, "MIN_ROUNDS", 4)
    fresh_seed()
    rows = bench.run_case(5, torch.bfloat16, "none", True, clocks=True)
    validate(rows, "fused_activation")
    impls = [r["impl"] for r in rows]
    assert impls[:2] == ["triton", "eager"]
    groups = {r["time_s"]["ab"]["group"] for r in rows}
    assert len(groups) == 1 and rows[0]["host_s"]["ab"]["group"] not in groups
    for r in rows:
        assert set(r["time_s"]["vs"]) == set(impls) - {r["impl"]}
        assert r["time_s"]["vs"][impls[0] if r["impl"] != impls[0] else impls[1]]["reps"] >= 4
        assert r["host_s"]["reps"] == 3
