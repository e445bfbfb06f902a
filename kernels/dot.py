"""A tile matmul whose input precision is a knob: ``out = a @ b`` for 2-D ``a`` (M, K)
and ``b`` (K, N), accumulated in float32 by ``tl.dot``.

One program owns one BLOCK_M x BLOCK_N tile of the output and walks along K. The inputs
decide what the hardware multiplies: float32 with ``input_precision="ieee"`` (plain fp32
multiply-adds), ``"tf32"`` (inputs cut to TF32 for the tensor cores: truncated, not
rounded, in Triton 3.6) or ``"tf32x3"`` (three TF32 products that recover most of fp32's
accuracy); float16; bfloat16; and float8_e4m3fn (8-bit floats, GPUs of compute
capability 8.9 or newer). Lesson 05 of the
book walks through this file, starting from ``tile_dot_kernel`` (one tile, no loop);
lesson 09's kernels/matmul.py adds program order and autotuning to the same loop.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:minimal]
@triton.jit
def tile_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # One program, one tile: c = a @ b for contiguous a (M, K), b (K, N), c (M, N).
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])  # an (M, K) tile of pointers
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])  # a (K, N) tile
    c = tl.dot(a, b)  # (M, N), summed in float32
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], c)


# --8<-- [end:minimal]


# --8<-- [start:kernel]
@triton.jit
def dot_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,  # element strides: transposed views need no copy
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    INPUT_PRECISION: tl.constexpr,  # float32 tiles: "ieee", "tf32" or "tf32x3"; else None
    UPCAST: tl.constexpr,  # only for the CPU interpreter, see below
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # This program's output tile: rows pid_m * BLOCK_M.., columns pid_n * BLOCK_N...
    # Every index that gets multiplied by a stride is int64: a row index times a row
    # stride, or a k index times a transposed a's column stride, can pass 2**31.
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)  # int32: only compared with K in the loop
    k64 = offs_k.to(tl.int64)
    mask_m = offs_m < M  # the last tile row and column may stick out of the matrix
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + k64[None, :] * stride_ak
    b_ptrs = b_ptr + k64[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        # The last K step may be ragged: what lies past K loads as 0 and adds nothing.
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        if UPCAST:
            # The interpreter multiplies bf16 as raw bit patterns; there, go through fp32.
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        # (BLOCK_M, BLOCK_K) @ (BLOCK_K, BLOCK_N), added into the float32 accumulator.
        # (fp8 on Hopper: the tensor cores keep the running sum in fewer bits; see dot.)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        # int64 steps: BLOCK_K rows of a transposed a can be more than 2**31 elements.
        a_ptrs += tl.cast(stride_ak, tl.int64) * BLOCK_K
        b_ptrs += tl.cast(stride_bk, tl.int64) * BLOCK_K

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


# --8<-- [end:kernel]


# --8<-- [start:launch]
# Input dtype -> output dtype. The accumulator is float32 and the result is rounded from
# it once; float8 results come back as bfloat16, as fp8 matmuls commonly hand them on.
OUT_DTYPE = {
    torch.float32: torch.float32,
    torch.float16: torch.float16,
    torch.bfloat16: torch.bfloat16,
    torch.float8_e4m3fn: torch.bfloat16,
}
# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


def launch(a, b, out=None, *, input_precision=None, block_m=64, block_n=64, block_k=32,
           num_warps=4, num_stages=3):  # fmt: skip
    """``out = a @ b`` for 2-D ``a`` (M, K) and ``b`` (K, N) of one dtype on the current
    device, into ``out`` (new if None); no checks. ``input_precision`` None is tl.dot's
    default (tf32 for float32 inputs)."""
    (M, K), N = a.shape, b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=OUT_DTYPE[a.dtype], device=a.device)
    grid = ((M + block_m - 1) // block_m, (N + block_n - 1) // block_n)  # a program per tile
    dot_kernel[grid](
        a, b, out, M, N, K, *a.stride(), *b.stride(), *out.stride(),
        INPUT_PRECISION=input_precision,
        UPCAST=_INTERPRET and a.dtype == torch.bfloat16,  # see the kernel
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
FP32_PRECISIONS = ("ieee", "tf32", "tf32x3")  # what tl.dot offers for float32 tiles
# The precision classes lesson 05 compares: name -> (input dtype, input_precision).
PRECISIONS = {
    "ieee": (torch.float32, "ieee"),
    "tf32": (torch.float32, "tf32"),
    "tf32x3": (torch.float32, "tf32x3"),
    "fp16": (torch.float16, None),
    "bf16": (torch.bfloat16, None),
    "fp8": (torch.float8_e4m3fn, None),
}
FP8_CAPABILITY = (8, 9)  # 8-bit float tensor cores: Ada (8.9), Hopper (9.0) and newer
MIN_BLOCK, MAX_BLOCK = 16, 256  # tl.dot wants each tile side at least 16
MIN_BLOCK_K_FP8 = 32  # an 8-bit tensor-core step covers 32 values of K
MAX_NUM_WARPS, MAX_NUM_STAGES = 16, 8
MAX_ACC_PER_THREAD = 128  # BLOCK_M * BLOCK_N / (32 * num_warps) float32 registers
MAX_GRID_Y = 65535  # CUDA's limit on the second grid axis (tile columns)

_CAPABILITY: dict[int, tuple[int, int]] = {}
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def fp8_supported(device: int) -> bool:
    """Whether CUDA device ``device`` has fp8 tensor cores (the CPU interpreter, device
    -1, emulates them)."""
    if device < 0:
        return True
    if device not in _CAPABILITY:
        _CAPABILITY[device] = torch.cuda.get_device_capability(device)
    return _CAPABILITY[device] >= FP8_CAPABILITY


def _check_knobs(knobs: dict, dtype: torch.dtype) -> None:
    for name, value in knobs.items():
        # Exactly int: True passes as 1 and 64.0 equals 64, but neither is a tile size.
        if type(value) is not int:
            raise TypeError(f"dot: {name} must be an int, got {type(value).__name__}")
        lo, hi = {"num_warps": (1, MAX_NUM_WARPS), "num_stages": (1, MAX_NUM_STAGES)}.get(
            name, (MIN_BLOCK, MAX_BLOCK)
        )
        if name == "block_k" and dtype == torch.float8_e4m3fn:
            lo = MIN_BLOCK_K_FP8
        power_of_two = value & (value - 1) == 0 or name == "num_stages"
        if not (lo <= value <= hi and power_of_two):
            kind = "an int" if name == "num_stages" else "a power of two"
            raise ValueError(f"dot: {name} must be {kind} in [{lo}, {hi}], got {value}")
    per_thread = knobs["block_m"] * knobs["block_n"] // (32 * knobs["num_warps"])
    if per_thread > MAX_ACC_PER_THREAD:
        raise ValueError(
            f"dot: block_m * block_n / (32 * num_warps) = {per_thread} accumulator values per "
            f"thread, more than {MAX_ACC_PER_THREAD}: they would spill out of the 255 "
            "registers a thread has. Use smaller blocks or more warps"
        )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"dot: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.is_meta:
        raise ValueError(f"dot: {name} is a meta tensor (a shape with no data)")
    if not t.is_cuda and not _INTERPRET:
        raise ValueError(
            f"dot: {name} must be on a CUDA device, got {t.device} "
            "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
        )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"dot: {name} must be a dense tensor, got {got}")


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    # [first byte, one past the last byte] any element of t can touch (strides are >= 0).
    if t.numel() == 0:
        return t.data_ptr(), t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _check_not_dual(tensors: dict) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    for name, t in tensors.items():
        if _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"dot: {name} is a dual tensor (forward-mode AD), but this kernel computes "
                f"no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )


def _check_out(out: object, shape: tuple, dtype: torch.dtype, device: int, inputs: dict) -> None:
    _check_tensor("out", out)
    if out.dtype != dtype:
        raise TypeError(f"dot: out has dtype {out.dtype}, but the result's is {dtype}")
    if out.shape != shape or out.get_device() != device:
        raise ValueError(
            f"dot: out must be {shape} on a's device, got {tuple(out.shape)} on {out.device}"
        )
    if out.is_neg():
        raise ValueError("dot: out is a view with the negative bit; pass a plain one")
    if out.requires_grad and torch.is_grad_enabled():
        raise ValueError("dot: out requires grad, and a write into it has no backward")
    # Two elements of out at one address would race. Sorted by stride, each dim must step
    # past everything the smaller dims cover.
    span = 1
    for stride, size in sorted((st, s) for s, st in zip(shape, out.stride(), strict=True) if s > 1):
        if stride < span:
            raise ValueError(f"dot: out has strides {out.stride()} that make elements share memory")
        span += (size - 1) * stride
    # out may share no byte with an input (judged by address, not by storage object).
    lo, hi = _byte_range(out)
    for name, t in inputs.items():
        t_lo, t_hi = _byte_range(t)
        if lo < t_hi and t_lo < hi:
            raise ValueError(f"dot: out overlaps {name}")
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual({"out": out})


def dot(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    input_precision: str | None = None,
    out: torch.Tensor | None = None,
    block_m: int = 64,
    block_n: int = 64,
    block_k: int = 32,
    num_warps: int = 4,
    num_stages: int = 3,
) -> torch.Tensor:
    """Return ``a @ b``, summed in a float32 accumulator and rounded once.

    float32, float16 and bfloat16 products are summed in float32 all the way, within
    (K + 4) 2**-24 of ``|a| @ |b|`` before the one rounding. float8 on Hopper (compute
    capability 9.0) is summed in the tensor cores' narrower accumulator (about 14 bits)
    for the whole K loop, where Triton leaves it by default (``tl.dot``'s
    ``max_num_imprecise_acc``, 2**30 on 9.0): its error reaches about 2**-12 of
    ``|a| @ |b|``, and tests/kernels/test_dot.py bounds it by ceil(K / 32) 2**-12.
    (``max_num_imprecise_acc=0`` would add every MMA step into float32, at about half
    the fp8 rate on an H100.)

    ``a`` (M, K) and ``b`` (K, N): 2-D dense tensors (not nested) of one dtype on one
    CUDA device (which need not be the current one), any strides. float32, float16 and
    bfloat16 give a result of the same dtype; float8_e4m3fn gives bfloat16 and needs
    compute capability 8.9 or newer. ``input_precision``: for float32 inputs, how
    ``tl.dot`` multiplies them: ``"ieee"`` (fp32 multiply-adds), ``"tf32"`` (Triton's
    default, used when None) or ``"tf32x3"``; for the other dtypes it must be None. Views
    with the negative bit are read as their values. Nothing may require grad under grad
    mode, nor be a dual tensor of forward-mode AD: there is no backward and no tangent.
    ``out``: None or an (M, N) tensor of the result dtype on the same device, whose
    elements do not share memory with each other or with ``a`` and ``b``; its version
    counter is bumped. ``block_m``, ``block_n``, ``block_k``: tile sides, powers of two in
    [16, 256] (``block_k`` at least 32 for float8), with block_m * block_n / (32 *
    num_warps) at most 128; ``num_warps`` a power of two in [1, 16]; ``num_stages`` in
    [1, 8]. Raises ``TypeError``/``ValueError`` naming the argument instead of launching
    on anything else.
    """
    _check_tensor("a", a)
    _check_tensor("b", b)
    if a.dtype not in OUT_DTYPE:
        raise TypeError(f"dot: a has dtype {a.dtype}; supported: {tuple(OUT_DTYPE)}")
    if b.dtype != a.dtype:
        raise TypeError(f"dot: b has dtype {b.dtype}, but a has {a.dtype}")
    knobs = dict(
        block_m=block_m,
        block_n=block_n,
        block_k=block_k,
        num_warps=num_warps,
        num_stages=num_stages,
    )
    _check_knobs(knobs, a.dtype)
    if a.dtype == torch.float32:
        if input_precision is None:
            input_precision = "tf32"
        if input_precision not in FP32_PRECISIONS:
            raise ValueError(
                f"dot: input_precision must be one of {FP32_PRECISIONS} or None for float32 "
                f"inputs, got {input_precision!r}"
            )
    elif input_precision is not None:
        raise ValueError(
            f"dot: input_precision applies only to float32 inputs; {a.dtype} goes to the "
            f"tensor cores as it is, so pass None (got {input_precision!r})"
        )
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"dot: {name} must be 2-D, got shape {tuple(t.shape)}")
    (M, K), (K_b, N) = a.shape, b.shape
    if K_b != K:
        raise ValueError(f"dot: b has shape {tuple(b.shape)}, but a has {K} columns")
    device = a.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if b.get_device() != device:
        raise ValueError(f"dot: b is on {b.device}, but a is on {a.device}")
    if a.dtype == torch.float8_e4m3fn and not fp8_supported(device):
        raise ValueError(
            f"dot: a has dtype {a.dtype}, which needs fp8 tensor cores (compute capability "
            f">= 8.9); {a.device} has none"
        )
    if -(-N // block_n) > MAX_GRID_Y:
        raise ValueError(
            f"dot: b has {N} columns, {-(-N // block_n)} tiles of block_n = {block_n}; the "
            f"grid's second axis holds at most {MAX_GRID_Y}. Use a larger block_n"
        )
    if torch.is_grad_enabled():
        for name, t in (("a", a), ("b", b)):
            if t.requires_grad:
                raise ValueError(
                    f"dot: {name} requires grad, but this kernel has no backward; "
                    f"call it under torch.no_grad() or pass {name}.detach()"
                )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual({"a": a, "b": b})
    # A view with the neg bit stores -v and reads as v; the kernel sees only memory.
    a = a.resolve_neg() if a.is_neg() else a
    b = b.resolve_neg() if b.is_neg() else b

    if out is None:
        out = torch.empty((M, N), dtype=OUT_DTYPE[a.dtype], device=a.device)
    else:
        _check_out(out, (M, N), OUT_DTYPE[a.dtype], device, {"a": a, "b": b})
        torch.autograd.graph.increment_version(out)  # as torch's own out= ops do
    if M == 0 or N == 0:
        return out

    try:
        if device < 0 or device == torch.cuda.current_device():
            return launch(
                a, b, out, input_precision=input_precision, block_m=block_m, block_n=block_n,
                block_k=block_k, num_warps=num_warps, num_stages=num_stages,
            )  # fmt: skip
        with torch.cuda.device(device):  # Triton launches on the current device: switch to a's
            return launch(
                a, b, out, input_precision=input_precision, block_m=block_m, block_n=block_n,
                block_k=block_k, num_warps=num_warps, num_stages=num_stages,
            )  # fmt: skip
    except triton.runtime.errors.OutOfResources as exc:
        raise ValueError(f"dot: these blocks and stages do not fit this GPU: {exc}") from exc


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` of the inputs as they are stored, computed in float64 by torch alone and
    rounded once to the dtype ``dot`` returns (float64 inputs give float64)."""
    c = a.double() @ b.double()
    return c.to(OUT_DTYPE.get(a.dtype, c.dtype))


# --8<-- [end:reference]
