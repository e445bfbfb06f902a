"""Turn measured data (figures/data/<device>/*.json) into Plotly figures and prose numbers.

Used by the MkDocs hook at every site build, with no GPU: figures can never drift from
the data. Two placeholders are understood in lesson Markdown:

    {{ figure NAME }}          a figure from FIGURES, with a device switch when several
                               devices have its data
    {{ value DEVICE KEY }}     a number from VALUES, measured on DEVICE (a unique prefix of
                               a device folder name, e.g. ``h100``)

Anything else between double braces is an error, so a typo fails the build.
Figures are plain Plotly JSON (``data`` + ``layout``); each trace carries
``meta.role`` and ``docs/assets/js/figures.js`` picks its colour for the light or dark
palette, so one payload serves both themes.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "figures" / "data"

Docs = dict[str, dict]  # benchmark name -> document, for one device


class RenderError(ValueError):
    """Raised for an unknown placeholder, device or key, or data a figure needs but lacks."""


# ---- data ------------------------------------------------------------------------------


def load_devices(data_dir: Path = DATA_DIR) -> dict[str, Docs]:
    """{device_slug: {benchmark: document}} for every device folder under ``data_dir``."""
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


def _prov(docs: Docs) -> dict:
    return next(iter(docs.values()))["provenance"]


def caption(docs: Docs) -> str:
    p = _prov(docs)
    dirty = " (uncommitted changes)" if p.get("dirty") else ""
    return (f"Measured on {p['gpu']} ({p['sm_count']} SMs) · driver {p['driver']} · CUDA {p['cuda']} · "
            f"torch {p['torch']} · triton {p['triton']} · {p['date'][:10]} · commit {p['commit'][:10]}{dirty}")


def _rows(docs: Docs, bench: str, **match) -> list[dict]:
    if bench not in docs:
        raise RenderError(f"no {bench!r} data for this device")
    return [r for r in docs[bench]["rows"] if all(r.get(k) == v for k, v in match.items())]


def _copy_bw(docs: Docs) -> float:
    return docs["ceilings"]["ceilings"]["copy"]["bytes_per_s"]


def _matmul(docs: Docs, dtype: str) -> float:
    return docs["ceilings"]["ceilings"]["matmul"][dtype]["flops_per_s"]


# ---- figures ---------------------------------------------------------------------------


def _line(x, y, name, role, *, dash=None, mode="lines+markers", hover=None, **extra):
    trace = {"type": "scatter", "mode": mode, "x": list(x), "y": list(y), "name": name,
             "meta": {"role": role}, "line": {"dash": dash} if dash else {}}
    if hover:
        trace["hovertemplate"] = hover + "<extra>%{fullData.name}</extra>"
    trace.update(extra)
    return trace


def _hline(y, x0, x1, name, role="ceiling"):
    return _line([x0, x1], [y, y], name, role, dash="dash", mode="lines",
                 hover="%{y:.3~s}")


def _vline(x, y0, y1, name):
    """A thin dotted vertical marker, drawn as a trace (shapes on log axes are easy to misplace)."""
    return _line([x, x], [y0, y1], name, "marker", dash="dot", mode="lines", showlegend=False,
                 hoverinfo="skip")


def _axis(title, log=False, **extra):
    axis = {"title": {"text": title}, "type": "log" if log else "linear", "zeroline": False}
    axis.update(extra)
    return axis


def fig_vector_add_bandwidth(docs: Docs) -> dict:
    copy = _copy_bw(docs) / 1e12
    traces = []
    for impl, name in (("triton", "Triton (kernels/vector_add.py)"), ("torch", "torch.add")):
        rows = _rows(docs, "vector_add", impl=impl, dtype="float32")
        traces.append(_line([r["n"] for r in rows], [r["bytes_per_s"] / 1e12 for r in rows], name, impl,
                            hover="n = %{x:,}<br>%{y:.2f} TB/s"))
    ns = [r["n"] for r in _rows(docs, "vector_add", dtype="float32")]
    traces.append(_hline(copy, min(ns), max(ns), f"copy ceiling ({copy:.2f} TB/s)"))
    l2 = _prov(docs).get("l2_bytes") or 0
    annotations = []
    if l2:
        n_l2 = l2 / 12  # elements at which x, y and out together fill the L2
        traces.append(_vline(n_l2, 0, copy * 1.05, "x, y, out fill the L2"))
        annotations.append({"x": math.log10(n_l2), "y": copy * 0.2, "text": "x + y + out = L2 size ",
                            "showarrow": False, "xanchor": "right", "yanchor": "middle", "font": {"size": 11}})
    return {"data": traces, "layout": {
        "xaxis": _axis("elements n (float32; bytes moved = 12·n)", log=True, exponentformat="power"),
        "yaxis": _axis("achieved bandwidth (TB/s)", rangemode="tozero"),
        "annotations": annotations,
    }}


def fig_launch_overhead(docs: Docs) -> dict:
    rows = _rows(docs, "launch_overhead")
    return {"data": [{
        "type": "bar", "orientation": "h",
        "y": [r["what"] for r in rows], "x": [r["us_per_kernel"] for r in rows],
        "text": [f"{r['us_per_kernel']:.2f} µs" for r in rows], "textposition": "auto",
        "meta": {"role": "bars", "roles": [r["key"] for r in rows]},
        "hovertemplate": "%{y}: %{x:.2f} µs per kernel<extra></extra>",
    }], "layout": {
        "xaxis": _axis("host time per kernel launch (µs)", rangemode="tozero"),
        "yaxis": {"automargin": True, "autorange": "reversed"},
        "showlegend": False,
    }}


def crossover_n(docs: Docs) -> int | None:
    """Smallest n at which the Triton vector add's device time exceeds an empty launch."""
    launch = _rows(docs, "launch_overhead", key="triton")[0]["us_per_kernel"]
    for r in sorted(_rows(docs, "vector_add", impl="triton", dtype="float32"), key=lambda r: r["n"]):
        if r["gpu_ms"] * 1e3 > launch:
            return r["n"]
    return None


def fig_launch_crossover(docs: Docs) -> dict:
    launch = _rows(docs, "launch_overhead", key="triton")[0]["us_per_kernel"]
    traces = []
    for impl, label in (("triton", "Triton"), ("torch", "torch.add")):
        rows = _rows(docs, "vector_add", impl=impl, dtype="float32")
        ns = [r["n"] for r in rows]
        traces.append(_line(ns, [r["host_us_per_call"] for r in rows], f"{label}: host time per call", impl,
                            hover="n = %{x:,}<br>%{y:.1f} µs per call"))
        traces.append(_line(ns, [r["gpu_ms"] * 1e3 for r in rows], f"{label}: device time", impl, dash="dot",
                            hover="n = %{x:,}<br>%{y:.1f} µs on the GPU"))
    ns = [r["n"] for r in _rows(docs, "vector_add", impl="triton", dtype="float32")]
    traces.append(_hline(launch, min(ns), max(ns), f"empty Triton launch ({launch:.1f} µs)"))
    cross = crossover_n(docs)
    annotations = []
    if cross:
        annotations.append({"x": math.log10(cross), "y": math.log10(launch), "text": f"crossover ≈ {cross:,}",
                            "showarrow": True, "arrowhead": 2, "ax": -60, "ay": -40})
    return {"data": traces, "layout": {
        "xaxis": _axis("elements n (float32)", log=True, exponentformat="power"),
        "yaxis": _axis("time per vector add (µs)", log=True),
        "annotations": annotations,
    }}


def fig_block_sweep(docs: Docs) -> dict:
    rows = _rows(docs, "block_sweep")
    traces = []
    for i, w in enumerate(sorted({r["num_warps"] for r in rows})):
        rs = sorted((r for r in rows if r["num_warps"] == w), key=lambda r: r["block"])
        traces.append(_line([r["block"] for r in rs], [r["bytes_per_s"] / 1e12 for r in rs],
                            f"num_warps = {w}", f"series-{i}",
                            hover="BLOCK = %{x}<br>%{y:.2f} TB/s"))
    blocks = [r["block"] for r in rows]
    copy = _copy_bw(docs) / 1e12
    traces.append(_hline(copy, min(blocks), max(blocks), f"copy ceiling ({copy:.2f} TB/s)"))
    return {"data": traces, "layout": {
        "xaxis": _axis("BLOCK (elements per program)", log=True, dtick=math.log10(2) * 2,
                       tickformat="d"),
        "yaxis": _axis("achieved bandwidth (TB/s)", rangemode="tozero"),
    }}


def roofline_points(docs: Docs) -> list[dict]:
    points = []
    for name in sorted(docs):
        points += docs[name].get("roofline", [])
    return points


def fig_roofline(docs: Docs) -> dict:
    bw = _copy_bw(docs)
    x_lo, x_hi = 0.01, 2000.0
    traces = []
    for i, (dtype, label) in enumerate((("bfloat16", "bf16"), ("float16", "fp16"))):
        peak = _matmul(docs, dtype)
        ridge = peak / bw
        traces.append(_line([x_lo, ridge, x_hi], [x_lo * bw / 1e12, peak / 1e12, peak / 1e12],
                            f"roof: {bw / 1e12:.2f} TB/s copy, {peak / 1e12:.0f} TFLOP/s {label} matmul",
                            "ceiling" if i == 0 else "ceiling-2", mode="lines", dash=None if i == 0 else "dash",
                            hover="%{x:.3~g} FLOP/B → %{y:.3~g} TFLOP/s"))
    # Kernels with the same intensity and nearly the same rate (one kernel in several
    # dtypes of one width) share a point and a label, so labels never sit on each other.
    groups: dict[tuple, list[dict]] = {}
    for p in roofline_points(docs):
        key = (round(math.log10(p["flops"] / p["bytes"]), 2), round(math.log10(p["flops"] / p["seconds"]), 1))
        groups.setdefault(key, []).append(p)
    if groups:
        merged = []
        for ps in groups.values():
            names = [p["kernel"] for p in ps]
            label = names[0] if len(names) == 1 else " / ".join(names)
            merged.append((ps[0]["flops"] / ps[0]["bytes"],
                           max(p["flops"] / p["seconds"] for p in ps) / 1e12, label))
        traces.append({
            "type": "scatter", "mode": "markers+text", "name": "the book's kernels (measured)",
            "x": [m[0] for m in merged], "y": [m[1] for m in merged], "text": [m[2] for m in merged],
            "textposition": "middle right", "marker": {"size": 10}, "meta": {"role": "triton"},
            "hovertemplate": "%{text}<br>%{x:.3~g} FLOP/B, %{y:.3~g} TFLOP/s<extra></extra>",
        })
    ridge = _matmul(docs, "bfloat16") / bw
    traces.append(_vline(ridge, x_lo * bw / 1e12, _matmul(docs, "bfloat16") / 1e12, "ridge point"))
    return {"data": traces, "layout": {
        "xaxis": _axis("arithmetic intensity (FLOP per byte of HBM traffic)", log=True),
        "yaxis": _axis("attainable TFLOP/s", log=True),
        "annotations": [{"x": math.log10(ridge), "y": 0.02, "xref": "x", "yref": "paper",
                         "text": f"ridge ≈ {ridge:.0f} FLOP/B", "showarrow": False, "xanchor": "left"}],
    }}


@dataclass(frozen=True)
class Figure:
    title: str
    needs: tuple[str, ...]
    build: Callable[[Docs], dict]
    alt: str


FIGURES: dict[str, Figure] = {
    "roofline": Figure("Roofline: measured ceilings and the book's kernels", ("ceilings",), fig_roofline,
                       "Log-log roofline: attainable TFLOP/s against arithmetic intensity, with the "
                       "measured copy-bandwidth slope, the measured matmul roofs, and the book's kernels as points."),
    "launch-overhead": Figure("What one launch costs on the host", ("launch_overhead",), fig_launch_overhead,
                              "Bar chart of host time per kernel: empty Triton kernel, a torch op, CUDA graph replay."),
    "launch-crossover": Figure("Vector add: time per call against size", ("vector_add", "launch_overhead"),
                               fig_launch_crossover,
                               "Log-log plot of time per vector add against element count: host time per call "
                               "and device time, with the empty-launch cost as a horizontal line."),
    "block-sweep": Figure("Vector add bandwidth against BLOCK and num_warps", ("block_sweep", "ceilings"),
                          fig_block_sweep,
                          "Achieved bandwidth of vector add for BLOCK from 4 to 16384, one line per num_warps, "
                          "with the measured copy ceiling."),
    "vector-add-bandwidth": Figure("Vector add: achieved bandwidth against size", ("vector_add", "ceilings"),
                                   fig_vector_add_bandwidth,
                                   "Achieved bandwidth of the Triton vector add and torch.add against element "
                                   "count, with the measured copy ceiling."),
}


# ---- values quoted in prose -------------------------------------------------------------


def _largest(docs: Docs, impl: str, dtype: str = "float32") -> dict:
    return max(_rows(docs, "vector_add", impl=impl, dtype=dtype), key=lambda r: r["n"])


def _sweep(docs: Docs, block: int | None = None) -> list[dict]:
    rows = _rows(docs, "block_sweep")
    return [r for r in rows if block is None or r["block"] == block]


def _small(docs: Docs, impl: str, field: str) -> float:
    """Median of ``field`` over the small sizes (n <= 65536), where launch cost dominates."""
    vals = sorted(r[field] for r in _rows(docs, "vector_add", impl=impl, dtype="float32") if r["n"] <= 65536)
    return vals[len(vals) // 2]


def _flat_until(docs: Docs) -> int:
    """Largest n up to which device time stays within 1.5x of the small-size floor."""
    floor = _small(docs, "triton", "gpu_ms")
    rows = sorted(_rows(docs, "vector_add", impl="triton", dtype="float32"), key=lambda r: r["n"])
    flat = 0
    for r in rows:
        if r["gpu_ms"] > 1.5 * floor:
            break
        flat = r["n"]
    return flat


def _tbps(x: float) -> str:
    return f"{x / 1e12:.2f} TB/s"


def _ratio(x: float) -> str:
    return f"{x:.2f}×" if x < 10 else f"{x:.0f}×"


VALUES: dict[str, Callable[[Docs], str]] = {
    "device.name": lambda d: _prov(d)["gpu"],
    "device.sm_count": lambda d: str(_prov(d)["sm_count"]),
    "device.l2_mb": lambda d: f"{_prov(d)['l2_bytes'] / 2**20:.0f} MiB",
    "ceilings.copy": lambda d: _tbps(_copy_bw(d)),
    "ceilings.matmul_bf16": lambda d: f"{_matmul(d, 'bfloat16') / 1e12:.0f} TFLOP/s",
    "ceilings.matmul_fp16": lambda d: f"{_matmul(d, 'float16') / 1e12:.0f} TFLOP/s",
    "ceilings.ridge_bf16": lambda d: f"{_matmul(d, 'bfloat16') / _copy_bw(d):.0f}",
    "vector_add.largest_n": lambda d: f"{_largest(d, 'triton')['n']:,}",
    "vector_add.largest_gb": lambda d: f"{_largest(d, 'triton')['bytes'] / 1e9:.2f} GB",
    "vector_add.triton": lambda d: _tbps(_largest(d, "triton")["bytes_per_s"]),
    "vector_add.torch": lambda d: _tbps(_largest(d, "torch")["bytes_per_s"]),
    "vector_add.triton_ms": lambda d: f"{_largest(d, 'triton')['gpu_ms']:.3f} ms",
    "vector_add.fraction_of_copy": lambda d: f"{_largest(d, 'triton')['bytes_per_s'] / _copy_bw(d):.0%}",
    "vector_add.vs_torch": lambda d: _ratio(_largest(d, "triton")["bytes_per_s"] / _largest(d, "torch")["bytes_per_s"]),
    "vector_add.min_fraction_of_copy_all_dtypes": lambda d: (
        f"{min(_largest(d, 'triton', t)['bytes_per_s'] for t in ('float32', 'float16', 'bfloat16')) / _copy_bw(d):.0%}"),
    "vector_add.half_copy_n": lambda d: f"{min(r['n'] for r in _rows(d, 'vector_add', impl='triton', dtype='float32') if r['bytes_per_s'] >= 0.5 * _copy_bw(d)):,}",
    "vector_add.small_host_us": lambda d: f"{_small(d, 'triton', 'host_us_per_call'):.1f} µs",
    "vector_add.small_torch_host_us": lambda d: f"{_small(d, 'torch', 'host_us_per_call'):.1f} µs",
    "vector_add.small_gpu_us": lambda d: f"{_small(d, 'triton', 'gpu_ms') * 1e3:.1f} µs",
    "vector_add.floor_ms": lambda d: f"{_largest(d, 'triton')['bytes'] / _copy_bw(d) * 1e3:.2f} ms",
    "vector_add.flat_until_n": lambda d: f"{_flat_until(d):,}",
    "launch.triton": lambda d: f"{_rows(d, 'launch_overhead', key='triton')[0]['us_per_kernel']:.1f} µs",
    "launch.torch": lambda d: f"{_rows(d, 'launch_overhead', key='torch')[0]['us_per_kernel']:.1f} µs",
    "launch.graph": lambda d: f"{_rows(d, 'launch_overhead', key='graph')[0]['us_per_kernel']:.2f} µs",
    "launch.triton_vs_torch": lambda d: _ratio(_rows(d, "launch_overhead", key="triton")[0]["us_per_kernel"]
                                               / _rows(d, "launch_overhead", key="torch")[0]["us_per_kernel"]),
    "launch.crossover_n": lambda d: f"{crossover_n(d):,}",
    "block_sweep.block4": lambda d: _tbps(max(r["bytes_per_s"] for r in _sweep(d, 4))),
    "block_sweep.best": lambda d: _tbps(max(r["bytes_per_s"] for r in _sweep(d))),
    "block_sweep.gap": lambda d: _ratio(max(r["bytes_per_s"] for r in _sweep(d))
                                        / max(r["bytes_per_s"] for r in _sweep(d, 4))),
}


# ---- placeholders ------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.S)


def figure_html(name: str, devices: dict[str, Docs]) -> str:
    if name not in FIGURES:
        raise RenderError(f"unknown figure {name!r}; known: {sorted(FIGURES)}")
    fig = FIGURES[name]
    entries = []
    for slug, docs in devices.items():
        if not all(b in docs for b in fig.needs):
            continue
        try:
            plot = fig.build(docs)
        except (KeyError, IndexError, RenderError) as exc:
            raise RenderError(f"figure {name!r} cannot be drawn from {slug!r} data: {exc!r}") from exc
        entries.append({"slug": slug, "label": _prov(docs)["gpu"], "caption": caption(docs), "plot": plot})
    if not entries:
        raise RenderError(f"figure {name!r} needs {fig.needs}; no device in figures/data has them")
    payload = {"id": name, "title": fig.title, "devices": entries}
    # JSON inside <script>: escape '<' so that no '</script>' can end the element early.
    blob = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    first = entries[0]
    return (
        f'<div class="book-figure" id="fig-{name}" data-figure="{name}">'
        f'<div class="book-figure__title">{html.escape(fig.title)}</div>'
        f'<div class="book-figure__devices" role="group" aria-label="measured on"></div>'
        f'<div class="book-figure__plot" role="img" aria-label="{html.escape(fig.alt)}"></div>'
        f'<div class="book-figure__caption">{html.escape(first["caption"])}</div>'
        f'<script type="application/json" class="book-figure__data">{blob}</script>'
        f"</div>"
    )


def value_text(device_query: str, key: str, devices: dict[str, Docs]) -> str:
    if key not in VALUES:
        raise RenderError(f"unknown value {key!r}; known: {sorted(VALUES)}")
    slug = resolve_device(device_query, devices)
    try:
        return VALUES[key](devices[slug])
    except (KeyError, IndexError, ValueError, TypeError, RenderError) as exc:
        raise RenderError(f"value {key!r} cannot be computed from {slug!r} data: {exc!r}") from exc


def expand(markdown: str, devices: dict[str, Docs]) -> str:
    """Replace every placeholder in ``markdown``; raise RenderError on any unknown one."""

    def sub(match: re.Match) -> str:
        words = match.group(1).split()
        if len(words) == 2 and words[0] == "figure":
            return "\n\n" + figure_html(words[1], devices) + "\n\n"
        if len(words) == 3 and words[0] == "value":
            return value_text(words[1], words[2], devices)
        raise RenderError(f"unknown placeholder {match.group(0)!r}: use "
                          "'{{ figure NAME }}' or '{{ value DEVICE KEY }}'")

    return PLACEHOLDER.sub(sub, markdown)
