"""matmul_tma_epilogue records, for each Triton call it timed, the config the autotuner ran
for that call's key (one autotuner serves the fused and the plain call: two keys, two
picks), read right after that call; its rows validate with those fields."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import triton

from scripts.bench.benchmarks import matmul_tma as bench

ROOT = Path(__file__).resolve().parents[2]
PICKS = {
    "fused": triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=4,
                           num_stages=4),
    "plain": triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8,
                           num_stages=3),
}  # fmt: skip


class FakeTuner:
    """Stands in for an autotuner: a launch sets best_config to the pick for its key and
    returns a compiled kernel's resources."""

    best_config = None

    def __getitem__(self, grid):
        def launch(*, key):
            self.best_config = PICKS[key]
            return SimpleNamespace(n_regs=168 if key == "fused" else 232, n_spills=0)

        return launch


def test_each_call_records_the_config_of_its_own_key():
    module = SimpleNamespace(tuner=FakeTuner())
    fused = bench.tuned_config(lambda: module.tuner[(1,)](key="fused"), module, "tuner")
    plain = bench.tuned_config(lambda: module.tuner[(1,)](key="plain"), module, "tuner")
    assert fused == {"block_m": 128, "block_n": 128, "block_k": 64, "num_warps": 4,
                     "num_stages": 4, "n_regs": 168, "n_spills": 0}  # fmt: skip
    assert plain["block_n"] == 256 and plain["num_warps"] == 8 and plain["n_regs"] == 232
    assert isinstance(module.tuner, FakeTuner)  # put back after the capture


def test_the_rows_validate_with_the_config_fields():
    jsonschema = pytest.importorskip("jsonschema")  # a site dependency: GPU boxes may lack it
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((ROOT / "figures" / "schemas" / "matmul_tma_epilogue.json").read_text())
    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    row = {"impl": "tma_fused", "dtype": "bfloat16", "m": 4096, "n": 4096, "k": 4096,
           "flops": 2 * 4096**3, "bytes": 3 * 2 * 4096**2, "time_s": spread,
           "block_m": 128, "block_n": 256, "block_k": 64, "num_warps": 8, "num_stages": 3,
           "n_regs": 168, "n_spills": 0}  # fmt: skip
    old = {k: row[k] for k in ("impl", "dtype", "m", "n", "k", "flops", "bytes", "time_s")}
    jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]}).validate([row, old])
    assert set(bench.EPILOGUE_TUNERS) == {"tma_fused", "lesson09_fused", "tma_plain"}


def test_the_config_value_reads_the_recorded_pick():
    from figures import matmul_tma as fig

    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    rows = [
        {"impl": "tma_fused", "m": 4096, "time_s": spread, "block_m": 128, "block_n": 256,
         "block_k": 64, "num_warps": 8, "num_stages": 3},
        {"impl": "tma_plain", "m": 4096, "time_s": spread},  # a run before the field
    ]  # fmt: skip
    docs = {fig.EPI: {"rows": rows}}
    assert fig.epilogue_config(docs, "tma_fused", 4096) == "128×256×64, 8 warps, 3 stages"
    assert fig.epilogue_config(docs, "tma_plain", 4096) is None
    assert fig.epilogue_config(docs, "tma_fused", 8192) is None
    assert fig.epilogue_config({}, "tma_fused", 4096) is None
