"""A Triton kernel as a PyTorch operator: ``silu(a) * b`` that torch.compile traces.

The gated activation of LLaMA-style MLP blocks (SwiGLU: ``silu(x @ w_gate) * (x @ w_up)``),
forward and backward, each one elementwise Triton kernel. Lesson 14 uses it to show the
two pieces that make a hand-written kernel a first-class citizen of a compiled model:

- ``torch.library.triton_op`` registers the Python function that launches the kernel as
  an operator (``torch.ops.book.silu_mul``), and ``torch.library.wrap_triton`` around each
  launch lets torch.compile see the kernel itself instead of an opaque call, so a model
  that uses it compiles with ``fullgraph=True``.
- ``register_autograd`` gives the operator its backward: the forward saves ``a`` and
  ``b`` and the backward recomputes ``sigmoid(a)`` instead of storing it. In SwiGLU, ``a``
  and ``b`` are the two projections of ``x``, which nothing else keeps: saving them is the
  op's main memory cost (recomputing them from ``x`` would cost two matmuls instead).

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1``
set before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def silu_mul_fwd_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # int64: with more than 2**31 elements, pid * BLOCK would wrap in int32.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    # float32 inside, one rounding at the store (and no bf16 arithmetic on the interpreter).
    a = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
    out = a * tl.sigmoid(a) * b
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def silu_mul_bwd_kernel(dy_ptr, a_ptr, b_ptr, da_ptr, db_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    dy = tl.load(dy_ptr + offsets, mask=mask).to(tl.float32)
    a = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
    # Recomputed, not saved: one exp per element is cheaper than storing and re-reading
    # sigmoid(a) (2 or 4 more bytes per element each way).
    s = tl.sigmoid(a)
    silu = a * s
    # d silu(a) / da = s + a * s * (1 - s) = s * (1 + a * (1 - s))
    da = dy * b * s * (1.0 + a * (1.0 - s))
    db = dy * silu
    tl.store(da_ptr + offsets, da.to(da_ptr.dtype.element_ty), mask=mask)
    tl.store(db_ptr + offsets, db.to(db_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:launch]
BLOCK = 1024  # elements per program


def launch_forward(a, b):
    """``silu(a) * b`` for contiguous ``a`` and ``b`` of one shape, dtype and device (the
    current one); no checks."""
    out = torch.empty_like(a)
    n = a.numel()
    # wrap_triton: under torch.compile this launch becomes a node of the graph that
    # Inductor can see and schedule; called eagerly it is the plain launch.
    torch.library.wrap_triton(silu_mul_fwd_kernel)[((n + BLOCK - 1) // BLOCK,)](
        a, b, out, n, BLOCK=BLOCK
    )
    return out


def launch_backward(dy, a, b):
    """``(da, db)``, the gradients of ``silu(a) * b`` for the gradient ``dy`` of its
    output, all contiguous, of one shape, dtype and device (the current one); no checks."""
    da, db = torch.empty_like(a), torch.empty_like(b)
    n = a.numel()
    torch.library.wrap_triton(silu_mul_bwd_kernel)[((n + BLOCK - 1) // BLOCK,)](
        dy, a, b, da, db, n, BLOCK=BLOCK
    )
    return da, db


# --8<-- [end:launch]


# --8<-- [start:operator]
# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


def _on_device(device: int, fn, *args):
    """Run ``fn(*args)`` with ``device`` current: Triton launches on the current GPU.
    (Device -1 is the CPU, under the interpreter: nothing to switch.)"""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args)
    with torch.cuda.device(device):
        return fn(*args)


SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _check_operands(op: str, a: torch.Tensor, **others: torch.Tensor) -> None:
    # The operators are public (torch.ops.book.silu_mul), so they check for themselves what
    # would make the kernels read or write the wrong memory: operands of one supported
    # dtype, one shape and one device. (silu_mul relies on these checks too.)
    if a.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{op}: a has dtype {a.dtype}; supported: {SUPPORTED_DTYPES}")
    for name, t in others.items():
        if t.dtype != a.dtype:
            raise TypeError(f"{op}: {name} has dtype {t.dtype}, but a has {a.dtype}")
        if t.shape != a.shape:
            raise ValueError(f"{op}: {name} has shape {tuple(t.shape)}, but a has {tuple(a.shape)}")
        if t.get_device() != a.get_device():
            raise ValueError(f"{op}: {name} is on {t.device}, but a is on {a.device}")


# The operator's body sees real tensors when called eagerly, and fake ones (shapes, no
# data) when torch.compile traces it; with wrap_triton, the launch is then recorded, not
# run. Strided operands are copied (through silu_mul() they arrive contiguous, and
# contiguous() hands them back as they are).
@torch.library.triton_op("book::silu_mul", mutates_args=())
def silu_mul_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _check_operands("silu_mul", a, b=b)
    a, b = a.contiguous(), b.contiguous()
    if a.numel() == 0:
        return torch.empty_like(a)
    return _on_device(a.get_device(), launch_forward, a, b)


@torch.library.triton_op("book::silu_mul_backward", mutates_args=())
def silu_mul_backward_op(
    dy: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    _check_operands("silu_mul_backward", a, b=b, dy=dy)
    # dy comes from whatever followed, in any layout (a sum's gradient is an expand).
    dy, a, b = dy.contiguous(), a.contiguous(), b.contiguous()
    if a.numel() == 0:
        return torch.empty_like(a), torch.empty_like(b)
    return _on_device(a.get_device(), launch_backward, dy, a, b)


if _INTERPRET:
    # Under the interpreter, wrap_triton hands back the bare kernel, which would run on
    # torch.compile's fake tensors and fail on their missing data. A shape function stands
    # in for the body there; on a GPU, triton_op traces the body itself.
    silu_mul_op.register_fake(lambda a, b: torch.empty_like(a))
    silu_mul_backward_op.register_fake(lambda dy, a, b: (torch.empty_like(a), torch.empty_like(b)))


# --8<-- [end:operator]


# --8<-- [start:autograd]
def _setup_context(ctx, inputs, output):
    a, b = inputs
    # Save the inputs, not sigmoid(a): the backward recomputes it (see the kernel).
    ctx.save_for_backward(a, b)


def _backward(ctx, dy):
    a, b = ctx.saved_tensors
    # silu_mul_backward has no backward of its own: a second derivative through it (under
    # create_graph=True) fails there, naming book::silu_mul_backward, never silently.
    return silu_mul_backward_op(dy, a, b)


silu_mul_op.register_autograd(_backward, setup_context=_setup_context)


# --8<-- [end:autograd]


# --8<-- [start:checks]
MAX_ELEMENTS = (2**31 - 1) * BLOCK  # a 1-D grid holds at most 2**31 - 1 programs
# Forward-mode AD: a dual tensor carries a tangent, and the operator has no forward-mode
# formula. Tangents exist only inside forward_ad.dual_level(); outside one, asking costs
# one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def silu_mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Return ``silu(a) * b`` (``a * sigmoid(a) * b``), differentiable in ``a`` and ``b``,
    through the operator ``torch.ops.book.silu_mul``; torch.compile traces it whole.

    ``a`` and ``b``: contiguous dense tensors (not nested) of the same shape (0-d and
    empty included), dtype (float32, float16 or bfloat16) and CUDA device, which need not
    be the current one; on the CPU under the interpreter. Computed in float32 and rounded
    once. Neither may be a dual tensor of forward-mode AD (there is no forward-mode
    formula); a second derivative (``create_graph=True``) fails at its backward.
    Raises ``TypeError``/``ValueError`` naming the argument instead of launching on
    anything else. The checks read only shapes, dtypes and devices, which torch.compile
    resolves while tracing, so they cost nothing in a compiled model.
    """
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"silu_mul: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.is_meta:
            raise ValueError(f"silu_mul: {name} is a meta tensor (a shape with no data)")
        if not t.is_cuda and not _INTERPRET:
            raise ValueError(
                f"silu_mul: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
        if t.layout != torch.strided or t.is_nested:
            got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
            raise ValueError(f"silu_mul: {name} must be a dense tensor, got {got}")
        if not t.is_contiguous():
            raise ValueError(f"silu_mul: {name} must be contiguous (call .contiguous() first)")
    # dtypes, shapes and devices: the operator checks them (_check_operands).
    if a.numel() > MAX_ELEMENTS:
        raise ValueError(f"silu_mul: a has more than {MAX_ELEMENTS} elements")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("a", a), ("b", b)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"silu_mul: {name} is a dual tensor (forward-mode AD), but the operator "
                    f"has no forward-mode formula; pass forward_ad.unpack_dual({name}).primal"
                )
    return silu_mul_op(a, b)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``silu(a) * b`` in float64, rounded once to ``a``'s dtype, by torch alone.
    Differentiable: on float64 leaves it gives float64 reference gradients."""
    a64 = a.double()
    return (torch.nn.functional.silu(a64) * b.double()).to(a.dtype)


# --8<-- [end:reference]
