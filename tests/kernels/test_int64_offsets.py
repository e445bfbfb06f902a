"""Every index that meets a stride in a kernel is int64 (lesson 04), checked on the source.

The contract rule ``big_strides`` (test_contract.py) runs each family on views whose index
times stride passes 2**31 elements; this file reads every ``@triton.jit`` function of
``kernels/*.py`` instead, so that a kernel nobody thought to test, or a new line in an old
one, is caught too. It needs neither torch nor a GPU.

The rule: in a product ``X * S`` or ``S * X`` where ``S`` is a stride (a name with the word
``stride`` in it: ``stride_am``, ``x_stride``, ``x_row_stride``, or a cast or subscript of
one), one operand must be provably int64:

- ``E.to(tl.int64)``, ``tl.cast(E, tl.int64)``, or a call with ``dtype=tl.int64``;
- a name assigned from such a value earlier in the function (``rows = offs.to(tl.int64)``),
  or from arithmetic, ``tl.minimum``/``tl.maximum`` or a subscript with an int64 operand
  (int64 wins Triton's integer promotion);
- a parameter of a ``@triton.jit`` helper that every call in the file passes an int64.

A loop variable is not int64, even when the loop starts from one: the compiled kernel
promotes it, but the CPU interpreter runs the loop over Python ints, and the tests run
there too. A product whose operands cannot pass 2**31 goes in ``EXCEPTIONS``, with why.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

KERNELS = pathlib.Path(__file__).parents[2] / "kernels"
STRIDE = re.compile(r"(^|_)stride(_|$)")

# (file, function, product as ast.unparse writes it) -> why it cannot pass 2**31. Empty
# today: every stride product in kernels/ has an int64 operand. (Widening costs a register
# pair per index and an instruction or two, so a product that provably stays small, say a
# head-dim index times a stride the wrapper bounds, may be listed here instead.)
EXCEPTIONS: dict[tuple[str, str, str], str] = {
    # Lesson 04's first 2-D tile, a lesson fragment (no wrapper, no checks) run on a 5 x 6
    # example: it shows the idea, rows times a stride plus columns times a stride, before
    # the lesson's section on offsets past 2**31 widens them to int64 and says why.
    ("_tiles.py", "tiles_kernel", "rows[:, None] * stride_r"): "the 5 x 6 teaching example",
    ("_tiles.py", "tiles_kernel", "cols[None, :] * stride_c"): "the 5 x 6 teaching example",
}


def _is_jit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("triton.jit", "jit")


def _is_int64_dtype(node: ast.expr) -> bool:
    return ast.unparse(node) in ("tl.int64", "triton.language.int64")


def _widens(call: ast.Call) -> bool:
    """``E.to(tl.int64)``, ``tl.cast(E, tl.int64)``, or ``f(..., dtype=tl.int64)``."""
    name = ast.unparse(call.func)
    if name.endswith(".to") and call.args and _is_int64_dtype(call.args[0]):
        return True
    if name == "tl.cast" and len(call.args) >= 2 and _is_int64_dtype(call.args[1]):
        return True
    return any(k.arg == "dtype" and _is_int64_dtype(k.value) for k in call.keywords)


def _mentions_stride(node: ast.expr) -> bool:
    """A stride itself, or a cast or subscript of one."""
    if isinstance(node, ast.Name):
        return STRIDE.search(node.id) is not None
    if isinstance(node, ast.Subscript):
        return _mentions_stride(node.value)
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "tl.cast" and node.args:
        return _mentions_stride(node.args[0])
    return False


class _Function:
    """One ``@triton.jit`` function: which names are int64 where, and its stride products."""

    def __init__(self, path: pathlib.Path, node: ast.FunctionDef, params64: set[str]):
        self.path, self.node = path, node
        self.products: list[tuple[ast.BinOp, frozenset[str]]] = []  # with the int64 names
        self.calls: list[tuple[ast.Call, frozenset[str]]] = []
        self._block(node.body, set(params64))

    # -- is an expression int64, given the names known to be ------------------------------
    @staticmethod
    def is64(node: ast.expr, known: set[str] | frozenset[str]) -> bool:
        if isinstance(node, ast.Name):
            return node.id in known
        if isinstance(node, ast.Subscript):
            return _Function.is64(node.value, known)
        if isinstance(node, ast.BinOp):
            return _Function.is64(node.left, known) or _Function.is64(node.right, known)
        if isinstance(node, ast.UnaryOp):
            return _Function.is64(node.operand, known)
        if isinstance(node, ast.IfExp):
            return _Function.is64(node.body, known) and _Function.is64(node.orelse, known)
        if isinstance(node, ast.Call):
            if _widens(node):
                return True
            if ast.unparse(node.func) in ("tl.minimum", "tl.maximum", "min", "max"):
                return any(_Function.is64(a, known) for a in node.args)
        return False

    # -- a walk over the statements, in order ----------------------------------------------
    def _expressions(self, node: ast.AST, known: set[str]) -> None:
        frozen = frozenset(known)
        for sub in ast.walk(node):
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult):
                if _mentions_stride(sub.left) or _mentions_stride(sub.right):
                    self.products.append((sub, frozen))
            elif isinstance(sub, ast.Call):
                self.calls.append((sub, frozen))

    def _assign(self, target: ast.expr, value: ast.expr | None, known: set[str]) -> None:
        if isinstance(target, ast.Name):
            if value is not None and self.is64(value, known):
                known.add(target.id)
            else:
                known.discard(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            for i, element in enumerate(target.elts):
                self._assign(element, values[i] if values else None, known)

    def _block(self, body: list[ast.stmt], known: set[str]) -> None:
        for stmt in body:
            self._statement(stmt, known)

    def _statement(self, stmt: ast.stmt, known: set[str]) -> None:
        if isinstance(stmt, ast.Assign):
            self._expressions(stmt.value, known)
            for target in stmt.targets:
                self._assign(target, stmt.value, known)
        elif isinstance(stmt, ast.AugAssign):
            self._expressions(stmt.value, known)
            if isinstance(stmt.target, ast.Name) and self.is64(stmt.value, known):
                known.add(stmt.target.id)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._expressions(stmt.value, known)
            self._assign(stmt.target, stmt.value, known)
        elif isinstance(stmt, (ast.For, ast.While)):
            if isinstance(stmt, ast.For):
                self._expressions(stmt.iter, known)
                self._assign(stmt.target, None, known)  # a loop variable: see the docstring
            else:
                self._expressions(stmt.test, known)
            # Twice: what the body makes narrow at its end is narrow at its start again.
            inner = set(known)
            self._block(stmt.body, inner)
            known &= inner
            self.products = [p for p in self.products if p[0] not in _nodes(stmt.body)]
            self.calls = [c for c in self.calls if c[0] not in _nodes(stmt.body)]
            inner = set(known)
            self._block(stmt.body, inner)
            known &= inner
            self._block(stmt.orelse, known)
        elif isinstance(stmt, ast.If):
            self._expressions(stmt.test, known)
            then, other = set(known), set(known)
            self._block(stmt.body, then)
            self._block(stmt.orelse, other)
            known.intersection_update(then & other)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                self._expressions(item.context_expr, known)
            self._block(stmt.body, known)
        elif isinstance(stmt, (ast.Expr, ast.Return)) and stmt.value is not None:
            self._expressions(stmt.value, known)
        elif isinstance(stmt, (ast.Assert,)):
            self._expressions(stmt.test, known)


def _nodes(body: list[ast.stmt]) -> set[ast.AST]:
    return {sub for stmt in body for sub in ast.walk(stmt)}


def _jit_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list)
    }


def _param_names(node: ast.FunctionDef) -> list[str]:
    return [a.arg for a in node.args.args]


def analyse(path: pathlib.Path, source: str | None = None) -> dict[str, _Function]:
    """Every jit function of one file, its parameters' int64-ness settled across the file:
    a helper's parameter is int64 where every call in the file passes an int64 there."""
    tree = ast.parse(source if source is not None else path.read_text(), filename=str(path))
    functions = _jit_functions(tree)
    called = {name: [] for name in functions}  # name -> [(call, names int64 at the call)]
    params64 = {name: set(_param_names(node)) for name, node in functions.items()}
    while True:  # from "every parameter of a called helper is int64" down to a fixed point
        analysed = {name: _Function(path, node, params64[name]) for name, node in functions.items()}
        for name in called:
            called[name] = []
        for fn in analysed.values():
            for call, known in fn.calls:
                if isinstance(call.func, ast.Name) and call.func.id in functions:
                    called[call.func.id].append((call, known))
        new = {}
        for name, node in functions.items():
            params = _param_names(node)
            if not called[name]:  # a kernel, launched from the host: its ints are int32
                new[name] = set()
                continue
            keep = set(params)
            for call, known in called[name]:
                passed = dict(zip(params, call.args, strict=False))
                passed.update({k.arg: k.value for k in call.keywords if k.arg})
                keep &= {p for p, arg in passed.items() if _Function.is64(arg, known)}
            new[name] = keep
        if new == params64:
            return analysed
        params64 = new


def narrow_products(path: pathlib.Path, source: str | None = None) -> list[str]:
    """``file:line function: product`` for each stride product with no int64 operand that
    ``EXCEPTIONS`` does not list."""
    found = []
    for name, fn in analyse(path, source).items():
        for product, known in fn.products:
            if _Function.is64(product.left, known) or _Function.is64(product.right, known):
                continue
            text = ast.unparse(product)
            if (path.name, name, text) in EXCEPTIONS:
                continue
            found.append(f"{path.name}:{product.lineno} {name}: {text}")
    return sorted(set(found))


KERNEL_FILES = sorted(p for p in KERNELS.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: p.name)
def test_every_stride_product_is_int64(path):
    assert narrow_products(path) == []


def test_the_check_sees_stride_products():
    """The check has something to check: the kernels multiply many strides."""
    products = sum(len(fn.products) for path in KERNEL_FILES for fn in analyse(path).values())
    assert products > 50, products


def test_every_exception_names_a_product_in_the_kernels():
    listed = set(EXCEPTIONS)
    seen = {
        (path.name, name, ast.unparse(product))
        for path in KERNEL_FILES
        for name, fn in analyse(path).items()
        for product, _ in fn.products
    }
    assert listed <= seen, listed - seen


# Each line, widened in the kernels today, narrowed back: the check must flag the products
# that index then meets (the holes issue 17 found, and one of each other kind).
NARROWED = [
    ("attention.py", "head = tl.program_id(1).to(tl.int64)\n", "head = tl.program_id(1)\n",
     "attn_fwd_kernel: head * stride_qh"),
    ("attention.py", "offs_d = tl.arange(0, HEAD_DIM).to(tl.int64)\n",
     "offs_d = tl.arange(0, HEAD_DIM)\n", "_attn_fwd_steps: offs_d[:, None] * stride_kd"),
    ("dot.py", "k64 = offs_k.to(tl.int64)", "k64 = offs_k", "dot_kernel: k64[None, :] * stride_ak"),
    ("matmul_tma.py", "offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)\n"
     "        acc = epilogue", "offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
     "        acc = epilogue", "epilogue: offs_n * stride_bias"),
    ("softmax.py", "row = tl.cast(i, tl.int64)\n", "row = i\n",
     "softmax_online_kernel: row * x_stride"),
    ("vector_add.py", "", "", None),  # no strides at all: nothing to narrow, nothing flagged
    ("matmul.py", "offs_m = pid_m.to(tl.int64) * BLOCK_M", "offs_m = pid_m * BLOCK_M",
     "matmul_kernel: offs_m[:, None] * stride_am"),
    ("rmsnorm.py", "row = tl.program_id(0).to(tl.int64)", "row = tl.program_id(0)",
     "rmsnorm_fwd_kernel: row * x_row_stride"),
]  # fmt: skip


@pytest.mark.parametrize(
    "file, wide, narrow, flagged", NARROWED, ids=[f"{n[0]}:{n[3]}" for n in NARROWED]
)
def test_a_narrowed_index_is_flagged(file, wide, narrow, flagged):
    path = KERNELS / file
    source = path.read_text()
    assert wide in source, f"{file} no longer has {wide!r}: update NARROWED"
    found = narrow_products(path, source.replace(wide, narrow, 1))
    if flagged is None:
        assert found == []
        return
    assert any(line.endswith(flagged) for line in found), found
