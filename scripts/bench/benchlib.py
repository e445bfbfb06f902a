"""The benchmark harness: what every benchmark module under scripts/bench/benchmarks/ uses.

Needs only torch, triton and numpy, so it runs on a GPU box as it comes.

- ``Benchmark``: a name, a description and a function that returns rows. A family's
  module lists its benchmarks in ``BENCHMARKS``; scripts/bench/measure.py finds the module,
  runs the benchmarks and stamps every file with provenance and the run's ceilings.
- ``check_then_time``: poison the output, run once, synchronise, compare with the
  family's ``reference()``, and only then time. No benchmark repeats that by hand.
- ``device_time`` / ``host_time``: the spread of a measurement, not just its median:
  20th, 50th and 80th percentiles over the repetitions, and how many there were.
  Times are in seconds everywhere.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import torch
import triton

from scripts.bench import sources

SCHEMA_VERSION = 2
ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "figures" / "data"
PERCENTILES = (20, 50, 80)

Row = dict
Spread = dict  # {"p20": s, "p50": s, "p80": s, "reps": int}, seconds


@dataclass(frozen=True)
class Benchmark:
    """One data file per device: ``figures/data/<device>/<name>.json``.

    ``run(ceilings)`` returns the rows (``ceilings`` is this run's measured ceilings, for
    benchmarks that size themselves by them). The file holds measurements only: which rows
    a page draws, and where (a roofline point, say), is chosen at build time by the figure
    module (figures/F.py).
    """

    name: str
    description: str
    run: Callable[[dict], list[Row]]


# ---- quick mode and skips ----------------------------------------------------------------

QUICK_ENV = "BOOK_QUICK"


def quick() -> bool:
    """True in quick mode (``measure.py --quick``, ``make figures QUICK=1``): the runner sets
    BOOK_QUICK=1 before it imports any benchmark module, and a module MAY then time fewer
    sizes. Quick data is marked ``"quick": true`` in its provenance and written apart from
    the full data (figures/data-quick/), so it never replaces it."""
    return os.environ.get(QUICK_ENV) == "1"


def pick(full, quick_subset):
    """``quick_subset`` in quick mode, else ``full``: how a module shrinks a size list,
    read when the benchmark runs (``for n in benchlib.pick(SIZES, QUICK_SIZES)``)."""
    return quick_subset if quick() else full


class Skip(Exception):
    """Raised by a benchmark that cannot run on this GPU at all (say, TMA before compute
    capability 9.0). The runner prints the reason, writes no file for it and goes on; it
    is not a failure. A benchmark that can run in part records the rest as rows with a
    ``skipped`` (or ``failure``) field saying why, and the runner counts those."""


def require_capability(major: int, minor: int, what: str) -> None:
    """Raise Skip unless the current GPU has compute capability >= ``major.minor``."""
    have = torch.cuda.get_device_capability(torch.cuda.current_device())
    if tuple(have) < (major, minor):
        raise Skip(
            f"{what} needs compute capability {major}.{minor} or newer; "
            f"this GPU has {have[0]}.{have[1]}"
        )


# ---- provenance -------------------------------------------------------------------------


def device_slug(name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'h100-80gb-hbm3': the folder name under figures/data."""
    name = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _run(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=ROOT)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def git_commit() -> dict:
    """The commit the numbers belong to. BOOK_COMMIT overrides (for copies without .git)."""
    commit = os.environ.get("BOOK_COMMIT") or _run(["git", "rev-parse", "HEAD"]) or "unknown"
    dirty_env = os.environ.get("BOOK_DIRTY")
    if dirty_env is not None:
        dirty = dirty_env == "1"
    else:
        dirty = bool(_run(["git", "status", "--porcelain", "--", "kernels", "scripts"]))
    return {"commit": commit, "dirty": dirty}


CLOCK_FIELDS = {
    "sm_mhz": "clocks.sm",
    "sm_max_mhz": "clocks.max.sm",
    "mem_mhz": "clocks.mem",
    "mem_max_mhz": "clocks.max.mem",
    "power_draw_w": "power.draw",
    "power_limit_w": "power.limit",
    "temperature_c": "temperature.gpu",
}


def parse_clocks(line: str) -> dict | None:
    """One line of ``nvidia-smi --query-gpu=<CLOCK_FIELDS> --format=csv,noheader,nounits``."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != len(CLOCK_FIELDS):
        return None
    clocks = {}
    for key, text in zip(CLOCK_FIELDS, parts, strict=True):
        try:
            clocks[key] = float(text)
        except ValueError:  # "[N/A]" on parts that do not report it
            clocks[key] = None
    return clocks


def read_clocks(index: int = 0) -> dict | None:
    """SM and memory clocks, power and temperature now, from nvidia-smi; None without it.

    Read at the start of a run (the GPU is usually idle, so the SM clock is low) and
    again right after each benchmark (under load): a throttled run shows up as an SM
    clock well under its maximum in the second reading."""
    query = ",".join(CLOCK_FIELDS.values())
    out = _run(
        ["nvidia-smi", f"--id={index}", f"--query-gpu={query}", "--format=csv,noheader,nounits"]
    )
    return parse_clocks(out.splitlines()[0]) if out else None


def provenance() -> dict:
    import numpy

    index = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    driver = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    return {
        "gpu": props.name,
        "device_slug": device_slug(props.name),
        "sm_count": props.multi_processor_count,
        "compute_capability": f"{props.major}.{props.minor}",
        "memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", 0),
        "driver": driver.splitlines()[0] if driver else "unknown",
        "cuda": torch.version.cuda or "unknown",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "clocks_at_start": read_clocks(index),
        **git_commit(),
    }


# ---- timing -----------------------------------------------------------------------------


def spread(samples_s: list[float]) -> Spread:
    """20th, 50th and 80th percentiles (nearest rank) of ``samples_s`` and their count."""
    if not samples_s:
        raise ValueError("spread of no samples")
    s = sorted(samples_s)
    pick = {p: s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))] for p in PERCENTILES}
    return {"p20": pick[20], "p50": pick[50], "p80": pick[80], "reps": len(s)}


# --8<-- [start:device_time]
def device_time(fn: Callable[[], object], warmup_ms: int = 25, rep_ms: int = 100) -> Spread:
    """Device time of one call: triton's do_bench (CUDA events around each call, the L2
    flushed before each, a warm-up first), every repetition kept for the spread."""
    times_ms = triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="all")
    return spread([t * 1e-3 for t in times_ms])


# --8<-- [end:device_time]
def graph_time(fn: Callable[[], object], calls: int = 20, repeats: int = 25) -> Spread:
    """GPU time of one call with the host taken out: ``calls`` calls captured in one CUDA
    graph, the graph replayed ``repeats`` times between CUDA events, one sample per replay
    (its time / calls). The L2 is not flushed between the calls inside a replay, so this
    suits problems that fit in the L2 anyway: the control for sizes where do_bench's
    events would time the host's launch path rather than the GPU."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # warm-up off the default stream, as capture requires
        fn()
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e-3 / calls)
    del graph
    return spread(samples)


def host_time(fn: Callable[[], object], calls: int, repeats: int = 7) -> Spread:
    """Host wall time per call: loops of ``calls`` back-to-back calls, each loop
    synchronised once at its end; one sample per loop. For tiny kernels this is the cost
    of a launch, since the GPU finishes each kernel before the host issues the next."""
    for _ in range(min(calls, 50)):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / calls)
    return spread(samples)


def calls_for(time_s: Spread, budget_s: float = 0.15) -> int:
    """How many back-to-back calls fit a host-timing loop of about ``budget_s``."""
    return int(min(2000, max(10, budget_s / time_s["p50"])))


def check(
    got: torch.Tensor,
    expected: torch.Tensor,
    what: str,
    *,
    exact: bool,
    rtol: float = 0.0,
    atol: float = 0.0,
) -> None:
    if got.shape != expected.shape or got.dtype != expected.dtype:
        raise AssertionError(
            f"{what}: got {got.dtype}{tuple(got.shape)}, "
            f"expected {expected.dtype}{tuple(expected.shape)}"
        )
    if exact:
        if not torch.equal(got, expected):
            bad = (got != expected).sum().item()
            raise AssertionError(f"{what}: {bad} elements differ from the reference")
    else:
        torch.testing.assert_close(
            got, expected, rtol=rtol, atol=atol, msg=lambda m: f"{what}: {m}"
        )


def check_then_time(
    fn: Callable[[], object],
    expected: torch.Tensor,
    what: str,
    *,
    out: torch.Tensor | None = None,
    exact: bool = True,
    rtol: float = 0.0,
    atol: float = 0.0,
    host: bool = False,
    warmup_ms: int = 25,
    rep_ms: int = 100,
) -> dict:
    """Check ``fn`` against ``expected`` (from the family's ``reference()``), then time it.

    ``out``: the buffer ``fn`` writes; it is filled with NaN first so that an element
    the kernel skips cannot pass. Without ``out``, ``fn``'s return value is checked.
    Returns ``{"time_s": spread}`` and, with ``host=True``, ``"host_s"`` too."""
    if out is not None:
        out.fill_(float("nan"))
    result = fn()
    torch.cuda.synchronize()
    check(out if out is not None else result, expected, what, exact=exact, rtol=rtol, atol=atol)
    timing = {"time_s": device_time(fn, warmup_ms=warmup_ms, rep_ms=rep_ms)}
    if host:
        timing["host_s"] = host_time(fn, calls=calls_for(timing["time_s"]))
    return timing


# ---- what the compiler made --------------------------------------------------------------


def kernel_resources(compiled) -> dict:
    """Registers per thread and spilled registers of a compiled Triton kernel (what a
    launch returns); None where this triton does not report them."""
    return {
        "n_regs": getattr(compiled, "n_regs", None),
        "n_spills": getattr(compiled, "n_spills", None),
    }


def ptx_loads(ptx: str) -> dict[str, int]:
    """How many global loads of each kind the PTX holds, e.g. {"ld.global.v4.b32": 2}."""
    counts: dict[str, int] = {}
    for op in re.findall(r"\bld\.global[\w.:]*", ptx):
        counts[op] = counts.get(op, 0) + 1
    return counts


class Capture:
    """Stands in for a ``@triton.jit`` (or autotuned) kernel and keeps what its launches
    return: the compiled kernel. Install it on the kernel's module for one call of the
    wrapper, then put the kernel back (``captured`` does both)."""

    def __init__(self, kernel):
        self.kernel, self.compiled = kernel, None

    def __getitem__(self, grid):
        def launch(*args, **meta):
            self.compiled = self.kernel[grid](*args, **meta)
            return self.compiled

        return launch


def captured(fn: Callable[[], object], module, *names: str) -> dict:
    """Run ``fn`` once with the named kernels of ``module`` captured; the registers and
    spills of the first of them that launched."""
    captures = {name: Capture(getattr(module, name)) for name in names}
    for name, cap in captures.items():
        setattr(module, name, cap)
    try:
        fn()
    finally:
        for name, cap in captures.items():
            setattr(module, name, cap.kernel)
    launched = [c.compiled for c in captures.values() if c.compiled is not None]
    return kernel_resources(launched[0] if launched else None)


# ---- what a call launches -----------------------------------------------------------------

KERNEL_NAME_CHARS = 200  # a CUDA kernel's name spells out its template arguments: keep the start


def cuda_kernels(fn: Callable[[], object]) -> list[str] | None:
    """The CUDA kernels one call of ``fn`` launches, by name, in launch order (memory
    copies and memsets left out), from torch.profiler's activity records: CUPTI tracing,
    which needs no hardware counters. None if the profiler cannot run here (or saw none)."""
    try:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities) as prof:
            fn()
            torch.cuda.synchronize()
        cuda = torch.autograd.DeviceType.CUDA
        events = [e for e in prof.events() if e.device_type == cuda]
        events.sort(key=lambda e: e.time_range.start)
        names = [
            e.name[:KERNEL_NAME_CHARS]
            for e in events
            if not e.name.startswith(("Memcpy", "Memset"))
        ]
        return names or None
    except Exception as exc:  # noqa: BLE001 - a profiler that cannot run is reported, not fatal
        print(f"    kernel names skipped: {exc!r}")
        return None


def warm_up(seconds: float = 1.0) -> None:
    """Keep host and GPU busy with small launches for a while before timing small sizes.

    Without it, the first small-size measurements after a heavy phase (the matmul
    ceilings) came out up to twice as slow as the same sizes a second later (seen on an
    H200, 2026-11-26), which looks like clocks settling, not like the kernel."""
    t = torch.empty(1 << 16, device="cuda")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(100):
            t.add_(1.0)
        torch.cuda.synchronize()


# ---- ceilings ---------------------------------------------------------------------------


def measure_ceilings() -> dict:
    """The device's own roofs, measured (never quoted): copy bandwidth and matmul rate."""
    n = 1 << 28  # 1 GiB of fp32 each way: far beyond any L2
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    copy = check_then_time(functools.partial(dst.copy_, src), src, "copy ceiling", out=dst)
    del src, dst

    matmul = {}
    size = 8192
    for dtype in (torch.float16, torch.bfloat16):
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        c = a @ b
        ref = a[:64].float() @ b.float()
        err = (c[:64].float() - ref).norm() / ref.norm()
        assert err < 1e-2, f"matmul check failed ({dtype}: rel err {err:.2e})"
        t = device_time(functools.partial(torch.matmul, a, b, out=c), rep_ms=300)
        matmul[str(dtype).replace("torch.", "")] = {
            "m": size,
            "n": size,
            "k": size,
            "flops": 2 * size**3,
            "time_s": t,
        }
        del a, b, c
    torch.cuda.empty_cache()
    return {
        "copy": {"elements": n, "dtype": "float32", "bytes": 2 * n * 4, **copy},
        "matmul": matmul,
        "fma_fp32": measure_fma_fp32(),
    }


def ptx_fmas(ptx: str) -> int:
    """How many fp32 fused multiply-adds (``fma.rn.f32``) the PTX holds."""
    return len(re.findall(r"\bfma\.rn\.f32\b", ptx))


def measure_fma_fp32(iters: int = 256, block: int = 1024, num_warps: int = 4) -> dict:
    """The fp32 CUDA-core roof: kernels/ceilings.py's FMA chains on 128 tiles per SM.

    Each element runs ``iters * UNROLL`` dependent FMAs (2 FLOPs each) on registers;
    inputs are small nonzero integers and the scale is 1, so the result is exactly
    ``(1 + iters * UNROLL) * x`` and is checked bit for bit before timing. The compiled
    PTX is read back: it must hold at least UNROLL FMAs per chain per thread (the loop
    body; the compiler may unroll more) or the count of FLOPs would be a guess."""
    from kernels import ceilings as fma  # the repository root is on sys.path (measure.py)

    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    n = sms * 128 * block  # many waves of programs: the last, partial one costs little
    magnitude = torch.randint(1, 9, (n,), device="cuda")
    x = (magnitude * (torch.randint(0, 2, (n,), device="cuda") * 2 - 1)).float()
    expected = fma.reference(x, 1.0, iters)
    capture = Capture(fma.fma_chains_kernel)
    fma.fma_chains_kernel = capture
    try:
        fma.fma_chains(x, 1.0, iters, block=block, num_warps=num_warps)
    finally:
        fma.fma_chains_kernel = capture.kernel
    ptx = capture.compiled.asm["ptx"]
    in_loop = fma.UNROLL * block // (32 * num_warps)
    if ptx_fmas(ptx) < in_loop:
        raise AssertionError(
            f"fma ceiling: the PTX holds {ptx_fmas(ptx)} fma.rn.f32, fewer than the "
            f"{in_loop} one trip of the loop needs; the FLOP count would be wrong"
        )
    timing = check_then_time(
        functools.partial(fma.fma_chains, x, 1.0, iters, block=block, num_warps=num_warps),
        expected,
        "fma ceiling",
    )
    return {
        "elements": n,
        "iters": iters,
        "fmas_per_iter": fma.UNROLL,
        "block": block,
        "num_warps": num_warps,
        "flops": fma.flops(n, iters),
        "ptx_fma": ptx_fmas(ptx),
        **kernel_resources(capture.compiled),
        **timing,
    }


# ---- output -----------------------------------------------------------------------------


# An absolute path that runs into a file of this repository (a compiled kernel's source
# location, ``loc("/any/checkout/kernels/vector_add.py":27:0)``): what precedes
# ``kernels/`` or ``scripts/`` is the measuring machine's, not the book's.
IN_REPOSITORY = re.compile(r"(?<![\w.])/(?:[^\s\"'():/]+/)+?(?=(?:kernels|scripts)/[\w/.-]+\.py)")
# A path into an installed package: kept from the package's own folder on
# (``triton/language/standard.py``).
IN_PACKAGES = re.compile(r"(?<![\w.])/[^\s\"'():]*?/(?:site|dist)-packages/")


def relative_paths(node):
    """``node`` (rows, any JSON) with every absolute path in its strings made relative: to
    the repository for its own files, to site-packages for installed packages. Data files
    are published; the measuring machine's folders are not part of a measurement."""
    if isinstance(node, str):
        for root in {str(ROOT), os.path.abspath(ROOT)}:
            node = node.replace(root.rstrip("/") + "/", "")
        return IN_PACKAGES.sub("", IN_REPOSITORY.sub("", node))
    if isinstance(node, list):
        return [relative_paths(v) for v in node]
    if isinstance(node, dict):
        return {k: relative_paths(v) for k, v in node.items()}
    return node


def defined_in(bench: Benchmark) -> str:
    """The repository file that defines ``bench``'s run function (the runner where that is
    not a file of this repository)."""
    try:
        path = Path(inspect.getsourcefile(bench.run) or "").resolve()
        return str(path.relative_to(ROOT))
    except (TypeError, ValueError):
        return sources.RUNNER


def write(
    bench: Benchmark, prov: dict, ceilings: dict, rows: list[Row], out_dir: Path | None = None
) -> Path:
    """Write one benchmark's file: the shared envelope (figures/schema.json) around rows.

    The provenance gets ``sources`` (scripts/bench/sources.py): fingerprints of the files
    this benchmark ran, read now, so that the build can tell when the code has changed
    since. Paths in the rows are made relative (``relative_paths``)."""
    if "sources" not in prov:
        prov = {**prov, "sources": sources.sources(bench.name, module=defined_in(bench))}
    doc = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": bench.name,
        "description": bench.description,
        "provenance": prov,
        "ceilings": ceilings,
        "rows": relative_paths(rows),
    }
    folder = (out_dir or DATA_DIR) / prov["device_slug"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{bench.name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path
