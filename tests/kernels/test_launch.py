"""The empty kernel used by the launch-overhead benchmark: it launches and touches nothing."""

import pytest
import torch

from kernels import launch
from tests.kernels.conftest import DEVICE, fresh_seed


def test_empty_kernel_launches_and_leaves_memory_alone():
    fresh_seed()
    t = torch.randn(300, device=DEVICE)
    before = t.clone()
    launch.launch_empty(t)
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    assert torch.equal(t, before)


def test_rejects_non_tensor():
    with pytest.raises(TypeError, match="expected a torch.Tensor"):
        launch.launch_empty([1.0])


def test_rejects_cpu_tensor_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(launch.triton.knobs.runtime, "interpret", False)
    with pytest.raises(ValueError, match="must be on a CUDA device"):
        launch.launch_empty(torch.ones(4))
