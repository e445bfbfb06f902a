"""What every checker shares: the interpreter switch, fresh inputs, guarded outputs, and
messages that say the first thing wrong.

A check function takes the reader's module (their edited starter, or the solution), launches
*its* ``@triton.jit`` kernel with the checker's own grid and arguments, and either returns a
short description of what passed ("7 shapes, fp16 and fp32") or raises ``Wrong`` with the
first mistake and the hint to read. It never calls a host wrapper of the reader's, so a
starter that returns ``torch``'s answer cannot pass.

The API (stable: add to it, never rename):

- ``Wrong(message, hint=None)``: what the reader sees, and which hint helps.
- ``Exercise(slug, kind, title, check, hints=(), cites=(), page="", untouched="")``: one
  exercise.
- ``fresh_seed()``, ``ragged(lo, hi)``, ``rand(shape, dtype)``: fresh inputs, sizes that
  are not powers of two.
- ``guarded(shape, dtype)``: an output poisoned with NaN (or a sentinel for integers) and
  surrounded by guard regions (``.guard`` elements each); ``.check()`` says if anything
  was written outside.
- ``compare(got, want, what)``: the first wrong element, by index, or a wrong dtype/shape.
- ``jit(module, name)``: the reader's kernel, or ``Wrong`` if it is missing or not a kernel.
- ``launch(kernel, grid, *args, **meta)``: runs it; an exception becomes ``Wrong``.
- ``answer(module, name)``: a prediction the reader wrote down (kind "predict").
- ``Spy(module, name)``: with it, the reader's host code (a ``launch``, a wrapper) runs
  its kernel through a counter; ``call(fn, ...)`` runs that host code, exceptions as
  ``Wrong``.
- ``book_value(device, kind, **params)``: a number of the book's measured data (the truth
  of a prediction), the same number a page's ``{{ value ... }}`` shows.
- ``compiled_ir(path, kernel, signature, constexprs)``: compile the reader's kernel for a
  Hopper GPU without one (in a child process, outside the interpreter) and return its IR;
  ``compiled_irs`` does several versions (divisible arguments) in one child process.
- ``run(exercise, solution=False, answers=None)``: load the file, check it, say PASS or
  FAIL; ``answers`` (names to values) stand in for the file's own names (a prediction given
  in a notebook cell instead of the file).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def _interpreter_without_gpu() -> None:
    """Without a CUDA GPU, kernels run under the Triton interpreter. TRITON_INTERPRET must
    be set before any ``@triton.jit`` function is defined, so this runs at import, before
    this module imports triton and before any starter file is loaded (as tests/conftest.py
    does for the tests)."""
    if "TRITON_INTERPRET" in os.environ:
        return
    import torch

    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"


_interpreter_without_gpu()

import torch  # noqa: E402
from triton.runtime.jit import KernelInterface  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
DEVICE = "cpu" if INTERPRETED else "cuda"
KINDS = ("write", "predict", "bughunt")

# Elements of poison on each side of an output, at least: a kernel that writes past either
# end of its output changes them. Under the interpreter a stray store lands in the process's
# own memory, so the guards are made large enough (GUARD_FACTOR outputs on each side) to
# hold the strays of a whole padded tile grid instead of the heap around the buffer.
GUARD = 64
GUARD_FACTOR = 4
# (rtol, atol) per output dtype, for results allowed to differ in the last bits.
TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
}
INT_POISON = -(2**30) + 7  # an integer no check expects


class Wrong(Exception):
    """The first thing wrong, in the reader's terms, and the number of the hint to read."""

    def __init__(self, message: str, hint: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One exercise. ``slug`` names its files (``exercises/lessonNN/SLUG.py`` and
    ``exercises/solutions/lessonNN/SLUG.py``); ``check(module)`` returns what passed or
    raises ``Wrong``; ``hints`` are printed by ``python -m exercises hint`` and appear, word
    for word, in the page's collapsed hint blocks; a bug hunt ``cites`` the real report(s)
    it is modelled on; ``page`` is the lesson's Markdown under docs/; ``untouched`` is
    part of the message the untouched starter fails with, which the tests assert."""

    slug: str
    kind: str
    title: str
    check: Callable[[ModuleType], str]
    hints: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    page: str = ""
    # A few words of the message the untouched starter fails with (the tests assert it).
    untouched: str = ""
    lesson: str = ""
    number: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"exercise {self.slug}: kind must be one of {KINDS}")
        if self.kind == "bughunt" and not self.cites:
            raise ValueError(f"exercise {self.slug}: a bug hunt cites the report it models")

    def bind(self, lesson: str, number: str) -> Exercise:
        return dataclasses.replace(self, lesson=lesson, number=number)

    @property
    def id(self) -> str:
        return f"{self.lesson}.{self.number}"

    @property
    def starter(self) -> Path:
        return HERE / f"lesson{self.lesson}" / f"{self.slug}.py"

    @property
    def solution(self) -> Path:
        return HERE / "solutions" / f"lesson{self.lesson}" / f"{self.slug}.py"


# ---- fresh inputs ------------------------------------------------------------------------


def fresh_seed() -> int:
    """A new seed for every check (printed when it fails, so a failure can be replayed with
    ``EXERCISE_SEED=...``)."""
    seed = int(os.environ.get("EXERCISE_SEED") or random.randrange(2**31))
    torch.manual_seed(seed)
    random.seed(seed)
    return seed


def ragged(lo: int, hi: int) -> int:
    """A size in [lo, hi] that is not a multiple of 8, so a tile always hangs over the edge."""
    while True:
        n = random.randint(lo, hi)
        if n % 8:
            return n


def rand(shape, dtype=torch.float32, scale: float = 1.0) -> torch.Tensor:
    """Normal values drawn in fp32, scaled, rounded once to ``dtype``: no zeros, which
    would hide an unwritten output."""
    return (scale * torch.randn(shape, dtype=torch.float32, device=DEVICE)).to(dtype)


# ---- guarded, poisoned outputs -------------------------------------------------------------


def _poison(dtype: torch.dtype):
    return float("nan") if dtype.is_floating_point else INT_POISON


@dataclasses.dataclass
class Guarded:
    """``out``: a contiguous output of the asked shape, poisoned, with ``guard`` poisoned
    elements before and after it in the same buffer."""

    buffer: torch.Tensor
    out: torch.Tensor
    what: str
    guard: int = GUARD

    def check(self, hint: int | None = None) -> None:
        """Wrong if the kernel wrote into either guard region."""
        poison = _poison(self.buffer.dtype)
        n = self.out.numel()
        g = self.guard
        for name, part, base in (
            ("before", self.buffer[:g], -g),
            ("after", self.buffer[g + n :], n),
        ):
            kept = part.isnan() if self.buffer.dtype.is_floating_point else part == poison
            if not bool(kept.all()):
                index = base + int((~kept).nonzero()[0, 0])
                raise Wrong(
                    f"wrote outside {self.what}: the poison {name} it changed, at flat index "
                    f"{index} ({self.what} has {n} elements, 0 to {n - 1})",
                    hint=hint,
                )


def guarded(shape, dtype=torch.float32, what: str = "out") -> Guarded:
    shape = tuple(shape)
    numel = 1
    for s in shape:
        numel *= s
    guard = max(GUARD, GUARD_FACTOR * numel)
    buffer = torch.full((guard + numel + guard,), _poison(dtype), dtype=dtype, device=DEVICE)
    return Guarded(buffer, buffer[guard : guard + numel].view(shape), what, guard)


# ---- comparing -----------------------------------------------------------------------------


def _index(shape, flat: int) -> str:
    idx = []
    for s in reversed(shape):
        idx.append(flat % s)
        flat //= s
    return ", ".join(str(i) for i in reversed(idx))


def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def compare(
    got: torch.Tensor,
    want: torch.Tensor,
    what: str = "out",
    *,
    rtol: float | None = None,
    atol: float | None = None,
    hint: int | None = None,
    unwritten_hint: int | None = None,
) -> None:
    """Wrong at the first element of ``got`` that differs from ``want`` (row-major order),
    or when dtypes or shapes differ. ``want`` may be in higher precision; tolerances are
    those of ``got``'s dtype unless given."""
    if got.dtype != want.dtype and not (
        got.dtype.is_floating_point and want.dtype == torch.float64
    ):
        raise Wrong(f"wrong dtype: {what} is {got.dtype}, want {want.dtype}", hint=hint)
    if tuple(got.shape) != tuple(want.shape):
        raise Wrong(f"wrong shape: {what} is {tuple(got.shape)}, want {tuple(want.shape)}", hint)
    g = got.detach().cpu().reshape(-1)
    w = want.detach().cpu().reshape(-1)
    if got.dtype.is_floating_point:
        d_rtol, d_atol = TOLERANCES.get(got.dtype, (1e-5, 1e-5))
        rtol = d_rtol if rtol is None else rtol
        atol = d_atol if atol is None else atol
        g64, w64 = g.double(), w.double()
        bad = ~((g64 - w64).abs() <= atol + rtol * w64.abs())
        bad &= ~(g64.isnan() & w64.isnan())
        bad |= g64.isnan() & ~w64.isnan()
    else:
        bad = g != w
    if not bool(bad.any()):
        return
    i = int(bad.nonzero()[0, 0])
    at = f"{what}[{_index(got.shape, i)}]"
    gv, wv = g[i].item(), w[i].item()
    count = int(bad.sum())
    more = f" ({count} of {g.numel()} elements are wrong)" if count > 1 else ""
    if got.dtype.is_floating_point and g[i].isnan() and not w[i].isnan():
        raise Wrong(
            f"{at} was never written (it still holds the poison, NaN), want {_fmt(wv)}{more}",
            hint=unwritten_hint if unwritten_hint is not None else hint,
        )
    if not got.dtype.is_floating_point and gv == INT_POISON:
        raise Wrong(f"{at} was never written, want {_fmt(wv)}{more}", hint=unwritten_hint or hint)
    raise Wrong(f"wrong value at {at}: got {_fmt(gv)}, want {_fmt(wv)}{more}", hint=hint)


# ---- the reader's kernel ---------------------------------------------------------------------


def jit(module: ModuleType, name: str) -> KernelInterface:
    """The kernel ``name`` of the reader's file: it must be a ``@triton.jit`` function."""
    fn = getattr(module, name, None)
    if fn is None:
        raise Wrong(f"the file has no function {name}: keep the starter's names")
    if not isinstance(fn, KernelInterface):
        raise Wrong(f"{name} is not a Triton kernel: keep its @triton.jit decorator")
    return fn


def _last_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else text


def launch(kernel: KernelInterface, grid, *args, hint: int | None = None, **meta) -> None:
    """``kernel[grid](*args, **meta)``, with any exception turned into ``Wrong``."""
    try:
        kernel[grid](*args, **meta)
    except Wrong:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the reader's kernel raises
        name = getattr(kernel, "__name__", None) or getattr(
            getattr(kernel, "fn", None), "__name__", "the kernel"
        )
        raise Wrong(f"{name} raised {type(exc).__name__}: {_last_line(exc)}", hint=hint) from exc
    if not INTERPRETED:
        torch.cuda.synchronize()


class Spy:
    """Stands in for the kernel ``name`` of the reader's module while a check calls the
    reader's host code (a ``launch`` or a wrapper): every launch goes through to the real
    kernel and is counted, with its grid, so a check can tell that the kernel ran (and
    that a refusal launched nothing)."""

    def __init__(self, module: ModuleType, name: str):
        self.module, self.name = module, name
        self.kernel = jit(module, name)
        self.grids: list = []

    def __getitem__(self, grid):
        def run(*args, **meta):
            self.grids.append(grid)
            return self.kernel[grid](*args, **meta)

        return run

    def __enter__(self) -> Spy:
        setattr(self.module, self.name, self)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.module, self.name, self.kernel)


def call(fn: Callable, *args, hint: int | None = None, **kwargs):
    """``fn(*args, **kwargs)`` for the reader's host code, an exception becoming ``Wrong``."""
    try:
        return fn(*args, **kwargs)
    except Wrong:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the reader's code raises
        name = getattr(fn, "__name__", "the function")
        raise Wrong(f"{name} raised {type(exc).__name__}: {_last_line(exc)}", hint=hint) from exc


def answer(module: ModuleType, name: str = "ANSWER", hint: int | None = None):
    """A prediction the reader wrote into the file, or Wrong while it is still ``None``."""
    value = getattr(module, name, None)
    if value is None:
        raise Wrong(f"no prediction yet: write yours into {name} at the top of the file", hint)
    return value


def nearest_choice(module: ModuleType, choices, measured: float, wrong: str):
    """The reader's prediction (``ANSWER``) when it is the one of ``choices`` nearest to
    ``measured`` on a log scale, as the page's predict widget picks (``nearest``); else
    Wrong: hint 1 for no prediction or one not among the choices, hint 2 with ``wrong``
    (formatted with ``guess`` and ``want``) for another choice."""
    guess = answer(module, "ANSWER", hint=1)
    if guess not in choices:
        raise Wrong(f"ANSWER is {guess!r}: pick one of {', '.join(map(str, choices))}", hint=1)
    want = min(choices, key=lambda c: abs(math.log(c / measured)))
    if guess != want:
        raise Wrong(wrong.format(guess=guess, want=want), hint=2)
    return want


# ---- the book's data and compiled output ------------------------------------------------------


@functools.cache
def _book_data():
    """The committed data and the value registry, read once per process."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from scripts.book import render

    return render, render.load_devices(), render.discover()


def book_value(device: str, kind: str, **params):
    """The unformatted number a page's ``{{ value DEVICE KIND NAME=VALUE ... }}`` shows,
    computed from the committed data in figures/data (no GPU needed)."""
    render, devices, registry = _book_data()
    slug = render.resolve_device(device, devices)
    word = kind + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
    val, args, _ = render.bind(render.parse_widget_word(word), registry)
    return val.compute(devices[slug], **args)


_COMPILE = """
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
path, name, signature, constexprs, options, divisible_sets = sys.argv[1:7]
spec = importlib.util.spec_from_file_location("reader_file", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, name)
found = []
for divisible in json.loads(divisible_sets):
    attrs = {(fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in divisible}
    source = ASTSource(fn=fn, signature=json.loads(signature),
                       constexprs=json.loads(constexprs), attrs=attrs)
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                              options=json.loads(options))
    found.append({k: v for k, v in compiled.asm.items() if isinstance(v, str)})
print(json.dumps(found))
"""


def compiled_irs(
    path: Path,
    kernel: str,
    signature: dict,
    constexprs: dict,
    options: dict | None = None,
    divisible_sets: list[tuple[str, ...]] = ((),),
) -> list[dict[str, str]]:
    """``compiled_ir`` once per set of divisible arguments, in one child process (the
    file is imported once: a kernel file that imports torch costs seconds to import)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    cmd = [sys.executable, "-c", _COMPILE, str(path), kernel, json.dumps(signature)]
    cmd += [json.dumps(constexprs), json.dumps(options or {})]
    cmd += [json.dumps([list(d) for d in divisible_sets])]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        raise Wrong(f"{kernel} does not compile: {lines[-1] if lines else 'no message'}")
    return json.loads(done.stdout.splitlines()[-1])


def compiled_ir(
    path: Path,
    kernel: str,
    signature: dict,
    constexprs: dict,
    options: dict | None = None,
    divisible: tuple[str, ...] = (),
) -> dict[str, str]:
    """Compile ``kernel`` of the file ``path`` for an H100 (sm_90), which needs no GPU, and
    return its IR by stage (``ttir``, ``ttgir``, ``llir``, ``ptx``). ``divisible`` names the
    arguments to treat as multiples of 16, as a launch finds them (lesson 03). Runs in a
    child process: a kernel defined under the interpreter cannot be compiled."""
    return compiled_irs(path, kernel, signature, constexprs, options, [divisible])[0]


# ---- running one exercise ---------------------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    passed: bool
    message: str
    seconds: float
    hint: int | None = None


def load(path: Path) -> ModuleType:
    """Import the reader's file fresh (edits since the last check are seen)."""
    name = f"_exercise_{path.parent.name}_{path.stem}_{time.monotonic_ns()}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the reader's file may fail in any way
        tb = traceback.extract_tb(exc.__traceback__)
        line = next((f.lineno for f in reversed(tb) if f.filename == str(path)), None)
        if isinstance(exc, SyntaxError):
            line = exc.lineno
        where = f" (line {line})" if line else ""
        message = f"{path.name} does not run{where}: {type(exc).__name__}: {_last_line(exc)}"
        raise Wrong(message) from exc
    return module


def run(ex: Exercise, solution: bool = False, answers: dict | None = None) -> Outcome:
    path = ex.solution if solution else ex.starter
    start = time.perf_counter()
    seed = fresh_seed()
    try:
        module = load(path)
        for name, value in (answers or {}).items():
            if not hasattr(module, name):
                raise Wrong(f"{path.name} has no name {name}: keep the starter's names")
            setattr(module, name, value)
        detail = ex.check(module)
    except Wrong as w:
        msg = f"FAIL {ex.id} {ex.title}: {w.message}"
        if w.hint:
            msg += f". Read hint {w.hint}: python -m exercises hint {ex.id} {w.hint}"
        msg += f" (seed {seed})"
        return Outcome(False, msg, time.perf_counter() - start, w.hint)
    return Outcome(True, f"PASS {ex.id} {ex.title} ({detail})", time.perf_counter() - start)
