"""The GPU build script: run the book's benchmarks and write figures/data/<device>/*.json.

    python3 scripts/measure.py                    # every benchmark (what `make figures` runs)
    python3 scripts/measure.py vector_add launch  # the named families or benchmarks only
    python3 scripts/measure.py --list             # what would run (no GPU needed)

Benchmarks are found, not listed: every module ``scripts/benchmarks/F.py`` of a kernel
family ``F`` holds ``BENCHMARKS``, a list of ``benchlib.Benchmark`` whose names are ``F``
or start with ``F_``. Each run measures the device's ceilings first (copy bandwidth,
matmul rate, fp32 FMA rate) and stamps them, with provenance, into every file it writes.
A run of a subset rewrites only those benchmarks' files and keeps the rest.

Needs a CUDA GPU and torch + triton + numpy, nothing else.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from scripts import benchlib  # noqa: E402
from scripts import benchmarks as benchmarks_pkg  # noqa: E402

RESERVED = {"ceilings"}  # written by this runner itself


class RegistryError(ValueError):
    """A benchmark module that breaks the naming rules."""


def discover() -> dict[str, list[benchlib.Benchmark]]:
    """{family: [Benchmark, ...]} for every module under scripts/benchmarks/."""
    families: dict[str, list[benchlib.Benchmark]] = {}
    seen: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(benchmarks_pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{benchmarks_pkg.__name__}.{info.name}")
        benches = getattr(module, "BENCHMARKS", None)
        if not isinstance(benches, list) or not benches:
            raise RegistryError(f"scripts/benchmarks/{info.name}.py defines no BENCHMARKS list")
        for b in benches:
            if not isinstance(b, benchlib.Benchmark):
                raise RegistryError(f"{info.name}: {b!r} is not a benchlib.Benchmark")
            if not (b.name == info.name or b.name.startswith(info.name + "_")):
                raise RegistryError(
                    f"benchmark {b.name!r} in scripts/benchmarks/{info.name}.py must be named "
                    f"{info.name!r} or start with '{info.name}_' (one name per family)"
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
    args = parser.parse_args(argv)
    try:
        families = discover()
        chosen = select(families, args.names)
    except RegistryError as exc:
        parser.error(str(exc))
    except KeyError as exc:
        known = sorted({*families, *(b.name for bs in families.values() for b in bs)})
        parser.error(f"unknown benchmark or family {exc.args[0]!r}; choose from {known}")
    if args.list:
        for family, benches in families.items():
            print(f"{family}: {', '.join(b.name for b in benches)}")
        return 0
    if not torch.cuda.is_available():
        print("make figures needs a CUDA GPU; none is visible to torch.", file=sys.stderr)
        return 2

    prov = benchlib.provenance()
    print(
        f"device: {prov['gpu']} ({prov['device_slug']}), torch {prov['torch']}, "
        f"triton {prov['triton']}, CUDA {prov['cuda']}, driver {prov['driver']}, "
        f"commit {prov['commit'][:12]}, clocks {prov['clocks_at_start']}"
    )
    ceilings = benchlib.measure_ceilings()
    copy_tbps = ceilings["copy"]["bytes"] / ceilings["copy"]["time_s"]["p50"] / 1e12
    print(
        f"  ceilings: copy {copy_tbps:.2f} TB/s, matmul "
        + ", ".join(
            f"{k} {v['flops'] / v['time_s']['p50'] / 1e12:.0f} TFLOP/s"
            for k, v in ceilings["matmul"].items()
        )
        + fp32_note(ceilings)
    )
    written, failed = [], []
    # The run-wide file: rewritten by a full run, or written when the device has none yet.
    if not args.names or not (benchlib.DATA_DIR / prov["device_slug"] / "ceilings.json").exists():
        written.append(benchlib.write(CEILINGS, prov, ceilings, []))
    for bench in chosen:
        print(f"{bench.name} ...", flush=True)
        try:
            rows = bench.run(ceilings)
            stamped = {**prov, "clocks_after": benchlib.read_clocks(torch.cuda.current_device())}
            written.append(benchlib.write(bench, stamped, ceilings, rows))
        except Exception:  # one broken benchmark must not lose the others' data
            traceback.print_exc()
            failed.append(bench.name)
    for p in written:
        print(f"wrote {os.path.relpath(p, benchlib.ROOT)}")
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
