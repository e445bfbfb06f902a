"""Lesson 14's torch.compile fragments do what the page says: where Dynamo breaks the
graph, that the rewrite gives the same values in one graph, and when it compiles again.

Dynamo decides graphs and recompiles before any backend runs, so these tests count with
a backend that records each graph it is given and runs it as is: fast on a CPU, and the
same counts Inductor would get (the GPU benchmark inductor_code measures Inductor's).
"""

import pytest
import torch

from kernels import _compile_examples as ex
from tests.support import DEVICE, fresh_seed, rand


class Recorder:
    """A torch.compile backend that keeps the input shapes of every graph it compiles."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        self.graphs.append(
            [tuple(t.shape) if isinstance(t, torch.Tensor) else "SymInt" for t in example_inputs]
        )
        return gm.forward


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize(
    "fn, reason",
    [
        pytest.param(ex.clipped, "Tensor.item()", id="item"),
        pytest.param(ex.scaled_then_logged, "builtin", id="print"),
    ],
)
def test_a_graph_break_splits_the_function_in_two(fn, reason):
    explained = torch._dynamo.explain(fn)(rand((64,)))
    assert explained.graph_break_count == 1
    assert explained.graph_count == 2
    assert reason in str(explained.break_reasons[0].reason)


def test_the_rewrite_has_no_break_and_the_same_values():
    seed = fresh_seed()
    x = rand((1000,), scale=8.0)  # some elements beyond 10: the clamp matters
    explained = torch._dynamo.explain(ex.clipped_whole)(x)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    assert torch.equal(ex.clipped_whole(x), ex.clipped(x)), f"seed={seed}"
    small = rand((1000,))  # none beyond 10: clipped skips the clamp
    assert torch.equal(ex.clipped_whole(small), ex.clipped(small)), f"seed={seed}"


def test_fullgraph_turns_a_break_into_an_error():
    # Where the break was, fullgraph=True raises. (Which error depends on the torch
    # version: 2.13 traces .item() under fullgraph and then fails on the `if`.)
    compiled = torch.compile(ex.clipped, fullgraph=True, backend="eager")
    with pytest.raises(torch._dynamo.exc.TorchDynamoException, match="item|data-dependent"):
        compiled(rand((8,)))


def test_every_new_shape_recompiles_with_dynamic_false():
    rec = Recorder()
    compiled = torch.compile(ex.row_norms, backend=rec, dynamic=False)
    for n in (8, 16, 32, 32, 16):
        x = rand((4, n))
        torch.testing.assert_close(compiled(x), ex.row_norms(x))
    assert rec.graphs == [[(4, 8)], [(4, 16)], [(4, 32)]]


def test_by_default_the_second_shape_compiles_a_symbolic_graph():
    rec = Recorder()
    compiled = torch.compile(ex.row_norms, backend=rec)
    for n in (8, 16, 32, 64):
        x = rand((4, n))
        torch.testing.assert_close(compiled(x), ex.row_norms(x))
    # The first graph is for (4, 8) exactly; the second takes the size as a symbol
    # (passed in as an extra integer input) and serves 16, 32 and 64.
    assert len(rec.graphs) == 2
    assert rec.graphs[0] == [(4, 8)]
    assert "SymInt" in rec.graphs[1]


def test_inductor_runs_on_this_machine():
    # Not only Dynamo: Inductor compiles the rewrite for this device (C++ on a CPU with a
    # compiler, Triton on a GPU) and gets the same values.
    x = rand((4, 33), scale=8.0)
    compiled = torch.compile(ex.clipped_whole, fullgraph=True)
    torch.testing.assert_close(compiled(x), ex.clipped_whole(x))
    assert x.device.type == DEVICE
