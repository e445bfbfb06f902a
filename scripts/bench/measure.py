"""The GPU build script: run the book's benchmarks and write figures/data/<device>/*.json.

    python3 scripts/bench/measure.py                    # every benchmark (what `make figures` runs)
    python3 scripts/bench/measure.py vector_add launch  # the named families or benchmarks only
    python3 scripts/bench/measure.py --list             # what would run (no GPU needed)
    python3 scripts/bench/measure.py --quick            # fewer sizes, a few minutes (QUICK=1)
    python3 scripts/bench/measure.py --stale            # only what this GPU's data is stale for
    python3 scripts/bench/measure.py --stale --list     # the stale files of every device (no GPU)

Benchmarks are found, not listed: every module ``scripts/bench/benchmarks/F.py`` of a kernel
family ``F`` holds ``BENCHMARKS``, a list of ``benchlib.Benchmark`` whose names are ``F``
or start with ``F_``. Each run measures the device's ceilings first (copy bandwidth,
matmul rate, fp32 FMA rate) and stamps them, with provenance, into every file it writes.
A run of a subset rewrites only those benchmarks' files and keeps the rest.

Each file's provenance also holds the benchmark's wall time (``wall_s``), the most GPU
memory the CUDA allocator held for it (``peak_memory_bytes``, ``peak_reserved_bytes``)
and its power draw and SM clock, sampled every 100 ms while it ran (``power``:
``benchlib.PowerSampler``; ``capped`` when the board sat at its power limit or ran under
its top clock).
A benchmark that cannot run on this GPU raises ``benchlib.Skip`` (or runs out of shared
memory): it is reported as skipped, with its reason, and is not a failure; rows that
carry a ``skipped`` or ``failure`` field are counted and their reasons printed.

Quick mode (``--quick``; ``make figures QUICK=1``) sets BOOK_QUICK=1 before the benchmark
modules are imported, so the big families time a few sizes only (each module says which).
Its files are marked ``"quick": true`` and written to figures/data-quick/<device>/, which
the site never reads, so a quick run cannot replace full data; the one file it writes
under figures/data/<device>/ is ``quick_run.json``, the run's wall time and memory per
benchmark (what the reproduce page quotes).

Stale data (``--stale``; ``make figures STALE=1``): a data file records fingerprints of the
code it measured (scripts/bench/sources.py); where the tree's code differs, or the file
cannot say what it measured, it is stale. ``--stale`` runs exactly the benchmarks whose
files for this GPU are stale (with NAMES, only those among them), and rewrites the
ceilings when they are stale too; variation.json comes from scripts/bench/variation.py and
is only named.

Needs a CUDA GPU and torch + triton + numpy, nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    import torch
    from triton.runtime.errors import OutOfResources
except ImportError as exc:  # before anything else can fail on it, say what is missing
    sys.exit(
        f"make figures needs an existing PyTorch + Triton install (a CUDA build of torch "
        f"brings Triton) and NumPy: {exc}"
    )

from scripts.bench import benchlib, sources  # noqa: E402
from scripts.bench import benchmarks as benchmarks_pkg  # noqa: E402

# Written by this runner (ceilings, quick_run), by scripts/bench/variation.py or by
# scripts/bench/counters.py (Nsight Compute), not by a family.
RESERVED = {"ceilings", "counters", "quick_run", "variation"}
QUICK_DIR = benchlib.ROOT / "figures" / "data-quick"


class RegistryError(ValueError):
    """A benchmark module that breaks the naming rules."""


def discover() -> dict[str, list[benchlib.Benchmark]]:
    """{family: [Benchmark, ...]} for every module under scripts/bench/benchmarks/."""
    families: dict[str, list[benchlib.Benchmark]] = {}
    seen: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(benchmarks_pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{benchmarks_pkg.__name__}.{info.name}")
        benches = getattr(module, "BENCHMARKS", None)
        if not isinstance(benches, list) or not benches:
            raise RegistryError(
                f"scripts/bench/benchmarks/{info.name}.py defines no BENCHMARKS list"
            )
        for b in benches:
            if not isinstance(b, benchlib.Benchmark):
                raise RegistryError(f"{info.name}: {b!r} is not a benchlib.Benchmark")
            if not (b.name == info.name or b.name.startswith(info.name + "_")):
                raise RegistryError(
                    f"benchmark {b.name!r} in scripts/bench/benchmarks/{info.name}.py must be "
                    f"named {info.name!r} or start with '{info.name}_' (one name per family)"
                )
            if b.name in RESERVED or b.name in seen:
                where = seen.get(b.name, "the runner")
                raise RegistryError(f"benchmark {b.name!r} is defined twice ({where}, {info.name})")
            seen[b.name] = info.name
        families[info.name] = benches
    return families


def select(families: dict[str, list[benchlib.Benchmark]], names: list[str]) -> list:
    """The benchmarks named (a family name selects all of its benchmarks)."""
    by_name = {b.name: b for benches in families.values() for b in benches}
    if not names:
        return list(by_name.values())
    chosen: list[benchlib.Benchmark] = []
    for name in names:
        picked = families.get(name) or ([by_name[name]] if name in by_name else None)
        if picked is None:
            raise KeyError(name)
        chosen += [b for b in picked if b not in chosen]
    return chosen


CEILINGS = benchlib.Benchmark(
    "ceilings",
    "Measured ceilings: device-to-device copy of 2^28 fp32 (bytes read + written), "
    "torch.matmul at 8192^3 on random fp16/bf16 data, and the fp32 FMA rate of "
    "kernels/ceilings.py (2 FLOPs per FMA); do_bench percentiles.",
    run=lambda ceilings: [],
)


QUICK_RUN = benchlib.Benchmark(
    "quick_run",
    "A quick run of scripts/bench/measure.py (--quick: fewer sizes; its data is in "
    "figures/data-quick/, never drawn by the site): per benchmark, its wall time in seconds, "
    "the most memory the CUDA allocator held (allocated and reserved bytes), how many rows "
    "it wrote and how many of them were skipped, and its status. The provenance's wall_s "
    "is the whole run's.",
    run=lambda ceilings: [],
)


@contextlib.contextmanager
def peak_memory():
    """Track the most memory the CUDA allocator held inside the block: ``{"allocated",
    "reserved"}`` bytes. A benchmark that resets the peak counters itself (to measure its
    own steps) is allowed to: each reset first folds the peak so far into ours."""
    peak = {"allocated": 0, "reserved": 0}
    cuda = torch.cuda
    reset = cuda.reset_peak_memory_stats

    def fold():
        peak["allocated"] = max(peak["allocated"], cuda.max_memory_allocated())
        peak["reserved"] = max(peak["reserved"], cuda.max_memory_reserved())

    def folding_reset(*args, **kwargs):
        fold()
        return reset(*args, **kwargs)

    reset()
    cuda.reset_peak_memory_stats = folding_reset
    try:
        yield peak
    finally:
        cuda.reset_peak_memory_stats = reset
        fold()


def skipped_rows(rows: list) -> tuple[int, list[str]]:
    """How many rows say they were skipped (``skipped`` or ``failure``), and the distinct
    reasons, in order."""
    reasons: list[str] = []
    count = 0
    for row in rows:
        reason = row.get("skipped") or row.get("failure") if isinstance(row, dict) else None
        if reason:
            count += 1
            if reason not in reasons:
                reasons.append(str(reason))
    return count, reasons


def skip_reason(exc: BaseException) -> str | None:
    """Why a benchmark that raised ``exc`` is skipped rather than failed, or None."""
    if isinstance(exc, benchlib.Skip):
        return str(exc)
    if isinstance(exc, OutOfResources):  # a config the GPU's shared memory cannot hold
        return f"needs more on-chip resources than this GPU has: {exc}"[:300]
    return None


def stale_names(device_dir: Path) -> tuple[list[str], list[str]]:
    """The benchmarks whose files in ``device_dir`` are stale, split into those this runner
    writes and the others (variation.json: scripts/bench/variation.py), with why."""
    mine, others = [], []
    for path, bench, why in sources.stale_files(device_dir.parent):
        if path.parent != device_dir or bench == "quick_run":
            continue
        (others if bench in RESERVED - {"ceilings"} else mine).append(bench)
        print(f"  stale {path.parent.name}/{path.name}: {sources.describe(why)}")
    return mine, others


def list_stale(data_dir: Path) -> None:
    """Print every device's stale files (no GPU needed)."""
    for device_dir in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        mine, others = stale_names(device_dir)
        names = " ".join(mine) or "(none)"
        print(f"{device_dir.name}: measure.py --stale would run {names}")
        if others:
            print(f"{device_dir.name}: also stale, from their own scripts: {' '.join(others)}")


def fp32_note(ceilings: dict) -> str:
    """', fp32 FMA <rate> TFLOP/s' for the console, or '' where it was not measured."""
    fma = ceilings.get("fma_fp32")
    return f", fp32 FMA {fma['flops'] / fma['time_s']['p50'] / 1e12:.1f} TFLOP/s" if fma else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help="families or benchmarks to run (default: all)"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="time fewer sizes (a few minutes); written to figures/data-quick/, not figures/data/",
    )
    parser.add_argument(
        "--stale",
        action="store_true",
        help="run only the benchmarks whose data for this GPU is stale (with --list: "
        "list every device's stale files)",
    )
    args = parser.parse_args(argv)
    if args.stale and args.quick:
        parser.error("--stale reruns full data; it does not go with --quick")
    if args.quick:  # before discover() imports the modules: they may size themselves by it
        os.environ[benchlib.QUICK_ENV] = "1"
    quick = benchlib.quick()
    try:
        families = discover()
        chosen = select(families, args.names)
    except RegistryError as exc:
        parser.error(str(exc))
    except KeyError as exc:
        known = sorted({*families, *(b.name for bs in families.values() for b in bs)})
        parser.error(f"unknown benchmark or family {exc.args[0]!r}; choose from {known}")
    if args.list and args.stale:
        list_stale(benchlib.DATA_DIR)
        return 0
    if args.list:
        for family, benches in families.items():
            print(f"{family}: {', '.join(b.name for b in benches)}")
        return 0
    if not torch.cuda.is_available():
        print(
            "make figures needs a CUDA GPU; none is visible to torch "
            f"(torch {torch.__version__}, built for CUDA {torch.version.cuda or 'none'}). "
            "Check `nvidia-smi`, CUDA_VISIBLE_DEVICES, and that this torch is a CUDA build.",
            file=sys.stderr,
        )
        return 2

    started = time.perf_counter()
    out_dir = QUICK_DIR if quick else benchlib.DATA_DIR
    prov = {**benchlib.provenance(), "quick": quick}
    rewrite_ceilings = not args.names
    if args.stale:
        stale, others = stale_names(out_dir / prov["device_slug"])
        rewrite_ceilings = "ceilings" in stale
        stale_set = set(stale)
        chosen = [b for b in chosen if b.name in stale_set]
        if others:
            print(f"also stale, not run here: {', '.join(others)} (scripts/bench/variation.py)")
        if not chosen and not rewrite_ceilings:
            print(
                f"nothing stale for {prov['device_slug']}"
                + (" among the names" if args.names else "")
            )
            return 0
        print(
            "stale, to rerun: "
            + ", ".join(["ceilings"] * rewrite_ceilings + [b.name for b in chosen])
        )
    print(
        f"device: {prov['gpu']} ({prov['device_slug']}), torch {prov['torch']}, "
        f"triton {prov['triton']}, CUDA {prov['cuda']}, driver {prov['driver']}, "
        f"commit {prov['commit'][:12]}, clocks {prov['clocks_at_start']}"
    )
    if quick:
        print(f"quick mode: fewer sizes, written to {os.path.relpath(out_dir, benchlib.ROOT)}/")
    t0 = time.perf_counter()
    reader = benchlib.power_reader(torch.cuda.current_device())
    with peak_memory() as peak, benchlib.PowerSampler(reader) as sampler:
        ceilings = benchlib.measure_ceilings()
    ceilings_prov = {**prov, **usage(time.perf_counter() - t0, peak), **power(sampler)}
    summary = [summary_row("ceilings", ceilings_prov, [], "ok")]
    copy_tbps = ceilings["copy"]["bytes"] / ceilings["copy"]["time_s"]["p50"] / 1e12
    print(
        f"  ceilings: copy {copy_tbps:.2f} TB/s, matmul "
        + ", ".join(
            f"{k} {v['flops'] / v['time_s']['p50'] / 1e12:.0f} TFLOP/s"
            for k, v in ceilings["matmul"].items()
        )
        + fp32_note(ceilings)
    )
    written, failed, skipped = [], [], []
    # The run-wide file: rewritten by a full run, or written when the device has none yet.
    if rewrite_ceilings or not (out_dir / prov["device_slug"] / "ceilings.json").exists():
        written.append(benchlib.write(CEILINGS, ceilings_prov, ceilings, [], out_dir=out_dir))
    for bench in chosen:
        print(f"{bench.name} ...", flush=True)
        t0 = time.perf_counter()
        try:
            with peak_memory() as peak, benchlib.PowerSampler(reader) as sampler:
                rows = bench.run(ceilings)
            stamped = {
                **prov,
                "clocks_after": benchlib.read_clocks(torch.cuda.current_device()),
                **usage(time.perf_counter() - t0, peak),
                **power(sampler),
            }
            if stamped.get("power", {}).get("capped"):
                print(f"  power-capped: {stamped['power']}")
            written.append(benchlib.write(bench, stamped, ceilings, rows, out_dir=out_dir))
        except Exception as exc:  # one broken benchmark must not lose the others' data
            reason = skip_reason(exc)
            if reason is None:
                traceback.print_exc()
                failed.append(bench.name)
                summary.append(summary_row(bench.name, None, [], "failed", t0))
            else:
                print(f"  skipped {bench.name}: {reason}")
                skipped.append(f"{bench.name} ({reason})")
                summary.append(summary_row(bench.name, None, [], "skipped", t0))
            torch.cuda.empty_cache()
            continue
        count, reasons = skipped_rows(rows)
        if count:
            print(f"  {count} of {len(rows)} rows skipped: " + "; ".join(reasons)[:500])
        summary.append(summary_row(bench.name, stamped, rows, "ok"))
    if quick:
        total = {**prov, "wall_s": round(time.perf_counter() - started, 1)}
        written.append(benchlib.write(QUICK_RUN, total, ceilings, summary))
    for p in written:
        print(f"wrote {os.path.relpath(p, benchlib.ROOT)}")
    print(f"wall time {time.perf_counter() - started:.0f} s")
    if skipped:
        print("SKIPPED (this GPU cannot run them): " + "; ".join(skipped))
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def usage(wall_s: float, peak: dict) -> dict:
    """Provenance fields: a benchmark's wall time and the allocator's peak during it."""
    return {
        "wall_s": round(wall_s, 2),
        "peak_memory_bytes": int(peak["allocated"]),
        "peak_reserved_bytes": int(peak["reserved"]),
    }


def power(sampler: benchlib.PowerSampler) -> dict:
    """The provenance field ``power``: what the sampler saw while the benchmark ran
    (``benchlib.power_summary``), or nothing where it could not read the GPU's power."""
    found = sampler.summary()
    return {"power": found} if found else {}


def summary_row(name: str, stamped: dict | None, rows: list, status: str, t0=None) -> dict:
    """One row of quick_run.json: what a benchmark cost and how it ended."""
    row = {"benchmark": name, "status": status}
    if stamped is not None:
        row.update({k: stamped[k] for k in ("wall_s", "peak_memory_bytes", "peak_reserved_bytes")})
        row["rows"] = len(rows)
        row["rows_skipped"] = skipped_rows(rows)[0]
    else:
        row["wall_s"] = round(time.perf_counter() - t0, 2)
    return row


if __name__ == "__main__":
    sys.exit(main())
