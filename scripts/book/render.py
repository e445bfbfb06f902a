"""The generic engine that turns measured data into Plotly figures and prose numbers.

Used by the MkDocs hook at every site build, with no GPU, so figures can never drift from
the data. What each figure and value *is* lives in the figure modules ``figures/F.py``,
one per kernel family ``F`` (plus ``device``, ``ceilings`` and ``roofline`` for the
run-wide data). They are found, not listed: each module holds ``FIGURES`` (names ``F`` or
``F-...``, with ``_`` written ``-``) and ``VALUES`` (keys ``F.<name>``).

Two placeholders are understood in lesson Markdown:

    {{ figure NAME }}          a figure, with a device switch when several devices have
                               its data
    {{ value DEVICE KEY }}     a number measured on DEVICE (a unique prefix of a device
                               folder name, e.g. ``h100``)

Anything else between double braces is an error, so a typo fails the build.
Figures are plain Plotly JSON (``data`` + ``layout``); each trace carries ``meta.role``
and ``docs/assets/js/figures.js`` picks its colour for the light or dark palette.
"""

from __future__ import annotations

import functools
import html
import importlib
import json
import os
import pkgutil
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

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
    devices: dict[str, Docs] = {}
    if not data_dir.is_dir():
        return devices
    for folder in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        docs = {}
        for f in sorted(folder.glob("*.json")):
            doc = json.loads(f.read_text())
            docs[doc["benchmark"]] = doc
        if docs:
            devices[folder.name] = docs
    return devices


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
    return next(iter(docs.values()))["provenance"]


# ---- spread: (median, low, high) triples -------------------------------------------------


def rate(amount: float, s: Spread, unit: float = 1.0) -> tuple[float, float, float]:
    """``amount`` per second over a time spread: (median, low, high), low from the slow p80."""
    return amount / s["p50"] / unit, amount / s["p80"] / unit, amount / s["p20"] / unit


def duration(s: Spread, unit: float = 1.0) -> tuple[float, float, float]:
    """A time spread in ``unit`` seconds: (median, p20, p80)."""
    return s["p50"] / unit, s["p20"] / unit, s["p80"] / unit


# ---- plot helpers -----------------------------------------------------------------------


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
    **extra,
) -> dict:
    """A scatter trace. ``points`` are plain numbers or (median, low, high) triples; with
    triples the spread is drawn as error bars (invisible where it is smaller than a marker)."""
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
    return trace


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


def hline(y, x0, x1, name: str, role: str = "ceiling") -> dict:
    return line([x0, x1], [y, y], name, role, dash="dash", mode="lines", hover="%{y:.3~s}")


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


# ---- the registry -----------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    title: str
    needs: tuple[str, ...]  # benchmarks whose data it draws (their provenance is the caption)
    build: Callable[[Docs], dict]
    alt: str


def named(name: str, docstring: str, compute: Callable) -> Callable:
    """``compute`` with a name and a docstring, as the value registry wants: for value
    functions made by a factory (one per size, dtype or peer)."""
    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = docstring
    return compute


@dataclass(frozen=True)
class Value:
    compute: Callable[[Docs], object]  # a named function with a docstring
    format: Callable[[object], str] = plain


@dataclass
class Registry:
    figures: dict[str, Figure]
    values: dict[str, Value]


def discover(package: str = "figures") -> Registry:
    """Every figure module ``<package>/M.py``: its FIGURES and VALUES, names checked.

    Modules already imported are reloaded, so ``mkdocs serve`` picks up an edited one."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    pkg = importlib.import_module(package)
    reg = Registry({}, {})
    owner: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        qualified = f"{package}.{info.name}"
        module = (
            importlib.reload(sys.modules[qualified])
            if qualified in sys.modules
            else importlib.import_module(qualified)
        )
        stem = info.name.replace("_", "-")
        for name, fig in getattr(module, "FIGURES", {}).items():
            if not (name == stem or name.startswith(stem + "-")):
                raise RenderError(
                    f"figure {name!r} in {info.name}.py must be {stem!r} or start with '{stem}-'"
                )
            if not isinstance(fig, Figure):
                raise RenderError(f"figure {name!r} in {info.name}.py is not a render.Figure")
            _claim(owner, f"figure {name}", info.name)
            reg.figures[name] = fig
        for key, val in getattr(module, "VALUES", {}).items():
            if not key.startswith(info.name + "."):
                raise RenderError(f"value {key!r} in {info.name}.py must start with '{info.name}.'")
            if not isinstance(val, Value) or not (val.compute.__doc__ or "").strip():
                raise RenderError(
                    f"value {key!r} in {info.name}.py must be a render.Value "
                    "around a named function with a docstring"
                )
            _claim(owner, f"value {key}", info.name)
            reg.values[key] = val
    return reg


def _claim(owner: dict[str, str], what: str, module: str) -> None:
    if what in owner:
        raise RenderError(f"{what} is defined twice ({owner[what]}.py, {module}.py)")
    owner[what] = module


@functools.cache
def registry() -> Registry:
    return discover()


# ---- placeholders -----------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)


def caption(docs: Docs, needs: tuple[str, ...]) -> str:
    """Where and when the data of a figure was measured; one part per distinct run."""
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
        parts.append(f"{p['date'][:10]} · commit {p['commit'][:10]}{dirty}{sm}")
    return " · ".join(parts)


def figure_html(name: str, devices: dict[str, Docs], reg: Registry | None = None) -> str:
    reg = reg or registry()
    if name not in reg.figures:
        raise RenderError(f"unknown figure {name!r}; known: {sorted(reg.figures)}")
    fig = reg.figures[name]
    entries = []
    for slug, docs in devices.items():
        if not all(b in docs for b in fig.needs):
            continue
        try:
            plot = fig.build(docs)
        except (KeyError, IndexError, RenderError) as exc:
            raise RenderError(
                f"figure {name!r} cannot be drawn from {slug!r} data: {exc!r}"
            ) from exc
        entries.append(
            {
                "slug": slug,
                "label": provenance(docs)["gpu"],
                "caption": caption(docs, fig.needs),
                "plot": plot,
            }
        )
    if not entries:
        raise RenderError(f"figure {name!r} needs {fig.needs}; no device in figures/data has them")
    payload = {"id": name, "title": fig.title, "devices": entries}
    # JSON inside <script>: escape '<' so that no '</script>' can end the element early.
    blob = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    return (
        f'<div class="book-figure" id="fig-{name}" data-figure="{name}" role="figure" '
        f'aria-label="{html.escape(fig.alt)}">'
        f'<div class="book-figure__title">{html.escape(fig.title)}</div>'
        f'<div class="book-figure__devices" role="group" aria-label="measured on"></div>'
        # No role="img" here: Plotly puts focusable controls inside the plot.
        f'<div class="book-figure__plot"></div>'
        f'<div class="book-figure__caption">{html.escape(entries[0]["caption"])}</div>'
        f'<script type="application/json" class="book-figure__data">{blob}</script>'
        f"</div>"
    )


def value_text(
    device_query: str, key: str, devices: dict[str, Docs], reg: Registry | None = None
) -> str:
    reg = reg or registry()
    if key not in reg.values:
        raise RenderError(f"unknown value {key!r}; known: {sorted(reg.values)}")
    slug = resolve_device(device_query, devices)
    val = reg.values[key]
    try:
        return val.format(val.compute(devices[slug]))
    except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise RenderError(f"value {key!r} cannot be computed from {slug!r} data: {exc!r}") from exc


def expand(markdown: str, devices: dict[str, Docs], reg: Registry | None = None) -> str:
    """Replace every placeholder in ``markdown``; raise RenderError on any unknown one."""

    def sub(match: re.Match) -> str:
        words = match.group(1).split()
        if len(words) == 2 and words[0] == "figure":
            return "\n\n" + figure_html(words[1], devices, reg) + "\n\n"
        if len(words) == 3 and words[0] == "value":
            return value_text(words[1], words[2], devices, reg)
        raise RenderError(
            f"unknown placeholder {match.group(0)!r}: use "
            "'{{ figure NAME }}' or '{{ value DEVICE KEY }}'"
        )

    return PLACEHOLDER.sub(sub, markdown)
