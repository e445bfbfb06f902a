"""The checks of lesson 04's exercises: each launches the reader's kernel itself."""

from __future__ import annotations

import torch

from exercises.checking import (
    Wrong,
    answer,
    book_value,
    compare,
    compiled_ir,
    guarded,
    jit,
    launch,
    ragged,
    rand,
)


def transpose(module) -> str:
    kernel = jit(module, "transpose_kernel")
    block_r, block_c = 8, 16  # unequal, so swapped block sizes show
    cases = []
    for dtype in (torch.float32, torch.float16):
        n_rows, n_cols = ragged(9, 40), ragged(17, 50)
        base = rand((n_rows, n_cols), dtype)
        wide = rand((n_rows, 2 * n_cols), dtype)
        tall = rand((n_cols, n_rows), dtype)
        cases += [("x", base), ("x[:, ::2]", wide[:, ::2]), ("x.t()", tall.t())]
    for name, x in cases:
        n_rows, n_cols = x.shape
        out = guarded((n_cols, n_rows), x.dtype)
        grid = ((n_rows + block_r - 1) // block_r, (n_cols + block_c - 1) // block_c)
        launch(
            kernel,
            grid,
            x,
            out.out,
            n_rows,
            n_cols,
            x.stride(0),
            x.stride(1),
            BLOCK_R=block_r,
            BLOCK_C=block_c,
            hint=2,
        )
        out.check(hint=3)
        try:
            compare(out.out, x.t(), "out", hint=2, unwritten_hint=1)
        except Wrong as w:
            raise Wrong(f"{w.message}, for {name} of shape {n_rows} x {n_cols}", w.hint) from None
    return f"{len(cases)} views (contiguous, sliced, transposed), ragged shapes, fp32 and fp16"


ROW_SIGNATURE = {
    "x_ptr": "*fp32",
    "w_ptr": "*fp32",
    "out_ptr": "*fp32",
    "n_cols": "i32",
    "stride_x": "i32",
    "stride_out": "i32",
    "BLOCK": "constexpr",
}


def row_offsets(module) -> str:
    kernel = jit(module, "scale_rows_kernel")
    # First: still right on tensors of every day (a fix must not break them).
    for _ in range(3):
        n_rows, n_cols = ragged(3, 20), ragged(10, 60)
        x = rand((n_rows, 2 * n_cols))[:, :n_cols]  # rows further apart than n_cols
        w = rand((n_cols,))
        out = guarded((n_rows, n_cols))
        launch(
            kernel,
            (n_rows,),
            x,
            w,
            out.out,
            n_cols,
            x.stride(0),
            out.out.stride(0),
            BLOCK=64,
            hint=2,
        )
        out.check()
        compare(out.out, x * w, "out", hint=2)
    # Then: would it wrap past 2**31 elements? Debug mode adds a check to every int32
    # multiplication that can overflow; a kernel whose offsets are int64 has none.
    ir = compiled_ir(
        module.__file__, "scale_rows_kernel", ROW_SIGNATURE, {"BLOCK": 64}, {"debug": True}
    )
    overflow = [ln for ln in ir["ttir"].splitlines() if "int32 overflow" in ln]
    if overflow:
        raise Wrong(
            f"right on small tensors, but {len(overflow)} offset multiplication(s) are int32: "
            "compiled with debug on, the kernel checks for 'int32 overflow detected for "
            "operation mul', and past 2**31 elements row * stride wraps to a negative offset",
            hint=1,
        )
    return "right on 3 ragged strided shapes, and no int32 offset product left to overflow"


def break_even(module) -> str:
    guess = answer(module, "ANSWER", hint=1)
    choices = (32, 64, 128, 256, 512, 1024)
    if guess not in choices:
        raise Wrong(f"ANSWER is {guess!r}: pick one of {', '.join(map(str, choices))}", hint=1)
    block = book_value("h100", "vector_add.break_even_block")
    want = min(c for c in choices if c >= block)
    if guess != want:
        if guess < want:
            side = "too small: starting the programs still costs more there"
        else:
            side = "a smaller power of two already moves bytes for longer than it starts programs"
        raise Wrong(f"not {guess} ({side}); C / (12 R) on our H100 is about {block:.0f}", hint=2)
    return f"C / (12 R) on our H100 is about {block:.0f}, so from {want} on the bytes cost more"
