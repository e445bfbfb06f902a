"""Run-to-run variation: the same cheap measurements repeated, to see how far apart runs are.

    python3 scripts/bench/variation.py            # 10 runs on this machine (under a minute)
    python3 scripts/bench/variation.py --runs 20 --machine b   # a second machine, same kind

Each run takes fresh random inputs and times the book's vector add and ``torch.add`` at a
size far beyond the L2 (2^26 fp32 elements: HBM bandwidth) and at a small one (2^16:
launch-bound), with ``benchlib.check_then_time`` exactly as the benchmarks do. The result
is ``figures/data/<device>/variation.json``: one row per (machine, run, point). Rows of
other machines already in that file are kept and this machine's are replaced, so running
the script on two machines of the same kind (with different ``--machine`` labels, or on
machines with different host names or GPUs) puts both in one file; methodology's figure
shows them side by side. Needs a CUDA GPU and torch + triton + numpy, like scripts/bench/measure.py.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import socket
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from scripts.bench import benchlib, measure  # noqa: E402

# (impl, n): one point each, all fp32. Large: 768 MiB moved per call; small: 768 KiB.
POINTS = [("triton", 1 << 26), ("torch", 1 << 26), ("triton", 1 << 16), ("torch", 1 << 16)]

BENCH = benchlib.Benchmark(
    "variation",
    "Run-to-run variation: out = x + y in fp32 with kernels/vector_add.py (triton) and "
    "torch.add(out=) (torch) at n = 2^26 (beyond the L2) and n = 2^16 (launch-bound), "
    "repeated run after run in one process on each machine, fresh random inputs every run; "
    "each point checked then timed with do_bench (L2 flushed; percentiles over "
    "repetitions). Bytes = 3 * n * 4. Rows of several machines of the same kind may share "
    "the file; the provenance is that of the latest machine's run.",
    run=lambda ceilings: [],
)


def point_name(impl: str, n: int) -> str:
    return f"{impl} 2^{n.bit_length() - 1}"


def machine_label(identity: str | None = None) -> str:
    """A short, stable label for this machine that does not publish what identifies it:
    a hash of the host name and the UUID of GPU 0. (Containers can share a host name, so
    the name alone does not tell two machines apart; the GPU's UUID does.)"""
    if identity is None:
        identity = f"{socket.gethostname()}/{torch.cuda.get_device_properties(0).uuid}"
    return "m-" + hashlib.sha256(identity.encode()).hexdigest()[:6]


def measure_point(impl: str, n: int) -> dict:
    """One checked, timed measurement (fresh random inputs): ``{"bytes", "time_s"}``."""
    from kernels import vector_add as va

    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    fn = {
        "triton": functools.partial(va.vector_add, x, y, out),
        "torch": functools.partial(torch.add, x, y, out=out),
    }[impl]
    timing = benchlib.check_then_time(fn, va.reference(x, y), f"variation {impl} n={n}", out=out)
    return {"bytes": 3 * n * 4, **timing}


def one_run(machine: str, run: int) -> list[dict]:
    rows = []
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for impl, n in POINTS:
        rows.append(
            {
                "machine": machine,
                "run": run,
                "point": point_name(impl, n),
                "impl": impl,
                "dtype": "float32",
                "n": n,
                **measure_point(impl, n),
                "date": date,
            }
        )
    clocks = benchlib.read_clocks(torch.cuda.current_device()) or {}
    for row in rows:
        row["sm_mhz_after"] = clocks.get("sm_mhz")
    return rows


def merge(old_rows: list[dict], new_rows: list[dict], machine: str) -> list[dict]:
    """Other machines' rows kept as they were, this machine's replaced by ``new_rows``."""
    return [r for r in old_rows if r.get("machine") != machine] + new_rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10, help="how many runs (default 10)")
    parser.add_argument(
        "--machine",
        default=None,
        help="a label for this machine (default: a hash of the host name and GPU UUID)",
    )
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2: one run has no variation")
    machine = args.machine
    if machine is not None:
        if not (machine[:1].isalnum() and all(c.isalnum() or c == "-" for c in machine)):
            parser.error("--machine: lower-case letters, digits and '-' only")
        machine = machine.lower()
    if not torch.cuda.is_available():
        print("variation.py needs a CUDA GPU; none is visible to torch.", file=sys.stderr)
        return 2
    machine = machine or machine_label()

    started = time.perf_counter()
    prov = {**benchlib.provenance(), "quick": False}
    with measure.peak_memory() as peak:
        ceilings = benchlib.measure_ceilings()
        benchlib.warm_up()
        rows: list[dict] = []
        for run in range(args.runs):
            rows += one_run(machine, run)
            got = {r["point"]: r["bytes"] / r["time_s"]["p50"] / 1e9 for r in rows[-len(POINTS) :]}
            print(f"run {run}: " + ", ".join(f"{k} {v:.0f} GB/s" for k, v in got.items()))
    path = benchlib.DATA_DIR / prov["device_slug"] / "variation.json"
    old = json.loads(path.read_text())["rows"] if path.exists() else []
    stamped = {
        **prov,
        "clocks_after": benchlib.read_clocks(torch.cuda.current_device()),
        **measure.usage(time.perf_counter() - started, peak),
    }
    written = benchlib.write(BENCH, stamped, ceilings, merge(old, rows, machine))
    print(f"wrote {os.path.relpath(written, benchlib.ROOT)} ({machine}, {args.runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
