"""Figure data validates against the shared envelope and its benchmark's row schema, and
every figure of every figure module renders from it (values: test_values.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from scripts.book import render
from tests.site.support import ROOT, schema_for

ENVELOPE = json.loads((ROOT / "figures" / "schema.json").read_text())
SCHEMAS = ROOT / "figures" / "schemas"
FILES = sorted((ROOT / "figures" / "data").glob("*/*.json"))
DEVICES = render.load_devices()
REGISTRY = render.discover()


def test_schemas_are_valid():
    jsonschema.Draft202012Validator.check_schema(ENVELOPE)
    for path in sorted(SCHEMAS.glob("*.json")):
        jsonschema.Draft202012Validator.check_schema(schema_for(path.stem))


def test_there_is_data():
    assert FILES, "no measured data committed under figures/data"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_file_validates_and_sits_where_it_says(path: Path):
    doc = json.loads(path.read_text())
    jsonschema.Draft202012Validator(schema_for(doc["benchmark"])).validate(doc)
    assert path.stem == doc["benchmark"]
    assert path.parent.name == doc["provenance"]["device_slug"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_spreads_are_ordered(path: Path):
    """p20 <= p50 <= p80 wherever a spread is stored."""

    def walk(node):
        if isinstance(node, dict):
            if {"p20", "p50", "p80"} <= node.keys():
                assert node["p20"] <= node["p50"] <= node["p80"], node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(path.read_text()))


def test_no_host_path_measured_comes_near_the_host_path_limit():
    """render.HOST_PATH_LIMIT_S says no call with more GPU work than it is host-bound. It
    holds while every clearly host-bound row (host time over twice its GPU time) has a host
    time per call well below it; a new run on a slower host that breaks this must move it."""
    paths = [
        (r["host_s"]["p50"], f"{path.parent.name}/{path.name} {r.get('impl')}")
        for path in FILES
        for r in json.loads(path.read_text()).get("rows", [])
        if isinstance(r.get("host_s"), dict)
        and isinstance(render.gpu_spread(r), dict)
        and r["host_s"]["p50"] > 2 * render.gpu_spread(r)["p50"]
    ]
    assert paths, "no host-bound row in the data: nothing to check the limit against"
    longest, where = max(paths)
    assert longest * 1.25 < render.HOST_PATH_LIMIT_S, (
        f"{where}: a host path of {longest * 1e6:.0f} µs, near HOST_PATH_LIMIT_S"
    )


def test_every_device_has_ceilings():
    for slug, docs in DEVICES.items():
        assert "ceilings" in docs, f"{slug}: no ceilings.json"


@pytest.mark.parametrize("name", sorted(REGISTRY.figures))
def test_every_figure_renders(name):
    html = render.figure_html(name, DEVICES, REGISTRY)
    blob = re.search(
        r'<script type="application/json" class="book-figure__data">(.*?)</script>', html, re.S
    )
    payload = json.loads(blob.group(1))
    assert payload["devices"], name
    for entry in payload["devices"]:
        traces = entry["plot"]["data"]
        assert traces and all(len(t.get("x", [])) == len(t.get("y", [])) for t in traces)
        # A counted figure (arithmetic on shapes, no GPU) says so instead.
        head = "Counted: " if REGISTRY.figures[name].counted else "Measured on "
        assert entry["caption"].startswith(head), entry["caption"]


# The trace types in the partial Plotly bundle the site serves (docs/assets/vendor/
# plotly-basic.min.js). A figure that needs another type needs a bigger bundle.
BUNDLED_TRACES = {"scatter", "bar", "pie"}


@pytest.mark.parametrize("name", sorted(REGISTRY.figures))
def test_every_figure_uses_only_bundled_trace_types(name):
    html = render.figure_html(name, DEVICES, REGISTRY)
    blob = re.search(r'class="book-figure__data">(.*?)</script>', html, re.S).group(1)
    for entry in json.loads(blob)["devices"]:
        used = {t.get("type", "scatter") for t in entry["plot"]["data"]}
        assert used <= BUNDLED_TRACES, f"{name} draws {used - BUNDLED_TRACES}"


# Every value renders wherever its data exists: tests/site/test_values.py, per placeholder
# as the pages write it (kind and parameters).


def test_a_device_can_be_named_by_a_prefix():
    for slug in DEVICES:
        assert render.resolve_device(slug, DEVICES) == slug
    with pytest.raises(render.RenderError):
        render.resolve_device("no-such-gpu", DEVICES)


def test_unknown_placeholders_raise():
    for text in ("{{ figure nope }}", "{{ value h100 nope }}", "{{ whatever }}", "{{ value }}"):
        with pytest.raises(render.RenderError):
            render.expand(text, DEVICES, REGISTRY)


# ---- the registry's rules: one name per family, found by discovery -----------------------


def _package(tmp_path: Path, monkeypatch, source: str, name: str = "toy") -> str:
    package = f"fakefigs_{tmp_path.name}"  # a fresh package per test: no import cache
    pkg = tmp_path / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


GOOD = '''
from scripts.book.render import Figure, Value, count
def n(docs):
    """A number."""
    return 3
FIGURES = {"toy-plot": Figure("t", (), lambda d: {"data": [], "layout": {}}, "alt")}
VALUES = {"toy.n": Value(n, count)}
'''


def test_a_figure_module_is_found_by_being_there(tmp_path, monkeypatch):
    reg = render.discover(_package(tmp_path, monkeypatch, GOOD))
    assert list(reg.figures) == ["toy-plot"] and list(reg.values) == ["toy.n"]


@pytest.mark.parametrize(
    "change, message",
    [
        (('"toy-plot"', '"other-plot"'), "must be 'toy' or start with 'toy-'"),
        (('"toy.n"', '"other.n"'), "must start with 'toy.'"),
        (('"""A number."""', "pass"), "docstring"),
    ],
    ids=["figure-prefix", "value-prefix", "value-docstring"],
)
def test_a_figure_module_that_breaks_the_rules_is_refused(tmp_path, monkeypatch, change, message):
    source = GOOD.replace(*change)
    with pytest.raises(render.RenderError, match=message):
        render.discover(_package(tmp_path, monkeypatch, source))


def test_the_book_has_no_orphan_data():
    """Every data file has a schema, and every figure's data has a schema. (That every row
    schema belongs to a benchmark the runner knows needs the runner, so torch: it is
    tests/scripts/test_schemas.py's; these tests run where only `--group site` is.)"""
    benchmarks = {p.stem for p in FILES}
    schemas = {p.stem for p in SCHEMAS.glob("*.json")}
    assert benchmarks <= schemas, benchmarks - schemas
    for fig in REGISTRY.figures.values():
        assert set(fig.needs) <= benchmarks


def test_book_data_dir_previews_another_folder(tmp_path, monkeypatch):
    """`BOOK_DATA_DIR=... make serve` shows a run that is not in the tree yet."""
    device = tmp_path / "my-gpu"
    device.mkdir()
    (device / "ceilings.json").write_text(FILES[0].read_text())
    monkeypatch.setenv("BOOK_DATA_DIR", str(tmp_path))
    assert list(render.load_devices()) == ["my-gpu"]
