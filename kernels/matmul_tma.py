"""Persistent matmul with tensor-descriptor (TMA) loads: ``out = activation(a @ b + bias)``
for 2-D fp16/bf16, the bias and the activation optional (lesson 09's epilogue).

Lesson 09's kernel launches one program per output tile. This file keeps its tiles, its
float32 accumulation and its grouped tile order, and changes two things:

- **Persistent programs.** The grid has one program per streaming multiprocessor (SM),
  not one per tile. Program ``p`` computes tiles ``p``, ``p + NUM_SMS``, ``p + 2 NUM_SMS``,
  ... in turn, so the launch is paid once per SM and the compiler may start loading the
  next tile's inputs while the current tile is being stored.
- **Tensor descriptors.** On Hopper (compute capability 9.0, H100/H200) a descriptor made
  with ``tl.make_tensor_descriptor`` tells the Tensor Memory Accelerator (TMA, a copy
  engine next to each SM) the matrix's shape and row stride; one instruction then moves a
  whole tile from global to shared memory, out-of-range rows and columns filled with zero,
  with no per-element address arithmetic or masks in the program.

A second kernel with the same persistent structure uses pointer loads instead (any
strides, any GPU, the CPU interpreter). ``path_for`` says which of the two a call takes.

Sections, as in every kernel file of the book: ``kernel``, ``configs`` (what the
autotuner tries), ``rule`` (when TMA can read and write the tensors, and ``path_for``),
``launch`` (the host code: grid, arguments, launch, no checks), ``checks`` (``matmul_tma``,
which refuses by name what the kernels cannot handle, then launches) and ``reference``.
Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1``
set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def tile_position(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    # Grouped order, as in lesson 09: walk GROUP_M tile rows down one column at a time,
    # so that tiles computed at about the same time share rows of a and columns of b.
    tiles_per_group = GROUP_M * num_pid_n
    first_pid_m = (tile_id // tiles_per_group) * GROUP_M
    group_rows = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may be short
    pid_m = first_pid_m + (tile_id % tiles_per_group) % group_rows
    pid_n = (tile_id % tiles_per_group) // group_rows
    return pid_m, pid_n


# --8<-- [start:epilogue]
@triton.jit
def epilogue(
    acc, bias_ptr, offs_n, N, stride_bias, HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr
):
    # Lesson 09's epilogue on the float32 accumulator, before the tile is stored: a bias
    # per column, then exact GELU. Without either, it compiles to nothing.
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_n * stride_bias, mask=offs_n < N, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    if ACTIVATION == "gelu":
        acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    return acc


# --8<-- [end:epilogue]


# --8<-- [start:tma]
@triton.jit
def matmul_tma_kernel(
    a_ptr, b_ptr, c_ptr, bias_ptr,
    M, N, K,
    M_BUCKET,  # M rounded up to a power of two: only the autotuner's key reads it
    stride_a, stride_b, stride_c,  # each matrix's one non-unit stride, in elements
    stride_bias,
    HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,  # the epilogue: see epilogue()
    A_TRANSPOSED: tl.constexpr,  # a is the view .t() of a contiguous (K, M) matrix
    B_TRANSPOSED: tl.constexpr,  # b is the view .t() of a contiguous (N, K) matrix
    NUM_SMS: tl.constexpr,  # programs in the grid, at most one per SM
    GROUP_M: tl.constexpr,
    FLATTEN: tl.constexpr,  # let the pipeliner run across the tile loop too
    WARP_SPECIALIZE: tl.constexpr,  # split loads and math into different warps
    UPCAST: tl.constexpr,  # only for the CPU interpreter: bf16 dot through float32
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # One descriptor per matrix, built once per program: base address, shape, strides
    # (the last must be 1: TMA reads rows) and the tile it moves. Tiles that stick out of
    # the shape come back zero-padded on loads and are clipped on stores.
    if A_TRANSPOSED:
        a_desc = tl.make_tensor_descriptor(a_ptr, [K, M], [stride_a, 1], [BLOCK_K, BLOCK_M])
    else:
        a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_a, 1], [BLOCK_M, BLOCK_K])
    if B_TRANSPOSED:
        b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [stride_b, 1], [BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_b, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_c, 1], [BLOCK_M, BLOCK_N])

    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    k_steps = tl.cdiv(K, BLOCK_K)
    first_tile = tl.program_id(axis=0)
    # The store uses its own copy of the tile counter. With FLATTEN the compiler merges
    # the K loop into the tile loop and moves each tile's first loads ahead into the
    # previous tile; a second counter keeps the store's position out of that move.
    store_tile = first_tile - NUM_SMS
    for tile_id in tl.range(
        first_tile, num_tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=WARP_SPECIALIZE
    ):
        pid_m, pid_n = tile_position(tile_id, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_steps):
            off_k = k * BLOCK_K
            # One TMA copy per tile; a transposed operand is read as stored and turned
            # around in shared memory (.T costs no data movement).
            if A_TRANSPOSED:
                a = a_desc.load([off_k, off_m]).T
            else:
                a = a_desc.load([off_m, off_k])
            if B_TRANSPOSED:
                b = b_desc.load([off_n, off_k]).T
            else:
                b = b_desc.load([off_k, off_n])
            if UPCAST:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
        store_tile += NUM_SMS
        pid_m, pid_n = tile_position(store_tile, num_pid_m, num_pid_n, GROUP_M)
        # int64: the epilogue multiplies the column index by the bias's stride, and a bias
        # that is a column of a large matrix has a large one.
        offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = epilogue(acc, bias_ptr, offs_n, N, stride_bias, HAS_BIAS, ACTIVATION)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_ptr.dtype.element_ty))


# --8<-- [end:tma]


# --8<-- [start:pointers]
@triton.jit
def matmul_persistent_kernel(
    a_ptr, b_ptr, c_ptr, bias_ptr,
    M, N, K,
    M_BUCKET,  # as in matmul_tma_kernel: for the autotuner's key
    stride_am, stride_ak,  # element strides: any layout
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    stride_bias,
    HAS_BIAS: tl.constexpr, ACTIVATION: tl.constexpr,
    NUM_SMS: tl.constexpr,
    GROUP_M: tl.constexpr,
    UPCAST: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # The same persistent loop over tiles; inside it, lesson 09's masked pointer loads.
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    k64 = offs_k.to(tl.int64)
    a_step = tl.cast(stride_ak, tl.int64) * BLOCK_K
    b_step = tl.cast(stride_bk, tl.int64) * BLOCK_K
    for tile_id in tl.range(tl.program_id(axis=0), num_tiles, NUM_SMS):
        pid_m, pid_n = tile_position(tile_id, num_pid_m, num_pid_n, GROUP_M)
        # int64: a row index times a row stride can pass 2**31.
        offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask_m = offs_m < M
        mask_n = offs_n < N
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + k64[None, :] * stride_ak
        b_ptrs = b_ptr + k64[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
            if UPCAST:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
            a_ptrs += a_step
            b_ptrs += b_step
        acc = epilogue(acc, bias_ptr, offs_n, N, stride_bias, HAS_BIAS, ACTIVATION)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        c = acc.to(c_ptr.dtype.element_ty)
        tl.store(c_ptrs, c, mask=mask_m[:, None] & mask_n[None, :])


# --8<-- [end:pointers]
# --8<-- [end:kernel]


GROUP_M = 8  # tile rows per group in the program order, as lesson 09's default
TMA_ALIGN = 16  # bytes: TMA needs the base address and every row stride a multiple of 16
MAX_TMA_DIM = 2**31 - 1  # descriptor shapes and tile offsets are 32-bit

# What the installed Triton offers, detected rather than assumed from its version number.
# Device-side descriptors (tl.make_tensor_descriptor) need a scratch buffer in global
# memory for each program's descriptors, which Triton asks for through triton.set_allocator.
HAS_TENSOR_DESCRIPTORS = hasattr(tl, "make_tensor_descriptor") and hasattr(triton, "set_allocator")
HAS_WARP_SPECIALIZE = "warp_specialize" in tl.range.__init__.__code__.co_varnames
# The TMA kernel's tile loop is flattened with the K loop (see the kernel). Set False if a
# Triton version fails to compile it; the kernel is correct either way.
FLATTEN_TILE_LOOP = True

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad
INTERPRETER_PROGRAMS = 3  # "SMs" under the interpreter: several tiles per program, unevenly


def make_config(block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int):
    """A ``triton.Config`` of either kernel: its three tile sides, warps and stages."""
    kwargs = {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k}
    return triton.Config(kwargs, num_warps=num_warps, num_stages=num_stages)


# --8<-- [start:configs]
# Few configs, all for Hopper, so that first-call tuning compiles only a handful of
# kernels. Shared memory per config (fp16/bf16): num_stages tiles of a and b, plus, on
# the TMA path, one output tile staged for the TMA store; see shared_memory_bytes.
TMA_CONFIGS = [
    make_config(128, 256, 64, 8, 3),  # 147,456 + 65,536 = 212,992 bytes
    make_config(256, 128, 64, 8, 3),  # the same, tall
    make_config(128, 128, 64, 8, 4),  # 131,072 + 32,768 = 163,840
    make_config(128, 128, 64, 4, 4),
]
POINTER_CONFIGS = [
    make_config(128, 256, 64, 8, 3),
    make_config(128, 128, 64, 8, 4),
    make_config(128, 128, 64, 4, 4),
]
# Used when nothing above fits the GPU's shared memory (a small, older GPU).
FALLBACK_CONFIG = make_config(64, 64, 32, 4, 2)
# The interpreter runs programs one after another on the CPU: one small config.
INTERPRETER_CONFIG = make_config(32, 16, 16, 4, 1)
# --8<-- [end:configs]


def shared_memory_bytes(config: triton.Config, element_size: int, tma: bool) -> int:
    """Shared memory a config needs (an estimate): one a tile and one b tile per pipeline
    stage, and on the TMA path the output tile, which the TMA store copies from shared
    memory."""
    kw = config.kwargs
    stages = config.num_stages * (kw["BLOCK_M"] + kw["BLOCK_N"]) * kw["BLOCK_K"]
    return (stages + (kw["BLOCK_M"] * kw["BLOCK_N"] if tma else 0)) * element_size


_SMEM_LIMITS: dict[int, int] = {}
_SM_COUNTS: dict[int, int] = {}
_CAPABILITIES: dict[int, tuple[int, int]] = {}


def shared_memory_limit(device: int) -> int | None:
    """Shared memory one program may use on CUDA device ``device`` (bytes, as Triton
    counts it); None for the CPU interpreter."""
    if device < 0:
        return None
    if device not in _SMEM_LIMITS:
        props = triton.runtime.driver.active.utils.get_device_properties(device)
        _SMEM_LIMITS[device] = props["max_shared_mem"]
    return _SMEM_LIMITS[device]


def sm_count(device: int) -> int:
    """Programs in the persistent grid: the SMs of CUDA device ``device``, or
    INTERPRETER_PROGRAMS on the CPU."""
    if device < 0:
        return INTERPRETER_PROGRAMS
    if device not in _SM_COUNTS:
        _SM_COUNTS[device] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SM_COUNTS[device]


def _capability(device: int) -> tuple[int, int]:
    if device not in _CAPABILITIES:
        _CAPABILITIES[device] = tuple(torch.cuda.get_device_capability(device))
    return _CAPABILITIES[device]


def _fits(configs, named_args, tma: bool):
    a = named_args["a_ptr"]
    limit = shared_memory_limit(a.get_device())
    kept = [
        c
        for c in configs
        if limit is None or shared_memory_bytes(c, a.element_size(), tma) <= limit
    ]
    return kept or [FALLBACK_CONFIG]


def _tma_configs_that_fit(configs, named_args, **kwargs):
    return _fits(configs, named_args, tma=True)


def _pointer_configs_that_fit(configs, named_args, **kwargs):
    return _fits(configs, named_args, tma=False)


def m_bucket(m: int) -> int:
    """What the autotuners key on instead of M: the next power of two >= M, at least 16,
    so that a serving loop whose token count changes tunes once per bucket, not per M."""
    return max(16, 1 << (m - 1).bit_length())


# The two kernels behind @triton.autotune: on the first call for each key (and dtypes),
# every config that fits is compiled and timed and the fastest kept. M enters the key
# only as its bucket (m_bucket).
matmul_tma_autotuned = triton.autotune(
    configs=[INTERPRETER_CONFIG] if _INTERPRET else TMA_CONFIGS,
    key=[
        "M_BUCKET",
        "N",
        "K",
        "A_TRANSPOSED",
        "B_TRANSPOSED",
        "WARP_SPECIALIZE",
        "HAS_BIAS",
        "ACTIVATION",
    ],
    prune_configs_by={"early_config_prune": _tma_configs_that_fit},
)(matmul_tma_kernel)
matmul_persistent_autotuned = triton.autotune(
    configs=[INTERPRETER_CONFIG] if _INTERPRET else POINTER_CONFIGS,
    key=["M_BUCKET", "N", "K", "HAS_BIAS", "ACTIVATION"],
    prune_configs_by={"early_config_prune": _pointer_configs_that_fit},
)(matmul_persistent_kernel)


def _torch_scratch(size: int, alignment: int, stream: int | None) -> torch.Tensor:
    # Global scratch for device-side descriptors, from torch's caching allocator on the
    # current device (the wrapper launches under torch.cuda.device(a.device)). torch
    # aligns to 512 bytes, more than the 128 descriptors need.
    return torch.empty(size, dtype=torch.int8, device="cuda")


# --8<-- [start:rule]
def _row_major(t: torch.Tensor) -> bool | None:
    """How TMA can read a 2-D tensor: True when its rows are contiguous (stride (s, 1)),
    False when its columns are (stride (1, s), a transposed view), None when neither,
    or when s or the base address is not a multiple of 16 bytes (or s is not 32-bit)."""
    if t.data_ptr() % TMA_ALIGN:
        return None
    s0, s1 = t.stride()
    for row_major, unit, other in ((True, s1, s0), (False, s0, s1)):
        aligned = (other * t.element_size()) % TMA_ALIGN == 0
        if unit == 1 and 1 <= other <= MAX_TMA_DIM and aligned:
            return row_major
    return None


def tma_refusal(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> str | None:
    """Why the TMA kernel cannot read ``a`` and ``b`` and write ``out`` (None: it can).

    The rule: a and b each have one dimension of stride 1 (a plain matrix, or the .t() of
    one) and the other stride a multiple of 16 bytes (8 fp16/bf16 elements), from a
    16-byte-aligned address; out (or, with out=None, a fresh contiguous (M, N) result,
    whose row stride is N) has stride (s, 1), s likewise a multiple of 16 bytes; K >= 1
    and every dimension below 2**31. Any other layout takes the pointer kernel: nothing is
    copied. Checked on the tensors' strides only, so it answers for CPU tensors too."""
    (M, K), N = a.shape, b.shape[1]
    if K == 0:
        return "K is 0 (nothing to load)"
    if max(M, N, K) > MAX_TMA_DIM:
        return f"a dimension exceeds {MAX_TMA_DIM} (descriptor shapes are 32-bit)"
    for name, t in (("a", a), ("b", b)):
        if _row_major(t) is None:
            return (
                f"{name} (strides {t.stride()}) has no unit-stride dimension whose other "
                f"stride is a multiple of {TMA_ALIGN} bytes from a {TMA_ALIGN}-byte-aligned address"
            )
    if out is None:
        if (N * a.element_size()) % TMA_ALIGN:
            return f"the result's rows (N = {N}) are not a multiple of {TMA_ALIGN} bytes"
    elif _row_major(out) is not True or out.stride(1) != 1:
        return (
            f"out (strides {out.stride()}) is not row-contiguous with a row stride that is "
            f"a multiple of {TMA_ALIGN} bytes from a {TMA_ALIGN}-byte-aligned address"
        )
    return None


def path_for(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> str:
    """The kernel ``matmul_tma(a, b, out=out)`` runs: ``"tma"`` on a GPU of compute
    capability 9.0 or newer with a Triton that has device-side tensor descriptors, when
    ``tma_refusal`` finds nothing wrong with the layouts; ``"pointers"`` otherwise (always
    under the CPU interpreter, where path="tma" may still be asked for)."""
    if _INTERPRET or not HAS_TENSOR_DESCRIPTORS or not a.is_cuda:
        return "pointers"
    if _capability(a.get_device()) < (9, 0):
        return "pointers"
    return "pointers" if tma_refusal(a, b, out) else "tma"


# --8<-- [end:rule]


# --8<-- [start:launch]
def launch(a, b, out=None, bias=None, activation=None, *, path=None, warp_specialize=False):
    """``out = activation(a @ b + bias)`` by the persistent kernel of ``path`` (None: the
    one ``path_for`` picks) for 2-D fp16/bf16 ``a`` (M, K) and ``b`` (K, N), M, N >= 1,
    ``out`` (M, N) or None for a new one; no checks."""
    (M, K), N = a.shape, b.shape[1]
    if path is None:
        path = path_for(a, b, out)
    if out is None:
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    programs = sm_count(a.get_device())

    def grid(meta):  # one program per SM, or per tile where there are fewer tiles
        tiles = -(-M // meta["BLOCK_M"]) * -(-N // meta["BLOCK_N"])
        return (min(programs, tiles),)

    # The epilogue's arguments. Without a bias any pointer will do: the kernel never reads it.
    bias_ptr, stride_bias = (out, 0) if bias is None else (bias, bias.stride(0))
    flags = {
        "HAS_BIAS": bias is not None,
        "ACTIVATION": activation,
        "NUM_SMS": programs,
        "GROUP_M": GROUP_M,
        "UPCAST": _INTERPRET and a.dtype == torch.bfloat16,  # the CPU: bf16 dot through fp32
    }
    if path == "tma":
        if a.is_cuda:
            triton.set_allocator(_torch_scratch)  # the descriptors' global scratch
        a_t, b_t = not _row_major(a), not _row_major(b)
        matmul_tma_autotuned[grid](
            a, b, out, bias_ptr, M, N, K, m_bucket(M),
            a.stride(1) if a_t else a.stride(0),
            b.stride(1) if b_t else b.stride(0),
            out.stride(0), stride_bias, **flags, A_TRANSPOSED=a_t, B_TRANSPOSED=b_t,
            FLATTEN=FLATTEN_TILE_LOOP and not warp_specialize, WARP_SPECIALIZE=warp_specialize,
        )  # fmt: skip
    else:
        matmul_persistent_autotuned[grid](
            a, b, out, bias_ptr, M, N, K, m_bucket(M), *a.stride(), *b.stride(), *out.stride(),
            stride_bias,
            **flags,
        )  # fmt: skip
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16)
PATHS = ("tma", "pointers")
ACTIVATIONS = (None, "gelu")


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"matmul_tma: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"matmul_tma: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"matmul_tma: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"matmul_tma: {name} must be a dense tensor, got {got}")


def _check_not_dual(tensors: dict) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    for name, t in tensors.items():
        if _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"matmul_tma: {name} is a dual tensor (forward-mode AD), but this kernel computes "
                f"no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    # [first byte, one past the last byte] that any element of t can touch.
    if t.numel() == 0:
        return t.data_ptr(), t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _check_out_memory(out: torch.Tensor, inputs: dict) -> None:
    span = 1  # elements covered by the dims with smaller strides
    for stride, size in sorted(
        (st, s) for s, st in zip(out.shape, out.stride(), strict=True) if s > 1
    ):
        if stride < span:
            raise ValueError(
                f"matmul_tma: out has strides {out.stride()} that make elements share memory"
            )
        span += (size - 1) * stride
    lo, hi = _byte_range(out)
    for name, t in inputs.items():
        t_lo, t_hi = _byte_range(t)
        if lo < t_hi and t_lo < hi:
            raise ValueError(f"matmul_tma: out overlaps {name}")


def matmul_tma(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    out: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    activation: str | None = None,
    path: str | None = None,
    warp_specialize: bool = False,
) -> torch.Tensor:
    """Return ``activation(a @ b + bias)``, accumulated in float32 and rounded once, by a
    persistent kernel.

    ``a`` (M, K) and ``b`` (K, N): 2-D dense float16 or bfloat16 tensors of one dtype on
    one CUDA device, which need not be the current one; any strides. Views with the
    negative bit are read as their values. Nothing may be nested, require grad while grad
    mode is on, or be a dual tensor of forward-mode AD (there is no backward and no
    tangent). ``out``: None or an (M, N) tensor of the same dtype and device whose
    elements do not share memory, sharing no memory with the inputs, not requiring grad
    (under grad mode) and not dual; its version counter is bumped, as torch's ``out=``
    ops do. ``bias``: None or a 1-D tensor of N elements, a's dtype and device, any stride,
    added per column in float32. ``activation``: None or ``"gelu"`` (exact, erf form),
    applied in float32 before the one rounding. K = 0 gives ``activation(bias)`` (zeros
    without either).

    ``path``: None picks the kernel by ``path_for`` (TMA on Hopper when the layouts allow,
    see ``tma_refusal``; pointer loads otherwise); ``"pointers"`` forces the pointer
    kernel; ``"tma"`` forces the TMA kernel and raises ValueError saying why where it
    cannot run (on the CPU interpreter it runs, with TMA's rules checked in software).
    ``warp_specialize``: a bool; True asks Triton to give loads and math their own warps
    (TMA path only, and only where the installed Triton has ``tl.range(...,
    warp_specialize=...)``). The TMA path sets Triton's allocator
    (``triton.set_allocator``) to one backed by torch on the calling thread: the
    descriptors live in a small global scratch buffer. Raises ``TypeError``/``ValueError``
    naming the argument instead of launching on anything else.
    """
    if path is not None and not isinstance(path, str):
        raise TypeError(f"matmul_tma: path must be None or a str, got {type(path).__name__}")
    if path is not None and path not in PATHS:
        raise ValueError(f"matmul_tma: path must be None or one of {PATHS}, got {path!r}")
    if type(warp_specialize) is not bool:
        raise TypeError(
            f"matmul_tma: warp_specialize must be a bool, got {type(warp_specialize).__name__}"
        )
    if activation is not None and not isinstance(activation, str):
        raise TypeError(
            f"matmul_tma: activation must be None or a str, got {type(activation).__name__}"
        )
    if activation not in ACTIVATIONS:
        raise ValueError(f"matmul_tma: activation must be one of {ACTIVATIONS}, got {activation!r}")
    _check_tensor("a", a)
    _check_tensor("b", b)
    if a.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"matmul_tma: a has dtype {a.dtype}; supported: {SUPPORTED_DTYPES}")
    if b.dtype != a.dtype:
        raise TypeError(f"matmul_tma: b has dtype {b.dtype}, but a has {a.dtype}")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"matmul_tma: {name} must be 2-D, got shape {tuple(t.shape)}")
    (M, K), (K_b, N) = a.shape, b.shape
    if K_b != K:
        raise ValueError(f"matmul_tma: b has shape {tuple(b.shape)}, but a has {K} columns")
    device = a.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if b.get_device() != device:
        raise ValueError(f"matmul_tma: b is on {b.device}, but a is on {a.device}")
    inputs = {"a": a, "b": b}
    if bias is not None:
        _check_tensor("bias", bias)
        if bias.dtype != a.dtype:
            raise TypeError(f"matmul_tma: bias has dtype {bias.dtype}, but a has {a.dtype}")
        if bias.shape != (N,):
            raise ValueError(f"matmul_tma: bias must have shape ({N},), got {tuple(bias.shape)}")
        if bias.get_device() != device:
            raise ValueError(f"matmul_tma: bias is on {bias.device}, but a is on {a.device}")
        inputs["bias"] = bias
    if torch.is_grad_enabled():
        for name, t in inputs.items():
            if t.requires_grad:
                raise ValueError(
                    f"matmul_tma: {name} requires grad, but this kernel has no backward; "
                    f"call it under torch.no_grad() or pass {name}.detach()"
                )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual(inputs)
    # A view with the neg bit stores -v and reads as v: the kernel sees memory only.
    inputs = {name: t.resolve_neg() if t.is_neg() else t for name, t in inputs.items()}
    a, b, bias = inputs["a"], inputs["b"], inputs.get("bias")

    if out is not None:
        _check_tensor("out", out)
        if out.dtype != a.dtype:
            raise TypeError(f"matmul_tma: out has dtype {out.dtype}, but a has {a.dtype}")
        if out.shape != (M, N) or out.get_device() != device:
            raise ValueError(
                f"matmul_tma: out must be ({M}, {N}) on a's device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        if out.is_neg():
            raise ValueError("matmul_tma: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "matmul_tma: out requires grad, and a write into it cannot be differentiated; "
                "call it under torch.no_grad() or leave out=None"
            )
        _check_out_memory(out, inputs)
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual({"out": out})

    # Which kernel: checked before anything is written.
    chosen = path_for(a, b, out) if path is None else path
    if chosen == "tma":
        if not HAS_TENSOR_DESCRIPTORS:
            raise ValueError(
                f"matmul_tma: path='tma' needs tl.make_tensor_descriptor and "
                f"triton.set_allocator, which triton {triton.__version__} lacks"
            )
        if device >= 0 and _capability(device) < (9, 0):
            major, minor = _capability(device)
            raise ValueError(
                f"matmul_tma: path='tma' needs compute capability 9.0 (Hopper) or newer; "
                f"{a.device} has {major}.{minor}"
            )
        reason = tma_refusal(a, b, out)
        if reason is not None:
            raise ValueError(f"matmul_tma: path='tma' cannot run: {reason}")
    if warp_specialize:
        if chosen != "tma":
            raise ValueError("matmul_tma: warp_specialize=True needs the TMA path, which this "
                             "call does not take (see path_for)")  # fmt: skip
        if not HAS_WARP_SPECIALIZE:
            raise ValueError(
                f"matmul_tma: warp_specialize=True needs tl.range(..., warp_specialize=...), "
                f"which triton {triton.__version__} lacks"
            )

    if out is None:
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    else:
        # As torch's out= ops do: tensors saved for a backward that alias out now fail
        # there ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)
    if M == 0 or N == 0:
        return out
    args = (a, b, out, bias, activation)
    if device < 0 or device == torch.cuda.current_device():
        launch(*args, path=chosen, warp_specialize=warp_specialize)
    else:
        # Triton launches on the current device; if a is on another GPU, switch for it.
        with torch.cuda.device(device):
            launch(*args, path=chosen, warp_specialize=warp_specialize)
    return out


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(
    a: torch.Tensor,
    b: torch.Tensor,
    bias: torch.Tensor | None = None,
    activation: str | None = None,
) -> torch.Tensor:
    """``activation(a @ b + bias)`` computed in float64 by torch alone, rounded once to
    ``a``'s dtype (float64 inputs give the unrounded float64 result)."""
    c = a.double() @ b.double()
    if bias is not None:
        c = c + bias.double()
    if activation == "gelu":
        c = torch.nn.functional.gelu(c)  # the exact (erf) form
    return c.to(a.dtype)


# --8<-- [end:reference]
