"""Tiled matmul: ``out = activation(a @ b + bias)`` for 2-D ``a`` (M, K) and ``b`` (K, N).

Each program owns one BLOCK_M x BLOCK_N tile of the output. It walks along K, loading a
BLOCK_M x BLOCK_K tile of ``a`` and a BLOCK_K x BLOCK_N tile of ``b`` per step and
accumulating their product in float32 with ``tl.dot``; then it applies the optional
epilogue (a bias per column, exact GELU) to the accumulator while it is still in
registers, and stores the tile once. Programs visit the output tiles in "grouped" order,
so that programs running at the same time share input tiles through the L2 cache.

Sections, as in every kernel file of the book: ``minimal`` (the smallest tiled matmul
that works, on divisible shapes only: lesson 09 starts there), ``kernel``, ``autotune``
(the configs the autotuner tries and the kernel behind ``@triton.autotune``), ``launch``
(the host code: arguments, grid, launch, no checks), ``checks`` (``matmul``, which refuses
by name what the kernel cannot handle, then launches) and ``reference``. The autotuner, not the host
code, picks the tiles, so this family has no ``plan``. Lesson 09 of the book walks
through this file.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:minimal]
# The smallest tiled matmul that works: c = a @ b, one BLOCK_M x BLOCK_N tile of c per
# program, a walk along K one BLOCK_K slice at a time, fp16/bf16 in and float32 sums. What
# it leaves out, each added in the kernel below: masks (M, N and K must be multiples of
# the blocks: a ragged edge tile is never computed, and a ragged K reads past the rows),
# strides (a, b and c contiguous, row-major), int64 offsets, the grouped tile order,
# autotuning and the epilogue.
@triton.jit
def minimal_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(axis=0)
    pid_m = pid // (N // BLOCK_N)  # tiles in row-major order
    pid_n = pid % (N // BLOCK_N)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])  # a[rows, k : k + BLOCK_K]
        b = tl.load(b_ptr + (k + ks)[:, None] * N + cols[None, :])  # b[k : k + BLOCK_K, cols]
        acc = tl.dot(a, b, acc)  # on tensor cores, summed in float32
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(c_ptr.dtype.element_ty))


def matmul_minimal(a, b, block_m=64, block_n=64, block_k=32):
    """``a @ b`` for contiguous fp16/bf16 ``a`` (M, K) and ``b`` (K, N) on the current
    device, M, N and K multiples of the blocks; no checks."""
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = ((M // block_m) * (N // block_n),)
    minimal_kernel[grid](a, b, c, M, N, K, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k)
    return c


# --8<-- [end:minimal]


# --8<-- [start:kernel]
@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, bias_ptr,
    M, N, K,
    M_BUCKET,  # M rounded up to a power of two: only the autotuner's key reads it
    stride_am, stride_ak,  # element strides: any layout, transposed views included
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    stride_bias,
    HAS_BIAS: tl.constexpr,
    ACTIVATION: tl.constexpr,  # None or "gelu"
    GROUP_M: tl.constexpr,  # tile rows per group; 1 is plain row-major order
    UPCAST: tl.constexpr,  # only for the CPU interpreter, see below
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    # --8<-- [start:order]
    # Which output tile do I own? The grid is 1-D; turn the program id into a tile
    # (pid_m, pid_n). Row-major order would walk a whole row of tiles before moving
    # down. Grouped order walks down GROUP_M tile rows first, column by column, so the
    # programs that run at the same time share a few rows of `a` and columns of `b`.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may be short
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    # --8<-- [end:order]

    # Row, column and k indices of this tile. Whatever gets multiplied by a stride is
    # int64: a row index times a row stride can pass 2**31 (a is 300,000 x 8,192 at
    # 2.5 G elements), and int32 would wrap.
    offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)  # int32: only compared with K in the loop
    k64 = offs_k.to(tl.int64)
    mask_m = offs_m < M  # the last tile row and column may stick out of the matrix
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + k64[None, :] * stride_ak
    b_ptrs = b_ptr + k64[:, None] * stride_bk + offs_n[None, :] * stride_bn
    # How far the pointers move per K step, in int64 for the same reason.
    a_step = tl.cast(stride_ak, tl.int64) * BLOCK_K
    b_step = tl.cast(stride_bk, tl.int64) * BLOCK_K

    # The K loop: a running float32 sum of BLOCK_K-wide slices of the product.
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K  # the last step may be ragged: mask it, fill with 0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        if UPCAST:
            # The CPU interpreter multiplies bf16 as raw bit patterns (garbage), so
            # there the tiles go through float32. On a GPU UPCAST is False and bf16
            # goes straight into the tensor cores.
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        # fp16/bf16 tiles: tensor cores, float32 accumulation. float32 tiles: TF32
        # (inputs rounded to 10 mantissa bits), the default input_precision on a GPU.
        acc = tl.dot(a, b, acc)
        a_ptrs += a_step
        b_ptrs += b_step

    # --8<-- [start:epilogue]
    # The epilogue: the accumulator is still in registers, so a bias and an activation
    # cost no extra trip to memory. Both in float32; the result is rounded once.
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_n * stride_bias, mask=mask_n, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    if ACTIVATION == "gelu":
        # exact GELU: x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2)))
        acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    # --8<-- [end:epilogue]
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


# --8<-- [end:kernel]


# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def make_config(block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int):
    """A ``triton.Config`` of ``matmul_kernel``: its three tile sides, warps and stages."""
    kwargs = {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k}
    return triton.Config(kwargs, num_warps=num_warps, num_stages=num_stages)


# --8<-- [start:autotune]
# What the autotuner tries, chosen for Hopper (H100/H200): large tiles on 8 warps for
# large matrices, smaller ones for small or thin ones. Shared memory per config (fp16):
# 144 KiB for the first two, 192 KiB for the third; see shared_memory_bytes.
CONFIGS = [
    make_config(128, 256, 64, 8, 3),
    make_config(256, 128, 64, 8, 3),
    make_config(128, 256, 64, 8, 4),
    make_config(128, 128, 64, 4, 4),
    make_config(64, 256, 32, 4, 4),
    make_config(128, 64, 64, 4, 4),
    make_config(64, 128, 64, 4, 4),
    make_config(64, 64, 128, 4, 4),
]
# Used when no config above fits the GPU's shared memory (float32 on a small GPU).
FALLBACK_CONFIG = make_config(64, 64, 32, 4, 2)
# The interpreter runs every program one after another on the CPU: one small config, so
# that a test needs no tuning and still sees several tiles, K steps and ragged edges.
INTERPRETER_CONFIG = make_config(32, 16, 16, 4, 1)


def shared_memory_bytes(config: triton.Config, element_size: int) -> int:
    """Shared memory a config stages its operands in: one ``a`` tile (BLOCK_M x BLOCK_K)
    and one ``b`` tile (BLOCK_K x BLOCK_N) per pipeline stage. An estimate: the
    compiler may add a little scratch of its own."""
    kw = config.kwargs
    return config.num_stages * (kw["BLOCK_M"] + kw["BLOCK_N"]) * kw["BLOCK_K"] * element_size


_SMEM_LIMITS: dict[int, int] = {}


def shared_memory_limit(device: int) -> int | None:
    """Shared memory one program may use on CUDA device ``device`` (bytes, as Triton
    counts it; 232,448 on an H100); None for the CPU interpreter, which has no limit."""
    if device < 0:
        return None
    if device not in _SMEM_LIMITS:
        props = triton.runtime.driver.active.utils.get_device_properties(device)
        _SMEM_LIMITS[device] = props["max_shared_mem"]
    return _SMEM_LIMITS[device]


def configs_that_fit(configs, named_args, **kwargs):
    # The autotuner's early_config_prune: drop configs this GPU cannot hold, instead of
    # compiling them only to fail with "out of resources".
    a = named_args["a_ptr"]
    limit = shared_memory_limit(a.get_device())
    fits = [
        c for c in configs if limit is None or shared_memory_bytes(c, a.element_size()) <= limit
    ]
    return fits or [FALLBACK_CONFIG]


def m_bucket(m: int) -> int:
    """What the autotuner keys on instead of M: the next power of two >= M, at least 16. A
    serving loop whose token count M changes on every call then tunes once per bucket,
    not once per M: the config timed for M = 300 serves every M from 257 to 512."""
    return max(16, 1 << (m - 1).bit_length())


# The same kernel behind @triton.autotune: on the first call for each key, it times every
# config that fits and keeps the fastest. The dtype of each tensor is part of the key too.
# M enters the key only as its bucket (m_bucket): N and K, a model's fixed widths, exactly.
matmul_autotuned = triton.autotune(
    configs=[INTERPRETER_CONFIG] if _INTERPRET else CONFIGS,
    key=["M_BUCKET", "N", "K", "GROUP_M", "HAS_BIAS", "ACTIVATION"],
    prune_configs_by={"early_config_prune": configs_that_fit},
)(matmul_kernel)
# --8<-- [end:autotune]


# --8<-- [start:launch]
def launch(a, b, out=None, bias=None, activation=None, *, group_m: int = 8, config=None):
    """``out = activation(a @ b + bias)`` for 2-D ``a`` (M, K) and ``b`` (K, N) of one
    dtype and device, any strides, ``out`` (M, N) or None for a new one; M, N >= 1; no
    checks. ``config``: None lets the autotuner pick the tiles, or one ``triton.Config``."""
    (M, K), N = a.shape, b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    # With no bias, any pointer will do for bias_ptr: the kernel never reads it.
    args = (a, b, out, out if bias is None else bias, M, N, K, m_bucket(M))
    args += (*a.stride(), *b.stride())
    args += (*out.stride(), 0 if bias is None else bias.stride(0))
    flags = {
        "HAS_BIAS": bias is not None,
        "ACTIVATION": activation,
        "GROUP_M": group_m,
        "UPCAST": _INTERPRET and a.dtype == torch.bfloat16,
    }
    if config is None:
        # One program per output tile; the tile size is the autotuner's choice.
        def grid(meta):
            return (-(-M // meta["BLOCK_M"]) * -(-N // meta["BLOCK_N"]),)

        matmul_autotuned[grid](*args, **flags)
    else:
        kw = config.kwargs
        grid = (-(-M // kw["BLOCK_M"]) * -(-N // kw["BLOCK_N"]),)
        matmul_kernel[grid](
            *args, **flags, **kw, num_warps=config.num_warps, num_stages=config.num_stages
        )
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
ACTIVATIONS = (None, "gelu")
MAX_GROUP_M = 64  # GROUP_M is a compile-time constant: each value compiles its own kernel
MIN_BLOCK, MAX_BLOCK = 16, 256  # tile sides; tl.dot needs each to be at least 16
MAX_NUM_WARPS, MAX_NUM_STAGES = 16, 8
# The float32 accumulator lives in registers: BLOCK_M * BLOCK_N / (32 * num_warps) per
# thread. A thread has at most 255 registers, and the loads and addresses need some too:
# 128 (128 x 256 on 8 warps, 128 x 128 on 4) is as far as the configs below go.
MAX_ACC_PER_THREAD = 128


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"matmul: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"matmul: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"matmul: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"matmul: {name} must be a dense tensor, got {got}")


def _check_not_dual(tensors: dict) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    for name, t in tensors.items():
        if _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"matmul: {name} is a dual tensor (forward-mode AD), but this kernel computes "
                f"no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    # [first byte, one past the last byte] that any element of the strided tensor t can
    # touch. (torch strides are never negative.)
    if t.numel() == 0:
        return t.data_ptr(), t.data_ptr()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride(), strict=True))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _check_out_memory(out: torch.Tensor, inputs: dict) -> None:
    # Two elements of out at one address: programs would race to write it.
    span = 1  # elements covered by the dims with smaller strides
    for stride, size in sorted(
        (st, s) for s, st in zip(out.shape, out.stride(), strict=True) if s > 1
    ):
        if stride < span:
            raise ValueError(
                f"matmul: out has strides {out.stride()} that make elements share memory"
            )
        span += (size - 1) * stride
    # out may share no byte with an input: some program could overwrite an input element
    # before another program reads it. Judged by address ranges, not by storage; views
    # that interleave within one range (every other column) are refused too.
    lo, hi = _byte_range(out)
    for name, t in inputs.items():
        t_lo, t_hi = _byte_range(t)
        if lo < t_hi and t_lo < hi:
            raise ValueError(f"matmul: out overlaps {name}")


def _check_config(config: object) -> None:
    if not isinstance(config, triton.Config):
        raise TypeError(f"matmul: config must be a triton.Config or None, got {type(config)}")
    if set(config.kwargs) != {"BLOCK_M", "BLOCK_N", "BLOCK_K"}:
        raise ValueError(
            "matmul: config must set exactly BLOCK_M, BLOCK_N and BLOCK_K, "
            f"got {sorted(config.kwargs)}"
        )
    knobs = {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}
    bounds = {
        "BLOCK_M": (MIN_BLOCK, MAX_BLOCK),
        "BLOCK_N": (MIN_BLOCK, MAX_BLOCK),
        "BLOCK_K": (MIN_BLOCK, MAX_BLOCK),
        "num_warps": (1, MAX_NUM_WARPS),
        "num_stages": (1, MAX_NUM_STAGES),
    }
    for name, value in knobs.items():
        # Exactly int: True passes as 1 and 64.0 equals 64, but neither is a tile size.
        if type(value) is not int:
            raise TypeError(f"matmul: config {name} must be an int, got {type(value).__name__}")
        lo, hi = bounds[name]
        power_of_two = value & (value - 1) == 0
        if not (lo <= value <= hi and (power_of_two or name == "num_stages")):
            kind = "an int" if name == "num_stages" else "a power of two"
            raise ValueError(f"matmul: config {name} must be {kind} in [{lo}, {hi}], got {value}")
    if config.num_ctas != 1 or config.maxnreg is not None or config.pre_hook is not None:
        raise ValueError("matmul: config may set only the block sizes, num_warps and num_stages")
    per_thread = knobs["BLOCK_M"] * knobs["BLOCK_N"] // (32 * knobs["num_warps"])
    if per_thread > MAX_ACC_PER_THREAD:
        raise ValueError(
            f"matmul: config gives each thread {per_thread} accumulator elements "
            f"(BLOCK_M * BLOCK_N / (32 * num_warps)), more than {MAX_ACC_PER_THREAD}: with "
            "at most 255 registers per thread they would spill. Use smaller blocks or more warps"
        )


def matmul(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    bias: torch.Tensor | None = None,
    activation: str | None = None,
    out: torch.Tensor | None = None,
    group_m: int = 8,
    config: triton.Config | None = None,
) -> torch.Tensor:
    """Return ``activation(a @ b + bias)``, accumulated in float32 and rounded once.

    ``a`` (M, K) and ``b`` (K, N): 2-D dense tensors of one dtype (float16, bfloat16 or
    float32; float32 goes through TF32 tensor cores on a GPU, like torch with
    ``allow_tf32``) on one CUDA device, which need not be the current one. Any strides:
    transposed views (``w.t()``) and slices are read in place, without a copy. Views
    with the negative bit are read as their values. ``bias``: None or a 1-D tensor of
    length N, same dtype and device, added to every row. ``activation``: None or
    ``"gelu"`` (exact, erf form). Nothing may be nested, require grad while grad mode is
    on, or be a dual tensor of forward-mode AD: there is no backward and no tangent.
    ``out``: None or an (M, N) tensor of the same dtype and device, any strides whose
    elements do not share memory, sharing no memory with the inputs, not requiring grad
    (under grad mode) and not dual; its version counter is bumped, as torch's
    ``out=`` ops do. ``group_m``: tile rows per group in the program order, an int in
    [1, 64]; 1 is row-major. ``config``: None to autotune over ``CONFIGS``, or one
    ``triton.Config`` with BLOCK_M/N/K (powers of two in [16, 256]), num_warps (a power
    of two in [1, 16]) and num_stages (in [1, 8]). K = 0 gives ``activation(bias)`` in
    every row. Raises ``TypeError``/``ValueError`` naming the argument instead of
    launching on anything else.
    """
    if type(group_m) is not int:
        raise TypeError(f"matmul: group_m must be an int, got {type(group_m).__name__}")
    if not 1 <= group_m <= MAX_GROUP_M:
        raise ValueError(f"matmul: group_m must be in [1, {MAX_GROUP_M}], got {group_m}")
    if config is not None:
        _check_config(config)
    if activation not in ACTIVATIONS:
        raise ValueError(f"matmul: activation must be one of {ACTIVATIONS}, got {activation!r}")
    _check_tensor("a", a)
    _check_tensor("b", b)
    # (The conj bit exists only on complex tensors, which this check refuses.)
    if a.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"matmul: a has dtype {a.dtype}; supported: {SUPPORTED_DTYPES}")
    if b.dtype != a.dtype:
        raise TypeError(f"matmul: b has dtype {b.dtype}, but a has {a.dtype}")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"matmul: {name} must be 2-D, got shape {tuple(t.shape)}")
    (M, K), (K_b, N) = a.shape, b.shape
    if K_b != K:
        raise ValueError(f"matmul: b has shape {tuple(b.shape)}, but a has {K} columns")
    device = a.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if b.get_device() != device:
        raise ValueError(f"matmul: b is on {b.device}, but a is on {a.device}")
    if config is not None:
        limit = shared_memory_limit(device)
        need = shared_memory_bytes(config, a.element_size())
        if limit is not None and need > limit:
            raise ValueError(
                f"matmul: config needs about {need:,} bytes of shared memory for {a.dtype}, "
                f"more than this GPU's {limit:,}; use fewer stages or smaller blocks"
            )
    inputs = {"a": a, "b": b}
    if bias is not None:
        _check_tensor("bias", bias)
        if bias.dtype != a.dtype:
            raise TypeError(f"matmul: bias has dtype {bias.dtype}, but a has {a.dtype}")
        if bias.shape != (N,):
            raise ValueError(f"matmul: bias must have shape ({N},), got {tuple(bias.shape)}")
        if bias.get_device() != device:
            raise ValueError(f"matmul: bias is on {bias.device}, but a is on {a.device}")
        inputs["bias"] = bias
    if torch.is_grad_enabled():
        for name, t in inputs.items():
            if t.requires_grad:
                raise ValueError(
                    f"matmul: {name} requires grad, but this kernel has no backward; "
                    f"call it under torch.no_grad() or pass {name}.detach()"
                )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual(inputs)
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first.
    inputs = {name: t.resolve_neg() if t.is_neg() else t for name, t in inputs.items()}
    a, b, bias = inputs["a"], inputs["b"], inputs.get("bias")

    if out is None:
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    else:
        _check_tensor("out", out)
        if out.dtype != a.dtype:
            raise TypeError(f"matmul: out has dtype {out.dtype}, but a has {a.dtype}")
        if out.shape != (M, N) or out.get_device() != device:
            raise ValueError(
                f"matmul: out must be ({M}, {N}) on a's device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        if out.is_neg():
            raise ValueError("matmul: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "matmul: out requires grad, and a write into it cannot be differentiated; "
                "call it under torch.no_grad() or leave out=None"
            )
        _check_out_memory(out, inputs)
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual({"out": out})
        # As torch's out= ops do: tensors saved for a backward that alias out now fail there
        # ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)
    if M == 0 or N == 0:
        return out

    try:
        if device < 0 or device == torch.cuda.current_device():
            launch(a, b, out, bias, activation, group_m=group_m, config=config)
        else:
            # Triton launches on the current device; if a is on another GPU, switch for it.
            with torch.cuda.device(device):
                launch(a, b, out, bias, activation, group_m=group_m, config=config)
    except triton.runtime.errors.OutOfResources as exc:
        if config is None:  # the autotuner drops what does not fit; this is something else
            raise
        # The shared memory estimate above was short.
        raise ValueError(f"matmul: config does not fit this GPU: {exc}") from exc
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
