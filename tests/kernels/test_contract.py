"""The wrapper contract (DESIGN.md, "The wrapper contract"), tested once for every family.

Every public wrapper of ``kernels/*.py`` is one ``Row`` of ``ROWS``: how to call it, what a
valid call looks like (small, ragged tensors and the knobs), which argument is ``out``,
whether it has autograd, the dtypes it takes, its knobs with their bounds, and the few
things a rule cannot work out for itself (which shapes are wrong, which strided views it
reads in place, which input ``out`` may be). Each contract rule is one test function below,
parametrised over every row: a new family gets the whole contract by adding one row, and
a new rule is one function (with a ``cases_<rule>`` generator if it needs cases).

A rule that does not apply to a row says why in the row's ``not_applicable``; the test
then shows as skipped with that reason (``-rs``), never silently absent.
``test_every_rule_applies_to_every_row_or_says_why`` keeps the two in step, and
``test_every_public_callable_has_a_row_or_a_reason`` that no public wrapper is forgotten.
A case the contract requires that a wrapper fails today is listed in the row's ``holes``
and marked xfail (strict, so that fixing it turns the mark into a failure to remove); an
``Unnamed`` hole (a refusal whose message does not name the argument) still has its
refusal checked, and only the missing name is reported as xfail.

Refusals must be a ``TypeError`` or ``ValueError`` whose message starts with the function's
name and names the argument, and nothing may be launched before a refusal: a spy on
Triton's launch entry point (``JITFunction.run``, and ``InterpretedFunction.run`` under the
interpreter) counts every launch and records the CUDA device current at each.

The per-family files (``test_F.py``) keep the numerics: references, ragged shapes, every
dtype, special values and the family's own special cases.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pathlib
import re
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch
import triton
from torch.autograd import forward_ad

from kernels import _tuning as tu
from kernels import attention as at
from kernels import attention_tma as atm
from kernels import ceilings as cl
from kernels import compiled_ops as co
from kernels import decode_attention as dca
from kernels import dot as kd
from kernels import fp8_matmul as f8
from kernels import fused_activation as fa
from kernels import launch as la
from kernels import launch_lean as ll
from kernels import linear_cross_entropy as lce
from kernels import matmul as mm
from kernels import matmul_tma as mt
from kernels import reduction as red
from kernels import rmsnorm as rn
from kernels import softmax as sm
from kernels import vector_add as va
from tests.support import (
    DEVICE,
    ON_GPU,
    TOLERANCES,
    big_gpu_memory,
    fresh_seed,
    rand,
    requires_two_gpus,
)

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
NAN = float("nan")

# ---- values and views ---------------------------------------------------------------------


def small_integers(shape, dtype=F32, device=DEVICE) -> torch.Tensor:
    """Nonzero integers in [-8, 8]: exact in every float format, so sums of them are too."""
    magnitude = torch.randint(1, 9, shape, device=device)
    sign = torch.randint(0, 2, shape, device=device) * 2 - 1
    return (magnitude * sign).to(dtype)


def of_dtype(shape, dtype, device=DEVICE) -> torch.Tensor:
    """Fresh nonzero values of any dtype (complex ones with the conj bit set, as a view of
    a conjugated tensor has it)."""
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, device=device).conj()
    if dtype == torch.bool:
        return torch.ones(shape, dtype=dtype, device=device)
    if not dtype.is_floating_point:
        return torch.randint(1, 9, shape, device=device).to(dtype)
    return rand(shape, F32, device).to(dtype)


def fresh(t: torch.Tensor, shape) -> torch.Tensor:
    """New random values in ``t``'s dtype and device, of ``shape``."""
    return rand(shape, t.dtype, t.device)


# Views with the same shape as ``t`` and fresh values, each with one kind of stride.
def every_other_column(t):
    return fresh(t, (*t.shape[:-1], 2 * t.shape[-1]))[..., ::2]


def transposed(t):
    return fresh(t, (*t.shape[:-2], t.shape[-1], t.shape[-2])).transpose(-1, -2)


def padded_rows(t):
    return fresh(t, (*t.shape[:-1], t.shape[-1] + 5))[..., : t.shape[-1]]


def broadcast_rows(t):
    return fresh(t, (1, *t.shape[1:])).expand(t.shape)


def misaligned(t):
    """Contiguous, but 4 bytes past a 16-byte boundary."""
    return fresh(t, (t.numel() + 1,))[1:].view(t.shape)


def heads_outside(t):
    """Stored (B, N, H, d): the sequence before the heads, as a model projects it."""
    return fresh(t, (t.shape[0], t.shape[2], t.shape[1], t.shape[3])).transpose(1, 2)


def neg_view(t):
    """Memory holds ``t``, the view reads ``-t`` (a view with the negative bit)."""
    return torch._neg_view(t)


INT32_LIMIT = 2**31


def far_apart(t, dim):
    """A view holding ``t``'s values, of its shape, dtype and device, whose stride along
    ``dim`` is S: the smallest multiple of 64 with (size - 1) * S >= 2**31. S itself is
    below 2**31, so Triton passes it as an int32, and an int32 index times it wraps at the
    last index. The other dimensions are packed below S. The buffer spans about 2**31
    elements (4 GiB of fp16) of which the view touches only its own few: on the CPU the
    pages it never touches are never allocated."""
    n = t.shape[dim]
    assert n >= 3, f"dim {dim} has {n} elements: index 1 times a stride below 2**31 cannot wrap"
    others = [size for i, size in enumerate(t.shape) if i != dim]
    stride = -(-INT32_LIMIT // (n - 1) // 64) * 64
    assert math.prod(others) <= stride < INT32_LIMIT
    strides, step = [], 1
    for size in reversed(others):
        strides.insert(0, step)
        step *= size
    strides.insert(dim, stride)
    buf = torch.empty((n - 1) * stride + step, dtype=t.dtype, device=t.device)
    view = buf.as_strided(t.shape, strides)
    view.copy_(t)
    return view


def plain(t):
    """A contiguous copy of what ``t`` reads, without the negative bit or grad."""
    if not isinstance(t, torch.Tensor):
        return t
    return t.detach().resolve_neg().contiguous().clone()


# ---- the checks a rule makes ------------------------------------------------------------

# Words that may follow an argument's name where a message names it ("x must", "out
# overlaps y", "but a has", "q, k, v have"); "a" is also an article ("a meta tensor").
_AFTER_NAME = (
    r"(?=$|[,;:)'\"=]| [(*=/]| (?:[A-Z_]+|num_\w+)\b| (?:must|is|has|have|are|requires|and|"
    r"overlaps|partially|may|needs|gives|does|applies|as|cannot|with|over|in)\b)"
)


def names(message: str, name: str) -> bool:
    return re.search(rf"(?<![\w.=]){re.escape(name)}{_AFTER_NAME}", message) is not None


@contextmanager
def refused(row: Row, error, *named: str, says: str | None = None, case=None):
    """The block raises ``error`` whose message starts with the function's name and
    names every argument in ``named`` (and matches ``says``). A case listed as an
    ``Unnamed`` hole must still refuse; only the naming is reported as xfail."""
    with pytest.raises(error) as info:
        yield
    message = str(info.value)
    assert message.startswith(f"{row.prefix}: "), f"not prefixed by {row.prefix}: {message}"
    if says is not None:
        assert re.search(says, message), f"the message does not say {says!r}: {message}"
    unnamed = (case or {}).get("unnamed")
    if unnamed and not all(names(message, name) for name in named):
        pytest.xfail(f"contract hole: {unnamed}")
    if unnamed:
        pytest.fail(f"this hole is fixed, remove it from the row's holes: {unnamed}")
    for name in named:
        assert names(message, name), f"the message does not name {name!r}: {message}"


def tolerance(dtype, loose=False):
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[F32])
    return (rtol * 4, atol * 4) if not loose else (max(rtol, 2e-2), max(atol, 2e-2))


def close(got, want, msg="", loose=False):
    """``got`` matches ``want`` (another call's result, or a float64 reference) at the
    dtype's tolerance; None matches None; NaN never passes."""
    if want is None:
        assert got is None, msg
        return
    assert isinstance(got, torch.Tensor), f"{type(got)} {msg}"
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)} {msg}"
    assert not torch.isnan(got).any(), f"NaN in the result (unwritten elements?) {msg}"
    rtol, atol = tolerance(got.dtype, loose)
    torch.testing.assert_close(
        got.detach().double().cpu(),
        want.detach().to(got.dtype).double().cpu(),
        rtol=rtol,
        atol=atol,
        msg=lambda m: f"{m}\n{msg}",
    )


# ---- the table ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Unnamed:
    """A hole where the wrapper refuses, as it must, with a message that does not name the
    argument: the rule still checks the refusal (and what it says), then reports xfail."""

    reason: str


@dataclass(frozen=True)
class Knob:
    """A knob argument: ``kind`` says which types it takes ("int", "int|None", "bool",
    "number", "number|None", or "config": a triton.Config); ``bad`` are values of the right
    type out of bounds, and ``bound`` what the refusal must say about the bound."""

    name: str
    kind: str
    bad: tuple = ()
    bound: str | None = None
    bad_types: tuple | None = None  # instead of the kind's usual wrong types


@dataclass(frozen=True)
class Bad:
    """One refused call: ``shapes`` replace tensor shapes, ``knobs`` set knob arguments,
    ``dtype`` the inputs' dtype. The refusal names ``named`` and matches ``says``;
    ``patch`` sets public module attributes first (e.g. a smaller shared-memory limit)."""

    id: str
    named: tuple
    shapes: Mapping = field(default_factory=dict)
    knobs: Mapping = field(default_factory=dict)
    dtype: torch.dtype | None = None
    says: str | None = None
    error: Any = ValueError
    patch: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    """A strided view of ``arg`` (``make(valid tensor) -> view``): read or written in
    place (``accepted``) or refused by name."""

    id: str
    arg: str
    make: Callable
    accepted: bool
    says: str | None = None


@dataclass(frozen=True)
class Empty:
    """Tensors with no elements (``shapes``), accepted (no launch when the result is empty)
    or refused by naming ``refuse``."""

    id: str
    shapes: Mapping
    knobs: Mapping = field(default_factory=dict)
    refuse: str | None = None


@dataclass(frozen=True)
class Big:
    """``arg`` as a ``far_apart`` view along ``dim``: its last index there lies past 2**31
    elements (``shapes`` and ``knobs`` change the valid call; ``name`` ends the id)."""

    arg: str
    dim: int
    shapes: Mapping = field(default_factory=dict)
    knobs: Mapping = field(default_factory=dict)
    name: str = ""

    @property
    def id(self) -> str:
        return f"{self.arg}-dim{self.dim}" + (f"-{self.name}" if self.name else "")


@dataclass(frozen=True)
class Row:
    """One public wrapper: how to call it and what each rule needs to know about it."""

    name: str  # the test ids' prefix
    prefix: str  # what every error message starts with
    module: ModuleType
    call: Callable  # call(**arguments)
    shapes: Mapping  # every tensor argument's shape in a valid call (out included)
    tensors: tuple  # tensor arguments, inputs first (the first is checked first), then out
    dtype: torch.dtype  # the valid call's dtype
    dtypes: tuple  # dtypes the first tensor may have
    reference: Callable | None  # reference(arguments) in float64 (None: returns nothing)
    out: str | None = None  # the out= argument, None if there is none
    out_required: bool = False
    autograd: bool = False  # an autograd.Function: differentiable; else requires-grad refused
    defaults: Mapping = field(default_factory=dict)  # other arguments of a valid call
    fill: Callable = rand  # fill(shape, dtype, device): a valid call's values
    accepts: Callable | None = None  # accepts({arg: dtype}) -> bool; None: one dtype, dtypes
    out_dtype: Callable = lambda dtype: dtype  # out's dtype for inputs of that dtype
    any_dtype: bool = False  # every dtype it accepts is tried (a wrapper that reads nothing)
    knobs: tuple = ()
    limits: tuple = ()  # Bad: refused combinations of knobs (per-thread caps, grid limits)
    choices: tuple = ()  # Bad: string options, refused by TypeError or ValueError
    bad_shapes: tuple = ()  # Bad
    layouts: tuple = ()  # Layout
    big_strides: tuple = ()  # Big: an index times a stride past 2**31 elements
    empty: tuple = ()  # Empty
    zero_dim: str = "refused"  # or "accepted" (every tensor 0-d)
    in_place: tuple = ()  # inputs that out may be
    neg: str = "resolved"  # inputs with the negative bit: "resolved" or "refused"
    any_strides: bool = False  # takes any strides: conj().imag views are read in place
    overlap_extra: tuple = ()  # (id, build(row) -> (arguments, named)): refused overlaps
    variants: tuple = (("default", {}),)  # knob settings with other kernels
    binder: Callable | None = None  # binder(arguments) -> call, for a validated instance
    launches_visible: bool = True  # every launch goes through Triton's run (the spy sees it)
    launches_when_empty: str | None = None  # why an empty call still launches (by design)
    cpu_under_interpreter: bool = True  # the CPU refusal can be shown with the flag off
    not_applicable: Mapping = field(default_factory=dict)  # rule -> why it does not apply
    holes: Mapping = field(default_factory=dict)  # "rule-case id" -> why it fails today (xfail)

    @property
    def inputs(self) -> tuple:
        return tuple(t for t in self.tensors if t != self.out)

    def arg_dtype(self, arg, dtype):
        return self.out_dtype(dtype) if arg == self.out else dtype

    def valid(self, *, shapes=None, dtype=None, device=DEVICE, out=False) -> dict:
        """Arguments of a valid call, fresh values; out (poisoned) only if asked for."""
        dtype = dtype or self.dtype
        shapes = {**self.shapes, **(shapes or {})}
        args = dict(self.defaults)
        for name in self.tensors:
            if name == self.out:
                if out or self.out_required:
                    args[name] = torch.full(
                        shapes[name], NAN, dtype=self.out_dtype(dtype), device=device
                    )
            else:
                args[name] = self.fill(shapes[name], dtype, device)
        return args

    def bind(self, args: dict) -> Callable:
        """The callable a rule calls: the wrapper, or (LeanAdd's later calls) an instance
        validated on tensors like ``args``."""
        return self.binder(args) if self.binder is not None else self.call

    def dtype_accepted(self, dtypes: dict) -> bool:
        if self.accepts is not None:
            return self.accepts(dtypes)
        if self.any_dtype:
            return True
        first = dtypes[self.tensors[0]]
        return first in self.dtypes and all(
            d == self.arg_dtype(a, first) for a, d in dtypes.items()
        )


INT_BAD_TYPES = (True, 4.0, "4", np.int64(4))
# Values a knob of the kind takes besides the plain ones: a float subclass is a float.
KIND_GOOD_VALUES = {"number": (np.float64(0.75),), "number|None": (np.float64(0.75),)}
KIND_BAD_TYPES = {
    "int": INT_BAD_TYPES + (None,),
    "int|None": INT_BAD_TYPES,
    "bool": (1, 0, None, "yes", np.bool_(True), torch.tensor(True)),
    "number": (True, "0.5", None, torch.tensor(0.5), 0.5j, np.float32(0.5), [0.5]),
    "number|None": (True, "0.5", torch.tensor(0.5), 0.5j, np.float32(0.5), [0.5]),
}
VECTOR_KNOBS = (
    Knob("block", "int", (0, -4, 2, 3, 1000, 131072, 2**70), r"\[4, 65536\]"),
    Knob("num_warps", "int", (0, -1, 3, 64), r"\[1, 32\]"),
)
VECTOR_LIMITS = tuple(
    Bad(f"{b}-on-{w}-warps", ("block", "num_warps"), knobs={"block": b, "num_warps": w},
        says="more than 512")
    for b, w in ((65536, 1), (65536, 2), (32768, 1))
)  # fmt: skip


def _softmax_padded_gaps(row):
    buf = rand(128)
    return {"x": buf.view(8, 16)[:, :8], "out": buf[8:72].view(8, 8)}, ("x",)


def _softmax_same_start(row):
    buf = rand(128)
    return {"x": buf.view(8, 16)[:, :8], "out": buf[:64].view(8, 8)}, ("x",)


def _gelu_interleaved_columns(row):
    """out and x share no byte, but their byte ranges interleave: refused, by design
    (ranges are conservative)."""
    buf = rand((8, 16))
    args = {"x": buf[:, :8], "out": buf[:, 8:], "bias": rand(8), "mask": rand((8, 8))}
    return args, ("x",)


def _gelu_dropout_reference(a):
    """gelu(x + bias) in float64 times the keep mask the kernel makes from (p, seed), as
    launch_dropout_mask makes it alone, scaled by 1 / (1 - p)."""
    x = a["x"]
    keep = fa.launch_dropout_mask(*x.shape, a["p"], a["seed"], x.device)
    scaled = keep.double() / (1 - a["p"])
    ref = fa.reference(x.double(), a["bias"].double(), scaled, a.get("approximate", "none"))
    return ref.to(x.dtype)


def _out_is_a(row):
    """A square product written over its own input a: programs would read a's rows after
    others wrote them."""
    a = rand((5, 5), row.dtype)
    args = {"a": a, "b": rand((5, 5), row.dtype), "out": a}
    if "bias" in row.tensors:
        args["bias"] = rand(5, row.dtype)
    return args, ("a",)


def _reduce_padded_gap(row):
    buf = rand(128)
    return {"x": buf.view(8, 16)[:, :8], "out": buf[8:16]}, ("x",)


def _reduce_same_start_transposed(row):
    buf = rand(128)
    return {"x": buf[:64].view(8, 8).t(), "out": buf[:8]}, ("x",)


def _lean_binder(args):
    """A LeanAdd validated on clean tensors like ``args``: later calls go through its
    lean path, which must refuse what the first call would."""
    lean = ll.LeanAdd(plain(args["x"]), plain(args["y"]), plain(args["out"]))
    return lambda x, y, out: lean(x, y, out)


def _matmul_config(block_m=32, block_n=32, block_k=32, num_warps=4, num_stages=2, **extra):
    kwargs = {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, **extra}
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return triton.Config(kwargs, num_warps=num_warps, num_stages=num_stages)


def _config_with(**change):
    opts = {k: change.pop(k) for k in ("num_ctas", "maxnreg") if k in change}
    config = _matmul_config(**change)
    for k, v in opts.items():
        setattr(config, k, v)
    return config


def _rms_accepts(d):
    return d["x"] in rn.SUPPORTED_DTYPES and d["weight"] in (d["x"], F32)


def _dot_accepts(d):
    a = d["a"]
    return a in kd.OUT_DTYPE and d["b"] == a and d.get("out", kd.OUT_DTYPE[a]) == kd.OUT_DTYPE[a]


def _lce_target(x, weight):
    """linear_cross_entropy's row passes tensors x and weight only: the target is made
    from their shapes, every class in range and every fourth row ignored (-100). Where x or
    weight is not a tensor of the right kind the wrapper refuses it before it reads target,
    so any target does there. (test_linear_cross_entropy.py tests target's own refusals.)"""
    try:
        n, vocab, device = x.shape[0], weight.shape[0], x.device
        target = (torch.arange(n, device=device) * 7 + 3) % max(1, vocab)
        return torch.where(torch.arange(n, device=device) % 4 == 1, -100, target)
    except (AttributeError, IndexError, RuntimeError, TypeError, ValueError):
        # on x's device where x is a tensor, so that the refusal names x or weight, not target
        where = x.device if isinstance(x, torch.Tensor) and not x.is_meta else DEVICE
        return torch.zeros(0, dtype=torch.int64, device=where)


def _lce_call(x, weight, **knobs):
    return lce.linear_cross_entropy(x, weight, _lce_target(x, weight), **knobs)


def _lce_reference(a):
    knobs = {k: a[k] for k in ("reduction",) if k in a}
    return lce.reference(a["x"], a["weight"], _lce_target(a["x"], a["weight"]), **knobs)


def _no_out(rule):
    return {rule: "no out argument: the result is always a new tensor"}


NO_OUT = {
    **_no_out("out_version"),
    **_no_out("out_requires_grad"),
}
NO_BACKWARD = {"double_backward": "no backward: inputs that require grad are refused"}
# Families that take contiguous tensors only: every offset is the flat element index, made
# int64 from the program id (tests/kernels/test_int64_offsets.py checks each kernel).
FLAT = {"big_strides": "contiguous tensors only: the offsets are flat indices, int64 from the "
                       "program id (test_int64_offsets.py)"}  # fmt: skip

# fmt: off
# What both attention rows share (lesson 12's kernel and attention_tma take the same q, k,
# v and knobs): the inputs, the knobs (causal is a bool or one of the strings
# CAUSAL_ALIGNMENTS: any other type, a str subclass or bytes included, is a TypeError), the
# sizes and the variants.
ATTENTION_CASES = {
    "shapes": {"q": (1, 2, 9, 16), "k": (1, 2, 11, 16), "v": (1, 2, 11, 16)},
    "tensors": ("q", "k", "v"),
    "dtype": F16,
    "autograd": True,
    "knobs": (
        Knob("causal", "bool", bad_types=(1, 0, None, np.bool_(True), torch.tensor(True),
                                          1.0, b"top_left", np.str_("top_left"))),
        Knob("scale", "number|None", (0, -0.5, NAN, math.inf, 1e39, 10**400),
             "must be > 0 and finite"),
    ),  # fmt: skip
    "choices": tuple(
        Bad(f"causal-{v!r}", ("causal",), knobs={"causal": v},
            says="a bool, 'top_left' or 'bottom_right'")
        for v in ("yes", "True", "TOP_LEFT", "bottom-right", "lower_right", "", "top_left ")
    ),  # fmt: skip
    # Three heads and three batch entries where those are the far dimension: index 2
    # times the stride passes 2**31 (two would not: index 1 times a stride below it).
    "big_strides": tuple(
        Big(arg, dim, shapes=shapes)
        for arg in "qkv"
        for dim, shapes in (
            (1, {"q": (1, 3, 9, 16), "k": (1, 3, 11, 16), "v": (1, 3, 11, 16)}),
            (3, {}),
        )
    )
    + (
        Big("q", 1, shapes={"q": (1, 3, 9, 16), "k": (1, 3, 11, 16), "v": (1, 3, 11, 16)},
            knobs={"causal": True}, name="causal"),
        Big("q", 0, shapes={"q": (3, 2, 9, 16), "k": (3, 2, 11, 16), "v": (3, 2, 11, 16)}),
        Big("q", 2),
        Big("k", 2),
        Big("k", 2, knobs={"causal": "bottom_right"}, name="bottom-right"),
    ),  # fmt: skip
    "empty": (
        Empty("no-queries", {"q": (1, 2, 0, 16), "k": (1, 2, 11, 16), "v": (1, 2, 11, 16)}),
        Empty("no-keys", {"q": (1, 2, 9, 16), "k": (1, 2, 0, 16), "v": (1, 2, 0, 16)}),
        Empty("no-batch", {"q": (0, 2, 9, 16), "k": (0, 2, 11, 16), "v": (0, 2, 11, 16)}),
        Empty("no-heads", {"q": (1, 0, 9, 16), "k": (1, 0, 11, 16), "v": (1, 0, 11, 16)}),
    ),
    "any_strides": True,
    "variants": (
        ("full", {}),
        ("causal", {"causal": True}),
        ("bottom-right", {"causal": "bottom_right"}),
    ),
}

FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)


FP8_SCALES = (torch.tensor(0.5, device=DEVICE), torch.tensor(2.0, device=DEVICE))


def _fp8_matmul(a, b, a_scale, b_scale, **kw):
    """fp8_matmul with b given as the row-major (N, K) weight it reads: b.t() is the
    column-major (K, N) operand, so that the rules' contiguous copies stay legal. The
    row's fixed scales follow a to the GPU it is on (a rule that moves a to cuda:1 moves
    them too); scales on the wrong device are test_fp8_matmul.py's."""
    weight = isinstance(b, torch.Tensor) and b.dim() == 2
    fixed = all(
        isinstance(t, torch.Tensor) and t.dim() == 0 and t.item() == f.item()
        for t, f in zip((a_scale, b_scale), FP8_SCALES, strict=True)
    )
    if fixed and isinstance(a, torch.Tensor) and a.is_cuda:
        a_scale, b_scale = (t.to(a.device) for t in FP8_SCALES)
    return f8.fp8_matmul(a, b.t() if weight else b, a_scale, b_scale, **kw)


def _fp8_reference(args):
    b = args["b"]
    return f8.reference(args["a"], b.t(), args["a_scale"], args["b_scale"], torch.float64)


def _fp8_accepts(d):
    return d["a"] in FP8 and d["b"] == d["a"] and d.get("out", BF16) == BF16


def _k_aligned_pad(t):
    """b's (N, K) rows padded to K + 16 bytes: a column-major b with an aligned stride."""
    return fresh(t, (t.shape[0], t.shape[1] + 16))[:, : t.shape[1]]


FP8_CARVED = (
    "the overlap rule carves every tensor from one buffer of the inputs' dtype, so out "
    "is FP8 there and is refused for its dtype (TypeError naming out) before anything runs"
)


def _decode_lengths(q, k) -> torch.Tensor:
    """decode_attention's lengths for a call on q, k: ragged (k's keys less 2 per batch
    entry, at least 0), int32, on q's device. Built from whatever the rule passed (a
    list, a 0-d or meta tensor) so that the wrapper, not this helper, is what refuses."""
    batch, n = 1, 0
    try:
        if q.dim() == 4:
            batch = q.size(0)
        if k.dim() == 4:
            n = k.size(2)
    except (AttributeError, RuntimeError):
        pass
    device = q.device if isinstance(q, torch.Tensor) and not q.is_meta else DEVICE
    values = [max(n - 2 - 2 * b, 0) for b in range(batch)]
    return torch.tensor(values, dtype=torch.int32, device=device)


def _decode_call(q, k, v, **kwargs):
    """decode_attention on the contiguous cache, with ``_decode_lengths``: its seq_lens and
    block_table are tested in test_decode_attention.py."""
    return dca.decode_attention(q, k, v, _decode_lengths(q, k), **kwargs)


ROWS = (
    Row(
        name="vector_add",
        prefix="vector_add",
        module=va,
        call=va.vector_add,
        shapes={"x": (3, 37), "y": (3, 37), "out": (3, 37)},
        tensors=("x", "y", "out"),
        out="out",
        dtype=F32,
        dtypes=va.SUPPORTED_DTYPES,
        reference=lambda a: va.reference(a["x"], a["y"]),
        knobs=VECTOR_KNOBS,
        limits=VECTOR_LIMITS,
        bad_shapes=(
            Bad("y-columns", ("y",), {"y": (3, 36)}),
            Bad("y-transposed-shape", ("y",), {"y": (37, 3)}),
            Bad("y-flat", ("y",), {"y": (111,)}),
            Bad("x-columns", ("x",), {"x": (3, 36)}),
            Bad("out-columns", ("out",), {"out": (3, 36)}),
            Bad("out-flat", ("out",), {"out": (111,)}),
        ),
        layouts=(
            Layout("x-every-other", "x", every_other_column, False),
            Layout("x-transposed", "x", transposed, False),
            Layout("y-padded-rows", "y", padded_rows, False),
            Layout("y-broadcast", "y", broadcast_rows, False),
            Layout("out-every-other", "out", every_other_column, False),
            Layout("out-transposed", "out", transposed, False),
        ),
        empty=(
            Empty("flat", {"x": (0,), "y": (0,), "out": (0,)}),
            Empty("no-columns", {"x": (3, 0), "y": (3, 0), "out": (3, 0)}),
            Empty("3d", {"x": (0, 5, 2), "y": (0, 5, 2), "out": (0, 5, 2)}),
        ),
        zero_dim="accepted",
        in_place=("x", "y"),
        not_applicable={**NO_BACKWARD, **FLAT, "choices": "no string options"},
    ),
    Row(
        name="launch_empty",
        prefix="launch_empty",
        module=la,
        call=la.launch_empty,
        shapes={"t": (5, 7)},
        tensors=("t",),
        dtype=F32,
        dtypes=(),
        any_dtype=True,
        accepts=lambda d: d["t"] in la.SUPPORTED_DTYPES,
        reference=None,
        layouts=(
            Layout("every-other", "t", every_other_column, True),
            Layout("transposed", "t", transposed, True),
        ),
        empty=(Empty("flat", {"t": (0,)}), Empty("no-columns", {"t": (5, 0)})),
        zero_dim="accepted",
        not_applicable={
            **NO_OUT,
            **NO_BACKWARD,
            "shape": "any shape: the kernel reads nothing",
            "requires_grad": "returns nothing: there is no result to differentiate",
            "dual": "returns nothing: there is no result to carry a tangent",
            "big_strides": "the kernel reads nothing",
            "neg": "the kernel reads nothing, so what the tensor reads as does not matter",
            "overlap": "one tensor, never read or written",
            "knob_type": "no knobs",
            "knob_bounds": "no knobs",
            "choices": "no string options",
            "mixed_devices": "one tensor",
        },
    ),
    Row(
        name="LeanAdd",
        prefix="LeanAdd",
        launches_when_empty="the first call compiles the kernel by launching it, empty or not",
        module=ll,
        call=lambda x, y, out, **knobs: (ll.LeanAdd(x, y, out, **knobs), out)[1],
        shapes={"x": (3, 37), "y": (3, 37), "out": (3, 37)},
        tensors=("x", "y", "out"),
        out="out",
        out_required=True,
        dtype=F32,
        dtypes=ll.SUPPORTED_DTYPES,
        reference=lambda a: ll.reference(a["x"], a["y"]),
        knobs=(
            Knob("block", "int", (0, -4, 2, 3, 1000, 131072, 2**70), r"\[4, 65536\]"),
            Knob("num_warps", "int", (0, -1, 3, 64), r"\[1, 32\]"),
        ),
        limits=VECTOR_LIMITS,
        bad_shapes=(
            Bad("y-columns", ("y",), {"y": (3, 36)}),
            Bad("out-flat", ("out",), {"out": (111,)}),
            Bad("x-columns", ("x",), {"x": (3, 36)}),
        ),
        layouts=(
            Layout("x-every-other", "x", every_other_column, False),
            Layout("y-transposed", "y", transposed, False),
            Layout("out-every-other", "out", every_other_column, False),
            Layout("x-misaligned", "x", misaligned, True),
        ),
        empty=(Empty("flat", {"x": (0,), "y": (0,), "out": (0,)}),),
        zero_dim="accepted",
        in_place=("x", "y"),
        neg="refused",
        not_applicable={**NO_BACKWARD, **FLAT, "choices": "no string options"},
    ),
    Row(
        name="LeanAdd.call",
        prefix="LeanAdd",
        module=ll,
        call=None,
        binder=_lean_binder,
        launches_visible=not ON_GPU,  # on a GPU later calls go to the C launcher directly
        cpu_under_interpreter=False,
        shapes={"x": (3, 37), "y": (3, 37), "out": (3, 37)},
        tensors=("x", "y", "out"),
        out="out",
        out_required=True,
        dtype=F32,
        dtypes=ll.SUPPORTED_DTYPES,
        reference=lambda a: ll.reference(a["x"], a["y"]),
        bad_shapes=(
            Bad("y-columns", ("y",), {"y": (3, 36)}),
            Bad("out-flat", ("out",), {"out": (111,)}),
            Bad("all-three-changed", ("x",), {"x": (3, 36), "y": (3, 36), "out": (3, 36)},
                says="make a new LeanAdd"),
            Bad("same-count", ("x",), {"x": (37, 3), "y": (37, 3), "out": (37, 3)},
                says="make a new LeanAdd"),
        ),
        layouts=(
            Layout("x-every-other", "x", every_other_column, False),
            Layout("y-transposed", "y", transposed, False),
            Layout("out-every-other", "out", every_other_column, False),
            Layout("x-misaligned", "x", misaligned, False, says="multiple of 16 bytes"),
        ),
        empty=(Empty("flat", {"x": (0,), "y": (0,), "out": (0,)}),),
        zero_dim="accepted",
        in_place=("x", "y"),
        neg="refused",
        not_applicable={
            **NO_BACKWARD,
            **FLAT,
            "choices": "no string options",
            "knob_type": "the knobs are given once, to the first call (the LeanAdd row)",
            "knob_bounds": "the knobs are given once, to the first call (the LeanAdd row)",
        },
    ),
    Row(
        name="fma_chains",
        prefix="fma_chains",
        module=cl,
        call=cl.fma_chains,
        shapes={"x": (3, 37)},
        tensors=("x",),
        dtype=F32,
        dtypes=(F32,),
        fill=small_integers,
        defaults={"scale": 1.0, "iters": 1},
        reference=lambda a: cl.reference(a["x"], a["scale"], a["iters"]),
        knobs=(
            Knob("block", "int", (0, 16, 100, 16384), r"\[32, 8192\]"),
            Knob("num_warps", "int", (0, 3, 64), r"\[1, 32\]"),
            Knob("iters", "int", (-1, 2**31), r"\[0, 2147483647\]"),
            Knob("scale", "number", (NAN, math.inf, -math.inf, 1e39, -1e39, 10**400),
                 "must be finite in float32"),
        ),
        limits=(
            Bad("half-a-chain", ("block", "num_warps"), knobs={"block": 32, "num_warps": 2},
                says="0.5 chains"),
            Bad("256-chains", ("block", "num_warps"), knobs={"block": 8192, "num_warps": 1},
                says="256 chains"),
        ),
        layouts=(
            Layout("every-other", "x", every_other_column, False),
            Layout("transposed", "x", transposed, False),
        ),
        empty=(Empty("flat", {"x": (0,)}), Empty("no-columns", {"x": (3, 0)})),
        zero_dim="accepted",
        not_applicable={
            **NO_OUT,
            **NO_BACKWARD,
            **FLAT,
            "shape": "any shape",
            "choices": "no string options",
            "mixed_devices": "one tensor",
            "overlap": "one input and no out: nothing to overlap",
        },
    ),
    Row(
        name="silu_mul",
        prefix="silu_mul",
        module=co,
        call=co.silu_mul,
        shapes={"a": (3, 37), "b": (3, 37)},
        tensors=("a", "b"),
        dtype=F32,
        dtypes=co.SUPPORTED_DTYPES,
        autograd=True,
        reference=lambda a: co.reference(a["a"], a["b"]),
        bad_shapes=(
            Bad("b-columns", ("b",), {"b": (3, 36)}),
            Bad("b-flat", ("b",), {"b": (111,)}),
            Bad("a-columns", ("a",), {"a": (3, 36)}),
        ),
        layouts=(
            Layout("a-every-other", "a", every_other_column, False),
            Layout("b-transposed", "b", transposed, False),
        ),
        empty=(Empty("no-rows", {"a": (0, 7), "b": (0, 7)}), Empty("flat", {"a": (0,), "b": (0,)})),
        zero_dim="accepted",
        not_applicable={
            **NO_OUT,
            **FLAT,
            "knob_type": "no knobs",
            "knob_bounds": "no knobs",
            "choices": "no string options",
        },
    ),
    Row(
        name="split_k_matmul",
        prefix="split_k_matmul",
        module=tu,
        call=tu.split_k_matmul,
        shapes={"a": (5, 19), "b": (19, 7)},
        tensors=("a", "b"),
        dtype=F32,
        dtypes=tu.SUPPORTED_DTYPES,
        reference=lambda a: tu.reference(a["a"], a["b"]),
        choices=tuple(
            Bad(f"tuning-{v!r}", ("tuning",), knobs={"tuning": v}, error=(TypeError, ValueError))
            for v in ("timed", "HEURISTICS", None, 1)
        ),
        bad_shapes=(
            Bad("inner-mismatch", ("b",), {"b": (18, 7)}),
            Bad("a-1d", ("a",), {"a": (19,)}),
            Bad("b-3d", ("b",), {"b": (19, 7, 1)}),
        ),
        layouts=(
            Layout("a-transposed", "a", transposed, True),
            Layout("b-transposed", "b", transposed, True),
            Layout("a-every-other", "a", every_other_column, True),
            Layout("b-padded-rows", "b", padded_rows, True),
        ),
        big_strides=(Big("a", 0), Big("a", 1), Big("b", 0), Big("b", 1)),
        empty=(
            Empty("no-rows", {"a": (0, 19), "b": (19, 7)}),
            Empty("no-columns", {"a": (5, 19), "b": (19, 0)}),
            Empty("k-zero", {"a": (5, 0), "b": (0, 7)}),
        ),
        any_strides=True,
        not_applicable={
            **NO_OUT,
            **NO_BACKWARD,
            "knob_type": "no integer knobs (tuning is a string option)",
            "knob_bounds": "no integer knobs (tuning is a string option)",
        },
    ),
    Row(
        name="dot",
        prefix="dot",
        module=kd,
        call=kd.dot,
        shapes={"a": (9, 19), "b": (19, 13), "out": (9, 13)},
        tensors=("a", "b", "out"),
        out="out",
        dtype=F32,
        dtypes=tuple(kd.OUT_DTYPE),
        accepts=_dot_accepts,
        out_dtype=lambda d: kd.OUT_DTYPE.get(d, d),
        reference=lambda a: kd.reference(a["a"], a["b"]),
        knobs=(
            Knob("block_m", "int", (8, 48, 512, 0), r"\[16, 256\]"),
            Knob("block_n", "int", (8, 48, 512), r"\[16, 256\]"),
            Knob("block_k", "int", (8, 48, 512), r"\[16, 256\]"),
            Knob("num_warps", "int", (0, 3, 32), r"\[1, 16\]"),
            Knob("num_stages", "int", (0, 9), r"\[1, 8\]"),
        ),
        limits=(
            Bad("spills", ("block_m", "block_n", "num_warps"),
                knobs={"block_m": 256, "block_n": 256, "num_warps": 4}, says="512 accumulator"),
            Bad("fp8-block-k", ("block_k",), knobs={"block_k": 16}, dtype=torch.float8_e4m3fn,
                shapes={"a": (9, 40), "b": (40, 13)}, says=r"\[32, 256\]"),
            Bad("grid-columns", ("block_n",), knobs={"block_n": 16},
                shapes={"a": (2, 1), "b": (1, 65535 * 16 + 1)}, says="at most 65535"),
        ),
        choices=tuple(
            Bad(f"input_precision-{v!r}", ("input_precision",), knobs={"input_precision": v},
                error=(TypeError, ValueError))
            for v in ("IEEE", "fp32", "tf32x2", "", "bf16x3", 1, True)
        )
        + tuple(
            Bad(f"input_precision-for-{n}", ("input_precision",), knobs={"input_precision": "ieee"},
                dtype=d, error=ValueError, shapes={"a": (9, 32), "b": (32, 13)})
            for n, d in (("fp16", F16), ("bf16", BF16), ("fp8", torch.float8_e4m3fn))
        ),
        bad_shapes=(
            Bad("inner-mismatch", ("b",), {"b": (18, 13)}),
            Bad("a-1d", ("a",), {"a": (19,)}),
            Bad("b-3d", ("b",), {"b": (19, 13, 1)}),
            Bad("out-transposed-shape", ("out",), {"out": (13, 9)}),
            Bad("out-flat", ("out",), {"out": (117,)}),
            Bad("out-rows", ("out",), {"out": (8, 13)}),
        ),
        layouts=(
            Layout("a-transposed", "a", transposed, True),
            Layout("b-every-other", "b", every_other_column, True),
            Layout("a-broadcast", "a", broadcast_rows, True),
            Layout("out-transposed", "out", transposed, True),
            Layout("out-padded-rows", "out", padded_rows, True),
        ),
        big_strides=tuple(Big(arg, dim) for arg in ("a", "b", "out") for dim in (0, 1)),
        empty=(
            Empty("no-rows", {"a": (0, 19), "b": (19, 13), "out": (0, 13)}),
            Empty("no-columns", {"a": (9, 19), "b": (19, 0), "out": (9, 0)}),
            Empty("neither", {"a": (0, 19), "b": (19, 0), "out": (0, 0)}),
            Empty("k-zero", {"a": (9, 0), "b": (0, 13), "out": (9, 13)}),
        ),
        overlap_extra=(("out-is-a", _out_is_a),),
        any_strides=True,
        variants=(("default", {}), ("ieee", {"input_precision": "ieee"})),
        not_applicable=NO_BACKWARD,
    ),
    Row(
        name="bias_gelu_mask",
        prefix="bias_gelu_mask",
        module=fa,
        call=fa.bias_gelu_mask,
        shapes={"x": (5, 37), "bias": (37,), "mask": (5, 37), "out": (5, 37)},
        tensors=("x", "bias", "mask", "out"),
        out="out",
        dtype=F32,
        dtypes=fa.SUPPORTED_DTYPES,
        reference=lambda a: fa.reference(
            a["x"], a["bias"], a.get("mask"), a.get("approximate", "none")
        ),
        knobs=(
            Knob("block_m", "int|None", (0, 3, 2048), r"\[1, 1024\]"),
            Knob("block_n", "int|None", (-4, 100, 32768, 2**70), r"\[1, 16384\]"),
            Knob("num_warps", "int", (0, 3, 64), r"\[1, 32\]"),
        ),
        limits=(
            Bad("tile-over-65536", ("block_m", "block_n"),
                knobs={"block_m": 8, "block_n": 16384, "num_warps": 32}, says="65536"),
        )
        + tuple(
            Bad(f"{m}x{n}-on-{w}-warps", ("block_m", "block_n", "num_warps"),
                knobs={"block_m": m, "block_n": n, "num_warps": w}, says="more than 128")
            for m, n, w in ((8, 1024, 1), (64, 1024, 8), (1, 8192, 1))
        ),
        choices=tuple(
            Bad(f"approximate-{v!r}", ("approximate",), knobs={"approximate": v},
                error=(TypeError, ValueError))
            for v in (None, True, 0, "exact", "erf", "Tanh", "")
        ),
        bad_shapes=(
            Bad("x-1d", ("x",), {"x": (37,)}),
            Bad("x-3d", ("x",), {"x": (1, 5, 37)}),
            Bad("bias-2d", ("bias",), {"bias": (1, 37)}),
            Bad("bias-length", ("bias",), {"bias": (36,)}),
            Bad("mask-columns", ("mask",), {"mask": (5, 36)}),
            Bad("mask-unexpanded", ("mask",), {"mask": (1, 37)}),
            Bad("mask-1d", ("mask",), {"mask": (185,)}),
            Bad("out-columns", ("out",), {"out": (5, 36)}),
            Bad("out-1d", ("out",), {"out": (185,)}),
            Bad("out-transposed-shape", ("out",), {"out": (37, 5)}),
        ),
        layouts=(
            Layout("x-transposed", "x", transposed, True),
            Layout("x-padded-rows", "x", padded_rows, True),
            Layout("x-broadcast", "x", broadcast_rows, True),
            Layout("bias-every-other", "bias", every_other_column, True),
            Layout("mask-transposed", "mask", transposed, True),
            Layout("out-padded-rows", "out", padded_rows, True),
            Layout("out-transposed", "out", transposed, False),
            Layout("out-every-other", "out", every_other_column, False),
        ),
        big_strides=(
            Big("x", 0), Big("x", 1), Big("bias", 0), Big("mask", 0), Big("mask", 1),
            Big("out", 0), Big("x", 0, knobs={"approximate": "tanh"}, name="tanh"),
        ),
        empty=(
            Empty("no-rows", {"x": (0, 37), "bias": (37,), "mask": (0, 37), "out": (0, 37)}),
            Empty("no-columns", {"x": (5, 0), "bias": (0,), "mask": (5, 0), "out": (5, 0)}),
            Empty("neither", {"x": (0, 0), "bias": (0,), "mask": (0, 0), "out": (0, 0)}),
        ),
        in_place=("x", "mask"),
        overlap_extra=(("interleaved-columns", _gelu_interleaved_columns),),
        any_strides=True,
        variants=(("default", {}), ("tanh", {"approximate": "tanh"})),
        not_applicable=NO_BACKWARD,
    ),
    # The same wrapper with dropout made in the kernel (p, seed) instead of a mask.
    Row(
        name="bias_gelu_mask-dropout",
        prefix="bias_gelu_mask",
        module=fa,
        call=fa.bias_gelu_mask,
        shapes={"x": (5, 37), "bias": (37,), "out": (5, 37)},
        tensors=("x", "bias", "out"),
        out="out",
        dtype=F32,
        dtypes=fa.SUPPORTED_DTYPES,
        defaults={"p": 0.25, "seed": 20240613},
        reference=_gelu_dropout_reference,
        knobs=(
            Knob("p", "number", (-0.1, 1.0, 1, 1 - 2**-25, 1.5, NAN, math.inf, -math.inf),
                 r"\[0, 1\)"),
            Knob("seed", "int|None", (-1, 2**64, 2**70), r"\[0, 2\*\*64\)"),
            Knob("block_m", "int|None", (0, 3, 2048), r"\[1, 1024\]"),
            Knob("num_warps", "int", (0, 3, 64), r"\[1, 32\]"),
        ),
        limits=(
            Bad("p-without-seed", ("p",), knobs={"seed": None}, says="needs a seed"),
            Bad("tile-over-65536", ("block_m", "block_n"),
                knobs={"block_m": 8, "block_n": 16384, "num_warps": 32}, says="65536"),
        ),  # fmt: skip
        choices=tuple(
            Bad(f"approximate-{v!r}", ("approximate",), knobs={"approximate": v},
                error=(TypeError, ValueError))
            for v in (None, "exact", "")
        ),  # fmt: skip
        bad_shapes=(
            Bad("x-1d", ("x",), {"x": (37,)}),
            Bad("bias-length", ("bias",), {"bias": (36,)}),
            Bad("out-columns", ("out",), {"out": (5, 36)}),
            Bad("out-transposed-shape", ("out",), {"out": (37, 5)}),
        ),
        layouts=(
            Layout("x-transposed", "x", transposed, True),
            Layout("x-padded-rows", "x", padded_rows, True),
            Layout("x-broadcast", "x", broadcast_rows, True),
            Layout("bias-every-other", "bias", every_other_column, True),
            Layout("out-padded-rows", "out", padded_rows, True),
            Layout("out-transposed", "out", transposed, False),
        ),
        # the keep mask comes from each element's logical place (row * N + col), so a far-
        # apart view drops the same elements as its contiguous copy
        big_strides=(Big("x", 0), Big("x", 1), Big("bias", 0), Big("out", 0)),
        empty=(
            Empty("no-rows", {"x": (0, 37), "bias": (37,), "out": (0, 37)}),
            Empty("no-columns", {"x": (5, 0), "bias": (0,), "out": (5, 0)}),
        ),
        in_place=("x",),
        any_strides=True,
        variants=(("default", {}), ("tanh", {"approximate": "tanh"})),
        not_applicable=NO_BACKWARD,
    ),
    Row(
        name="row_reduce",
        prefix="row_reduce",
        module=red,
        call=red.row_reduce,
        shapes={"x": (5, 37), "out": (5,)},
        tensors=("x", "out"),
        out="out",
        dtype=F32,
        dtypes=red.SUPPORTED_DTYPES,
        defaults={"op": "sum"},
        reference=lambda a: red.reference(a["x"], a["op"]),
        knobs=(
            Knob("block_m", "int|None", (0, 3, 2048), r"\[1, 1024\]"),
            Knob("block_n", "int|None", (8, 48, 32768, -16, 2**70), r"\[16, 16384\]"),
            Knob("num_warps", "int|None", (0, 3, 64), r"\[1, 32\]"),
        ),
        limits=tuple(
            Bad(f"{m}x{n}-on-{w}-warps", ("block_m", "block_n", "num_warps"),
                knobs={"block_m": m, "block_n": n, "num_warps": w}, says="more than 64")
            for m, n, w in ((1, 16384, 1), (64, 256, 4), (1024, 16384, 32))
        ),
        choices=tuple(
            Bad(f"op-{v!r}", ("op",), knobs={"op": v}, error=(TypeError, ValueError))
            for v in ("mean", "SUM", "", None, 0, ("sum",))
        ),
        bad_shapes=(
            Bad("x-1d", ("x",), {"x": (37,)}),
            Bad("x-3d", ("x",), {"x": (2, 5, 37)}),
            Bad("out-length", ("out",), {"out": (6,)}),
            Bad("out-2d", ("out",), {"out": (5, 1)}),
            Bad("out-per-column", ("out",), {"out": (37,)}),
        ),
        layouts=(
            Layout("x-transposed", "x", transposed, True),
            Layout("x-every-other", "x", every_other_column, True),
            Layout("x-padded-rows", "x", padded_rows, True),
            Layout("x-broadcast", "x", broadcast_rows, True),
            Layout("out-every-other", "out", every_other_column, False),
        ),
        big_strides=(Big("x", 0), Big("x", 1), Big("x", 0, knobs={"op": "max"}, name="max")),
        empty=(
            Empty("no-rows", {"x": (0, 37), "out": (0,)}),
            Empty("neither", {"x": (0, 0), "out": (0,)}),
            Empty("no-rows-max", {"x": (0, 37), "out": (0,)}, knobs={"op": "max"}),
            Empty("no-columns-sum", {"x": (5, 0), "out": (5,)}),
            Empty("no-columns-max", {"x": (5, 0), "out": (5,)}, knobs={"op": "max"}, refuse="x"),
        ),
        any_strides=True,
        overlap_extra=(
            ("padded-gap", _reduce_padded_gap),
            ("same-start-transposed", _reduce_same_start_transposed),
        ),
        variants=(("sum", {"op": "sum"}), ("max", {"op": "max"})),
        not_applicable=NO_BACKWARD,
    ),
    Row(
        name="softmax",
        prefix="softmax",
        module=sm,
        call=sm.softmax,
        shapes={"x": (5, 37), "out": (5, 37)},
        tensors=("x", "out"),
        out="out",
        dtype=F32,
        dtypes=sm.SUPPORTED_DTYPES,
        autograd=True,
        reference=lambda a: sm.reference(a["x"]),
        knobs=(
            Knob("block_n", "int|None", (0, -16, 8, 48, 1000, 131072, 2**70), r"\[16, 65536\]"),
            Knob("num_warps", "int|None", (0, -1, 3, 64), r"\[1, 32\]"),
            Knob("programs_per_sm", "int|None", (0, -1, 33), r"\[1, 32\]"),
        ),
        limits=tuple(
            Bad(f"{n}-on-{w}-warps", ("block_n", "num_warps"), knobs={"block_n": n, "num_warps": w},
                says="more than 128")
            for n, w in ((65536, 8), (8192, 1), (16384, 2))
        ),
        bad_shapes=(
            Bad("out-columns", ("out",), {"out": (5, 36)}),
            Bad("out-flat", ("out",), {"out": (185,)}),
            Bad("out-3d", ("out",), {"out": (1, 5, 37)}),
        ),
        layouts=(
            Layout("x-padded-rows", "x", padded_rows, True),
            Layout("x-broadcast-rows", "x", broadcast_rows, True),
            Layout("x-every-other", "x", every_other_column, False),
            Layout("x-transposed", "x", transposed, False),
            Layout("x-leading-dims-permuted", "x", lambda t: fresh(t, (4, 3, 8)).transpose(0, 1),
                   False ),
            Layout("out-every-other", "out", every_other_column, False),
            Layout("out-padded-rows", "out", padded_rows, False),
        ),
        big_strides=(Big("x", 0), Big("x", 0, knobs={"block_n": 16}, name="online")),
        empty=(
            Empty("flat", {"x": (0,), "out": (0,)}),
            Empty("no-columns", {"x": (3, 0), "out": (3, 0)}),
            Empty("no-rows", {"x": (0, 5), "out": (0, 5)}),
            Empty("3d", {"x": (2, 0, 3), "out": (2, 0, 3)}),
        ),
        zero_dim="accepted",
        in_place=("x",),
        overlap_extra=(
            ("padded-gaps", _softmax_padded_gaps),
            ("same-start-other-layout", _softmax_same_start),
        ),
        variants=(("whole-rows", {}), ("online", {"block_n": 16})),
        not_applicable={"choices": "no string options"},
    ),
    Row(
        name="rms_norm",
        prefix="rms_norm",
        module=rn,
        call=rn.rms_norm,
        shapes={"x": (5, 37), "weight": (37,)},
        tensors=("x", "weight"),
        dtype=F32,
        dtypes=rn.SUPPORTED_DTYPES,
        accepts=_rms_accepts,
        autograd=True,
        defaults={"eps": 1e-6},
        reference=lambda a: rn.reference(a["x"], a["weight"], a["eps"]),
        knobs=(
            Knob("eps", "number", (-1e-6, -1, NAN, math.inf, 1e39, 10**400),
                 "must be >= 0 and finite"),
        ),
        bad_shapes=(
            Bad("weight-short", ("weight",), {"weight": (36,)}),
            Bad("weight-long", ("weight",), {"weight": (38,)}),
            Bad("weight-2d", ("weight",), {"weight": (1, 37)}),
            Bad("weight-column", ("weight",), {"weight": (37, 1)}),
            Bad("too-wide", ("x",), {"x": (1, 32769), "weight": (32769,)}, says="at most 32768"),
        ),
        layouts=(
            Layout("x-padded-rows", "x", padded_rows, True),
            Layout("x-broadcast-rows", "x", broadcast_rows, True),
            Layout("x-3d-slice", "x", lambda t: fresh(t, (3, 5, 80))[:, :, 10:47], True),
            Layout("weight-every-other", "weight", every_other_column, True),
            Layout("x-every-other", "x", every_other_column, False),
            Layout("x-transposed", "x", transposed, False),
            Layout("x-rows-not-one-stride", "x", lambda t: fresh(t, (4, 3, 37)).transpose(0, 1),
                   False ),
        ),
        big_strides=(Big("x", 0),),
        empty=(
            Empty("no-rows", {"x": (0, 37), "weight": (37,)}),
            Empty("no-columns", {"x": (5, 0), "weight": (0,)}),
            Empty("3d", {"x": (2, 0, 7), "weight": (7,)}),
            Empty("flat", {"x": (0,), "weight": (0,)}),
            Empty("neither", {"x": (0, 0), "weight": (0,)}),
        ),
        not_applicable={**NO_OUT, "choices": "no string options"},
    ),
    Row(
        name="linear_cross_entropy",
        prefix="linear_cross_entropy",
        module=lce,
        call=_lce_call,
        shapes={"x": (9, 12), "weight": (23, 12)},
        tensors=("x", "weight"),
        dtype=F32,
        dtypes=lce.SUPPORTED_DTYPES,
        autograd=True,
        reference=_lce_reference,
        knobs=(
            Knob("ignore_index", "int", (2**63, -(2**63) - 1, 2**70), "must fit in int64"),
        ),
        choices=tuple(
            Bad(f"reduction-{v!r}", ("reduction",), knobs={"reduction": v},
                error=(TypeError, ValueError))
            for v in ("none", "MEAN", "", None, 0)
        ),
        bad_shapes=(
            Bad("x-1d", ("x",), {"x": (12,)}),
            Bad("x-3d", ("x",), {"x": (1, 9, 12)}),
            Bad("weight-hidden", ("weight",), {"weight": (23, 11)}),
            Bad("weight-1d", ("weight",), {"weight": (12,)}),
            Bad("weight-3d", ("weight",), {"weight": (1, 23, 12)}),
            Bad("no-classes", ("weight",), {"weight": (0, 12)}, says="0 classes"),
        ),
        layouts=(
            Layout("x-transposed", "x", transposed, True),
            Layout("x-every-other", "x", every_other_column, True),
            Layout("x-broadcast", "x", broadcast_rows, True),
            Layout("weight-transposed", "weight", transposed, True),
            Layout("weight-padded-rows", "weight", padded_rows, True),
        ),
        big_strides=(Big("x", 0), Big("weight", 0)),
        empty=(
            # the mean over no rows is NaN (as torch's): test_linear_cross_entropy.py
            Empty("no-rows-sum", {"x": (0, 12), "weight": (23, 12)}, knobs={"reduction": "sum"}),
            Empty("no-hidden", {"x": (9, 0), "weight": (23, 0)}),
        ),
        any_strides=True,
        variants=(("mean", {}), ("sum", {"reduction": "sum"})),
        not_applicable=NO_OUT,
    ),
    Row(
        name="matmul",
        prefix="matmul",
        module=mm,
        call=mm.matmul,
        shapes={"a": (9, 19), "b": (19, 13), "bias": (13,), "out": (9, 13)},
        tensors=("a", "b", "bias", "out"),
        out="out",
        dtype=F32,
        dtypes=mm.SUPPORTED_DTYPES,
        reference=lambda a: mm.reference(a["a"], a["b"], a.get("bias"), a.get("activation")),
        knobs=(
            Knob("group_m", "int", (0, -1, 65, 2**70), r"\[1, 64\]"),
            Knob("config", "config", bad_types=(
                {"BLOCK_M": 32}, (32, 32, 32), _config_with(block_m=32.0),
                _config_with(block_n=True), _config_with(num_warps=np.int64(4)))),
        ),
        limits=(
            Bad("config-missing-key", ("config",), knobs={"config": _config_with(block_k=None)}),
            Bad("config-extra-key", ("config",), knobs={"config": _config_with(GROUP_M=8)}),
            Bad("config-block-48", ("config",), knobs={"config": _config_with(block_m=48)},
                says=r"\[16, 256\]"),
            Bad("config-block-8", ("config",), knobs={"config": _config_with(block_n=8)},
                says=r"\[16, 256\]"),
            Bad("config-block-512", ("config",), knobs={"config": _config_with(block_k=512)},
                says=r"\[16, 256\]"),
            Bad("config-3-warps", ("config",), knobs={"config": _config_with(num_warps=3)},
                says=r"\[1, 16\]"),
            Bad("config-32-warps", ("config",), knobs={"config": _config_with(num_warps=32)},
                says=r"\[1, 16\]"),
            Bad("config-no-stages", ("config",), knobs={"config": _config_with(num_stages=0)},
                says=r"\[1, 8\]"),
            Bad("config-9-stages", ("config",), knobs={"config": _config_with(num_stages=9)},
                says=r"\[1, 8\]"),
            Bad("config-num-ctas", ("config",), knobs={"config": _config_with(num_ctas=2)}),
            Bad("config-maxnreg", ("config",), knobs={"config": _config_with(maxnreg=128)}),
            Bad("config-spills", ("config",),
                knobs={"config": _config_with(block_m=256, block_n=256, num_warps=4)},
                says="more than 128"),
            Bad("config-shared-memory", ("config",), dtype=F16,
                knobs={"config": _matmul_config(128, 256, 64, 8, 4)},
                patch={"shared_memory_limit": lambda device: 100_000},
                says="196,608 bytes"),
        ),
        choices=tuple(
            Bad(f"activation-{v!r}", ("activation",), knobs={"activation": v},
                error=(TypeError, ValueError))
            for v in ("relu", "GELU", "gelu_tanh", 1, True)
        ),
        bad_shapes=(
            Bad("inner-mismatch", ("b",), {"b": (18, 13)}),
            Bad("a-1d", ("a",), {"a": (19,)}),
            Bad("b-3d", ("b",), {"b": (19, 13, 1)}),
            Bad("bias-length", ("bias",), {"bias": (14,)}),
            Bad("bias-2d", ("bias",), {"bias": (1, 13)}),
            Bad("bias-per-row", ("bias",), {"bias": (9,)}),
            Bad("out-transposed-shape", ("out",), {"out": (13, 9)}),
            Bad("out-flat", ("out",), {"out": (117,)}),
        ),
        layouts=(
            Layout("a-transposed", "a", transposed, True),
            Layout("b-transposed", "b", transposed, True),
            Layout("a-every-other", "a", every_other_column, True),
            Layout("a-broadcast", "a", broadcast_rows, True),
            Layout("bias-every-other", "bias", every_other_column, True),
            Layout("out-transposed", "out", transposed, True),
            Layout("out-padded-rows", "out", padded_rows, True),
        ),
        big_strides=tuple(Big(arg, dim) for arg in ("a", "b", "out") for dim in (0, 1))
        + (Big("bias", 0), Big("a", 1, knobs={"activation": "gelu"}, name="gelu")),
        empty=(
            Empty("no-rows", {"a": (0, 19), "b": (19, 13), "bias": (13,), "out": (0, 13)}),
            Empty("no-columns", {"a": (9, 19), "b": (19, 0), "bias": (0,), "out": (9, 0)}),
            Empty("neither", {"a": (0, 19), "b": (19, 0), "bias": (0,), "out": (0, 0)}),
            Empty("k-zero", {"a": (9, 0), "b": (0, 13), "bias": (13,), "out": (9, 13)}),
        ),
        overlap_extra=(("out-is-a", _out_is_a),),
        any_strides=True,
        variants=(
            ("autotuned", {}),
            ("explicit-config", {"config": _matmul_config(32, 16, 16, 4, 1)}),
            ("gelu", {"activation": "gelu"}),
        ),
        not_applicable=NO_BACKWARD,
    ),
    Row(
        name="matmul_tma",
        prefix="matmul_tma",
        module=mt,
        call=mt.matmul_tma,
        shapes={"a": (9, 24), "b": (24, 16), "bias": (16,), "out": (9, 16)},
        tensors=("a", "b", "bias", "out"),
        out="out",
        dtype=F16,
        dtypes=mt.SUPPORTED_DTYPES,
        reference=lambda a: mt.reference(a["a"], a["b"], a.get("bias"), a.get("activation")),
        knobs=(Knob("warp_specialize", "bool"),),
        choices=tuple(
            Bad(f"activation-{v!r}", ("activation",), knobs={"activation": v},
                error=(TypeError, ValueError))
            for v in ("relu", "GELU", 1, True)
        )
        + tuple(
            Bad(f"path-{v!r}", ("path",), knobs={"path": v}, error=(TypeError, ValueError))
            for v in (1, b"tma", "TMA", "auto")
        )
        + (
            Bad("warp_specialize-on-pointers", ("warp_specialize",),
                knobs={"warp_specialize": True, "path": "pointers"}, says="needs the TMA path"),
        ),
        bad_shapes=(
            Bad("inner-mismatch", ("b",), {"b": (23, 16)}),
            Bad("a-1d", ("a",), {"a": (24,)}),
            Bad("b-3d", ("b",), {"b": (24, 16, 1)}),
            Bad("bias-length", ("bias",), {"bias": (17,)}),
            Bad("bias-2d", ("bias",), {"bias": (1, 16)}),
            Bad("out-transposed-shape", ("out",), {"out": (16, 9)}),
            Bad("out-flat", ("out",), {"out": (144,)}),
            Bad("out-rows", ("out",), {"out": (8, 16)}),
        ),
        layouts=(
            Layout("a-transposed", "a", transposed, True),
            Layout("b-transposed", "b", transposed, True),
            Layout("a-every-other", "a", every_other_column, True),
            Layout("a-broadcast", "a", broadcast_rows, True),
            Layout("bias-every-other", "bias", every_other_column, True),
            Layout("out-transposed", "out", transposed, True),
            Layout("out-padded-rows", "out", padded_rows, True),
        ),
        # Both kernels; the TMA one writes out through a descriptor, which needs out's
        # rows contiguous, so out's column stride is the pointer kernel's alone.
        big_strides=tuple(
            Big(arg, dim, knobs={"path": path}, name=path)
            for path in ("pointers", "tma")
            for arg, dim in (("a", 0), ("a", 1), ("b", 0), ("b", 1), ("bias", 0), ("out", 0),
                             ("out", 1))
            if not (path == "tma" and (arg, dim) == ("out", 1))
        ),  # fmt: skip
        empty=(
            Empty("no-rows", {"a": (0, 24), "b": (24, 16), "bias": (16,), "out": (0, 16)}),
            Empty("no-columns", {"a": (9, 24), "b": (24, 0), "bias": (0,), "out": (9, 0)}),
            Empty("k-zero", {"a": (9, 0), "b": (0, 16), "bias": (16,), "out": (9, 16)}),
        ),
        overlap_extra=(("out-is-a", _out_is_a),),
        any_strides=True,
        variants=(("pointers", {"path": "pointers"}), ("tma", {"path": "tma"})),
        not_applicable={
            **NO_BACKWARD,
            "knob_bounds": "no numeric knobs: warp_specialize is a bool, path a string option",
        },
    ),
    Row(
        name="attention",
        prefix="attention",
        module=at,
        call=at.attention,
        dtypes=at.SUPPORTED_DTYPES,
        reference=lambda a: at.reference(
            a["q"], a["k"], a["v"], causal=a.get("causal", False), scale=a.get("scale")
        ),
        bad_shapes=(
            Bad("q-3d", ("q",), {"q": (2, 9, 16)}),
            Bad("k-5d", ("k",), {"k": (1, 1, 2, 11, 16)}),
            Bad("k-v-shapes", ("k",), {"v": (1, 2, 12, 16)}),
            Bad("batch", ("k",), {"k": (2, 2, 11, 16), "v": (2, 2, 11, 16)}),
            Bad("grouped-heads", ("k",), {"k": (1, 1, 11, 16), "v": (1, 1, 11, 16)}),
            Bad("head-dim-24", ("q",), {n: (1, 2, 9, 24) for n in "qkv"}),
            Bad("head-dim-256", ("q",), {n: (1, 2, 9, 256) for n in "qkv"}),
            Bad("head-dim-8", ("q",), {n: (1, 2, 9, 8) for n in "qkv"}),
            Bad("head-dim-mismatch", ("k",), {"k": (1, 2, 11, 32), "v": (1, 2, 11, 32)}),
            Bad("too-many-heads", ("q",), {n: (1, 65536, 1, 16) for n in "qkv"},
                says="at most 65535"),
        ),
        layouts=(
            Layout("q-heads-outside", "q", heads_outside, True),
            Layout("k-head-dim-every-other", "k", every_other_column, True),
            Layout("v-broadcast-heads", "v", lambda t: t[:, :1].clone().expand(t.shape), True),
            Layout("k-transposed", "k", transposed, True),
        ),
        **ATTENTION_CASES,
        not_applicable=NO_OUT,
    ),
    Row(
        name="fp8_matmul",
        prefix="fp8_matmul",
        module=f8,
        call=_fp8_matmul,
        # b as the (N, K) weight (see _fp8_matmul); per-tensor scales, 0-d float32, are
        # fixed arguments: their dtype, shape, device and neg-bit rules are tested in
        # test_fp8_matmul.py.
        shapes={"a": (9, 32), "b": (16, 32), "out": (9, 16)},
        tensors=("a", "b", "out"),
        out="out",
        dtype=torch.float8_e4m3fn,
        dtypes=FP8,
        reference=_fp8_reference,
        accepts=_fp8_accepts,
        out_dtype=lambda dtype: BF16,
        defaults={"a_scale": FP8_SCALES[0], "b_scale": FP8_SCALES[1]},
        knobs=(Knob("fast_accum", "bool"),),
        choices=tuple(
            Bad(f"scaling-{v!r}", ("scaling",), knobs={"scaling": v}, error=(TypeError, ValueError))
            for v in ("Tensor", "rows", "", 1, b"tensor")
        ),
        bad_shapes=(
            Bad("inner-mismatch", ("b",), {"b": (16, 48)}),
            Bad("k-not-a-multiple-of-16", ("a",), {"a": (9, 24), "b": (16, 24)}),
            Bad("a-1d", ("a",), {"a": (32,)}),
            Bad("b-3d", ("b",), {"b": (16, 32, 1)}),
            Bad("out-transposed-shape", ("out",), {"out": (16, 9)}),
            Bad("out-rows", ("out",), {"out": (8, 16)}),
        ),
        layouts=(
            Layout("a-transposed", "a", transposed, False, says="row-major"),
            Layout("b-row-major", "b", transposed, False, says="column-major"),
            Layout("a-every-other", "a", every_other_column, False, says="row-major"),
            Layout("a-padded-rows-unaligned", "a", padded_rows, False, says="16 bytes"),
            Layout("a-misaligned", "a", misaligned, False, says="16-byte-aligned"),
            Layout("b-padded-aligned", "b", _k_aligned_pad, True),
            Layout("out-padded-rows", "out", padded_rows, True),
            Layout("out-transposed", "out", transposed, False, says="contiguous rows"),
        ),
        empty=(
            Empty("m-zero", {"a": (0, 32), "out": (0, 16)}),
            Empty("n-zero", {"b": (0, 32), "out": (9, 0)}),
            Empty("k-zero", {"a": (9, 0), "b": (16, 0)}),
        ),
        neg="refused",
        variants=(("tensor", {}), ("promoted", {"fast_accum": False})),
        not_applicable={
            **NO_BACKWARD,
            "big_strides": "TMA descriptors hold 32-bit strides: a stride past 2**31 elements "
            "is refused by name (the rule needs it read)",
            "knob_bounds": "its one knob, fast_accum, is a bool: nothing to bound",
        },
        holes={
            **{f"sparse-{arg}-coo": "torch cannot make a sparse FP8 tensor to pass"
               for arg in ("a", "b")},
            **({} if ON_GPU else {f"nested-{arg}-nested": "torch cannot make a nested FP8 "
                                  "tensor on the CPU to pass" for arg in ("a", "b")}),
            "overlap-disjoint-out-before-the-inputs-in-one-buffer": FP8_CARVED,
            "overlap-disjoint-out-after-the-inputs-in-one-buffer": FP8_CARVED,
        },
    ),
    Row(
        name="attention_tma",
        prefix="attention_tma",
        module=atm,
        call=atm.attention_tma,
        dtypes=atm.SUPPORTED_DTYPES,
        reference=lambda a: atm.reference(
            a["q"], a["k"], a["v"], causal=a.get("causal", False), scale=a.get("scale")
        ),
        bad_shapes=(
            Bad("q-3d", ("q",), {"q": (2, 9, 16)}),
            Bad("k-5d", ("k",), {"k": (1, 1, 2, 11, 16)}),
            Bad("k-v-shapes", ("k",), {"v": (1, 2, 12, 16)}),
            Bad("batch", ("k",), {"k": (2, 2, 11, 16), "v": (2, 2, 11, 16)}),
            Bad("heads-not-a-multiple", ("k",), {"q": (1, 3, 9, 16)}, says="multiple"),
            Bad("head-dim-24", ("q",), {n: (1, 2, 9, 24) for n in "qkv"}),
            Bad("head-dim-256", ("q",), {n: (1, 2, 9, 256) for n in "qkv"}),
            Bad("head-dim-8", ("q",), {n: (1, 2, 9, 8) for n in "qkv"}),
            Bad("head-dim-mismatch", ("k",), {"k": (1, 2, 11, 32), "v": (1, 2, 11, 32)}),
            Bad("too-many-heads", ("q",), {n: (1, 65536, 1, 16) for n in "qkv"},
                says="at most 65535"),
        ),
        # Read in place where a descriptor can address the layout (heads outside, a
        # padded head_dim); copied once, contiguous, where it cannot (a strided head_dim,
        # stride-0 heads, a transposed tile): accepted either way.
        layouts=(
            Layout("q-heads-outside", "q", heads_outside, True),
            Layout("k-head-dim-every-other", "k", every_other_column, True),
            Layout("k-padded-rows", "k", padded_rows, True),
            Layout("v-broadcast-heads", "v", lambda t: t[:, :1].clone().expand(t.shape), True),
            Layout("k-transposed", "k", transposed, True),
            Layout("q-misaligned", "q", misaligned, True),
        ),
        **ATTENTION_CASES,
        not_applicable=NO_OUT,
    ),
    Row(
        name="decode_attention",
        prefix="decode_attention",
        module=dca,
        call=_decode_call,
        # Two query heads per key/value head, two query tokens, lengths 9 of 11 keys.
        shapes={"q": (1, 4, 2, 16), "k": (1, 2, 11, 16), "v": (1, 2, 11, 16)},
        tensors=("q", "k", "v"),
        dtype=F16,
        dtypes=dca.SUPPORTED_DTYPES,
        reference=lambda a: dca.reference(
            a["q"], a["k"], a["v"], _decode_lengths(a["q"], a["k"]),
            causal=a.get("causal", False), scale=a.get("scale"),
        ),
        knobs=(
            Knob("causal", "bool", bad_types=(1, 0, None, "yes", "bottom_right", np.bool_(True),
                                              torch.tensor(True))),
            Knob("scale", "number|None", (0, -0.5, NAN, math.inf, 1e39, 10**400),
                 "must be > 0 and finite"),
        ),
        bad_shapes=(
            Bad("q-3d", ("q",), {"q": (4, 2, 16)}),
            Bad("k-5d", ("k",), {"k": (1, 1, 2, 11, 16)}),
            Bad("k-v-shapes", ("k",), {"v": (1, 2, 12, 16)}),
            Bad("batch", ("k",), {"k": (2, 2, 11, 16), "v": (2, 2, 11, 16)}),
            Bad("heads-not-a-multiple", ("k",), {"q": (1, 3, 2, 16)}, says="multiple"),
            Bad("head-dim-24", ("q",), {n: (1, 2, 2, 24) for n in "qkv"}),
            Bad("head-dim-8", ("q",), {n: (1, 2, 2, 8) for n in "qkv"}),
            Bad("head-dim-mismatch", ("k",), {"k": (1, 2, 11, 32), "v": (1, 2, 11, 32)}),
            Bad("too-many-queries", ("q",), {"q": (1, 4, 129, 16)}, says="at most 128"),
            Bad("too-many-kv-heads", ("k",), {"q": (1, 65536, 1, 16), "k": (1, 65536, 3, 16),
                                              "v": (1, 65536, 3, 16)}, says="at most 65535"),
        ),
        # Any strides are read in place, except a head_dim that is not contiguous (copied).
        layouts=(
            Layout("q-heads-outside", "q", heads_outside, True),
            Layout("k-heads-outside", "k", heads_outside, True),
            Layout("k-head-dim-every-other", "k", every_other_column, True),
            Layout("v-broadcast-heads", "v", lambda t: t[:, :1].clone().expand(t.shape), True),
            Layout("k-transposed", "k", transposed, True),
            Layout("q-misaligned", "q", misaligned, True),
        ),
        big_strides=tuple(
            Big(arg, dim, shapes=shapes)
            for arg in "qkv"
            for dim, shapes in (
                (0, {"q": (3, 4, 2, 16), "k": (3, 2, 11, 16), "v": (3, 2, 11, 16)}),
                (1, {"q": (1, 6, 2, 16), "k": (1, 3, 11, 16), "v": (1, 3, 11, 16)}),
            )
        ) + (
            Big("q", 2, shapes={"q": (1, 4, 3, 16)}),
            Big("k", 2),
            Big("v", 2, knobs={"causal": True}, name="causal"),
            Big("k", 3),
        ),
        empty=(
            Empty("no-queries", {"q": (1, 4, 0, 16)}),
            Empty("no-keys", {"k": (1, 2, 0, 16), "v": (1, 2, 0, 16)}),
            Empty("no-batch", {"q": (0, 4, 2, 16), "k": (0, 2, 11, 16), "v": (0, 2, 11, 16)}),
            Empty("no-heads", {"q": (1, 0, 2, 16), "k": (1, 0, 11, 16), "v": (1, 0, 11, 16)}),
        ),
        any_strides=True,
        variants=(("full", {}), ("causal", {"causal": True})),
        not_applicable={
            **NO_OUT, **NO_BACKWARD,
            "choices": "no string options: causal is a bool (the bottom-right alignment)",
        },
    ),
)
# fmt: on
ROW = {row.name: row for row in ROWS}

# Public callables of kernels/*.py that are not wrappers, and why.
NOT_WRAPPERS = {
    # Lessons 02-04's teaching fragments (private modules, printed by the pages and run by
    # their tests): examples to read and run, not wrappers a reader calls with their data.
    "_hello.main": "lesson 00's first kernel, run as a script",
    "_look.on_gpu": "lesson 03's example: prints what one launch compiled",
    "_look.for_gpu": "lesson 03's example: compiles for a named GPU; launches nothing",
    "_look.memory_instructions": "lesson 03's example: counts opcodes; launches nothing",
    "_tiles.tiles": "lesson 04's 2-D tile example on the page's 5 x 6 tensor",
    "_tiles.show": "prints a tile; launches nothing",
    "_tiles.main": "lesson 04's example, run as a script",
    "vector_add.launch": "the unchecked launch path a reader copies; vector_add checks first",
    "launch_lean.graphed": "captures a CUDA graph of a callable; takes no tensors",
    "launch_lean.LeanLaunch": "the launch section's lean launcher (no checks by design); "
    "LeanAdd, its checked subclass, has a row",
    "ceilings.flops": "arithmetic on two ints",
    "dot.fp8_supported": "a question about a device index",
    "fused_activation.default_blocks": "arithmetic on ints",
    "matmul.shared_memory_bytes": "arithmetic on a config",
    "matmul.make_config": "builds a triton.Config from ints; launches nothing",
    "matmul.configs_that_fit": "filters configs by shared memory; launches nothing",
    "matmul_tma.make_config": "builds a triton.Config from ints; launches nothing",
    "matmul.shared_memory_limit": "a question about a device index",
    "matmul_tma.shared_memory_bytes": "arithmetic on a config",
    "matmul_tma.shared_memory_limit": "a question about a device index",
    "matmul_tma.sm_count": "a question about a device index",
    "matmul_tma.tma_refusal": "reads strides and answers with a reason; launches nothing",
    "matmul_tma.path_for": "reads strides and names a path; launches nothing",
    "_tuning.split_k_for": "the heuristic: arithmetic on a dict of ints",
    "matmul.m_bucket": "arithmetic on an int: the autotuner's key for M",
    "matmul.matmul_minimal": "lesson 09's minimal launch: divisible, contiguous shapes only "
    "and no checks, by design (what it leaves out is what the lesson adds)",
    "matmul_tma.m_bucket": "arithmetic on an int: the autotuners' key for M",
    "fp8_matmul.sm_count": "a question about a device index",
    "fp8_matmul.scale_shapes": "arithmetic on three ints and a word",
    "fp8_matmul.quantize": "makes operands and scales with torch ops (its refusals are "
    "tested in test_fp8_matmul.py); launches nothing",
    "fp8_matmul.dequantize": "torch arithmetic on an operand and its scales; launches nothing",
    "_tuning.m_bucket": "arithmetic on an int: the autotuner's key for M",
    "attention.AttentionFunction": "the autograd.Function behind attention, which checks first",
    "rmsnorm.RMSNormFunction": "the autograd.Function behind rms_norm, which checks first",
    "linear_cross_entropy.LinearCrossEntropyFunction": "the autograd.Function behind "
    "linear_cross_entropy, which checks first",
    "compiled_ops.silu_mul_op": "the torch operator behind silu_mul, which checks first; "
    "called as torch.ops.book.silu_mul it checks its operands and copies strided ones "
    "(test_compiled_ops.py)",
    "compiled_ops.silu_mul_backward_op": "the backward operator behind silu_mul, likewise",
    "_compile_examples.clipped": "plain torch, no kernel (a torch.compile fragment)",
    "_compile_examples.clipped_whole": "plain torch, no kernel (a torch.compile fragment)",
    "_compile_examples.scaled_then_logged": "plain torch, no kernel (a torch.compile fragment)",
    "_compile_examples.row_norms": "plain torch, no kernel (a torch.compile fragment)",
    "attention_tma.tma_readable": "reads strides and answers yes or no; launches nothing",
    "attention_gluon.tma_readable": "reads strides and answers yes or no; launches nothing",
    "attention_gluon.attention_gluon": "a Gluon kernel: it has no interpreter path, so the "
    "table's rules (run on the CPU here) cannot call it; its refusals by name, inference "
    "only (requires_grad refused), CPU tensors and other GPU generations refused, layouts "
    "read in place or copied, empty inputs and neg views are tested on a Hopper GPU in "
    "test_attention_gluon.py",
    "attention_tma.AttentionTMAFunction": "the autograd.Function behind attention_tma, which "
    "checks first",
    "attention.attention_minimal": "lesson 12's minimal forward: divisible, contiguous shapes "
    "only and no checks, by design (what it leaves out is what the lesson adds)",
    "rmsnorm.rms_norm_backward_minimal": "lesson 11's minimal backward: contiguous rows and "
    "no checks, by design (what it leaves out is what the lesson adds)",
    "all_reduce.all_reduce": "a collective: every rank calls it with a Workspace of symmetric "
    "memory, so the generic rules (one process, tensors alone) cannot call it; its refusals by "
    "name, out=, in place, empty and 0-d are tested in test_all_reduce.py, on simulated peers",
    "all_reduce.Workspace": "a record of addresses and sizes; launches nothing",
    "all_reduce.workspace": "allocates and exchanges symmetric memory (a collective); "
    "launches nothing",
    "all_reduce.simulated_workspace": "builds a Workspace from tensors of one process; "
    "launches nothing",
    "all_reduce.programs_for": "arithmetic on two ints",
}
# Names every family may define that are not wrappers: the torch references, and the
# launch path and launch plan of the kernel-file convention (no checks by design).
NOT_WRAPPER_NAMES = re.compile(r"^(reference\w*|launch(_\w+)?|plan(_\w+)?)$")
ROW_OF_CALLABLE = {
    "vector_add.vector_add": "vector_add",
    "launch.launch_empty": "launch_empty",
    "launch_lean.LeanAdd": "LeanAdd",
    "ceilings.fma_chains": "fma_chains",
    "compiled_ops.silu_mul": "silu_mul",
    "_tuning.split_k_matmul": "split_k_matmul",
    "dot.dot": "dot",
    "fused_activation.bias_gelu_mask": "bias_gelu_mask",
    "reduction.row_reduce": "row_reduce",
    "softmax.softmax": "softmax",
    "rmsnorm.rms_norm": "rms_norm",
    "linear_cross_entropy.linear_cross_entropy": "linear_cross_entropy",
    "matmul.matmul": "matmul",
    "matmul_tma.matmul_tma": "matmul_tma",
    "attention.attention": "attention",
    "attention_tma.attention_tma": "attention_tma",
    "fp8_matmul.fp8_matmul": "fp8_matmul",
    "decode_attention.decode_attention": "decode_attention",
}


# ---- cases: what each rule asks of each row --------------------------------------------------

CANDIDATE_DTYPES = (
    torch.float64, F32, F16, BF16, torch.int32, torch.int64, torch.bool, torch.complex64,
    torch.float8_e5m2, torch.float8_e4m3fn,
)  # fmt: skip


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _value_id(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"tensor({value.item()!r})"
    if isinstance(value, np.generic):
        return f"np.{type(value).__name__}({value.item()!r})"
    if isinstance(value, triton.Config):
        return "config(" + ",".join(f"{k}={v!r}" for k, v in value.all_kwargs().items()) + ")"
    if isinstance(value, int) and not isinstance(value, bool) and value > 2**40:
        digits = str(value)
        if digits.strip("0") == "1":
            return f"10**{len(digits) - 1}"
        if value == 1 << (value.bit_length() - 1):
            return f"2**{value.bit_length() - 1}"
    return repr(value)


def cases_not_a_tensor(row):
    return [
        dict(id=f"{arg}-{kind}", arg=arg, make=make)
        for arg in row.tensors
        for kind, make in (
            ("list", lambda t: t.tolist()),
            ("numpy", lambda t: np.ones(tuple(t.shape), dtype=np.float32)),
        )
    ]


def cases_dtype(row):
    cases = []
    for arg in row.tensors:
        # the call's tensors: out only when it is the one changed (or always required)
        passed = [a for a in row.tensors if a != row.out or arg == a or row.out_required]
        base = {a: row.arg_dtype(a, row.dtype) for a in passed}
        for dtype in CANDIDATE_DTYPES:
            if dtype == base[arg]:
                continue
            accepted = row.dtype_accepted({**base, arg: dtype})
            if accepted and not row.any_dtype:
                continue  # another supported combination: numerics, in test_F.py
            cases.append(
                dict(id=f"{arg}-{_dtype_name(dtype)}", arg=arg, dtype=dtype, accepted=accepted)
            )
    # Every input of one unsupported dtype: only the dtype check itself can refuse that
    # (changing one input at a time, a mismatch check would refuse it anyway).
    if len(row.inputs) > 1 and not row.any_dtype:
        for dtype in CANDIDATE_DTYPES:
            if not row.dtype_accepted({a: dtype for a in row.inputs}):
                cases.append(dict(id=f"all-{_dtype_name(dtype)}", arg=None, dtype=dtype))
    return cases


def cases_shape(row):
    return [dict(id=bad.id, bad=bad) for bad in row.bad_shapes]


def cases_layout(row):
    return [dict(id=layout.id, layout=layout) for layout in row.layouts]


def cases_empty(row):
    with_out = (False, True) if row.out and not row.out_required else (row.out_required,)
    return [
        dict(id=f"{e.id}{'-into-out' if out and not row.out_required else ''}", empty=e, out=out)
        for e in row.empty
        for out in with_out
        if not (out and e.refuse)
    ]


def cases_zero_dim(row):
    if row.zero_dim == "accepted":
        dtypes = row.dtypes if not row.any_dtype else (F32,)
        return [dict(id=_dtype_name(d), dtype=d) for d in dtypes]
    return [dict(id=arg, arg=arg) for arg in row.tensors]


def cases_meta(row):
    return [dict(id=arg, arg=arg) for arg in row.tensors]


def cases_sparse(row):
    return [
        dict(id=f"{arg}-{layout}", arg=arg, layout=layout)
        for arg in row.tensors
        for layout in ("coo", "csr")
        if layout == "coo" or len(row.shapes[arg]) == 2
    ]


def cases_requires_grad(row):
    if row.reference is None:
        return []
    cases = [
        dict(id=f"{arg}-{mode}", arg=arg, mode=mode)
        for arg in row.inputs
        for mode in ("grad", "no_grad", "inference_mode")
    ]
    if row.autograd and row.out:
        cases.append(dict(id=f"{row.inputs[0]}-grad-with-out", arg=row.inputs[0], mode="with-out"))
    return cases


def cases_double_backward(row):
    if not row.autograd:
        return []
    return [dict(id="second-backward", arg=row.inputs[0])] + [
        dict(id=f"{arg}-create-graph-with-a-constant-weight", arg=arg) for arg in row.inputs
    ]


def cases_dual(row):
    if row.reference is None:
        return []
    ids = [dict(id=f"{arg}-dual", arg=arg) for arg in row.tensors]
    return ids + [dict(id="plain-tensors-inside-a-dual-level", arg=None)]


def cases_nested(row):
    return [
        dict(id=f"{arg}-{name}", arg=arg, layout=layout)
        for arg in row.tensors
        for name, layout in (("nested", torch.strided), ("jagged", torch.jagged))
    ]


def cases_big_strides(row):
    return [dict(id=big.id, big=big) for big in row.big_strides]


def cases_out_version(row):
    if not row.out:
        return []
    return [dict(id="fresh-out", into=None)] + [
        dict(id=f"in-place-{arg}", into=arg) for arg in row.in_place
    ]


def cases_out_requires_grad(row):
    if not row.out:
        return []
    return [dict(id=mode, mode=mode) for mode in ("grad", "no_grad", "inference_mode")]


def _numel(shape):
    return math.prod(shape)


ALIGN = 16  # elements: an offset of 16 keeps any dtype's pointer 16-byte aligned


def _carve(row, placement: dict, dtype=None):
    """Views of one buffer: {arg: offset in elements}, each of its valid shape."""
    dtype = dtype or row.dtype
    size = max(off + _numel(row.shapes[a]) for a, off in placement.items())
    buf = rand(size, dtype)
    views = {
        a: buf[off : off + _numel(row.shapes[a])].view(row.shapes[a])
        for a, off in placement.items()
    }
    return buf, views


def cases_overlap(row):
    cases = []
    ins = row.inputs
    if row.out:
        out, n_out = row.out, _numel(row.shapes[row.out])
        for arg in ins:
            n = _numel(row.shapes[arg])
            cases += [
                dict(id=f"out-starts-inside-{arg}", kind="refused", named=(arg,),
                     place={arg: 0, out: max(1, n // 2)}),
                dict(id=f"{arg}-starts-inside-out", kind="refused", named=(arg,),
                     place={out: 0, arg: max(1, n_out // 2)}),
                dict(id=f"out-overlaps-{arg}-through-another-storage", kind="alias",
                     named=(arg,), arg=arg, shift=max(1, min(n, n_out) // 2)),
            ]  # fmt: skip
            if row.shapes[arg] == row.shapes[out]:
                ok = arg in row.in_place
                cases += [
                    dict(id=f"out-is-{arg}", kind="same", arg=arg, accepted=ok, named=(arg,)),
                    dict(id=f"out-is-{arg}-through-another-storage", kind="same-alias", arg=arg,
                         accepted=ok, named=(arg,)),
                ]  # fmt: skip
        for p in row.in_place:
            for q in ins:
                if q != p:
                    inside = max(1, _numel(row.shapes[p]) // 3)
                    cases.append(dict(id=f"in-place-{p}-while-{q}-overlaps-it", kind="refused",
                                      named=(q,), place={p: 0, q: inside}, out_is=p))  # fmt: skip
        same = [p for p in row.in_place if row.shapes[p] == row.shapes[row.in_place[0]]]
        if len(same) >= 2:  # x + x written over x
            cases.append(dict(id="out-is-" + "-and-".join(same), kind="same-all", args=same))
        for where in ("before", "after"):
            cases.append(dict(id=f"disjoint-out-{where}-the-inputs-in-one-buffer", kind="disjoint",
                              where=where))  # fmt: skip
        cases.append(dict(id="out-elements-overlap-each-other", kind="self", named=(out,)))
        cases += [dict(id=i, kind="extra", build=b, named=None) for i, b in row.overlap_extra]
    if len(ins) >= 2:
        cases.append(dict(id=f"{ins[0]}-and-{ins[1]}-overlap-each-other", kind="inputs"))
    return cases


def cases_neg(row):
    if row.reference is None:
        return []
    cases = [dict(id=arg, arg=arg) for arg in row.inputs]
    if row.any_strides and row.dtype == F32:  # c.conj().imag is a float32 view
        cases.append(dict(id=f"conj-imag-{row.inputs[0]}", arg=row.inputs[0], conj=True))
    if row.out:
        cases.append(dict(id="out", arg=row.out))
    return cases


def cases_knob_type(row):
    return [
        dict(id=f"{knob.name}-{_value_id(value)}", knob=knob.name, value=value)
        for knob in row.knobs
        for value in (knob.bad_types if knob.bad_types is not None else KIND_BAD_TYPES[knob.kind])
    ] + [
        dict(id=f"{knob.name}-{_value_id(value)}-taken", knob=knob.name, value=value, taken=True)
        for knob in row.knobs
        for value in KIND_GOOD_VALUES.get(knob.kind, ())
    ]


def cases_knob_bounds(row):
    cases = [
        dict(id=f"{knob.name}-{_value_id(value)}",
             bad=Bad(knob.name, (knob.name,), knobs={knob.name: value}, says=knob.bound))
        for knob in row.knobs
        for value in knob.bad
    ]  # fmt: skip
    return cases + [dict(id=bad.id, bad=bad) for bad in row.limits]


def cases_choices(row):
    return [dict(id=bad.id, bad=bad) for bad in row.choices]


def cases_cpu_tensor(row):
    return [dict(id=arg, arg=arg) for arg in row.tensors]


def cases_non_current_gpu(row):
    return [dict(id=name, knobs=knobs) for name, knobs in row.variants]


def cases_mixed_devices(row):
    return [dict(id=f"{arg}-on-cuda1", arg=arg) for arg in row.tensors[1:]]


RULES = {
    name.removeprefix("cases_"): fn for name, fn in globals().items() if name.startswith("cases_")
}


def params(rule: str):
    """pytest params (row, case) for ``rule`` over every row; a row the rule does not
    apply to gives one skipped param that says why."""
    out = []
    for row in ROWS:
        cases = RULES[rule](row)
        if not cases:
            reason = row.not_applicable.get(rule, "NO CASES AND NO REASON: add one to the row")
            skip = pytest.mark.skip(reason=f"{row.name}: {reason}")
            out.append(pytest.param(row, None, id=f"{row.name}-n/a", marks=skip))
            continue
        for case in cases:
            marks = []
            hole = row.holes.get(f"{rule}-{case['id']}")
            if isinstance(hole, Unnamed):
                case = {**case, "unnamed": hole.reason}
            elif hole:
                marks.append(pytest.mark.xfail(strict=True, reason=f"contract hole: {hole}"))
            if rule in ("non_current_gpu", "mixed_devices"):
                marks.append(requires_two_gpus)
            out.append(pytest.param(row, case, id=f"{row.name}-{case['id']}", marks=marks))
    return out


# ---- the spy on launches ----------------------------------------------------------------

_KERNEL_CLASSES = [triton.runtime.jit.JITFunction]
try:
    from triton.runtime.interpreter import InterpretedFunction

    _KERNEL_CLASSES.append(InterpretedFunction)
except ImportError:  # pragma: no cover - every supported Triton has it
    pass


@pytest.fixture
def launches(monkeypatch) -> list:
    """Every kernel launch from here on, as the CUDA device current at the launch (-1 on
    the CPU)."""
    seen = []
    for cls in _KERNEL_CLASSES:

        def run(self, *args, _original=cls.run, **kwargs):
            seen.append(torch.cuda.current_device() if ON_GPU else -1)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "run", run)
    return seen


def _no_launch(row, launches):
    if row.launches_visible:
        assert launches == [], f"launched {len(launches)} kernels before refusing"


def _tensors(args):
    return {k: v for k, v in args.items() if isinstance(v, torch.Tensor)}


def _plain_args(row, args):
    """The same call on contiguous copies of what each tensor reads (out: a fresh one)."""
    copy = {k: plain(v) for k, v in args.items()}
    if row.out in args and args[row.out] is not None:
        copy[row.out] = torch.full_like(plain(args[row.out]), NAN)
    return copy


def accepted(row, fn, args, seed, what=""):
    """The call succeeds, writes ``out`` if given, matches the same call on contiguous
    copies, and leaves every input it does not write unchanged."""
    expected = row.bind(_plain_args(row, args))(**_plain_args(row, args))
    out = args.get(row.out) if row.out else None
    before = {
        k: plain(v)
        for k, v in _tensors(args).items()
        if k != row.out and (out is None or v.data_ptr() != out.data_ptr())
    }
    result = fn(**args)
    msg = f"{row.name} {what} seed={seed}"
    if out is not None:
        assert result is out, f"the result is not the out tensor given {msg}"
    close(result, expected, msg)
    for k, t in before.items():
        assert torch.equal(plain(args[k]), t), f"{k} changed {msg}"
    return result


# ---- the rules ------------------------------------------------------------------------


@pytest.mark.parametrize("row, case", params("not_a_tensor"))
def test_not_a_tensor(row, case, launches):
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    args[arg] = case["make"](args[arg])
    with refused(row, TypeError, arg, says=rf"{arg} must be a torch\.Tensor", case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("dtype"))
@pytest.mark.filterwarnings("ignore:.*float8:UserWarning")
def test_dtype(row, case, launches):
    seed = fresh_seed()
    arg = case["arg"]
    if arg is None:  # every input (and out, if required) of the one dtype
        args = row.valid(out=row.out_required)
        fn = row.bind(row.valid(out=True))
        launches.clear()
        for name in row.inputs + ((row.out,) if row.out_required else ()):
            args[name] = of_dtype(args[name].shape, case["dtype"])
        with refused(row, TypeError, row.tensors[0], says=rf"{row.tensors[0]}.* dtype", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    args[arg] = of_dtype(args[arg].shape, case["dtype"])
    if case["accepted"]:
        accepted(row, fn, args, seed, case["id"])
        return
    with refused(row, TypeError, arg, case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("shape"))
def test_shape(row, case, launches):
    bad = case["bad"]
    args = row.valid(shapes=bad.shapes, out=row.out in bad.shapes)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    with refused(row, ValueError, *bad.named, says=bad.says, case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("layout"))
def test_layout(row, case, launches):
    seed = fresh_seed()
    layout = case["layout"]
    args = row.valid(out=layout.arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    args[layout.arg] = layout.make(args[layout.arg])
    if layout.accepted:
        accepted(row, fn, args, seed, layout.id)
        return
    with refused(row, ValueError, layout.arg, says=layout.says, case=case):
        fn(**args)
    _no_launch(row, launches)


def _reference_grads(row, args, names, dy):
    """Gradients of ``names`` from the float64 reference."""
    args64 = {
        k: (v.detach().double() if isinstance(v, torch.Tensor) else v) for k, v in args.items()
    }
    for name in names:
        args64[name].requires_grad_()
    ref = row.reference(args64)
    if not ref.requires_grad:  # e.g. attention with no key: zeros, whatever the inputs
        return (None,) * len(names)
    return torch.autograd.grad(ref, [args64[n] for n in names], dy.double(), allow_unused=True)


@pytest.mark.parametrize("row, case", params("empty"))
def test_empty(row, case, launches):
    """Empty inputs give the right (empty or K = 0) result, or are refused by name; an
    empty result launches nothing, forward or backward."""
    seed = fresh_seed()
    empty = case["empty"]
    args = {**row.valid(shapes=empty.shapes, out=case["out"]), **empty.knobs}
    fn = row.bind(args)
    launches.clear()
    if empty.refuse:
        with refused(row, ValueError, empty.refuse, case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    if row.reference is None:  # launch_empty: a bare launch, whatever the tensor holds
        before = plain(args[row.tensors[0]])
        assert fn(**args) is None
        assert torch.equal(plain(args[row.tensors[0]]), before)
        return
    grads = row.inputs if row.autograd and not case["out"] else ()
    for name in grads:
        args[name].requires_grad_()
    result = fn(**args)
    msg = f"{row.name} {case['id']} seed={seed}"
    if case["out"] and row.out:
        assert result is args[row.out], msg
    close(result, row.reference(args), msg)
    if grads:
        dy = rand(result.shape, result.dtype)
        got = torch.autograd.grad(result, [args[n] for n in grads], dy)
        for name, g, want in zip(grads, got, _reference_grads(row, args, grads, dy), strict=True):
            close(g, torch.zeros_like(g) if want is None else want, f"d{name} {msg}", loose=True)
    if result.numel() == 0 and not row.launches_when_empty:
        _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("zero_dim"))
def test_zero_dim(row, case, launches):
    """0-d tensors: computed as torch computes them, or refused by name."""
    seed = fresh_seed()
    if "arg" in case:
        arg = case["arg"]
        args = row.valid(out=arg == row.out)
        fn = row.bind(row.valid(out=True))
        launches.clear()
        args[arg] = fresh(args[arg], ())
        with refused(row, ValueError, arg, case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    shapes = {name: () for name in row.tensors}
    args = row.valid(shapes=shapes, dtype=case["dtype"], out=True)
    fn = row.bind(args)
    result = fn(**args)
    if row.reference is None:
        assert result is None
        return
    close(result, row.reference(args), f"{row.name} 0-d {case['id']} seed={seed}")


@pytest.mark.parametrize("row, case", params("meta"))
def test_meta(row, case, launches):
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    args[arg] = torch.empty(args[arg].shape, dtype=args[arg].dtype, device="meta")
    with refused(row, ValueError, arg, says=rf"{arg} is a meta tensor", case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("sparse"))
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_sparse(row, case, launches):
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    dense = fresh(args[arg], args[arg].shape)
    args[arg] = dense.to_sparse() if case["layout"] == "coo" else dense.to_sparse_csr()
    with refused(row, ValueError, arg, says=rf"{arg} must be a dense tensor", case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("requires_grad"))
def test_requires_grad(row, case, launches):
    """Without a backward, an input that requires grad is refused under grad mode; with
    one (an autograd.Function), the gradient reaches that input and matches torch's.
    Without grad mode either kind computes a plain result."""
    seed = fresh_seed()
    arg, mode = case["arg"], case["mode"]
    args = row.valid(out=mode == "with-out")
    fn = row.bind(row.valid(out=True))
    msg = f"{row.name} {case['id']} seed={seed}"
    if mode in ("no_grad", "inference_mode"):
        expected = row.bind(_plain_args(row, args))(**_plain_args(row, args))
        args[arg].requires_grad_()
        with getattr(torch, mode)():
            result = fn(**args)
        assert not result.requires_grad, msg
        close(result, expected, msg)
        return
    args[arg].requires_grad_()
    launches.clear()
    if mode == "with-out":  # a result written into out= cannot carry a gradient
        with refused(row, ValueError, arg, says="requires grad", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    if not row.autograd:
        with refused(row, ValueError, arg, says=rf"{arg} requires grad", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    result = fn(**args)
    assert result.requires_grad and result.grad_fn is not None, msg
    dy = rand(result.shape, result.dtype)
    (grad,) = torch.autograd.grad(result, args[arg], dy)
    (want,) = _reference_grads(row, args, (arg,), dy)
    close(grad, want, f"d{arg} {msg}", loose=True)


@pytest.mark.parametrize("row, case", params("double_backward"))
def test_double_backward(row, case):
    """The backward kernels have no backward: a second derivative through them fails
    loudly, never silently. Asked for with create_graph=True, it is refused there by name
    (NotImplementedError); an operator (silu_mul) hands back a gradient whose own
    backward fails, naming the operator. A first gradient with no graph would be wrong:
    a gradient penalty built on it treats it as a constant (with a constant weight w, the
    gradient of (f(x) * w).sum() still depends on x)."""
    fresh_seed()
    args = row.valid()
    arg = case["arg"]
    args[arg].requires_grad_()
    y = row.bind(args)(**args)
    w = rand(y.shape, y.dtype)
    loss = (y * y).sum() if case["id"] == "second-backward" else (y * w).sum()
    try:
        (g,) = torch.autograd.grad(loss, args[arg], create_graph=True)
    except NotImplementedError as exc:
        says = f"{row.prefix}: double backward (create_graph=True) is not supported"
        assert str(exc).startswith(says), str(exc)
        return
    assert g.requires_grad, "create_graph=True gave a gradient with no graph: silently constant"
    with pytest.raises(RuntimeError, match=rf"{row.prefix}\w*\.default but no autograd formula"):
        g.sum().backward()


@pytest.mark.parametrize("row, case", params("dual"))
def test_dual(row, case, launches):
    """Forward-mode AD: a dual tensor (forward_ad.make_dual) requires no grad, so it passes
    every requires-grad check, and its tangent would come back dropped. Each is refused
    by name before anything launches; plain tensors inside a dual level are computed as
    outside one."""
    seed = fresh_seed()
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    with forward_ad.dual_level():
        if arg is None:
            accepted(row, fn, args, seed, case["id"])
            return
        args[arg] = forward_ad.make_dual(args[arg], torch.ones_like(args[arg]))
        with refused(row, ValueError, arg, says=rf"{arg} is a dual tensor", case=case):
            fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("nested"))
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
def test_nested(row, case, launches):
    """A nested tensor (of either layout) has no single shape or strides to read: refused
    by name before anything launches."""
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    t = args[arg]
    args[arg] = torch.nested.nested_tensor([t, fresh(t, t.shape)], layout=case["layout"])
    with refused(row, ValueError, arg, says=rf"{arg} must be a dense tensor, got a nested",
                 case=case):  # fmt: skip
        fn(**args)
    _no_launch(row, launches)


@big_gpu_memory
@pytest.mark.parametrize("row, case", params("big_strides"))
def test_big_strides(row, case):
    """Offsets past 2**31 elements (lesson 04) through strides: each view reads (or, as
    out, writes) elements more than 2**31 elements apart through a stride that fits an
    int32, so an index multiplied by it before it is widened to int64 wraps, and the
    kernel reads elsewhere or crashes. The result, and where there is a backward the
    gradient, match the same call on contiguous copies. On the GPU and the interpreter
    alike: the buffers span 4 GiB of fp16, of which each view touches a few elements."""
    seed = fresh_seed()
    big = case["big"]
    args = {**row.valid(shapes=big.shapes, dtype=F16, out=big.arg == row.out), **big.knobs}
    fn = row.bind(args)
    args[big.arg] = far_apart(args[big.arg], big.dim)
    grad = row.autograd and big.arg != row.out
    if grad:
        args[big.arg].requires_grad_()
    result = accepted(row, fn, args, seed, case["id"])
    if grad:
        dy = rand(result.shape, result.dtype)
        (got,) = torch.autograd.grad(result, args[big.arg], dy)
        copy = _plain_args(row, args)
        copy[big.arg].requires_grad_()
        (want,) = torch.autograd.grad(fn(**copy), copy[big.arg], dy)
        close(got, want, f"d{big.arg} {row.name} {case['id']} seed={seed}")


@pytest.mark.parametrize("row, case", params("out_version"))
def test_out_version(row, case):
    """Writing into out= bumps its version counter, as torch's out= ops do: a tensor saved
    for a backward that aliases out then fails there instead of giving a wrong gradient."""
    fresh_seed()
    args = row.valid(out=True)
    fn = row.bind(row.valid(out=True))
    if case["into"]:
        args[row.out] = args[case["into"]]
    target = args[row.out]
    w = rand(target.shape, target.dtype).requires_grad_()
    z = w * target  # saves target for its backward
    version = target._version
    fn(**args)
    assert target._version > version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("row, case", params("out_requires_grad"))
def test_out_requires_grad(row, case, launches):
    """A write into an out that requires grad cannot be differentiated: refused under grad
    mode; without it (an optimizer-style update of a leaf) it is a plain write."""
    seed = fresh_seed()
    args = row.valid(out=True)
    fn = row.bind(row.valid(out=True))
    expected = row.bind(_plain_args(row, args))(**_plain_args(row, args))
    args[row.out] = torch.zeros_like(args[row.out]).requires_grad_()
    launches.clear()
    if case["mode"] == "grad":
        with refused(row, ValueError, row.out, says=r"\bout requires grad", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    with getattr(torch, case["mode"])():
        result = fn(**args)
    assert result is args[row.out]
    close(result.detach(), expected, f"{row.name} {case['id']} seed={seed}")


def _overlap_args(row, case):
    """(arguments, buffer) for an overlap case; the valid call's other tensors are fresh."""
    args = row.valid(out=True)
    kind = case["kind"]
    buf = None
    if kind == "refused":
        buf, views = _carve(row, case["place"])
        args.update(views)
        if "out_is" in case:
            args[row.out] = args[case["out_is"]]
    elif kind == "alias":
        arg, shift = case["arg"], case["shift"]
        n, n_out = _numel(row.shapes[arg]), _numel(row.shapes[row.out])
        buf = rand(max(n, shift + n_out), row.dtype)
        args[arg] = buf[:n].view(row.shapes[arg])
        # the bytes of buf[shift:], through a storage of its own
        args[row.out] = torch.from_dlpack(buf[shift : shift + n_out]).view(row.shapes[row.out])
        assert args[row.out].untyped_storage().data_ptr() != buf.untyped_storage().data_ptr()
    elif kind == "same":
        args[row.out] = args[case["arg"]]
    elif kind == "same-all":
        for name in case["args"]:
            args[name] = args[case["args"][0]]
        args[row.out] = args[case["args"][0]]
    elif kind == "same-alias":
        args[row.out] = torch.from_dlpack(args[case["arg"]])
    elif kind == "disjoint":
        order = list(row.inputs) + [row.out]
        if case["where"] == "before":
            order = [row.out] + list(row.inputs)
        place, at_ = {}, 0
        for name in order:  # each region 16-element aligned: LeanAdd wants 16-byte pointers
            place[name] = at_
            at_ += -(-_numel(row.shapes[name]) // ALIGN) * ALIGN
        buf, views = _carve(row, place)
        views[row.out].fill_(NAN)
        args.update(views)
    elif kind == "self":
        shape = row.shapes[row.out]
        args[row.out] = torch.full((1, *shape[1:]), NAN, dtype=row.out_dtype(row.dtype),
                                   device=DEVICE).expand(shape)  # fmt: skip
    elif kind == "inputs":
        first, second = row.inputs[:2]
        half = _numel(row.shapes[first]) // 2 // ALIGN * ALIGN or 1
        buf, views = _carve(row, {first: 0, second: half})
        args.update(views)
        if not row.out_required:
            args.pop(row.out, None)
    elif kind == "extra":
        extra, named = case["build"](row)
        args.update(extra)
        case = {**case, "named": named}
    return args, case


@pytest.mark.parametrize("row, case", params("overlap"))
def test_overlap(row, case, launches):
    """out and the inputs are judged by address ranges, not by storage: out may share no
    byte with an input, unless it is that input itself where an in-place call is allowed;
    inputs may overlap each other; the same bytes through another storage count too."""
    seed = fresh_seed()
    fn = row.bind(row.valid(out=True))
    args, case = _overlap_args(row, case)
    launches.clear()
    refuse = case["kind"] in ("refused", "alias", "self", "extra") or (
        case["kind"] in ("same", "same-alias") and not case["accepted"]
    )
    if refuse:
        with refused(row, ValueError, *case["named"], case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    accepted(row, fn, args, seed, case["id"])


@pytest.mark.parametrize("row, case", params("neg"))
def test_neg(row, case, launches):
    """A view with the negative bit stores -v and reads as v: an input is read as its
    values (or refused by name), an out with the bit is refused."""
    seed = fresh_seed()
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    launches.clear()
    if arg == row.out:
        args[arg] = neg_view(torch.empty_like(args[arg]))
        with refused(row, ValueError, arg, says=r"out is a view with the negative bit", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    if case.get("conj"):  # the public way to get one: the imaginary part of a conjugate
        c = torch.randn(args[arg].shape, dtype=torch.complex64, device=DEVICE)
        args[arg] = c.conj().imag
        assert args[arg].is_neg()
    else:
        args[arg] = neg_view(args[arg])
        assert args[arg].is_neg()
    if row.neg == "refused":
        with refused(row, ValueError, arg, says="negative bit", case=case):
            fn(**args)
        _no_launch(row, launches)
        return
    accepted(row, fn, args, seed, case["id"])


@pytest.mark.parametrize("row, case", params("knob_type"))
def test_knob_type(row, case, launches):
    """Knobs take exactly their type: True is not 1, 4.0 is not 4, a numpy int is not an
    int; refused with a TypeError naming the knob. A number knob takes a float subclass
    (numpy.float64) as the float it is."""
    seed = fresh_seed()
    args = {**row.valid(), case["knob"]: case["value"]}
    fn = row.bind(row.valid(out=True))
    if case.get("taken"):
        expected = fn(**{**_plain_args(row, args), case["knob"]: float(case["value"])})
        close(fn(**args), expected, f"{row.name} {case['id']} seed={seed}")
        return
    launches.clear()
    with refused(row, TypeError, case["knob"], case=case):
        fn(**args)
    _no_launch(row, launches)


def _bad_call(row, bad: Bad, monkeypatch):
    for name, value in bad.patch.items():
        monkeypatch.setattr(row.module, name, value)
    return {**row.valid(shapes=bad.shapes, dtype=bad.dtype), **bad.knobs}


@pytest.mark.parametrize("row, case", params("knob_bounds"))
@pytest.mark.filterwarnings("ignore:.*float8:UserWarning")
def test_knob_bounds(row, case, launches, monkeypatch):
    """Knobs out of bounds (or in combinations that would take the compiler minutes, spill
    or overflow a grid) are refused with a ValueError that names them and says the bound."""
    bad = case["bad"]
    fn = row.bind(row.valid(out=True))
    args = _bad_call(row, bad, monkeypatch)
    launches.clear()
    with refused(row, bad.error, *bad.named, says=bad.says, case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("choices"))
@pytest.mark.filterwarnings("ignore:.*float8:UserWarning")
def test_choices(row, case, launches, monkeypatch):
    """String options outside their set (or of another type) are refused by name."""
    bad = case["bad"]
    fn = row.bind(row.valid(out=True))
    args = _bad_call(row, bad, monkeypatch)
    launches.clear()
    with refused(row, bad.error, *bad.named, says=bad.says, case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("cpu_tensor"))
def test_cpu_tensor(row, case, launches, monkeypatch):
    """Tensors live on a CUDA device: a CPU tensor is refused by name (on the CPU only the
    interpreter runs kernels). On a GPU each argument is tried on the CPU in turn; under
    the interpreter the interpreter flag, decided at import, is turned off for the call,
    and every tensor is a CPU one, so the first argument checked is the one named."""
    arg = case["arg"]
    args = row.valid(out=arg == row.out)
    fn = row.bind(row.valid(out=True))
    if ON_GPU:
        args[arg] = args[arg].cpu()
    else:
        if arg != row.tensors[0] or not row.cpu_under_interpreter:
            pytest.skip(
                "under the interpreter every tensor is a CPU one: only the first argument "
                "checked can be named (on a GPU every argument is tried)"
            )
        # The one private name this file touches: the flag is decided once, at import.
        monkeypatch.setattr(row.module, "_INTERPRET", False)
    launches.clear()
    with refused(row, ValueError, arg, says=rf"{arg} must be on a CUDA device", case=case):
        fn(**args)
    _no_launch(row, launches)


@pytest.mark.parametrize("row, case", params("non_current_gpu"))
def test_non_current_gpu(row, case, launches):
    """Tensors on cuda:1 while cuda:0 is current: every launch (forward and backward) runs
    on cuda:1, the current device is put back, and the result is what cuda:1 computes
    when it is current."""
    seed = fresh_seed()
    if case["id"] == "tma" and (
        torch.cuda.get_device_capability(1) < (9, 0) or not mt.HAS_TENSOR_DESCRIPTORS
    ):
        pytest.skip("cuda:1 cannot run the TMA kernel")
    args = {**row.valid(device="cuda:1", out=row.out_required), **case["knobs"]}
    with torch.cuda.device(1):
        expected = row.bind(_plain_args(row, args))(**_plain_args(row, args))
    launches.clear()
    grads = row.inputs if row.autograd else ()
    for name in grads:
        args[name].requires_grad_()
    with torch.cuda.device(0):
        fn = row.bind(args)
        result = fn(**args)
        if grads:
            dy = rand(result.shape, result.dtype, device="cuda:1")
            got = torch.autograd.grad(result, [args[n] for n in grads], dy)
            assert all(g.device == result.device for g in got)
        assert torch.cuda.current_device() == 0, "the wrapper did not put the device back"
    torch.cuda.synchronize(1)
    if row.launches_visible:
        assert launches and set(launches) == {1}, f"launched on devices {launches}"
    if result is not None:
        assert result.device == torch.device("cuda:1")
    close(result, expected, f"{row.name} {case['id']} seed={seed}")


@pytest.mark.parametrize("row, case", params("mixed_devices"))
def test_mixed_devices(row, case, launches):
    arg = case["arg"]
    args = row.valid(device="cuda:0", out=arg == row.out)
    fn = row.bind(row.valid(device="cuda:0", out=True))
    args[arg] = args[arg].to("cuda:1")
    launches.clear()
    with refused(row, ValueError, arg, case=case):
        fn(**args)
    _no_launch(row, launches)


# ---- the table itself ---------------------------------------------------------------------


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_rule_applies_to_every_row_or_says_why(row, rule):
    has_cases = bool(RULES[rule](row))
    says_why = rule in row.not_applicable
    assert has_cases != says_why, (
        f"{row.name}: {rule} has cases and a reason not to apply"
        if has_cases
        else f"{row.name}: {rule} has no cases: add them, or say why in not_applicable"
    )


def test_every_hole_names_a_case():
    for row in ROWS:
        ids = {f"{rule}-{case['id']}" for rule, make in RULES.items() for case in make(row)}
        assert set(row.holes) <= ids, f"{row.name}: holes {set(row.holes) - ids} match no case"


def _public_callables():
    found = {}
    for path in sorted(pathlib.Path(__file__).parents[2].joinpath("kernels").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"kernels.{path.stem}")
        for name, obj in vars(module).items():
            if name.startswith("_") or inspect.ismodule(obj):
                continue
            defined_here = getattr(obj, "__module__", None) == module.__name__
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and defined_here:
                found[f"{path.stem}.{name}"] = obj
            elif type(obj).__name__ == "CustomOpDef":  # torch.library operators
                found[f"{path.stem}.{name}"] = obj
    return found


def test_every_public_callable_has_a_row_or_a_reason():
    """A new public wrapper in kernels/ needs a row here (or a reason in NOT_WRAPPERS)."""
    missing = [
        name
        for name in _public_callables()
        if name not in ROW_OF_CALLABLE
        and name not in NOT_WRAPPERS
        and not NOT_WRAPPER_NAMES.match(name.split(".", 1)[1])
    ]
    assert not missing, f"public callables with no row and no reason: {missing}"
    assert set(ROW_OF_CALLABLE.values()) <= set(ROW)
