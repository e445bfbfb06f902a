"""One kernel, two ways to choose its configuration: lesson 13's autotuning fragments.

``split_k_kernel`` computes ``c += a @ b`` into a float32 ``c``. Each output tile is
shared by SPLIT_K programs; program ``s`` of a tile sums every SPLIT_K-th step of the K
loop, starting at step ``s``, and adds its partial result into ``c`` with
``tl.atomic_add``. Splitting K gives a small output (few tiles, long K) enough programs to
fill the GPU, at the price of atomics and a zeroed ``c``.

Because the kernel adds into its output, running it twice doubles the result. That is
exactly what the autotuner does when it times each config, so ``split_k_autotuned`` names
``c_ptr`` in ``reset_to_zero``. ``split_k_heuristic`` computes SPLIT_K from the shape
instead (``@triton.heuristics``): no timing at all, so nothing to reset.

``split_k_autotuned`` times configs with CUDA events and so needs a GPU; the heuristic
version also runs on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported). tests/kernels/test_tuning.py checks both, and that
leaving out ``reset_to_zero`` gives a wrong result.
"""

import torch
import triton
import triton.language as tl

# Fixed tile: this file is about choosing SPLIT_K, not the tile (lesson 09 tunes tiles).
BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
MAX_SPLIT_K = 8


# --8<-- [start:kernel]
@triton.jit
def split_k_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    M_BUCKET,  # M rounded up to a power of two: only the autotuner's key reads it
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
):  # fmt: skip
    # Axis 0: which output tile. Axis 1: which of the SPLIT_K programs sharing it.
    tile = tl.program_id(axis=0)
    s = tl.program_id(axis=1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = (tile // tiles_n).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = (tile % tiles_n).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # This program's K steps: s, s + SPLIT_K, s + 2 * SPLIT_K, ...
    for k0 in range(s * BLOCK_K, K, SPLIT_K * BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        mask_k = offs_k < K
        k64 = offs_k.to(tl.int64)  # int64: k times a row stride can pass 2**31
        a = tl.load(
            a_ptr + offs_m[:, None] * stride_am + k64[None, :] * stride_ak,
            mask=mask_m[:, None] & mask_k[None, :],
            other=0.0,
        )
        b = tl.load(
            b_ptr + k64[:, None] * stride_bk + offs_n[None, :] * stride_bn,
            mask=mask_k[:, None] & mask_n[None, :],
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    # SPLIT_K programs add into the same tile of c: atomically, in float32.
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.atomic_add(c_ptrs, acc, mask=mask_m[:, None] & mask_n[None, :])


# --8<-- [end:kernel]


# --8<-- [start:autotune]
def m_bucket(m: int) -> int:
    """M as the autotuner's key sees it: the next power of two >= M, at least 16, so that
    an M that changes on every call (a batch of varying length) tunes once per bucket."""
    return max(16, 1 << (m - 1).bit_length())


# Choose SPLIT_K by timing: on the first call for each (M's bucket, N, K, dtypes) the
# autotuner runs every config many times. The kernel adds into c, so each of those runs
# would add its product on top of the last one's: reset_to_zero zeroes c before every
# timed run, and once more before the real call.
split_k_autotuned = triton.autotune(
    configs=[triton.Config({"SPLIT_K": s}, num_warps=4, num_stages=3) for s in (1, 2, 4, 8)],
    key=["M_BUCKET", "N", "K"],
    reset_to_zero=["c_ptr"],
)(split_k_kernel)
# --8<-- [end:autotune]


# --8<-- [start:heuristics]
# Split until the grid has about one program per SM: 128, a round number just under the
# 132 SMs of an H100 or H200. (For another GPU, torch.cuda.get_device_properties(device)
# .multi_processor_count gives its SMs.)
MIN_PROGRAMS = 128


def split_k_for(args: dict) -> int:
    """SPLIT_K from the shape: double it while the grid has fewer than MIN_PROGRAMS programs
    and each program still gets at least 4 K steps."""
    tiles = triton.cdiv(args["M"], args["BLOCK_M"]) * triton.cdiv(args["N"], args["BLOCK_N"])
    k_steps = triton.cdiv(args["K"], args["BLOCK_K"])
    split = 1
    while split < MAX_SPLIT_K and tiles * split < MIN_PROGRAMS and k_steps >= 2 * split * 4:
        split *= 2
    return split


# Choose SPLIT_K by a rule: computed on every call from the arguments, nothing is timed.
split_k_heuristic = triton.heuristics(values={"SPLIT_K": split_k_for})(split_k_kernel)
# --8<-- [end:heuristics]


# --8<-- [start:launch]
def launch(a, b, *, tuning="heuristics"):
    """``a @ b`` in a new float32 ``c``, for 2-D ``a`` and ``b`` of one dtype on the current
    device, SPLIT_K chosen by ``split_k_heuristic`` or (``tuning="autotune"``) timed by
    ``split_k_autotuned``; no checks."""
    (M, K), N = a.shape, b.shape[1]
    # Zeros, not empty: the kernel adds its partial sums into c.
    c = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    kernel = split_k_heuristic if tuning == "heuristics" else split_k_autotuned
    tiles = ((M + BLOCK_M - 1) // BLOCK_M) * ((N + BLOCK_N - 1) // BLOCK_N)
    # The grid depends on SPLIT_K, which the heuristic or the autotuner decides: a function
    # of the meta-parameters, called once they are known.
    kernel[lambda meta: (tiles, meta["SPLIT_K"])](
        a, b, c, M, N, K, m_bucket(M), *a.stride(), *b.stride(), *c.stride(),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
    )  # fmt: skip
    return c


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float16, torch.float32)

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _check(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"split_k_matmul: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.is_meta:
        raise ValueError(f"split_k_matmul: {name} is a meta tensor (a shape with no data)")
    if not t.is_cuda and not _INTERPRET:
        raise ValueError(
            f"split_k_matmul: {name} must be on a CUDA device, got {t.device} "
            "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
        )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"split_k_matmul: {name} must be a dense tensor, got {got}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"split_k_matmul: {name} has dtype {t.dtype}; supported {SUPPORTED_DTYPES}")
    if t.dim() != 2:
        raise ValueError(f"split_k_matmul: {name} must be 2-D, got shape {tuple(t.shape)}")
    if t.requires_grad and torch.is_grad_enabled():
        raise ValueError(
            f"split_k_matmul: {name} requires grad, but this kernel has no backward; "
            f"call it under torch.no_grad() or pass {name}.detach()"
        )
    if _FORWARD_AD._current_level >= 0 and _FORWARD_AD.unpack_dual(t).tangent is not None:
        raise ValueError(
            f"split_k_matmul: {name} is a dual tensor (forward-mode AD), but this kernel "
            f"computes no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
        )


def split_k_matmul(a: torch.Tensor, b: torch.Tensor, *, tuning: str = "heuristics") -> torch.Tensor:
    """Return ``a @ b`` in float32 for 2-D ``a`` (M, K) and ``b`` (K, N) of one dtype
    (float16 or float32; float32 goes through TF32 on a GPU) on one device, any strides;
    views with the negative bit are read as their values. Neither may be nested, require
    grad under grad mode (there is no backward) or be a dual tensor of forward-mode AD.

    ``tuning``: ``"heuristics"`` (SPLIT_K from the shape, ``split_k_heuristic``) or
    ``"autotune"`` (SPLIT_K timed on the first call per shape, ``split_k_autotuned``;
    needs a GPU). Raises ``TypeError``/``ValueError`` naming the argument otherwise."""
    if tuning not in ("heuristics", "autotune"):
        raise ValueError(
            f"split_k_matmul: tuning must be 'heuristics' or 'autotune', got {tuning!r}"
        )
    _check("a", a)
    _check("b", b)
    if b.dtype != a.dtype:
        raise TypeError(f"split_k_matmul: b has dtype {b.dtype}, but a has {a.dtype}")
    (M, K), (K_b, N) = a.shape, b.shape
    if K_b != K:
        raise ValueError(f"split_k_matmul: b has shape {tuple(b.shape)}, but a has {K} columns")
    if b.device != a.device:
        raise ValueError(f"split_k_matmul: b is on {b.device}, but a is on {a.device}")
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first.
    a = a.resolve_neg() if a.is_neg() else a
    b = b.resolve_neg() if b.is_neg() else b
    if M == 0 or N == 0 or K == 0:  # nothing to add up: the product is zeros
        return torch.zeros((M, N), dtype=torch.float32, device=a.device)
    # Triton launches on the current device; if a is on another GPU, switch for the launch.
    # (Device -1 is the CPU, under the interpreter: nothing to switch.)
    device = a.get_device()
    if device < 0 or device == torch.cuda.current_device():
        return launch(a, b, tuning=tuning)
    with torch.cuda.device(device):
        return launch(a, b, tuning=tuning)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` in float64 by torch alone, rounded once to float32."""
    return (a.double() @ b.double()).float()


# --8<-- [end:reference]
