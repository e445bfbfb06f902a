"""The empty kernel used by the launch-overhead benchmark: it launches and touches nothing."""

import pytest
import torch

from kernels import launch
from tests.support import DEVICE, LaunchSpy, fresh_seed, requires_two_gpus


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


@requires_two_gpus
def test_launches_on_the_tensors_gpu_when_another_is_current(monkeypatch):
    spy = LaunchSpy(launch.empty_kernel, expect_device=1)
    monkeypatch.setattr(launch, "empty_kernel", spy)
    with torch.cuda.device(0):
        launch.launch_empty(torch.zeros(128, device="cuda:1"))
        assert torch.cuda.current_device() == 0  # the wrapper put it back
    torch.cuda.synchronize(1)
    assert spy.devices == [1]


@pytest.mark.parametrize(
    "make_t, error, match",
    [
        (lambda: [1.0], TypeError, "t must be a torch.Tensor"),
        (lambda: torch.empty(4, device="meta"), ValueError, "t is a meta tensor"),
        (lambda: torch.ones(4, device=DEVICE).to_sparse(), ValueError, "t must be a dense"),
    ],
    ids=["not-tensor", "meta", "sparse"],
)
def test_rejects_bad_input(make_t, error, match, monkeypatch):
    spy = LaunchSpy(launch.empty_kernel)
    monkeypatch.setattr(launch, "empty_kernel", spy)
    with pytest.raises(error, match=f"^launch_empty: {match}"):
        launch.launch_empty(make_t())
    assert spy.devices == []


def test_rejects_cpu_tensor_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(launch, "_INTERPRET", False)
    with pytest.raises(ValueError, match="launch_empty: t must be on a CUDA device"):
        launch.launch_empty(torch.ones(4))
