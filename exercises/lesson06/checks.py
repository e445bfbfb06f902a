"""The checks of lesson 06's exercises."""

from __future__ import annotations

import torch

from exercises.checking import (
    DEVICE,
    Wrong,
    compare,
    compiled_ir,
    guarded,
    jit,
    launch,
    ragged,
    rand,
)


def column_sum(module) -> str:
    kernel = jit(module, "column_sum_kernel")
    block_r, block_c = 16, 32
    cases = []
    for dtype in (torch.float32, torch.float16):
        n_rows, n_cols = ragged(40, 120), ragged(20, 90)
        cases += [
            ("x", rand((n_rows, n_cols), dtype)),
            ("x.t()", rand((n_cols, n_rows), dtype).t()),
        ]
    for name, x in cases:
        n_rows, n_cols = x.shape
        out = guarded((n_cols,), torch.float32)
        grid = ((n_cols + block_c - 1) // block_c,)
        launch(kernel, grid, x, out.out, n_rows, n_cols, x.stride(0), x.stride(1),
               BLOCK_R=block_r, BLOCK_C=block_c, hint=1)  # fmt: skip
        out.check(hint=3)
        try:
            compare(out.out, x.double().sum(dim=0), "out", rtol=1e-4, atol=1e-4, hint=2,
                    unwritten_hint=1)  # fmt: skip
        except Wrong as w:
            raise Wrong(f"{w.message}, for {name} of shape {n_rows} x {n_cols}", w.hint) from None
    return f"{len(cases)} ragged shapes, contiguous and transposed, fp32 and fp16"


ROW_MIN_SIGNATURE = {
    "x_ptr": "*fp32",
    "out_ptr": "*fp32",
    "n_cols": "i32",
    "row_stride": "i32",
    "BLOCK": "constexpr",
}


def row_min(module) -> str:
    kernel = jit(module, "row_min_kernel")
    # First what the compiler sees, the same on every machine: a masked load with no
    # other= leaves the padding's value to the hardware (the interpreter happens to read 0).
    ttir = compiled_ir(module.__file__, "row_min_kernel", ROW_MIN_SIGNATURE, {"BLOCK": 64})["ttir"]
    loads = [ln.split("=", 1)[1].split(":")[0] for ln in ttir.splitlines() if "tt.load" in ln]
    if any(len(load.split(",")) == 2 for load in loads):  # tt.load ptr, mask: no other
        raise Wrong(
            "the load has a mask and no other=: its BLOCK - n_cols padding elements hold no "
            "value the language promises (the interpreter reads 0.0), and tl.min sees them all",
            hint=1,
        )
    n_rows, n_cols, block = 8, ragged(20, 60), 64
    x = rand((n_rows, n_cols))
    x[1::2] = x[1::2].abs() + 0.5  # every other row: all positive
    out = guarded((n_rows,))
    launch(kernel, (n_rows,), x, out.out, n_cols, x.stride(0), BLOCK=block, hint=2)
    out.check()
    compare(out.out, x.min(dim=1).values, "out", hint=2)
    return f"{n_rows} rows of {n_cols} in tiles of {block}, half of them all positive"


def argmin(module) -> str:
    kernel = jit(module, "row_argmin_kernel")
    n_rows, n_cols, block = 32, ragged(20, 60), 64
    x = torch.randint(-4, 3, (n_rows, n_cols)).float().to(DEVICE)  # ties in every row
    x[: n_rows // 4] = x[: n_rows // 4].abs() + 1  # some rows all positive: the padding
    mins, idx = guarded((n_rows,), what="min_out"), guarded((n_rows,), torch.int32, "idx_out")
    launch(kernel, (n_rows,), x, mins.out, idx.out, n_cols, BLOCK_N=block, hint=1)
    mins.check()
    idx.check()
    compare(idx.out, x.argmin(dim=1).to(torch.int32), "idx_out", hint=1)
    compare(mins.out, x.min(dim=1).values, "min_out", hint=2)
    return f"{n_rows} rows of {n_cols} small integers (ties everywhere), tiles of {block}"
