"""14 · Backward passes and production: the layers between a Triton kernel and a model
that compiles whole, and what each adds (the book's examples: kernels/*.py's checked
wrappers, the autograd.Functions of softmax, RMSNorm and attention, and
kernels/compiled_ops.py's book::silu_mul)."""

from scripts.book.diagrams.svg import Drawing

LAYERS = [
    ("a plain function", "d-box",
     [["checks, then ", ("kernel[grid](...)", "d-mono")],
      ["adds: a result for valid inputs, a clear error"],
      ["for the rest; no backward, so it refuses"],
      ["inputs that require grad"]]),
    ("torch.autograd.Function", "d-blue",
     [["adds: a backward; the forward keeps what it"],
      ["needs (", ("ctx.save_for_backward", "d-mono"), "), the"],
      ["backward launches the backward kernels"]]),
    ("torch.library.triton_op", "d-green",
     [["+ ", ("wrap_triton", "d-mono"), " around each launch"],
      ["adds: an operator with a schema,"],
      [("torch.ops.book.silu_mul", "d-mono"), ", with a backward from"],
      [("register_autograd", "d-mono"), "; launches the compiler sees"]]),
    ("inside a compiled model", "d-orange",
     [[("torch.compile(model, fullgraph=True)", "d-mono")],
      ["one graph, no break; Inductor launches the"],
      ["kernel itself; a CUDA graph can replay the"],
      ["launches with no Python at all"]]),
]  # fmt: skip


def draw() -> Drawing:
    d = Drawing(
        "stack-layers",
        520,
        "From a Triton kernel to an operator in a compiled model: what each layer adds",
        """Four layers, each wrapping the one before. A plain function checks its inputs
        and launches the kernel: it gives a result for valid inputs and a clear error for
        the rest, and having no backward it refuses inputs that require grad. A
        torch.autograd.Function adds the backward: the forward saves what the backward
        needs with ctx.save_for_backward, and the backward launches the backward kernels.
        torch.library.triton_op, with wrap_triton around each launch, makes the kernel an
        operator with a schema, torch.ops.book.silu_mul, whose backward is attached with
        register_autograd and whose launches the compiler can see. Inside a model compiled
        with torch.compile(model, fullgraph=True) it leaves one graph with no break,
        Inductor launches the kernel itself, and a CUDA graph can replay the launches with
        no Python at all.""",
    )
    d.text(8, 18, "From a kernel to an operator in a compiled model", 13, "d-b")
    y = 30
    for k, (title, cls, lines) in enumerate(LAYERS):
        h = 30 + 18 * len(lines)
        d.rect(8, y, 384, h, cls)
        d.text(20, y + 20, title, 13, "d-b d-mono" if "." in title else "d-b", room=360)
        for i, line in enumerate(lines):
            d.text(20, y + 40 + 18 * i, line, 12, room=360)
        y += h
        if k < len(LAYERS) - 1:
            d.arrow(200, y, 200, y + 18, "d-ln", "d-head")
            d.text(210, y + 14, "wrap it", 12, "d-t2", room=100)
            y += 18
    d.height = y + 8
    return d
