"""Row reduction: the sum or the maximum of each row of a 2-D tensor.

``row_reduce_kernel`` gives each program a block of whole rows and walks them in column
tiles. Every element of the tile keeps a running fp32 partial (a sum, or a maximum) across
the tiles; after the last tile one reduction along the columns turns the partials into one
value per row. Whether it sums or takes the maximum is a compile-time switch, ``IS_MAX``:
the two differ only in the identity the padding elements load and in how two values
combine. Lesson 06 of the book walks through this file, starting from ``row_sum_kernel``
(one row, one tile), and ends with a reduction of its own combine (``row_argmax_kernel``)
and two scans (``row_scans_kernel``).

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:minimal]
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    # One program per row of a contiguous (n_rows, n_cols) x. The whole row fits in one
    # tile of BLOCK_N >= n_cols elements; the padding loads 0.0, which adds nothing.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


# --8<-- [end:minimal]


# --8<-- [start:kernel]
@triton.jit
def max_keep_nan(a, b):
    # The combine step of the row maximum: like tl.max's, except that a NaN wins, as in
    # torch.amax. (tl.max's combine returns the other operand when one is NaN.)
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def row_reduce_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_row,
    stride_col,
    IS_MAX: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # This program owns rows [pid*BLOCK_M, (pid+1)*BLOCK_M) and reads them BLOCK_N columns
    # at a time. int64: rows * stride_row passes 2**31 on tensors of over 2**31 elements.
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_in = rows < n_rows
    row_ptrs = x_ptr + rows[:, None] * stride_row  # (BLOCK_M, 1)
    cols = tl.arange(0, BLOCK_N)
    # The running accumulator: one fp32 partial per element of the (BLOCK_M, BLOCK_N) tile,
    # starting at the identity of the operation (what combining with it changes nothing).
    if IS_MAX:
        acc = tl.full((BLOCK_M, BLOCK_N), float("-inf"), tl.float32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for start in tl.range(0, n_cols, BLOCK_N):
        c = start + cols
        mask = row_in[:, None] & (c[None, :] < n_cols)
        ptrs = row_ptrs + c[None, :].to(tl.int64) * stride_col
        # Padding elements load the identity, so they cannot change the result:
        # -inf for a maximum (0.0 would beat every value of an all-negative row), 0 for a sum.
        if IS_MAX:
            x = tl.load(ptrs, mask=mask, other=float("-inf")).to(tl.float32)
            acc = tl.maximum(acc, x, propagate_nan=tl.PropagateNan.ALL)
        else:
            x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
            acc += x
    # One reduction along axis 1 (the columns): (BLOCK_M, BLOCK_N) -> (BLOCK_M,).
    if IS_MAX:
        result = tl.reduce(acc, 1, max_keep_nan)
    else:
        result = tl.sum(acc, axis=1)
    # Round once, from fp32 to the output's dtype.
    tl.store(out_ptr + rows, result.to(out_ptr.dtype.element_ty), mask=row_in)


# --8<-- [end:kernel]


# --8<-- [start:launch]
TILE_ELEMENTS = 4096  # elements a program reads per loop step by default: 16 KiB of fp32
DEFAULT_NUM_WARPS = 4  # 4096 / 128 threads = 32 values per thread
MIN_BLOCK_N = 16  # the narrowest tile, a power of two


def plan(n_rows: int, n_cols: int, block_m=None, block_n=None, num_warps=None):
    """``(block_m, block_n, num_warps)`` for an (n_rows, n_cols) input: the knobs given,
    the rest picked by the row width."""
    if block_n is None:  # the row width rounded up to a power of two, at most a tile
        block_n = min(max(MIN_BLOCK_N, 1 << max(0, n_cols - 1).bit_length()), TILE_ELEMENTS)
    if block_m is None:
        # Short rows: one program takes several, so that each still reads TILE_ELEMENTS.
        block_m = min(max(1, TILE_ELEMENTS // block_n), 1 << max(0, n_rows - 1).bit_length())
    if num_warps is None:
        num_warps = DEFAULT_NUM_WARPS
    return block_m, block_n, num_warps


def launch(x, op="sum", out=None, *, block_m=None, block_n=None, num_warps=None):
    """The sum (``op="sum"``) or maximum (``"max"``) of each row of a 2-D ``x`` on the
    current device, into ``out`` (new if None); no checks."""
    n_rows, n_cols = x.shape
    if block_m is None or block_n is None or num_warps is None:
        block_m, block_n, num_warps = plan(n_rows, n_cols, block_m, block_n, num_warps)
    if out is None:
        out = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    grid = ((n_rows + block_m - 1) // block_m,)  # one program per block_m rows
    row_reduce_kernel[grid](
        x, out, n_rows, n_cols, x.stride(0), x.stride(1),
        IS_MAX=op == "max", BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps,
    )  # fmt: skip
    return out


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
OPS = ("sum", "max")
MAX_BLOCK_N = 16384  # a power of two, at least MIN_BLOCK_N
MAX_BLOCK_M = 1024  # a power of two
MAX_NUM_WARPS = 32  # a power of two; 32 warps of 32 threads is the most one program may use
# Each thread holds its share of the fp32 accumulator and of the tile just loaded. Past 64
# elements each (128 registers of data) the compiler has to spill to memory.
MAX_PER_THREAD = 64
MAX_PROGRAMS = 2**31 - 1  # the most programs a 1-D grid can launch

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _check_knobs(block_m: object, block_n: object, num_warps: object) -> None:
    for name, value in (("block_m", block_m), ("block_n", block_n), ("num_warps", num_warps)):
        # Exactly int: True passes as 1 and 1024.0 equals 1024, but neither is a tile size.
        if value is not None and type(value) is not int:
            raise TypeError(
                f"row_reduce: {name} must be an int or None, got {type(value).__name__}"
            )
    bounds = (("block_m", block_m, 1, MAX_BLOCK_M), ("block_n", block_n, MIN_BLOCK_N, MAX_BLOCK_N))
    for name, value, lo, hi in bounds + (("num_warps", num_warps, 1, MAX_NUM_WARPS),):
        if value is not None and not (lo <= value <= hi and value & (value - 1) == 0):
            raise ValueError(
                f"row_reduce: {name} must be a power of two in [{lo}, {hi}], got {value}"
            )


def _check_per_thread(block_m: int, block_n: int, num_warps: int) -> None:
    per_thread = block_m * block_n // (32 * num_warps)
    if per_thread > MAX_PER_THREAD:
        raise ValueError(
            f"row_reduce: block_m={block_m} x block_n={block_n} over num_warps={num_warps} "
            f"gives each thread {per_thread} elements, more than {MAX_PER_THREAD}; they would "
            "spill out of registers. Lower block_m or block_n, or raise num_warps"
        )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"row_reduce: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"row_reduce: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"row_reduce: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"row_reduce: {name} must be a dense tensor, got {got}")


def _check_not_dual(name: str, t: torch.Tensor) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    if _FORWARD_AD.unpack_dual(t).tangent is not None:
        raise ValueError(
            f"row_reduce: {name} is a dual tensor (forward-mode AD), but this kernel computes "
            f"no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
        )


def _check_overlap(out: torch.Tensor, x: torch.Tensor) -> None:
    # Judge by byte ranges, not storage (DLPack or from_blob can alias memory through
    # another storage). x spans [start, start + extent) whatever its strides; out is
    # contiguous. A program writes its rows' results after reading them, but other
    # programs may still be reading there: any shared byte is a race.
    start, o_start = x.data_ptr(), out.data_ptr()
    last = (x.shape[0] - 1) * x.stride(0) + (x.shape[1] - 1) * x.stride(1)
    extent = (last + 1) * x.element_size()
    if start < o_start + out.nbytes and o_start < start + extent:
        raise ValueError("row_reduce: out overlaps x; pass a buffer that shares no memory")


def row_reduce(
    x: torch.Tensor,
    op: str = "sum",
    out: torch.Tensor | None = None,
    *,
    block_m: int | None = None,
    block_n: int | None = None,
    num_warps: int | None = None,
) -> torch.Tensor:
    """The sum (``op="sum"``) or the maximum (``op="max"``) of each row of ``x``, computed
    in fp32 and rounded once to ``x``'s dtype: ``x.sum(dim=1)`` or ``x.amax(dim=1)``.

    ``x``: a dense 2-D float32, float16 or bfloat16 tensor on a CUDA device (not
    necessarily the current one), with any strides (rows and columns are walked by them;
    a transposed or sliced view is read in place, if slowly). Views with the negative bit
    are read as their values. A row holding a NaN gives NaN for both ops, as torch does; a
    row of -inf gives -inf. With no columns, the sum of each row is 0 and the maximum is
    refused (it has no value; torch refuses it too). ``x`` may not be nested, require grad
    under grad mode, or be a dual tensor of forward-mode AD: there is no backward and no
    tangent.

    ``out``, if given, receives the result: 1-D with one element per row, ``x``'s dtype and
    device, contiguous, sharing no memory with ``x``, not requiring grad under grad mode,
    not dual.
    Its version counter is bumped, as torch's ``out=`` ops do.

    Knobs, for experiments (None picks by row width): ``block_m`` rows (a power of two in
    [1, 1024]) and ``block_n`` columns (a power of two in [16, 16384]) per tile, and
    ``num_warps`` (a power of two in [1, 32]); at most 64 tile elements per thread.
    Raises ``TypeError``/``ValueError`` naming the argument instead of launching on
    anything else.
    """
    if not isinstance(op, str) or op not in OPS:
        raise ValueError(f"row_reduce: op must be one of {OPS}, got {op!r}")
    _check_knobs(block_m, block_n, num_warps)
    _check_tensor("x", x)
    # (The conj bit exists only on complex tensors, which this check refuses.)
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"row_reduce: x has dtype {x.dtype}; supported: {SUPPORTED_DTYPES}")
    if x.dim() != 2:
        raise ValueError(f"row_reduce: x must be 2-D (rows, columns), got shape {tuple(x.shape)}")
    n_rows, n_cols = x.shape
    if op == "max" and n_cols == 0 and n_rows > 0:
        raise ValueError(
            "row_reduce: x has no columns, and the maximum of an empty row is undefined"
        )
    if x.requires_grad and torch.is_grad_enabled():
        raise ValueError(
            "row_reduce: x requires grad, but this kernel has no backward; "
            "call it under torch.no_grad() or pass x.detach()"
        )
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual("x", x)
    block_m, block_n, num_warps = plan(n_rows, n_cols, block_m, block_n, num_warps)
    _check_per_thread(block_m, block_n, num_warps)
    # A view with the neg bit (say c.conj().imag) stores -v and reads as v. The kernel
    # sees only memory, so negate it for real first.
    if x.is_neg():
        x = x.resolve_neg()

    device = x.get_device()  # the CUDA index, or -1 for a CPU tensor (interpreter)
    if out is None:
        out = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    else:
        _check_tensor("out", out)
        if out.dtype != x.dtype:
            raise TypeError(f"row_reduce: out has dtype {out.dtype}, but x has {x.dtype}")
        if out.shape != (n_rows,) or out.get_device() != device:
            raise ValueError(
                f"row_reduce: out must be 1-D of {n_rows} elements on x's device, "
                f"got {tuple(out.shape)} on {out.device}"
            )
        if not out.is_contiguous():
            raise ValueError("row_reduce: out must be contiguous (call .contiguous() first)")
        if out.is_neg():
            raise ValueError("row_reduce: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "row_reduce: out requires grad, and a write into it cannot be differentiated; "
                "call it under torch.no_grad() or leave out=None"
            )
        if n_rows and n_cols:
            _check_overlap(out, x)
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual("out", out)
        # As torch's out= ops do: tensors saved for a backward that alias out now fail there
        # ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)

    if n_rows == 0:
        return out
    programs = (n_rows + block_m - 1) // block_m
    if programs > MAX_PROGRAMS:
        raise ValueError(f"row_reduce: {n_rows} rows need {programs} programs; raise block_m")
    # Triton launches on the current device; if x is on another GPU, switch for the launch.
    # (Device -1 is the CPU, under the interpreter: nothing to switch.)
    if device < 0 or device == torch.cuda.current_device():
        return launch(x, op, out, block_m=block_m, block_n=block_n, num_warps=num_warps)
    with torch.cuda.device(device):
        return launch(x, op, out, block_m=block_m, block_n=block_n, num_warps=num_warps)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(x: torch.Tensor, op: str) -> torch.Tensor:
    """The row sum in float64, rounded once to ``x``'s dtype, or the row maximum (exact in
    any dtype, NaN where a row holds one), computed by torch alone."""
    if op == "sum":
        return x.double().sum(dim=1).to(x.dtype)
    return x.amax(dim=1)


# --8<-- [end:reference]


# --8<-- [start:argmax]
@triton.jit
def larger_first(v1, i1, v2, i2):
    # Combine two (value, index) pairs: keep the larger value; on a tie, the lower index,
    # whichever side it came from, so that swapping the two pairs changes nothing.
    keep_1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(keep_1, v1, v2), tl.where(keep_1, i1, i2)


@triton.jit
def row_argmax_kernel(x_ptr, max_ptr, idx_ptr, n_cols, BLOCK_N: tl.constexpr):
    # Each row's maximum and the first column that holds it (NaN aside), one row per
    # program. The padding loads -inf and sits past every real column, so it never wins.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
    value, index = tl.reduce((x, cols), 0, larger_first)  # two tiles, reduced together
    tl.store(max_ptr + row, value)
    tl.store(idx_ptr + row, index)


# --8<-- [end:argmax]


# --8<-- [start:scan]
@triton.jit
def larger(a, b):
    return tl.maximum(a, b)


@triton.jit
def row_scans_kernel(x_ptr, sums_ptr, maxes_ptr, n_cols, BLOCK_N: tl.constexpr):
    # Along each row, the running sum and the running maximum: element j of each result
    # combines elements 0..j. One row per program; the padding comes after every real
    # element, so no real result includes it.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    in_row = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=in_row, other=0.0)
    tl.store(sums_ptr + row * n_cols + cols, tl.cumsum(x, axis=0), mask=in_row)
    tl.store(maxes_ptr + row * n_cols + cols, tl.associative_scan(x, 0, larger), mask=in_row)


# --8<-- [end:scan]
