"""The GPU build script: run the book's benchmarks and write figures/data/<device>/*.json.

    python3 scripts/benchmarks.py                 # everything (what `make figures` runs)
    python3 scripts/benchmarks.py vector_add      # one or more benchmarks by name

Needs a CUDA GPU and torch + triton + numpy, nothing else. Each benchmark checks its
kernel's output against torch before timing it. Ceilings (copy bandwidth, matmul rate)
are measured first in every run and stored with each file, together with provenance.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernels.launch import launch_empty  # noqa: E402
from kernels.vector_add import vector_add  # noqa: E402
from scripts import benchlib  # noqa: E402
from scripts.benchlib import gpu_ms, host_s_per_call  # noqa: E402

DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def _inputs(n: int, dtype: torch.dtype):
    x = torch.randn(n, device="cuda", dtype=torch.float32).to(dtype)
    y = torch.randn(n, device="cuda", dtype=torch.float32).to(dtype)
    return x, y


def _check_add(out: torch.Tensor, x: torch.Tensor, y: torch.Tensor, what: str) -> None:
    # float adds are correctly rounded, and the kernel adds in fp32 then rounds once:
    # its result equals x + y computed in fp32 and rounded to the dtype, bit for bit.
    ref = (x.float() + y.float()).to(x.dtype)
    if not torch.equal(out, ref):
        raise AssertionError(f"{what}: result differs from torch")


def _adaptive_calls(ms: float, budget_s: float = 0.15) -> int:
    return int(min(2000, max(10, budget_s / (ms * 1e-3))))


# ---- vector add: time and bandwidth vs size, Triton vs torch.add ----------------------


def bench_vector_add(prov: dict, ceilings: dict) -> list[Path]:
    rows = []
    benchlib.warm_up()
    sizes = [1 << p for p in range(8, 29)]  # 256 elements .. 268M elements (3 GiB moved)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        dtype_sizes = sizes if dtype == torch.float32 else sizes[-3:]
        for n in dtype_sizes:
            x, y = _inputs(n, dtype)
            out = torch.empty_like(x)
            impls = {
                "triton": lambda: vector_add(x, y, out),
                "torch": lambda: torch.add(x, y, out=out),
            }
            for impl, fn in impls.items():
                out.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                _check_add(out, x, y, f"vector_add {impl} n={n} {dtype}")
                ms = gpu_ms(fn)
                host_s = host_s_per_call(fn, calls=_adaptive_calls(ms))
                nbytes = 3 * n * x.element_size()
                rows.append({
                    "impl": impl, "dtype": DTYPE_NAMES[dtype], "n": n, "bytes": nbytes,
                    "gpu_ms": ms, "host_us_per_call": host_s * 1e6,
                    "bytes_per_s": nbytes / (ms * 1e-3),
                })
            del x, y, out
            print(f"  vector_add {DTYPE_NAMES[dtype]:>8} n=2^{n.bit_length() - 1}: "
                  f"triton {rows[-2]['bytes_per_s'] / 1e12:.2f} TB/s, torch {rows[-1]['bytes_per_s'] / 1e12:.2f} TB/s")
    torch.cuda.empty_cache()
    roofline = []
    largest = max(r["n"] for r in rows)
    for r in rows:
        if r["impl"] == "triton" and r["n"] == largest:
            roofline.append({"kernel": f"vector add ({r['dtype']})", "lesson": "07",
                             "flops": r["n"], "bytes": r["bytes"], "seconds": r["gpu_ms"] * 1e-3})
    path = benchlib.write(
        "vector_add",
        "out = x + y with kernels/vector_add.py (BLOCK=1024, num_warps=4) and torch.add(out=), "
        "per size and dtype: device time (do_bench median, L2 flushed) and host wall time per "
        "call in a back-to-back loop. Bytes = 3 * n * element size.",
        prov, ceilings, rows, roofline)
    return [path]


# ---- launch overhead: empty Triton kernel vs torch op vs CUDA-graph replay -------------


def bench_launch_overhead(prov: dict, ceilings: dict) -> list[Path]:
    t = torch.randn(128, device="cuda")
    calls = 5000
    benchlib.warm_up()
    rows = []
    rows.append({"what": "empty Triton kernel", "key": "triton",
                 "us_per_kernel": host_s_per_call(lambda: launch_empty(t), calls) * 1e6})
    rows.append({"what": "torch op (t.add_(1))", "key": "torch",
                 "us_per_kernel": host_s_per_call(lambda: t.add_(1), calls) * 1e6})

    per_graph = 100
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            launch_empty(t)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(per_graph):
            launch_empty(t)
    replay_s = host_s_per_call(graph.replay, calls=200)
    rows.append({"what": f"CUDA graph replay ({per_graph} empty kernels)", "key": "graph",
                 "us_per_kernel": replay_s / per_graph * 1e6})
    for r in rows:
        print(f"  launch {r['key']:>6}: {r['us_per_kernel']:.2f} us per kernel")
    path = benchlib.write(
        "launch_overhead",
        "Host wall time per kernel: a loop of back-to-back launches synchronised once at the "
        "end (median of 5 loops). Triton: kernels/launch.py empty_kernel on one program; "
        "torch: t.add_(1) on 128 floats; graph: one CUDA graph of 100 empty_kernel launches, "
        "replayed, time divided by 100.",
        prov, ceilings, rows)
    return [path]


# ---- block-size sweep: vector add GB/s over BLOCK x num_warps -------------------------


def bench_block_sweep(prov: dict, ceilings: dict) -> list[Path]:
    n = 1 << 26  # 64M fp32 elements: 768 MiB moved per call, many times the L2
    x, y = _inputs(n, torch.float32)
    out = torch.empty_like(x)
    rows = []
    for num_warps in (1, 2, 4, 8, 16):
        for p in range(2, 15):  # BLOCK = 4 .. 16384
            block = 1 << p
            fn = lambda: vector_add(x, y, out, block=block, num_warps=num_warps)  # noqa: E731
            out.fill_(float("nan"))
            fn()
            torch.cuda.synchronize()
            _check_add(out, x, y, f"block sweep BLOCK={block} num_warps={num_warps}")
            ms = gpu_ms(fn, warmup=10, rep=60)
            rows.append({"block": block, "num_warps": num_warps, "n": n, "dtype": "float32",
                         "bytes": 3 * n * 4, "gpu_ms": ms, "bytes_per_s": 3 * n * 4 / (ms * 1e-3)})
        best = max(r["bytes_per_s"] for r in rows if r["num_warps"] == num_warps)
        print(f"  block sweep num_warps={num_warps}: best {best / 1e12:.2f} TB/s")
    del x, y, out
    torch.cuda.empty_cache()
    path = benchlib.write(
        "block_sweep",
        "Vector add (kernels/vector_add.py), fp32, n = 2^26, for BLOCK = 4..16384 and "
        "num_warps = 1..16: device time (do_bench median, L2 flushed). Bytes = 3 * n * 4.",
        prov, ceilings, rows)
    return [path]


BENCHMARKS = {
    "vector_add": bench_vector_add,
    "launch_overhead": bench_launch_overhead,
    "block_sweep": bench_block_sweep,
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    if not torch.cuda.is_available():
        print("make figures needs a CUDA GPU; none is visible to torch.", file=sys.stderr)
        return 2
    names = args.names or list(BENCHMARKS)

    prov = benchlib.provenance()
    print(f"device: {prov['gpu']} ({prov['device_slug']}), torch {prov['torch']}, "
          f"triton {prov['triton']}, CUDA {prov['cuda']}, driver {prov['driver']}, commit {prov['commit'][:12]}")
    ceilings = benchlib.measure_ceilings()
    path = benchlib.write(
        "ceilings",
        "Measured ceilings: device-to-device copy (bytes read + written) and torch.matmul at "
        "8192^3 on random fp16/bf16 data; do_bench median.",
        prov, ceilings, [])
    print(f"  ceilings: copy {ceilings['copy']['bytes_per_s'] / 1e12:.2f} TB/s, matmul "
          + ", ".join(f"{k} {v['flops_per_s'] / 1e12:.0f} TFLOP/s" for k, v in ceilings["matmul"].items()))
    written, failed = [path], []
    for name in names:
        print(f"{name} ...", flush=True)
        try:
            written += BENCHMARKS[name](prov, ceilings)
        except Exception:  # keep going: one broken benchmark must not lose the others' data
            traceback.print_exc()
            failed.append(name)
    for p in written:
        print(f"wrote {p.relative_to(benchlib.ROOT)}")
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
