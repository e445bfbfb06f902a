"""Fused linear cross-entropy: the loss ``F.cross_entropy(x @ weight.T, target,
ignore_index=-100, reduction="mean" or "sum")`` and its gradients for ``x`` and
``weight``, without ever holding the (tokens x vocabulary) logits.

The logits of a vocabulary projection are the largest tensor of a language model's
training step: 8192 tokens x 128,256 classes is 2 GiB in bf16, and eager PyTorch keeps
them, their float32 softmax and their gradient alive at once. Here the tokens are walked
in chunks. Per chunk:

1. ``logits = x_chunk @ weight.T`` (a torch matmul, into one reused buffer);
2. ``cross_entropy_grad_kernel``, one program per row, walks the row's logits in tiles
   twice: pass 1 keeps a running maximum and a running sum of exponentials (online
   softmax) and writes the row's loss, ``logsumexp - logit[target]``; pass 2 overwrites
   the logits in place with their gradient, ``(softmax - onehot(target)) * scale``
   (``scale`` = 1 / number of rows not ignored for ``mean``, 1 for ``sum``; ignored rows
   get zeros);
3. ``grad_x[chunk] = dlogits @ weight`` and ``grad_weight += dlogits.T @ x_chunk``.

So the forward computes the gradients too (as Liger-Kernel's fused linear cross-entropy
does), and the backward only multiplies them, in place, by the incoming gradient (so one
backward per forward). The extra memory is one logits chunk (``plan`` sizes it: rows
enough that the matmuls, not memory traffic, set the pace) plus the two gradients, which
any backward needs.

Sections, as in every kernel file of the book: ``kernel``, ``launch`` (``plan``, the
chunk of tokens and the tile of the vocabulary for a shape, and ``launch``), ``checks``
(``linear_cross_entropy``, the checked entry point), ``autograd``
(``LinearCrossEntropyFunction``) and ``reference``.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def cross_entropy_grad_kernel(
    logits_ptr,
    target_ptr,
    loss_ptr,
    scale_ptr,
    n_cols,
    row_stride,
    ignore_index,
    BLOCK: tl.constexpr,
):
    # One program per row of the logits chunk; the row is walked BLOCK columns at a time.
    row = tl.program_id(0).to(tl.int64)  # int64: row * row_stride can pass 2**31
    base = logits_ptr + row * row_stride
    target = tl.load(target_ptr + row).to(tl.int64)
    ignored = target == ignore_index
    # Pass 1: the running maximum m and the sum s of exp(z - m), rescaled when m grows.
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.zeros((), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        # other=-inf: a padding lane never wins the max, and exp(-inf) = 0 adds nothing.
        z = tl.load(base + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)  # logsumexp of the row, in float32
    # An ignored row's target may be any number: read the logit at column 0 instead.
    z_target = tl.load(base + tl.where(ignored, 0, target)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, lse - z_target))
    # Pass 2: overwrite each logit z with (softmax(z) - onehot(target)) * scale.
    scale = tl.load(scale_ptr)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        z = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.exp(z - lse)
        g = tl.where(cols == target, p - 1.0, p) * scale
        g = tl.where(ignored, 0.0, g)  # where, not * 0: scale is inf when every row is ignored
        tl.store(base + cols, g.to(logits_ptr.dtype.element_ty), mask=mask)


@triton.jit
def scale_kernel(g_ptr, dloss_ptr, n, BLOCK: tl.constexpr):
    # The backward: g *= dloss, in place. dloss is read on the GPU (no wait for the host),
    # and is 1 for loss.backward(): then every program returns having read one number.
    dloss = tl.load(dloss_ptr).to(tl.float32)
    if dloss != 1.0:
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        g = tl.load(g_ptr + offs, mask=offs < n).to(tl.float32)
        tl.store(g_ptr + offs, (g * dloss).to(g_ptr.dtype.element_ty), mask=offs < n)


# --8<-- [end:kernel]


# --8<-- [start:launch]
# Rows R per logits chunk. Whatever R, a chunk's matmuls read all of weight (V x H) twice
# and read and write all of grad_weight: 8 V H bytes for 6 R H V FLOPs; the grad_weight
# update alone does R / 2 FLOPs per byte. An H100 does about 230 bf16 FLOPs per byte of
# memory traffic (an H200 about 160), so R well above 460 keeps its tensor cores busy. The
# logits chunk costs R x V x 2 bytes (250 MiB at R = 1024, V = 128256), at most
# MAX_CHUNK_ELEMENTS elements.
CHUNK_ROWS, MIN_CHUNK, MAX_CHUNK_ELEMENTS = 1024, 16, 2**28
MAX_BLOCK, INTERPRETER_BLOCK = 16384, 32  # the vocabulary tile, on a GPU / on the CPU
SCALE_BLOCK = 8192  # elements of a gradient per program of scale_kernel


def plan(n_tokens: int, vocab: int, hidden: int, device: int = -1) -> tuple:
    """``(chunk, BLOCK, num_warps)``: rows of x per logits chunk (a power of two, or all
    of them when fewer), the tile of the vocabulary one step of the kernel reads, and the
    kernel's warps. ``device`` -1 is the CPU interpreter, which gets small tiles."""
    fits = max(MIN_CHUNK, MAX_CHUNK_ELEMENTS // max(1, vocab))
    chunk = min(CHUNK_ROWS, 1 << (fits.bit_length() - 1), max(1, n_tokens))
    block = min(MAX_BLOCK if device >= 0 else INTERPRETER_BLOCK, 1 << (vocab - 1).bit_length())
    return chunk, max(16, block), 16 if block >= 8192 else 8 if block >= 2048 else 4


def launch(x, weight, target, ignore_index=-100, reduction="mean", grads=(True, True), chunk=None):
    """``(loss, grad_x, grad_weight)`` for (N, H) ``x``, (V, H) ``weight`` and contiguous
    (N,) integer ``target``; no checks. ``grads``: which of grad_x, grad_weight to compute
    (None when not); ``chunk`` overrides plan's rows per chunk."""
    (n, hidden), vocab = x.shape, weight.shape[0]
    step, block, num_warps = plan(n, vocab, hidden, x.get_device())
    step = chunk or step
    losses = torch.empty(n, dtype=torch.float32, device=x.device)
    valid = (target != ignore_index).sum()  # on the device: no wait for the GPU
    scale = 1.0 / valid.float() if reduction == "mean" else torch.ones((), device=x.device)
    grad_x = torch.empty_like(x, memory_format=torch.contiguous_format) if grads[0] else None
    new = torch.zeros_like if n == 0 else torch.empty_like  # the first chunk writes grad_w
    grad_w = new(weight, memory_format=torch.contiguous_format) if grads[1] else None
    logits = torch.empty((min(step, n), vocab), dtype=x.dtype, device=x.device)
    for start in range(0, n, step):
        rows = min(step, n - start)
        x_chunk, z = x[start : start + rows], logits[:rows]
        torch.matmul(x_chunk, weight.T, out=z)
        cross_entropy_grad_kernel[(rows,)](
            z, target[start:], losses[start:], scale, vocab, z.stride(0), ignore_index,
            BLOCK=block, num_warps=num_warps,
        )  # fmt: skip
        if grad_x is not None:
            torch.matmul(z, weight, out=grad_x[start : start + rows])
        if grad_w is not None:  # beta=0: the first chunk overwrites grad_w, unread
            grad_w.addmm_(z.T, x_chunk, beta=int(start > 0))  # rounded once per chunk
    loss = losses.sum() * scale if reduction == "mean" else losses.sum()
    return loss.to(x.dtype), grad_x, grad_w


def launch_scale(g, dloss):
    """``g *= dloss`` in place, for a contiguous ``g`` and a one-element ``dloss``."""
    n = g.numel()
    scale_kernel[(max(1, -(-n // SCALE_BLOCK)),)](g, dloss, n, BLOCK=SCALE_BLOCK, num_warps=8)


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
TARGET_DTYPES = (torch.int64, torch.int32)
REDUCTIONS = ("mean", "sum")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_ROWS = 2**31 - 1  # one program per row of a chunk: a 1-D grid's limit

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: LinearCrossEntropyFunction has no jvp; tangents exist only inside
# forward_ad.dual_level(), and outside one asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad
_NAME = "linear_cross_entropy"


def _on_device(device: int, fn, *args):
    """Run ``fn(*args)`` with ``device`` current: Triton launches on the current GPU.
    (Device -1 is the CPU, under the interpreter: nothing to switch.)"""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args)
    with torch.cuda.device(device):
        return fn(*args)


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{_NAME}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"{_NAME}: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"{_NAME}: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"{_NAME}: {name} must be a dense tensor, got {got}")


def linear_cross_entropy(
    x: torch.Tensor,
    weight: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> torch.Tensor:
    """``F.cross_entropy(x @ weight.T, target, ignore_index=ignore_index,
    reduction=reduction)`` without the logits, differentiable in ``x`` and ``weight``
    (once: ``create_graph=True`` and dual tensors are refused). No bias.

    ``x``: (N, H), float32, float16 or bfloat16; ``weight``: (V, H) of the same dtype,
    V >= 1; both on one CUDA device (which need not be the current one), any strides.
    ``target``: (N,), int64 or int32, on that device, each entry in [0, V) or equal to
    ``ignore_index`` (a Python int), checked on the host: one wait for the GPU per call.
    ``reduction``: "mean" (over the rows not ignored: NaN when every row is, as torch
    gives, with zero gradients) or "sum". The logits and their gradient are held in
    ``x``'s dtype, one chunk of rows at a time; row statistics are float32 and the loss
    is rounded once to ``x``'s dtype. Raises ``TypeError``/``ValueError`` naming the
    argument instead of launching on anything else.
    """
    _check_tensor("x", x)
    _check_tensor("weight", weight)
    _check_tensor("target", target)
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"{_NAME}: x has dtype {x.dtype}; supported: {SUPPORTED_DTYPES}")
    if weight.dtype != x.dtype:
        raise TypeError(f"{_NAME}: weight has dtype {weight.dtype}; it must be x's ({x.dtype})")
    if target.dtype not in TARGET_DTYPES:
        raise TypeError(f"{_NAME}: target has dtype {target.dtype}; supported: {TARGET_DTYPES}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(
            f"{_NAME}: ignore_index must be a Python int, got {type(ignore_index).__name__}"
        )
    if not INT64_MIN <= ignore_index <= INT64_MAX:
        raise ValueError(f"{_NAME}: ignore_index must fit in int64, got {ignore_index}")
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"{_NAME}: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if x.dim() != 2:
        raise ValueError(f"{_NAME}: x has shape {tuple(x.shape)}; it must be (N, H)")
    if weight.dim() != 2 or weight.shape[1] != x.shape[1]:
        raise ValueError(
            f"{_NAME}: weight has shape {tuple(weight.shape)}; it must be (V, {x.shape[1]}), "
            "with x's H"
        )
    if weight.shape[0] == 0:
        raise ValueError(f"{_NAME}: weight has no rows: a cross-entropy over 0 classes")
    if target.shape != (x.shape[0],):
        raise ValueError(
            f"{_NAME}: target has shape {tuple(target.shape)}; it must be ({x.shape[0]},), "
            "one class per row of x"
        )
    if x.shape[0] > MAX_ROWS:
        raise ValueError(f"{_NAME}: x has more than {MAX_ROWS} rows")
    for name, t in (("weight", weight), ("target", target)):
        if t.get_device() != x.get_device():
            raise ValueError(f"{_NAME}: {name} is on {t.device}, but x is on {x.device}")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("x", x), ("weight", weight)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"{_NAME}: {name} is a dual tensor (forward-mode AD), but there is no "
                    f"forward-mode formula (jvp); pass forward_ad.unpack_dual({name}).primal"
                )
    # The kernel would read a class past the row (or before it): refuse, as torch's
    # device-side assert does, but by name and before anything launches.
    vocab = weight.shape[0]
    bad = ((target < 0) | (target >= vocab)) & (target != ignore_index)
    if target.numel() and bool(bad.any()):
        first = int(target[bad][0])
        raise ValueError(
            f"{_NAME}: target has {first} (and {int(bad.sum()) - 1} more) outside [0, {vocab}), "
            f"the classes of weight, and not ignore_index ({ignore_index})"
        )
    # Views with the neg bit store -v and read v: the matmuls resolve them, the kernel
    # reads only logits, so nothing to do for x and weight; target is int (no neg bit).
    target = target.contiguous()  # N integers: a copy costs nothing worth refusing over
    # The forward computes a gradient only where autograd will ask for it.
    grads = (x.requires_grad, weight.requires_grad) if torch.is_grad_enabled() else (False,) * 2
    return LinearCrossEntropyFunction.apply(x, weight, target, ignore_index, reduction, grads)


# --8<-- [end:checks]


# --8<-- [start:autograd]
class LinearCrossEntropyFunction(torch.autograd.Function):
    """The forward computes the loss and both gradients (when they are needed) and saves
    the gradients; backward multiplies them by the incoming (scalar) gradient. Call it
    through ``linear_cross_entropy``, which checks the arguments first."""

    @staticmethod
    def forward(ctx, x, weight, target, ignore_index: int, reduction: str, grads: tuple):
        loss, grad_x, grad_w = _on_device(
            x.get_device(), launch, x, weight, target, ignore_index, reduction, grads
        )
        ctx.save_for_backward(grad_x, grad_w)
        ctx.used = False
        return loss

    @staticmethod
    def backward(ctx, dloss: torch.Tensor):
        # Grad mode is on here only under create_graph=True: the saved gradients have no
        # graph of their own, so a second derivative would be silently wrong. Refuse.
        if torch.is_grad_enabled():
            raise NotImplementedError(
                f"{_NAME}: double backward (create_graph=True) is not supported: the "
                "gradients are computed by the forward and have no backward of their own"
            )
        # The gradients are scaled in place and handed to autograd (no second copy of
        # grad_weight, V x H), so they serve one backward only: refuse a second one
        # (retain_graph=True) by name rather than scale them twice.
        if ctx.used:
            raise RuntimeError(
                f"{_NAME}: a second backward through the same loss (retain_graph=True) is "
                "not supported: the forward's gradients went to the first; call "
                "linear_cross_entropy again"
            )
        ctx.used = True
        grad_x, grad_w = ctx.saved_tensors
        for g in (grad_x, grad_w):
            if g is not None and g.numel():  # nothing to do for 1, as for loss.backward()
                _on_device(g.get_device(), launch_scale, g, dloss.reshape(()).contiguous())
        return grad_x, grad_w, None, None, None, None


# --8<-- [end:autograd]


# --8<-- [start:reference]
def reference(x, weight, target, ignore_index=-100, reduction="mean"):
    """The loss by torch alone, in float64, rounded once to ``x``'s dtype. Differentiable:
    on float64 leaves it gives float64 reference gradients."""
    logits = x.double() @ weight.double().T
    loss = torch.nn.functional.cross_entropy(
        logits, target.long(), ignore_index=ignore_index, reduction=reduction
    )
    return loss.to(x.dtype)


# --8<-- [end:reference]
