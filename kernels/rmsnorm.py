"""RMSNorm, forward and backward: ``y = x / sqrt(mean(x**2) + eps) * weight`` over the
last dimension, as ``torch.nn.functional.rms_norm(x, (H,), weight, eps)`` computes it.

Three kernels. The forward gives each row to one program, computes the row's statistics
in float32 and saves ``rstd = 1 / sqrt(mean(x**2) + eps)`` for the backward. The
backward gives each program a run of rows: it writes ``dx`` row by row and adds up its
rows' share of ``dweight`` into one float32 partial row; a second kernel sums the
partial rows in a fixed order. No atomics, so the same inputs give the same bits every
time.

Sections, as in every kernel file of the book: ``kernel`` (the three kernels),
``minimal`` (``rmsnorm_bwd_minimal_kernel`` and ``rms_norm_backward_minimal``: the
simplest backward that works, one program per row, before the tuned one),
``launch`` (``plan``, the launch configuration for a row count and width, and
``launch_forward`` / ``launch_backward``, which allocate and launch without a check),
``checks`` (``rms_norm``, the checked entry point), ``autograd`` (``RMSNormFunction``,
which ties the launches together for autograd) and ``reference``. Lesson 11 of the book
walks through this file.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported).
"""

import math

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
# --8<-- [start:forward-kernel]
@triton.jit
def rmsnorm_fwd_kernel(
    x_ptr, w_ptr, y_ptr, rstd_ptr, n_cols, x_row_stride, eps, BLOCK: tl.constexpr
):
    # One program per row; the whole row is one tile (BLOCK >= n_cols, a power of two).
    # int64: with more than 2**31 elements, row * x_row_stride would wrap in int32.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    # other=0.0: masked lanes add nothing to the sum of squares below.
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    # Statistics in float32: an fp16 value above 256 has a square above 65504, the
    # largest fp16 number, so squaring in the input dtype would give inf.
    mean_square = tl.sum(x * x, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)
    tl.store(rstd_ptr + row, rstd)  # 4 bytes per row, saved for the backward
    # Round once, at the store (and keep bf16 arithmetic off the CPU interpreter).
    y = x * rstd * w
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:forward-kernel]


# --8<-- [start:backward-kernel]
@triton.jit
def rmsnorm_bwd_kernel(
    dy_ptr,
    x_ptr,
    w_ptr,
    rstd_ptr,
    dx_ptr,
    partial_ptr,
    n_rows,
    n_cols,
    rows_per_program,
    dy_row_stride,
    x_row_stride,
    BLOCK: tl.constexpr,
    ROWS: tl.constexpr,
    PREFETCH: tl.constexpr = True,
):
    # Program p owns rows [first, last) and walks them ROWS at a time: each step is a
    # (ROWS, BLOCK) tile, one row of the tensor per row of the tile.
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    first = pid.to(tl.int64) * rows_per_program  # int64, like every row offset below
    last = tl.minimum(first + rows_per_program, n_rows)
    # This program's share of dweight, the sum of dy * x_hat over its rows, in float32.
    dw = tl.zeros([ROWS, BLOCK], dtype=tl.float32)
    if PREFETCH:
        # Load the first step before the loop. Each step then asks for the next step's
        # rows before it works on its own, so those loads are in flight during the work.
        rows = first + tl.arange(0, ROWS)
        mask = (rows < last)[:, None] & col_mask[None, :]
        x_next = tl.load(x_ptr + rows[:, None] * x_row_stride + cols[None, :], mask=mask, other=0.0)
        dy_next = tl.load(
            dy_ptr + rows[:, None] * dy_row_stride + cols[None, :], mask=mask, other=0.0
        )
    for start in range(first, last, ROWS):
        # int64 from first already; tl.cast keeps it so on the CPU interpreter too, whose
        # loops count in Python ints.
        rows = tl.cast(start, tl.int64) + tl.arange(0, ROWS)
        row_mask = rows < last
        mask = row_mask[:, None] & col_mask[None, :]
        if PREFETCH:
            x = x_next.to(tl.float32)
            dy = dy_next.to(tl.float32)
            ahead = rows + ROWS  # the next step's rows; masked off past this program's last
            ahead_mask = (ahead < last)[:, None] & col_mask[None, :]
            x_next = tl.load(
                x_ptr + ahead[:, None] * x_row_stride + cols[None, :], mask=ahead_mask, other=0.0
            )
            dy_next = tl.load(
                dy_ptr + ahead[:, None] * dy_row_stride + cols[None, :], mask=ahead_mask, other=0.0
            )
        else:  # the control: each step loads its own rows, nothing held for the next
            x = tl.load(
                x_ptr + rows[:, None] * x_row_stride + cols[None, :], mask=mask, other=0.0
            ).to(tl.float32)
            dy = tl.load(
                dy_ptr + rows[:, None] * dy_row_stride + cols[None, :], mask=mask, other=0.0
            ).to(tl.float32)
        # w is re-read each step (from cache) rather than held: fewer registers.
        w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0.0)
        x_hat = x * rstd[:, None]
        g = dy * w[None, :]
        # dx = rstd * (g - x_hat * mean(g * x_hat)): one row reduction per tile row.
        c = tl.sum(g * x_hat, axis=1) / n_cols
        dx = (g - x_hat * c[:, None]) * rstd[:, None]
        tl.store(
            dx_ptr + rows[:, None] * n_cols + cols[None, :],
            dx.to(dx_ptr.dtype.element_ty),
            mask=mask,
        )
        dw += dy * x_hat  # masked lanes hold zeros: they add nothing
    # One float32 partial row per program; rmsnorm_dw_kernel adds the rows up.
    tl.store(partial_ptr + pid.to(tl.int64) * n_cols + cols, tl.sum(dw, axis=0), mask=col_mask)


# --8<-- [end:backward-kernel]


# --8<-- [start:dw-kernel]
@triton.jit
def rmsnorm_dw_kernel(
    partial_ptr, dw_ptr, n_partials, n_cols, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr
):
    # Program j owns BLOCK_N columns and sums them down all n_partials partial rows,
    # BLOCK_P rows per step, always in the same order: the same bits on every run.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    acc = tl.zeros([BLOCK_P, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK_P):
        rows = (start + tl.arange(0, BLOCK_P)).to(tl.int64)
        mask = (rows < n_partials)[:, None] & col_mask[None, :]
        acc += tl.load(partial_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    dw = tl.sum(acc, axis=0)
    tl.store(dw_ptr + cols, dw.to(dw_ptr.dtype.element_ty), mask=col_mask)


# --8<-- [end:dw-kernel]
# --8<-- [end:kernel]


# --8<-- [start:minimal]
# The simplest backward that works: one program per row, the whole row one tile, as in
# the forward. It writes the row's dx, and the row's share of dweight (dy * x_hat) into a
# float32 buffer of its own row; one torch sum down the rows then gives dweight, in a
# fixed order (no atomics). What it leaves out, each added in rmsnorm_bwd_kernel above:
# strides (dy and x contiguous), several rows per program (so that the buffer has one row
# per program instead of one per row of x: 128 MiB of float32 for 4096 x 8192), tiles of
# several narrow rows, loading the next rows ahead, and a reduction kernel of its own.
@triton.jit
def rmsnorm_bwd_minimal_kernel(
    dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_rows_ptr, n_cols, BLOCK: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)  # int64: row * n_cols can pass 2**31
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)  # saved by the forward
    x_hat = x * rstd
    g = dy * w  # the gradient that reaches x_hat
    c = tl.sum(g * x_hat, axis=0) / n_cols  # masked lanes are 0: they add nothing
    dx = (g - x_hat * c) * rstd
    tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_rows_ptr + row * n_cols + cols, dy * x_hat, mask=mask)  # this row's dweight


def rms_norm_backward_minimal(dy, x, weight, rstd):
    """dx and dweight for contiguous (rows, H) ``dy`` and ``x``, and ``rstd`` from the
    forward (``launch_forward``); no checks."""
    n_rows, n_cols = x.shape
    dx = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    dw_rows = torch.empty((n_rows, n_cols), dtype=torch.float32, device=x.device)
    block = triton.next_power_of_2(n_cols)
    rmsnorm_bwd_minimal_kernel[(n_rows,)](dy, x, weight, rstd, dx, dw_rows, n_cols, BLOCK=block)
    return dx, dw_rows.sum(dim=0).to(weight.dtype)  # the second stage: a sum down the rows


# --8<-- [end:minimal]


# --8<-- [start:launch]
# Backward: BACKWARD_PROGRAMS_PER_SM programs per SM, each walking its rows in steps of
# about BACKWARD_TILE elements (several narrow rows, or one wide row), on 8 warps, or one
# warp per 512 columns past 4096 (at most 32). Chosen from a sweep on an H100 (lesson 11):
# 1, 2 or 4 programs per SM x 4 to 32 warps x tiles of 2048 to 16384 elements.
BACKWARD_TILE, BACKWARD_MAX_ROWS, BACKWARD_PROGRAMS_PER_SM = 4096, 64, 2
PREFETCH_MAX_BLOCK = 8192  # wider rows: no load ahead, one warp per 1024 columns
DW_BLOCK_P, DW_BLOCK_N = 128, 32  # the second stage's tile: partial rows x columns
INTERPRETER_PROGRAMS = 4  # on the CPU: a few programs, so each walks several rows
_SM_COUNT: dict[int, int] = {}  # device index -> SMs, looked up once per device


def plan(
    n_rows: int, n_cols: int, device: int = -1, *, backward: bool = False, programs=None
) -> tuple:
    """How rows of ``n_cols`` are launched. Forward: ``(programs, BLOCK, num_warps)``, one
    program per row, ``BLOCK`` the next power of two >= n_cols (at least 16). Backward:
    ``(programs, rows_per_program, BLOCK, ROWS, num_warps, PREFETCH)``: ``programs``
    (default: BACKWARD_PROGRAMS_PER_SM per SM of CUDA device ``device``, or
    INTERPRETER_PROGRAMS for -1, the interpreter; never more than it takes to give each
    one rows) each walk ``rows_per_program`` rows, ``ROWS`` at a time."""
    block = max(16, 1 << (n_cols - 1).bit_length())
    if not backward:
        # About 8 to 32 elements of the row per thread.
        num_warps = 4 if block <= 1024 else 8 if block <= 4096 else 16 if block <= 16384 else 32
        return n_rows, block, num_warps
    if programs is None:
        if device < 0:
            programs = INTERPRETER_PROGRAMS
        else:
            if device not in _SM_COUNT:
                _SM_COUNT[device] = torch.cuda.get_device_properties(device).multi_processor_count
            programs = BACKWARD_PROGRAMS_PER_SM * _SM_COUNT[device]
    rows_per_program = max(1, (n_rows + programs - 1) // programs)
    programs = (n_rows + rows_per_program - 1) // rows_per_program  # none left idle
    rows = max(1, min(BACKWARD_MAX_ROWS, BACKWARD_TILE // block))
    # Rows wider than PREFETCH_MAX_BLOCK are not loaded a step ahead: holding the next row
    # too spilled registers at 16,384 columns (lesson 11's rmsnorm_bwd_sweep shows both).
    if block <= PREFETCH_MAX_BLOCK:
        return programs, rows_per_program, block, rows, min(32, max(8, block // 512)), True
    return programs, rows_per_program, block, rows, min(32, block // 1024), False


def launch_forward(x: torch.Tensor, weight: torch.Tensor, eps: float):
    """y and rstd for x, a (rows, H) view with unit column stride; no checks."""
    n_rows, n_cols = x.shape
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    if y.numel():  # empty: nothing to launch
        programs, block, num_warps = plan(n_rows, n_cols)
        rmsnorm_fwd_kernel[(programs,)](
            x, weight, y, rstd, n_cols, x.stride(0), eps, BLOCK=block, num_warps=num_warps
        )
    return y, rstd


def launch_backward(dy, x, weight, rstd, programs: int | None = None):
    """dx (rows, H) and dweight (H,) from the upstream gradient dy (rows, H, unit column
    stride); no checks. ``programs``: how many partial rows of dweight (see ``plan``). The
    same count gives the same bits on every run."""
    n_rows, n_cols = x.shape
    dx = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    if n_rows == 0 or n_cols == 0:  # no rows: dweight is a sum of nothing
        return dx, torch.zeros(n_cols, dtype=weight.dtype, device=weight.device)
    programs, rows_per_program, block, rows, num_warps, prefetch = plan(
        n_rows, n_cols, x.get_device(), backward=True, programs=programs
    )
    partial = torch.empty((programs, n_cols), dtype=torch.float32, device=x.device)
    rmsnorm_bwd_kernel[(programs,)](
        dy, x, weight, rstd, dx, partial, n_rows, n_cols, rows_per_program,
        dy.stride(0), x.stride(0), BLOCK=block, ROWS=rows, PREFETCH=prefetch,
        num_warps=num_warps,
    )  # fmt: skip
    dw = torch.empty(n_cols, dtype=weight.dtype, device=weight.device)
    rmsnorm_dw_kernel[((n_cols + DW_BLOCK_N - 1) // DW_BLOCK_N,)](
        partial, dw, programs, n_cols, BLOCK_P=DW_BLOCK_P, BLOCK_N=DW_BLOCK_N, num_warps=4
    )
    return dx, dw


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# The widest row one program holds: the backward keeps three float32 tiles of the row
# on chip, and the book measures widths up to 16384 only.
MAX_HIDDEN = 32768
MAX_ROWS = 2**31 - 1  # the forward launches one program per row: a 1-D grid's limit

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent, and RMSNormFunction has no jvp (torch
# would refuse it without naming the argument). Tangents exist only inside
# forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _rows(t: torch.Tensor) -> torch.Tensor | None:
    """``t`` as a (rows, H) view with unit column stride, or None if no view can be."""
    n_cols = t.shape[-1]
    n_rows = math.prod(t.shape[:-1])
    if n_cols > 1 and t.stride(-1) != 1:
        return None
    try:  # one stride between consecutive rows, whatever the leading dimensions
        return t.view(n_rows, n_cols)
    except RuntimeError:
        return None


def _on_device(device: int, fn, *args):
    """Run ``fn(*args)`` with ``device`` current: Triton launches on the current GPU.
    (Device -1 is the CPU, under the interpreter: nothing to switch.)"""
    if device < 0 or device == torch.cuda.current_device():
        return fn(*args)
    with torch.cuda.device(device):
        return fn(*args)


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"rms_norm: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"rms_norm: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"rms_norm: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"rms_norm: {name} must be a dense tensor, got {got}")


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm over the last dimension: ``x / sqrt(mean(x**2, -1) + eps) * weight``,
    differentiable in ``x`` and ``weight`` (through ``RMSNormFunction``), once: a second
    derivative (``create_graph=True``) is refused, as are dual tensors (forward-mode AD
    has no formula here).

    ``x``: shape (..., H) with 1 <= H <= 32768, dtype float32, float16 or bfloat16, not
    nested, on a CUDA device (which need not be the current one). Its last dimension must
    have unit stride and its rows one stride between them (a contiguous tensor, or a
    column slice of a wider one); anything else is refused, not copied. ``weight``: shape
    (H,), the dtype of ``x`` or float32 (master weights), same device, any stride.
    ``eps``: a Python float or int >= 0, added in float32, finite there. Statistics are
    float32, so fp16 inputs whose squares overflow fp16 are fine; the result has ``x``'s
    dtype and is rounded once. Views with the negative bit are read as their values;
    empty inputs give empty results. Raises
    ``TypeError``/``ValueError`` naming the argument instead of launching on anything else.
    """
    _check_tensor("x", x)
    _check_tensor("weight", weight)
    # (The conj bit exists only on complex tensors, which the dtype check refuses.)
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"rms_norm: x has dtype {x.dtype}; supported: {SUPPORTED_DTYPES}")
    if weight.dtype not in (x.dtype, torch.float32):
        raise TypeError(
            f"rms_norm: weight has dtype {weight.dtype}; it must be x's ({x.dtype}) or float32"
        )
    if x.dim() == 0:
        raise ValueError("rms_norm: x is 0-d; it needs a last dimension to normalise over")
    hidden = x.shape[-1]
    if hidden > MAX_HIDDEN:
        raise ValueError(
            f"rms_norm: x has {hidden} elements in its last dimension; at most {MAX_HIDDEN} "
            "(one program holds a whole row)"
        )
    if weight.shape != (hidden,):
        raise ValueError(
            f"rms_norm: weight has shape {tuple(weight.shape)}; it must be ({hidden},), "
            "the size of x's last dimension"
        )
    if weight.get_device() != x.get_device():
        raise ValueError(f"rms_norm: weight is on {weight.device}, but x is on {x.device}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"rms_norm: eps must be a Python float or int, got {type(eps).__name__}")
    # The kernel adds eps in float32: it must be finite there (3.4e38 is float32's max).
    if not 0 <= eps <= 3.4e38:
        raise ValueError(f"rms_norm: eps must be >= 0 and finite in float32, got {eps}")
    if math.prod(x.shape[:-1]) > MAX_ROWS:
        raise ValueError(f"rms_norm: x has more than {MAX_ROWS} rows (one program per row)")
    if _FORWARD_AD._current_level >= 0:
        for name, t in (("x", x), ("weight", weight)):
            if _FORWARD_AD.unpack_dual(t).tangent is not None:
                raise ValueError(
                    f"rms_norm: {name} is a dual tensor (forward-mode AD), but there is no "
                    f"forward-mode formula (jvp); pass forward_ad.unpack_dual({name}).primal"
                )
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first (differentiably).
    if x.is_neg():
        x = x.resolve_neg()
    if weight.is_neg():
        weight = weight.resolve_neg()
    if _rows(x) is None:
        raise ValueError(
            "rms_norm: x must have a unit-stride last dimension and rows one stride apart "
            f"(got strides {x.stride()}); call x.contiguous() first"
        )
    if weight.stride(0) != 1:  # H elements: a copy costs nothing worth refusing over
        weight = weight.contiguous()
    return RMSNormFunction.apply(x, weight, float(eps))


# --8<-- [end:checks]


# --8<-- [start:autograd]
class RMSNormFunction(torch.autograd.Function):
    """Forward saves x, weight and rstd (4 bytes per row); backward returns dx and
    dweight. Call it through ``rms_norm``, which checks the arguments first."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        y, rstd = _on_device(x.get_device(), launch_forward, _rows(x), weight, eps)
        ctx.save_for_backward(x, weight, rstd)
        return y.view(x.shape)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        # Grad mode is on here only under create_graph=True, for a second derivative. The
        # backward kernels have no backward of their own: their results would count as
        # constants, silently, so refuse.
        if torch.is_grad_enabled():
            raise NotImplementedError(
                "rms_norm: double backward (create_graph=True) is not supported: the backward "
                "kernels have no backward of their own"
            )
        x, weight, rstd = ctx.saved_tensors
        # dy comes from whatever followed: any layout (an expanded one from .sum(), say).
        if dy.is_neg():
            dy = dy.resolve_neg()
        dy2 = _rows(dy)
        if dy2 is None:
            dy2 = _rows(dy.contiguous())
        dx, dw = _on_device(x.get_device(), launch_backward, dy2, _rows(x), weight, rstd)
        return dx.view(x.shape), dw, None


# --8<-- [end:autograd]


# --8<-- [start:reference]
def reference(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm over the last dimension in float64, rounded once to ``x``'s dtype, by torch
    alone. Differentiable: on float64 leaves it gives float64 reference gradients."""
    x64 = x.double()
    rstd = torch.rsqrt(x64.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x64 * rstd * weight.double()).to(x.dtype)


# --8<-- [end:reference]
