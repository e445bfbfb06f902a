"""FP8 matmul with scales: ``C = (a_scale * A) @ (B * b_scale)``, A and B in 8-bit floats,
C in bfloat16 (lesson 16).

An FP8 operand is a matrix of 8-bit floats (e4m3: 4 exponent bits and 3 mantissa bits,
largest finite value 448; or e5m2) together with SCALES, float32 numbers that say what
the 8-bit values stand for: the real matrix is the 8-bit one times its scales. Hopper's
tensor cores multiply 8-bit operands at twice the rate of 16-bit ones; the scales are
applied by ordinary float32 arithmetic, and where they are applied depends on how finely
they vary:

- ``"tensor"``: one scale for all of A, one for all of B. The accumulator is multiplied by
  their product once, in the epilogue, before the single rounding to bfloat16.
- ``"row"``: one scale per row of A (M of them) and one per column of B (N). Still an
  epilogue: element (i, j) of the accumulator is multiplied by ``a_scale[i] * b_scale[j]``.
- ``"block"`` (DeepSeek-V3's recipe): one scale per 1 x 128 strip of A and one per
  128 x 128 block of B. The scales change along K, so they cannot wait for the epilogue:
  each step of the K loop (128 deep) computes its partial product in a fresh float32 tile
  and adds it to the accumulator multiplied by that step's scales.

The kernel is lesson 13's persistent TMA matmul (one program per SM, grouped tile order,
tensor descriptors) with an 8-bit dot. The layouts are the ones ``torch._scaled_mm`` (and
the tensor cores' 8-bit instructions) want: A row-major and B column-major, that is, B
is the transposed view ``w.t()`` of a row-major (N, K) weight, K contiguous in both.
``quantize`` makes such operands and their scales from any float matrix.

Sections, as in every kernel file of the book: ``kernel``, ``launch`` (with ``plan``, the
launch configuration for a shape), ``quantize`` (operands and scales from float data),
``checks`` (``fp8_matmul``: the wrapper contract) and ``reference``. Runs on a CUDA GPU of
compute capability 9.0 or newer (Hopper), or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl

SCALE_BLOCK = 128  # the side of a block of "block" scaling (DeepSeek-V3's 128)


# --8<-- [start:kernel]


@triton.jit
def tile_position(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    # Lesson 09's grouped order: GROUP_M tile rows walked down one column at a time.
    tiles_per_group = GROUP_M * num_pid_n
    first_pid_m = (tile_id // tiles_per_group) * GROUP_M
    group_rows = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (tile_id % tiles_per_group) % group_rows
    pid_n = (tile_id % tiles_per_group) // group_rows
    return pid_m, pid_n


@triton.jit
def fp8_matmul_kernel(
    a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr,
    M, N, K,
    stride_a, stride_b, stride_c,  # row strides: a (M, K), b stored as (N, K), c (M, N)
    stride_sa_m, stride_sa_k, stride_sb_k, stride_sb_n,  # the scales' strides (0: none)
    SCALING: tl.constexpr,  # "tensor", "row" or "block"
    FAST_ACCUM: tl.constexpr,  # False: promote the tensor cores' sums to fp32 every BLOCK_K
    STORE_TMA: tl.constexpr,  # store C with a descriptor (its rows 16-byte aligned)
    NUM_SMS: tl.constexpr, GROUP_M: tl.constexpr,  # programs in the grid; tile order
    FLATTEN: tl.constexpr, WARP_SPECIALIZE: tl.constexpr,  # how the tile loop is compiled
    SUBTILE: tl.constexpr,  # store C in two halves (half the shared memory for the store)
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SCALE_BLOCK: tl.constexpr,
):  # fmt: skip
    # Descriptors as in lesson 13. b is the (K, N) view of a row-major (N, K) matrix: its
    # tiles are read as (BLOCK_N, BLOCK_K), K contiguous, and turned around with .T.
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_a, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [stride_b, 1], [BLOCK_N, BLOCK_K])
    if STORE_TMA:
        C_N: tl.constexpr = BLOCK_N // 2 if SUBTILE else BLOCK_N
        c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_c, 1], [BLOCK_M, C_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    k_steps = tl.cdiv(K, BLOCK_K)
    store_tile = tl.program_id(axis=0) - NUM_SMS  # the store's own tile counter (lesson 13)
    for tile_id in tl.range(
        tl.program_id(axis=0), num_tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=WARP_SPECIALIZE
    ):
        pid_m, pid_n = tile_position(tile_id, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if SCALING == "block":
            # This tile's rows of A's scales and (block) columns of B's, int64 addresses.
            rows = off_m.to(tl.int64) + tl.arange(0, BLOCK_M)
            cols = off_n.to(tl.int64) + tl.arange(0, BLOCK_N)
            sa_ptrs = a_scale_ptr + rows * stride_sa_m
            sb_ptrs = b_scale_ptr + (cols // SCALE_BLOCK) * stride_sb_n
            # int64: the scales may come with any strides, and kb times one can pass 2**31
            sa_k, sb_k = tl.cast(stride_sa_k, tl.int64), tl.cast(stride_sb_k, tl.int64)
        for k in range(k_steps):
            off_k = k * BLOCK_K
            a = a_desc.load([off_m, off_k])
            b = b_desc.load([off_n, off_k]).T
            if SCALING == "block":
                # A fresh fp32 partial product per K step, scaled, then accumulated: the
                # scales of this step's 128-deep slice of K (BLOCK_K divides 128).
                kb = off_k // SCALE_BLOCK
                sa = tl.load(sa_ptrs + kb * sa_k, mask=rows < M, other=0.0)
                sb = tl.load(sb_ptrs + kb * sb_k, mask=cols < N, other=0.0)
                acc += tl.dot(a, b) * (sa[:, None] * sb[None, :])
            elif FAST_ACCUM:
                acc = tl.dot(a, b, acc)
            else:
                acc = tl.dot(a, b, acc, max_num_imprecise_acc=BLOCK_K)
        store_tile += NUM_SMS
        pid_m, pid_n = tile_position(store_tile, num_pid_m, num_pid_n, GROUP_M)
        offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
        # The epilogue: per-tensor and per-row scales multiply the float32 accumulator
        # once, before the one rounding to bfloat16.
        if SCALING == "tensor":
            acc *= tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
        elif SCALING == "row":
            sa = tl.load(a_scale_ptr + offs_m * stride_sa_m, mask=offs_m < M, other=0.0)
            sb = tl.load(b_scale_ptr + offs_n * stride_sb_n, mask=offs_n < N, other=0.0)
            acc *= sa[:, None] * sb[None, :]
        c = acc.to(c_ptr.dtype.element_ty)
        if STORE_TMA and SUBTILE:
            halves = tl.permute(tl.reshape(c, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], left)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 2], right)
        elif STORE_TMA:
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], c)
        else:
            c_ptrs = c_ptr + offs_m[:, None] * stride_c + offs_n[None, :]
            tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# --8<-- [end:kernel]


TMA_ALIGN = 16  # bytes: TMA wants base addresses and row strides in multiples of 16
MAX_TMA_DIM = 2**31 - 1  # descriptor shapes are 32-bit
INTERPRETER_PROGRAMS = 3  # "SMs" under the interpreter: several tiles per program
# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
_FORWARD_AD = torch.autograd.forward_ad
_SM_COUNTS: dict[int, int] = {}
_CAPABILITIES: dict[int, tuple[int, int]] = {}


def sm_count(device: int) -> int:
    """Programs in the persistent grid: the SMs of CUDA device ``device``, or
    INTERPRETER_PROGRAMS on the CPU (device -1)."""
    if device < 0:
        return INTERPRETER_PROGRAMS
    if device not in _SM_COUNTS:
        _SM_COUNTS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SM_COUNTS[device]


def _torch_scratch(size: int, alignment: int, stream: int | None) -> torch.Tensor:
    # Global scratch for device-side descriptors, from torch's allocator (lesson 13).
    return torch.empty(size, dtype=torch.int8, device="cuda")


# --8<-- [start:launch]
# Tiles, warps and pipeline stages by scaling and accumulation, from sweeps on an H100
# (lesson 16). Four stages of fp8 a and b tiles, 4 x (128 + 256) x 128 bytes, plus half
# the bf16 output tile (the store goes out in two halves, SUBTILE), 32,768: 229,376 bytes
# of the 232,448 a program may have. The block-scaled loop ran best with its loads and its
# math in separate warps (warp specialization, which needs the tile loop unflattened).
_FAST = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, num_warps=8, num_stages=4, subtile=True)
_PROMOTED = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, num_warps=8, num_stages=4, subtile=True)
_BLOCK = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, num_warps=8, num_stages=5,
              flatten=False, warp_specialize=True)  # fmt: skip
PLANS = {
    ("tensor", True): _FAST,
    ("row", True): _FAST,
    ("tensor", False): _PROMOTED,
    ("row", False): _PROMOTED,
    ("block", False): _BLOCK,
}
INTERPRETER_PLAN = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, num_warps=4, num_stages=1)
GROUP_M = 8


def plan(M: int, N: int, K: int, scaling: str, device: int, fast_accum: bool = True) -> dict:
    """The launch configuration for an (M, K) x (K, N) problem with ``scaling`` and
    ``fast_accum`` ("block" always promotes) on CUDA device ``device`` (-1: the
    interpreter): tile sides, warps, stages, programs."""
    key = (scaling, fast_accum and scaling != "block")
    cfg = {"GROUP_M": GROUP_M, "per_sm": 1, "flatten": True, "warp_specialize": False,
           "subtile": False}  # fmt: skip
    cfg.update(INTERPRETER_PLAN if device < 0 else PLANS[key])
    tiles = -(-M // cfg["BLOCK_M"]) * -(-N // cfg["BLOCK_N"])
    return {**cfg, "programs": max(1, min(sm_count(device) * cfg["per_sm"], tiles))}


def launch(a, b, a_scale, b_scale, scaling, out=None, *, fast_accum=True, config=None):
    """``out = (a_scale * a) @ (b * b_scale)`` in bf16 for fp8 ``a`` (M, K) row-major and
    ``b`` (K, N) column-major, scales as ``fp8_matmul`` describes; no checks."""
    (M, K), N = a.shape, b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    cfg = config or plan(M, N, K, scaling, a.get_device(), fast_accum)
    if a.is_cuda:
        triton.set_allocator(_torch_scratch)  # the descriptors' global scratch
    sa = (0, 0) if a_scale.dim() == 0 else a_scale.stride()
    sb = (0, 0) if b_scale.dim() == 0 else b_scale.stride()
    # The TMA store needs 16-byte-aligned rows of out; otherwise masked pointer stores,
    # whose tile passes through shared memory once more: one stage fewer makes room.
    store_tma = out.stride(1) == 1 and (out.stride(0) * 2) % 16 == 0 and out.data_ptr() % 16 == 0
    if not store_tma and config is None:
        cfg["num_stages"] -= 1
    fp8_matmul_kernel[(cfg["programs"],)](
        a, b, out, a_scale, b_scale, M, N, K, a.stride(0), b.stride(1), out.stride(0), *sa, *sb,
        SCALING=scaling, FAST_ACCUM=fast_accum, STORE_TMA=store_tma,
        NUM_SMS=cfg["programs"], GROUP_M=cfg["GROUP_M"],
        FLATTEN=cfg["flatten"], WARP_SPECIALIZE=cfg["warp_specialize"], SUBTILE=cfg["subtile"],
        BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"],
        SCALE_BLOCK=SCALE_BLOCK, num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )  # fmt: skip
    return out


# --8<-- [end:launch]


# --8<-- [start:quantize]
FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2)
GRANULARITIES = ("tensor", "row", "block")
OPERANDS = ("a", "b")


def quantize(
    x: torch.Tensor,
    granularity: str,
    operand: str = "a",
    dtype: torch.dtype = torch.float8_e4m3fn,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x_fp8, scales)`` with ``x`` close to ``x_fp8 * scales``, for ``x`` a 2-D float
    matrix that enters the product as ``operand`` ("a": (M, K); "b": (K, N)).

    Each scale is the largest magnitude of its group over the format's largest finite
    value (448 for e4m3, 57,344 for e5m2), so the group's largest element maps to it;
    an all-zero group gets scale 1. The groups and the scales' shapes (float32):

    - ``"tensor"``: the whole matrix; a 0-d scale;
    - ``"row"``: a row of a, (M, 1); a column of b, (1, N), as ``torch._scaled_mm`` takes;
    - ``"block"``: a 1 x 128 strip of a row of a, (M, ceil(K/128)), stored column-major
      (the M scales of one K step adjacent, as the kernel reads them and as
      torch._scaled_mm requires); a 128 x 128 block of b, (ceil(K/128), ceil(N/128)).

    ``x_fp8`` for "a" is row-major (M, K); for "b" it is column-major: the (K, N) view
    ``.t()`` of a contiguous (N, K) tensor, the layout fp8_matmul and torch._scaled_mm read.
    """
    if granularity not in GRANULARITIES:
        raise ValueError(
            f"quantize: granularity must be one of {GRANULARITIES}, got {granularity!r}"
        )
    if operand not in OPERANDS:
        raise ValueError(f"quantize: operand must be one of {OPERANDS}, got {operand!r}")
    if dtype not in FP8_DTYPES:
        raise TypeError(f"quantize: dtype must be one of {FP8_DTYPES}, got {dtype}")
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or not x.is_floating_point():
        raise ValueError("quantize: x must be a 2-D floating-point torch.Tensor")
    top = torch.finfo(dtype).max
    # Work on the operand with K last: a as it is, b transposed to (N, K).
    xk = (x if operand == "a" else x.t()).float()
    rows, k = xk.shape
    if granularity == "tensor":
        amax = xk.abs().amax()
    elif granularity == "row":
        amax = xk.abs().amax(dim=1, keepdim=True)  # (rows, 1)
    else:
        kb, rb = -(-k // SCALE_BLOCK), -(-rows // SCALE_BLOCK)
        padded = torch.nn.functional.pad(xk.abs(), (0, kb * SCALE_BLOCK - k))
        amax = padded.view(rows, kb, SCALE_BLOCK).amax(dim=2)  # (rows, kb): 1 x 128 strips
        if operand == "b":  # 128 x 128 blocks: the strips' maximum over 128 rows of (N, K)
            amax = torch.nn.functional.pad(amax, (0, 0, 0, rb * SCALE_BLOCK - rows))
            amax = amax.view(rb, SCALE_BLOCK, kb).amax(dim=1)  # (rb, kb)
    scale = torch.where(amax > 0, amax / top, torch.ones_like(amax)).float()
    # Each element's scale, broadcast back over its group.
    if granularity == "block":
        each = scale.repeat_interleave(SCALE_BLOCK, dim=1)[:, :k]
        if operand == "b":
            each = each.repeat_interleave(SCALE_BLOCK, dim=0)[:rows]
    else:
        each = scale
    q = (xk / each).clamp(-top, top).to(dtype)
    if operand == "a":
        if granularity == "block":  # stored column-major: one K step's scales are adjacent
            scale = scale.t().contiguous().t()
        return q.contiguous(), scale
    # b: (N, K) row-major data seen as (K, N); scales in b's own (K, N) orientation.
    return q.contiguous().t(), scale.t() if scale.dim() == 2 else scale


def dequantize(x_fp8: torch.Tensor, scales: torch.Tensor, operand: str = "a") -> torch.Tensor:
    """The float32 matrix that ``x_fp8`` and its ``scales`` stand for (quantize's groups,
    told apart by the scales' shape): the product fp8_matmul computes is that of these."""
    x = x_fp8.float()
    if scales.dim() == 0 or scales.shape in ((x.shape[0], 1), (1, x.shape[1])):
        return x * scales
    rows, cols = x.shape
    if operand == "a":  # (M, ceil(K/128)): 1 x 128 strips along K
        return x * scales.repeat_interleave(SCALE_BLOCK, dim=1)[:, :cols]
    each = scales.repeat_interleave(SCALE_BLOCK, dim=0)[:rows]  # (K, N) blocks
    return x * each.repeat_interleave(SCALE_BLOCK, dim=1)[:, :cols]


# --8<-- [end:quantize]


# --8<-- [start:checks]
def _capability(device: int) -> tuple[int, int]:
    if device not in _CAPABILITIES:
        _CAPABILITIES[device] = tuple(torch.cuda.get_device_capability(device))
    return _CAPABILITIES[device]


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"fp8_matmul: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"fp8_matmul: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"fp8_matmul: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"fp8_matmul: {name} must be a dense tensor, got {got}")


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    if t.numel() == 0:
        return t.data_ptr(), t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _aligned_rows(t: torch.Tensor, unit_dim: int) -> bool:
    # Dimension unit_dim has stride 1 (or size 1); the other stride is a multiple of 16
    # bytes and 32-bit; the base address is 16-byte aligned: what a descriptor reads.
    other = t.stride(1 - unit_dim)
    return (
        (t.stride(unit_dim) == 1 or t.shape[unit_dim] == 1)
        and t.data_ptr() % TMA_ALIGN == 0
        and (other * t.element_size()) % TMA_ALIGN == 0
        and 1 <= other <= MAX_TMA_DIM
    )


def scale_shapes(M: int, N: int, K: int, scaling: str) -> tuple[tuple, tuple]:
    """The shapes ``fp8_matmul`` wants for (a_scale, b_scale) under ``scaling``."""
    if scaling == "tensor":
        return (), ()
    if scaling == "row":
        return (M, 1), (1, N)
    kb = -(-K // SCALE_BLOCK)
    return (M, kb), (kb, -(-N // SCALE_BLOCK))


def fp8_matmul(
    a: torch.Tensor,
    b: torch.Tensor,
    a_scale: torch.Tensor,
    b_scale: torch.Tensor,
    *,
    scaling: str | None = None,
    out: torch.Tensor | None = None,
    fast_accum: bool = True,
) -> torch.Tensor:
    """Return ``(a_scale * a) @ (b * b_scale)`` in bfloat16, accumulated in float32 and
    rounded once.

    ``a`` (M, K) and ``b`` (K, N): FP8 tensors (both float8_e4m3fn or both float8_e5m2)
    on one CUDA device of compute capability 9.0 or newer (the 8-bit tensor-core dot and
    TMA; older GPUs are refused by name), which need not be the current one. ``a`` is
    row-major and ``b`` column-major (``w.t()`` of a row-major (N, K) ``w``), each with
    its other stride a multiple of 16 bytes from a 16-byte-aligned address, as
    ``torch._scaled_mm`` wants them; so K must be a multiple of 16. ``a_scale``,
    ``b_scale``: float32 on the same device, any strides, shaped by ``scaling`` (None:
    read from the shapes): ``"tensor"`` () and (); ``"row"`` (M, 1) and (1, N);
    ``"block"`` (M, ceil(K/128)) and (ceil(K/128), ceil(N/128)), see ``quantize``.
    ``out``: None, or a bfloat16 (M, N) tensor on that device whose elements do not share
    memory and which shares no memory with the inputs; its version counter is bumped.
    ``fast_accum``: a bool, as torch._scaled_mm's use_fast_accum: True lets the tensor
    cores keep their own (less precise) running sum over the whole K loop; False adds
    their sums into the float32 accumulator every K step (128). "block" scaling always
    does the latter. Nothing may require grad under grad mode or be a dual tensor; a and
    b may not be views with the negative bit (torch cannot resolve FP8 ones on every
    device), scales with it are read as their values; K = 0 gives zeros. Raises
    TypeError/ValueError naming the argument otherwise.
    """
    if type(fast_accum) is not bool:
        raise TypeError(f"fp8_matmul: fast_accum must be a bool, got {type(fast_accum).__name__}")
    if scaling is not None and not isinstance(scaling, str):
        raise TypeError(f"fp8_matmul: scaling must be None or a str, got {type(scaling).__name__}")
    if scaling is not None and scaling not in GRANULARITIES:
        raise ValueError(
            f"fp8_matmul: scaling must be None or one of {GRANULARITIES}, got {scaling!r}"
        )
    tensors = {"a": a, "b": b, "a_scale": a_scale, "b_scale": b_scale}
    for name, t in tensors.items():
        _check_tensor(name, t)
    if a.dtype not in FP8_DTYPES:
        raise TypeError(f"fp8_matmul: a has dtype {a.dtype}; supported: {FP8_DTYPES}")
    if b.dtype != a.dtype:
        raise TypeError(f"fp8_matmul: b has dtype {b.dtype}, but a has {a.dtype}")
    for name in ("a_scale", "b_scale"):
        if tensors[name].dtype != torch.float32:
            raise TypeError(f"fp8_matmul: {name} must be float32, got {tensors[name].dtype}")
    for name in ("a", "b"):
        if tensors[name].dim() != 2:
            raise ValueError(
                f"fp8_matmul: {name} must be 2-D, got shape {tuple(tensors[name].shape)}"
            )
    (M, K), (K_b, N) = a.shape, b.shape
    if K_b != K:
        raise ValueError(f"fp8_matmul: b has shape {tuple(b.shape)}, but a has {K} columns")
    device = a.get_device()
    for name, t in tensors.items():
        if t.get_device() != device:
            raise ValueError(f"fp8_matmul: {name} is on {t.device}, but a is on {a.device}")
    if scaling is None:  # read from the shapes; "tensor" and "row" never look alike
        scaling = next(
            (
                s
                for s in GRANULARITIES
                if scale_shapes(M, N, K, s) == (a_scale.shape, b_scale.shape)
            ),
            None,
        )
        if scaling is None:
            raise ValueError(
                f"fp8_matmul: a_scale {tuple(a_scale.shape)} and b_scale {tuple(b_scale.shape)} "
                f"match no scaling of {GRANULARITIES} for M, N, K = {M}, {N}, {K}"
            )
    want_a, want_b = scale_shapes(M, N, K, scaling)
    if a_scale.shape != want_a:
        raise ValueError(
            f"fp8_matmul: a_scale must have shape {want_a} for scaling={scaling!r}, "
            f"got {tuple(a_scale.shape)}"
        )
    if b_scale.shape != want_b:
        raise ValueError(
            f"fp8_matmul: b_scale must have shape {want_b} for scaling={scaling!r}, "
            f"got {tuple(b_scale.shape)}"
        )
    if device >= 0 and _capability(device) < (9, 0):
        major, minor = _capability(device)
        raise ValueError(
            f"fp8_matmul: a is on {a.device} ({torch.cuda.get_device_name(device)}, compute "
            f"capability {major}.{minor}); the FP8 tensor-core dot with TMA loads needs 9.0 "
            "(Hopper) or newer"
        )
    if torch.is_grad_enabled():
        for name, t in tensors.items():
            if t.requires_grad:
                raise ValueError(
                    f"fp8_matmul: {name} requires grad, but this kernel has no backward; "
                    f"call it under torch.no_grad() or pass {name}.detach()"
                )
    for name in ("a", "b"):  # torch has no FP8 negation on every device to resolve it
        if tensors[name].is_neg():
            raise ValueError(
                f"fp8_matmul: {name} is a view with the negative bit; pass a plain FP8 tensor"
            )
    # A float32 view with the neg bit stores -v and reads as v: the kernel sees memory only.
    a_scale, b_scale = (t.resolve_neg() if t.is_neg() else t for t in (a_scale, b_scale))
    tensors.update(a_scale=a_scale, b_scale=b_scale)
    if _FORWARD_AD._current_level >= 0:
        for name, t in tensors.items():
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"fp8_matmul: {name} is a dual tensor (forward-mode AD); pass its primal"
                )
    if M and N and K:
        if K % 16:
            raise ValueError(
                f"fp8_matmul: a has {K} columns (K); K must be a multiple of 16 "
                "(TMA reads rows of 16-byte multiples)"
            )
        if max(M, N, K) > MAX_TMA_DIM:
            raise ValueError(
                f"fp8_matmul: a dimension of a or b exceeds {MAX_TMA_DIM} (32-bit descriptors)"
            )
        if not _aligned_rows(a, 1):
            raise ValueError(
                f"fp8_matmul: a (strides {a.stride()}) must be row-major, its row stride a "
                f"multiple of {TMA_ALIGN} bytes from a {TMA_ALIGN}-byte-aligned address"
            )
        if not _aligned_rows(b, 0):
            raise ValueError(
                f"fp8_matmul: b (strides {b.stride()}) must be column-major, w.t() of a row-major "
                f"(N, K) w, as torch._scaled_mm takes it; its column stride a multiple of "
                f"{TMA_ALIGN} bytes from a {TMA_ALIGN}-byte-aligned address"
            )
    if out is not None:
        _check_tensor("out", out)
        lo, hi = _byte_range(out)  # by address ranges, before anything else about out
        for name, t in tensors.items():
            t_lo, t_hi = _byte_range(t)
            if lo < t_hi and t_lo < hi:
                raise ValueError(f"fp8_matmul: out overlaps {name}")
        if out.dtype != torch.bfloat16:
            raise TypeError(f"fp8_matmul: out must be bfloat16, got {out.dtype}")
        if out.shape != (M, N) or out.get_device() != device:
            raise ValueError(
                f"fp8_matmul: out must be ({M}, {N}) on a's device, "
                f"got {tuple(out.shape)} on {out.device}"
            )
        if out.is_neg() or out.is_conj():
            raise ValueError("fp8_matmul: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "fp8_matmul: out requires grad, and a write into it cannot be differentiated"
            )
        if out.numel() and out.stride(1) != 1 and N > 1:
            raise ValueError(f"fp8_matmul: out (strides {out.stride()}) must have contiguous rows")
        if out.numel() and out.stride(0) < N and M > 1:
            raise ValueError(
                f"fp8_matmul: out has strides {out.stride()} that make elements share memory"
            )
        if _FORWARD_AD._current_level >= 0 and _FORWARD_AD.unpack_dual(out).tangent is not None:
            raise ValueError("fp8_matmul: out is a dual tensor (forward-mode AD)")
        torch.autograd.graph.increment_version(out)
    else:
        out = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    if device < 0 or device == torch.cuda.current_device():
        launch(a, b, a_scale, b_scale, scaling, out, fast_accum=fast_accum)
    else:
        with torch.cuda.device(device):
            launch(a, b, a_scale, b_scale, scaling, out, fast_accum=fast_accum)
    return out


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(a, b, a_scale, b_scale, dtype=torch.bfloat16) -> torch.Tensor:
    """The product of the dequantised operands (``dequantize``) in float64, rounded once
    to ``dtype`` (bfloat16, what fp8_matmul returns; float64 for the unrounded value)."""
    a_real = dequantize(a, a_scale, "a").double()
    b_real = dequantize(b, b_scale, "b").double()
    return (a_real @ b_real).to(dtype)


# --8<-- [end:reference]
