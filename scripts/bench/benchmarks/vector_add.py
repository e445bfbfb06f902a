"""Benchmarks of the vector-add family (kernels/vector_add.py): lessons 03, 04 and 07.

- ``vector_add``: time and bandwidth against size, Triton against ``torch.add``, with the
  host time per call (what a small call really costs).
- ``vector_add_block_sweep``: bandwidth over BLOCK x num_warps at one large size, with
  each compiled kernel's registers and spills, and an empty kernel on the same grid as a
  control.
- ``vector_add_ragged``: n divisible by 16 or not, with the load widths in the PTX.
- ``vector_add_streams``: at the largest size, the add against controls that move bytes
  one way only: a fill that only writes and a read that (almost) only reads, Triton
  (kernels/vector_add.py's controls) and torch, and torch's copy, all in one run.

In ``vector_add`` each fp32 size also times an empty Triton launch's host cost right
after the pair (``empty_host_s``): a control for the host's own speed at that moment, so
that a step in the host-time lines can be told apart from a change in the host.
"""

from __future__ import annotations

import functools

import torch

from kernels import vector_add as va
from kernels.launch import empty_kernel, launch_empty
from scripts.bench import benchlib

DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
SIZES = [1 << p for p in range(8, 29)]  # 256 .. 268M elements (3 GiB moved in fp32)
SWEEP_N = 1 << 26  # 64M fp32 elements: 768 MiB moved per call, many times the L2
SWEEP_BLOCKS = [1 << p for p in range(2, 15)]  # 4 .. 16384
SWEEP_WARPS = [1, 2, 4, 8, 16]
RAGGED_N = 1 << 28  # and RAGGED_N - 1: a multiple of 16, and one that is not
# Quick mode (measure.py --quick): five fp32 sizes and the largest of them in fp16/bf16;
# the block sweep at four blocks and one warp count.
QUICK_SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 24, 1 << 26]
QUICK_BLOCKS, QUICK_WARPS = [64, 256, 1024, 4096], [4]
EMPTY_CALLS = 2000  # the empty-launch control's loop, beside each fp32 size
STREAMS_N = SIZES[-1]
FILL_VALUE = 1.25  # exact in every float format


def inputs(n: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    # randn in fp32, then rounded: never zeros, which would hide unwritten outputs
    x = torch.randn(n, device="cuda").to(dtype)
    y = torch.randn(n, device="cuda").to(dtype)
    return x, y


def run_sizes(ceilings: dict) -> list[dict]:
    rows = []
    tiny = torch.empty(128, device="cuda")  # the empty launch's argument
    benchlib.warm_up()
    for dtype, dname in DTYPES.items():
        sizes = benchlib.pick(SIZES, QUICK_SIZES)
        for n in sizes if dtype == torch.float32 else benchlib.pick(SIZES[-3:], sizes[-1:]):
            # --8<-- [start:sizes]
            x, y = inputs(n, dtype)  # fresh random data, never zeros
            out = torch.empty_like(x)
            expected = va.reference(x, y)
            impls = {
                "triton": functools.partial(va.vector_add, x, y, out),
                "torch": functools.partial(torch.add, x, y, out=out),
            }
            with benchlib.head_to_head():  # timed in turn when the block ends: A B A B ...
                for impl, fn in impls.items():
                    # NaN-fill out, run once, compare with the reference; then the timing:
                    # device time per call (spread over repetitions), host time per call,
                    # and per round the ratio to the other impl's time.
                    timing = benchlib.check_then_time(
                        fn, expected, f"vector_add {impl} n={n} {dname}", out=out, host=True,
                        name=impl,
                    )  # fmt: skip
                    rows.append(
                        {
                            "impl": impl,
                            "dtype": dname,
                            "n": n,
                            "bytes": 3 * n * x.element_size(),  # read x, read y, write out
                            **timing,
                        }
                    )
            # --8<-- [end:sizes]
            if dtype == torch.float32:  # the host's speed now: an empty launch, same loop
                rows[-2]["empty_host_s"] = benchlib.host_time(
                    functools.partial(launch_empty, tiny), calls=EMPTY_CALLS
                )
            del x, y, out, expected
            t, p = rows[-2], rows[-1]
            print(
                f"  {dname:>8} n=2^{n.bit_length() - 1}: triton "
                f"{t['bytes'] / t['time_s']['p50'] / 1e12:.2f} TB/s, torch "
                f"{p['bytes'] / p['time_s']['p50'] / 1e12:.2f} TB/s"
            )
    torch.cuda.empty_cache()
    return rows


def compiled(kernel, grid, *args, **meta):
    """Launch ``kernel`` once and return Triton's compiled object (registers, spills, PTX).
    The launch is what fills the cache; the wrapper's own launches then reuse it."""
    return kernel[grid](*args, **meta)


def run_block_sweep(ceilings: dict) -> list[dict]:
    x, y = inputs(SWEEP_N, torch.float32)
    out = torch.empty_like(x)
    expected = va.reference(x, y)
    rows = []
    for num_warps in benchlib.pick(SWEEP_WARPS, QUICK_WARPS):
        for block in benchlib.pick(SWEEP_BLOCKS, QUICK_BLOCKS):
            fn = functools.partial(va.vector_add, x, y, out, block=block, num_warps=num_warps)
            timing = benchlib.check_then_time(
                fn,
                expected,
                f"block sweep BLOCK={block} num_warps={num_warps}",
                out=out,
                warmup_ms=10,
                rep_ms=60,
            )
            grid = ((SWEEP_N + block - 1) // block,)
            add = compiled(
                va.add_kernel, grid, x, y, out, SWEEP_N, BLOCK=block, num_warps=num_warps
            )
            # Control: a kernel that does nothing, launched with the same grid and warps.
            # If the add takes as long as this, starting programs is the limit, not memory.
            empty = functools.partial(
                empty_kernel[grid], x, SWEEP_N, BLOCK=block, num_warps=num_warps
            )
            rows.append(
                {
                    "block": block,
                    "num_warps": num_warps,
                    "n": SWEEP_N,
                    "dtype": "float32",
                    "bytes": 3 * SWEEP_N * 4,
                    **timing,
                    **benchlib.kernel_resources(add),
                    "empty_time_s": benchlib.device_time(empty, warmup_ms=10, rep_ms=60),
                }
            )
        best = max(r["bytes"] / r["time_s"]["p50"] for r in rows if r["num_warps"] == num_warps)
        print(f"  num_warps={num_warps}: best {best / 1e12:.2f} TB/s")
    del x, y, out, expected
    torch.cuda.empty_cache()
    return rows


def run_ragged(ceilings: dict) -> list[dict]:
    """Same kernel, n divisible by 16 or not: Triton specialises an integer argument that
    is a multiple of 16, and only then can it prove whole 16-byte vectors lie inside the
    mask. The PTX of each compiled version is read for the widths of its loads."""
    rows = []
    with benchlib.head_to_head():  # both sizes checked, then timed in turn
        for n in (RAGGED_N, RAGGED_N - 1):
            x, y = inputs(n, torch.float32)
            out = torch.empty_like(x)
            fn = functools.partial(va.vector_add, x, y, out)
            timing = benchlib.check_then_time(
                fn, va.reference(x, y), f"ragged n={n}", out=out, name=f"n={n}"
            )
            kernel = compiled(va.add_kernel, ((n + 1023) // 1024,), x, y, out, n, BLOCK=1024)
            rows.append(
                {
                    "n": n,
                    "dtype": "float32",
                    "bytes": 3 * n * 4,
                    "divisible_by_16": n % 16 == 0,
                    "ptx_loads": benchlib.ptx_loads(kernel.asm["ptx"]),
                    **timing,
                }
            )
            del x, y, out  # the call keeps its tensors until it is timed
    for r in rows:
        print(f"  n={r['n']}: {r['ptx_loads']}, {r['bytes'] / r['time_s']['p50'] / 1e12:.2f} TB/s")
    torch.cuda.empty_cache()
    return rows


def run_streams(ceilings: dict) -> list[dict]:
    """The add against one-way streams at the largest size, fp32: bytes read and written
    per second for an add (2 reads per write), a copy (1 per write), a read-only tile
    maximum and a write-only fill, each checked first."""
    n = benchlib.pick(STREAMS_N, QUICK_SIZES[-1])
    x, y = inputs(n, torch.float32)
    out = torch.empty_like(x)
    programs = (n + 1023) // 1024  # launch_read's default block
    tile_max = torch.empty(programs, device="cuda")
    whole_max = torch.empty(1, device="cuda")
    e = x.element_size()
    # (stream, impl, fn, its output, expected, bytes read, bytes written)
    streams = [
        ("add", "triton", functools.partial(va.vector_add, x, y, out), out,
         va.reference(x, y), 2 * n * e, n * e),
        ("add", "torch", functools.partial(torch.add, x, y, out=out), out,
         va.reference(x, y), 2 * n * e, n * e),
        ("copy", "torch", functools.partial(out.copy_, x), out, x, n * e, n * e),
        ("read", "triton", functools.partial(va.launch_read, x, tile_max), tile_max,
         va.reference_read(x), n * e, programs * 4),
        ("read", "torch", functools.partial(torch.amax, x.view(1, n), 1, out=whole_max),
         whole_max, va.reference_read(x, n), n * e, 4),
        ("fill", "triton", functools.partial(va.launch_fill, out, FILL_VALUE), out,
         va.reference_fill(out, FILL_VALUE), 0, n * e),
        ("fill", "torch", functools.partial(out.fill_, FILL_VALUE), out,
         va.reference_fill(out, FILL_VALUE), 0, n * e),
    ]  # fmt: skip
    rows = []
    with benchlib.head_to_head():  # the impls of each stream timed in turn
        for stream, impl, fn, result, expected, reads, writes in streams:
            timing = benchlib.check_then_time(
                fn, expected, f"{stream} {impl} n={n}", out=result, name=impl, among=stream
            )
            rows.append(
                {
                    "stream": stream,
                    "impl": impl,
                    "dtype": "float32",
                    "n": n,
                    "reads": reads,
                    "writes": writes,
                    "bytes": reads + writes,
                    **timing,
                }
            )
    for r in rows:
        print(
            f"  {r['stream']:>4} {r['impl']:>6}: {r['bytes'] / r['time_s']['p50'] / 1e12:.2f} TB/s"
        )
    del x, y, out, tile_max, whole_max
    torch.cuda.empty_cache()
    return rows


BENCHMARKS = [
    benchlib.Benchmark(
        "vector_add",
        "out = x + y with kernels/vector_add.py (BLOCK=1024, num_warps=4) and "
        "torch.add(out=), per size and dtype: device time per call (as do_bench: L2 flushed; "
        "percentiles over repetitions) and host wall time per call in back-to-back loops "
        "(percentiles over loops), the two impls timed in turn, with vs: per round, the "
        "other's time over this one's. Bytes = 3 * n * element size. empty_host_s (fp32 Triton "
        f"rows): host time per call of an empty Triton launch (kernels/launch.py) in loops "
        f"of {EMPTY_CALLS}, taken right after that size's pair: the host's speed at that moment.",
        run_sizes,
    ),
    benchlib.Benchmark(
        "vector_add_block_sweep",
        "Vector add (kernels/vector_add.py), fp32, n = 2^26, for BLOCK = 4..16384 and "
        "num_warps = 1..16: device time (do_bench, L2 flushed). Bytes = 3 * n * 4.",
        run_block_sweep,
    ),
    benchlib.Benchmark(
        "vector_add_ragged",
        "Vector add (kernels/vector_add.py, BLOCK=1024, num_warps=4), fp32, n = 2^28 and "
        "2^28 - 1: device time (as do_bench: L2 flushed; the two sizes in turn, with vs, the "
        "per-round ratio) and the global-load instructions in "
        "the PTX Triton compiled for each (n divisible by 16 or not). Bytes = 3 * n * 4.",
        run_ragged,
    ),
    benchlib.Benchmark(
        "vector_add_streams",
        "fp32, n = 2^28 (quick: 2^26), one run: the add (kernels/vector_add.py's "
        "vector_add, and torch.add) against streams that move bytes one way: read, "
        "kernels/vector_add.py's launch_read (each program loads 1024 elements and keeps "
        "their maximum) and torch.amax over all of x; fill, launch_fill and "
        "Tensor.fill_(1.25); and copy, Tensor.copy_. Each checked exactly against its "
        "reference, then device time (as do_bench: L2 flushed; the impls of each stream in "
        "turn, with vs). reads / writes: bytes read "
        "and written per call; bytes = reads + writes.",
        run_streams,
    ),
]
