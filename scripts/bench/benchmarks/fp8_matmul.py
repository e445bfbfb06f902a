"""Benchmarks of the FP8 matmul family (kernels/fp8_matmul.py): lesson 16.

- ``fp8_matmul``: TFLOP/s at 4096^3, 8192^3 and an LLM projection (M 4096, N 14336,
  K 4096), e4m3 operands made by ``quantize`` from normal data, bf16 out, in one
  head-to-head comparison per shape: the book's kernel with each scaling ("tensor",
  "row", "block") and, for the first two, fast accumulation on and off;
  ``torch._scaled_mm`` (cuBLASLt) with per-tensor and row-wise scales, use_fast_accum on
  and off, and with 1 x 128 / 128 x 128 block scales where this torch and GPU take them
  (else a row saying why); and cuBLAS's bf16 matmul (``torch.matmul``) on the same
  data in bf16. Each is checked against its float64 reference first.
- ``fp8_matmul_accuracy``: relative error of each FP8 variant and of bf16 against the
  float32 product of the ORIGINAL (unquantised) data, on "real-looking" activations
  (normal values with outliers, at outlier sizes from none to 10**5 times the rest, in two
  patterns: outlier tokens (whole rows) and outlier channels (a few columns in every
  row)) times normal weights (std 0.02). Error of a row: ||C_i - C_ref_i|| / ||C_ref_i||;
  a row of the data file gives the median and the 90th percentile over rows.

About 1.5 minutes on an H100 (an estimate): five kernels to compile, three shapes.
"""

from __future__ import annotations

import functools
import math
import traceback

import torch

from kernels import fp8_matmul as f8
from scripts.bench import benchlib

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096)]
QUICK_SHAPES = [(4096, 4096, 4096)]
# Ours: (scaling, fast_accum). "block" always promotes its sums every K step.
OURS = [("tensor", True), ("tensor", False), ("row", True), ("row", False), ("block", False)]
PEER_SCALINGS = [("tensor", True), ("tensor", False), ("row", True), ("row", False)]
# A correctness gate before timing, not the tests' bound (tests/kernels/test_fp8_matmul.py):
# FP8 sums on Hopper keep about 14 bits, so allow 2**-4 relative plus 2**-4 sqrt(K) (the
# size of a product of K normal terms) absolute.
RTOL_FP8 = 2**-4
RTOL_BF16 = 2**-6


def name_of(impl: str, scaling: str | None, fast_accum: bool | None) -> str:
    parts = (
        [impl]
        + ([scaling] if scaling else [])
        + ([] if fast_accum is None else ["fast" if fast_accum else "promoted"])
    )
    return "-".join(parts)


def shape_fields(m: int, n: int, k: int, elem_in: int) -> dict:
    """FLOPs = 2 M N K; bytes = A and B read once (elem_in bytes each) + bf16 C written."""
    return {
        "m": m,
        "n": n,
        "k": k,
        "flops": 2 * m * n * k,
        "bytes": (m + n) * k * elem_in + 2 * m * n,
    }


def scaled_mm(a, b, sa, sb, fast_accum: bool):
    return torch._scaled_mm(
        a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast_accum
    )


def block_peer(a, b, sa, sb):
    """torch._scaled_mm with 1 x 128 / 128 x 128 block scales, in the layout this torch
    wants, or the reason it cannot (a string)."""
    tries = (
        ("scales as quantize gives them", sa, sb),
        ("a's scales column-major", sa.t().contiguous().t(), sb),
        ("both scales column-major", sa.t().contiguous().t(), sb.t().contiguous().t()),
    )
    why = []
    for what, sa2, sb2 in tries:
        try:
            torch._scaled_mm(a, b, scale_a=sa2, scale_b=sb2, out_dtype=torch.bfloat16)
        except Exception as exc:  # noqa: BLE001 (any refusal is an answer)
            why.append(f"{what}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        return functools.partial(torch._scaled_mm, a, b, scale_a=sa2, scale_b=sb2,
                                 out_dtype=torch.bfloat16)  # fmt: skip
    return "; ".join(why)[:400]


def run(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "fp8_matmul (FP8 dot with TMA)")
    rows = []
    for m, n, k in benchlib.pick(SHAPES, QUICK_SHAPES):
        torch.manual_seed(0)
        x = torch.randn(m, k, device="cuda")
        w = torch.randn(k, n, device="cuda")
        ops = {g: (f8.quantize(x, g, "a"), f8.quantize(w, g, "b")) for g in f8.GRANULARITIES}
        xb, wb = x.bfloat16(), w.t().contiguous().bfloat16().t()  # the weight as nn.Linear holds it
        del x, w
        expected = {g: f8.reference(a, b, sa, sb) for g, ((a, sa), (b, sb)) in ops.items()}
        fp8_gate = {"exact": False, "rtol": RTOL_FP8, "atol": RTOL_FP8 * math.sqrt(k)}
        impls = []  # (row fields, function, expected, gate)
        for g, fast in OURS:
            (a, sa), (b, sb) = ops[g]
            fn = functools.partial(f8.fp8_matmul, a, b, sa, sb, scaling=g, fast_accum=fast)
            cfg = f8.plan(m, n, k, g, torch.cuda.current_device(), fast)
            fields = {"impl": "triton", "scaling": g, "fast_accum": fast,
                      "block_m": cfg["BLOCK_M"], "block_n": cfg["BLOCK_N"],
                      "block_k": cfg["BLOCK_K"], "num_warps": cfg["num_warps"],
                      "num_stages": cfg["num_stages"]}  # fmt: skip
            impls.append((fields, fn, expected[g], fp8_gate))
        for g, fast in PEER_SCALINGS:
            (a, sa), (b, sb) = ops[g]
            fn = functools.partial(scaled_mm, a, b, sa, sb, fast)
            impls.append(({"impl": "scaled_mm", "scaling": g, "fast_accum": fast}, fn,
                          expected[g], fp8_gate))  # fmt: skip
        (a, sa), (b, sb) = ops["block"]
        peer = block_peer(a, b, sa, sb)
        if isinstance(peer, str):
            why = f"torch._scaled_mm took no block scales here: {peer}"
            rows.append({"impl": "scaled_mm", "scaling": "block", **shape_fields(m, n, k, 1),
                         "skipped": why})  # fmt: skip
        else:
            impls.append(({"impl": "scaled_mm", "scaling": "block"}, peer, expected["block"],
                          fp8_gate))  # fmt: skip
        ref_bf16 = (xb.double() @ wb.double()).bfloat16()
        bf16_gate = {"exact": False, "rtol": RTOL_BF16, "atol": RTOL_BF16 * math.sqrt(k)}
        impls.append(({"impl": "cublas_bf16"}, functools.partial(torch.matmul, xb, wb),
                      ref_bf16, bf16_gate))  # fmt: skip
        first = len(rows)
        with benchlib.head_to_head():
            for fields, fn, want, gate in impls:
                row = {
                    **fields,
                    **shape_fields(m, n, k, 2 if fields["impl"] == "cublas_bf16" else 1),
                }
                name = name_of(fields["impl"], fields.get("scaling"), fields.get("fast_accum"))
                what = f"fp8_matmul {name} {m}x{n}x{k}"
                try:
                    row.update(benchlib.check_then_time(
                        fn, want, what, **gate,
                        name=name,
                    ))  # fmt: skip
                except Exception as exc:  # one broken variant keeps the rest
                    print(f"  !! {what} failed: {type(exc).__name__}: {exc}")
                    traceback.print_exc()
                    row["failure"] = f"{type(exc).__name__}: {exc}"[:400]
                rows.append(row)
        summary(rows[first:], m, n, k)
        del ops, expected, xb, wb, ref_bf16, impls
        torch.cuda.empty_cache()
    return rows


def summary(rows: list[dict], m: int, n: int, k: int) -> None:
    def key(r):
        return name_of(r["impl"], r.get("scaling"), r.get("fast_accum"))

    done = {key(r): r for r in rows if "time_s" in r}
    parts = []
    for name, r in done.items():
        parts.append(f"{name} {r['flops'] / r['time_s']['p50'] / 1e12:.0f}")
    print(f"  {m}x{n}x{k}: " + ", ".join(parts) + " TFLOP/s")
    for g, fast in PEER_SCALINGS:
        ours, theirs = done.get(name_of("triton", g, fast)), done.get(name_of("scaled_mm", g, fast))
        if ours and theirs and "vs" in ours["time_s"]:
            r = ours["time_s"]["vs"][key(theirs)]
            print(f"    triton/scaled_mm {g} {'fast' if fast else 'promoted'}: "
                  f"{r['p50']:.3f} ({r['p20']:.3f}-{r['p80']:.3f})")  # fmt: skip


# ---- accuracy ---------------------------------------------------------------------------

ACC_SHAPE = (4096, 4096, 4096)
QUICK_ACC_SHAPE = (1024, 1024, 1024)
OUTLIERS = [0.0, 1e1, 1e2, 1e3, 1e4, 1e5]  # the outliers' size over the rest's std
PATTERNS = ("tokens", "channels")
OUTLIER_ROW_EVERY = 64  # tokens: one row in 64 is an outlier row
OUTLIER_COLUMNS = 4  # channels: four fixed columns of every row are outliers
WEIGHT_STD = 0.02


def activations(m: int, k: int, pattern: str, size: float, gen: torch.Generator) -> torch.Tensor:
    """Normal activations (std 1) with outliers of ``size`` (0: none): whole rows, one in
    OUTLIER_ROW_EVERY, scaled by ``size`` ("tokens"); or OUTLIER_COLUMNS fixed columns of
    every row set to +-``size`` ("channels")."""
    x = torch.randn(m, k, device="cuda", generator=gen)
    if size == 0:
        return x
    if pattern == "tokens":
        x[::OUTLIER_ROW_EVERY] *= size
    else:
        cols = torch.randperm(k, device="cuda", generator=gen)[:OUTLIER_COLUMNS]
        x[:, cols] = size * torch.sign(x[:, cols])
    return x


def row_errors(got: torch.Tensor, ref: torch.Tensor) -> dict:
    """Median and 90th percentile over rows of ||got_i - ref_i|| / ||ref_i||."""
    err = (got.double() - ref).norm(dim=1) / ref.norm(dim=1)
    q = torch.quantile(err.float(), torch.tensor([0.5, 0.9], device=err.device))
    return {"median_rel_error": q[0].item(), "p90_rel_error": q[1].item()}


def run_accuracy(ceilings: dict) -> list[dict]:
    benchlib.require_capability(9, 0, "fp8_matmul_accuracy (FP8 dot with TMA)")
    m, n, k = ACC_SHAPE if not benchlib.quick() else QUICK_ACC_SHAPE
    rows = []
    gen = torch.Generator(device="cuda")
    for pattern in PATTERNS:
        for size in OUTLIERS:
            gen.manual_seed(0)
            x = activations(m, k, pattern, size, gen)
            w = WEIGHT_STD * torch.randn(k, n, device="cuda", generator=gen)
            ref = x.double() @ w.double()  # the float32 data's exact product
            base = {"pattern": pattern, "outlier": size, "m": m, "n": n, "k": k}
            variants = {}
            for g in f8.GRANULARITIES:
                (a, sa), (b, sb) = f8.quantize(x, g, "a"), f8.quantize(w, g, "b")
                for fast in (True, False) if g != "block" else (False,):
                    variants[("triton", g, fast)] = f8.fp8_matmul(
                        a, b, sa, sb, scaling=g, fast_accum=fast
                    )
                    if g != "block":
                        variants[("scaled_mm", g, fast)] = scaled_mm(a, b, sa, sb, fast)
            variants[("cublas_bf16", None, None)] = x.bfloat16() @ w.bfloat16()
            for (impl, g, fast), got in variants.items():
                row = {"impl": impl, **base, **row_errors(got, ref)}
                if g is not None:
                    row.update({"scaling": g, "fast_accum": fast})
                rows.append(row)
            e = {key: r for key, r in zip(variants, rows[-len(variants) :], strict=True)}
            print(f"  {pattern:8s} outlier {size:8.0e}: median row error "
                  + ", ".join(f"{name_of(*key)} {r['median_rel_error']:.4f}" for key, r in e.items()
                              if key[0] != "scaled_mm"))  # fmt: skip
            del x, w, ref, variants
    torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "fp8_matmul",
        "C (bf16) = (a_scale * A) @ (B * b_scale), A and B e4m3 from kernels/fp8_matmul.py's "
        "quantize of normal data (A row-major, B column-major), at 4096^3, 8192^3 and "
        "M 4096 x N 14336 x K 4096, timed head to head per shape (do_bench-style, L2 "
        "flushed): impl triton (fp8_matmul, scaling tensor/row/block; fast_accum true: the "
        "tensor cores' sum runs over all of K; false: promoted to float32 every K step of "
        "128; block always promotes; block_m/n/k, num_warps, num_stages from plan()); "
        "scaled_mm (torch._scaled_mm, cuBLASLt, per-tensor and row-wise scales, "
        "use_fast_accum = fast_accum; block scales where torch takes them, else a row with "
        "'skipped'); cublas_bf16 (torch.matmul on the same data in bf16). Each checked "
        "against its float64 reference first (rtol 2**-4 for FP8, 2**-6 for bf16, plus "
        "that times sqrt(K) absolute). FLOPs = 2 M N K; bytes = A, B read once + C "
        "written once.",
        run,
    ),
    benchlib.Benchmark(
        "fp8_matmul_accuracy",
        "Relative error against the float64 product of the original float32 data, of "
        "each FP8 variant (impl triton: scaling tensor/row/block, fast_accum; scaled_mm: "
        "tensor/row, use_fast_accum) and of bf16 (cublas_bf16: torch.matmul of the data "
        "rounded to bf16), for A (4096 x 4096) normal activations with outliers of size "
        "'outlier' times their std (0: none) in pattern 'tokens' (one row in 64 scaled "
        "by it) or 'channels' (4 fixed columns of every row set to +-outlier), and B "
        "normal weights of std 0.02. median_rel_error, p90_rel_error: over the rows i of "
        "C, of ||C_i - C_ref_i|| / ||C_ref_i||.",
        run_accuracy,
    ),
]
