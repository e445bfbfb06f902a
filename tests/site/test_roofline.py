"""Lesson 01's roofline: one roof per instruction class, drawn from whatever ceilings a
run measured. Runs made before the fp32 FMA ceiling existed still draw (without that roof,
saying so on the plot); runs with it draw it, with its own ridge."""

from __future__ import annotations

import copy
import json
import math

import jsonschema
import pytest

from figures import ceilings as ceiling_values
from figures import roofline
from scripts.book import render
from tests.site.support import ROOT

DEVICES = render.load_devices()
ENVELOPE = json.loads((ROOT / "figures" / "schema.json").read_text())


def with_fma(docs: dict, rate: float) -> dict:
    """A device's documents with an fp32 FMA ceiling of ``rate`` FLOP/s added."""
    docs = copy.deepcopy(docs)
    n, iters, per_iter = 1 << 20, 256, 16
    flops = 2 * n * iters * per_iter
    t = flops / rate
    docs["ceilings"]["ceilings"]["fma_fp32"] = {
        "elements": n,
        "iters": iters,
        "fmas_per_iter": per_iter,
        "block": 1024,
        "num_warps": 4,
        "flops": flops,
        "ptx_fma": 128,
        "n_regs": 32,
        "n_spills": 0,
        "time_s": {"p20": t * 0.99, "p50": t, "p80": t * 1.01, "reps": 40},
    }
    return docs


def names(fig: dict) -> list[str]:
    return [t.get("name", "") for t in fig["data"]]


def texts(fig: dict) -> list[str]:
    return [a["text"] for a in fig["layout"].get("annotations", [])]


@pytest.fixture(params=sorted(DEVICES))
def docs(request):
    return DEVICES[request.param]


def test_ceilings_with_the_fma_entry_validate(docs):
    schema = copy.deepcopy(ENVELOPE)
    schema["properties"]["rows"] = {"type": "array", "maxItems": 0}
    jsonschema.Draft202012Validator(schema).validate(with_fma(docs, 5e13)["ceilings"])


def test_without_the_fma_ceiling_the_fp32_roof_is_absent_and_the_plot_says_so(docs):
    if render.fma_rate(docs["ceilings"]) is not None:
        docs = copy.deepcopy(docs)
        del docs["ceilings"]["ceilings"]["fma_fp32"]
    fig = roofline.build(docs)
    assert not any(n.startswith("CUDA cores") for n in names(fig))
    assert any("not yet measured" in t for t in texts(fig))
    assert [t for t in texts(fig) if "ridge" in t] == [t for t in texts(fig) if "bf16 ridge" in t]
    assert ceiling_values.VALUES["ceilings.fma_fp32"].text(None) == "not yet measured"


def test_with_the_fma_ceiling_each_class_has_its_roof_and_ridge(docs):
    rate = 5e13
    fig = roofline.build(with_fma(docs, rate))
    bw = render.copy_bw(docs["ceilings"])
    fp32 = [t for t in fig["data"] if t.get("name", "").startswith("CUDA cores")]
    tensor = [t for t in fig["data"] if t.get("name", "").startswith("tensor cores")]
    assert len(fp32) == 1 and len(tensor) == 1
    # A flat roof at the FMA rate that starts where the memory slope reaches it.
    assert fp32[0]["y"] == pytest.approx([rate / 1e12] * 2)
    assert fp32[0]["x"][0] == pytest.approx(rate / bw)
    assert not any("not yet measured" in t for t in texts(fig))
    ridges = [t for t in texts(fig) if "ridge" in t]
    assert len(ridges) == 2 and f"{rate / bw:.0f} FLOP/B" in next(t for t in ridges if "fp32" in t)
    # One tensor-core roof only: bf16 (fp16 runs at nearly the same rate; the page says so).
    assert not any("fp16 matmul" in n for n in names(fig))


def test_the_x_range_fits_every_point_and_ridge(docs):
    fig = roofline.build(with_fma(docs, 5e13))
    slope = fig["data"][0]
    x_lo, x_hi = slope["x"][0], max(max(t["x"]) for t in fig["data"] if t.get("x"))
    for t in fig["data"]:
        for x in t["x"]:
            assert x_lo <= x <= x_hi
    points = [t["x"][0] for t in fig["data"] if t.get("mode") == "markers"]
    for x in points:  # some room either side: no point sits on the plot's edge
        assert math.log10(x / x_lo) > 0.3 and math.log10(x_hi / x) > 0.3


# ---- the points are chosen at build time, not stored in the data -----------------------


def test_data_files_hold_measurements_only():
    """No data file chooses presentation: no roofline points, no lesson numbers."""

    def keys(node):
        if isinstance(node, dict):
            for k, v in node.items():
                yield k
                yield from keys(v)
        elif isinstance(node, list):
            for v in node:
                yield from keys(v)

    for path in sorted((ROOT / "figures").glob("data*/*/*.json")):
        found = set(keys(json.loads(path.read_text())))
        assert not found & {"roofline", "lesson"}, f"{path}: {found & {'roofline', 'lesson'}}"


def test_every_module_that_contributes_points_has_them_on_every_device_it_ran(docs):
    """Each ROOFLINE function finds its rows in the committed data (a renamed field or a
    changed size would silently drop a point otherwise), and every point is complete."""
    contributions = {}
    for module in render.figure_modules():
        contributions.update(getattr(module, "ROOFLINE", {}))
    assert {"vector_add", "matmul", "softmax"} <= set(contributions)
    for bench, points in contributions.items():
        if bench not in docs:
            continue
        found = points(docs[bench]["rows"])
        assert found, f"{bench}: no roofline point in this device's rows"
        for p in found:
            assert set(p) == {"kernel", "flops", "bytes", "seconds"}, (bench, p)
            assert p["flops"] > 0 and p["bytes"] > 0 and p["seconds"] > 0, (bench, p)
    drawn = [t for t in roofline.build(docs)["data"] if t.get("mode") == "markers"]
    assert len(drawn) >= len([b for b in contributions if b in docs])
