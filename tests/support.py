"""Helpers for the kernel tests: device, markers, fresh inputs, poisoned outputs, tolerances.

A plain module, imported by name (``from tests.support import ...``), so that what a test
uses is visible in its imports. TRITON_INTERPRET is set for GPU-less machines in
tests/conftest.py, before any kernel module is imported.
"""

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import triton

ON_GPU = torch.cuda.is_available()
DEVICE = "cuda" if ON_GPU else "cpu"

requires_gpu = pytest.mark.skipif(
    not ON_GPU, reason="needs a CUDA GPU (too large for the interpreter)"
)
# Tests past 2**31 elements hold several GiB each. Under pytest-xdist with --dist loadgroup
# (as `make test` runs) they share one group, so one worker runs them one after another:
# several at once on one GPU ran out of memory.
big_gpu_memory = pytest.mark.xdist_group("gpu_memory")
requires_two_gpus = pytest.mark.skipif(
    torch.cuda.device_count() < 2,
    reason="needs two CUDA GPUs: launches on cuda:1 while cuda:0 is the current device",
)

# Tolerances per dtype, stated once, for results that are allowed to be off by about one
# unit in the last place: (rtol, atol) against a float64 reference rounded to the output
# dtype. A kernel whose result is correctly rounded (vector add) is checked exactly instead.
TOLERANCES = {
    torch.float32: (1.3e-6, 1e-6),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (8e-3, 8e-3),
}


def rand(shape, dtype=torch.float32, device=DEVICE, scale=1.0) -> torch.Tensor:
    """Normal random values drawn in float32, scaled, then rounded once to ``dtype``:
    never zeros, which would hide unwritten outputs and can even run faster."""
    return (scale * torch.randn(shape, dtype=torch.float32, device=device)).to(dtype)


def fresh_seed() -> int:
    """A new seed per test: inputs are fresh each run, and the seed goes in failure messages."""
    seed = random.randrange(2**31)
    torch.manual_seed(seed)
    return seed


def nan_filled(make):
    """``make`` (``torch.empty``, ``torch.empty_like``) whose float tensors come filled with
    NaN, so an output element that no program writes shows up."""

    def made(*args, **kwargs):
        t = make(*args, **kwargs)
        return t.fill_(float("nan")) if t.is_floating_point() else t

    return made


@pytest.fixture(autouse=True)
def poisoned_empty(monkeypatch):
    """Every float tensor ``torch.empty`` makes during a test is filled with NaN (the
    outputs and scratch buffers a wrapper allocates). Autouse in the modules that import
    it: ``from tests.support import poisoned_empty  # noqa: F401``."""
    monkeypatch.setattr(torch, "empty", nan_filled(torch.empty))


def poisoned_like(t: torch.Tensor) -> torch.Tensor:
    """An output buffer filled with NaN, so any element the kernel fails to write shows up."""
    return torch.full_like(t, float("nan"))


def assert_close_to_reference(
    out: torch.Tensor,
    ref64: torch.Tensor,
    msg: str = "",
    *,
    tolerances: dict = TOLERANCES,
    atol_scale: float = 1.0,
) -> None:
    """Compare ``out`` with a float64 reference rounded to ``out.dtype``, at that dtype's
    (rtol, atol) from ``tolerances`` with atol times ``atol_scale``; NaN never passes."""
    assert not torch.isnan(out).any(), f"output has NaN (unwritten or wrong elements) {msg}"
    rtol, atol = tolerances[out.dtype]
    atol *= atol_scale
    torch.testing.assert_close(
        out.double(),
        ref64.to(out.dtype).double(),
        rtol=rtol,
        atol=atol,
        msg=lambda m: f"{m}\n{msg}",
    )


# Rounding unit of a result stored in each dtype, for the per-element bounds of the tiled
# products (dot, matmul, matmul_tma). The CPU interpreter truncates to bf16 instead of
# rounding, which doubles the unit there.
OUTPUT_UNIT = {torch.float32: 2**-24, torch.float16: 2**-11, torch.bfloat16: 2**-8}


def output_unit(dtype: torch.dtype) -> float:
    return OUTPUT_UNIT[dtype] * (2 if dtype == torch.bfloat16 and not ON_GPU else 1)


def matmul_allowed(a, b, ref, bias=None, input_rounding: float = 0.0) -> torch.Tensor:
    """Per-element bound for ``activation(a @ b + bias)`` against its float64 value ``ref``:
    2 u |ref| + 2 (t + (K + 4) 2**-24) (|a| @ |b| + |bias|) + 2**-24, with u the output's
    unit, t the inputs' rounding (TF32) and (K + 4) 2**-24 float32 accumulation over K terms.
    The factor 2 also covers exact GELU, whose slope is at most about 1.13."""
    scale = a.double().abs() @ b.double().abs()
    if bias is not None:
        scale = scale + bias.double().abs()
    unit = output_unit(a.dtype)  # the result is stored in a's dtype
    return 2 * unit * ref.abs() + 2 * (input_rounding + (a.shape[1] + 4) * 2**-24) * scale + 2**-24


def assert_within(out: torch.Tensor, ref: torch.Tensor, allowed: torch.Tensor, msg: str = ""):
    """``out`` against a float64 reference element by element, within ``allowed``; NaN (an
    unwritten element) fails. The message names the count and the worst element."""
    assert out.shape == ref.shape, f"shape {tuple(out.shape)} != {tuple(ref.shape)} {msg}"
    err = (out.double() - ref).abs()
    bad = ~(err <= allowed)
    assert not bad.any(), (
        f"{int(bad.sum())} of {out.numel()} elements off, worst error {err.max().item():.3g} "
        f"(allowed there {allowed.flatten()[err.argmax()].item():.3g}) {msg}"
    )


class LaunchSpy:
    """Stands in for a ``@triton.jit`` function and records the current CUDA device at each
    launch (Triton launches on the current device, whatever the tensors' device is).

    Install with ``monkeypatch.setattr(module, "kernel_name", LaunchSpy(module.kernel_name))``.
    With ``expect_device`` set, a launch on any other device raises before it runs, instead
    of letting the kernel touch another GPU's memory.
    """

    def __init__(self, kernel, expect_device: int | None = None):
        self.kernel, self.expect_device, self.devices = kernel, expect_device, []

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            current = torch.cuda.current_device() if ON_GPU else -1
            self.devices.append(current)
            if self.expect_device is not None and current != self.expect_device:
                raise AssertionError(f"launch on device {current}, not {self.expect_device}")
            return self.kernel[grid](*args, **kwargs)

        return launch


def counting_autotuner(module, name, configs):
    """An autotuner like ``module.name`` (its key and pruning) over ``configs``, whose
    do_bench runs the config once and counts the timings it was asked for."""
    src = getattr(module, name)
    timings = []

    def do_bench(kernel_call, quantiles=None):
        timings.append(1)
        kernel_call()
        return [1.0, 1.0, 1.0] if quantiles else 1.0

    tuner = triton.autotune(
        configs=configs,
        key=src.keys,
        prune_configs_by={"early_config_prune": src.early_config_prune},
        do_bench=do_bench,
    )(src.fn)
    return tuner, timings


ROOT = Path(__file__).resolve().parents[1]


def compiled_python(script: str, what: str) -> str:
    """stdout of ``script`` run in a fresh Python at the repository's root with
    TRITON_INTERPRET unset, so Triton really compiles (the interpreter compiles nothing;
    compiling for sm_90 needs no GPU). Fails, naming ``what``, if it errors or takes more
    than 10 minutes."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    try:
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"compiling {what} took over 10 minutes")
    assert done.returncode == 0, f"compiling {what}: {done.stderr[-2000:]}"
    return done.stdout
