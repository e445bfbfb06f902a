"""All-reduce (sum) across GPUs in one kernel: every rank ends with the sum of every rank's
tensor, read straight out of its peers' memory over NVLink.

The one-shot algorithm, on PyTorch's symmetric memory (``torch.distributed.
_symmetric_memory``): each rank owns a buffer that every other rank can address, and a
small signal pad of 32-bit flags, also addressable by every rank. One launch per rank:

1. each program copies its tiles of the input into this rank's symmetric buffer;
2. a barrier: the program raises a flag in each peer's signal pad ("my tiles are in") and
   waits until each peer has raised the matching flag in its own pad;
3. it reads the same tiles from every rank's buffer (its own, and its peers' over
   NVLink), adds them in float32, in rank order, and writes its output;
4. a second barrier ("I have finished reading you"), so that the next call may overwrite
   the buffers.

The peers' addresses come in as an int64 tensor and are turned into pointers inside the
kernel, so the "peers" can be any buffers: on one device (or on the CPU, under the
interpreter) the tests and exercises hand it ordinary tensors whose flags are already set,
as if the peers had arrived. Lesson 18 of the book walks through this file.

Sections, as in every kernel file of the book: ``kernel``, ``launch`` (``plan``, and
``launch``), ``checks`` (``Workspace``, ``workspace`` which allocates and exchanges the
symmetric memory, and ``all_reduce``, the checked entry point) and ``reference`` (the
sum of a list of tensors, computed locally by torch).

Runs on CUDA GPUs joined by NVLink (one process per GPU, ``torch.distributed``
initialised), or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported) with simulated peers. NVLink multicast is never used.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def _barrier(signal_ptrs, rank, slot, WORLD: tl.constexpr):
    # Every thread of the program has issued its writes; bar.sync makes them happen before
    # what the program's thread 0 does next (Triton runs a scalar atomic on one thread).
    tl.debug_barrier()
    for peer in tl.static_range(WORLD):
        # Raise my flag in the peer's pad: slot (slot, my rank). Compare-and-swap 0 -> 1,
        # retried until the peer has taken down the flag I raised there last time.
        # sem="release", scope="sys": every write this program made before (made visible
        # to thread 0 by the bar.sync) reaches memory that the other GPU sees before the
        # flag does. So a peer that sees the flag also sees my tiles.
        pad = tl.load(signal_ptrs + peer).to(tl.pointer_type(tl.int32))
        flag = pad + slot * WORLD + rank
        while tl.atomic_cas(flag, 0, 1, sem="release", scope="sys") != 0:
            pass
    for peer in tl.static_range(WORLD):
        # Wait for the peer's flag in my own pad, and take it down (1 -> 0) in the same
        # atomic. sem="acquire", scope="sys": the reads after it cannot be served before
        # it, so they see everything the peer wrote before its release.
        pad = tl.load(signal_ptrs + rank).to(tl.pointer_type(tl.int32))
        flag = pad + slot * WORLD + peer
        while tl.atomic_cas(flag, 1, 0, sem="acquire", scope="sys") != 1:
            pass
    # And thread 0's acquire happens before every other thread's reads, through bar.sync.
    tl.debug_barrier()


@triton.jit
def one_shot_all_reduce_kernel(
    x_ptr, out_ptr, buffer_ptrs, signal_ptrs, n_elements, rank,
    WORLD: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    # Program p owns tiles p, p + programs, p + 2 * programs, ... of BLOCK elements, in
    # every phase: the tiles it copies in are the tiles it later reads from the peers.
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    n_tiles = tl.cdiv(n_elements, BLOCK)
    dtype = out_ptr.dtype.element_ty
    # My own symmetric buffer: its address is entry `rank` of buffer_ptrs.
    mine = tl.load(buffer_ptrs + rank).to(tl.pointer_type(dtype))
    # 1. Copy my input into my symmetric buffer, where the peers can read it.
    for tile in range(pid, n_tiles, programs):
        offsets = tl.cast(tile, tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n_elements
        tl.store(mine + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)
    # 2. Barrier: my tiles are in every peer's view, and theirs are in mine. Only program
    # p of each rank meets program p of the others: no grid-wide wait.
    _barrier(signal_ptrs, rank, 2 * pid, WORLD)
    # 3. Read the tile from every rank (over NVLink for the peers), sum, store.
    for tile in range(pid, n_tiles, programs):
        offsets = tl.cast(tile, tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n_elements
        total = tl.zeros((BLOCK,), dtype=tl.float32)
        # Rank order on every rank: all ranks get the same bits.
        for peer in tl.static_range(WORLD):
            buffer = tl.load(buffer_ptrs + peer).to(tl.pointer_type(dtype))
            total += tl.load(buffer + offsets, mask=mask).to(tl.float32)
        tl.store(out_ptr + offsets, total.to(dtype), mask=mask)
    # 4. Barrier again: nobody reads my buffer any more, so the next call may refill it.
    _barrier(signal_ptrs, rank, 2 * pid + 1, WORLD)


# --8<-- [end:kernel]


# --8<-- [start:launch]
BLOCK, NUM_WARPS = 4096, 16  # elements per tile (16 bytes per thread in bf16), warps
INTERPRETER_PROGRAMS = 4  # on the CPU: a few programs, so each walks several tiles
_SM_COUNT: dict[int, int] = {}  # device index -> SMs, looked up once per device


def plan(n_elements: int, max_programs: int, device: int = -1) -> tuple:
    """``(programs, BLOCK, num_warps)`` for ``n_elements``: one program per tile, at most
    one per SM of CUDA device ``device`` (INTERPRETER_PROGRAMS for -1, the interpreter) and
    at most ``max_programs`` (what the workspace's signal pad has flags for). Each program
    waits for its peers' programs, so all of them must be on the GPU at once: one per SM."""
    if device < 0:
        per_device = INTERPRETER_PROGRAMS
    else:
        if device not in _SM_COUNT:
            _SM_COUNT[device] = torch.cuda.get_device_properties(device).multi_processor_count
        per_device = _SM_COUNT[device]
    tiles = (n_elements + BLOCK - 1) // BLOCK
    return max(1, min(tiles, per_device, max_programs)), BLOCK, NUM_WARPS


def launch(x, ws, out=None):
    """Sum contiguous ``x`` over the ranks of workspace ``ws`` (every rank calls this with
    the same shape and dtype); no checks."""
    if out is None:
        out = torch.empty_like(x)
    programs, block, num_warps = plan(x.numel(), ws.max_programs, x.get_device())
    one_shot_all_reduce_kernel[(programs,)](
        x, out, ws.buffer_ptrs, ws.signal_ptrs, x.numel(), ws.rank,
        WORLD=ws.world_size, BLOCK=block, num_warps=num_warps,
    )  # fmt: skip
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.bfloat16)
SIGNAL_BYTES = 4  # one int32 flag per (program, barrier, sender)
BARRIERS = 2  # flags per program and sender: the barrier before reading, the one after

_INTERPRET = bool(triton.knobs.runtime.interpret)
_FORWARD_AD = torch.autograd.forward_ad


class Workspace:
    """What one rank needs to run the kernel: its symmetric ``buffer`` (bytes), the
    addresses of every rank's buffer and signal pad (int64 tensors on the device, entry r
    for rank r), ``rank``, ``world_size``, and ``max_programs``, how many programs the
    signal pads have flags for. ``keep`` holds whatever keeps the memory alive (the
    symmetric-memory handle, or the simulated peers' tensors)."""

    def __init__(self, buffer, buffer_ptrs, signal_ptrs, rank, world_size, max_programs, keep):
        self.buffer, self.buffer_ptrs, self.signal_ptrs = buffer, buffer_ptrs, signal_ptrs
        self.rank, self.world_size, self.max_programs = rank, world_size, max_programs
        self.keep = keep

    @property
    def nbytes(self) -> int:
        return self.buffer.numel()


def programs_for(signal_pad_bytes: int, world_size: int) -> int:
    """How many programs a signal pad of ``signal_pad_bytes`` has flags for."""
    return signal_pad_bytes // (SIGNAL_BYTES * BARRIERS * world_size)


def workspace(nbytes: int, group=None, device=None) -> Workspace:
    """Allocate ``nbytes`` of symmetric memory on ``device`` (default: the current CUDA
    device) for every rank of process group ``group`` (default: the world) and exchange
    the addresses: a collective, every rank calls it with the same ``nbytes``."""
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    if type(nbytes) is not int or nbytes < 1:
        raise ValueError(f"workspace: nbytes must be a positive int, got {nbytes!r}")
    group = group or dist.group.WORLD
    device = torch.device("cuda", torch.cuda.current_device()) if device is None else device
    buffer = symm_mem.empty(nbytes, dtype=torch.uint8, device=device)
    handle = symm_mem.rendezvous(buffer, group.group_name)
    pad = handle.get_signal_pad(handle.rank)  # this rank's pad, zeros until flags are raised
    addresses = (handle.buffer_ptrs, handle.signal_pad_ptrs)
    buffer_ptrs, signal_ptrs = (
        torch.tensor(a, dtype=torch.int64, device=device) for a in addresses
    )
    programs = programs_for(pad.numel() * pad.element_size(), handle.world_size)
    return Workspace(
        buffer, buffer_ptrs, signal_ptrs, handle.rank, handle.world_size, programs, handle
    )


def simulated_workspace(buffers: list, signal_pads: list, rank: int) -> Workspace:
    """A workspace whose "peers" are tensors of this process: ``buffers[r]`` (uint8) and
    ``signal_pads[r]`` (int32) stand for rank r's. The kernel cannot tell: it only sees
    addresses. For the tests and exercises (on one device, or on the CPU)."""
    device = buffers[rank].device
    buffer_ptrs = torch.tensor([b.data_ptr() for b in buffers], dtype=torch.int64, device=device)
    signal_ptrs = torch.tensor(
        [s.data_ptr() for s in signal_pads], dtype=torch.int64, device=device
    )
    world = len(buffers)
    programs = programs_for(min(s.numel() * s.element_size() for s in signal_pads), world)
    return Workspace(
        buffers[rank], buffer_ptrs, signal_ptrs, rank, world, programs, (buffers, signal_pads)
    )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"all_reduce: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"all_reduce: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"all_reduce: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"all_reduce: {name} must be a dense tensor, got {got}")
    if not t.is_contiguous():
        raise ValueError(f"all_reduce: {name} must be contiguous (call .contiguous() first)")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"all_reduce: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}")
    if t.requires_grad and torch.is_grad_enabled():
        raise ValueError(
            f"all_reduce: {name} requires grad, but this kernel has no backward; "
            f"call it under torch.no_grad() or pass {name}.detach()"
        )
    if _FORWARD_AD._current_level >= 0 and _FORWARD_AD.unpack_dual(t).tangent is not None:
        raise ValueError(f"all_reduce: {name} is a dual tensor (forward-mode AD); pass the primal")


def all_reduce(x: torch.Tensor, ws: Workspace, out: torch.Tensor | None = None) -> torch.Tensor:
    """The sum of ``x`` over every rank of workspace ``ws``, computed by
    ``one_shot_all_reduce_kernel`` (float32 sums in rank order, rounded once to the dtype:
    every rank gets the same bits). A collective: every rank calls it, in the same order,
    with ``x`` of the same shape and dtype.

    ``x``: a contiguous dense float32 or bfloat16 tensor (0-d and empty included) on the
    workspace's device, of at most ``ws.nbytes`` bytes, not requiring grad under grad mode
    nor dual. ``out``, if given, receives the result: same shape, dtype and device as
    ``x``, contiguous, ``x`` itself or sharing no memory with it or the buffer; its
    version counter is bumped. Raises ``TypeError``/``ValueError`` naming the argument
    instead of launching on anything else (a refusal on one rank leaves the others
    waiting in the kernel: check on every rank alike).
    """
    if not isinstance(ws, Workspace):
        raise TypeError(f"all_reduce: ws must be a Workspace, got {type(ws).__name__}")
    _check_tensor("x", x)
    if x.is_neg():
        x = x.resolve_neg()
    device = x.get_device()
    if ws.buffer.get_device() != device:
        raise ValueError(
            f"all_reduce: x is on {x.device}, but the workspace is on {ws.buffer.device}"
        )
    if x.nbytes > ws.nbytes:
        raise ValueError(
            f"all_reduce: x has {x.nbytes} bytes, more than the workspace's buffer holds "
            f"({ws.nbytes}); allocate a larger workspace"
        )
    buffer_start, buffer_end = ws.buffer.data_ptr(), ws.buffer.data_ptr() + ws.nbytes
    if x.numel() and x.data_ptr() < buffer_end and buffer_start < x.data_ptr() + x.nbytes:
        raise ValueError("all_reduce: x lies in the workspace's buffer; pass a tensor of its own")
    if out is None:
        out = torch.empty_like(x)
    else:
        _check_tensor("out", out)
        if out.dtype != x.dtype:
            raise TypeError(f"all_reduce: out has dtype {out.dtype}, but x has {x.dtype}")
        if out.shape != x.shape or out.get_device() != device:
            raise ValueError(
                "all_reduce: out must match x in shape and device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        if out.is_neg():
            raise ValueError("all_reduce: out is a view with the negative bit; pass a plain one")
        start = out.data_ptr()
        if 0 < abs(x.data_ptr() - start) < out.nbytes:
            raise ValueError("all_reduce: out partially overlaps x")
        if out.numel() and start < buffer_end and buffer_start < start + out.nbytes:
            raise ValueError("all_reduce: out lies in the workspace's buffer")
        torch.autograd.graph.increment_version(out)
    if x.numel() == 0:
        return out  # nothing to send: every rank returns at once, no barrier needed
    if device < 0 or device == torch.cuda.current_device():
        return launch(x, ws, out)
    with torch.cuda.device(device):
        return launch(x, ws, out)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(tensors: list) -> torch.Tensor:
    """The all-reduce of ``tensors`` (one per rank) computed locally by torch: the float64
    sum, rounded once to their dtype."""
    total = torch.zeros_like(tensors[0], dtype=torch.float64)
    for t in tensors:
        total += t.double()
    return total.to(tensors[0].dtype)


# --8<-- [end:reference]
