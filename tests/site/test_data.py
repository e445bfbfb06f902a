"""Figure data validates against its schema, and every figure and value renders from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from scripts import render
from tests.site.conftest import ROOT

SCHEMA = json.loads((ROOT / "figures" / "schema.json").read_text())
FILES = sorted((ROOT / "figures" / "data").glob("*/*.json"))
DEVICES = render.load_devices()


def test_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_is_data():
    assert FILES, "no measured data committed under figures/data"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_file_validates_and_sits_where_it_says(path: Path):
    doc = json.loads(path.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert path.stem == doc["benchmark"]
    assert path.parent.name == doc["provenance"]["device_slug"]


def test_a_device_folder_is_one_run():
    """Every file of a device carries the ceilings and provenance of the same run."""
    for slug, docs in DEVICES.items():
        ceilings = {json.dumps(d["ceilings"], sort_keys=True) for d in docs.values()}
        commits = {d["provenance"]["commit"] for d in docs.values()}
        assert len(ceilings) == 1, f"{slug}: files come from different runs"
        assert len(commits) == 1, f"{slug}: files come from different commits {commits}"
        assert "ceilings" in docs, f"{slug}: no ceilings.json"


@pytest.mark.parametrize("name", sorted(render.FIGURES))
def test_every_figure_renders(name):
    html = render.figure_html(name, DEVICES)
    blob = re.search(r'<script type="application/json" class="book-figure__data">(.*?)</script>', html, re.S)
    payload = json.loads(blob.group(1))
    assert payload["devices"], name
    for entry in payload["devices"]:
        traces = entry["plot"]["data"]
        assert traces and all(len(t.get("x", [])) == len(t.get("y", [])) for t in traces)
        assert entry["caption"].startswith("Measured on ")


@pytest.mark.parametrize("key", sorted(render.VALUES))
def test_every_value_renders_on_every_device(key):
    for slug in DEVICES:
        text = render.value_text(slug, key, DEVICES)
        assert text and "nan" not in text.lower(), (slug, key, text)


def test_a_device_can_be_named_by_a_prefix():
    for slug in DEVICES:
        assert render.resolve_device(slug, DEVICES) == slug
    with pytest.raises(render.RenderError):
        render.resolve_device("no-such-gpu", DEVICES)


def test_unknown_placeholders_raise():
    for text in ("{{ figure nope }}", "{{ value h100 nope }}", "{{ whatever }}", "{{ value }}"):
        with pytest.raises(render.RenderError):
            render.expand(text, DEVICES)
