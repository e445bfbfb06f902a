"""Fused activation: ``out = gelu(x + bias) * mask`` over a 2-D tensor, in one pass.

The epilogue of lesson 01 (after a matmul: add the bias, apply GELU, multiply by a
dropout-style keep mask) as one kernel. Each program owns a ``BLOCK_M x BLOCK_N`` tile of
``x``: it loads the tile, one row of ``bias`` (broadcast down the tile's rows) and, if
given, the matching tile of ``mask``; computes in float32; and stores the tile of ``out``
once. Eager PyTorch runs the same chain as three kernels, each a round trip through HBM.
GELU comes exact (with ``erf``) or as the tanh approximation, as in
``torch.nn.functional.gelu(..., approximate=...)``. Lesson 08 walks through this file.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# fmt: off
# --8<-- [start:kernel]
@triton.jit
def dropout_keep(seed, p, rows, cols, N):
    # Dropout's keep mask for a tile, made here instead of read from memory: one random
    # number in [0, 1) per element (Philox, from the seed and the element's place in the
    # (M, N) tensor), kept where it is at least p, i.e. with probability 1 - p. The place
    # is row * N + col, whatever the tile shape or grid, so a seed gives the same mask
    # every time; int64 (rows are), since it passes 2**31 in large tensors.
    offsets = rows[:, None] * N + cols[None, :]
    return tl.rand(seed, offsets) >= p


# A seed changes every step: not specialising on its value saves a compile per new seed.
@triton.jit(do_not_specialize=["seed"])
def bias_gelu_mask_kernel(
    x_ptr, bias_ptr, mask_ptr, out_ptr,
    M, N,
    stride_xm, stride_xn, stride_b, stride_mm, stride_mn, stride_om, stride_on,
    seed, p,  # in-kernel dropout (DROPOUT): drop with probability p, from this seed
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    TANH: tl.constexpr, HAS_MASK: tl.constexpr, DROPOUT: tl.constexpr,
):
    # Which tile do I own? A 1-D grid, unpacked into (row tile, column tile): axis 0 may
    # hold 2**31 - 1 programs, axes 1 and 2 only 65,535, too few for tall tensors.
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    # int64: row * stride_xm passes 2**31 once x holds more than 2**31 elements.
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    # Edge tiles stick out past row M or column N; the mask switches those elements off.
    in_cols = cols < N
    inside = (rows < M)[:, None] & in_cols[None, :]

    x_ptrs = x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn
    x = tl.load(x_ptrs, mask=inside)
    # One row of bias serves all BLOCK_M rows of the tile: [BLOCK_N] -> [1, BLOCK_N].
    b = tl.load(bias_ptr + cols * stride_b, mask=in_cols)
    # float32 from here to the store: one rounding at the end, and no bf16 arithmetic
    # (which the CPU interpreter does on raw bit patterns and gets wrong).
    v = x.to(tl.float32) + b.to(tl.float32)[None, :]
    if TANH:
        # 0.5 * v * (1 + tanh(u)) = v * sigmoid(2u). tl has no tanh, and libdevice's
        # (triton.language.extra) does not run under the CPU interpreter; exp(+2|u|)
        # overflows, but exp(-2|u|) lies in (0, 1] and never does.
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2/pi) * (v + 0.044715 v^3)
        z = tl.exp(-2.0 * tl.abs(u))
        y = v * tl.where(u >= 0, 1.0, z) / (1.0 + z)
    else:
        y = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))  # erf(v / sqrt(2))
    if HAS_MASK:  # a compile-time branch: without a mask, no mask bytes are read
        keep_ptrs = mask_ptr + rows[:, None] * stride_mm + cols[None, :] * stride_mn
        keep = tl.load(keep_ptrs, mask=inside)
        y = y * keep.to(tl.float32)
    if DROPOUT:  # the keep mask from a seed: no mask bytes at all; kept values * 1/(1-p)
        keep = dropout_keep(seed, p, rows, cols, N)
        y = y * tl.where(keep, 1.0 / (1.0 - p), 0.0)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=inside)


@triton.jit(do_not_specialize=["seed"])
def dropout_mask_kernel(keep_ptr, M, N, seed, p, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The keep mask alone (1 kept, 0 dropped) into a contiguous (M, N) tensor, exactly as
    # bias_gelu_mask_kernel makes it from the same seed and p: what a backward pass would
    # make again rather than store, and what the tests compare the fused kernel with.
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rows = (pid // tiles_n).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows < M)[:, None] & (cols < N)[None, :]
    keep = dropout_keep(seed, p, rows, cols, N)
    tl.store(keep_ptr + rows[:, None] * N + cols[None, :], keep.to(tl.int8), mask=inside)


# --8<-- [end:kernel]
# fmt: on


# --8<-- [start:launch]
def plan(m: int, n: int, itemsize: int = 2) -> tuple[int, int]:
    """The tile ``(block_m, block_n)`` for an (m, n) input of ``itemsize``-byte elements
    (2 when left out) when the caller picks none: up to 4 KiB of a row (2,048 bf16 or
    fp16 columns, 1,024 fp32), so each of the 128 threads of 4 warps holds 32 bytes of
    each row it covers, and about 2,048 elements. A row of bias loaded once serves the
    whole tile."""
    widest = min(4096 // itemsize, 2048)
    block_n = min(1 << max(n - 1, 0).bit_length(), widest)  # next power of two >= n
    block_m = min(max(2048 // block_n, 1), 1 << max(m - 1, 0).bit_length())
    return block_m, block_n


def launch(x, bias, mask=None, out=None, *, approximate="none", p=0.0, seed=None,
           block_m=None, block_n=None, num_warps=4):  # fmt: skip
    """``out = gelu(x + bias) * mask`` for a 2-D ``x``, a 1-D ``bias`` and a ``mask`` (None
    or shaped like ``x``) of one dtype on the current device; no checks. With a ``seed``
    (and no mask), dropout instead: each element dropped with probability ``p``, from a
    keep mask the kernel makes from the seed, and the kept ones scaled by 1 / (1 - p)."""
    M, N = x.shape
    if block_m is None or block_n is None:  # plan() picks what the caller left out
        auto_m, auto_n = plan(M, N, x.element_size())
        block_m = auto_m if block_m is None else block_m
        block_n = auto_n if block_n is None else block_n
    if out is None:
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    # One program per tile, on a 1-D grid that the kernel unpacks into (row, column) tiles.
    programs = ((M + block_m - 1) // block_m) * ((N + block_n - 1) // block_n)
    # Without a mask the kernel never touches mask_ptr (HAS_MASK is a compile-time branch);
    # x stands in for it so that every pointer argument is a real tensor.
    keep = x if mask is None else mask
    bias_gelu_mask_kernel[(programs,)](
        x, bias, keep, out, M, N,
        *x.stride(), *bias.stride(), *keep.stride(), *out.stride(),
        0 if seed is None else seed, float(p),
        BLOCK_M=block_m, BLOCK_N=block_n,
        TANH=approximate == "tanh", HAS_MASK=mask is not None, DROPOUT=seed is not None,
        num_warps=num_warps,
    )  # fmt: skip
    return out


def launch_dropout_mask(m, n, p, seed, device, *, block_m=None, block_n=None):
    """The keep mask (True where kept) that ``launch(..., p=p, seed=seed)`` applies to an
    (m, n) input: a new bool tensor on ``device`` (the current CUDA device, or the CPU
    under the interpreter); no checks."""
    keep = torch.empty((m, n), dtype=torch.int8, device=device)
    if m and n:
        auto_m, auto_n = plan(m, n)  # a 16-bit input's tile: any tile makes the same mask
        block_m, block_n = block_m or auto_m, block_n or auto_n
        programs = ((m + block_m - 1) // block_m) * ((n + block_n - 1) // block_n)
        dropout_mask_kernel[(programs,)](keep, m, n, seed, float(p), BLOCK_M=block_m,
                                         BLOCK_N=block_n)  # fmt: skip
    return keep.view(torch.bool)


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
APPROXIMATIONS = ("none", "tanh")  # as in torch.nn.functional.gelu
MAX_BLOCK_M, MAX_BLOCK_N = 1024, 16384  # powers of two, from 1
MAX_TILE = 65536  # block_m * block_n
MAX_NUM_WARPS = 32
# Elements each thread holds: block_m * block_n // (32 * num_warps). Vector add's compile
# time reached 2-3 s at 512 (triton 3.6); GELU is tens of instructions per element where
# an add is one, so this cap is a quarter of that (a conservative choice, not a measurement).
MAX_PER_THREAD = 128
MAX_PROGRAMS = 2**31 - 1  # the most programs a 1-D grid can launch
MAX_P = 1 - 2**-24  # the largest dropout probability below 1 in float32

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


# The name plan() had before: callers that used it keep working.
default_blocks = plan


def _check_knobs(block_m: object, block_n: object, num_warps: object) -> None:
    for name, value, top in (
        ("block_m", block_m, MAX_BLOCK_M),
        ("block_n", block_n, MAX_BLOCK_N),
        ("num_warps", num_warps, MAX_NUM_WARPS),
    ):
        # Exactly int: True passes as 1 and 64.0 equals 64, but neither is a tile size.
        if type(value) is not int:
            raise TypeError(f"bias_gelu_mask: {name} must be an int, got {type(value).__name__}")
        if not (1 <= value <= top and value & (value - 1) == 0):
            raise ValueError(
                f"bias_gelu_mask: {name} must be a power of two in [1, {top}], got {value}"
            )
    if block_m * block_n > MAX_TILE:
        raise ValueError(
            f"bias_gelu_mask: block_m * block_n = {block_m * block_n} is more than {MAX_TILE}"
        )
    per_thread = block_m * block_n // (32 * num_warps)
    if per_thread > MAX_PER_THREAD:
        raise ValueError(
            f"bias_gelu_mask: block_m={block_m}, block_n={block_n} with num_warps={num_warps} "
            f"gives each thread {per_thread} elements, more than {MAX_PER_THREAD}; long "
            "compiles lie that way. Use a smaller tile or more warps"
        )


def _check_dropout(p: object, seed: object, mask: object) -> None:
    # p: a probability that leaves something to keep (p = 1 would scale by 1 / 0).
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"bias_gelu_mask: p must be a float, got {type(p).__name__}")
    # The kernel compares with p in float32, where anything above 1 - 2**-24 rounds to 1
    # and would drop every element. (NaN fails this too.)
    if not 0 <= p <= MAX_P:
        raise ValueError(f"bias_gelu_mask: p must be in [0, 1) (at most 1 - 2**-24), got {p}")
    if seed is None:
        if p:
            raise ValueError(f"bias_gelu_mask: p = {p} needs a seed (seed=None drops nothing)")
        return
    # Exactly int, as Philox takes it: 64 bits, unsigned.
    if type(seed) is not int:
        raise TypeError(f"bias_gelu_mask: seed must be an int or None, got {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"bias_gelu_mask: seed must be in [0, 2**64), got {seed}")
    if mask is not None:
        raise ValueError(
            "bias_gelu_mask: mask and seed are two ways to drop elements; pass one of them"
        )


def _check_tensor(name: str, t: object, ndim: int) -> None:
    # What the kernel needs to read t as a strided grid of numbers in device memory.
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"bias_gelu_mask: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"bias_gelu_mask: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"bias_gelu_mask: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"bias_gelu_mask: {name} must be a dense tensor, got {got}")
    if t.dim() != ndim:
        raise ValueError(f"bias_gelu_mask: {name} must be {ndim}-D, got shape {tuple(t.shape)}")
    # (The conj bit exists only on complex tensors, which this check refuses.)
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"bias_gelu_mask: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}"
        )


def _check_not_dual(tensors: dict) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    for name, t in tensors.items():
        if t is not None and _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"bias_gelu_mask: {name} is a dual tensor (forward-mode AD), but this kernel "
                f"computes no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )


def _span(t: torch.Tensor) -> tuple[int, int]:
    """[first byte, one past the last byte] that a non-empty strided tensor can touch."""
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _check_overlap(out: torch.Tensor, inputs: dict) -> None:
    # Judge by address ranges, not by storage: DLPack or from_blob can alias memory
    # through another storage, and one storage can hold tensors that do not touch.
    # (Ranges are conservative: two interleaved views that share no byte are refused too.)
    lo, hi = _span(out)
    for name, t in inputs.items():
        if t is None or t.numel() == 0:
            continue
        # out is x (or mask) itself, element for element: an in-place call. Each element
        # is read by the program that then writes it, so no program sees another's write.
        if name != "bias" and t.data_ptr() == lo and t.stride() == out.stride():
            continue
        t_lo, t_hi = _span(t)
        if t_lo < hi and lo < t_hi:
            raise ValueError(f"bias_gelu_mask: out overlaps {name} in memory")


def bias_gelu_mask(
    x: torch.Tensor,
    bias: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    approximate: str = "none",
    p: float = 0.0,
    seed: int | None = None,
    out: torch.Tensor | None = None,
    block_m: int | None = None,
    block_n: int | None = None,
    num_warps: int = 4,
) -> torch.Tensor:
    """Return ``gelu(x + bias) * mask`` (or ``gelu(x + bias)``, or with ``seed`` dropout
    of ``gelu(x + bias)``) from one kernel launch.

    ``x``: a 2-D (M, N) tensor, float32, float16 or bfloat16, any strides (a row slice
    of a wider buffer, a transposed view, a broadcast). ``bias``: 1-D (N,), added to every
    row. ``mask``: None or (M, N), multiplied in elementwise: a 0/1 mask, or a dropout
    keep mask already scaled (0 or 1/(1-p)). All of one dtype, on one CUDA device (which
    need not be the current one), none nested; views with the negative bit are read as
    their values. ``approximate``: ``"none"`` for the exact GELU, 0.5 v (1 + erf(v/sqrt
    2)), or ``"tanh"`` for 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), as in
    ``torch.nn.functional.gelu``. The arithmetic is float32, rounded once to the dtype.

    ``seed`` (an int in [0, 2**64), instead of a ``mask``) turns on dropout made in the
    kernel: each element is dropped (0) with probability ``p`` (a float in [0, 1), at most
    1 - 2**-24, the largest float32 below 1) and kept ones are scaled by 1 / (1 - p). The
    keep mask comes from ``tl.rand`` on the seed and each element's place
    ``row * N + col``, so a seed gives the same mask on any tile and warp count;
    ``launch_dropout_mask`` makes it alone. No mask is read or stored. p = 0 keeps
    everything, and without a seed p must be 0.

    There is no backward and no tangent: no input may require grad while grad mode is on,
    nor be a dual tensor of forward-mode AD. ``out``, if given, receives the result: same
    shape, dtype and device as ``x``, elements that do not overlap each other (column
    stride 1 and row stride at least N, e.g. a column slice of a wider buffer), not
    requiring grad under grad mode nor dual, and either ``x`` or ``mask`` itself (in
    place) or sharing no bytes with any input. Its version counter is bumped, as torch's
    ``out=`` ops do. ``block_m`` x ``block_n`` is each program's tile (powers of two, at
    most 1024 x 16384 and 65536 elements; None picks ``plan``) and ``num_warps`` (a power
    of two in [1, 32]) its warps; together they may give each thread at most 128
    elements. M or N may be 0 (nothing is launched). Raises
    ``TypeError``/``ValueError`` naming the argument instead of launching on anything else.
    """
    if type(approximate) is not str:
        raise TypeError(
            f"bias_gelu_mask: approximate must be a str, got {type(approximate).__name__}"
        )
    if approximate not in APPROXIMATIONS:
        raise ValueError(
            f"bias_gelu_mask: approximate must be 'none' or 'tanh', got {approximate!r}"
        )
    _check_dropout(p, seed, mask)
    _check_tensor("x", x, ndim=2)
    _check_tensor("bias", bias, ndim=1)
    M, N = x.shape
    if block_m is None or block_n is None:
        auto_m, auto_n = plan(M, N, x.element_size())
        block_m = auto_m if block_m is None else block_m
        block_n = auto_n if block_n is None else block_n
    _check_knobs(block_m, block_n, num_warps)
    device = x.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    named = {"x": x, "bias": bias, "mask": mask}
    if bias.shape != (N,):
        raise ValueError(f"bias_gelu_mask: bias must have shape ({N},), got {tuple(bias.shape)}")
    if mask is not None:
        _check_tensor("mask", mask, ndim=2)
        if mask.shape != x.shape:
            raise ValueError(
                f"bias_gelu_mask: mask has shape {tuple(mask.shape)}, but x has {tuple(x.shape)}"
            )
    for name, t in named.items():
        if t is None:
            continue
        if t.dtype != x.dtype:
            raise TypeError(f"bias_gelu_mask: {name} has dtype {t.dtype}, but x has {x.dtype}")
        if t.get_device() != device:
            raise ValueError(f"bias_gelu_mask: {name} is on {t.device}, but x is on {x.device}")
        if t.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                f"bias_gelu_mask: {name} requires grad, but this kernel has no backward; "
                f"call it under torch.no_grad() or pass {name}.detach()"
            )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual(named)
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first.
    x, bias = x.resolve_neg(), bias.resolve_neg()
    if mask is not None:
        mask = mask.resolve_neg()

    if out is None:
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    else:
        _check_tensor("out", out, ndim=2)
        if out.dtype != x.dtype:
            raise TypeError(f"bias_gelu_mask: out has dtype {out.dtype}, but x has {x.dtype}")
        if out.shape != x.shape or out.get_device() != device:
            raise ValueError(
                "bias_gelu_mask: out must match x in shape and device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        # Two programs writing one element is a race: out's elements must not overlap.
        if (N > 1 and out.stride(1) != 1) or (M > 1 and out.stride(0) < N):
            raise ValueError(
                "bias_gelu_mask: out must have column stride 1 and row stride at least N, "
                f"got strides {out.stride()}"
            )
        if out.is_neg():
            raise ValueError(
                "bias_gelu_mask: out is a view with the negative bit; pass a plain one"
            )
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "bias_gelu_mask: out requires grad, and a write into it cannot be "
                "differentiated; call it under torch.no_grad() or leave out=None"
            )
        if out.numel():
            _check_overlap(out, {"x": x, "bias": bias, "mask": mask})
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual({"out": out})
        # As torch's out= ops do: tensors saved for a backward that alias out now fail there
        # ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)

    if M == 0 or N == 0:
        return out
    programs = ((M + block_m - 1) // block_m) * ((N + block_n - 1) // block_n)
    if programs > MAX_PROGRAMS:
        raise ValueError(f"bias_gelu_mask: {M}x{N} needs {programs} programs; raise block_m")
    # Triton launches on the current device; if x is on another GPU, switch for the launch.
    # (Device -1 is the CPU, under the interpreter: nothing to switch.)
    if device < 0 or device == torch.cuda.current_device():
        return launch(
            x, bias, mask, out, approximate=approximate, p=p, seed=seed,
            block_m=block_m, block_n=block_n, num_warps=num_warps,
        )  # fmt: skip
    with torch.cuda.device(device):
        return launch(
            x, bias, mask, out, approximate=approximate, p=p, seed=seed,
            block_m=block_m, block_n=block_n, num_warps=num_warps,
        )  # fmt: skip


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(
    x: torch.Tensor,
    bias: torch.Tensor,
    mask: torch.Tensor | None = None,
    approximate: str = "none",
) -> torch.Tensor:
    """``gelu(x + bias) * mask`` in float64 from the same inputs, rounded once to x's dtype."""
    v = x.double() + bias.double()
    if approximate == "tanh":
        # 0.5 v (1 + tanh(u)) written as v * sigmoid(2u): the same number, without the
        # cancellation in 1 + tanh(u) when tanh(u) is close to -1.
        u = 0.7978845608028654 * (v + 0.044715 * v**3)
        y = v * torch.sigmoid(2 * u)
    else:
        # 0.5 v (1 + erf(v / sqrt 2)) written with erfc(t) = 1 - erf(t), for the same reason.
        y = 0.5 * v * torch.special.erfc(-v * 0.7071067811865476)
    if mask is not None:
        y = y * mask.double()
    return y.to(x.dtype)


# --8<-- [end:reference]
