"""A lean launch path: check once, then call the compiled kernel with the least host work.

Lesson 03 measured the host's cost of one ``vector_add`` call on a tiny input at several
times a torch op's: a Triton launch binds its arguments, computes a cache key from their
types and properties, and looks up the compiled kernel, every call, before the launcher
runs; the wrapper's checks come on top. When the same call repeats with tensors of the
same kind (a training step's small ops do), most of that work has one answer. ``LeanAdd``
does it once: it validates the first call in full, keeps the compiled kernel that call
produced, and from then on checks only what could make that kernel wrong (dtype, shape,
device, layout, alignment, overlap, autograd) and calls its launcher directly.
``graphed`` goes further: a CUDA graph replays recorded launches with no Python at all.

The kernel is vector add's (kernels/vector_add.py), repeated here so that this file
stands alone. Runs on a CUDA GPU, or on the CPU under the Triton interpreter
(``TRITON_INTERPRET=1`` set before this module is imported), where there is no compiled
kernel to keep: the checks are the same and each call launches through the interpreter.
"""

import torch
import triton
import triton.language as tl


# --8<-- [start:kernel]
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # Vector add's kernel, line for line (lesson 07 walks through it).
    pid = tl.program_id(axis=0)
    # int64: with more than 2**31 elements, pid * BLOCK would wrap in int32.
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    total = x.to(tl.float32) + y.to(tl.float32)
    tl.store(out_ptr + offsets, total.to(out_ptr.dtype.element_ty), mask=mask)


# --8<-- [end:kernel]


# --8<-- [start:launch]
# Decided once, at import: TRITON_INTERPRET=1 runs kernels on the CPU, so CPU tensors do.
_INTERPRET = bool(triton.knobs.runtime.interpret)


class LeanLaunch:
    """``out = x + y`` launched once through Triton's full path, then by the compiled
    kernel's launcher alone: ``launch(xp, yp, op)`` on data pointers (ints) of tensors like
    the first ones, on the device that was current then. No checks."""

    def __init__(self, x, y, out, *, block: int = 1024, num_warps: int = 4):
        self.device, self.n = x.get_device(), x.numel()
        self.block, self.num_warps = block, num_warps
        self.grid = max(1, (self.n + block - 1) // block)
        # The full path compiles the kernel (or finds it in the cache) for these arguments'
        # types and properties, launches it, and returns it.
        compiled = add_kernel[(self.grid,)](x, y, out, self.n, BLOCK=block, num_warps=num_warps)
        self.launcher = None  # the interpreter compiles nothing: LeanAdd launches through it
        if not _INTERPRET:
            # The launcher: a small Python function around the C entry that calls
            # cuLaunchKernelEx. Its arguments, in the order triton's own launch passes them.
            self.launcher = compiled.run
            self.function, self.metadata = compiled.function, compiled.packed_metadata
            # The raw stream handle of the current stream (torch's, as triton reads it):
            # a launch inside torch.cuda.stream(s) or a graph capture goes to that stream.
            self.stream_of = triton.runtime.driver.active.get_current_stream

    def launch(self, xp: int, yp: int, op: int) -> None:
        # Grid, stream, the kernel's handle and metadata, no launch-metadata or hooks, then
        # the kernel's arguments, constexprs included. Pointers go as plain ints: the
        # launcher would otherwise call data_ptr() and ask the driver about each one.
        self.launcher(
            self.grid, 1, 1, self.stream_of(self.device), self.function, self.metadata,
            None, None, None, xp, yp, op, self.n, self.block,
        )  # fmt: skip


def graphed(fn, warmup: int = 3) -> torch.cuda.CUDAGraph:
    """A CUDA graph of one call of ``fn()``: ``graph.replay()`` then repeats its launches
    with no Python and no checks, on the tensors ``fn`` used when it was captured (copy
    new inputs into them). Warm-up calls run first on a side stream, as capture requires,
    so that nothing compiles during capture."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


# --8<-- [end:launch]


# --8<-- [start:checks]
SUPPORTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
MIN_BLOCK, MAX_BLOCK = 4, 65536  # as vector_add: a power of two
MAX_NUM_WARPS = 32
MAX_PER_THREAD = 512  # elements per thread; more takes the compiler minutes (lesson 04)
MAX_PROGRAMS = 2**31 - 1  # the most programs a 1-D grid can launch
ALIGN = 16  # bytes: Triton specialises a pointer argument on being a multiple of 16


# Forward-mode AD: a dual tensor carries a tangent the kernel would drop. Tangents exist
# only inside forward_ad.dual_level(); outside one, asking costs one attribute read.
_FORWARD_AD = torch.autograd.forward_ad


def _validate(x, y, out, block, num_warps) -> None:
    """The full checks of vector_add's wrapper, for a first call (or to say what changed)."""
    for name, value in (("block", block), ("num_warps", num_warps)):
        if type(value) is not int:
            raise TypeError(f"LeanAdd: {name} must be an int, got {type(value).__name__}")
    if not (MIN_BLOCK <= block <= MAX_BLOCK and block & (block - 1) == 0):
        raise ValueError(
            f"LeanAdd: block must be a power of two in [{MIN_BLOCK}, {MAX_BLOCK}], got {block}"
        )
    if not (1 <= num_warps <= MAX_NUM_WARPS and num_warps & (num_warps - 1) == 0):
        raise ValueError(
            f"LeanAdd: num_warps must be a power of two in [1, {MAX_NUM_WARPS}], got {num_warps}"
        )
    if block // (32 * num_warps) > MAX_PER_THREAD:
        raise ValueError(
            f"LeanAdd: block={block} with num_warps={num_warps} gives each thread "
            f"{block // (32 * num_warps)} elements, more than {MAX_PER_THREAD}; that takes "
            "the compiler minutes. Lower block or raise num_warps"
        )
    for name, t in (("x", x), ("y", y), ("out", out)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"LeanAdd: {name} must be a torch.Tensor, got {type(t).__name__}")
        if t.is_meta:
            raise ValueError(f"LeanAdd: {name} is a meta tensor (a shape with no data)")
        if not t.is_cuda and not _INTERPRET:
            raise ValueError(f"LeanAdd: {name} must be on a CUDA device, got {t.device}")
        if t.layout != torch.strided or t.is_nested:
            got = "a nested tensor" if t.is_nested else f"layout {t.layout}"
            raise ValueError(f"LeanAdd: {name} must be a dense tensor, got {got}")
        if not t.is_contiguous():
            raise ValueError(f"LeanAdd: {name} must be contiguous (call .contiguous() first)")
        if t.is_neg():
            raise ValueError(f"LeanAdd: {name} is a view with the negative bit; pass a plain one")
        if t.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"LeanAdd: {name} has dtype {t.dtype}; supported: {SUPPORTED_DTYPES}")
        if t.dtype != x.dtype:
            raise TypeError(f"LeanAdd: {name} has dtype {t.dtype}, but x has {x.dtype}")
        if t.shape != x.shape or t.get_device() != x.get_device():
            raise ValueError(
                f"LeanAdd: {name} is {tuple(t.shape)} on {t.device}, "
                f"but x is {tuple(x.shape)} on {x.device}"
            )
        if t.requires_grad and torch.is_grad_enabled():
            raise ValueError(
                f"LeanAdd: {name} requires grad, but this kernel has no backward; "
                "call it under torch.no_grad()"
            )
        if _FORWARD_AD._current_level >= 0 and _FORWARD_AD.unpack_dual(t).tangent is not None:
            raise ValueError(
                f"LeanAdd: {name} is a dual tensor (forward-mode AD), but this kernel computes "
                f"no tangent; pass the primal, forward_ad.unpack_dual({name}).primal"
            )
    nbytes, start = out.nbytes, out.data_ptr()
    for name, t in (("x", x), ("y", y)):
        # Equal starts are an in-place add (each element read before it is written, by the
        # same program); any other shared byte is a race between programs.
        if 0 < abs(t.data_ptr() - start) < nbytes:
            raise ValueError(f"LeanAdd: out partially overlaps {name}")
    if (x.numel() + block - 1) // block > MAX_PROGRAMS:
        raise ValueError(f"LeanAdd: {x.numel()} elements need too many programs; raise block")


class LeanAdd(LeanLaunch):
    """``out = x + y`` for tensors of one dtype, shape and device, checked in full once.

    ``LeanAdd(x, y, out)`` validates as ``vector_add`` does (``out`` required: the lean
    path allocates nothing), launches once, and keeps the compiled kernel. Each later
    ``lean(x, y, out)`` takes dense (not nested) tensors of that same dtype, shape and
    device, contiguous, 16-byte aligned if the first ones were, without the negative bit,
    none requiring grad under grad mode nor dual (forward-mode AD), ``out`` being ``x`` or
    ``y`` or disjoint from both; anything else is refused with a ``TypeError`` (a dtype)
    or ``ValueError`` that names the argument and what changed (make a new ``LeanAdd`` for
    new kinds of tensors). ``out``'s version counter is bumped. Triton's launch hooks
    (``knobs.runtime.launch_enter_hook``, used by profilers) are not called on the lean
    path.
    """

    def __init__(self, x, y, out, *, block: int = 1024, num_warps: int = 4):
        _validate(x, y, out, block, num_warps)
        self.dtype, self.shape, self.nbytes = x.dtype, x.shape, x.nbytes
        with _on(x.get_device()):
            torch.autograd.graph.increment_version(out)
            super().__init__(x, y, out, block=block, num_warps=num_warps)  # the first launch
        # Pointers that were multiples of 16 were compiled for: later ones must be too.
        self.aligned = all(t.data_ptr() % ALIGN == 0 for t in (x, y, out))

    def __call__(self, x, y, out):
        try:  # a non-tensor fails on the first attribute; the slow path says which
            dtype, shape, device = self.dtype, self.shape, self.device
            same = (
                x.dtype is dtype
                and y.dtype is dtype
                and out.dtype is dtype
                and x.shape == shape
                and y.shape == shape
                and out.shape == shape
                and x.get_device() == device
                and y.get_device() == device
                and out.get_device() == device
                and x.is_contiguous()
                and y.is_contiguous()
                and out.is_contiguous()
                and not (x.is_neg() or y.is_neg() or out.is_neg())
                and not (
                    (x.requires_grad or y.requires_grad or out.requires_grad)
                    and torch.is_grad_enabled()
                )
            )
        except (AttributeError, RuntimeError):
            same = False
        if not same:
            self._refuse(x, y, out)
        if _FORWARD_AD._current_level >= 0:  # inside a dual level: refuse a dual tensor
            _validate(x, y, out, self.block, self.num_warps)
        xp, yp, op = x.data_ptr(), y.data_ptr(), out.data_ptr()
        nbytes = self.nbytes
        if 0 < abs(xp - op) < nbytes or 0 < abs(yp - op) < nbytes:
            self._refuse(x, y, out)
        if self.aligned and (xp | yp | op) % ALIGN:
            name = "x" if xp % ALIGN else "y" if yp % ALIGN else "out"
            raise ValueError(
                f"LeanAdd: {name}'s address is not a multiple of 16 bytes, but the kernel was "
                "compiled for aligned pointers; make a new LeanAdd for these tensors"
            )
        torch.autograd.graph.increment_version(out)
        if self.n == 0:
            return out
        if self.launcher is None:  # the interpreter: CPU and meta tensors share device -1
            if x.is_meta or y.is_meta or out.is_meta:
                self._refuse(x, y, out)
            add_kernel[(self.grid,)](x, y, out, self.n, BLOCK=self.block, num_warps=self.num_warps)
            return out
        if device != torch.cuda.current_device():
            with torch.cuda.device(device):
                self.launch(xp, yp, op)
        else:
            self.launch(xp, yp, op)
        return out

    def _refuse(self, x, y, out) -> None:
        """Raise the error that says what is wrong with these arguments."""
        _validate(x, y, out, self.block, self.num_warps)  # raises for anything invalid
        error = TypeError if x.dtype != self.dtype else ValueError  # a dtype problem, or not
        raise error(
            f"LeanAdd: validated for {self.dtype} {tuple(self.shape)} on device {self.device}, "
            f"got x as {x.dtype} {tuple(x.shape)} on {x.device}; make a new LeanAdd"
        )


class _on:
    """``with _on(device):`` makes a CUDA device current; nothing for the CPU (-1)."""

    def __init__(self, device: int):
        self.guard = torch.cuda.device(device) if device >= 0 else None

    def __enter__(self):
        if self.guard is not None:
            self.guard.__enter__()

    def __exit__(self, *exc):
        if self.guard is not None:
            self.guard.__exit__(*exc)


# --8<-- [end:checks]


# --8<-- [start:reference]
def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``x + y`` correctly rounded to ``x``'s dtype, computed by torch alone."""
    return (x.double() + y.double()).to(x.dtype)


# --8<-- [end:reference]
