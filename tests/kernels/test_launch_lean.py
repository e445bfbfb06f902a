"""The lean launch path: the same bits as vector_add, streams and CUDA graphs on the GPU."""

import pytest
import torch

from kernels import launch_lean as ll
from kernels import vector_add as va
from tests.support import ON_GPU, fresh_seed, poisoned_like, rand

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
NEEDS_CUDA_GRAPHS = "CUDA graphs need a CUDA GPU (there is no graph capture on the CPU)"


def made(shape=(128,), dtype=torch.float32, **knobs):
    x, y = rand(shape, dtype), rand(shape, dtype)
    out = poisoned_like(x)
    return ll.LeanAdd(x, y, out, **knobs), x, y, out


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [1, 128, 1000, 4097, (3, 5, 7)], ids=str)
def test_same_bits_as_vector_add_on_fresh_inputs(shape, dtype):
    seed = fresh_seed()
    lean, x, y, out = made(shape, dtype)
    for _ in range(3):  # later calls take new tensors of the same kind
        x, y = rand(shape, dtype), rand(shape, dtype)
        out = poisoned_like(x)
        assert lean(x, y, out) is out
        assert torch.equal(out, va.vector_add(x, y)), f"seed={seed}"


def test_first_call_writes_out_too():
    lean, x, y, out = made((300,))
    assert torch.equal(out, va.vector_add(x, y))


def test_reference_is_the_correctly_rounded_sum():
    x, y = rand((64,), torch.float16), rand((64,), torch.float16)
    assert torch.equal(ll.reference(x, y), va.reference(x, y))


@pytest.mark.skipif(not ON_GPU, reason="needs a CUDA GPU: the interpreter has no streams")
def test_launches_on_the_current_stream():
    # The lean call reads the current stream each time: inside torch.cuda.stream(s) its
    # kernel is ordered after work queued on s, here a spin that delays it.
    seed = fresh_seed()
    lean, x, y, out = made((4096,))
    side = torch.cuda.Stream()
    x2, y2 = rand((4096,)), rand((4096,))
    out2 = poisoned_like(x2)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(1 << 20)  # about a millisecond of GPU time on this stream
        x2.mul_(2)  # on the side stream, after the spin: the add must see it
        lean(x2, y2, out2)
    side.synchronize()
    assert torch.equal(out2, va.vector_add(x2, y2)), f"seed={seed}"


@pytest.mark.skipif(not ON_GPU, reason=NEEDS_CUDA_GRAPHS)
def test_graph_replays_the_lean_call_on_its_captured_tensors():
    seed = fresh_seed()
    lean, x, y, out = made((128,))
    graph = ll.graphed(lambda: lean(x, y, out))
    for _ in range(3):
        x.copy_(rand((128,)))  # new values into the captured input
        y.copy_(rand((128,)))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, va.vector_add(x, y)), f"seed={seed}"


@pytest.mark.skipif(not ON_GPU, reason="needs a CUDA GPU: only there is a compiled kernel kept")
def test_the_compiled_kernel_is_kept_on_the_gpu():
    lean, *_ = made()
    assert lean.launcher is not None and lean.function is not None


@pytest.mark.skipif(ON_GPU, reason="the interpreter's fallback is tested on the CPU")
def test_the_interpreter_keeps_no_compiled_kernel():
    lean, *_ = made()
    assert lean.launcher is None
