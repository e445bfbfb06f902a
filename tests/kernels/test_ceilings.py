"""The FMA-bound kernel behind the fp32 roof: it does exactly the FMAs ``flops()`` counts."""

import re

import pytest
import torch

from kernels import ceilings as cl
from tests.support import DEVICE, LaunchSpy, fresh_seed, rand, requires_gpu, requires_two_gpus


def small_integers(shape) -> torch.Tensor:
    """Nonzero integers in [-8, 8] as float32: (k + 1) * x stays exact in float32 for
    k + 1 < 2**21, so a chain of scale-1 FMAs can be checked bit for bit."""
    magnitude = torch.randint(1, 9, shape if isinstance(shape, tuple) else (shape,))
    sign = torch.randint(0, 2, magnitude.shape) * 2 - 1
    return (magnitude * sign).float().to(DEVICE)


@pytest.mark.parametrize("iters", [0, 1, 3])
@pytest.mark.parametrize("shape", [1, 33, 1000, 1024, (3, 5, 7)], ids=str)
def test_does_exactly_the_counted_fmas(shape, iters):
    # With scale = 1 every FMA adds x once: out = (1 + number of FMAs) * x, exactly. One
    # FMA more or fewer per element than flops() counts gives a different number.
    seed = fresh_seed()
    x = small_integers(shape)
    out = cl.fma_chains(x, 1.0, iters, block=128, num_warps=1)
    fmas_per_element = cl.flops(x.numel(), iters) // (2 * x.numel())
    assert fmas_per_element == iters * cl.UNROLL
    assert torch.equal(out, (1 + fmas_per_element) * x), f"seed={seed}"
    assert torch.equal(out, cl.reference(x, 1.0, iters)), f"seed={seed}"


@pytest.mark.parametrize("scale", [0.75, -0.5, 1.001])
def test_matches_reference_for_other_scales(scale):
    seed = fresh_seed()
    x = rand(1000)
    out = cl.fma_chains(x, scale, 2, block=256, num_warps=2)
    # float32 FMAs against a float64 closed form: a few units in the last place apart.
    torch.testing.assert_close(
        out, cl.reference(x, scale, 2), rtol=1e-5, atol=1e-6, msg=lambda m: f"{m} seed={seed}"
    )


@pytest.mark.parametrize("block, num_warps", [(32, 1), (256, 1), (1024, 4), (2048, 1)])
def test_knobs_do_not_change_the_result(block, num_warps):
    x = small_integers(3000)
    out = cl.fma_chains(x, 1.0, 2, block=block, num_warps=num_warps)
    assert torch.equal(out, (1 + 2 * cl.UNROLL) * x)


def test_launch_alone_does_the_same_fmas():
    """The launch section works on its own, with its default block and warps."""
    x = small_integers(3000)
    assert torch.equal(cl.launch(x, 1.0, 2), (1 + 2 * cl.UNROLL) * x)


def test_empty_and_zero_dim():
    assert cl.fma_chains(torch.empty(0, device=DEVICE), 1.0, 3).numel() == 0
    x = torch.tensor(3.0, device=DEVICE)
    assert cl.fma_chains(x, 1.0, 1).item() == 3.0 * (1 + cl.UNROLL)


@requires_gpu
def test_ptx_holds_the_fmas_in_a_loop():
    """On the GPU: the compiled kernel keeps its FMAs (none folded away) inside a loop.

    Per thread, one trip round the loop must hold at least UNROLL FMAs for each of its
    block / (32 * num_warps) chains; the compiler may unroll further, never fewer."""
    block, num_warps = 1024, 4
    x = small_integers(block * 4)
    out = torch.empty_like(x)
    compiled = cl.fma_chains_kernel[(4,)](
        x, out, x.numel(), 1.0, 5, BLOCK=block, UNROLL=cl.UNROLL, num_warps=num_warps
    )
    ptx = compiled.asm["ptx"]
    fmas = len(re.findall(r"\bfma\.rn\.f32\b", ptx))
    assert fmas >= cl.UNROLL * block // (32 * num_warps), ptx[-3000:]
    assert re.search(r"\bbra\b", ptx), "no branch: the run-time loop is gone"
    torch.cuda.synchronize()
    assert torch.equal(out, (1 + 5 * cl.UNROLL) * x)


@requires_two_gpus
def test_launches_on_the_tensors_gpu_when_another_is_current(monkeypatch):
    spy = LaunchSpy(cl.fma_chains_kernel, expect_device=1)
    monkeypatch.setattr(cl, "fma_chains_kernel", spy)
    with torch.cuda.device(0):
        out = cl.fma_chains(torch.ones(256, device="cuda:1"), 1.0, 1)
        assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(1)
    assert spy.devices == [1]
    assert torch.equal(out.cpu(), torch.full((256,), 1.0 + cl.UNROLL))


def test_reads_negative_bit_views_as_their_values():
    x = small_integers(100)
    neg = (-x).neg()  # a lazy negation: stores -x, reads as x
    if neg.is_neg():
        assert torch.equal(cl.fma_chains(neg, 1.0, 1), (1 + cl.UNROLL) * x)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(x=[1.0]), TypeError, "x must be a torch.Tensor"),
        (dict(x="meta"), ValueError, "x is a meta tensor"),
        (dict(x="sparse"), ValueError, "x must be a dense tensor"),
        (dict(x="half"), TypeError, "x must be float32"),
        (dict(x="strided"), ValueError, "x must be contiguous"),
        (dict(x="grad"), ValueError, "x requires grad"),
        (dict(scale="1"), TypeError, "scale must be a float"),
        (dict(iters=2.0), TypeError, "iters must be an int"),
        (dict(iters=-1), ValueError, "iters must be an int in"),
        (dict(block=True), TypeError, "block must be an int"),
        (dict(block=100), ValueError, "block must be a power of two"),
        (dict(block=16), ValueError, "block must be a power of two"),
        (dict(num_warps=3), ValueError, "num_warps must be a power of two"),
        (
            dict(block=32, num_warps=2),
            ValueError,
            "block=32 with num_warps=2 gives each thread 0.5 chains",
        ),
        (
            dict(block=8192, num_warps=1),
            ValueError,
            "block=8192 with num_warps=1 gives each thread 256 chains",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_refuses_by_name(kwargs, error, match, monkeypatch):
    spy = LaunchSpy(cl.fma_chains_kernel)
    monkeypatch.setattr(cl, "fma_chains_kernel", spy)
    tensors = {
        "meta": lambda: torch.empty(4, device="meta"),
        "sparse": lambda: torch.ones(4, device=DEVICE).to_sparse(),
        "half": lambda: torch.ones(4, device=DEVICE, dtype=torch.float16),
        "strided": lambda: torch.ones(8, device=DEVICE)[::2],
        "grad": lambda: torch.ones(4, device=DEVICE, requires_grad=True),
    }
    call = dict(x=torch.ones(64, device=DEVICE), scale=1.0, iters=1, block=64, num_warps=1)
    call.update(kwargs)
    if isinstance(call["x"], str):
        call["x"] = tensors[call["x"]]()
    x, scale, iters = call.pop("x"), call.pop("scale"), call.pop("iters")
    with pytest.raises(error, match=f"^fma_chains: {match}"):
        cl.fma_chains(x, scale, iters, **call)
    assert spy.devices == []


def test_refuses_cpu_tensor_when_not_interpreting(monkeypatch):
    monkeypatch.setattr(cl, "_INTERPRET", False)
    with pytest.raises(ValueError, match="fma_chains: x must be on a CUDA device"):
        cl.fma_chains(torch.ones(4), 1.0, 1)
