"""The FMA-bound kernel behind the fp32 roof: it does exactly the FMAs ``flops()`` counts."""

import re

import pytest
import torch

from kernels import ceilings as cl
from tests.support import DEVICE, fresh_seed, rand, requires_gpu


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
