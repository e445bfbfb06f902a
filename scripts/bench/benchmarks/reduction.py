"""Benchmarks of the reduction family (kernels/reduction.py): lesson 06.

- ``reduction``: bandwidth of the row sum and the row maximum against row width at a fixed
  tensor size far beyond the L2, fp32 and bf16, for the book's kernel and for
  ``torch.sum`` / ``torch.amax``; each row also stores its fraction of the run's measured
  copy bandwidth, and for the book's kernel the plan the wrapper picked, registers and
  spills, and what the compiled PTX holds for the final reduction (butterfly shuffles,
  barriers, shared-memory stores): the lowering lesson 06 describes, read from the GPU's
  own compile.
- ``reduction_tile``: the control for the bf16 gap at the widest rows. At 65,536 columns
  the wrapper's default tile is 1 x 4,096 elements whatever the dtype, so each loop step
  reads 16 KiB of fp32 but only 8 KiB of bf16. Here the tile is set by hand: block_n 4,096
  and 8,192 (bf16 at 8,192 reads 16 KiB per step, as fp32 does by default), each over a
  num_warps sweep, fp32 and bf16, sum and max, with torch.sum / torch.amax in the same run.
"""

from __future__ import annotations

import functools
import re

import torch

from kernels import reduction as red
from scripts.bench import benchlib

WIDTHS = [1 << p for p in range(8, 17)]  # 256 .. 65536 columns
DTYPES = {torch.float32: "float32", torch.bfloat16: "bfloat16"}
TENSOR_BYTES = 512 * 2**20  # each input: ten times an H100's L2, eight an H200's
OPS = {"sum": torch.sum, "max": torch.amax}
FP32_UNIT = 2.0**-24
# One unit in the last place of the output dtype, relative: the rounding of the fp32 result.
LAST_PLACE = {torch.float32: 2.0**-23, torch.bfloat16: 2.0**-7}
TIMING = {"warmup_ms": 10, "rep_ms": 50}  # 0.15-0.3 ms per call: a few hundred calls each
# reduction_tile: the widest rows, two tile widths (elements per loop step), a warp sweep.
TILE_COLS = WIDTHS[-1]
TILE_BLOCK_N = [4096, 8192]
TILE_WARPS = [4, 8, 16, 32]  # block_n / (32 * num_warps) <= the wrapper's 64 per thread
# PTX instructions of the final, cross-thread reduction (and the loads, for the record).
PTX_OPS = {
    "shfl": r"\bshfl\.sync\b",
    "bar_sync": r"\bbar\.sync\b",
    "st_shared": r"\bst\.shared\b",
    "ld_global_v4": r"\bld\.global(?:\.\w+)*\.v4\b",
}


def ptx_counts(ptx: str) -> dict[str, int]:
    """How many of each PTX_OPS instruction the compiled kernel holds."""
    return {name: len(re.findall(pattern, ptx)) for name, pattern in PTX_OPS.items()}


def compiled(fn) -> object | None:
    """Run ``fn`` once with row_reduce_kernel captured; the compiled kernel it launched."""
    cap = benchlib.Capture(red.row_reduce_kernel)
    red.row_reduce_kernel = cap
    try:
        fn()
    finally:
        red.row_reduce_kernel = cap.kernel
    return cap.compiled


def tolerance(x: torch.Tensor, op: str) -> dict:
    """check_then_time's tolerance: a maximum is exact; a sum may differ from the float64
    sum rounded to the dtype by any fp32 summation order's error, (n - 1) * 2**-24 *
    sum|x| (the largest over the rows), plus one unit in the dtype's last place."""
    if op == "max":
        return {"exact": True}
    worst = x.abs().sum(dim=1, dtype=torch.float64).max().item()
    return {
        "exact": False,
        "rtol": LAST_PLACE[x.dtype],
        "atol": (x.shape[1] - 1) * FP32_UNIT * worst,
    }


def run_widths(ceilings: dict) -> list[dict]:
    copy = ceilings["copy"]["bytes"] / ceilings["copy"]["time_s"]["p50"]
    rows = []
    benchlib.warm_up()
    for dtype, dname in DTYPES.items():
        for n_cols in WIDTHS:
            n_rows = TENSOR_BYTES // (n_cols * dtype.itemsize)
            # randn, never zeros: a kernel that skips a tile must change the answer.
            x = torch.randn(n_rows, n_cols, device="cuda").to(dtype)
            out = torch.empty(n_rows, device="cuda", dtype=dtype)
            plan = red.plan(n_rows, n_cols)
            for op, torch_op in OPS.items():
                expected = red.reference(x, op)
                tol = tolerance(x, op)
                impls = {
                    "triton": functools.partial(red.row_reduce, x, op, out),
                    "torch": functools.partial(torch_op, x, 1, out=out),
                }
                found = []
                with benchlib.head_to_head():  # checked, then timed in turn: A B A B ...
                    for impl, fn in impls.items():
                        what = f"{impl} {op} {dname} {n_rows}x{n_cols}"
                        size = (n_rows * n_cols + n_rows) * dtype.itemsize  # read x, write out
                        row = timed_row(fn, expected, what, out, tol, copy, size, name=impl,
                                        impl=impl, op=op, dtype=dname, rows=n_rows,
                                        cols=n_cols)  # fmt: skip
                        if impl == "triton":
                            kernel = compiled(fn)
                            row["block_m"], row["block_n"], row["num_warps"] = plan
                            row.update(benchlib.kernel_resources(kernel))
                            row["ptx"] = ptx_counts(kernel.asm["ptx"])
                        found.append(row)
                for row in found:  # timed now
                    row["copy_fraction"] = row["bytes"] / row["time_s"]["p50"] / copy
                rows += found
                del expected
            del x, out
            torch.cuda.empty_cache()
            mine = [r for r in rows if (r["dtype"], r["cols"]) == (dname, n_cols)]
            print(
                f"  {dname:>8} cols={n_cols:>5}: "
                + ", ".join(f"{r['impl']} {r['op']} {r['copy_fraction']:.0%}" for r in mine)
                + " of copy"
            )
    return rows


def timed_row(fn, expected, what, out, tol, copy, size, name=None, **fields) -> dict:
    """Check ``fn`` against ``expected``, time it, and return its row: ``fields`` (impl, op,
    dtype, rows, cols), its ``bytes`` (``size``), the timing and its share of copy bandwidth
    (``copy``, bytes per second). With ``name``, inside ``benchlib.head_to_head``: the
    timing is noted, and the share is left for the caller to add once it is timed."""
    timing = benchlib.check_then_time(fn, expected, what, out=out, **tol, **TIMING, name=name)
    row = {**fields, "bytes": size, **timing}
    if timing["time_s"]:  # timed at once
        row["copy_fraction"] = size / timing["time_s"]["p50"] / copy
    return row


def run_tiles(ceilings: dict) -> list[dict]:
    copy = ceilings["copy"]["bytes"] / ceilings["copy"]["time_s"]["p50"]
    rows = []
    benchlib.warm_up()
    for dtype, dname in DTYPES.items():
        n_cols = TILE_COLS
        n_rows = TENSOR_BYTES // (n_cols * dtype.itemsize)
        x = torch.randn(n_rows, n_cols, device="cuda").to(dtype)
        out = torch.empty(n_rows, device="cuda", dtype=dtype)
        size = (n_rows * n_cols + n_rows) * dtype.itemsize  # read x, write out
        for op, torch_op in OPS.items():
            expected = red.reference(x, op)
            tol = tolerance(x, op)
            timed = [("torch", None, None, functools.partial(torch_op, x, 1, out=out))]
            for block_n in TILE_BLOCK_N:
                for num_warps in benchlib.pick(TILE_WARPS, TILE_WARPS[:1]):
                    fn = functools.partial(
                        red.row_reduce, x, op, out, block_n=block_n, num_warps=num_warps
                    )
                    timed.append(("triton", block_n, num_warps, fn))
            found = []
            with benchlib.head_to_head():  # torch and every tile in turn
                for impl, block_n, num_warps, fn in timed:
                    what = f"tile {impl} {op} {dname} {n_rows}x{n_cols} {block_n} {num_warps}"
                    name = impl if block_n is None else f"{impl}_{block_n}_{num_warps}"
                    row = timed_row(fn, expected, what, out, tol, copy, size, name=name,
                                    impl=impl, op=op, dtype=dname, rows=n_rows,
                                    cols=n_cols)  # fmt: skip
                    if impl == "triton":
                        block_m, _, _ = red.plan(
                            n_rows, n_cols, block_n=block_n, num_warps=num_warps
                        )
                        row.update(
                            {
                                "block_m": block_m,
                                "block_n": block_n,
                                "num_warps": num_warps,
                                "step_bytes": block_m * block_n * dtype.itemsize,
                                **benchlib.kernel_resources(compiled(fn)),
                            }
                        )
                    found.append(row)
            for row in found:
                row["copy_fraction"] = row["bytes"] / row["time_s"]["p50"] / copy
                impl, block_n, num_warps = row["impl"], row.get("block_n"), row.get("num_warps")
                rows.append(row)
                print(
                    f"  {dname:>8} {op} {impl:>6} block_n={block_n} warps={num_warps}: "
                    f"{row['copy_fraction']:.1%} of copy"
                )
            del expected
        del x, out
        torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "reduction",
        "Row sum and row maximum of an (rows x cols) tensor of 512 MiB, for cols = 256..65536 "
        "(powers of two), float32 and bfloat16. impl triton: kernels/reduction.py "
        "(row_reduce, the wrapper's default plan: block_m, block_n, num_warps); torch: "
        "torch.sum / torch.amax over dim 1 with out=. Each is checked against the float64 "
        "reference first (the maximum exactly; the sum within (cols - 1) * 2^-24 * max row "
        "sum|x| plus one unit of the dtype), then timed with do_bench (L2 flushed). Bytes: "
        "(rows * cols + rows) * element size (read x, write one value per row). "
        "copy_fraction: bandwidth over this run's copy ceiling (bytes read + written per "
        "second). n_regs, n_spills: registers per thread and spilled registers of the "
        "compiled Triton kernel; ptx: how many butterfly shuffles (shfl.sync), barriers "
        "(bar.sync), shared-memory stores (st.shared) and 128-bit global loads its PTX holds.",
        run_widths,
    ),
    benchlib.Benchmark(
        "reduction_tile",
        "Row sum and row maximum of a 512 MiB tensor at 65,536 columns, float32 and "
        "bfloat16, with the tile set by hand: kernels/reduction.py's row_reduce with block_n "
        "= 4096 and 8192 and num_warps = 4, 8, 16, 32 (block_m as the wrapper's plan picks "
        "it, 1 here), and torch.sum / torch.amax over dim 1 in the same run. step_bytes: "
        "bytes one program reads per loop step, block_m * block_n * element size. Checked "
        "and timed as the reduction benchmark is (do_bench, L2 flushed); bytes and "
        "copy_fraction as there; n_regs, n_spills of the compiled Triton kernel.",
        run_tiles,
    ),
]
