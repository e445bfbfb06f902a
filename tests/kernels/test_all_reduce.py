"""The one-shot all-reduce (kernels/all_reduce.py), in two kinds of test.

Single-process, everywhere (the CPU interpreter or one GPU): the kernel cannot tell a peer
from any other buffer, so the "peers" are tensors of this process whose data is already in
place and whose flags are already raised, as if they had arrived at both barriers. Those
tests check the sum, the flags the kernel raises and takes down, the refusals by name, the
plan and the reference.

Two GPUs (``requires_two_gpus``): two processes spawned inside the test, NCCL and
symmetric memory for real, the result compared with ``dist.all_reduce`` at sizes of 1,
1000 and 2**20 + 3 elements, in both dtypes, with the buffers reused call after call.
NVLink multicast stays off in every process (NO_MULTICAST).
"""

import os
import tempfile
import time

import pytest
import torch

from kernels import all_reduce as ar
from tests.support import DEVICE, fresh_seed, rand, requires_two_gpus

DTYPES = [torch.float32, torch.bfloat16]
# Significand bits, the hidden one included: a result rounded once to the dtype is within
# half a unit in the last place of the exact sum, a relative 2**-p; within one unit, 2**(1-p),
# where it is rounded twice (to float32, then to bf16) or truncated (the CPU interpreter).
SIGNIFICAND = {torch.float32: 24, torch.bfloat16: 8}
NO_MULTICAST = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


def error_bound(inputs: list) -> torch.Tensor:
    """How far each element of a correct all-reduce of ``inputs`` may be from the exact
    sum, derived: the float32 partial sums round W - 1 times (each off by at most 2**-24 of
    the running sum, at most the sum of magnitudes), then the result is rounded once to the
    dtype (one unit in the last place, 2**(1-p) of its magnitude, allowing a second rounding
    or the interpreter's truncation). The smallest normal number covers underflow."""
    magnitudes = sum(t.double().abs() for t in inputs)
    exact = sum(t.double() for t in inputs)
    p = SIGNIFICAND[inputs[0].dtype]
    tiny = torch.finfo(inputs[0].dtype).tiny
    return (len(inputs) - 1) * 2.0**-24 * magnitudes + 2.0 ** (1 - p) * exact.abs() + tiny


def assert_all_reduced(out: torch.Tensor, inputs: list, msg: str = "") -> None:
    exact = sum(t.double() for t in inputs)
    err = (out.double() - exact).abs()
    bound = error_bound(inputs)
    assert not torch.isnan(out).any(), f"NaN in the result (unwritten elements?) {msg}"
    worst = int((err - bound).argmax())
    assert (err <= bound).all(), (
        f"element {worst}: {out.reshape(-1)[worst].item()} vs exact "
        f"{exact.reshape(-1)[worst].item()}, bound {bound.reshape(-1)[worst].item()} {msg}"
    )


# ---- single process: simulated peers -----------------------------------------------------


def simulated(inputs: list, rank: int, pad_slots: int = 96, spare_bytes: int = 0):
    """A workspace for ``rank`` whose peers are tensors: peer r's buffer already holds
    inputs[r], and each peer's flags in this rank's pad are raised for both barriers of
    every program the plan will launch. Returns (workspace, buffers, pads, programs)."""
    world = len(inputs)
    x = inputs[rank]
    nbytes = x.nbytes + spare_bytes
    buffers = [torch.zeros(max(nbytes, 1), dtype=torch.uint8, device=DEVICE) for _ in inputs]
    pads = [torch.zeros(pad_slots, dtype=torch.int32, device=DEVICE) for _ in inputs]
    for r, t in enumerate(inputs):
        if r != rank and t.numel():
            buffers[r][: t.nbytes].copy_(t.reshape(-1).view(torch.uint8))
    ws = ar.simulated_workspace(buffers, pads, rank)
    device = -1 if DEVICE == "cpu" else torch.cuda.current_device()
    programs = ar.plan(x.numel(), ws.max_programs, device)[0] if x.numel() else 0
    flags = pads[rank].view(-1, world)  # row: barrier slot (2 per program), column: sender
    for peer in range(world):
        if peer != rank:
            flags[: 2 * programs, peer] = 1
    return ws, buffers, pads, programs


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 1000, 4096 * 5 + 17])
@pytest.mark.parametrize("world, rank", [(2, 0), (2, 1), (3, 2)])
def test_simulated_peers_sum(dtype, n, world, rank):
    seed = fresh_seed()
    inputs = [rand((n,), dtype) for _ in range(world)]
    ws, buffers, pads, programs = simulated(inputs, rank)
    out = ar.all_reduce(inputs[rank], ws)
    assert_all_reduced(out, inputs, f"(seed {seed}, n={n}, world={world}, rank={rank})")
    # My input went into my buffer, where my peers would read it.
    assert torch.equal(buffers[rank][: inputs[rank].nbytes], inputs[rank].view(torch.uint8))
    # Every flag I waited for is down again; I raised mine, twice per program, in every
    # pad (my own included: a rank signals itself too, and takes that flag down at once).
    for r in range(world):
        flags = pads[r].view(-1, world)
        expected = torch.zeros_like(flags)
        if r != rank:
            expected[: 2 * programs, rank] = 1
        assert torch.equal(flags, expected), f"pad of rank {r}:\n{flags}"


def test_same_bits_on_every_rank():
    """Every rank sums in rank order, so the results agree bit for bit."""
    fresh_seed()
    inputs = [rand((3000,), torch.bfloat16, scale=100.0) for _ in range(3)]
    outs = []
    for rank in range(3):
        ws, *_ = simulated(inputs, rank)
        outs.append(ar.all_reduce(inputs[rank], ws))
    assert torch.equal(outs[0], outs[1]) and torch.equal(outs[1], outs[2])


def test_out_and_in_place():
    fresh_seed()
    inputs = [rand((2, 500), torch.float32) for _ in range(2)]
    expected = ar.reference(inputs)
    ws, *_ = simulated(inputs, 0)
    out = torch.full_like(inputs[0], float("nan"))
    version = out._version
    assert ar.all_reduce(inputs[0], ws, out=out) is out
    assert out._version > version
    assert_all_reduced(out, inputs)
    ws, *_ = simulated(inputs, 0)
    x = inputs[0].clone()
    ar.all_reduce(x, ws, out=x)  # in place: each tile is copied out before it is written
    assert_all_reduced(x, inputs)
    assert torch.allclose(x, expected, rtol=2**-22)


def test_empty_and_zero_d():
    ws, _, pads, _ = simulated([torch.zeros(4, device=DEVICE)] * 2, 0)
    before = [p.clone() for p in pads]
    empty = torch.empty(0, 3, device=DEVICE)
    assert ar.all_reduce(empty, ws).shape == (0, 3)
    assert all(torch.equal(a, b) for a, b in zip(before, pads, strict=True)), "flags moved"
    inputs = [torch.tensor(1.5, device=DEVICE), torch.tensor(-4.0, device=DEVICE)]
    ws, *_ = simulated(inputs, 1)
    assert ar.all_reduce(inputs[1], ws).item() == -2.5


# ---- the refusals, by name -----------------------------------------------------------------


def _ws(nbytes=4096):
    return simulated([torch.zeros(nbytes // 4, device=DEVICE)] * 2, 0)[0]


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda: torch.zeros(8, dtype=torch.float16, device=DEVICE), TypeError, "x has dtype"),
        (lambda: torch.zeros(8, dtype=torch.int32, device=DEVICE), TypeError, "x has dtype"),
        (lambda: torch.zeros(8, 2, device=DEVICE).t(), ValueError, "x must be contiguous"),
        (lambda: torch.zeros(16, device=DEVICE)[::2], ValueError, "x must be contiguous"),
        (lambda: torch.zeros(8, device="meta"), ValueError, "x is a meta tensor"),
        (lambda: torch.zeros(2000, device=DEVICE), ValueError, "more than the workspace"),
        (lambda: [1.0, 2.0], TypeError, "x must be a torch.Tensor"),
        (lambda: torch.zeros(8, device=DEVICE, requires_grad=True), ValueError, "x requires grad"),
    ],
    ids=["fp16", "int32", "transposed", "strided", "meta", "too-large", "list", "grad"],
)
def test_refuses_x(make, error, words):
    with pytest.raises(error, match=words):
        ar.all_reduce(make(), _ws())


def test_refuses_bad_out_and_workspace():
    ws = _ws()
    x = torch.zeros(8, device=DEVICE)
    with pytest.raises(TypeError, match="ws must be a Workspace"):
        ar.all_reduce(x, object())
    with pytest.raises(TypeError, match="out has dtype"):
        ar.all_reduce(x, ws, out=torch.zeros(8, dtype=torch.bfloat16, device=DEVICE))
    with pytest.raises(ValueError, match="out must match x"):
        ar.all_reduce(x, ws, out=torch.zeros(9, device=DEVICE))
    with pytest.raises(ValueError, match="out must be contiguous"):
        ar.all_reduce(x, ws, out=torch.zeros(16, device=DEVICE)[::2])
    both = torch.zeros(12, device=DEVICE)
    with pytest.raises(ValueError, match="out partially overlaps x"):
        ar.all_reduce(both[:8], ws, out=both[4:])
    in_buffer = ws.buffer[:32].view(torch.float32)
    with pytest.raises(ValueError, match="x lies in the workspace's buffer"):
        ar.all_reduce(in_buffer, ws)
    with pytest.raises(ValueError, match="out lies in the workspace's buffer"):
        ar.all_reduce(x, ws, out=in_buffer)


def test_refuses_before_touching_a_flag():
    ws, _, pads, _ = simulated([torch.zeros(4, device=DEVICE)] * 2, 0)
    before = [p.clone() for p in pads]
    with pytest.raises(ValueError):
        ar.all_reduce(torch.zeros(100, device=DEVICE), ws)
    assert all(torch.equal(a, b) for a, b in zip(before, pads, strict=True))


# ---- plan and reference -------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, ar.BLOCK, ar.BLOCK + 1, 10 * ar.BLOCK, 2**28])
def test_plan(n):
    programs, block, num_warps = ar.plan(n, max_programs=128, device=-1)
    tiles = -(-n // block)
    assert 1 <= programs <= min(tiles, ar.INTERPRETER_PROGRAMS)
    assert block & (block - 1) == 0 and num_warps in (1, 2, 4, 8, 16, 32)
    assert ar.plan(n, max_programs=1, device=-1)[0] == 1


def test_signal_pad_arithmetic():
    # Two barriers x world senders x 4 bytes per program.
    assert ar.programs_for(2048, 2) == 128
    assert ar.programs_for(2048, 8) == 32
    assert (
        ar.simulated_workspace(
            [torch.zeros(4, dtype=torch.uint8)] * 2, [torch.zeros(64, dtype=torch.int32)] * 2, 0
        ).max_programs
        == 16
    )


def test_reference():
    a = torch.tensor([1.0, 2.0**-8, 3.0], dtype=torch.bfloat16)
    b = torch.tensor([2.0, 1.0, -3.0], dtype=torch.bfloat16)
    # 1 + 2**-8 is a tie between 1 and 1 + 2**-7 in bf16: rounds to even, 1.
    assert ar.reference([a, b]).tolist() == [3.0, 1.0, 0.0]
    assert ar.reference([a, b]).dtype == torch.bfloat16
    fresh_seed()
    xs = [torch.randn(100) for _ in range(4)]
    torch.testing.assert_close(ar.reference(xs), sum(x.double() for x in xs).float())


# ---- two GPUs, two processes ----------------------------------------------------------------

TWO_GPU_SIZES = [1, 1000, 2**20 + 3]
REPEATS = 3  # calls per (dtype, size), each with fresh inputs, one workspace for all
BACK_TO_BACK = 20  # calls launched with no synchronisation in between


def _two_gpu_worker(rank: int, world: int, init_file: str) -> None:
    """One rank: checks the kernel against NCCL and raises AssertionError on a mismatch."""
    os.environ.update(NO_MULTICAST)
    import torch.distributed as dist

    device = torch.device("cuda", rank)
    torch.cuda.set_device(device)
    dist.init_process_group(
        "nccl", init_method=f"file://{init_file}", rank=rank, world_size=world, device_id=device
    )
    try:
        ws = ar.workspace(4 * max(TWO_GPU_SIZES))
        assert ws.rank == rank and ws.world_size == world and ws.max_programs >= 1
        for dtype in DTYPES:
            for n in TWO_GPU_SIZES:
                for call in range(REPEATS):
                    torch.manual_seed(1000 * call + n + 7 * rank)
                    x = rand((n,), dtype, device=device)
                    gathered = [torch.empty_like(x) for _ in range(world)]
                    dist.all_gather(gathered, x)
                    ours = ar.all_reduce(x, ws)
                    nccl = x.clone()
                    dist.all_reduce(nccl)
                    where = f"(rank {rank}, {dtype}, n={n}, call {call})"
                    assert_all_reduced(ours, gathered, f"ours {where}")
                    assert_all_reduced(nccl, gathered, f"NCCL {where}")
                    others = [torch.empty_like(ours) for _ in range(world)]
                    dist.all_gather(others, ours)
                    assert all(torch.equal(o, ours) for o in others), f"ranks differ {where}"
        # Back to back, no synchronisation: if the closing barrier let a rank refill its
        # buffer while a peer still read it, some result would mix two calls' inputs.
        n = 2**20 + 3
        xs = [
            torch.full((n,), float(k + 1 + 100 * rank), device=device) for k in range(BACK_TO_BACK)
        ]
        outs = [ar.all_reduce(x, ws) for x in xs]
        torch.cuda.synchronize()
        for k, out in enumerate(outs):
            expected = float(sum(k + 1 + 100 * r for r in range(world)))
            assert (out == expected).all(), f"back-to-back call {k} on rank {rank}: {out.unique()}"
        dist.barrier()
    finally:
        dist.destroy_process_group()


def spawn_two(fn, timeout_s: float = 180.0) -> None:
    """Run ``fn(rank, 2, init_file)`` in two fresh processes; fail on an error or a hang."""
    import torch.multiprocessing as mp

    os.environ.update(NO_MULTICAST)  # inherited by the children
    with tempfile.TemporaryDirectory() as tmp:
        context = mp.spawn(fn, args=(2, os.path.join(tmp, "rendezvous")), nprocs=2, join=False)
        deadline = time.monotonic() + timeout_s
        while not context.join(timeout=5):
            if time.monotonic() > deadline:
                for p in context.processes:
                    if p.is_alive():
                        p.kill()
                pytest.fail(f"the two ranks did not finish in {timeout_s:.0f} s (a hang?)")


@requires_two_gpus
def test_two_gpus_match_nccl():
    spawn_two(_two_gpu_worker)


def test_no_multimem_in_kernel_file():
    """NVLink multicast breaks the two-GPU machines: the kernel never uses multimem."""
    with open(ar.__file__) as f:
        assert "multimem" not in f.read().lower()
