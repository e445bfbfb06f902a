"""The forward ladder's rungs (scripts/bench/benchmarks/attention_ladder.py) are the steps
the lesson names: the TMA kernel first at the simple kernel's own tiles (so that the
descriptors are the only change), then at plan's, then at plan's with warp
specialisation; and the rows it writes validate against the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernels import attention as at
from kernels import attention_tma as atm
from scripts.bench.benchmarks import attention_ladder as bench

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("d", [64, 128])
def test_each_rung_changes_one_thing(d):
    rungs = bench.ladder(d)
    assert rungs["descriptors"] == (*at.plan(d), False)
    assert rungs["warp_specialize"] == (*atm.plan(d)[:4], True)
    if "tuned" in rungs:
        assert rungs["tuned"] == (*atm.plan(d)[:4], False) != rungs["descriptors"]
    else:  # plan keeps lesson 12's tiles: no rung of its own
        assert atm.plan(d)[:4] == at.plan(d)
    assert atm.plan(d) in rungs.values()  # the default is one of the rungs


def test_config_text():
    assert bench.config_text((128, 64, 4, 2, False)) == "128x64 w4 s2"
    assert bench.config_text((128, 128, 8, 3, True)) == "128x128 w8 s3 ws"


def test_rows_validate():
    jsonschema = pytest.importorskip("jsonschema")  # a site dependency: GPU boxes may lack it
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((ROOT / "figures" / "schemas" / "attention_ladder.json").read_text())
    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    base = {"direction": "forward", "dtype": "bfloat16", "batch": 4, "heads": 32, "n": 4096,
            "head_dim": 128, "causal": False, "flops": 4 * 4 * 32 * 4096**2 * 128}  # fmt: skip
    rows = [
        {"impl": "simple", **base, "time_s": spread, "config": "128x128 w8 s3"},
        {"impl": "tuned", **base, "time_s": spread, "config": "128x64 w4 s2", "n_regs": 168,
         "n_spills": 0, "plan": True},
        {"impl": "warp_specialize", **base, "failure": "CompilationError: ..."},
        {"impl": "sdpa_cudnn", **base, "time_s": spread},
    ]  # fmt: skip
    jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]}).validate(rows)
    bad = {"impl": "tuned", **base}  # neither a time nor a failure
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]}).validate([bad])


def test_gqa_rows_validate():
    jsonschema = pytest.importorskip("jsonschema")
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((ROOT / "figures" / "schemas" / "attention_ladder_gqa.json").read_text())
    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    base = {"dtype": "bfloat16", "batch": 4, "heads": 32, "kv_heads": 8, "n": 4096,
            "head_dim": 128, "causal": True, "flops": 2 * 4 * 32 * 4096**2 * 128}  # fmt: skip
    rows = [
        {"impl": "tma", **base, "time_s": spread, "peak_bytes": 2**27},
        {"impl": "sdpa_cudnn_repeated", **base, "failure": "RuntimeError: ..."},
    ]
    jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]}).validate(rows)


def test_the_two_tma_gqa_calls_agree():
    """In place and repeated: the same result, bit for bit (tiny, on whatever device)."""
    import torch

    from tests.support import DEVICE, rand

    q = rand((1, 4, 24, bench.GQA_SHAPE[3]), torch.float16, DEVICE)
    k, v = (rand((1, 1, 24, bench.GQA_SHAPE[3]), torch.float16, DEVICE) for _ in range(2))
    impls = bench.gqa_implementations(True, 4)
    in_place, copied = impls["tma"](q, k, v), impls["tma_repeated"](q, k, v)
    assert torch.equal(in_place, copied)
    expected = atm.reference(q, k, v, causal=True)
    torch.testing.assert_close(in_place, expected, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_each_backward_rung_changes_one_thing(d, causal):
    """descriptors: lesson 12's backward tiles through descriptors; tuned: plan's for this
    mask, where they differ; plan's config is one of the rungs."""
    rungs = bench.backward_ladder(d, causal)
    planned = atm.plan(d, backward=True, causal=causal)
    assert rungs["descriptors"] == at.plan(d, backward=True)
    if "tuned" in rungs:
        assert rungs["tuned"] == planned != rungs["descriptors"]
    else:
        assert planned == at.plan(d, backward=True)
    assert planned in rungs.values()
    dkdv, dq = planned
    if isinstance(dq, str):  # plan adds dQ in the dK/dV kernel already
        assert "reduce" not in rungs
    else:
        assert rungs["reduce"] == (dkdv, "reduce")


def test_backward_config_text():
    config = ((64, 128, 8, 3), (128, 64, 8, 2))
    assert bench.backward_config_text(config) == "dkdv 64x128 w8 s3; dq 128x64 w8 s2"
    assert bench.backward_config_text(((32, 128, 4, 3), "atomic")) == "dkdv 32x128 w4 s3; dq atomic"
    assert bench.backward_config_text(((32, 128, 4, 3), "reduce")) == "dkdv 32x128 w4 s3; dq reduce"


def test_backward_rows_validate():
    jsonschema = pytest.importorskip("jsonschema")
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads(
        (ROOT / "figures" / "schemas" / "attention_ladder_backward.json").read_text()
    )
    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    base = {"direction": "backward", "dtype": "bfloat16", "batch": 4, "heads": 32, "n": 4096,
            "head_dim": 128, "causal": True, "flops": 5 * 4 * 32 * 4096**2 * 128 // 4}  # fmt: skip
    rows = [
        {"impl": "simple", **base, "time_s": spread, "config": "dkdv 64x128 w8 s3; dq 128x64 "
         "w8 s3", "n_regs": 255, "n_spills": 0, "dq_n_regs": 232, "dq_n_spills": 0},
        {"impl": "tuned", **base, "time_s": spread, "config": "dkdv 32x128 w4 s3; dq atomic",
         "plan": True, "n_regs": 200, "n_spills": 0},
        {"impl": "flex", **base, "failure": "RuntimeError: ..."},
        {"impl": "sdpa_cudnn", **base, "time_s": spread},
    ]  # fmt: skip
    validator = jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]})
    validator.validate(rows)
    for bad in ({"impl": "tuned", **base}, {"impl": "warp_specialize", **base, "time_s": spread}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate([bad])


def test_the_backward_rungs_agree():
    """Lesson 12's backward and the TMA rungs, as the benchmark builds them: the same
    gradients (tiny, on whatever device; the peers need a GPU and are left out here)."""
    import torch

    from tests.support import DEVICE, rand

    q, k, v, do = (rand((1, 2, 40, 64), torch.float16, DEVICE) for _ in range(4))
    impls = bench.backward_implementations(64, True, q, k, v, do)
    # (TMA reductions run on a GPU only: the interpreter has no descriptor reductions.)
    ours = [x for x in bench.BACKWARD_STEPS if x != "reduce" or torch.cuda.is_available()]
    results = {impl: build()() for impl, (build, _) in impls.items() if impl in ours}
    assert set(results) >= {"simple", "descriptors"}
    for impl, grads in results.items():
        for got, want in zip(grads, results["simple"], strict=True):
            torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3, msg=impl)
