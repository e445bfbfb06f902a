"""An FMA-bound kernel: how many fp32 FLOP/s the GPU's ordinary (CUDA-core) units reach.

The copy and matmul ceilings of the book are measured with torch; this file measures the
third roof of lesson 01's roofline, the fp32 rate of plain arithmetic, which is the roof
that elementwise fp32 kernels such as vector add live under. Every element of the input
starts a chain of fused multiply-adds, ``a <- a * scale + x``, kept in registers; the
result is stored so that no step can be dropped as dead code.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def fma_chains_kernel(
    x_ptr, out_ptr, n_elements, scale, iters, BLOCK: tl.constexpr, UNROLL: tl.constexpr
):
    pid = tl.program_id(axis=0)
    # int64: with more than 2**31 elements, pid * BLOCK would wrap in int32.
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    acc = x
    # `iters` arrives at run time, so the compiler knows neither the trip count nor the
    # result: it has to emit the loop. Each trip does UNROLL dependent FMAs per element;
    # the BLOCK elements are independent chains, several per thread, so each thread has
    # several FMAs ready to issue while earlier ones are still in flight.
    for _trip in range(iters):
        for _step in tl.static_range(UNROLL):
            acc = tl.fma(acc, scale, x)  # one instruction, 2 FLOPs
    # Storing every chain's end keeps every FMA live: none can be removed as unused.
    tl.store(out_ptr + offsets, acc, mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:launch]
UNROLL = 16  # FMAs per element per trip round the loop


def launch(x, scale, iters, *, block=1024, num_warps=4):
    """``iters * UNROLL`` steps of ``a <- fma(a, scale, x)`` from ``a = x``, for every element
    of a contiguous float32 ``x`` on the current device; no checks."""
    out = torch.empty_like(x)
    n = x.numel()
    grid = ((n + block - 1) // block,)  # enough programs to cover every element
    fma_chains_kernel[grid](x, out, n, float(scale), iters, BLOCK=block, UNROLL=UNROLL,
                            num_warps=num_warps)  # fmt: skip
    return out


# --8<-- [end:launch]


def flops(n_elements: int, iters: int) -> int:
    """FLOPs that ``fma_chains`` does on ``n_elements`` elements: 2 per FMA (a multiply
    and an add), ``iters * UNROLL`` FMAs per element. Masked-off lanes of a ragged last
    tile also compute, but are not counted."""
    return 2 * n_elements * iters * UNROLL


# --8<-- [start:checks]
MIN_BLOCK, MAX_BLOCK = 32, 8192  # elements per program; a power of two
MAX_NUM_WARPS = 32
MAX_PER_THREAD = 64  # independent chains per thread; more costs registers, not speed
MAX_ITERS = 2**31 - 1  # the loop counter is an int32
MAX_PROGRAMS = 2**31 - 1
MAX_FLOAT32 = 3.4e38  # about float32's largest: scale goes to the kernel as a float32

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _check_int(name: str, value: object, lo: int, hi: int, power_of_two: bool) -> None:
    # Exactly int: True passes as 1 and 1024.0 equals 1024, but neither is a count.
    if type(value) is not int:
        raise TypeError(f"fma_chains: {name} must be an int, got {type(value).__name__}")
    if not (lo <= value <= hi) or (power_of_two and value & (value - 1)):
        kind = "a power of two" if power_of_two else "an int"
        raise ValueError(f"fma_chains: {name} must be {kind} in [{lo}, {hi}], got {value}")


def fma_chains(
    x: torch.Tensor,
    scale: float,
    iters: int,
    *,
    block: int = 1024,
    num_warps: int = 4,
) -> torch.Tensor:
    """Return, for every element ``x[i]``, the end of ``iters * UNROLL`` steps of
    ``a <- fma(a, scale, x[i])`` started from ``a = x[i]``, in float32.

    ``x``: a contiguous dense float32 tensor (not nested) of any shape (0-d and empty
    included) on a CUDA device, which need not be the current one, or on the CPU under the
    interpreter; it may not require grad while grad mode is on, nor be a dual tensor of
    forward-mode AD (there is no backward and no tangent). ``scale``: a Python float or
    int (not a bool), finite in float32 (at most 3.4e38 in magnitude). ``iters``: an int
    in [0, 2**31 - 1], the trip count of the kernel's loop (a run-time argument, so the
    compiler cannot fold the loop). ``block`` (a power of two in [32, 8192]) and
    ``num_warps`` (a power of two in [1, 32]) may give each thread at most 64 chains.
    ``flops(x.numel(), iters)`` is the work done. Raises ``TypeError``/``ValueError``
    naming the argument instead of launching on anything else.
    """
    _check_int("block", block, MIN_BLOCK, MAX_BLOCK, power_of_two=True)
    _check_int("num_warps", num_warps, 1, MAX_NUM_WARPS, power_of_two=True)
    _check_int("iters", iters, 0, MAX_ITERS, power_of_two=False)
    per_thread = block // (32 * num_warps)
    if not 1 <= per_thread <= MAX_PER_THREAD:
        raise ValueError(
            f"fma_chains: block={block} with num_warps={num_warps} gives each thread "
            f"{block / (32 * num_warps):g} chains; it must be 1 to {MAX_PER_THREAD}"
        )
    # A Python float or int (float subclasses such as numpy.float64 too; bool is no number
    # here), finite once it is a float32.
    if isinstance(scale, bool) or not isinstance(scale, (float, int)):
        raise TypeError(
            f"fma_chains: scale must be a Python float or int, got {type(scale).__name__}"
        )
    if not -MAX_FLOAT32 <= scale <= MAX_FLOAT32:  # NaN fails too; a huge int compares exactly
        raise ValueError(f"fma_chains: scale must be finite in float32, got {scale}")
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"fma_chains: x must be a torch.Tensor, got {type(x).__name__}")
    if not x.is_cuda:
        if x.is_meta:
            raise ValueError("fma_chains: x is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(f"fma_chains: x must be on a CUDA device, got {x.device}")
    if x.layout != torch.strided or x.is_nested:
        got = "a nested tensor" if x.is_nested else f"layout {x.layout}"
        raise ValueError(f"fma_chains: x must be a dense tensor, got {got}")
    if x.dtype != torch.float32:
        raise TypeError(f"fma_chains: x must be float32 (the fp32 rate), got {x.dtype}")
    if not x.is_contiguous():
        raise ValueError("fma_chains: x must be contiguous (call .contiguous() first)")
    if x.requires_grad and torch.is_grad_enabled():
        raise ValueError(
            "fma_chains: x requires grad, but this kernel has no backward; "
            "call it under torch.no_grad() or pass x.detach()"
        )
    if _FORWARD_AD._current_level >= 0 and _FORWARD_AD.unpack_dual(x).tangent is not None:
        raise ValueError(
            "fma_chains: x is a dual tensor (forward-mode AD), but this kernel computes no "
            "tangent; pass the primal, forward_ad.unpack_dual(x).primal"
        )
    if x.is_neg():  # a view that stores -v and reads as v: the kernel sees only memory
        x = x.resolve_neg()

    n = x.numel()
    if n == 0:
        return torch.empty_like(x)
    programs = (n + block - 1) // block
    if programs > MAX_PROGRAMS:
        raise ValueError(f"fma_chains: {n} elements need {programs} programs; raise block")
    # Triton launches on the current device; if x is on another GPU, switch for the launch.
    device = x.get_device()  # -1 for a CPU tensor (interpreter): nothing to switch
    if device < 0 or device == torch.cuda.current_device():
        return launch(x, scale, iters, block=block, num_warps=num_warps)
    with torch.cuda.device(device):
        return launch(x, scale, iters, block=block, num_warps=num_warps)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(x: torch.Tensor, scale: float, iters: int) -> torch.Tensor:
    """What ``fma_chains`` computes, in closed form, in float64, rounded once to float32.

    After k steps of ``a <- a * s + x`` from ``a = x``: ``a = s**k * x + x * (1 + s + ... +
    s**(k-1))``. With ``s = 1`` that is ``(k + 1) * x``, exact in float32 for small
    integer-valued ``x``, which is how a test can compare bit for bit."""
    k = iters * UNROLL
    x64 = x.double()
    if scale == 1:
        return ((k + 1) * x64).float()
    geometric = (1 - scale**k) / (1 - scale)
    return (scale**k * x64 + geometric * x64).float()


# --8<-- [end:reference]
