"""Vector add: ``out = x + y`` for two tensors of the same shape.

The smallest complete Triton kernel: each program owns one tile of ``BLOCK``
consecutive elements, loads it from both inputs, adds, and stores it back. The
grid repeats that until every element is covered. Lesson 07 of the book walks
through this file; lesson 04 sweeps its ``BLOCK`` and ``num_warps``.

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
    # The last tile may stick out past the end; the mask switches those lanes off.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    # Add in float32, store in the output's dtype: the correctly rounded sum for
    # fp16/bf16, and it keeps the CPU interpreter (which cannot add bf16) honest.
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)
# --8<-- [end:kernel]


# --8<-- [start:wrapper]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def vector_add(
    x: torch.Tensor,
    y: torch.Tensor,
    out: torch.Tensor | None = None,
    *,
    block: int = 1024,
    num_warps: int = 4,
) -> torch.Tensor:
    """Return ``x + y`` computed by ``add_kernel``.

    ``x`` and ``y`` must be contiguous, non-empty tensors of the same shape,
    dtype (float32, float16 or bfloat16) and CUDA device. ``out``, if given,
    receives the result; it may be ``x`` or ``y`` itself (in-place add) but must
    not otherwise overlap them. ``block`` (elements per program, a power of two
    from 4 to 65536) and ``num_warps`` (1 to 32, a power of two) are the two
    knobs lesson 04 sweeps. Raises ``TypeError``/``ValueError`` instead of
    launching on bad input.
    """
    for name, t in (("x", x), ("y", y)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"vector_add: {name} must be a torch.Tensor, got {type(t).__name__}")
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"vector_add: dtype {x.dtype} is not supported; use one of {SUPPORTED_DTYPES}")
    if y.dtype != x.dtype:
        raise TypeError(f"vector_add: x and y must have the same dtype, got {x.dtype} and {y.dtype}")
    if x.device != y.device:
        raise ValueError(f"vector_add: x and y are on different devices ({x.device}, {y.device})")
    # Under TRITON_INTERPRET=1 kernels run on the CPU with NumPy, so CPU tensors are fine.
    if x.device.type != "cuda" and not triton.knobs.runtime.interpret:
        raise ValueError(
            f"vector_add: tensors must be on a CUDA device, got {x.device} "
            "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
        )
    if x.shape != y.shape:
        raise ValueError(f"vector_add: shapes differ, {tuple(x.shape)} vs {tuple(y.shape)}")
    if x.numel() == 0:
        raise ValueError("vector_add: inputs are empty; there is nothing to launch")
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("vector_add: x and y must be contiguous (call .contiguous() first)")
    if not _is_power_of_two(block) or not 4 <= block <= 65536:
        raise ValueError(f"vector_add: block must be a power of two in [4, 65536], got {block}")
    if not _is_power_of_two(num_warps) or num_warps > 32:
        raise ValueError(f"vector_add: num_warps must be a power of two in [1, 32], got {num_warps}")

    if out is None:
        out = torch.empty_like(x)
    else:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"vector_add: out must be a torch.Tensor, got {type(out).__name__}")
        if out.shape != x.shape or out.dtype != x.dtype or out.device != x.device:
            raise ValueError(
                "vector_add: out must match x in shape, dtype and device, got "
                f"{tuple(out.shape)} {out.dtype} {out.device}"
            )
        if not out.is_contiguous():
            raise ValueError("vector_add: out must be contiguous")
        for name, t in (("x", x), ("y", y)):
            same_storage = out.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
            if same_storage and out.data_ptr() != t.data_ptr():
                raise ValueError(f"vector_add: out partially overlaps {name}")

    n = x.numel()
    grid = (triton.cdiv(n, block),)
    if grid[0] > 2**31 - 1:
        raise ValueError(f"vector_add: {n} elements need {grid[0]} programs; raise block")
    add_kernel[grid](x, y, out, n, BLOCK=block, num_warps=num_warps)
    return out
# --8<-- [end:wrapper]
