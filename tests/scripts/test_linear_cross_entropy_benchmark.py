"""The fused linear cross-entropy benchmark (scripts/bench/benchmarks/linear_cross_entropy.py):
the shapes the lesson names, the implementations it times, a step and its error fields on
tiny inputs (on whatever device: the book's kernel under the interpreter without a GPU),
and the rows it writes validate against the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from kernels import linear_cross_entropy as lce
from scripts.bench import benchlib
from scripts.bench.benchmarks import linear_cross_entropy as bench
from tests.support import DEVICE, rand

ROOT = Path(__file__).resolve().parents[2]


def test_the_shapes_are_llama_3s_last_layer():
    assert (bench.HIDDEN, bench.VOCAB, bench.DTYPE) == (4096, 128256, torch.bfloat16)
    assert bench.TOKENS == benchlib.pick([4096, 8192, 16384], [4096])
    # the plan's chunk at each size is among the sizes the chunk benchmark times
    for tokens in (4096, 8192, 16384):
        assert lce.plan(tokens, bench.VOCAB, bench.HIDDEN, 0)[0] in bench.CHUNKS
    assert bench.CHUNK_TOKENS in (4096, 8192, 16384)


def test_the_parts_of_a_chunk_are_launchs_steps():
    """On tiny inputs, the four parts run one after the other on one chunk give launch's
    loss rows and gradients for that chunk (grad_weight: that chunk's share)."""
    torch.manual_seed(0)
    n, h, v = 8, 16, 40
    x = rand((n, h), torch.float32, DEVICE).requires_grad_()
    w = rand((v, h), torch.float32, DEVICE, scale=h**-0.5).requires_grad_()
    target = torch.randint(0, v, (n,), device=DEVICE)
    parts = bench.part_calls(n, x, w, target)
    assert list(parts) == ["logits", "kernel", "grad_x", "grad_weight"]
    for fn in parts.values():
        fn()
    _, grad_x, grad_w = lce.launch(x.detach(), w.detach(), target, chunk=n)
    # part_calls' grad_x and grad_weight live in its closures: read them back
    got_x = parts["grad_x"]()
    torch.testing.assert_close(got_x, grad_x, rtol=1e-5, atol=1e-6)
    got_w = parts["grad_weight"]()  # a second addmm_: twice the chunk's share
    torch.testing.assert_close(got_w, 2 * grad_w, rtol=1e-5, atol=1e-6)


def test_implementations_are_the_lessons_peers():
    impls = bench.implementations()
    expected = ["triton", "eager", "compile"]
    if bench.LigerFusedLinearCrossEntropyLoss is not None:
        expected.append("liger")
    assert list(impls) == expected
    assert set(impls) <= set(bench.IMPLS)


@pytest.mark.parametrize("impl", ["triton", "eager"])
def test_a_step_is_checked_against_the_float32_step(impl):
    """On tiny bf16 inputs the step gives a loss and both gradients, leaves no .grad, and
    lies within MAX_ERROR of the float32 step; a wrong gradient does not."""
    torch.manual_seed(0)
    x = rand((19, 32), torch.bfloat16, DEVICE).requires_grad_()
    w = rand((45, 32), torch.bfloat16, DEVICE, scale=32**-0.5).requires_grad_()
    target = torch.randint(0, 45, (19,), device=DEVICE)
    got = bench.step(bench.implementations()[impl], x, w, target)
    assert x.grad is None and w.grad is None
    want = bench.expected_step(x, w, target)
    errs = bench.errors(got, want)
    assert set(errs) == {"loss_error", "grad_x_error", "grad_weight_error"}
    assert max(errs.values()) <= bench.MAX_ERROR, errs
    wrong = bench.errors((got[0], -got[1], got[2]), want)
    assert wrong["grad_x_error"] > bench.MAX_ERROR


def test_rows_validate():
    jsonschema = pytest.importorskip("jsonschema")  # a site dependency: GPU boxes may lack it
    envelope = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((ROOT / "figures" / "schemas" / "linear_cross_entropy.json").read_text())
    validator = jsonschema.Draft202012Validator({**schema, "$defs": envelope["$defs"]})
    spread = {"p20": 1e-3, "p50": 1.1e-3, "p80": 1.2e-3, "reps": 10}
    base = {"dtype": "bfloat16", "tokens": 4096, "hidden": 4096, "vocab": 128256,
            "flops": 6 * 4096 * 4096 * 128256}  # fmt: skip
    errs = {"loss_error": 1e-3, "grad_x_error": 4e-3, "grad_weight_error": 6e-3}
    rows = [
        {"impl": "triton", **base, "chunk": 128, "time_s": spread, "peak_bytes": 2**30, **errs},
        {"impl": "eager", **base, "time_s": spread, "peak_bytes": 2**33, **errs},
        {"impl": "liger", **base, "failure": "RuntimeError: ..."},
    ]
    validator.validate(rows)
    for bad in (
        {"impl": "compile", **base},  # neither a time nor a failure
        {"impl": "triton", **base, "time_s": spread, **errs},  # no peak memory
        {"impl": "cublas", **base, "failure": "x"},  # not an implementation of the lesson
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate([bad])
