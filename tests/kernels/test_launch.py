"""The empty kernel used by the launch-overhead benchmark: it launches and touches nothing."""

import pytest
import torch

from kernels import launch
from tests.support import DEVICE, LaunchSpy, fresh_seed


@pytest.mark.parametrize("shape", [300, (), 0, (4, 5)], ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int8], ids=str)
def test_empty_kernel_launches_and_leaves_memory_alone(shape, dtype, monkeypatch):
    seed = fresh_seed()
    spy = LaunchSpy(launch.empty_kernel)
    monkeypatch.setattr(launch, "empty_kernel", spy)
    t = torch.randn(shape, device=DEVICE).to(dtype)
    before = t.clone()
    assert launch.launch_empty(t) is None
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    assert len(spy.devices) == 1
    assert torch.equal(t, before), f"seed={seed}"


def test_launch_alone_launches_one_program(monkeypatch):
    spy = LaunchSpy(launch.empty_kernel)
    monkeypatch.setattr(launch, "empty_kernel", spy)
    assert launch.launch(torch.zeros(7, device=DEVICE)) is None
    assert len(spy.devices) == 1
