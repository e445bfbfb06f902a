"""Vector add: ``out = x + y`` for two tensors of the same shape.

The smallest complete Triton kernel: each program owns one tile of ``BLOCK``
consecutive elements, loads it from both inputs, adds, and stores it back. The
grid repeats that until every element is covered. Lesson 07 of the book walks
through this file; lesson 04 sweeps its ``BLOCK`` and ``num_warps``.

The file has the sections every kernel file of the book has: ``kernel`` (the
``@triton.jit`` code), ``launch`` (the few lines of host code that allocate the output,
compute the grid and launch: what to copy), ``checks`` (the public ``vector_add``, which
refuses every input the kernel cannot handle, by name, then calls ``launch``) and
``reference`` (torch alone, for the tests and benchmarks). Two more, ``controls`` and
``controls_reference``, hold the kernels lesson 07 measures the add against: a fill that
only writes and a read that (almost) only reads, tiled exactly like the add.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # Which tile do I own? Program i covers elements [i*BLOCK, (i+1)*BLOCK).
    pid = tl.program_id(axis=0)
    # int64: with more than 2**31 elements, pid * BLOCK would wrap in int32.
    tile_start = pid.to(tl.int64) * BLOCK
    offsets = tile_start + tl.arange(0, BLOCK)
    # The last tile may stick out past the end; the mask switches those elements off.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    # Add in float32 and round once, at the store: for fp16 and bf16 that gives the
    # correctly rounded sum, the bits torch.add gives. (It also keeps bf16 arithmetic off
    # the CPU interpreter, which does it on raw bit patterns and gets it wrong; the
    # interpreter's fp32 -> bf16 conversion truncates instead of rounding, though.)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:launch]
def launch(x, y, out=None, *, block: int = 1024, num_warps: int = 4):
    """``out = x + y`` for contiguous tensors of one shape, dtype and device; no checks."""
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    grid = ((n + block - 1) // block,)  # enough programs to cover every element
    add_kernel[grid](x, y, out, n, BLOCK=block, num_warps=num_warps)
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
MIN_BLOCK, MAX_BLOCK = 4, 65536  # elements per program; a power of two
MAX_NUM_WARPS = 32  # a power of two; 32 warps of 32 threads is the most one program may use
# Compile time grows with the elements each thread holds, block // (32 * num_warps): at 512
# it took 2-3 s (triton 3.6), at 2048 (block 65536 on one warp) over six minutes.
MAX_PER_THREAD = 512
MAX_PROGRAMS = 2**31 - 1  # the most programs a 1-D grid can launch

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(), so the wrapper asks whether one is open first: one
# attribute read (the one unpack_dual makes itself) when none is.
_FORWARD_AD = torch.autograd.forward_ad


def _check_knobs(block: object, num_warps: object) -> None:
    for name, value in (("block", block), ("num_warps", num_warps)):
        # Exactly int: True passes as 1 and 1024.0 equals 1024, but neither is a tile size.
        if type(value) is not int:
            raise TypeError(f"vector_add: {name} must be an int, got {type(value).__name__}")
    if not (MIN_BLOCK <= block <= MAX_BLOCK and block & (block - 1) == 0):
        raise ValueError(
            f"vector_add: block must be a power of two in [{MIN_BLOCK}, {MAX_BLOCK}], got {block}"
        )
    if not (1 <= num_warps <= MAX_NUM_WARPS and num_warps & (num_warps - 1) == 0):
        raise ValueError(
            f"vector_add: num_warps must be a power of two in [1, {MAX_NUM_WARPS}], got {num_warps}"
        )
    if block // (32 * num_warps) > MAX_PER_THREAD:
        raise ValueError(
            f"vector_add: block={block} with num_warps={num_warps} gives each thread "
            f"{block // (32 * num_warps)} elements, more than {MAX_PER_THREAD}; that takes "
            "the compiler minutes. Lower block or raise num_warps"
        )


def _check_tensor(name: str, t: object) -> None:
    # What the kernel needs to treat t as one flat run of elements in device memory.
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"vector_add: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"vector_add: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"vector_add: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"vector_add: {name} must be a dense tensor, got {got}")
    if not t.is_contiguous():
        raise ValueError(f"vector_add: {name} must be contiguous (call .contiguous() first)")


def _check_not_dual(**tensors: torch.Tensor) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    for name, t in tensors.items():
        if _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"vector_add: {name} is a dual tensor (forward-mode AD), but this kernel "
                f"computes no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )


def _check_overlap(out: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> None:
    # Judge by address ranges [data_ptr, data_ptr + nbytes), not by storage: DLPack or
    # from_blob can alias memory through another storage, and one storage can hold
    # tensors that do not touch. All three have the same nbytes, so two of them share a
    # byte exactly when their starts are less than nbytes apart.
    nbytes, start = out.nbytes, out.data_ptr()
    for name, t in (("x", x), ("y", y)):
        # Equal starts: out is t, an in-place add. Each element is read before it is
        # written, by the same program. Any other shared byte is a race between programs.
        if 0 < abs(t.data_ptr() - start) < nbytes:
            raise ValueError(f"vector_add: out partially overlaps {name}")


def vector_add(
    x: torch.Tensor,
    y: torch.Tensor,
    out: torch.Tensor | None = None,
    *,
    block: int = 1024,
    num_warps: int = 4,
) -> torch.Tensor:
    """Return ``x + y`` computed by ``add_kernel``, correctly rounded to the dtype.

    ``x`` and ``y``: contiguous dense tensors (not nested) of the same shape (0-d and
    empty included), dtype (float32, float16 or bfloat16) and CUDA device, which need not
    be the current one. Views with the negative bit are read as their values. Neither may
    require grad while grad mode is on, nor be a dual tensor of forward-mode AD: there is
    no backward and no tangent. ``out``, if given, receives the result; it must match
    ``x`` in shape, dtype and device, be contiguous, not require grad (under grad mode)
    nor be dual, and either be ``x`` or ``y`` itself (an in-place add) or share no memory
    with them. Its version counter is bumped, as torch's ``out=`` ops do. ``block``
    (elements per program, a power of two in [4, 65536]) and ``num_warps`` (a power of two
    in [1, 32]) are the knobs lesson 04 sweeps; together they may give each thread at most
    512 elements. Raises ``TypeError``/``ValueError`` naming the argument instead of
    launching on anything else.
    """
    _check_knobs(block, num_warps)
    _check_tensor("x", x)
    _check_tensor("y", y)
    # (The conj bit exists only on complex tensors, which this check refuses.)
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"vector_add: x has dtype {x.dtype}; supported: {SUPPORTED_DTYPES}")
    if y.dtype != x.dtype:
        raise TypeError(f"vector_add: y has dtype {y.dtype}, but x has {x.dtype}")
    if y.shape != x.shape:
        raise ValueError(f"vector_add: y has shape {tuple(y.shape)}, but x has {tuple(x.shape)}")
    device = x.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if y.get_device() != device:
        raise ValueError(f"vector_add: y is on {y.device}, but x is on {x.device}")
    if (x.requires_grad or y.requires_grad) and torch.is_grad_enabled():
        name = "x" if x.requires_grad else "y"
        raise ValueError(
            f"vector_add: {name} requires grad, but this kernel has no backward; "
            f"call it under torch.no_grad() or pass {name}.detach()"
        )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual(x=x, y=y)
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first.
    if x.is_neg():
        x = x.resolve_neg()
    if y.is_neg():
        y = y.resolve_neg()

    if out is None:
        out = torch.empty_like(x)
    else:
        _check_tensor("out", out)
        if out.dtype != x.dtype:
            raise TypeError(f"vector_add: out has dtype {out.dtype}, but x has {x.dtype}")
        if out.shape != x.shape or out.get_device() != device:
            raise ValueError(
                "vector_add: out must match x in shape and device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        if out.is_neg():
            raise ValueError("vector_add: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "vector_add: out requires grad, and a write into it cannot be differentiated; "
                "call it under torch.no_grad() or leave out=None"
            )
        _check_overlap(out, x, y)
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual(out=out)
        # As torch's out= ops do: tensors saved for a backward that alias out now fail there
        # ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)

    n = x.numel()
    if n == 0:
        return out
    programs = (n + block - 1) // block
    if programs > MAX_PROGRAMS:
        raise ValueError(f"vector_add: {n} elements need {programs} programs; raise block")
    # Triton launches on the current device; if x is on another GPU, switch for the launch.
    # (Device -1 is the CPU, under the interpreter: nothing to switch.)
    if device < 0 or device == torch.cuda.current_device():
        return launch(x, y, out, block=block, num_warps=num_warps)
    with torch.cuda.device(device):
        return launch(x, y, out, block=block, num_warps=num_warps)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``x + y`` correctly rounded to ``x``'s dtype, computed by torch alone."""
    # Exact inputs, a float64 sum, one rounding to the dtype. Rounding twice (to float64,
    # then to the dtype) cannot differ from rounding the exact sum once, because float64
    # has 53 significand bits, at least 2p + 2 for fp32 (p = 24), fp16 (11) and bf16 (8).
    return (x.double() + y.double()).to(x.dtype)


# --8<-- [end:reference]


# --8<-- [start:controls]
@triton.jit
def fill_kernel(out_ptr, value, n_elements, BLOCK: tl.constexpr):
    # Write-only: the add's tiles and mask, no loads; every element gets ``value``.
    offsets = tl.program_id(axis=0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tile = tl.zeros((BLOCK,), dtype=tl.float32) + value  # a tile of value, in registers
    tl.store(out_ptr + offsets, tile.to(out_ptr.dtype.element_ty), mask=offsets < n_elements)


@triton.jit
def read_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # Read-only, nearly: the add's tiles and mask, one load, and each program keeps one
    # number, the maximum of its tile (a load whose value is never used would be removed
    # by the compiler). Writes are 4 bytes per BLOCK elements read.
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=float("-inf"))
    tl.store(out_ptr + pid, tl.max(x.to(tl.float32), axis=0))


def launch_fill(out, value, *, block: int = 1024, num_warps: int = 4):
    """Fill contiguous ``out`` with ``value`` (a float); no checks."""
    n = out.numel()
    fill_kernel[((n + block - 1) // block,)](out, value, n, BLOCK=block, num_warps=num_warps)
    return out


def launch_read(x, out=None, *, block: int = 1024, num_warps: int = 4):
    """The maximum of each ``block`` consecutive elements of contiguous ``x``, as float32
    (one per program); no checks."""
    n = x.numel()
    programs = (n + block - 1) // block
    if out is None:
        out = torch.empty(programs, dtype=torch.float32, device=x.device)
    read_kernel[(programs,)](x, out, n, BLOCK=block, num_warps=num_warps)
    return out


# --8<-- [end:controls]


# --8<-- [start:controls_reference]
def reference_fill(out: torch.Tensor, value: float) -> torch.Tensor:
    """What ``launch_fill(out, value)`` leaves in ``out``: ``value`` rounded to its dtype."""
    return torch.full_like(out, value)


def reference_read(x: torch.Tensor, block: int = 1024) -> torch.Tensor:
    """What ``launch_read(x, block=block)`` returns: the maximum of each tile, float32."""
    flat = x.reshape(-1).float()
    pad = (-flat.numel()) % block
    flat = torch.cat([flat, flat.new_full((pad,), float("-inf"))])
    return flat.view(-1, block).amax(dim=1)


# --8<-- [end:controls_reference]
