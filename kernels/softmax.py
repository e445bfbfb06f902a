"""Row softmax: ``y = exp(x - max(x)) / sum(exp(x - max(x)))`` over the last dimension,
forward and backward.

Two forward kernels and their two backward twins:

- ``softmax_kernel``: a program owns whole rows (one long row, or several short ones) and
  keeps them on chip, so the input is read once and the output written once.
- ``softmax_online_kernel``: for rows too long for that, a program walks a row in tiles
  twice. Pass 1 keeps a running maximum ``m`` and a running sum ``s`` of ``exp(x - m)``,
  rescaling ``s`` whenever ``m`` grows (online softmax); pass 2 writes ``exp(x - m) / s``.
  A fixed number of programs walk the rows (a persistent grid), so that only that many
  rows are in flight at once and the second read of each can come from the L2 cache.

The forward and the backward pick their default tiles separately (``MAX_WHOLE_ROW`` and
``BACKWARD_MAX_WHOLE_ROW`` below): a backward tile holds two tensors, ``y`` and ``dy``.

Sections, as in every kernel file of the book: ``kernel`` (the four kernels), ``launch``
(``plan``, the kernel and launch shape for a row count and width, and ``launch_forward``
/ ``launch_backward``, which launch without a check), ``checks`` (``softmax``,
which refuses what the kernels cannot handle, by name, then launches), ``autograd``
(``_Softmax``, whose backward computes ``dx = y * (dy - sum(dy * y))`` per row) and
``reference``. Lesson 10 of the book walks through this file.

Runs on a CUDA GPU, or on the CPU under the Triton interpreter (``TRITON_INTERPRET=1`` set
before this module is imported).
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
# --8<-- [start:whole_rows]
@triton.jit
def softmax_kernel(
    x_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    # This program owns rows [pid*BLOCK_M, (pid+1)*BLOCK_M), whole: BLOCK_N >= n_cols.
    # (x_stride, y_stride: elements from one row's start to the next's.)
    # int64: rows * stride passes 2**31 on tensors of more than 2**31 elements.
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    # other=-inf: padding lanes must not win the max, and exp(-inf) = 0 adds nothing.
    x = tl.load(
        x_ptr + rows[:, None] * x_stride + cols[None, :], mask=mask, other=float("-inf")
    ).to(tl.float32)
    # Subtract the row maximum first: exp of a large x would overflow fp32.
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    y = e / tl.sum(e, axis=1)[:, None]
    # A row that is all -inf has m = -inf, so x - m is NaN and y is NaN: what torch gives.
    tl.store(
        y_ptr + rows[:, None] * y_stride + cols[None, :],
        y.to(y_ptr.dtype.element_ty),
        mask=mask,
    )


# --8<-- [end:whole_rows]
# --8<-- [start:online]
@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride, BLOCK_N: tl.constexpr):
    cols = tl.arange(0, BLOCK_N)
    n_tiles = tl.cdiv(n_cols, BLOCK_N)
    # Persistent: the grid is a few programs per SM, and each walks rows pid, pid + grid, ...
    for i in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        # int64: row * stride can pass 2**31. (tl.cast, not .to: the CPU interpreter runs
        # this loop over Python ints.)
        row = tl.cast(i, tl.int64)
        x_row = x_ptr + row * x_stride
        y_row = y_ptr + row * y_stride
        # Pass 1: running max m and running sum s = sum(exp(x - m)) over the tiles so far.
        m = float("-inf")
        s = 0.0
        for start in tl.range(0, n_cols, BLOCK_N):
            c = start + cols
            in_row = c < n_cols
            x = tl.load(x_row + c, mask=in_row, other=float("-inf"), eviction_policy="evict_last")
            x = x.to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            # While everything so far is -inf, m_new is -inf and x - m_new would be NaN;
            # shifting by 0 instead gives exp(-inf) = 0, and the row stays finite.
            shift = tl.where(m_new == float("-inf"), 0.0, m_new)
            # The old sum was taken relative to m: rescale it by exp(m - m_new).
            s = s * tl.exp(m - shift) + tl.sum(tl.exp(x - shift), axis=0)
            m = m_new
        shift = tl.where(m == float("-inf"), 0.0, m)  # an all -inf row: 0 / 0 = NaN, as torch
        # Pass 2: normalise, last tile first: the tiles read last are the likeliest in L2.
        for i in tl.range(0, n_tiles):
            c = (n_tiles - 1 - i) * BLOCK_N + cols
            in_row = c < n_cols
            x = tl.load(x_row + c, mask=in_row, other=float("-inf"), eviction_policy="evict_first")
            y = tl.exp(x.to(tl.float32) - shift) / s
            y = y.to(y_ptr.dtype.element_ty)
            tl.store(y_row + c, y, mask=in_row, eviction_policy="evict_first")


# --8<-- [end:online]
# --8<-- [start:backward]
@triton.jit
def softmax_backward_kernel(
    y_ptr,
    dy_ptr,
    dx_ptr,
    n_rows,
    n_cols,
    y_stride,
    dy_stride,
    dx_stride,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # dx = y * (dy - sum(dy * y)) per row, with whole rows on chip as in softmax_kernel.
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    y = tl.load(y_ptr + rows[:, None] * y_stride + cols[None, :], mask=mask, other=0.0)
    dy = tl.load(dy_ptr + rows[:, None] * dy_stride + cols[None, :], mask=mask, other=0.0)
    y, dy = y.to(tl.float32), dy.to(tl.float32)
    dot = tl.sum(y * dy, axis=1)
    dx = y * (dy - dot[:, None])
    tl.store(
        dx_ptr + rows[:, None] * dx_stride + cols[None, :],
        dx.to(dx_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def softmax_backward_online_kernel(
    y_ptr, dy_ptr, dx_ptr, n_rows, n_cols, y_stride, dy_stride, dx_stride, BLOCK_N: tl.constexpr
):
    cols = tl.arange(0, BLOCK_N)
    n_tiles = tl.cdiv(n_cols, BLOCK_N)
    for i in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        row = tl.cast(i, tl.int64)  # as in the forward
        y_row = y_ptr + row * y_stride
        dy_row = dy_ptr + row * dy_stride
        dx_row = dx_ptr + row * dx_stride
        # Pass 1: dot = sum(dy * y) over the row, tile by tile.
        dot = 0.0
        for start in tl.range(0, n_cols, BLOCK_N):
            c = start + cols
            in_row = c < n_cols
            y = tl.load(y_row + c, mask=in_row, other=0.0, eviction_policy="evict_last")
            dy = tl.load(dy_row + c, mask=in_row, other=0.0, eviction_policy="evict_last")
            dot += tl.sum(y.to(tl.float32) * dy.to(tl.float32), axis=0)
        # Pass 2: dx, last tile first, as in the forward.
        for i in tl.range(0, n_tiles):
            c = (n_tiles - 1 - i) * BLOCK_N + cols
            in_row = c < n_cols
            y = tl.load(y_row + c, mask=in_row, other=0.0, eviction_policy="evict_first")
            dy = tl.load(dy_row + c, mask=in_row, other=0.0, eviction_policy="evict_first")
            dx = y.to(tl.float32) * (dy.to(tl.float32) - dot)
            tl.store(
                dx_row + c,
                dx.to(dx_ptr.dtype.element_ty),
                mask=in_row,
                eviction_policy="evict_first",
            )


# --8<-- [end:backward]
# --8<-- [end:kernel]


# --8<-- [start:launch]
# Default tiles, in elements: a tile is held in fp32 on chip whatever the storage dtype.
# An SM has 65,536 registers, so a thread of a 512-thread program (16 warps) may use at
# most 128, and one of a 1,024-thread program (32 warps) at most 64.
# Forward: rows of up to MAX_WHOLE_ROW columns are kept whole, longer ones go to the online
# kernel in tiles of ONLINE_BLOCK_N. 32,768 elements over 32 warps is 32 values per
# thread, half of the 64 (lesson 10's benchmark softmax_online measures both choices: it
# sweeps the online tile and runs the whole-row kernel on the same rows as a control).
MAX_WHOLE_ROW = 32768
ONLINE_BLOCK_N = 32768
# Backward: a tile holds y and dy, twice the values of a forward tile as wide: rows of up
# to 16,384 whole (2 x 32 values per thread over 16 warps), tiles of 16,384 past that on
# 32 warps (2 x 16 values per thread; lesson 10's benchmark softmax_online_backward sweeps
# this tile).
BACKWARD_MAX_WHOLE_ROW = 16384
BACKWARD_ONLINE_BLOCK_N = 16384
# Default warps: about 16 values per thread, at most 16 warps up to tiles of WIDE_TILE
# elements (32 values per thread there), 32 warps for wider tiles (32 values per thread
# at 32,768).
WIDE_TILE = 16384
TILE_BYTES = 16384  # input bytes a program aims to own: short rows are grouped up to this
MIN_BLOCK_N, MAX_BLOCK_N = 16, 65536  # a power of two
MAX_NUM_WARPS = 32  # a power of two; 32 warps of 32 threads is the most one program may use
_DEVICE_INFO: dict[int, tuple[int, int]] = {}  # CUDA index -> (SM count, L2 bytes)


def _device_info(device: int) -> tuple[int, int]:
    """(SM count, L2 size in bytes) of a CUDA device; under the interpreter, (4, 0)."""
    if device < 0:
        return 4, 0
    if device not in _DEVICE_INFO:
        props = torch.cuda.get_device_properties(device)
        _DEVICE_INFO[device] = (props.multi_processor_count, getattr(props, "L2_cache_size", 0))
    return _DEVICE_INFO[device]


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def plan(
    n_rows: int,
    n_cols: int,
    elem_size: int,
    device: int,
    *,
    block_n: int | None = None,
    num_warps: int | None = None,
    programs_per_sm: int | None = None,
    backward: bool = False,
) -> tuple[bool, int, int, int, int]:
    """How a softmax of ``n_rows`` rows of ``n_cols`` elements of ``elem_size`` bytes on
    CUDA device ``device`` (-1: the interpreter) is launched, the forward's or, with
    ``backward``, the backward's: ``(whole_rows, block_m, block_n, num_warps, programs)``.
    ``whole_rows``: the whole-row kernel, ``block_m`` rows of ``block_n`` columns per
    program; else the online kernel, a persistent grid of ``programs``. A knob given is
    kept; None picks the default."""
    if block_n is None:
        max_whole, online = (
            (BACKWARD_MAX_WHOLE_ROW, BACKWARD_ONLINE_BLOCK_N)
            if backward
            else (MAX_WHOLE_ROW, ONLINE_BLOCK_N)
        )
        block_n = max(MIN_BLOCK_N, _next_pow2(n_cols)) if n_cols <= max_whole else online
    whole_rows = block_n >= n_cols
    # Short rows: one program takes several, so that each program still moves TILE_BYTES.
    block_m = 1
    if whole_rows:
        block_m = min(max(1, TILE_BYTES // elem_size // block_n), _next_pow2(n_rows))
    if num_warps is None:
        # (the online backward's tile holds two tensors: it counts as twice as wide)
        values = block_m * block_n * (2 if backward and not whole_rows else 1)
        most = 16 if values <= WIDE_TILE else MAX_NUM_WARPS
        num_warps = min(most, max(1, block_m * block_n // 512))  # as WIDE_TILE says
    if whole_rows:
        programs = (n_rows + block_m - 1) // block_m
    else:
        # Persistent: a few programs per SM, so few rows are in flight and their second
        # read can hit L2. By default: as many per SM as keep those rows in half the L2
        # (the backward reads two tensors per row, y and dy: twice the footprint).
        sms, l2_bytes = _device_info(device)
        if programs_per_sm is None:
            row_bytes = n_cols * elem_size * (2 if backward else 1)
            programs_per_sm = min(4, max(1, l2_bytes // 2 // (sms * row_bytes)))
        programs = min(n_rows, sms * programs_per_sm)
    return whole_rows, block_m, block_n, num_warps, programs


def launch_forward(x, y=None, config=None):
    """Softmax of the rows of ``x`` into ``y`` (None: a new tensor), returned: both 2-D,
    not empty, last-dim stride 1; no checks. ``config``: a ``plan()`` for this shape
    (None: the default plan)."""
    if y is None:
        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    if config is None:
        config = plan(n_rows, n_cols, x.element_size(), x.get_device())
    whole_rows, block_m, block_n, num_warps, programs = config
    args = (x, y, n_rows, n_cols, x.stride(0), y.stride(0))
    if whole_rows:
        softmax_kernel[(programs,)](*args, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps)
    else:
        softmax_online_kernel[(programs,)](*args, BLOCK_N=block_n, num_warps=num_warps)
    return y


def launch_backward(y, dy, dx=None, config=None):
    """``dx = y * (dy - rowsum(dy * y))`` (``dx`` None: a new tensor), returned: all 2-D,
    not empty, last-dim stride 1; no checks. ``config``: a ``plan(..., backward=True)``
    (None: the default plan)."""
    if dx is None:
        dx = torch.empty(y.shape, dtype=y.dtype, device=y.device)
    n_rows, n_cols = y.shape
    if config is None:
        config = plan(n_rows, n_cols, y.element_size(), y.get_device(), backward=True)
    whole_rows, block_m, block_n, num_warps, programs = config
    args = (y, dy, dx, n_rows, n_cols, y.stride(0), dy.stride(0), dx.stride(0))
    meta = {"BLOCK_N": block_n, "num_warps": num_warps}
    if whole_rows:
        softmax_backward_kernel[(programs,)](*args, BLOCK_M=block_m, **meta)
    else:
        softmax_backward_online_kernel[(programs,)](*args, **meta)
    return dx


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# A thread has at most 255 registers (and 65,536 / threads per SM when a program is big);
# past 128 fp32 values per thread no room is left for temporaries, so the compiler spills
# to memory, and compile time grows with the count.
MAX_PER_THREAD = 128
MAX_PROGRAMS_PER_SM = 32
MAX_PROGRAMS = 2**31 - 1  # the most programs a 1-D grid can launch

# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)
# Forward-mode AD: a dual tensor carries a tangent the kernels would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _check_knobs(block_n: object, num_warps: object, programs_per_sm: object) -> None:
    knobs = (("block_n", block_n), ("num_warps", num_warps), ("programs_per_sm", programs_per_sm))
    for name, value in knobs:
        # Exactly int: True passes as 1 and 1024.0 equals 1024, but neither is a tile size.
        if value is not None and type(value) is not int:
            raise TypeError(f"softmax: {name} must be an int or None, got {type(value).__name__}")
    if block_n is not None and not (
        MIN_BLOCK_N <= block_n <= MAX_BLOCK_N and block_n & (block_n - 1) == 0
    ):
        raise ValueError(
            f"softmax: block_n must be a power of two in [{MIN_BLOCK_N}, {MAX_BLOCK_N}], "
            f"got {block_n}"
        )
    if num_warps is not None and not (
        1 <= num_warps <= MAX_NUM_WARPS and num_warps & (num_warps - 1) == 0
    ):
        raise ValueError(
            f"softmax: num_warps must be a power of two in [1, {MAX_NUM_WARPS}], got {num_warps}"
        )
    if programs_per_sm is not None and not 1 <= programs_per_sm <= MAX_PROGRAMS_PER_SM:
        raise ValueError(
            f"softmax: programs_per_sm must be in [1, {MAX_PROGRAMS_PER_SM}], got {programs_per_sm}"
        )


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"softmax: {name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_cuda:
        if t.is_meta:
            raise ValueError(f"softmax: {name} is a meta tensor (a shape with no data)")
        if not _INTERPRET:
            raise ValueError(
                f"softmax: {name} must be on a CUDA device, got {t.device} "
                "(set TRITON_INTERPRET=1 before importing to run on the CPU)"
            )
    if t.layout != torch.strided or t.is_nested:
        got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
        raise ValueError(f"softmax: {name} must be a dense tensor, got {got}")


def _check_not_dual(name: str, t: torch.Tensor) -> None:
    # Called only inside a dual level (see _FORWARD_AD).
    if _FORWARD_AD.unpack_dual(t).tangent is not None:
        raise ValueError(
            f"softmax: {name} is a dual tensor (forward-mode AD), but there is no forward-mode "
            f"formula (jvp); pass the primal, forward_ad.unpack_dual({name}).primal"
        )


def _rows(name: str, t: torch.Tensor) -> torch.Tensor:
    """``t`` seen as a 2-D (rows, last dim) view without a copy, or a ValueError."""
    n_cols = t.shape[-1] if t.dim() else 1
    try:
        rows = t.view(-1, n_cols)
    except RuntimeError:
        raise ValueError(
            f"softmax: {name}'s leading dimensions cannot be flattened into rows without a "
            "copy (call .contiguous() first)"
        ) from None
    # The kernels step through a row with stride 1; rows may sit any distance apart.
    if n_cols > 1 and rows.stride(1) != 1:
        raise ValueError(
            f"softmax: {name} must be contiguous along its last dimension, got stride "
            f"{rows.stride(1)} (call .contiguous() first)"
        )
    return rows


def _checked_plan(t2: torch.Tensor, knobs: tuple, backward: bool = False) -> tuple:
    """``plan()`` for the rows of ``t2`` with the caller's knobs, refused by name when a
    thread would hold too many values or the grid would be too large."""
    n_rows, n_cols = t2.shape
    block_n, num_warps, programs_per_sm = knobs
    config = plan(
        n_rows,
        n_cols,
        t2.element_size(),
        t2.get_device(),
        block_n=block_n,
        num_warps=num_warps,
        programs_per_sm=programs_per_sm,
        backward=backward,
    )
    whole_rows, block_m, block_n, num_warps, programs = config
    per_thread = block_m * block_n // (32 * num_warps)
    if per_thread > MAX_PER_THREAD:
        raise ValueError(
            f"softmax: block_n={block_n} with num_warps={num_warps} gives each thread "
            f"{per_thread} values, more than {MAX_PER_THREAD}; they would spill out of "
            "registers. Lower block_n or raise num_warps"
        )
    if whole_rows and programs > MAX_PROGRAMS:
        raise ValueError(f"softmax: {n_rows} rows need {programs} programs")
    return config


def _on_device(device: int, launch, *args) -> None:
    # Triton launches on the current device; if the tensors live on another GPU, switch
    # for the launch. (Device -1 is the CPU, under the interpreter: nothing to switch.)
    if device < 0 or device == torch.cuda.current_device():
        launch(*args)
    else:
        with torch.cuda.device(device):
            launch(*args)


def _check_overlap(out: torch.Tensor, x: torch.Tensor, x2: torch.Tensor) -> None:
    # Judge by byte ranges, not storage (DLPack or from_blob can alias memory through
    # another storage). x's rows span [start, start + extent); out is contiguous. Only out
    # *being* x (same start, both contiguous) is safe: each row is read by the one program
    # that writes it, before it writes it. Any other shared byte is a race.
    start, o_start = x2.data_ptr(), out.data_ptr()
    extent = ((x2.shape[0] - 1) * x2.stride(0) + x2.shape[1]) * x2.element_size()
    if o_start == start and x.is_contiguous():
        return
    if start < o_start + out.nbytes and o_start < start + extent:
        raise ValueError(
            "softmax: out overlaps x (only out=x itself, contiguous, may share memory)"
        )


def softmax(
    x: torch.Tensor,
    out: torch.Tensor | None = None,
    *,
    block_n: int | None = None,
    num_warps: int | None = None,
    programs_per_sm: int | None = None,
) -> torch.Tensor:
    """Softmax of ``x`` over its last dimension, computed in fp32 and rounded once.

    ``x``: a dense float32, float16 or bfloat16 tensor (not nested) on a CUDA device
    (not necessarily the current one), of any shape (0-d and empty included) whose last
    dimension has stride 1 and whose leading dimensions flatten into rows without a copy
    (a 2-D tensor with padded rows is fine). Views with the negative bit are read as their
    values. Rows that are all -inf come out NaN, as in ``torch.softmax``.

    Differentiable: when ``x`` requires grad under grad mode, the result carries a backward
    (``dx = y * (dy - sum(dy * y))`` per row, by the same kind of kernel), once: a second
    derivative (``create_graph=True``) is refused, as is a dual ``x`` (forward-mode AD has
    no formula here). ``out``, if given, receives the result and makes the call not
    differentiable (as torch's ``out=``): it must match ``x`` in shape, dtype and device,
    be contiguous, not require grad under grad mode nor be dual, and either be ``x``
    itself (contiguous; an in-place softmax) or share no memory with it. Its version
    counter is bumped.

    Knobs, for experiments (forward and backward; None picks by row width, with the
    forward's limits and the backward's own, see ``MAX_WHOLE_ROW``): ``block_n``, the
    column tile, a power of two in [16, 65536] (a row of at most ``block_n`` columns is
    kept whole on chip, a longer one goes to the online kernels); ``num_warps``, a power of
    two in [1, 32], at most 128 values per thread; ``programs_per_sm``, in [1, 32], the
    online kernels' persistent grid. Raises ``TypeError``/``ValueError`` naming the
    argument instead of launching on anything else.
    """
    _check_knobs(block_n, num_warps, programs_per_sm)
    _check_tensor("x", x)
    # (The conj bit exists only on complex tensors, which this check refuses.)
    if x.dtype not in SUPPORTED_DTYPES:
        raise TypeError(f"softmax: x has dtype {x.dtype}; supported: {SUPPORTED_DTYPES}")
    if _FORWARD_AD._current_level >= 0:
        _check_not_dual("x", x)
    # A view with the neg bit stores -v and reads as v; the kernel sees only memory.
    if x.is_neg():
        x = x.resolve_neg()
    x2 = _rows("x", x) if x.numel() else None  # empty: nothing to read or launch
    grad = x.requires_grad and torch.is_grad_enabled()

    if out is None:
        if grad:
            return _Softmax.apply(x, block_n, num_warps, programs_per_sm)
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    else:
        if grad:
            raise ValueError(
                "softmax: x requires grad, and a result written into out= cannot be "
                "differentiated; call it under torch.no_grad() or leave out=None"
            )
        _check_tensor("out", out)
        if out.dtype != x.dtype:
            raise TypeError(f"softmax: out has dtype {out.dtype}, but x has {x.dtype}")
        if out.shape != x.shape or out.get_device() != x.get_device():
            raise ValueError(
                "softmax: out must match x in shape and device, got "
                f"{tuple(out.shape)} on {out.device}"
            )
        if not out.is_contiguous():
            raise ValueError("softmax: out must be contiguous (call .contiguous() first)")
        if out.is_neg():
            raise ValueError("softmax: out is a view with the negative bit; pass a plain one")
        if out.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                "softmax: out requires grad, and a write into it cannot be differentiated; "
                "call it under torch.no_grad() or leave out=None"
            )
        if x2 is not None:
            _check_overlap(out, x, x2)
        if _FORWARD_AD._current_level >= 0:
            _check_not_dual("out", out)
        # As torch's out= ops do: a tensor saved for a backward that aliases out now fails
        # there ("modified by an inplace operation") instead of giving a wrong gradient.
        torch.autograd.graph.increment_version(out)

    if x2 is not None:
        config = _checked_plan(x2, (block_n, num_warps, programs_per_sm))
        _on_device(x2.get_device(), launch_forward, x2, out.view(x2.shape), config)
    return out


# --8<-- [end:checks]


# --8<-- [start:autograd]
class _Softmax(torch.autograd.Function):
    """softmax(x) with a backward. Call it through ``softmax``, which checks the input."""

    @staticmethod
    def forward(ctx, x, block_n, num_warps, programs_per_sm):
        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        if x.numel():
            x2 = _rows("x", x)
            config = _checked_plan(x2, (block_n, num_warps, programs_per_sm))
            _on_device(x2.get_device(), launch_forward, x2, y.view(x2.shape), config)
        # Save the output, not the input: dx needs only y (and dy).
        ctx.save_for_backward(y)
        ctx.knobs = (block_n, num_warps, programs_per_sm)
        return y

    @staticmethod
    def backward(ctx, dy):
        # Grad mode is on here only under create_graph=True, that is, when the caller wants
        # a graph of this gradient for a second derivative. The kernel's dx has none (it
        # would count as a constant, silently), so refuse.
        if torch.is_grad_enabled():
            raise NotImplementedError(
                "softmax: double backward (create_graph=True) is not supported: the backward "
                "kernel has no backward of its own"
            )
        (y,) = ctx.saved_tensors
        dx = torch.empty_like(y)
        if y.numel():
            y2 = _rows("y", y)  # y is contiguous: we made it
            # dy comes from autograd in any layout (a sum's gradient is a stride-0 expand):
            # use it as rows when it can be, else copy it once.
            dy = dy.resolve_neg()
            try:
                dy2 = _rows("dy", dy)
            except ValueError:
                dy2 = dy.contiguous().view(y2.shape)
            config = _checked_plan(y2, ctx.knobs, backward=True)
            _on_device(y2.get_device(), launch_backward, y2, dy2, dx.view(y2.shape), config)
        return dx, None, None, None


# --8<-- [end:autograd]


# --8<-- [start:reference]
def reference(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension in float64, rounded once to ``x``'s dtype."""
    return torch.softmax(x.double(), dim=-1).to(x.dtype)


# --8<-- [end:reference]


# --8<-- [start:reference_backward]
def reference_backward(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """``y * (dy - sum(dy * y))`` per row in float64 from the given ``y`` and ``dy``,
    rounded once to ``y``'s dtype: the gradient the backward kernels compute."""
    y64, dy64 = y.double(), dy.double()
    return (y64 * (dy64 - (dy64 * y64).sum(dim=-1, keepdim=True))).to(y.dtype)


# --8<-- [end:reference_backward]
