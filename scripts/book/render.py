"""The generic engine that turns measured data into Plotly figures and prose numbers.

Used by the MkDocs hook at every site build, with no GPU, so figures can never drift from
the data. What each figure and value *is* lives in the figure modules ``figures/F.py``,
one per kernel family ``F`` (plus ``device``, ``ceilings``, ``runs``, ``variation`` and
``roofline`` for the run-wide data). They are found, not listed: each module holds
``FIGURES`` (names ``F`` or ``F-...``, with ``_`` written ``-``), ``VALUES`` (kinds
``F.<name>``) and, if it puts points on lesson 01's roofline, ``ROOFLINE``.

Placeholders in lesson Markdown (anything else between double braces fails the build):

    {{ figure NAME }}
        a figure, with a device switch when several devices have its data
    {{ value DEVICE KIND [NAME=VALUE ...] [as=FORMAT] }}
        a number measured on DEVICE (a unique prefix of a device folder name, ``h100``),
        e.g. ``{{ value h100 vector_add.bandwidth impl=torch }}``
    {{ table NAME }}
        a Markdown table with a column per device that has its data, and under it the
        run (date, commit, clocks) each column was measured in (the scoreboard appendix)
    {{ choose DEVICE | CONDITION => TEXT | ... [| else => TEXT] [| stale => TEXT] }}
        one of the page's own phrasings, picked by the data (see "Choosing words" below)

**Value kinds.** A kind is one function and one meaning, chosen by parameters:

    def bandwidth_at(docs: Docs, impl: str, dtype: str = "float32") -> float:
        '''Achieved bandwidth of ``impl`` at the largest size, bytes/s; ...'''
    VALUES = {"vector_add.bandwidth": Value(bandwidth_at, render.tbps)}

A module imports the engine as ``from scripts.book import render`` and writes its helpers
qualified (``render.one``, ``render.tbps``); only ``Docs``, ``Figure`` and ``Value`` come
in by name.

The first argument is the device's documents; every other one is a parameter of the
placeholder, converted by its annotation: ``int``, ``float``, ``str``, ``bool`` (``true``
or ``false``), ``Literal[...]`` (one of the listed words or numbers), any of them
``| None`` (the word ``none`` gives None). A parameter with a default may be left out. A
missing, unknown, repeated or ill-typed parameter fails the build with the page, the kind
and the parameter named. Look rows up with ``one`` (exactly one row, else a RenderError
such as ``matmul has no row impl=triton dtype=float16 m=4096``) or ``maybe_one`` (None on
a device that has not run the benchmark; with ``absent_ok=True`` also where its run lacks
the row), or ``ran`` (as ``absent_ok``, and None where the row records a failure); share
``bandwidth``, ``flop_rate``, ``copy``, ``median``, ``quotient`` (``over`` and
``difference`` for ``pair_kind``) and the formats from here, and build figures from the
plot helpers below (``plot``, ``rows_by``, ``curves``, ``tbps_line``, ``copy_ceiling``,
``hbar``, ...) rather than writing Plotly dicts out. A
figure that repeats a shape other figures draw is a small table handed to a builder: a
line per implementation (``impl_lines``: rows, x field, points, hover), bandwidth
against row width with a panel per dtype (``impl_curves`` into ``width_panels``), grouped
bars of a row's time spreads by clock (``clock_bars``).
A compute that returns None means "not measured": ``Value(f, fmt, missing="not
measured")`` says so in words; a value with no ``missing`` text shows None as its format
does.

A kind that only reads the row a chooser picks needs no function of its own: with
``def square(docs: Docs, impl: Impl, dtype: Dtype, n: int) -> dict`` (a docstring, typed
parameters), ``render.row_kind(square, render.flop_rate, "FLOP/s at n³.")`` is the kind
``impl= dtype= n=``, and ``render.pair_kind(square, "impl", render.tie(BENCH), "...")``
compares two of its rows as ``of= to= dtype= n=`` (``render.divide(read)`` gives their
ratio). Such kinds are callable as plain functions too.

**Formats.** The Value's format is its default; ``as=FORMAT`` picks another one from
``FORMATS``: numbers ``plain count whole ratio ratio3 percent percent1 sci``, rates ``tbps
tflops``, bytes ``gb gb1 mb kb_mb kib bytes_kib mib gib mib_gib``, seconds ``us0``-``us3``,
``ms0``-``ms3``, ``s0``-``s3`` (in µs, ms or s with that many decimals), and for a kind
that returns a time spread ``span_us0``-``span_us3``, ``span_ms0``-``span_ms3`` (its 20th
to 80th percentile, "49.7–85.4 µs"), e.g. ``as=ms1``. A module that needs a format used
nowhere else may define it; one used twice belongs here.

**Roofline points** are presentation, chosen here, not in the data: a module whose family
appears on lesson 01's roofline holds ``ROOFLINE = {benchmark: points(rows)}``, each point
``{"kernel", "flops", "bytes", "seconds"}`` (``roofline_point(row, kernel)`` makes
one, ``roofline_rows(label, **fields)`` one per matching row); ``roofline_points(docs)``
gathers them.

**Widgets** name values in ``data-values="..."`` with no spaces inside a name:
``KIND:NAME=VALUE,NAME=VALUE`` (``vector_add.bandwidth:impl=torch,dtype=float16``), or
the bare kind when it takes no parameters; the build embeds the unformatted number under
exactly that word (no ``as=`` there).

**Choosing words.** Prose belongs on the page, not in a figure module: where a sentence
goes one of two or three ways by the data ("above that, so part of the second read is
cached" / "not above that, so ..."), the page writes every phrasing and ``choose`` picks
the first whose CONDITION holds::

    {{ choose h100
       | softmax.sweep dtype=none cols=none > softmax.two_thirds_copy => above that, ...
       | else => not above that, ... }}

A CONDITION is ``KIND [NAME=VALUE ...] OP OPERAND``: OP one of ``< <= > >= == !=`` and
the OPERAND a number, a quoted phrase (``== "faster than"``, for a kind that returns
words, say a ``tie_words`` kind), ``none`` (with ``==`` or ``!=`` only: "not measured")
or another ``KIND [NAME=VALUE ...]``. Values are read as the ``value`` placeholder reads
them, unformatted. A kind that gives None (not measured) elsewhere fails the build with
the value named, as does a choice where no CONDITION holds and there is no ``else``.
Stale-aware like the tie words: where any file read to decide is
stale (see "stale data"), the ``stale`` phrasing is shown, or STALE_WORDS without one,
and the page's stale note lists the files. The chosen TEXT's whitespace is collapsed to
single spaces; it may hold Markdown and ``value`` placeholders (one level deep), which
are filled in as anywhere else, or be empty (a sentence the data leaves out). Each kind a
condition or a phrasing names counts as used (``placeholders``).

**Tables** (``TABLES = {name: Table(reads, cells, head)}``, names ``F`` or ``F-...`` as
for figures): ``cells(docs)`` gives one device's cells as ``{row label: text}``, a label
being a tuple of words, one per leading column named in ``head``; rows line up across
devices by label, and a row a device lacks shows "—".

**Comparisons and the tie rule.** Two implementations timed in the same run compare by
``speedup(ours, peer, margin)``: the ratio of their median times with an interval from
opposite percentiles (the peer's p20 over our p80, the peer's p80 over our p20), widened
by ``tie_margin``: the run's ``repeat_drift`` (how far apart it timed the same cuBLAS
product twice), and at least 1% (``TIE_FLOOR``). A ratio whose interval includes 1 is a
tie (``ties``): the run cannot tell the two apart. ``compare(ours, peer)`` turns that
into words for a sentence ("faster than", "as fast as", "slower than"), so a value kind
can give a page a comparison that follows the data instead of a typed one. Where the two
spreads were timed head to head (in turn in one comparison, benchlib's ``head_to_head``;
``paired``), the interval is instead the per-round ratio's 20th to 80th percentile, with
no margin: the figure modules pass spreads as before and get the better interval.

**Host-bound points.** ``host_bound(row)``: the row's host time per call (``host_s``)
exceeds its GPU time beyond both spreads, and that GPU time is below the longest host path
a call could have (``HOST_PATH_LIMIT_S``). ``line(..., rows=...)`` (and ``tbps_line``,
``tflops_line``) draws such points hollow, and the figure's caption explains the hollow
markers once (``HOST_BOUND_NOTE``). A caption also says when a run was power-capped
(``power_note``, from the power sampled while it ran).

Figures are plain Plotly JSON (``data`` + ``layout``); each trace carries ``meta.role``
and ``docs/assets/js/figures.js`` styles it for the light or dark palette, one design for
every figure (issue 20): the role ``triton`` (or ``wrapper``) is the book's kernel, drawn
on top, thickest, in its reserved colour; ``ceiling``, ``ceiling-2`` and ``marker`` are
grey references; any other role (``torch``, ``compile``, ``cublas``, ``series-N``) is a
peer with its own colour, dash and marker symbol. A figure sets no colours, widths or
heights: the height comes from its content. Where one plot would need more than about
six lines, or a dash to tell two settings apart (fp32 and bf16, full and causal), draw
small multiples with ``panels`` (``width_panels`` for the row-wise benchmarks). Write
dtypes as ``SHORT_DTYPE`` does (bf16) and powers with superscripts (``powers``). A figure
counted from shapes rather than measured gives ``Figure(..., counted="what and how")``.
A figure whose point is a comparison ("how far from cuDNN") draws the ratio itself: each
row's ``speedup`` against the baseline's row, the baseline a line at 1, one unit on the
axis ("× cuDNN's speed (higher is faster)"; figures/attention.py, ``fig_vs_baseline``).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import functools
import html
import importlib
import inspect
import json
import operator
import os
import pkgutil
import re
import statistics
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from scripts.bench import sources  # the standard library only: no torch here

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "figures" / "data"

Docs = dict[str, dict]  # benchmark name -> document, for one device
Spread = dict  # {"p20", "p50", "p80", "reps"}: seconds


class RenderError(ValueError):
    """An unknown placeholder, device or key, or data a figure needs but lacks."""


# ---- data -------------------------------------------------------------------------------


def data_root() -> Path:
    """Where the site's data is read from: figures/data, or $BOOK_DATA_DIR to preview a
    folder of your own (say, a run you have not copied into the tree yet)."""
    override = os.environ.get("BOOK_DATA_DIR")
    return Path(override) if override else DATA_DIR


def load_devices(data_dir: Path | None = None) -> dict[str, Docs]:
    """{device_slug: {benchmark: document}} for every device folder under ``data_dir``."""
    data_dir = data_dir or data_root()
    _STALE.clear()  # the tree may have changed since the last build (mkdocs serve)
    devices: dict[str, Docs] = {}
    if not data_dir.is_dir():
        return devices
    for folder in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        docs = {}
        for f in sorted(folder.glob("*.json")):
            doc = json.loads(f.read_text())
            docs[doc["benchmark"]] = doc
        if "counters" in docs:
            docs.update(probe_parts(docs["counters"]))
        if docs:
            devices[folder.name] = docs
    return devices


def probe_parts(doc: dict) -> dict[str, dict]:
    """The counters file (scripts/bench/counters.py) as one document per probe,
    ``counters/PROBE``: that probe's rows, judged stale only on the files that probe ran
    (``sources.probe_paths``), so that a change to one lesson's kernel does not mark the
    counters of every other lesson. Each part keeps its file as ``part_of``."""
    paths = sources.probe_paths(sources.Tree(SOURCES_ROOT))
    parts = {}
    for probe in dict.fromkeys(r["probe"] for r in doc["rows"]):
        rows = [r for r in doc["rows"] if r["probe"] == probe]
        parts[f"counters/{probe}"] = {
            "benchmark": doc["benchmark"],
            "part_of": doc,
            "part_paths": paths.get(probe),
            "provenance": doc["provenance"],
            "rows": rows,
        }
    return parts


def resolve_device(query: str, devices: dict[str, Docs]) -> str:
    """A device folder named exactly ``query``, or the only one that starts with it."""
    if query in devices:
        return query
    hits = [slug for slug in devices if slug.startswith(query)]
    if len(hits) != 1:
        raise RenderError(f"device {query!r} matches {hits or 'no device'} in {sorted(devices)}")
    return hits[0]


def doc(docs: Docs, bench: str) -> dict:
    if bench not in docs:
        raise RenderError(f"no {bench!r} data for this device")
    return docs[bench]


def rows(docs: Docs, bench: str, **match) -> list[dict]:
    """The rows of ``bench`` whose fields equal ``match``."""
    return [r for r in doc(docs, bench)["rows"] if all(r.get(k) == v for k, v in match.items())]


def select(docs: Docs, bench: str, **match) -> list[dict]:
    """``rows``, where a None in ``match`` stands for any value (a kind's parameter that
    was left out: the best over all its settings, say)."""
    return rows(docs, bench, **{k: v for k, v in match.items() if v is not None})


def rows_by(docs: Docs, bench: str, x: str, /, **match) -> list[dict]:
    """The rows of ``bench`` whose fields equal ``match``, in order of their field ``x``
    (a line's points, left to right)."""
    return sorted(rows(docs, bench, **match), key=lambda r: r[x])


def one(docs: Docs, bench: str, **match) -> dict:
    """The one row of ``bench`` whose fields equal ``match``; a RenderError naming the
    benchmark and the match when there is none, or more than one."""
    found = rows(docs, bench, **match)
    if len(found) != 1:
        what = " ".join(f"{k}={v}" for k, v in match.items())
        many = "no row" if not found else f"{len(found)} rows"
        raise RenderError(f"{bench} has {many} {what}")
    return found[0]


def maybe_one(docs: Docs, bench: str, *, absent_ok: bool = False, **match) -> dict | None:
    """``one(...)``, or None on a device that has not run ``bench`` (not measured there).
    With ``absent_ok``, also None where the run has no such row (a run older than the row,
    a peer that could not run): use it only where that is expected, since it turns a typo
    in a parameter into "not measured" instead of an error."""
    if bench not in docs or (absent_ok and not rows(docs, bench, **match)):
        return None
    return one(docs, bench, **match)


def ran(docs: Docs, bench: str, **match) -> dict | None:
    """The one row of ``bench`` matching ``match`` that ran (has a ``time_s``), or None: the
    device has not run ``bench``, its run has no such row, or the row records a failure."""
    r = maybe_one(docs, bench, absent_ok=True, **match)
    return r if r and "time_s" in r else None


def bandwidth(row: dict) -> float:
    """Median achieved bandwidth of a row, bytes per second: its ``bytes`` over its time."""
    return row["bytes"] / row["time_s"]["p50"]


def flop_rate(row: dict) -> float:
    """Median FLOP/s of a row: its ``flops`` over its time."""
    return row["flops"] / row["time_s"]["p50"]


def quotient(a: float | None, b: float | None) -> float | None:
    """``a / b``, or None where either is None (not measured)."""
    return None if a is None or b is None else a / b


def median(values) -> float:
    """The median of some numbers (the mean of the middle two for an even count)."""
    return statistics.median(values)


def copy(docs: Docs, bench: str) -> float:
    """Measured copy bandwidth (bytes/s, median) of the run that wrote ``bench``: the
    ceiling a memory-bound row of that benchmark is measured against."""
    return copy_bw(doc(docs, bench))


def copy_bw(d: dict) -> float:
    """Measured copy bandwidth (bytes/s, median) of the run that wrote document ``d``."""
    copy = d["ceilings"]["copy"]
    return copy["bytes"] / copy["time_s"]["p50"]


def matmul_rate(d: dict, dtype: str) -> float:
    """Measured cuBLAS matmul rate (FLOP/s, median) of the run that wrote ``d``."""
    mm = d["ceilings"]["matmul"][dtype]
    return mm["flops"] / mm["time_s"]["p50"]


def fma_rate(d: dict) -> float | None:
    """Measured fp32 FMA rate (FLOP/s, median) of the run that wrote ``d``; None for a run
    made before this ceiling was measured."""
    fma = d["ceilings"].get("fma_fp32")
    return fma["flops"] / fma["time_s"]["p50"] if fma else None


def provenance(docs: Docs) -> dict:
    """The provenance of any one of the device's documents (the GPU's name, say)."""
    return next(iter(dict.values(docs)))["provenance"]


# ---- stale data: measured with code that has changed since ---------------------------------
#
# Each data file records fingerprints of the code it measured (provenance.sources, written by
# scripts/bench/benchlib.py; scripts/bench/sources.py says which files and how they are
# hashed). Where the tree's code differs, or the file records why it cannot say
# (provenance.sources_unknown), the file is stale, and the build says so:
#
# - a figure drawn from it ends its caption with STALE_MARK and ``stale_words``
#   ("Measured with an earlier version of this kernel, commit ef9bdad (kernels/rmsnorm.py
#   changed since)"), the caption set off as a warning (book.css); a table's column from
#   it marks each cell with STALE_MARK and says why in the line under the table;
# - a comparison word (``compare``) computed from it takes its neutral form, which states
#   that two things were measured against each other and claims no result ("measured
#   against" for the standard words); a kind that decides by the tie rule some other way
#   and returns words is shown as STALE_WORDS instead;
# - ``expand`` collects every stale file a page drew on, and the hook opens the page with a
#   note naming them (``stale_note``).
#
# A document that records neither (a test's, a run older than fingerprints) is not judged:
# figures/schema.json requires one of the two in every committed file.

STALE_MARK = "†"
NEUTRAL = "measured against"  # the neutral form of COMPARE_WORDS
STALE_WORDS = "(left open here: measured with an earlier version of the code)"
_STALE: dict[tuple, dict | None] = {}
SOURCES_ROOT = ROOT  # the tree whose code the data is compared with (a copy, in tests)


def stale(d: dict) -> dict | None:
    """Why document ``d`` is older than the code the site is built from, or None:
    ``sources.staleness`` (``{"changed": [paths], "commit"}`` or ``{"unknown": reason,
    "commit"}``), cached per build."""
    if "part_of" in d:  # one probe of the counters file: only the files it ran count
        why, paths = stale(d["part_of"]), d["part_paths"]
        if "sources" not in d["provenance"] or paths is None:
            return why  # a file that cannot say, or a probe the script no longer has
        recorded = d["provenance"]["sources"]
        moved = {p for p in (why or {}).get("changed", ()) if p in paths}
        moved |= {p for p in paths if p not in recorded}  # a file the probe has run since
        commit = d["provenance"].get("commit", "unknown")
        return {"changed": sorted(moved), "commit": commit} if moved else None
    prov = d["provenance"]
    if "sources" not in prov and "sources_unknown" not in prov:
        return None
    key = (
        prov.get("commit"),
        prov.get("sources_unknown"),
        tuple(sorted(prov.get("sources", {}).items())),
    )
    if key not in _STALE:
        _STALE[key] = sources.staleness(d, sources.Tree(SOURCES_ROOT))
    return _STALE[key]


def stale_words(d: dict) -> str | None:
    """Why ``d`` is stale, in a reader's words (a caption's first sentence), or None."""
    why = stale(d)
    if why is None:
        return None
    commit = why["commit"][:7]
    if "unknown" in why:
        return f"Measured with code that may differ from this version ({why['unknown']})"
    # the family's own kernel file first (kernels/rmsnorm.py for rmsnorm_small_m)
    own = sorted(why["changed"], key=lambda p: not d["benchmark"].startswith(Path(p).stem))
    kernels = [p for p in own if p.startswith("kernels/")]
    named = kernels or own
    files = ", ".join(named[:2]) + (f" and {len(named) - 2} more" if len(named) > 2 else "")
    what = "this kernel" if kernels else "the benchmark code"
    return f"Measured with an earlier version of {what}, commit {commit} ({files} changed since)"


@dataclass
class _Computation:
    """What one value, table column or figure read of a device's documents."""

    docs: Docs
    read: set = dataclasses.field(default_factory=set)
    tie_rule: bool = False  # the tie rule decided something while a stale file was read
    neutral: list = dataclasses.field(default_factory=list)  # neutral forms compare gave

    def stale_read(self) -> dict[str, dict]:
        return {b: stale(self.docs[b]) for b in sorted(self.read) if stale(self.docs[b])}


_COMPUTING: contextvars.ContextVar[_Computation | None] = contextvars.ContextVar(
    "computing", default=None
)


class _Reading(dict):
    """A device's documents that note which benchmarks a computation reads."""

    def __init__(self, docs: Docs, seen: set):
        super().__init__(docs)
        self._seen = seen

    def __getitem__(self, bench):
        found = super().__getitem__(bench)
        self._seen.add(bench)
        return found

    def get(self, bench, default=None):
        if bench in self:
            self._seen.add(bench)
        return super().get(bench, default)

    def values(self):
        self._seen.update(self.keys())
        return super().values()

    def items(self):
        self._seen.update(self.keys())
        return super().items()


@contextlib.contextmanager
def reading(docs: Docs):
    """Inside the block, the yielded documents note what is read of them, and ``compare``
    knows whether that includes a stale file; yields (documents, _Computation)."""
    comp = _Computation(docs)
    token = _COMPUTING.set(comp)
    try:
        yield _Reading(docs, comp.read), comp
    finally:
        _COMPUTING.reset(token)


def reading_stale() -> bool:
    """Whether the computation under way has read a stale file (False outside one)."""
    comp = _COMPUTING.get()
    return comp is not None and bool(comp.stale_read())


def _tie_rule_used() -> bool:
    """Note that the tie rule decided something; True where that was on stale data."""
    if reading_stale():
        _COMPUTING.get().tie_rule = True
        return True
    return False


# ---- spread: (median, low, high) triples -------------------------------------------------


def rate(amount: float, s: Spread, unit: float = 1.0) -> tuple[float, float, float]:
    """``amount`` per second over a time spread: (median, low, high), low from the slow p80."""
    return amount / s["p50"] / unit, amount / s["p80"] / unit, amount / s["p20"] / unit


def duration(s: Spread, unit: float = 1.0) -> tuple[float, float, float]:
    """A time spread in ``unit`` seconds: (median, p20, p80)."""
    return s["p50"] / unit, s["p20"] / unit, s["p80"] / unit


# ---- comparisons: a ratio with its spread, and the tie rule ------------------------------


def paired(ours: Spread, peer: Spread) -> Spread | None:
    """The per-round ratio peer / ours (20th, 50th, 80th percentiles) where the two spreads
    were timed head to head, in turn in one comparison (scripts/bench/benchlib.py,
    ``head_to_head``: both carry the same ``ab.group`` and ours has the peer's name under
    ``vs``); None for spreads timed one after the other, as all data before it was."""
    a, b = ours.get("ab"), peer.get("ab")
    if not (a and b) or a["group"] != b["group"] or a["name"] == b["name"]:
        return None
    return ours.get("vs", {}).get(b["name"])


def speedup(ours: Spread, peer: Spread, margin: float = 0.0) -> tuple[float, float, float]:
    """How many times faster ``ours`` is than ``peer`` (two time spreads of one run), as
    (median, low, high); above 1, ours takes less time.

    Timed head to head (``paired``): the per-round ratio's (p50, p20, p80). Each round's
    two calls saw the same clocks, so what drifts between rounds cancels and ``margin`` is
    not applied: the interval is the ratio's own spread.

    Otherwise (data timed one implementation after the other): (peer p50 / ours p50, peer
    p20 / ours p80, peer p80 / ours p20). Pairing opposite percentiles gives the widest
    ratio the two spreads allow, so the interval includes 1 exactly when their ranges
    overlap. ``margin`` widens it further by that fraction each way (``repeat_drift``:
    what the spreads do not show, the drift of a run between two timings of the same
    thing)."""
    ratio = paired(ours, peer)
    if ratio is not None:
        return ratio["p50"], ratio["p20"], ratio["p80"]
    return (
        peer["p50"] / ours["p50"],
        peer["p20"] / ours["p80"] / (1 + margin),
        peer["p80"] / ours["p20"] * (1 + margin),
    )


def ties(low: float, high: float, at: float = 1.0) -> bool:
    """The tie rule: a ratio whose interval [low, high] includes ``at`` (1 for a speed
    ratio, 1 = 100% for a share of a ceiling) is a tie, whatever its median says."""
    _tie_rule_used()
    return low <= at <= high


def repeat_drift(d: dict) -> float:
    """How far apart one run timed the same work twice, as a fraction: every data file's
    ceilings include cuBLAS on 8192³ (``ceilings.matmul``), and a matmul benchmark that
    also times cuBLAS at that size in its rows repeats it minutes later. The largest
    relative gap of the two medians over the dtypes (0 where nothing is repeated). On a
    power-capped GPU this drift can exceed both 20th-80th percentile spreads."""
    gaps = [0.0]
    for dtype, c in d["ceilings"].get("matmul", {}).items():
        for r in d["rows"]:
            same = all(r.get(k) == c[k] for k in ("m", "n", "k"))
            if same and r.get("impl") == "cublas" and r.get("dtype") == dtype and "time_s" in r:
                gaps.append(abs(r["time_s"]["p50"] / c["time_s"]["p50"] - 1))
    return max(gaps)


# Runs time one implementation after another, not interleaved: no difference under 1% is
# called either way. (The variation runs of the methodology appendix put the run-to-run
# drift of a memory-bound median at a few tenths of a percent on one machine.)
TIE_FLOOR = 0.01


def tie_margin(d: dict) -> float:
    """The margin a comparison between two rows of data file ``d`` is widened by: the run's
    ``repeat_drift``, and at least ``TIE_FLOOR``."""
    return max(TIE_FLOOR, repeat_drift(d))


def winner(a: Spread, b: Spread, margin: float = 0.0) -> int:
    """Which of two time spreads is faster by the tie rule (``speedup``, ``ties``): +1 for
    ``a`` (its slowest, p80, below b's fastest, p20, once widened by ``margin``), -1 for
    ``b``, 0 for a tie."""
    _, low, high = speedup(a, b, margin)
    if ties(low, high):
        return 0
    return 1 if low > 1 else -1


COMPARE_WORDS = ("faster than", "as fast as", "slower than")


def compare(
    ours: Spread,
    peer: Spread,
    words: tuple[str, str, str] = COMPARE_WORDS,
    margin: float = TIE_FLOOR,
    neutral: str | None = None,
) -> str:
    """``ours`` against ``peer`` in words, by the tie rule: ``words[0]`` ("faster than")
    when the whole interval of ``speedup`` lies above 1, ``words[1]`` ("as fast as") when
    it includes 1, ``words[2]`` ("slower than") when it lies below. For a value kind that
    gives a sentence its comparison from the data (pass ``tie_margin`` of the data file,
    as the scoreboard does): ``f"the kernel is {compare(ours, peer)} torch.compile"``.

    Computed from a stale data file (see "stale data" above), it claims no result: it
    returns ``neutral``, a form of the sentence that says only that the two were measured
    ("measured against", ``NEUTRAL``, for the standard words; a kind with words of its own
    passes its own, or shows STALE_WORDS)."""
    comp = _COMPUTING.get()
    if comp is not None and comp.stale_read():
        comp.tie_rule = True
        form = neutral if neutral is not None else (NEUTRAL if words == COMPARE_WORDS else None)
        if form is not None:
            comp.neutral.append(form)
            return form
    _, low, high = speedup(ours, peer, margin)
    if ties(low, high):
        return words[1]
    return words[0] if low > 1 else words[2]


# ---- host-bound points ---------------------------------------------------------------------

# A point is host-bound when its host time per call beats its GPU time by more than both
# spreads and by this share: a GPU-bound call's host loop runs at the GPU's pace, a hair
# slower than the events' time (the gaps between kernels), and must not be marked for it.
HOST_BOUND_MARGIN = 0.05
# Nor is a call with more GPU work than this host-bound, whatever its host loop reads: no
# call the book times has a longer host path (the longest host time of a clearly host-bound
# row is about 100 µs, tested against the data), and in head-to-head rounds the host loops
# of GPU-bound calls have read up to 18% slower than the GPU's own time (decode_attention at
# 131,072 keys on the H100: 234 against 199 µs), though the same call's loops timed alone
# agreed with its CUDA graph's replay within 3% (190 against 185 µs, a later H100).
HOST_PATH_LIMIT_S = 150e-6
HOST_BOUND_NOTE = (
    "Hollow markers: host-bound points, where the host's time per call exceeds the GPU's "
    "time (the GPU waits for the next launch there, so they compare launch paths)"
)


def gpu_spread(row: dict) -> Spread | None:
    """The row's GPU time per call: its CUDA-graph replay time (``graph_time_s``: the
    host taken out) where it has one, else its device time (``time_s``)."""
    return row.get("graph_time_s") or row.get("time_s")


def host_bound(row: dict) -> bool:
    """Whether the host, not the GPU, set the pace of the row's calls: its host time per
    call (``host_s``, a loop of back-to-back calls) exceeds its GPU time (``gpu_spread``)
    beyond both spreads, by at least ``HOST_BOUND_MARGIN``, and its GPU time is below
    ``HOST_PATH_LIMIT_S``. Only rows that record a host time can say so; figures draw such
    points hollow, and words that rank two rows must say when either is host-bound."""
    host, gpu = row.get("host_s"), gpu_spread(row)
    if not (host and gpu) or "p20" not in host or "p80" not in gpu:
        return False
    return host["p20"] > gpu["p80"] * (1 + HOST_BOUND_MARGIN) and gpu["p50"] < HOST_PATH_LIMIT_S


def host_bound_markers(trace: dict, bound: list[bool]) -> dict:
    """Mark the host-bound points of a scatter trace: their marker symbol becomes the
    "-open" variant of the trace's own (hollow), and ``meta.host_bound`` lists which points
    are, so the figure's caption can explain the hollow markers once. A trace with none
    is left as it is."""
    if not any(bound):
        return trace
    marker = dict(trace.get("marker") or {})
    base = marker.get("symbol", "circle")
    symbols = base if isinstance(base, list) else [base] * len(bound)
    marker["symbol"] = [
        s + "-open" if b and not str(s).endswith("-open") else s
        for s, b in zip(symbols, bound, strict=True)
    ]
    trace["marker"] = marker
    trace["meta"] = {**trace.get("meta", {}), "host_bound": list(bound)}
    return trace


def us_points(rows: list[dict], time: str = "time_s") -> list[tuple[float, float, float]]:
    """Each row's time spread (``time_s``, or another spread field) in µs: (median, p20,
    p80) points for ``line`` or ``hbar``."""
    return [duration(r[time], 1e-6) for r in rows]


def tbps_points(rows: list[dict], time: str = "time_s") -> list[tuple[float, float, float]]:
    """Each row's ``bytes`` over its time spread (``time_s``, or another spread field of
    the row), in TB/s: (median, low, high) points for ``line`` or ``hbar``."""
    return [rate(r["bytes"], r[time], 1e12) for r in rows]


def tflops_points(rows: list[dict]) -> list[tuple[float, float, float]]:
    """Each row's ``flops`` over its time spread, in TFLOP/s: (median, low, high) points."""
    return [rate(r["flops"], r["time_s"], 1e12) for r in rows]


# ---- plot helpers -----------------------------------------------------------------------


def plot(data, **layout) -> dict:
    """A Plotly figure: its traces and its layout (``xaxis``, ``yaxis``, ``barmode``, ...)."""
    return {"data": list(data), "layout": layout}


def line(
    x,
    points,
    name: str,
    role: str,
    *,
    dash=None,
    mode="lines+markers",
    hover=None,
    spread=True,
    rows=None,
    **extra,
) -> dict:
    """A scatter trace. ``points`` are plain numbers or (median, low, high) triples; with
    triples the spread is drawn as error bars (invisible where it is smaller than a marker).
    ``rows``: the rows behind the points, one each; their host-bound points are drawn
    hollow (``host_bound``, ``host_bound_markers``)."""
    points = list(points)
    triples = bool(points) and isinstance(points[0], tuple)
    y = [p[0] for p in points] if triples else points
    trace = {
        "type": "scatter",
        "mode": mode,
        "x": list(x),
        "y": y,
        "name": name,
        "meta": {"role": role},
        "line": {"dash": dash} if dash else {},
    }
    if triples and spread:
        trace["error_y"] = error_bars(points)
    if hover:
        trace["hovertemplate"] = hover + "<extra>%{fullData.name}</extra>"
    trace.update(extra)
    if rows is not None:
        trace = host_bound_markers(trace, [host_bound(r) for r in rows])
    return trace


def tbps_line(rows: list[dict], x: str, name: str, role: str, *, time="time_s", **extra) -> dict:
    """A line of the rows' TB/s (``tbps_points``: bytes over their ``time`` spread, drawn
    with its spread) against their field ``x``; ``extra`` as for ``line``."""
    return line([r[x] for r in rows], tbps_points(rows, time), name, role, rows=rows, **extra)


def tflops_line(rows: list[dict], x: str, name: str, role: str, **extra) -> dict:
    """A line of the rows' TFLOP/s (``tflops_points``) against their field ``x``."""
    return line([r[x] for r in rows], tflops_points(rows), name, role, rows=rows, **extra)


def error_bars(points) -> dict:
    """Plotly error bars from (median, low, high) triples: the 20th-80th percentile range."""
    return {
        "type": "data",
        "symmetric": False,
        "thickness": 1.2,
        "width": 3,
        "array": [hi - mid for mid, _, hi in points],
        "arrayminus": [mid - lo for mid, lo, _ in points],
    }


def hline(y, x0, x1, name: str, role: str = "ceiling", **extra) -> dict:
    """A dashed horizontal line from x0 to x1: a ceiling or a target."""
    return line([x0, x1], [y, y], name, role, dash="dash", mode="lines", hover="%{y:.3~s}", **extra)


def copy_ceiling(docs: Docs, bench: str, xs, **extra) -> dict:
    """The dashed "copy ceiling (3.01 TB/s)" line across the range of ``xs``, at the copy
    bandwidth the run that wrote ``bench`` measured (a plot in TB/s); ``extra`` goes to
    the trace (say ``legendrank``)."""
    bw = copy(docs, bench) / 1e12
    return hline(bw, min(xs), max(xs), f"copy ceiling ({bw:.2f} TB/s)", **extra)


def vline(x, y0, y1, name: str) -> dict:
    """A thin dotted vertical marker, drawn as a trace (shapes on log axes are easy to misplace)."""
    return line(
        [x, x],
        [y0, y1],
        name,
        "marker",
        dash="dot",
        mode="lines",
        showlegend=False,
        hoverinfo="skip",
    )


def curves(docs: Docs, bench: str, x: str, impls, field: str, styles, **match):
    """The lines a figure draws, one per implementation and style: for each ``(impl,
    label, role)`` of ``impls`` and each ``(value, style)`` of ``styles``, ``(impl, label,
    role, style, rows)``, the rows of ``bench`` with that impl, ``field`` equal to the
    value and the fields of ``match``, in order of ``x``. A pair without rows (a peer that
    did not run) gives no line."""
    for impl, label, role in impls:
        for value, style in styles:
            if found := rows_by(docs, bench, x, impl=impl, **match, **{field: value}):
                yield impl, label, role, style, found


def impl_panes(docs: Docs, bench: str, impls, field: str, panes, draw, x="n", **match):
    """The contents of ``panels``, one panel per ``(value, title)`` of ``panes``: in each, a
    trace per ``(impl, label, role)`` of ``impls`` with rows of ``bench`` whose ``field`` has
    that value (and ``match``), ``draw(its rows in order of x, label, role)``. Returns the
    panes and every ``x`` drawn."""
    out, xs = [], set()
    for value, title in panes:
        traces = []
        for _, label, role, _, rs in curves(docs, bench, x, impls, field, [(value, None)], **match):
            xs |= {r[x] for r in rs}
            traces.append(draw(rs, label, role))
        out.append((title, traces))
    return out, xs


def impl_lines(docs: Docs, bench: str, x: str, impls, points, hover: str, **match) -> list[dict]:
    """A figure's lines, one per implementation: for each ``(impl, label, role[, extra])`` of
    ``impls`` whose rows of ``bench`` match ``match``, their ``points(rows)`` (say
    ``tbps_points``) against their field ``x``, host-bound points hollow; ``extra`` goes
    to ``line`` (``mode``, ``marker``). An implementation without rows draws no line."""
    traces = []
    for impl, label, role, *extra in impls:
        if rs := rows_by(docs, bench, x, impl=impl, **match):
            xs = [r[x] for r in rs]
            traces.append(
                line(xs, points(rs), label, role, hover=hover, rows=rs, **(extra or [{}])[0])
            )
    return traces


def impl_curves(docs: Docs, bench: str, impls, x: str = "cols", **match) -> list[tuple]:
    """``width_figure``'s curves, one per ``(impl, label, role)`` of ``impls`` with rows of
    ``bench`` matching ``match``: the book's kernel (role ``triton``) drawn as ours."""
    found = (
        (rows_by(docs, bench, x, impl=impl, **match), label, role) for impl, label, role in impls
    )
    return [(rs, label, role, role == "triton", {}) for rs, label, role in found if rs]


def width_traces(docs: Docs, bench: str, widths, curves) -> list[dict]:
    """The traces of ``width_figure``: the copy ceiling (drawn first, listed last), the
    peers, then the book's kernels (``ours``), drawn last so that they stay visible where
    a peer lies on top of them."""
    ceiling = copy_ceiling(docs, bench, widths, legendrank=2000)
    hover, ours, peers = "%{x:,} columns<br>%{y:.2f} TB/s", [], []
    for i, (found, name, role, mine, extra) in enumerate(curves):
        trace = tbps_line(found, "cols", name, role, hover=hover, **extra, legendrank=1000 + i)
        (ours if mine else peers).append(trace)
    return [ceiling, *peers, *ours]


WIDTH_AXES = ("columns per row (512 MiB tensors)", "bandwidth (TB/s)")


def width_figure(docs: Docs, bench: str, widths, curves) -> dict:
    """Bandwidth against columns per row, for the row-wise benchmarks (softmax, reduction:
    512 MiB tensors at every width), with the copy ceiling. ``curves`` are ``(rows, name,
    role, ours, extra)`` in legend order, ``extra`` going to ``tbps_line`` (``dash``,
    ``marker``), drawn as ``width_traces`` says."""
    return plot(
        width_traces(docs, bench, widths, curves),
        xaxis=axis(WIDTH_AXES[0], log=True, ticks=widths),
        yaxis=axis(WIDTH_AXES[1], rangemode="tozero"),
    )


def width_panels(docs: Docs, bench: str, widths, panes, columns: int = 2) -> dict:
    """``width_figure`` as small multiples: one panel per ``(title, curves)`` of ``panes``
    (one per dtype, say), each with its copy ceiling, on one bandwidth scale."""
    return panels(
        [(title, width_traces(docs, bench, widths, curves)) for title, curves in panes],
        axis(WIDTH_AXES[0], log=True, ticks=widths),
        axis(WIDTH_AXES[1], rangemode="tozero"),
        columns=columns,
    )


def hbar(labels, points, roles, *, name=None, hover="", text=None, **extra) -> dict:
    """Horizontal bars, one per label (the first on top with ``label_axis``). ``points``
    are plain numbers or (median, low, high) triples, whose spread is drawn as error bars;
    ``roles`` is one colour role for every bar or a list of one per bar; ``text`` labels
    the bars, upright; ``hover`` is the hover template, followed by the trace's name (by
    nothing for a trace without one, or where ``hover`` ends in its own ``<extra>``);
    ``extra`` goes on the trace (say ``textposition``)."""
    points = list(points)
    triples = bool(points) and isinstance(points[0], tuple)
    trace = {"type": "bar", "orientation": "h", **({"name": name} if name else {})}
    trace.update(y=list(labels), x=[p[0] for p in points] if triples else points)
    if triples:
        trace["error_x"] = error_bars(points)
    if text is not None:
        extra = {"text": text, **extra, "textangle": 0}
    trace.update(extra)
    roles = roles if isinstance(roles, list) else [roles] * len(points)
    trace["meta"] = {"role": "bars", "roles": roles}
    if "<extra>" not in hover:
        hover += "<extra>%{fullData.name}</extra>" if name else "<extra></extra>"
    trace["hovertemplate"] = hover
    return trace


def clock_bars(rows: list[dict], labels, clocks, text: Callable[[float], str], hover: str):
    """Grouped bars of each row's time spreads in µs, one trace per ``(field, name, role)``
    of ``clocks`` that every row has, each bar labelled ``text(median seconds)``; returns
    (traces, the names of the clocks some row lacks, up to their first ':')."""
    traces, missing = [], []
    for field, name, role in clocks:
        if not all(field in r for r in rows):
            missing.append(name.split(":")[0])
            continue
        shown = [text(r[field]["p50"]) for r in rows]
        traces.append(
            hbar(labels, us_points(rows, field), role, name=name, hover=hover, text=shown)
        )
    return traces, missing


def panels(panes, xaxis: dict, yaxis: dict, *, columns: int = 2, same_y: bool = True) -> dict:
    """Small multiples: one panel per ``(title, traces)`` of ``panes`` (one per dtype, per
    direction, ...) instead of one crowded plot, side by side in ``columns`` on a desk and
    one under the other on a phone (figures.js). Every panel gets a copy of ``xaxis`` and
    ``yaxis`` (with ``same_y``, one y range for all, so heights compare across panels); a
    trace name that recurs in several panels is listed once in the legend, and clicking it
    there hides it in every panel."""
    data, layout, annotations, seen = [], {}, [], set()
    rows = -(-len(panes) // columns)
    for i, (title, traces) in enumerate(panes, start=1):
        suffix = "" if i == 1 else str(i)
        for t in traces:
            t = {**t, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}", "legendgroup": t["name"]}
            if t["name"] in seen or t.get("showlegend") is False:
                t["showlegend"] = False
            seen.add(t["name"])
            data.append(t)
        layout[f"xaxis{suffix}"] = json.loads(json.dumps(xaxis))
        layout[f"yaxis{suffix}"] = {
            **json.loads(json.dumps(yaxis)),
            **({"matches": "y"} if same_y and i > 1 else {}),
        }
        annotations.append(
            {
                "text": f"<b>{title}</b>",
                "xref": f"x{suffix} domain",
                "yref": f"y{suffix} domain",
                "x": 0,
                "y": 1,
                "xanchor": "left",
                "yanchor": "bottom",
                "yshift": 4,
                "showarrow": False,
                "meta": "panel-title",
            }
        )
    grid = {"rows": rows, "columns": columns, "pattern": "independent", "roworder": "top to bottom"}
    return {"data": data, "layout": {**layout, "grid": grid, "annotations": annotations}}


def bar_chart(traces, title: str, labels: str | None = None, *, group=True, **layout) -> dict:
    """Horizontal bars (``hbar`` traces), grouped unless ``group`` is False: the value axis
    titled ``title``, from zero, and the label axis (``label_axis``) titled ``labels``;
    ``layout`` as for ``plot`` (``height``, ``showlegend``, ...)."""
    grouped = {"barmode": "group"} if group else {}
    xaxis = axis(title, rangemode="tozero")
    return plot(traces, **grouped, xaxis=xaxis, yaxis=label_axis(labels), **layout)


def size_chart(traces, x: str, ticks, y: str, *, y_log=False, panes=False, **layout) -> dict:
    """Lines against a size or a count: the x axis titled ``x``, log, with ``ticks`` marked
    (sorted); the y axis titled ``y``, from zero (log with ``y_log``). ``traces`` go to
    ``plot`` with ``layout``, or, with ``panes``, are ``panels``' panes (``layout``: its
    ``columns``, ``same_y``)."""
    xaxis = axis(x, log=True, ticks=sorted(ticks))
    yaxis = axis(y, log=True) if y_log else axis(y, rangemode="tozero")
    if panes:
        return panels(traces, xaxis, yaxis, **layout)
    return plot(traces, xaxis=xaxis, yaxis=yaxis, **layout)


def note(x, y, text: str, **extra) -> dict:
    """A label on a figure, without an arrow (a Plotly annotation; on a log axis its
    coordinate is the log10 of the value); ``extra``: anchors, shifts, references."""
    return {"x": x, "y": y, "text": text, "showarrow": False, **extra}


def arrow(x, y, ax, ay, text: str = "", **extra) -> dict:
    """An arrow from (``ax``, ``ay``) to (``x``, ``y``), both in axis coordinates, its
    label ``text`` at the tail; ``extra`` as for ``note``."""
    return {"x": x, "y": y, "ax": ax, "ay": ay, "axref": "x", "ayref": "y", "text": text,
            "showarrow": True, "arrowhead": 2, **extra}  # fmt: skip


def label_axis(title: str | None = None) -> dict:
    """The label axis of horizontal bars: the first label on top, room for long labels."""
    ax = {"automargin": True, "autorange": "reversed"}
    if title:
        ax["title"] = {"text": title}
    return ax


def axis(title: str, log: bool = False, ticks=None, **extra) -> dict:
    """A Plotly axis. ``ticks``: the values to mark, labelled with thousands separators
    (4,096), which log axes of sizes want rather than Plotly's 2k/5k/10k."""
    ax = {"title": {"text": title}, "type": "log" if log else "linear", "zeroline": False}
    if ticks is not None:
        ax.update(tickvals=list(ticks), ticktext=[f"{t:,}" for t in ticks])
    ax.update(extra)
    return ax


# ---- formats for values -----------------------------------------------------------------


def tbps(v: float) -> str:
    return f"{v / 1e12:.2f} TB/s"


def tflops(v: float) -> str:
    return f"{v / 1e12:.0f} TFLOP/s"


def count(v: int) -> str:
    return f"{v:,}"


def ratio(v: float) -> str:
    return f"{v:.2f}×" if v < 10 else f"{v:.0f}×"


def ratio_span(mid: float, low: float, high: float, percent: bool = False) -> str:
    """A ratio with the spread of its rounds: "1.06× (1.03–1.09)" or "97% (96–98%)", with a
    digit more where two decimals would round an interval that excludes 1 onto it (a
    "0.999× (0.995–0.999)" that would read as reaching 1)."""
    digits = 2
    if not ties(low, high) and round(low, 2) <= 1 <= round(high, 2):
        digits = 3
    if percent:
        d = digits - 2
        return f"{mid:.{d}%} ({low * 100:.{d}f}–{high * 100:.{d}f}%)"
    return f"{mid:.{digits}f}× ({low:.{digits}f}–{high:.{digits}f})"


def ratio3(v: float) -> str:
    """A ratio with three decimals: near 1.00× two decimals hide which side of 1 it is."""
    return f"{v:.3f}×"


def percent(v: float) -> str:
    return f"{v:.0%}"


def whole(v: float) -> str:
    return f"{v:.0f}"


def plain(v) -> str:
    return str(v)


def or_not_measured(fmt: Callable[[object], str]) -> Callable[[object], str]:
    """``fmt``, except that None (a peer that did not run, say Liger-Kernel not installed)
    shows as words instead of failing or printing 'nan'."""

    def show(v) -> str:
        return "not measured" if v is None else fmt(v)

    return show


def micros(digits: int) -> Callable[[float], str]:
    """Seconds shown in µs with ``digits`` decimals."""
    return functools.partial(_unit, scale=1e6, unit="µs", digits=digits)


def millis(digits: int) -> Callable[[float], str]:
    """Seconds shown in ms with ``digits`` decimals."""
    return functools.partial(_unit, scale=1e3, unit="ms", digits=digits)


def _unit(v: float, scale: float, unit: str, digits: int) -> str:
    return f"{v * scale:.{digits}f} {unit}"


def seconds(digits: int) -> Callable[[float], str]:
    """Seconds shown in s with ``digits`` decimals."""
    return functools.partial(_unit, scale=1, unit="s", digits=digits)


def spans(scale: float, unit: str, digits: int) -> Callable[[Spread], str]:
    """A time spread shown as its 20th to 80th percentile, the unit written once:
    "49.7–85.4 µs" (``scale`` 1e6, ``unit`` "µs", one decimal)."""

    def show(s: Spread) -> str:
        return f"{s['p20'] * scale:.{digits}f}–{s['p80'] * scale:.{digits}f} {unit}"

    return show


def sci(v: float) -> str:
    """A small number in scientific notation, two significant figures: '−6.5 × 10⁻⁴'."""
    if v == 0:
        return "0"
    mantissa, exponent = f"{v:.1e}".split("e")
    return f"{mantissa.replace('-', '−')} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def percent1(v: float) -> str:
    return f"{v:.1%}"


def gb(v: float) -> str:
    """Bytes in GB (10^9) with two decimals."""
    return f"{v / 1e9:.2f} GB"


def gb1(v: float) -> str:
    """Bytes in GB with one decimal (a model's count, say, not a measurement's)."""
    return f"{v / 1e9:.1f} GB"


def mb(v: float) -> str:
    """Bytes in whole MB (10^6)."""
    return f"{v / 1e6:,.0f} MB"


def kb_mb(v: float) -> str:
    """Bytes in decimal units, as worked numbers count them: whole MB from 100 MB, MB with
    one decimal from 1 MB, else whole KB."""
    if v >= 100e6:
        return mb(v)
    return f"{v / 1e6:.1f} MB" if v >= 1e6 else f"{v / 1e3:,.0f} KB"


def kib(v: float) -> str:
    """Bytes in whole KiB (2^10)."""
    return f"{v / 2**10:,.0f} KiB"


def bytes_kib(v: int) -> str:
    """Bytes, then in KiB: '98,304 bytes (96 KiB)'."""
    return f"{v:,} bytes ({v / 2**10:.0f} KiB)"


def mib(v: float) -> str:
    """Bytes in whole MiB (2^20), as a GPU's cache sizes are given."""
    return f"{v / 2**20:,.0f} MiB"


def gib(v: float) -> str:
    """Bytes in GiB (2^30) with one decimal."""
    return f"{v / 2**30:.1f} GiB"


def mib_gib(v: float) -> str:
    """Bytes in GiB from 1 GiB, else in MiB."""
    return gib(v) if v >= 2**30 else mib(v)


# The formats a placeholder may pick with ``as=NAME``; the Value's own format is the default.
FORMATS: dict[str, Callable[[object], str]] = {
    "plain": plain,
    "count": count,
    "whole": whole,
    "ratio": ratio,
    "ratio3": ratio3,
    "percent": percent,
    "percent1": percent1,
    "sci": sci,
    "tbps": tbps,
    "tflops": tflops,
    "gb": gb,
    "gb1": gb1,
    "mb": mb,
    "kb_mb": kb_mb,
    "kib": kib,
    "bytes_kib": bytes_kib,
    "mib": mib,
    "gib": gib,
    "mib_gib": mib_gib,
    **{f"us{d}": micros(d) for d in range(4)},
    **{f"ms{d}": millis(d) for d in range(4)},
    **{f"s{d}": seconds(d) for d in range(4)},
    # a time spread (a kind that returns one): its 20th to 80th percentile
    **{f"span_us{d}": spans(1e6, "µs", d) for d in range(4)},
    **{f"span_ms{d}": spans(1e3, "ms", d) for d in range(4)},
}


# ---- the registry -----------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """A figure: ``build(docs)`` draws it from one device's documents. A figure whose
    numbers are counted from shapes rather than measured (bytes a kernel must move, the
    memory a tensor takes) gives ``counted``, what was counted and how ("bytes each version
    reads and writes, from the tensor shapes"): it is drawn once, captioned "Counted: ..."
    instead of "Measured on ...", with no device switch, and the build fails if two
    devices' data would draw it differently. ``alt``, the text a screen reader gives for
    it, is by default ``build``'s docstring (its whitespace collapsed): what the function
    draws, said once."""

    title: str
    needs: tuple[str, ...]  # benchmarks whose data it draws (their provenance is the caption)
    build: Callable[[Docs], dict]
    alt: str = ""
    counted: str | None = None

    def __post_init__(self):
        if not self.alt:
            alt = " ".join((self.build.__doc__ or "").split())
            if not alt:
                raise RenderError(f"figure {self.title!r}: give alt, or a docstring to its build")
            object.__setattr__(self, "alt", alt)


def named(name: str, docstring: str, compute: Callable) -> Callable:
    """``compute`` with a name and a docstring, as the value registry wants: for value
    functions made by a factory (one per size, dtype or peer)."""
    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = docstring
    return compute


@dataclass(frozen=True)
class Value:
    """A kind of number: ``compute(docs, **parameters)`` (a named function with a
    docstring, parameters annotated), its default ``format``, and the words shown when
    compute returns None (not measured on this device), if it may."""

    compute: Callable[..., object]
    format: Callable[[object], str] = plain
    missing: str | None = None

    def text(self, value, fmt: Callable[[object], str] | None = None) -> str:
        if value is None and self.missing is not None:
            return self.missing
        return (fmt or self.format)(value)


@dataclass(frozen=True)
class Table:
    """A table with a column per device: ``cells(docs)`` is one device's cells, ``{row
    label: text}`` in row order, each label a tuple of words for the leading columns
    ``head`` names (a row the device cannot fill is left out: it shows "—"); ``reads``
    the benchmarks it draws on. A device gets a column when it has any of them, and the
    line under the table gives the run of each one it has, plus ``note(docs)`` if given."""

    reads: tuple[str, ...]
    cells: Callable[[Docs], dict[tuple[str, ...], str]]
    head: tuple[str, ...] = ("case", "against")
    note: Callable[[Docs], str] | None = None


@dataclass
class Registry:
    figures: dict[str, Figure]
    values: dict[str, Value]
    tables: dict[str, Table] = dataclasses.field(default_factory=dict)


# ---- value parameters: from the placeholder's words to the function's arguments ---------


@dataclass(frozen=True)
class Param:
    name: str
    kind: object  # int, float, str, bool, or a tuple of the allowed values (a Literal)
    default: object = inspect.Parameter.empty
    optional: bool = False  # annotated ``X | None``: the word ``none`` gives None

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def describe(self) -> str:
        if isinstance(self.kind, tuple):
            return "|".join(map(str, self.kind))
        return self.kind.__name__

    def convert(self, word: str):
        if self.optional and word == "none":
            return None
        if isinstance(self.kind, tuple):
            for choice in self.kind:
                if str(choice) == word:
                    return choice
            raise ValueError(f"is not one of {self.describe()}")
        if self.kind is bool:
            if word not in ("true", "false"):
                raise ValueError("is not true or false")
            return word == "true"
        try:
            return self.kind(word)
        except ValueError:
            raise ValueError(f"is not {WORDS[self.kind]}") from None


_SIMPLE = (int, float, str, bool)
WORDS = {int: "a whole number (int)", float: "a number (float)", str: "a word (str)"}


def _param(name: str, annotation, default) -> Param:
    optional = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(parts) != 1 or len(typing.get_args(annotation)) != 2:
            raise RenderError(f"parameter {name!r}: only 'X | None' unions are understood")
        annotation, optional = parts[0], True
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
        if not all(isinstance(c, (int, str)) and not isinstance(c, bool) for c in choices):
            raise RenderError(f"parameter {name!r}: a Literal of words or whole numbers")
        return Param(name, tuple(choices), default, optional)
    if annotation not in _SIMPLE:
        raise RenderError(
            f"parameter {name!r} is annotated {annotation!r}: use int, float, str, bool, "
            "a Literal, or one of them | None"
        )
    return Param(name, annotation, default, optional)


@functools.cache
def parameters(compute: Callable) -> dict[str, Param]:
    """The parameters a value kind takes (every argument after ``docs``), from its
    signature and annotations."""
    hints = typing.get_type_hints(compute)
    found = {}
    for i, p in enumerate(inspect.signature(compute).parameters.values()):
        if i == 0:
            continue  # docs
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or p.name not in hints:
            raise RenderError(f"parameter {p.name!r} must be a named, annotated argument")
        found[p.name] = _param(p.name, hints[p.name], p.default)
    return found


@dataclass(frozen=True)
class Use:
    """One value as a page or a widget names it: the kind, its parameters as written, and
    the format chosen with ``as=`` (None: the kind's own)."""

    kind: str
    params: tuple[tuple[str, str], ...] = ()
    fmt: str | None = None

    def __str__(self) -> str:
        words = [self.kind, *(f"{k}={v}" for k, v in self.params)]
        return " ".join(words + ([f"as={self.fmt}"] if self.fmt else []))


def parse_use(words: list[str]) -> Use:
    """``KIND [NAME=VALUE ...] [as=FORMAT]``, as a placeholder writes it."""
    if not words:
        raise RenderError("a value needs a kind")
    kind, params, fmt, seen = words[0], [], None, set()
    for word in words[1:]:
        name, eq, text = word.partition("=")
        if not eq or not name or not text:
            raise RenderError(f"value {kind}: {word!r} is not NAME=VALUE")
        if name in seen:
            raise RenderError(f"value {kind}: parameter {name!r} given twice")
        seen.add(name)
        if name == "as":
            fmt = text
        else:
            params.append((name, text))
    return Use(kind, tuple(params), fmt)


def parse_widget_word(word: str) -> Use:
    """A widget's ``data-values`` word: ``KIND`` or ``KIND:NAME=VALUE,NAME=VALUE``."""
    kind, _, rest = word.partition(":")
    use = parse_use([kind, *(rest.split(",") if rest else [])])
    if use.fmt is not None:
        raise RenderError(f"widget value {word!r}: widgets get the number unformatted, no as=")
    return use


def bind(use: Use, reg: Registry) -> tuple[Value, dict, Callable[[object], str] | None]:
    """The kind's Value, its arguments converted, and the format ``as=`` picked."""
    if use.kind not in reg.values:
        raise RenderError(f"unknown value {use.kind!r}; known: {sorted(reg.values)}")
    val = reg.values[use.kind]
    spec = parameters(val.compute)
    args = {}
    for name, text in use.params:
        if name not in spec:
            takes = ", ".join(f"{p.name}=<{p.describe()}>" for p in spec.values()) or "nothing"
            raise RenderError(f"value {use.kind} has no parameter {name!r} (it takes {takes})")
        try:
            args[name] = spec[name].convert(text)
        except ValueError as exc:
            raise RenderError(f"value {use.kind}: {name}={text} {exc}") from None
    missing = [p for p in spec.values() if p.required and p.name not in args]
    if missing:
        need = " ".join(f"{p.name}=<{p.describe()}>" for p in missing)
        raise RenderError(f"value {use.kind} needs {need}")
    fmt = None
    if use.fmt is not None:
        if use.fmt not in FORMATS:
            raise RenderError(f"value {use.kind}: as={use.fmt} is not one of {sorted(FORMATS)}")
        fmt = FORMATS[use.fmt]
    return val, args, fmt


# ---- discovery --------------------------------------------------------------------------


def figure_modules(package: str = "figures", reload: bool = False) -> list:
    """The figure modules of ``package``, by name; ``reload`` re-reads each from disk."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    pkg = importlib.import_module(package)
    found = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        qualified = f"{package}.{info.name}"
        if reload and qualified in sys.modules:
            found.append(importlib.reload(sys.modules[qualified]))
        else:
            found.append(importlib.import_module(qualified))
    return found


def discover(package: str = "figures") -> Registry:
    """Every figure module ``<package>/M.py``: its FIGURES, VALUES, TABLES and ROOFLINE,
    checked.

    Modules already imported are reloaded, so ``mkdocs serve`` picks up an edited one."""
    reg = Registry({}, {})
    owner: dict[str, str] = {}
    for module in figure_modules(package, reload=True):
        name = module.__name__.rpartition(".")[2]
        stem = name.replace("_", "-")
        for fig_name, fig in getattr(module, "FIGURES", {}).items():
            if not (fig_name == stem or fig_name.startswith(stem + "-")):
                raise RenderError(
                    f"figure {fig_name!r} in {name}.py must be {stem!r} or start with '{stem}-'"
                )
            if not isinstance(fig, Figure):
                raise RenderError(f"figure {fig_name!r} in {name}.py is not a render.Figure")
            _claim(owner, f"figure {fig_name}", name)
            reg.figures[fig_name] = fig
        for key, val in getattr(module, "VALUES", {}).items():
            if not key.startswith(name + "."):
                raise RenderError(f"value {key!r} in {name}.py must start with '{name}.'")
            if not isinstance(val, Value) or not (val.compute.__doc__ or "").strip():
                raise RenderError(
                    f"value {key!r} in {name}.py must be a render.Value "
                    "around a named function with a docstring"
                )
            try:
                parameters(val.compute)
            except RenderError as exc:
                raise RenderError(f"value {key!r} in {name}.py: {exc}") from None
            _claim(owner, f"value {key}", name)
            reg.values[key] = val
        for table_name, table in getattr(module, "TABLES", {}).items():
            if not (table_name == stem or table_name.startswith(stem + "-")):
                raise RenderError(
                    f"table {table_name!r} in {name}.py must be {stem!r} or start with '{stem}-'"
                )
            if not isinstance(table, Table):
                raise RenderError(f"table {table_name!r} in {name}.py is not a render.Table")
            _claim(owner, f"table {table_name}", name)
            reg.tables[table_name] = table
        for bench, points in getattr(module, "ROOFLINE", {}).items():
            if not callable(points):
                raise RenderError(f"ROOFLINE[{bench!r}] in {name}.py is not a function")
            _claim(owner, f"roofline points of {bench}", name)
    return reg


def roofline_point(row: dict, kernel: str, flops: float | None = None, moved: int | None = None):
    """One point of lesson 01's roofline: ``kernel`` (its label) with the row's median
    time, and its ``flops`` and bytes (``moved``), by default the row's own fields."""
    return {
        "kernel": kernel,
        "flops": row["flops"] if flops is None else flops,
        "bytes": row["bytes"] if moved is None else moved,
        "seconds": row["time_s"]["p50"],
    }


def roofline_points(docs: Docs, package: str = "figures") -> list[dict]:
    """Lesson 01's roofline points for one device: each figure module's ``ROOFLINE``
    (``{benchmark: points(rows)}``, each point ``kernel``, ``flops``, ``bytes``,
    ``seconds``) applied to the rows of the benchmarks this device has, by benchmark name."""
    found = {}
    for module in figure_modules(package):
        found.update(getattr(module, "ROOFLINE", {}))
    points = []
    for bench in sorted(found):
        if bench in docs:
            points += found[bench](docs[bench]["rows"])
    return points


def _claim(owner: dict[str, str], what: str, module: str) -> None:
    if what in owner:
        raise RenderError(f"{what} is defined twice ({owner[what]}.py, {module}.py)")
    owner[what] = module


@functools.cache
def registry() -> Registry:
    return discover()


# ---- placeholders -----------------------------------------------------------------------

# Anything between double braces, where it may hold other placeholders one level deep (a
# ``choose``'s phrasings may hold values); a single brace inside is not allowed.
PLACEHOLDER = re.compile(r"\{\{((?:[^{}]|\{\{[^{}]*\}\})*?)\}\}", re.S)


def caption(docs: Docs, needs: tuple[str, ...], extra=()) -> str:
    """Where and when the data of a figure was measured; one part per distinct run, then
    a power-capped run's note and the ``extra`` notes (the hollow markers'). A stale file
    among ``needs`` adds its ``stale_words`` at the end, after STALE_MARK (see "stale
    data")."""
    warnings = list(dict.fromkeys(w for b in needs if (w := stale_words(docs[b]))))
    runs: dict[tuple, dict] = {}
    for bench in needs:
        p = docs[bench]["provenance"]
        runs.setdefault((p["commit"], p["date"]), p)
    head = next(iter(runs.values()))
    parts = [
        f"Measured on {head['gpu']} ({head['sm_count']} SMs) · driver {head['driver']} · "
        f"CUDA {head['cuda']} · torch {head['torch']} · triton {head['triton']}"
    ]
    for p in runs.values():
        dirty = " (uncommitted changes)" if p.get("dirty") else ""
        clocks = p.get("clocks_after") or {}
        sm = ""
        if clocks.get("sm_mhz") and clocks.get("sm_max_mhz"):
            sm = f" · SM clock after run {clocks['sm_mhz']:.0f} of {clocks['sm_max_mhz']:.0f} MHz"
        part = f"{p['date'][:10]} · commit {p['commit'][:10]}{dirty}{sm}"
        if part not in parts:  # two files of one run read the same: say it once
            parts.append(part)
    capped = power_note([docs[b]["provenance"] for b in needs])
    tail = ([capped] if capped else []) + list(extra)
    return " · ".join(parts + tail + [f"{STALE_MARK} {w}" for w in warnings])


def power_note(provs: list[dict]) -> str:
    """The caption's words for a power-capped run, from the power and SM clock sampled
    while the benchmarks ran (provenance ``power``); "" where none was capped, or none
    was sampled (runs before the sampler)."""
    capped = [p["power"] for p in provs if (p.get("power") or {}).get("capped")]
    if not capped:
        return ""
    worst = max(capped, key=lambda w: w["at_limit_share"])
    words = "power-capped while measured"
    if worst.get("power_limit_w"):
        words += (
            f": {worst['at_limit_share']:.0%} of samples within 3% of the "
            f"{worst['power_limit_w']:.0f} W limit"
        )
    clocks = [w for w in capped if w.get("busy_sm_mhz") and w.get("sm_max_mhz")]
    if clocks:
        slowest = min(clocks, key=lambda w: w["busy_sm_mhz"] / w["sm_max_mhz"])
        words += (
            f", SM clock {slowest['busy_sm_mhz']:.0f} of {slowest['sm_max_mhz']:.0f} MHz "
            "under load (median)"
        )
    return words


def any_host_bound(plot: dict) -> bool:
    """Whether any trace of a figure draws a host-bound point (``host_bound_markers``)."""
    return any(any((t.get("meta") or {}).get("host_bound", ())) for t in plot.get("data", ()))


def caption_html(entry: dict) -> str:
    """A figure entry's caption as HTML: where and when, then, for stale data, why it is
    older than the code on a line of its own (as docs/assets/js/figures.js draws it)."""
    if not entry.get("stale"):
        return html.escape(entry["caption"])
    base = entry["caption"].split(f" · {STALE_MARK} ")[0]
    why = html.escape(f"{STALE_MARK} {entry['stale']}")
    return f'{html.escape(base)}<span class="book-figure__stale">{why}</span>'


def _note_stale(seen: dict | None, slug: str, docs: Docs, benches) -> list[str]:
    """The stale ones of ``benches`` (sorted), recorded in ``seen`` as (slug, bench)."""
    found = [b for b in sorted(set(benches)) if b in docs and stale(docs[b])]
    if seen is not None:
        for b in found:
            seen[(slug, b)] = stale(docs[b])
    return found


def figure_html(
    name: str, devices: dict[str, Docs], reg: Registry | None = None, seen: dict | None = None
) -> str:
    """A figure's HTML: its data per device, each with its caption. ``seen`` collects the
    stale files it drew on, as (device, benchmark): why."""
    reg = reg or registry()
    if name not in reg.figures:
        raise RenderError(f"unknown figure {name!r}; known: {sorted(reg.figures)}")
    fig = reg.figures[name]
    entries = []
    for slug, docs in devices.items():
        if not all(b in docs for b in fig.needs):
            continue
        try:
            with reading(docs) as (read, comp):
                plot = fig.build(read)
        except (KeyError, IndexError, RenderError) as exc:
            raise RenderError(
                f"figure {name!r} cannot be drawn from {slug!r} data: {exc!r}"
            ) from exc
        drawn = tuple(dict.fromkeys([*fig.needs, *sorted(comp.read)]))
        note = [HOST_BOUND_NOTE] if any_host_bound(plot) else []
        entry = {
            "slug": slug,
            "label": provenance(docs)["gpu"],
            "caption": caption(docs, drawn, note),
            "plot": plot,
        }
        if old := _note_stale(seen, slug, docs, drawn):
            entry["stale"] = " · ".join(dict.fromkeys(stale_words(docs[b]) for b in old))
        entries.append(entry)
    if not entries:
        raise RenderError(f"figure {name!r} needs {fig.needs}; no device in figures/data has them")
    payload = {"id": name, "title": fig.title, "devices": entries}
    if fig.counted:
        differ = [e["slug"] for e in entries[1:] if e["plot"] != entries[0]["plot"]]
        if differ:
            raise RenderError(
                f"figure {name!r} is counted, not measured, yet {differ} draw it differently "
                f"from {entries[0]['slug']!r}"
            )
        first = entries[0]
        text = f"Counted: {fig.counted}"
        if first.get("stale"):
            text += f" · {STALE_MARK} {first['stale']}"
        payload.update(devices=[dict(first, label="", caption=text)], counted=True)
        entries = payload["devices"]
    group = "counted" if fig.counted else "measured on"
    stale_first = bool(entries[0].get("stale"))
    # JSON inside <script>: escape '<' so that no '</script>' can end the element early.
    blob = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    return (
        f'<div class="book-figure" id="fig-{name}" data-figure="{name}" role="figure" '
        f'aria-label="{html.escape(fig.alt)}">'
        f'<div class="book-figure__title">{html.escape(fig.title)}</div>'
        f'<div class="book-figure__devices" role="group" aria-label="{group}"></div>'
        # No role="img" here: Plotly puts focusable controls inside the plot.
        f'<div class="book-figure__plot"></div>'
        f'<div class="book-figure__caption{" book-figure__caption--stale" * stale_first}">'
        f"{caption_html(entries[0])}</div>"
        f'<script type="application/json" class="book-figure__data">{blob}</script>'
        f"</div>"
    )


NOT_THERE = "—"  # a table cell a device has no data for


def table_markdown(
    name: str, devices: dict[str, Docs], reg: Registry | None = None, seen: dict | None = None
) -> str:
    """``{{ table NAME }}``: a Markdown table, rows by label, a column per device that has
    any of the table's benchmarks, then one line per device naming its runs (caption). A
    column drawn from a stale file marks each cell with STALE_MARK, and its line says why."""
    reg = reg or registry()
    if name not in reg.tables:
        raise RenderError(f"unknown table {name!r}; known: {sorted(reg.tables)}")
    table = reg.tables[name]
    columns = []
    for slug, docs in devices.items():
        have = tuple(b for b in table.reads if b in docs)
        if not have:
            continue
        try:
            with reading(docs) as (read, comp):
                cells = table.cells(read)
        except (KeyError, IndexError, RenderError) as exc:
            raise RenderError(
                f"table {name!r} cannot be built from {slug!r} data: {exc!r}"
            ) from exc
        drawn = tuple(dict.fromkeys([*have, *sorted(comp.read)]))
        old = _note_stale(seen, slug, docs, drawn)
        if old:
            cells = {label: f"{text} {STALE_MARK}" for label, text in cells.items()}
        extra = table.note(docs) if table.note else ""
        run = caption(docs, drawn) + (f" · {extra}" if extra else "")
        columns.append((provenance(docs)["gpu"], cells, run))
    if not columns:
        raise RenderError(f"table {name!r} reads {table.reads}; no device in figures/data has them")
    labels: list[tuple[str, ...]] = []
    for _, cells, _ in columns:
        labels += [label for label in cells if label not in labels]
    lines = [
        "| " + " | ".join([*table.head, *(gpu for gpu, _, _ in columns)]) + " |",
        "|" + "---|" * (len(table.head) + len(columns)),
    ]
    before: tuple[str, ...] = ()
    for label in labels:
        if len(label) != len(table.head):
            raise RenderError(f"table {name!r}: row {label} does not match columns {table.head}")
        # A leading word the row above already shows is left blank: rows read as groups.
        shown = [w if label[: i + 1] != before[: i + 1] else "" for i, w in enumerate(label)]
        shown[-1] = label[-1]
        before = label
        row = [*shown, *(cells.get(label, NOT_THERE) for _, cells, _ in columns)]
        lines.append("| " + " | ".join(row) + " |")
    runs = [f"- {text}" for _, _, text in columns]
    return "\n".join(lines) + "\n\n" + "\n".join(runs) + "\n"


def compute(use: Use, docs: Docs, reg: Registry | None = None):
    """The unformatted value ``use`` names, on one device's documents."""
    val, args, _ = bind(use, reg or registry())
    return val.compute(docs, **args)


def value_text(
    device_query: str,
    spec: str | Use,
    devices: dict[str, Docs],
    reg: Registry | None = None,
    seen: dict | None = None,
) -> str:
    """The text of ``{{ value DEVICE SPEC }}``: ``spec`` is ``KIND [NAME=VALUE ...]
    [as=FORMAT]`` (a string, as on a page) or a Use. ``seen`` collects the stale files it
    read; words the tie rule decided on one are shown in their neutral form (``compare``)
    or, where the kind has none, as STALE_WORDS."""
    reg = reg or registry()
    use = spec if isinstance(spec, Use) else parse_use(spec.split())
    val, args, fmt = bind(use, reg)
    slug = resolve_device(device_query, devices)
    try:
        with reading(devices[slug]) as (read, comp):
            value = val.compute(read, **args)
            text = val.text(value, fmt)
    except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise RenderError(f"value {use} cannot be computed from {slug!r} data: {exc!r}") from exc
    _note_stale(seen, slug, devices[slug], comp.read)
    if comp.tie_rule and isinstance(value, str) and not any(n in value for n in comp.neutral):
        return STALE_WORDS
    return text


PLACEHOLDER_HELP = (
    "'{{ figure NAME }}', '{{ value DEVICE KIND [NAME=VALUE ...] [as=FORMAT] }}', "
    "'{{ table NAME }}' or '{{ choose DEVICE | CONDITION => TEXT | ... }}'"
)


# ---- choose: the page's phrasings, picked by the data ("Choosing words" above) ------------

CHOOSE_OPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


@dataclass(frozen=True)
class Case:
    """One phrasing of a ``choose``: shown where ``left OP right`` holds; ``left`` is None
    for the ``else`` and ``stale`` phrasings (``op`` names which)."""

    left: Use | None
    op: str
    right: Use | float | str | None
    text: str


def parse_choose(body: str) -> tuple[str, list[Case]]:
    """The device and the cases of ``choose DEVICE | CONDITION => TEXT | ...``."""
    head, *parts = body.split("|")
    words = head.split()
    if words[:1] != ["choose"] or len(words) != 2 or not parts:
        raise RenderError(f"write '{{{{ choose DEVICE | CONDITION => TEXT | ... }}}}': {body!r}")
    device, cases = words[1], []
    for part in parts:
        cond, arrow, text = part.partition("=>")
        if not arrow:
            raise RenderError(f"choose: {part.strip()!r} is not 'CONDITION => TEXT'")
        text, words = " ".join(text.split()), cond.split()
        if words in (["else"], ["stale"]):
            cases.append(Case(None, words[0], None, text))
            continue
        at = next((i for i, w in enumerate(words) if w in CHOOSE_OPS), None)
        if not at or at == len(words) - 1:
            raise RenderError(f"choose: {cond.strip()!r} is not 'KIND [NAME=VALUE ...] OP X'")
        rest = " ".join(words[at + 1 :])
        if rest.startswith('"') and rest.endswith('"') and len(rest) > 1:
            right: Use | float | str | None = rest[1:-1]
        elif rest == "none" and words[at] in ("==", "!="):
            right = None
        else:
            try:
                right = float(rest)
            except ValueError:
                right = parse_use(words[at + 1 :])
        cases.append(Case(parse_use(words[:at]), words[at], right, text))
    return device, cases


def choose_uses(body: str) -> list[Use]:
    """The values a ``choose`` reads, in its conditions and its phrasings' placeholders."""
    _, cases = parse_choose(body)
    found = [u for c in cases for u in (c.left, c.right) if isinstance(u, Use)]
    return found + [use for c in cases for _, use in placeholders(c.text)]


def choose_text(
    body: str, devices: dict[str, Docs], reg: Registry | None = None, seen: dict | None = None
) -> str:
    """The phrasing ``{{ choose ... }}`` (``body``: the words between the braces) picks on
    its device: the first case whose condition holds, else the ``else`` case; the
    ``stale`` case (or STALE_WORDS) where any file read to decide is stale."""
    reg = reg or registry()
    device, cases = parse_choose(body)
    slug = resolve_device(device, devices)
    bound = {u: bind(u, reg) for c in cases for u in (c.left, c.right) if isinstance(u, Use)}

    def read(use: Use, none_ok: bool = False):
        val, args, _ = bound[use]
        value = val.compute(docs, **args)
        if value is None and not none_ok:
            raise RenderError(f"choose: value {use} is not measured on {slug!r}")
        return value

    found = None
    with reading(devices[slug]) as (docs, comp):
        try:
            for case in cases:
                if case.op == "else":
                    found = case
                elif case.left is not None:
                    right = read(case.right) if isinstance(case.right, Use) else case.right
                    left = read(case.left, none_ok=case.right is None)
                    found = case if CHOOSE_OPS[case.op](left, right) else None
                if found:
                    break
        except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
            raise RenderError(f"choose cannot be decided from {slug!r} data: {exc!r}") from exc
    if _note_stale(seen, slug, devices[slug], comp.read):
        return next((c.text for c in cases if c.op == "stale"), STALE_WORDS)
    if found is None:
        raise RenderError(f"choose on {slug!r}: no condition holds and there is no else")
    return expand(found.text, devices, reg, seen)


def expand(
    markdown: str, devices: dict[str, Docs], reg: Registry | None = None, seen: dict | None = None
) -> str:
    """Replace every placeholder in ``markdown``; raise RenderError on any unknown one.
    ``seen`` (a dict) collects the stale files the page drew on, for ``stale_note``."""

    def sub(match: re.Match) -> str:
        words = match.group(1).split()
        if len(words) == 2 and words[0] == "figure":
            return "\n\n" + figure_html(words[1], devices, reg, seen) + "\n\n"
        if len(words) == 2 and words[0] == "table":
            return "\n\n" + table_markdown(words[1], devices, reg, seen) + "\n"
        if len(words) >= 3 and words[0] == "value":
            return value_text(words[1], parse_use(words[2:]), devices, reg, seen)
        if words and words[0] == "choose":
            return choose_text(match.group(1), devices, reg, seen)
        raise RenderError(f"unknown placeholder {match.group(0)!r}: use {PLACEHOLDER_HELP}")

    return PLACEHOLDER.sub(sub, markdown)


def placeholders(markdown: str) -> list[tuple[str, Use]]:
    """(device, use) of every value placeholder in ``markdown``, in order, and of every
    value a ``choose`` reads (for tests)."""
    found = []
    for match in PLACEHOLDER.finditer(markdown):
        words = match.group(1).split()
        if len(words) >= 3 and words[0] == "value":
            found.append((words[1], parse_use(words[2:])))
        elif words and words[0] == "choose":
            found += [(words[1], use) for use in choose_uses(match.group(1))]
    return found


def stale_note(seen: dict, devices: dict[str, Docs]) -> str:
    """The note a page opens with when it drew on stale files (``seen``, from ``expand``):
    an admonition naming, per GPU, the data files and the code that changed since."""
    groups: dict[tuple[str, str], list[str]] = {}
    for slug, bench in sorted(seen):
        groups.setdefault((slug, stale_words(devices[slug][bench]) or ""), []).append(bench)
    lines = [
        '!!! warning "Some measurements here are older than the code"',
        "    Part of this page's data was measured before the code it ran last changed, so",
        "    it may not describe the code you read. Its figures say so in their captions,",
        f"    tables mark its cells {STALE_MARK}, and where the page would compare two",
        "    implementations on it, it says only what was measured against what.",
        "",
    ]
    for (slug, words), benches in groups.items():
        files = ", ".join(f"`{b}`" for b in benches)
        gpu = provenance(devices[slug])["gpu"]
        lines.append(f"    - {gpu}: {files}. {words}.")
    return "\n".join(lines) + "\n"


# ---- kinds and figures shared by modules --------------------------------------------------


def _kind(compute: Callable, params: list[inspect.Parameter], doc: str) -> Callable:
    """``compute`` (called with every argument by name) as a value kind taking ``params``
    after docs, with docstring ``doc``; callable as a plain function too."""
    docs = inspect.Parameter("docs", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    signature = inspect.Signature([docs, *params])

    def kind(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return compute(**bound.arguments)

    kind.__signature__ = signature
    kind.__annotations__ = {p.name: p.annotation for p in params}
    return named("kind", doc, kind)


def row_kind(choose: Callable, read: Callable[[dict], object], doc: str) -> Callable:
    """A value kind: ``read(row)`` of the row ``choose(docs, **params)`` picks (None where it
    picks none). Its parameters are ``choose``'s, its docstring ``doc``."""

    def compute(docs: Docs, **params):
        row = choose(docs, **params)
        return None if row is None else read(row)

    return _kind(compute, list(inspect.signature(choose).parameters.values())[1:], doc)


def pair_kind(choose: Callable, over: str, combine: Callable, doc: str, default=None) -> Callable:
    """A value kind comparing two rows: ``combine(docs, a, b)`` of the rows ``choose`` picks
    with its parameter ``over`` set to the kind's ``of`` and ``to`` (its other parameters
    shared), e.g. ``ratio of=triton to=cublas``; ``default``, a pair such as ``("triton",
    "torch")``, gives ``of`` and ``to`` defaults, so that a page may leave them out."""

    def compute(docs: Docs, of, to, **params):
        return combine(
            docs, choose(docs, **{over: of}, **params), choose(docs, **{over: to}, **params)
        )

    params = []
    for p in list(inspect.signature(choose).parameters.values())[1:]:
        if p.name == over:
            of, to = default or (p.default, p.default)
            params += [p.replace(name="of", default=of), p.replace(name="to", default=to)]
        else:
            params.append(p)
    return _kind(compute, params, doc)


def p50(row: dict) -> float:
    """A row's median device time, seconds."""
    return row["time_s"]["p50"]


def middle(spread: Spread) -> float:
    """A time spread's median, seconds (for ``row_kind`` over a chooser of spreads)."""
    return spread["p50"]


# A row's time spread by clock: do_bench's device time, inside a CUDA graph, on the host.
CLOCKS = {"device": "time_s", "graph": "graph_time_s", "host": "host_s"}


def tie(bench: str) -> Callable:
    """For ``pair_kind``: two rows of ``bench`` in words by the tie rule (``tie_words``)."""
    return lambda docs, a, b: tie_words(docs, bench, a, b)


def over(docs: Docs, a: float | None, b: float | None) -> float | None:
    """For ``pair_kind`` over a kind that gives numbers: ``a / b``, None without both."""
    return quotient(a, b)


def divide(read: Callable[[dict], float], minus: float = 0.0) -> Callable:
    """For ``pair_kind``: ``read(a) / read(b) - minus``, None without both rows."""
    return lambda docs, a, b: None if a is None or b is None else read(a) / read(b) - minus


def difference(read: Callable[[dict], float]) -> Callable:
    """For ``pair_kind``: ``read(a) - read(b)``, None without both rows."""
    return lambda docs, a, b: None if a is None or b is None else read(a) - read(b)


def tie_words(
    docs: Docs, bench: str, ours: dict | None, peer: dict | None, words=COMPARE_WORDS
) -> str | None:
    """``ours`` against ``peer``, two rows of one run of ``bench`` (or their time spreads),
    in words by the tie rule (``compare``, widened by the run's ``tie_margin``): "faster
    than", "as fast as" or "slower than"; None where either is missing (not measured)."""
    if ours is None or peer is None:
        return None
    a, b = (s.get("time_s", s) for s in (ours, peer))
    return compare(a, b, words, tie_margin(doc(docs, bench)))


def field(row: dict | None, *keys: str):
    """``row[key][key]...``, or None where there is no row or the row lacks the field
    (not measured, or a row that failed)."""
    for key in keys:
        if row is None:
            return None
        row = row.get(key)
    return row


def time_ratio(of: dict | None, to: dict | None) -> float | None:
    """Median time of row ``of`` over row ``to`` (above 1: ``to`` is faster); None without
    both."""
    return None if of is None or to is None else of["time_s"]["p50"] / to["time_s"]["p50"]


def times_over(of: Spread | None, to: Spread | None) -> float | None:
    """``of``'s median time over ``to``'s, two spreads of one run: the per-round ratio's
    median where the two were timed head to head (``paired``), else the ratio of their
    medians; None without both."""
    if of is None or to is None:
        return None
    ratio = paired(to, of)
    return ratio["p50"] if ratio else of["p50"] / to["p50"]


def per_byte(row: dict) -> Spread:
    """A row's time spread over its bytes: seconds per byte read or written, so that rows
    moving different amounts compare by rate (the faster rate has the shorter time). The
    head-to-head ratio of times (``ab``, ``vs``) is left out: between rows of different
    sizes it is not a ratio of rates, so such a pair compares by the spreads alone."""
    t = row["time_s"]
    return {**{k: t[k] / row["bytes"] for k in ("p20", "p50", "p80")}, "reps": t["reps"]}


def graph_host_bound(row: dict) -> bool:
    """Whether the host, not the GPU, set the row's pace by its two controls: its host
    time per call (a loop of back-to-back calls) exceeds its CUDA-graph replay time (the
    GPU's work alone) beyond both spreads, and that work is below ``HOST_PATH_LIMIT_S``.
    Only rows that record both can say so (the scoreboard's and lesson 09's reading;
    ``host_bound`` is the figures' rule)."""
    host, graph = row.get("host_s"), row.get("graph_time_s")
    return bool(host and graph) and host["p20"] > graph["p80"] and graph["p50"] < HOST_PATH_LIMIT_S


def config_text(r: dict) -> str:
    """A row's matmul config: '128 × 256 × 64, 8 warps, 3 stages'."""
    return (
        f"{r['block_m']} × {r['block_n']} × {r['block_k']}, {r['num_warps']} warps, "
        f"{r['num_stages']} stages"
    )


ELEMENT_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
SHORT_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def short(row: dict) -> dict:
    """``row`` with its ``dtype`` (if any) written as the book's figures write dtypes:
    fp32, fp16, bf16 (``SHORT_DTYPE``), for a label made with ``str.format(**row)``."""
    if row.get("dtype") in SHORT_DTYPE:
        return {**row, "dtype": SHORT_DTYPE[row["dtype"]]}
    return row


def powers(text: str) -> str:
    """Powers written as the book's figures write them, with superscripts: '2^26' becomes
    '2²⁶'."""
    return re.sub(r"(\d+)\^(-?\d+)", lambda m: m[1] + m[2].translate(SUPERSCRIPT), text)


# What one SM can hold at once, by compute capability (CUDA C Programming Guide, "Technical
# Specifications per Compute Capability"): threads, thread blocks (programs) and 32-bit
# registers. Registers go to each warp in units of 256.
SM_LIMITS = {
    "8.0": {"threads": 2048, "blocks": 32, "registers": 65536},
    "8.6": {"threads": 1536, "blocks": 16, "registers": 65536},
    "8.9": {"threads": 1536, "blocks": 24, "registers": 65536},
    "9.0": {"threads": 2048, "blocks": 32, "registers": 65536},
}
REGISTER_UNIT = 256


def sm_limits(docs: Docs) -> dict | None:
    """SM_LIMITS of this device's compute capability, or None where it is not listed."""
    return SM_LIMITS.get(provenance(docs).get("compute_capability"))


def warp_share(n_regs: int) -> int:
    """Registers one warp is given for a kernel of ``n_regs`` registers per thread: times 32,
    rounded up to the SM's unit (REGISTER_UNIT)."""
    return -(-n_regs * 32 // REGISTER_UNIT) * REGISTER_UNIT


def limits_by(capability: str | None, n_regs: int, warps: int) -> dict | None:
    """How many programs of a kernel with ``n_regs`` registers per thread and ``warps``
    warps one SM holds if only its threads, only its program slots ("blocks") or only its
    registers counted (SM_LIMITS of that compute capability); None where it is not in
    SM_LIMITS. Lessons 02, 06 and 13 share this arithmetic (13 adds shared memory)."""
    limits = SM_LIMITS.get(capability)
    if limits is None:
        return None
    return {
        "threads": limits["threads"] // (32 * warps),
        "blocks": limits["blocks"],
        "registers": limits["registers"] // warp_share(n_regs) // warps,
    }


def roofline_rows(label: str, largest: str | None = None, flops=None, moved=None, **where):
    """A ``ROOFLINE`` entry: one point per row whose fields equal ``where`` (with
    ``largest``, also whose field of that name is the largest over all rows), labelled
    ``label.format(**row)``, with ``flops(row)`` and ``moved(row)`` where given, else the
    row's own ``flops`` and ``bytes``."""

    def points(rows: list[dict]) -> list[dict]:
        top = max(r[largest] for r in rows) if largest else None
        return [
            roofline_point(r, label.format(**short(r)), flops and flops(r), moved and moved(r))
            for r in rows
            if all(r[k] == v for k, v in where.items()) and (not largest or r[largest] == top)
        ]

    return points


def resident_on_sm(docs: Docs, n_regs: int, warps: int) -> dict | None:
    """How many programs of a kernel with ``n_regs`` registers per thread and ``warps``
    warps one SM of this device holds, by each limit (``limits_by``) and overall
    (``resident``); None where the run's compute capability is not in SM_LIMITS."""
    by = limits_by(provenance(docs).get("compute_capability"), n_regs, warps)
    return None if by is None else {**by, "resident": min(by.values())}


def code_constant(path: str, name: str):
    """A module-level constant of a repository file (``path`` from the root), read with ast:
    kernels and benchmarks import torch, which the site build does without (lesson 12's
    tile-matmul counts, lesson 05's worked example)."""
    tree = ast.parse((ROOT / path).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError(f"{path} defines no constant {name}")


def time_pair_kinds(choose: Callable, over: str, bench: str) -> tuple[Callable, ...]:
    """The four ``pair_kind`` uses over ``choose`` that compare two rows' median times, as
    the matmul families register them for their epilogues: ``of``'s time over ``to``'s;
    that less 1 (how much longer ``of`` takes); ``of`` against ``to`` in words, by the tie
    rule of ``bench``; ``of``'s time minus ``to``'s, seconds."""
    return (
        pair_kind(choose, over, divide(p50), "``of``'s median time over ``to``'s."),
        pair_kind(choose, over, divide(p50, 1), "How much longer ``of`` takes, a fraction."),
        pair_kind(choose, over, tie(bench), "``of`` against ``to`` in words, by the tie rule."),
        pair_kind(choose, over, difference(p50), "``of``'s median time minus ``to``'s, s."),
    )
