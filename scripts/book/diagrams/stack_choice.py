"""14 · Backward passes and production: which tool to reach for, asked in the order the
book's measurements suggest (a library where one exists, then torch.compile, then a
Triton kernel; what lies outside Triton last), with the lesson that measured each step."""

from scripts.book.diagrams.svg import Drawing

STEPS = [
    (["Does a library already do it?", "(a plain matmul, attention)"],
     ["call the library", "lessons 09, 12"], "d-blue"),
    (["Does torch.compile fuse it", "well? Try it, then measure."],
     ["torch.compile", "lessons 08, 11"], "d-green"),
    (["A fusion or a variant that no", "library has? (an epilogue, a", "deterministic backward)"],
     ["a Triton kernel", "lessons 08-12"], "d-orange"),
    (["Traffic between GPUs?"],
     ["NCCL: outside", "Triton's model"], "d-box"),
]  # fmt: skip

Q_X, Q_W = 8, 226  # question boxes
A_X, A_W = 270, 122  # answer boxes
LINE = 17


def draw() -> Drawing:
    d = Drawing(
        "stack-choice",
        400,
        "Which tool for an operation: four questions in order",
        """Four questions, asked in order; a yes leads right to a tool, a no leads down to
        the next question. Does a library already do it, such as a plain matmul or
        attention? Then call the library (lessons 09 and 12 measure how close a Triton
        kernel gets). Does torch.compile fuse it well? Try it, then measure; if so, use
        torch.compile (lessons 08 and 11). Is it a fusion or a variant that no library
        has, such as a matmul epilogue or a deterministic backward? Then write a Triton
        kernel, as lessons 08 to 12 do. Is it traffic between GPUs? That is NCCL's work,
        outside Triton's model. Below, a note: a tiny op called often costs its launch,
        whatever runs it; a CUDA graph or a lean launch path removes that cost.""",
    )
    d.text(8, 18, "Which tool for this operation?", 13, "d-b")
    y = 32
    for k, (question, answer, cls) in enumerate(STEPS):
        h = 16 + LINE * len(question)
        d.rect(Q_X, y, Q_W, h, "d-box")
        for i, line in enumerate(question):
            d.text(Q_X + 10, y + 21 + LINE * i, line, 12, room=Q_W - 16)
        ah = 16 + LINE * len(answer)
        ay = y + (h - ah) / 2
        d.arrow(Q_X + Q_W, y + h / 2, A_X, y + h / 2, "d-ln", "d-head")
        d.label((Q_X + Q_W + A_X) / 2, y + h / 2 - 6, "yes", 12, "d-t2")
        d.rect(A_X, ay, A_W, ah, cls)
        for i, line in enumerate(answer):
            d.text(A_X + 8, ay + 21 + LINE * i, line, 12, "d-b" if i == 0 else "", room=A_W - 12)
        y += h
        if k < len(STEPS) - 1:
            d.arrow(Q_X + 40, y, Q_X + 40, y + 22, "d-ln", "d-head")
            d.text(Q_X + 48, y + 16, "no", 12, "d-t2", room=40)
            y += 22
    y += 28
    d.text(8, y, "And at any step: a tiny op called often pays its launch,", 12, room=384)
    d.text(8, y + LINE, "whatever runs it; a CUDA graph or a lean launch path", 12, room=384)
    d.text(8, y + 2 * LINE, "takes that cost away.", 12, room=384)
    d.height = y + 2 * LINE + 10
    return d
