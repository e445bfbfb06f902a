"""An empty kernel: what a launch costs when the kernel does nothing.

Lesson 03 times this against a torch operation and a CUDA-graph replay to show the
host-side cost every ``kernel[grid](...)`` call pays, whatever the kernel does.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def empty_kernel(ptr, n_elements, BLOCK: tl.constexpr):
    # Takes the arguments a real elementwise kernel would, and does no work:
    # its cost is the launch alone.
    pass


# --8<-- [end:kernel]


# --8<-- [start:launch]
def launch(t):
    """Launch ``empty_kernel`` once, on one program, with ``t`` as its pointer argument;
    no checks."""
    empty_kernel[(1,)](t, t.numel(), BLOCK=128)


# --8<-- [end:launch]


# --8<-- [start:checks]
# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# The dtypes Triton has a pointer type for (triton 3.6 to 3.9). Complex, quantized, sub-byte
# and bit-pattern dtypes have none: Triton would fail inside the launch with a KeyError.
SUPPORTED_DTYPES = frozenset({
    torch.bool, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.uint8, torch.uint16, torch.uint32, torch.uint64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
})  # fmt: skip


def launch_empty(t: torch.Tensor) -> None:
    """Launch ``empty_kernel`` once, on one program, with ``t`` as its pointer argument.

    ``t``: a dense tensor (not nested) of any shape (0-d and empty included) and any
    dtype Triton has a pointer type for (``SUPPORTED_DTYPES``: bool, the integers of 8 to
    64 bits, float16/bfloat16/32/64 and four float8s; others, complex and quantized ones
    among them, are refused by name) on a CUDA device, which need not be the current
    one, or on the CPU under the interpreter. The kernel never reads or writes it. The
    checks are the few that make the launch valid: lesson 03 times this call as the cost
    of a bare launch.
    """
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"launch_empty: t must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError("launch_empty: t is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(f"launch_empty: t must be on a CUDA device, got {t.device}")
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"launch_empty: t must be a dense tensor, got {got}")
    if t.dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"launch_empty: t has dtype {t.dtype}, which Triton has no pointer type for"
        )
    # Triton launches on the current device; if t is on another GPU, switch for the launch.
    # (get_device() is -1 for the CPU, under the interpreter: nothing to switch.)
    device = t.get_device()
    if device < 0 or device == torch.cuda.current_device():
        launch(t)
    else:
        with torch.cuda.device(device):
            launch(t)


# --8<-- [end:checks]
