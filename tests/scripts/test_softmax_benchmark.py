"""The softmax benchmark's kernel count (runs on a CPU, the profiler faked): which CUDA
kernels one call launches, in launch order, copies and memsets left out; the rows that
carry them follow the row schema (as do rows measured before the count existed); and the
figure module's kinds read them, or say "not measured" where a row has none."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import jsonschema
import pytest
import torch

from figures import softmax as fig
from scripts.bench import benchlib
from scripts.bench.benchmarks import softmax as bench
from scripts.book import render
from tests.site.support import ROOT

CUDA = torch.autograd.DeviceType.CUDA
CPU = torch.autograd.DeviceType.CPU
LONG_NAME = "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float>(" + "x" * 300


def event(name: str, start: int, device=CUDA):
    return SimpleNamespace(name=name, device_type=device, time_range=SimpleNamespace(start=start))


def fake_profiler(monkeypatch, events=None, error=None):
    """torch.profiler.profile records ``events`` (or raises ``error``); the call it wraps
    runs as usual. No CUDA: synchronize does nothing."""

    class Profile:
        def __init__(self, activities):
            if error is not None:
                raise error

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def events(self):
            return list(events or [])

    monkeypatch.setattr(torch.profiler, "profile", Profile)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)


def test_cuda_kernels_in_launch_order_without_copies(monkeypatch):
    calls = []
    fake_profiler(
        monkeypatch,
        [
            event("triton_red_fused__softmax_1", 30),
            event("Memset (Device)", 5),
            event("aten::_softmax", 1, device=CPU),  # the host side of an op: not a kernel
            event("Memcpy DtoD (Device -> Device)", 20),
            event("triton_per_fused__softmax_0", 10),
            event(LONG_NAME, 40),
        ],
    )
    names = benchlib.cuda_kernels(lambda: calls.append(1))
    assert calls == [1]  # the call ran, once
    assert names[:2] == ["triton_per_fused__softmax_0", "triton_red_fused__softmax_1"]
    assert names[2] == LONG_NAME[: benchlib.KERNEL_NAME_CHARS] and len(names) == 3
    assert bench.launched(lambda: None) == {"kernels": 3, "kernel_names": names}


@pytest.mark.parametrize("events, error", [([], None), (None, RuntimeError("no CUPTI"))])
def test_no_count_where_the_profiler_sees_nothing_or_cannot_run(monkeypatch, events, error):
    fake_profiler(monkeypatch, events, error)
    assert benchlib.cuda_kernels(lambda: None) is None
    assert bench.launched(lambda: None) == {}


# ---- the rows and the figure module's kinds -------------------------------------------------

ENVELOPE = json.loads((ROOT / "figures" / "schema.json").read_text())


def validate(rows: list[dict]) -> None:
    schema = copy.deepcopy(json.loads((ROOT / "figures" / "schemas" / "softmax.json").read_text()))
    jsonschema.Draft202012Validator({**schema, "$defs": ENVELOPE["$defs"]}).validate(rows)


def row(impl, direction="forward", dtype="float32", cols=4096, names=None):
    r = {
        "impl": impl,
        "direction": direction,
        "dtype": dtype,
        "rows": 32768,
        "cols": cols,
        "bytes": 2 * 32768 * cols * 4,
        "time_s": {"p20": 1e-4, "p50": 1e-4, "p80": 1e-4, "reps": 5},
    }
    if names is not None:
        r.update(kernels=len(names), kernel_names=names)
    return r


ROWS = [
    row("triton", names=["softmax_kernel"]),
    row("torch", "backward", names=[LONG_NAME[:200], "void at::native::vectorized_elementwise"]),
    row("compile", dtype="bfloat16", names=["triton_red_fused__softmax_0"]),
    row("compile"),  # measured before the count existed, or the profiler could not run
]


def test_rows_with_and_without_the_count_follow_the_schema():
    validate(ROWS)
    with pytest.raises(jsonschema.ValidationError):
        validate([row("torch", names=[])])  # a count of nothing is never written


def text(spec: str) -> str:
    docs = {"softmax": {"benchmark": "softmax", "rows": ROWS, "provenance": {}, "ceilings": {}}}
    return render.value_text("x", spec, {"x": docs}, render.discover())


def test_kinds_read_the_count_and_the_names():
    assert text("softmax.kernels impl=torch direction=backward cols=4096") == "2"
    assert text("softmax.kernel_names impl=torch direction=backward cols=4096") == (
        "`cunn_SoftMaxBackward` + `vectorized_elementwise`"
    )
    assert text("softmax.kernel_names impl=compile cols=4096 dtype=bfloat16") == (
        "`triton_red_fused__softmax_0`"
    )
    assert text("softmax.kernels impl=triton cols=4096") == "1"
    assert text("softmax.kernels impl=compile cols=4096") == fig.NOT_MEASURED
    assert text("softmax.kernel_names impl=liger cols=4096") == fig.NOT_MEASURED
