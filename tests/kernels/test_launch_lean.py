"""The lean launch path: the same bits as vector_add, every later call checked against what
was validated, refusals that name what changed, streams and CUDA graphs on the GPU."""

import pytest
import torch

from kernels import launch_lean as ll
from kernels import vector_add as va
from tests.support import DEVICE, ON_GPU, fresh_seed, poisoned_like, rand

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


def test_in_place_add_is_allowed():
    seed = fresh_seed()
    lean, x, y, _ = made((257,))
    x2, y2 = rand((257,)), rand((257,))
    expected = va.vector_add(x2, y2)
    lean(x2, y2, x2)
    assert torch.equal(x2, expected), f"seed={seed}"


def test_out_version_is_bumped():
    lean, x, y, out = made()
    before = out._version
    lean(x, y, out)
    assert out._version > before


def test_empty_tensors():
    x = torch.empty(0, device=DEVICE)
    lean = ll.LeanAdd(x, x.clone(), x.clone())
    out = torch.empty(0, device=DEVICE)
    assert lean(x, x.clone(), out) is out


def test_reference_is_the_correctly_rounded_sum():
    x, y = rand((64,), torch.float16), rand((64,), torch.float16)
    assert torch.equal(ll.reference(x, y), va.reference(x, y))


@pytest.mark.parametrize(
    "change, message",
    [
        pytest.param(lambda t: rand((129,)), "but x is torch.float32 \\(129,\\)", id="shape"),
        pytest.param(lambda t: t.half(), "but x is torch.float16", id="dtype"),
        pytest.param(
            lambda t: rand((2, 64)), "but x is torch.float32 \\(2, 64\\)", id="same-count"
        ),
        pytest.param(lambda t: rand((256,))[::2], "x must be contiguous", id="strided"),
        pytest.param(lambda t: torch._neg_view(t), "x is a view with the negative bit", id="neg"),
        pytest.param(lambda t: torch.empty(128, device="meta"), "x is a meta tensor", id="meta"),
        pytest.param(lambda t: t.to_sparse(), "x must be a dense tensor", id="sparse"),
        pytest.param(lambda t: t.tolist(), "x must be a torch.Tensor", id="not-a-tensor"),
        pytest.param(lambda t: t.clone().requires_grad_(), "x requires grad", id="requires-grad"),
    ],
)
def test_refuses_what_changed_since_validation(change, message):
    lean, x, y, out = made()
    with pytest.raises((TypeError, ValueError), match=message):
        lean(change(x), y, out)


def test_refuses_all_three_changed_together():
    lean, *_ = made()
    x, y, out = (rand((128,), torch.float16) for _ in range(3))
    with pytest.raises(ValueError, match="validated for torch.float32 \\(128,\\).*make a new"):
        lean(x, y, out)


def test_refuses_partial_overlap():
    lean, *_ = made((128,))
    buf = rand((256,))
    # 16-byte aligned views, one element group apart: they share 124 of 128 elements.
    with pytest.raises(ValueError, match="out partially overlaps x"):
        lean(buf[:128], rand((128,)), buf[4:132])


def test_refuses_bad_first_call():
    x = rand((10,))
    with pytest.raises(ValueError, match="y is torch.float16"):
        ll.LeanAdd(x, x.half(), x.clone())
    with pytest.raises(TypeError, match="block must be an int"):
        ll.LeanAdd(x, x.clone(), x.clone(), block=1024.0)
    with pytest.raises(ValueError, match="block must be a power of two"):
        ll.LeanAdd(x, x.clone(), x.clone(), block=1000)
    with pytest.raises(TypeError, match="x has dtype torch.int32"):
        i = torch.ones(10, dtype=torch.int32, device=DEVICE)
        ll.LeanAdd(i, i.clone(), i.clone())


def test_refuses_misaligned_pointers_after_aligned_validation():
    lean, *_ = made((128,))
    assert lean.aligned
    buf = rand((129,))
    # buf[1:] starts 4 bytes past a 16-byte boundary: the compiled kernel assumed aligned.
    with pytest.raises(ValueError, match="not a multiple of 16 bytes"):
        lean(buf[1:], rand((128,)), poisoned_like(buf[1:]))


@pytest.mark.skipif(not ON_GPU, reason="needs a CUDA GPU: on the CPU every tensor is a CPU one")
def test_refuses_a_cpu_tensor_on_the_gpu():
    lean, x, y, out = made()
    with pytest.raises(ValueError, match="must be on a CUDA device"):
        lean(x.cpu(), y, out)


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
