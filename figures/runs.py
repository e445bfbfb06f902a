"""What a run of scripts/bench/measure.py costs, from the provenance it writes (``wall_s``,
``peak_reserved_bytes``) and the quick run's summary (quick_run.json), for the reproduce
appendix; "not yet measured" where the committed data cannot support a value yet.
"""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value

NOT_FULL_DATA = {"counters", "quick_run", "variation"}  # not what `make figures` writes
NOT_YET = "not yet measured"


def _full(docs: Docs) -> dict[str, dict]:
    """The data files a full run writes."""
    names = [n for n, d in dict.items(docs) if n not in NOT_FULL_DATA and "part_of" not in d]
    return {n: docs[n] for n in names}  # only these are read (and can make a value stale)


def benchmarks(docs: Docs) -> int:
    """How many data files a full run writes on this device (the ceilings included)."""
    return len(_full(docs))


def timed(docs: Docs) -> int:
    """How many of them record their wall time."""
    return sum(1 for d in _full(docs).values() if "wall_s" in d["provenance"])


def full_peak(docs: Docs) -> float | None:
    """The most GPU memory reserved in any benchmark of the full run, or None."""
    peaks = [d["provenance"].get("peak_reserved_bytes") for d in _full(docs).values()]
    return None if not peaks or None in peaks else max(peaks)


Run = Literal["full", "quick"]


def wall(docs: Docs, run: Run) -> float | None:
    """Wall seconds of a full run (None unless every file records it) or of the quick run."""
    if run == "quick":
        return docs["quick_run"]["provenance"]["wall_s"] if "quick_run" in docs else None
    full = _full(docs)
    if not full or timed(docs) < len(full):
        return None
    return sum(d["provenance"]["wall_s"] for d in full.values())


def peak(docs: Docs, run: Run) -> float | None:
    """Most GPU memory reserved in any benchmark of a full or the quick run, bytes."""
    if run == "full":
        return full_peak(docs)
    rows = docs["quick_run"]["rows"] if "quick_run" in docs else []
    peaks = [r["peak_reserved_bytes"] for r in rows if "peak_reserved_bytes" in r]
    return max(peaks) if peaks else None


def full_peak_benchmark(docs: Docs) -> str | None:
    """The benchmark that reserved the full run's peak, or None."""
    if full_peak(docs) is None:
        return None
    full = _full(docs)
    return max(full, key=lambda name: full[name]["provenance"]["peak_reserved_bytes"])


def dates(docs: Docs) -> str:
    """When the full-run data files were measured: "on D" or "between D1 and D2"."""
    days = sorted({d["provenance"]["date"][:10] for d in _full(docs).values()})
    return f"on {days[0]}" if len(days) == 1 else f"between {days[0]} and {days[-1]}"


def minutes(v: float) -> str:
    """Minutes from 90 s up, else seconds."""
    return f"{v / 60:.0f} minutes" if v >= 90 else f"{v:.0f} seconds"


VALUES = {
    "runs.benchmarks": Value(benchmarks, render.plain),
    "runs.wall": Value(wall, minutes, missing=NOT_YET),
    "runs.peak": Value(peak, render.gib, missing=NOT_YET),
    "runs.full_peak_benchmark": Value(full_peak_benchmark, render.plain, missing=NOT_YET),
    "runs.dates": Value(dates),
}
