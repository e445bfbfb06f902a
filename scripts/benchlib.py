"""Shared machinery of the GPU build script: provenance, ceilings, timing, output.

Needs only torch, triton and numpy, so it runs on a GPU box as it comes.
Every benchmark file written here has the same envelope (see ``figures/schema.json``):

    {"schema_version", "benchmark", "description", "provenance", "ceilings", "rows", "roofline"?}
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import torch
import triton

SCHEMA_VERSION = 1
ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "figures" / "data"


def device_slug(name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'h100-80gb-hbm3': the folder name under figures/data."""
    name = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20, cwd=ROOT).stdout.strip()
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


def provenance() -> dict:
    props = torch.cuda.get_device_properties(0)
    driver = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]).splitlines()
    import numpy

    return {
        "gpu": props.name,
        "device_slug": device_slug(props.name),
        "sm_count": props.multi_processor_count,
        "compute_capability": f"{props.major}.{props.minor}",
        "memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", 0),
        "driver": driver[0] if driver else "unknown",
        "cuda": torch.version.cuda or "unknown",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **git_commit(),
    }


# ---- timing ---------------------------------------------------------------------------


def gpu_ms(fn, warmup: int = 25, rep: int = 100) -> float:
    """Median device time of one call, in ms: triton's do_bench (CUDA events, L2 flushed
    before every call, warm-up first)."""
    return float(triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))


def host_s_per_call(fn, calls: int, repeats: int = 5) -> float:
    """Wall-clock seconds per call for a loop of back-to-back calls, synchronised once at
    the end; the median over ``repeats`` loops. For tiny kernels this is the launch cost."""
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
    return statistics.median(samples)


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


# ---- ceilings -------------------------------------------------------------------------


def measure_ceilings() -> dict:
    """The device's own roofs, measured (never quoted): copy bandwidth and dense matmul rate."""
    n = 1 << 28  # 1 GiB of fp32 each way: far beyond any L2
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    torch.cuda.synchronize()
    assert torch.equal(dst, src), "copy check failed"
    copy_ms = gpu_ms(lambda: dst.copy_(src))
    copy_bytes = 2 * n * src.element_size()
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
        ms = gpu_ms(lambda: torch.matmul(a, b, out=c), rep=300)
        matmul[str(dtype).replace("torch.", "")] = {
            "m": size, "n": size, "k": size, "ms": ms,
            "flops_per_s": 2 * size**3 / (ms * 1e-3),
        }
        del a, b, c
    torch.cuda.empty_cache()
    return {
        "copy": {"elements": n, "dtype": "float32", "bytes": copy_bytes, "ms": copy_ms,
                 "bytes_per_s": copy_bytes / (copy_ms * 1e-3)},
        "matmul": matmul,
    }


# ---- output ---------------------------------------------------------------------------


def write(benchmark: str, description: str, prov: dict, ceilings: dict, rows: list[dict],
          roofline: list[dict] | None = None, out_dir: Path = DATA_DIR) -> Path:
    doc = {
        "schema_version": SCHEMA_VERSION,
        "benchmark": benchmark,
        "description": description,
        "provenance": prov,
        "ceilings": ceilings,
        "rows": rows,
    }
    if roofline is not None:
        doc["roofline"] = roofline
    folder = out_dir / prov["device_slug"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{benchmark}.json"
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    return path
