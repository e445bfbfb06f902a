"""The values the reproduce and methodology appendices quote about runs themselves: what a
run costs (figures/runs.py, from provenance) and how far repeated runs land apart
(figures/variation.py). Each reads "not yet measured" without its data and computes from
data made up here, so each can fail."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from figures import runs, variation
from scripts.book import render
from tests.site.support import DOCS, ROOT

DEVICES = render.load_devices()
SLUG = next(iter(DEVICES))
SPREAD = {"p20": 1e-3, "p50": 1e-3, "p80": 1e-3, "reps": 5}


@pytest.fixture
def docs():
    """A device's documents without its run summaries (quick_run, variation): each test
    adds the one it needs, made up, so that it holds whatever the committed data says."""
    found = copy.deepcopy(DEVICES[SLUG])
    found.pop("quick_run", None)
    found.pop("variation", None)
    return found


def test_committed_full_data_is_never_quick():
    """Quick data lives in figures/data-quick/; under figures/data only its summary may be."""
    for path in sorted((ROOT / "figures" / "data").glob("*/*.json")):
        doc = json.loads(path.read_text())
        if doc["provenance"].get("quick"):
            assert doc["benchmark"] == "quick_run", f"{path} is quick-mode data"


def test_full_run_time_needs_every_file_timed(docs):
    full = [d for n, d in docs.items() if n not in runs.NOT_FULL_DATA and "part_of" not in d]
    for i, d in enumerate(full):
        d["provenance"].update(wall_s=10.0 + i, peak_reserved_bytes=(i + 1) << 30)
    n = len(full)
    assert runs.wall(docs, "full") == sum(10.0 + i for i in range(n))
    assert runs.peak(docs, "full") == n << 30
    assert runs.timed(docs) == runs.benchmarks(docs) == n
    assert runs.minutes(runs.wall(docs, "full")).endswith(("minutes", "seconds"))
    del full[0]["provenance"]["wall_s"]
    assert runs.wall(docs, "full") is None
    assert runs.VALUES["runs.wall"].text(None) == "not yet measured"


def test_quick_run_values(docs):
    assert runs.wall(docs, "quick") is None and runs.peak(docs, "quick") is None
    summary = copy.deepcopy(docs["ceilings"])
    summary.update(
        benchmark="quick_run",
        rows=[
            {"benchmark": "ceilings", "status": "ok", "wall_s": 5.0, "peak_reserved_bytes": 3 << 3},
            {"benchmark": "dot", "status": "skipped", "wall_s": 0.1},
            {"benchmark": "matmul", "status": "ok", "wall_s": 50.0, "peak_reserved_bytes": 5 << 30},
        ],
    )
    summary["provenance"].update(quick=True, wall_s=200.0)
    schema = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema["properties"]["rows"] = json.loads(
        (ROOT / "figures" / "schemas" / "quick_run.json").read_text()
    )
    jsonschema.Draft202012Validator(schema).validate(summary)
    docs["quick_run"] = summary
    assert runs.wall(docs, "quick") == 200.0 and runs.minutes(200.0) == "3 minutes"
    assert runs.peak(docs, "quick") == 5 << 30 and render.gib(5 << 30) == "5.0 GiB"
    assert "quick_run" not in runs._full(docs)  # not counted as full-run data


def variation_rows(per_machine: dict[str, list[float]]) -> list[dict]:
    """Rows of variation.json: per machine, one time per run for each of the points."""
    out = []
    for machine, scales in per_machine.items():
        for run, scale in enumerate(scales):
            for impl, n in (("triton", 1 << 26), ("torch", 1 << 26), ("triton", 1 << 16)):
                out.append(
                    {
                        "machine": machine,
                        "run": run,
                        "point": f"{impl} 2^{n.bit_length() - 1}",
                        "impl": impl,
                        "dtype": "float32",
                        "n": n,
                        "bytes": 12 * n,
                        "time_s": {k: v * scale if k != "reps" else v for k, v in SPREAD.items()},
                    }
                )
    return out


def test_variation_values_and_figure(docs):
    reg = render.discover()
    uses = [
        use for _, use in render.placeholders((DOCS / "appendix" / "methodology.md").read_text())
    ]
    uses = [use for use in uses if use.kind.startswith("variation.")]
    assert {use.kind for use in uses} == set(variation.VALUES)
    for use in uses:
        assert render.value_text(SLUG, use, {SLUG: docs}, reg) == "not yet measured", use
    doc = copy.deepcopy(docs["ceilings"])
    doc.update(benchmark="variation", rows=variation_rows({"m-a": [1.0, 1.1, 0.9], "m-b": [1.2]}))
    schema = json.loads((ROOT / "figures" / "schema.json").read_text())
    schema["properties"]["rows"] = json.loads(
        (ROOT / "figures" / "schemas" / "variation.json").read_text()
    )
    jsonschema.Draft202012Validator(schema).validate(doc)
    docs["variation"] = doc
    assert variation.runs(docs) == 4 and variation.machines(docs) == 2
    # bandwidth 1/1.0, 1/1.1, 1/0.9 on m-a: (max - min) / median = (1/0.9 - 1/1.1) / 1
    assert variation.spread(docs, "large") == pytest.approx(1 / 0.9 - 1 / 1.1)
    assert variation.spread(docs, "small") == pytest.approx(1 / 0.9 - 1 / 1.1)
    # medians: m-a 1.0, m-b 1/1.2: the gap is 1.2 - 1 of the lower
    assert variation.between_machines(docs) == pytest.approx(0.2)
    plot = variation.build(docs)
    assert [t["name"] for t in plot["data"]] == ["machine m-a", "machine m-b"]
    assert all(len(t["x"]) == len(t["y"]) for t in plot["data"])
    registry = render.Registry({"variation": variation.VARIATION_FIGURE}, {})
    html = render.figure_html("variation", {SLUG: docs}, registry)
    assert 'data-figure="variation"' in html


def test_the_repository_address_comes_from_the_config():
    from scripts.book import hook as book

    assert book.repo_link({"repo_url": "https://git.example/book"}) == (
        "[https://git.example/book](https://git.example/book)"
    )
    assert book.repo_link({}) == book.repo_link({"repo_url": ""}) == "this repository"
    page = (ROOT / "docs" / "appendix" / "reproduce.md").read_text()
    assert "{{ config repo_url }}" in page
