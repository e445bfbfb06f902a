"""Shared helpers for kernel tests: device, tolerances, fresh inputs, poisoned outputs.

(TRITON_INTERPRET is set for GPU-less machines in tests/conftest.py, before any kernel
module is imported.)
"""

import random

import pytest
import torch

ON_GPU = torch.cuda.is_available()
DEVICE = "cuda" if ON_GPU else "cpu"

# Tolerances per dtype, stated once: (rtol, atol) against a float64 reference that is
# rounded to the output dtype. Elementwise float ops are correctly rounded, so these are
# about one unit in the last place of each format.
TOLERANCES = {
    torch.float32: (1.3e-6, 1e-6),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (8e-3, 8e-3),
}

requires_gpu = pytest.mark.skipif(not ON_GPU, reason="needs a CUDA GPU (too large for the interpreter)")


def fresh_seed() -> int:
    """A new seed per test: inputs are fresh each run, and the seed is printed on failure."""
    seed = random.randrange(2**31)
    torch.manual_seed(seed)
    return seed


def poisoned_like(t: torch.Tensor) -> torch.Tensor:
    """An output buffer filled with NaN, so any element the kernel fails to write shows up."""
    return torch.full_like(t, float("nan"))


def assert_close_to_reference(out: torch.Tensor, ref64: torch.Tensor, msg: str = "") -> None:
    """Compare ``out`` with a float64 reference at ``out.dtype``'s tolerance; NaN never passes."""
    assert not torch.isnan(out).any(), f"output has NaN (unwritten or wrong elements) {msg}"
    rtol, atol = TOLERANCES[out.dtype]
    torch.testing.assert_close(
        out.double(), ref64.to(out.dtype).double(), rtol=rtol, atol=atol,
        msg=lambda m: f"{m}\n{msg}",
    )
