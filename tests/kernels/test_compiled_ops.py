"""silu_mul as a torch operator: results and gradients against a float64 reference, the
registration, and a small model compiled with fullgraph=True through it."""

import pytest
import torch

from kernels import compiled_ops as co
from tests.support import DEVICE, ON_GPU, assert_close_to_reference, fresh_seed, rand

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
# Elementwise in float32, one rounding at the store: an ulp or so of the dtype. fp32 results
# go through exp and a division (sigmoid), a few ulps each, hence 1e-5.
TOL = {
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (8e-3, 1e-5),
}
SHAPES = [(1,), (1000,), (3, 1029), (2, 5, 77), ()]
# Under the interpreter torch.compile cannot trace into the kernel (see the GPU-only test
# below); the CPU compile test stops at Dynamo, whose "eager" backend runs the graph as is.
CPU_BACKEND = "eager"
NO_AOT_ON_CPU = (
    "needs a CUDA GPU: under TRITON_INTERPRET=1, torch.library.wrap_triton returns the bare "
    "interpreted kernel (torch/_library/triton.py), so AOT Autograd's functional tracing "
    "launches it on FunctionalTensors and fails on their data pointer; only Dynamo "
    "(backend='eager') can run on the CPU"
)


def forward_backward(a, b, dy):
    a = a.detach().requires_grad_()
    b = b.detach().requires_grad_()
    y = co.silu_mul(a, b)
    y.backward(dy)
    return y.detach(), a.grad, b.grad


def reference_all(a, b, dy):
    a64 = a.detach().double().requires_grad_()
    b64 = b.detach().double().requires_grad_()
    y64 = torch.nn.functional.silu(a64) * b64
    da64, db64 = torch.autograd.grad(y64, (a64, b64), dy.double())
    return y64.detach(), da64, db64


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward_and_backward_match_float64(shape, dtype):
    seed = fresh_seed()
    a, b, dy = (rand(shape, dtype, scale=3.0) for _ in range(3))
    y, da, db = forward_backward(a, b, dy)
    for got, want, what in zip(
        (y, da, db), reference_all(a, b, dy), ("y", "da", "db"), strict=True
    ):
        assert got.dtype == dtype and got.shape == a.shape
        assert_close_to_reference(got, want, f"{what} {shape} {dtype} seed={seed}", tolerances=TOL)


def test_reference_is_the_formula():
    a, b = rand((64,)), rand((64,))
    expected = a.double() * torch.sigmoid(a.double()) * b.double()
    torch.testing.assert_close(co.reference(a, b), expected.float())


def test_launches_alone_give_the_operators_results():
    """The launch section works on its own: the same bits as the operator, both ways."""
    seed = fresh_seed()
    a, b, dy = (rand((3, 1029), scale=3.0) for _ in range(3))
    assert torch.equal(co.launch_forward(a, b), co.silu_mul_op(a, b)), f"seed={seed}"
    for got, want in zip(
        co.launch_backward(dy, a, b), co.silu_mul_backward_op(dy, a, b), strict=True
    ):
        assert torch.equal(got, want), f"seed={seed}"


def test_gradient_of_a_sum_arrives_expanded_and_is_handled():
    # d(sum y)/dy is a stride-0 expand: the backward makes it contiguous before the kernel.
    seed = fresh_seed()
    a, b = rand((4, 33)), rand((4, 33))
    a.requires_grad_()
    co.silu_mul(a, b).sum().backward()
    _, da64, _ = reference_all(a, b, torch.ones_like(a))
    assert_close_to_reference(a.grad, da64, f"seed={seed}", tolerances=TOL)


def test_the_operator_is_registered_with_a_backward():
    assert hasattr(torch.ops.book, "silu_mul") and hasattr(torch.ops.book, "silu_mul_backward")
    schema = str(torch.ops.book.silu_mul.default._schema)
    assert schema == "book::silu_mul(Tensor a, Tensor b) -> Tensor", schema
    # Called as torch.ops.book.silu_mul it gives the same bits as the wrapper, and a grad_fn.
    a, b = rand((300,)), rand((300,))
    a.requires_grad_()
    y = torch.ops.book.silu_mul(a, b)
    assert y.grad_fn is not None
    assert torch.equal(y.detach(), co.silu_mul(a.detach(), b))


# ---- the operators on their own: public, so they check and copy for themselves -----------


@pytest.mark.parametrize(
    "layout",
    ["a-transposed", "b-every-other", "both-broadcast", "a-negative-bit"],
)
def test_the_operator_reads_any_layout_by_its_values(layout):
    """torch.ops.book.silu_mul skips silu_mul's checks; strided operands (which silu_mul
    refuses) are copied, so the kernel never reads them as if they were contiguous."""
    seed = fresh_seed()
    a, b = rand((5, 37), scale=3.0), rand((5, 37), scale=3.0)
    if layout == "a-transposed":
        a = rand((37, 5), scale=3.0).t()
    elif layout == "b-every-other":
        b = rand((5, 74), scale=3.0)[:, ::2]
    elif layout == "both-broadcast":
        a, b = rand((1, 37), scale=3.0).expand(5, 37), rand((5, 1), scale=3.0).expand(5, 37)
    else:
        a = torch._neg_view(a)
    y = torch.ops.book.silu_mul(a, b)
    want = co.reference(a.resolve_neg().contiguous(), b.contiguous()).double()
    assert_close_to_reference(y, want, f"{layout} seed={seed}", tolerances=TOL)


def test_the_backward_operator_reads_any_layout_by_its_values():
    seed = fresh_seed()
    a, b = rand((37, 5), scale=3.0).t(), rand((5, 37), scale=3.0)
    dy = rand((1, 37)).expand(5, 37)
    da, db = torch.ops.book.silu_mul_backward(dy, a, b)
    _, da64, db64 = reference_all(a.contiguous(), b, dy.contiguous())
    assert_close_to_reference(da, da64, f"da seed={seed}", tolerances=TOL)
    assert_close_to_reference(db, db64, f"db seed={seed}", tolerances=TOL)


@pytest.mark.parametrize(
    "change, error, says",
    [
        ({"b": (5, 36)}, ValueError, r"^silu_mul: b has shape \(5, 36\)"),
        ({"b": (36,)}, ValueError, r"^silu_mul: b has shape \(36,\)"),
        ({"b": torch.float16}, TypeError, r"^silu_mul: b has dtype torch.float16"),
        ({"a": torch.float64, "b": torch.float64}, TypeError, r"^silu_mul: a has dtype"),
        ({"a": torch.int32, "b": torch.int32}, TypeError, r"^silu_mul: a has dtype"),
    ],
    ids=["shorter-rows", "fewer-dims", "mixed-dtypes", "float64", "int32"],
)
def test_the_operator_refuses_operands_the_kernel_would_misread(change, error, says):
    args = {"a": rand((5, 37)), "b": rand((5, 37))}
    for name, what in change.items():
        args[name] = rand(what) if isinstance(what, tuple) else args[name].to(what)
    with pytest.raises(error, match=says):
        torch.ops.book.silu_mul(args["a"], args["b"])


def test_the_backward_operator_refuses_a_gradient_of_another_shape():
    a, b = rand((5, 37)), rand((5, 37))
    with pytest.raises(ValueError, match=r"^silu_mul_backward: dy has shape \(5, 36\)"):
        torch.ops.book.silu_mul_backward(rand((5, 36)), a, b)


# --8<-- [start:model]
class GatedMLP(torch.nn.Module):
    """The MLP of a LLaMA-style block: down(silu(gate(x)) * up(x)), with silu_mul fused."""

    def __init__(self, d_model: int, d_hidden: int, fused: bool = True):
        super().__init__()
        self.gate = torch.nn.Linear(d_model, d_hidden, bias=False)
        self.up = torch.nn.Linear(d_model, d_hidden, bias=False)
        self.down = torch.nn.Linear(d_hidden, d_model, bias=False)
        self.fused = fused

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g, u = self.gate(x), self.up(x)
        h = co.silu_mul(g, u) if self.fused else torch.nn.functional.silu(g) * u
        return self.down(h)


# --8<-- [end:model]


def compiled_against_eager(backend: str, dtype=torch.float32, tol=(1e-5, 1e-5)):
    """A GatedMLP compiled with fullgraph=True (a graph break would raise), against the
    same weights run eagerly through torch's own silu: outputs and every gradient."""
    seed = fresh_seed()
    torch._dynamo.reset()
    fused = GatedMLP(64, 96).to(DEVICE, dtype)
    plain = GatedMLP(64, 96, fused=False).to(DEVICE, dtype)
    plain.load_state_dict(fused.state_dict())
    x = rand((3, 5, 64), dtype)
    compiled = torch.compile(fused, fullgraph=True, backend=backend)
    y = compiled(x)
    y.square().sum().backward()
    y_ref = plain(x)
    y_ref.square().sum().backward()
    rtol, atol = tol
    torch.testing.assert_close(y, y_ref, rtol=rtol, atol=atol, msg=lambda m: f"{m} seed={seed}")
    ref_params = dict(plain.named_parameters())
    for name, p in fused.named_parameters():
        where = f"grad {name}, seed={seed}"
        torch.testing.assert_close(
            p.grad, ref_params[name].grad, rtol=rtol, atol=atol, msg=lambda m, w=where: f"{w}: {m}"
        )
    return fused, x


def test_dynamo_traces_the_operator_whole_on_the_cpu_or_gpu():
    # Dynamo alone (its "eager" backend): fullgraph=True raises on any graph break.
    fused, x = compiled_against_eager(CPU_BACKEND)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fused)(x)
    assert explained.graph_break_count == 0, explained.break_reasons
    assert explained.graph_count == 1


@pytest.mark.skipif(not ON_GPU, reason=NO_AOT_ON_CPU)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_inductor_compiles_a_model_through_the_operator(dtype):
    # The default backend: Dynamo, AOT Autograd, Inductor, which sees the Triton kernels.
    tol = (1e-4, 1e-4) if dtype == torch.float32 else (3e-2, 3e-2)
    compiled_against_eager("inductor", dtype, tol)


@pytest.mark.skipif(not ON_GPU, reason=NO_AOT_ON_CPU)
def test_inductor_graph_calls_the_book_kernels():
    # The code Inductor writes launches silu_mul_fwd_kernel and silu_mul_bwd_kernel itself.
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    model = GatedMLP(64, 96).to(DEVICE)
    x = rand((4, 64))
    compiled = torch.compile(model, fullgraph=True)
    _, codes = run_and_get_code(compiled, x)
    assert any("silu_mul_fwd_kernel" in code for code in codes), codes
