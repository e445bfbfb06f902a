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


def launch_empty(t: torch.Tensor) -> None:
    """Launch ``empty_kernel`` once, on one program, with ``t`` as its pointer argument."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"launch_empty: expected a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cuda" and not triton.knobs.runtime.interpret:
        raise ValueError(f"launch_empty: tensor must be on a CUDA device, got {t.device}")
    empty_kernel[(1,)](t, t.numel(), BLOCK=128)
# --8<-- [end:kernel]
