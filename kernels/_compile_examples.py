"""Fragments lesson 14 shows about torch.compile: a graph break and a recompilation.

Plain PyTorch, no kernels: tests/kernels/test_compile_examples.py checks that each does
what the page says (how many graphs Dynamo makes, how many times it compiles), and
scripts/bench/benchmarks/inductor_code.py measures what they cost on the GPU.
"""

import torch


# --8<-- [start:graph-break]
def clipped(x: torch.Tensor) -> torch.Tensor:
    # .item() hands a tensor's value to Python, and Python's `if` decides what runs next:
    # Dynamo cannot put that decision in a graph, so it ends the graph there (a graph
    # break), runs the line in Python, and starts a second graph after it.
    if x.abs().max().item() > 10:
        x = x.clamp(-10, 10)
    return torch.sin(x)


def clipped_whole(x: torch.Tensor) -> torch.Tensor:
    # The same values with no decision in Python: clamping numbers already within
    # [-10, 10] changes nothing, so clamp always. One graph.
    return torch.sin(x.clamp(-10, 10))


# --8<-- [end:graph-break]


# --8<-- [start:print-break]
def scaled_then_logged(x: torch.Tensor) -> torch.Tensor:
    y = torch.sin(x) * 2
    print("scaled")  # a Python side effect: Dynamo breaks the graph to run it
    return torch.cos(y)


# --8<-- [end:print-break]


# --8<-- [start:recompile]
# A compiled graph holds its input shapes as constants, and a guard checks them on every
# call: another shape fails the guard and compiles again. With dynamic=False every new
# shape compiles; by default, the first change of shape compiles once more with that size
# made symbolic, and later sizes reuse that graph.
def row_norms(x: torch.Tensor) -> torch.Tensor:
    return x.pow(2).sum(dim=-1).sqrt()


# --8<-- [end:recompile]
