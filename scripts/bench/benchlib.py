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

import contextlib
import functools
import inspect
import itertools
import json
import os
import platform
import re
import secrets
import shutil
import statistics
import subprocess
import threading
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


# ---- power and clocks, sampled while a benchmark runs -----------------------------------

POWER_FIELDS = {
    "power_w": "power.draw",
    "power_limit_w": "power.limit",
    "sm_mhz": "clocks.sm",
    "sm_max_mhz": "clocks.max.sm",
    "busy_percent": "utilization.gpu",
}
POWER_INTERVAL_MS = 100
NEAR_LIMIT = 0.97  # a sample within 3% of the power limit is at the limit
CAPPED_SHARE = 0.05  # at the limit in this share of samples or more: the run was capped
BUSY_PERCENT = 50  # a sample whose GPU was busy at least this much: its SM clock counts
SLOW_CLOCK = 0.97  # busy samples' median SM clock below this share of the maximum: capped


def parse_power(line: str) -> dict | None:
    """One line of ``nvidia-smi --query-gpu=<POWER_FIELDS> --format=csv,noheader,nounits``;
    None for a line that is not one (a header, a blank, an error message)."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != len(POWER_FIELDS):
        return None
    sample = {}
    for key, text in zip(POWER_FIELDS, parts, strict=True):
        try:
            sample[key] = float(text)
        except ValueError:  # "[N/A]", "[Not Supported]"
            sample[key] = None
    return sample if sample["power_w"] is not None or sample["sm_mhz"] is not None else None


def _low_mid_high(values: list[float]) -> dict | None:
    if not values:
        return None
    return {"min": min(values), "p50": statistics.median(values), "max": max(values)}


def power_summary(samples: list[dict], interval_ms: int = POWER_INTERVAL_MS) -> dict | None:
    """What the samples of one benchmark say (figures/schema.json, provenance.power): power
    draw and SM clock as min / median / max, the board's limit and top clock, the share of
    samples within 3% of the power limit, the median SM clock while the GPU was busy, and
    ``capped``: at the limit in at least ``CAPPED_SHARE`` of samples, or busy at a median
    SM clock under ``SLOW_CLOCK`` of its maximum. None without samples."""
    if not samples:
        return None

    def values(key, among=samples):
        return [s[key] for s in among if s.get(key) is not None]

    limit = max(values("power_limit_w"), default=None)
    top = max(values("sm_max_mhz"), default=None)
    power = values("power_w")
    at_limit = sum(p >= NEAR_LIMIT * limit for p in power) / len(power) if limit and power else 0.0
    busy = [s for s in samples if (s.get("busy_percent") or 0) >= BUSY_PERCENT]
    busy_clock = statistics.median(values("sm_mhz", busy)) if values("sm_mhz", busy) else None
    slow = bool(busy_clock and top and busy_clock < SLOW_CLOCK * top)
    return {
        "interval_ms": interval_ms,
        "samples": len(samples),
        "power_w": _low_mid_high(power),
        "sm_mhz": _low_mid_high(values("sm_mhz")),
        "power_limit_w": limit,
        "sm_max_mhz": top,
        "at_limit_share": round(at_limit, 4),
        "busy_sm_mhz": busy_clock,
        "capped": at_limit >= CAPPED_SHARE or slow,
    }


class Nvml:
    """Power, SM clock and utilisation read from NVML (libnvidia-ml, which comes with the
    driver) through ctypes: a read costs microseconds and starts no process, so sampling
    every 100 ms does not load the host whose launch costs lesson 03 times. Raises OSError
    where the library or the device cannot be opened."""

    SM = 1  # NVML_CLOCK_SM

    def __init__(self, index: int = 0):
        import ctypes

        self._c = ctypes
        lib = ctypes.CDLL("libnvidia-ml.so.1")
        if lib.nvmlInit_v2() != 0:
            raise OSError("nvmlInit failed")
        self._lib, self._handle = lib, ctypes.c_void_p()
        if lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self._handle)) != 0:
            raise OSError(f"NVML has no device {index}")

    def _uint(self, call, *args) -> float | None:
        value = self._c.c_uint()
        return float(value.value) if call(self._handle, *args, self._c.byref(value)) == 0 else None

    def read(self) -> dict:
        lib = self._lib
        power, limit = (
            self._uint(lib.nvmlDeviceGetPowerUsage),
            self._uint(lib.nvmlDeviceGetEnforcedPowerLimit),
        )
        busy = (self._c.c_uint * 2)()  # nvmlUtilization_t: gpu, memory (percent)
        ok = lib.nvmlDeviceGetUtilizationRates(self._handle, self._c.byref(busy)) == 0
        return {
            "power_w": None if power is None else power / 1000,  # mW
            "power_limit_w": None if limit is None else limit / 1000,
            "sm_mhz": self._uint(lib.nvmlDeviceGetClockInfo, self.SM),
            "sm_max_mhz": self._uint(lib.nvmlDeviceGetMaxClockInfo, self.SM),
            "busy_percent": float(busy[0]) if ok else None,
        }


def smi_reader(index: int = 0) -> Callable[[], dict | None]:
    """One sample per call from ``nvidia-smi --query-gpu=<POWER_FIELDS>``: the fallback
    where NVML cannot be opened through ctypes (a process per sample: slower, and it
    loads the host a little)."""
    query = ",".join(POWER_FIELDS.values())
    cmd = ["nvidia-smi", f"--id={index}", f"--query-gpu={query}", "--format=csv,noheader,nounits"]

    def read() -> dict | None:
        out = _run(cmd)
        return parse_power(out.splitlines()[0]) if out else None

    return read


def power_reader(index: int = 0) -> Callable[[], dict | None] | None:
    """NVML's reader, else nvidia-smi's, else None (no way to read the GPU's power here)."""
    try:
        return Nvml(index).read
    except (OSError, AttributeError):
        pass
    return smi_reader(index) if shutil.which("nvidia-smi") else None


class PowerSampler:
    """Samples power draw, SM clock and utilisation every ``interval_ms`` while a
    benchmark runs (``with PowerSampler(read) as sampler: ...``), on a thread that calls
    ``read`` (``power_reader``; a test passes its own); ``summary()`` afterwards
    (``power_summary``), None without samples. A read that fails is skipped."""

    def __init__(
        self, read: Callable[[], dict | None] | None, interval_ms: int = POWER_INTERVAL_MS
    ):
        self.read, self.interval_ms = read, interval_ms
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _loop(self) -> None:
        while True:
            try:
                sample = self.read()
            except Exception:  # noqa: BLE001 - a failed read loses one sample, not the run
                sample = None
            if sample is not None:
                self.samples.append(sample)
            if self._stop.wait(self.interval_ms / 1000):
                return

    def __enter__(self):
        if self.read is not None:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return False

    def summary(self) -> dict | None:
        return power_summary(list(self.samples), self.interval_ms)


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
def device_time(
    fn: Callable[[], object],
    warmup_ms: int = 25,
    rep_ms: int = 100,
    *,
    name: str | None = None,
    among: str = "",
) -> Spread:
    """Device time of one call: triton's do_bench (CUDA events around each call, the L2
    flushed before each, a warm-up first), every repetition kept for the spread. Inside
    ``head_to_head`` with a ``name``: noted, and timed in turn with the comparison's others."""
    if name is not None and (group := _noted()) is not None:
        return group.add(group.device, _Pending(name, fn, {}, among, warmup_ms, rep_ms))
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


def host_time(
    fn: Callable[[], object],
    calls: int,
    repeats: int = 7,
    *,
    name: str | None = None,
    among: str = "",
) -> Spread:
    """Host wall time per call: loops of ``calls`` back-to-back calls, each loop
    synchronised once at its end; one sample per loop. For tiny kernels this is the cost
    of a launch, since the GPU finishes each kernel before the host issues the next.
    Inside ``head_to_head`` with a ``name``: noted, and timed in turn (``interleaved_host``,
    ``HOST_ROUNDS`` loops each) with the comparison's others."""
    if name is not None and (group := _noted()) is not None:
        return group.add(group.host, _Pending(name, fn, {}, among, calls=calls))
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


# ---- head to head: implementations timed in turn, the ratio taken per round ----------------
#
# Two implementations timed one after the other drift apart with the GPU's clocks: on a
# power-capped board the same cuBLAS product timed minutes apart differed by 10%. Timed in
# turn (A B A B ...), each round's two calls see the same clocks, and the ratio of the two
# times taken per round cancels what both calls share. ``head_to_head`` groups the timings
# of one comparison; each implementation's spread then carries, beside its percentiles,
#     "ab": {"group": id, "name": impl}        which comparison it was timed in, as what,
#     "vs": {other: {"p20", "p50", "p80", "reps"}}   per round, other's time over its own,
# so above 1 means this implementation took less time (figures/schema.json, "spread").

MIN_ROUNDS = 10  # the fewest rounds a comparison takes, however slow its calls
HOST_ROUNDS = 41  # host-time loops per implementation in a head-to-head host comparison
HOST_LOOP_S = 0.02  # about how long one such loop runs
ESTIMATE_CALLS = 5  # calls per implementation that size the rounds, as in do_bench
TINY_S = 1e-9  # a time the events report as 0 (below their resolution) counts as this
_GROUP_TAG = secrets.token_hex(3)  # group ids of this process: never equal to another run's
_groups = itertools.count(1)


class DeviceClock:
    """What interleaved device timing needs from the GPU, as do_bench uses it: CUDA events
    around each call, and the L2 flushed before each (triton's own flush buffer)."""

    def __init__(self):
        driver = triton.runtime.driver.active
        if hasattr(driver, "get_empty_cache_for_benchmark") and hasattr(driver, "clear_cache"):
            self._cache = driver.get_empty_cache_for_benchmark()
            self._clear = driver.clear_cache
        else:  # an older triton: do_bench's own buffer then, 256 MB zeroed before each call
            self._cache = torch.empty(2**26, dtype=torch.int32, device="cuda")
            self._clear = torch.Tensor.zero_

    def flush(self) -> None:
        self._clear(self._cache)

    def mark(self):
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def seconds(self, start, end) -> float:
        return start.elapsed_time(end) * 1e-3

    def sync(self) -> None:
        torch.cuda.synchronize()


class HostClock:
    """What interleaved host timing needs: the wall clock, and a synchronise at the end of
    each loop (no flush: a loop of back-to-back calls is what a program does)."""

    def flush(self) -> None:
        pass

    def mark(self) -> float:
        return time.perf_counter()

    def seconds(self, start: float, end: float) -> float:
        return end - start

    def sync(self) -> None:
        torch.cuda.synchronize()


# Made when a comparison is timed; tests put fake clocks here.
CLOCKS: dict[str, Callable[[], object]] = {"device": DeviceClock, "host": HostClock}


def ratios(times: dict[str, list[float]], group: str) -> dict[str, Spread]:
    """Each implementation's spread with its ``ab`` and ``vs`` fields (see above), from
    ``times[name][i]``: its time in round ``i``. The ratio is taken per round, then its
    percentiles: a shift that both calls of a round share cancels."""
    names = list(times)
    out = {}
    for name in names:
        s = spread(times[name])
        s["ab"] = {"group": group, "name": name}
        s["vs"] = {
            other: spread(
                [
                    max(b, TINY_S) / max(a, TINY_S)
                    for a, b in zip(times[name], times[other], strict=True)
                ]
            )
            for other in names
            if other != name
        }
        out[name] = s
    return out


def new_group() -> str:
    return f"{_GROUP_TAG}-{next(_groups)}"


def interleaved(
    fns: dict[str, Callable[[], object]],
    warmup_ms: float = 25,
    rep_ms: float = 100,
    min_rounds: int | None = None,
    clock=None,
) -> dict[str, Spread]:
    """Device time of each of ``fns`` (name -> call), timed in turn: in every round each
    call once, in the order given, the L2 flushed before it and CUDA events around it, as
    do_bench times one. Rounds are sized as do_bench sizes repetitions (about ``rep_ms``
    per implementation, from ``ESTIMATE_CALLS`` flushed calls of each; at least
    ``min_rounds``), after about ``warmup_ms`` per implementation of untimed rounds.
    Returns each name's spread with its per-round ratios to the others (``ratios``)."""
    clock = clock or CLOCKS["device"]()
    for fn in fns.values():
        fn()
    clock.sync()
    estimate = 0.0
    for fn in fns.values():
        start = clock.mark()
        for _ in range(ESTIMATE_CALLS):
            clock.flush()
            fn()
        end = clock.mark()
        clock.sync()
        estimate += clock.seconds(start, end) / ESTIMATE_CALLS
    estimate = max(estimate, 1e-9)
    share = len(fns) * 1e-3 / estimate
    for _ in range(max(1, int(warmup_ms * share))):
        for fn in fns.values():
            fn()
    rounds = max(MIN_ROUNDS if min_rounds is None else min_rounds, int(rep_ms * share))
    marks: dict[str, list] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            clock.flush()
            start = clock.mark()
            fn()
            marks[name].append((start, clock.mark()))
    clock.sync()
    times = {name: [clock.seconds(a, b) for a, b in m] for name, m in marks.items()}
    return ratios(times, new_group())


def interleaved_host(
    fns: dict[str, Callable[[], object]],
    calls: int,
    rounds: int | None = None,
    clock=None,
) -> dict[str, Spread]:
    """Host wall time per call of each of ``fns``, timed in turn: in every round, a loop
    of ``calls`` back-to-back calls of each, synchronised at its end (``host_time``'s
    loop), one sample per loop. Many short loops rather than a few long ones, so that the
    per-round ratio sees the host as both loops of that round found it."""
    clock = clock or CLOCKS["host"]()
    for fn in fns.values():
        for _ in range(min(calls, 50)):
            fn()
    clock.sync()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(HOST_ROUNDS if rounds is None else rounds):
        for name, fn in fns.items():
            start = clock.mark()
            for _ in range(calls):
                fn()
            clock.sync()
            times[name].append(clock.seconds(start, clock.mark()) / calls)
    return ratios(times, new_group())


@dataclass
class _Pending:
    name: str
    fn: Callable[[], object]
    spread: dict  # filled in place when the comparison is timed
    among: str
    warmup_ms: float = 25
    rep_ms: float = 100
    calls: int = 0  # host timings: calls per loop


class HeadToHead:
    """The timings of one comparison, collected by ``head_to_head`` (not made by hand)."""

    def __init__(self):
        self.device: list[_Pending] = []
        self.host: list[_Pending] = []

    def add(self, entries: list[_Pending], entry: _Pending) -> dict:
        if any(e.name == entry.name and e.among == entry.among for e in entries):
            raise ValueError(f"head_to_head: {entry.name!r} timed twice in one comparison")
        entries.append(entry)
        return entry.spread

    def run(self) -> None:
        for entries in _by_among(self.device).values():
            fns = {e.name: e.fn for e in entries}
            warmup_ms, rep_ms = max(e.warmup_ms for e in entries), max(e.rep_ms for e in entries)
            found = _or_apart(
                lambda fns=fns, w=warmup_ms, r=rep_ms: interleaved(fns, warmup_ms=w, rep_ms=r),
                {
                    e.name: functools.partial(device_time, e.fn, e.warmup_ms, e.rep_ms)
                    for e in entries
                },
            )
            for e in entries:
                e.spread.update(found[e.name])
        for entries in _by_among(self.host).values():
            calls = min(e.calls for e in entries)
            fns = {e.name: e.fn for e in entries}
            found = _or_apart(
                lambda fns=fns, c=calls: interleaved_host(fns, c),
                {e.name: functools.partial(host_time, e.fn, calls) for e in entries},
            )
            for e in entries:
                e.spread.update(found[e.name])


def _or_apart(together: Callable[[], dict], apart: dict[str, Callable[[], Spread]]) -> dict:
    """``together()``; where it runs out of GPU memory (every implementation's buffers and
    graphs are alive at once), each timed apart instead, as before head-to-head timing,
    so the run keeps its rows (their spreads then carry no ratio)."""
    try:
        return together()
    except torch.cuda.OutOfMemoryError as exc:
        print(f"    head to head ran out of memory, timing {sorted(apart)} apart: {exc}"[:300])
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        return {name: time_one() for name, time_one in apart.items()}


def _by_among(entries: list[_Pending]) -> dict[str, list[_Pending]]:
    groups: dict[str, list[_Pending]] = {}
    for e in entries:
        groups.setdefault(e.among, []).append(e)
    return groups


_current: list[HeadToHead] = []


@contextlib.contextmanager
def head_to_head():
    """Time the implementations of one comparison in turn (``interleaved``).

    Inside the block, ``check_then_time``, ``device_time`` and ``host_time`` called with
    ``name=`` (the implementation: "triton", "cublas", ...) check at once but only note
    the timing: the spreads they return are empty until the block ends, and are then
    filled in place, every implementation noted with the same ``among`` (say "forward")
    timed in turn with the others. So a row built inside the block holds its spread, but
    nothing inside the block may read one. Without ``name``, they time at once, as outside
    a block::

        with benchlib.head_to_head():
            for impl, fn in impls.items():
                rows.append({"impl": impl, **benchlib.check_then_time(fn, ..., name=impl)})
    """
    group = HeadToHead()
    _current.append(group)
    try:
        yield group
    finally:
        _current.pop()
    group.run()


def _noted() -> HeadToHead | None:
    return _current[-1] if _current else None


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
    name: str | None = None,
    among: str = "",
) -> dict:
    """Check ``fn`` against ``expected`` (from the family's ``reference()``), then time it.

    ``out``: the buffer ``fn`` writes; it is filled with NaN first so that an element
    the kernel skips cannot pass. Without ``out``, ``fn``'s return value is checked.
    Returns ``{"time_s": spread}`` and, with ``host=True``, ``"host_s"`` too (the host's
    time per call beside the device's: where it is the larger, the host sets the pace).
    Inside ``head_to_head`` with a ``name``: checked now, timed in turn with the others
    when the block ends (the host loops sized from a quick do_bench estimate)."""
    if out is not None:
        out.fill_(float("nan"))
    result = fn()
    torch.cuda.synchronize()
    check(out if out is not None else result, expected, what, exact=exact, rtol=rtol, atol=atol)
    if name is not None and _noted() is not None:
        timing = {
            "time_s": device_time(fn, warmup_ms=warmup_ms, rep_ms=rep_ms, name=name, among=among)
        }
        if host:
            timing["host_s"] = host_time(fn, host_calls(fn), name=name, among=among)
        return timing
    timing = {"time_s": device_time(fn, warmup_ms=warmup_ms, rep_ms=rep_ms)}
    if host:
        timing["host_s"] = host_time(fn, calls=calls_for(timing["time_s"]))
    return timing


def host_calls(fn: Callable[[], object]) -> int:
    """Calls per loop of a head-to-head host timing: about ``HOST_LOOP_S`` of them."""
    return calls_for(spread([quick_estimate(fn)]), HOST_LOOP_S)


def quick_estimate(fn: Callable[[], object], calls: int = ESTIMATE_CALLS) -> float:
    """Seconds per call of ``fn`` from a few back-to-back calls: enough to size a loop."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls


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
