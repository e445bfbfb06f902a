"""Committed data for widgets: what the build embeds for ``data-needs`` / ``data-values``.

The hook (scripts/book/hook.py, widget_data) gathers the benchmarks and value keys a
page's widgets declare into one JSON blob; ``BookWidgets.data()`` reads it in the browser.
Checked here without a browser (the hook's function on small inputs and on the real data)
and in the built site (the blob on the pages that declare data, and only there).
"""

from __future__ import annotations

import copy
import json
import re
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from scripts.book import hook as book
from scripts.book import render
from tests.site.support import html_for, nav_pages

PAGE = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"), url="x/")
BLOB = re.compile(r'<script type="application/json" id="book-widget-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def devices():
    return render.load_devices()


@pytest.fixture(scope="module")
def registry():
    return render.discover()


def tag(**attrs) -> str:
    extra = "".join(f' data-{k}="{v}"' for k, v in attrs.items())
    return f'<div class="book-widget" data-widget="lanes"{extra}></div>'


def test_no_declaration_embeds_nothing(devices, registry):
    assert book.widget_data(tag(), PAGE, devices, registry) is None
    assert book.widget_data("<p>text</p>", PAGE, devices, registry) is None


def test_needs_embeds_each_devices_whole_document(devices, registry):
    data = book.widget_data(tag(needs="vector_add_block_sweep"), PAGE, devices, registry)
    have = {s for s, docs in devices.items() if "vector_add_block_sweep" in docs}
    assert have, "no device has block-sweep data"
    assert set(data["benchmarks"]["vector_add_block_sweep"]) == have
    for slug in have:
        assert (
            data["benchmarks"]["vector_add_block_sweep"][slug]
            == devices[slug]["vector_add_block_sweep"]
        )
        assert data["devices"][slug] == devices[slug]["vector_add_block_sweep"]["provenance"]["gpu"]
    assert data["values"] == {}


def test_values_are_the_prose_numbers_unformatted(devices, registry):
    keys = [
        "vector_add.bandwidth:impl=triton",
        "fused_activation.time:impl=eager",
        "matmul.tflops:impl=cublas,dtype=bfloat16,n=4096",
        "vector_add.bandwidth:impl=torch,dtype=float16",
    ]
    two = tag(values=" ".join(keys[:2])) + tag(values=" ".join([keys[2], keys[0], keys[3]]))
    data = book.widget_data(two, PAGE, devices, registry)
    assert list(data["values"]) == keys  # gathered over widgets, each key once, as written
    for key in keys:
        for slug, docs in devices.items():
            try:
                expected = render.compute(render.parse_widget_word(key), docs, registry)
            except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError):
                expected = None  # not measured there: absent
            assert data["values"][key].get(slug) == expected, (key, slug)
    # The same numbers the prose shows, before formatting.
    slug = next(iter(devices))
    shown = render.value_text(slug, "vector_add.bandwidth impl=torch dtype=float16", devices)
    assert shown == render.tbps(data["values"][keys[3]][slug])


def test_a_device_without_the_data_is_absent(devices, registry):
    slug, docs = next(iter(devices.items()))
    fake = {"has": docs, "lacks": {"ceilings": docs["ceilings"]}}
    data = book.widget_data(
        tag(needs="vector_add_block_sweep", values="vector_add.bandwidth:impl=triton"),
        PAGE,
        fake,
        registry,
    )
    assert set(data["benchmarks"]["vector_add_block_sweep"]) == {"has"}
    assert set(data["values"]["vector_add.bandwidth:impl=triton"]) == {"has"}
    assert set(data["devices"]) == {"has"}
    # A value that computes to None (a peer that did not run) is absent too.
    none = render.Registry({}, {"x.none": render.Value(lambda d: None)})
    assert book.widget_data(tag(values="x.none"), PAGE, fake, none)["values"] == {"x.none": {}}


def test_a_benchmark_nobody_has_measured_yet_is_empty_not_an_error(devices, registry):
    # Known by its schema but measured on no device: the widget says "not yet measured".
    empty = {slug: {} for slug in devices}
    data = book.widget_data(tag(needs="vector_add_block_sweep"), PAGE, empty, registry)
    assert data == {"devices": {}, "benchmarks": {"vector_add_block_sweep": {}}, "values": {}}


def test_unknown_names_fail_the_build(devices, registry):
    with pytest.raises(PluginError, match="no_such_benchmark"):
        book.widget_data(tag(needs="no_such_benchmark"), PAGE, devices, registry)
    with pytest.raises(PluginError, match="vector_add.no_such_value"):
        book.widget_data(tag(values="vector_add.no_such_value"), PAGE, devices, registry)
    # A kind's parameters are checked as a page's are: missing, unknown or ill-typed.
    for word, message in (
        ("vector_add.bandwidth", "needs impl="),
        ("vector_add.bandwidth:impl=triton,size=3", "no parameter 'size'"),
        ("vector_add.regs:block=four,warps=1", "block=four is not a whole number"),
        ("vector_add.bandwidth:impl=triton,as=tbps", "no as="),
    ):
        with pytest.raises(PluginError, match=message):
            book.widget_data(tag(values=word), PAGE, devices, registry)


def test_the_tag_is_safe_json(devices):
    doc = copy.deepcopy(next(iter(devices.values()))["vector_add_block_sweep"])
    doc["description"] = "</script><script>alert(1)</script>"
    data = {"devices": {}, "benchmarks": {"b": {"d": doc}}, "values": {}}
    html = book.widget_data_tag(data)
    assert html.count("</script>") == 1
    assert json.loads(BLOB.search(html).group(1)) == data
    with pytest.raises(ValueError):  # NaN is not JSON: JSON.parse would fail in the browser
        book.widget_data_tag({"values": {"k": {"d": float("nan")}}})


def test_the_built_pages_carry_exactly_what_they_declare(built_site, devices, registry):
    declaring = 0
    for md in nav_pages():
        html = (built_site / html_for(md)).read_text()
        blobs = BLOB.findall(html)
        if "data-needs=" not in html and "data-values=" not in html:
            assert not blobs, f"{md} embeds widget data it does not declare"
            continue
        declaring += 1
        assert len(blobs) == 1, md
        data = json.loads(blobs[0])
        expected = book.widget_data(html, PAGE, devices, registry)
        assert data == json.loads(json.dumps(expected)), md
    assert declaring >= 2
