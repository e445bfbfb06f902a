"""Stale data at build time (issue 21, part 1): in a temporary copy of the code, editing a
kernel file marks the figures and tables drawn from its data and makes the comparison
words computed from that data refuse to claim a result; the page says so at its top.

The documents are the committed H100 ones, with fingerprints taken afresh from the copy
(so the test does not depend on whether today's data is stale)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from scripts.bench import sources
from scripts.book import hook, render
from tests.site.support import ROOT, page_choice

DEVICES = render.load_devices()
REGISTRY = render.discover()
H100 = next(slug for slug in DEVICES if slug.startswith("h100"))
COMMIT = "abc1234"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the code the data depends on, which the build compares the data with."""
    for folder in ("kernels", "scripts/bench"):
        shutil.copytree(
            ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    monkeypatch.setattr(render, "SOURCES_ROOT", tmp_path)
    render._STALE.clear()
    yield tmp_path
    render._STALE.clear()


@pytest.fixture
def devices(tree: Path) -> dict:
    """One device: the committed H100 documents, fresh against the copy."""
    docs = copy.deepcopy(DEVICES[H100])
    for name, d in docs.items():
        if "part_of" in d:  # a counters probe: shares its file's provenance
            continue
        prov = d["provenance"]
        prov.pop("sources_unknown", None)
        prov.update(commit=COMMIT, sources=sources.sources(name, sources.Tree(tree)))
    return {H100: docs}


def edit(tree: Path, path: str, addition: str) -> None:
    f = tree / path
    f.write_text(f.read_text() + addition)
    render._STALE.clear()  # what a new build (load_devices) does


def figure(name: str, devices: dict, seen: dict | None = None) -> tuple[str, dict]:
    html = render.figure_html(name, devices, REGISTRY, seen)
    payload = render.json.loads(html.split('class="book-figure__data">')[1].split("</script>")[0])
    return html, payload["devices"][0]


def test_fresh_data_is_not_marked(devices):
    seen: dict = {}
    html, entry = figure("vector-add-bandwidth", devices, seen)
    assert "stale" not in entry and render.STALE_MARK not in entry["caption"]
    assert "book-figure__caption--stale" not in html
    assert render.value_text("h100", "vector_add.compare", devices, REGISTRY, seen) in (
        render.COMPARE_WORDS
    )
    assert seen == {}


def test_editing_a_kernel_marks_its_figures_and_refuses_its_words(tree, devices):
    edit(tree, "kernels/vector_add.py", "\n# a comment is not code\n")
    assert "stale" not in figure("vector-add-bandwidth", devices)[1]

    edit(tree, "kernels/vector_add.py", "\nEXTRA_BLOCK = 2048\n")
    seen: dict = {}
    html, entry = figure("vector-add-bandwidth", devices, seen)
    words = (
        f"Measured with an earlier version of this kernel, commit {COMMIT} "
        "(kernels/vector_add.py changed since)"
    )
    assert entry["stale"] == words
    assert entry["caption"].startswith("Measured on ")  # where and when, as before
    assert entry["caption"].endswith(f" · {render.STALE_MARK} {words}")
    assert "book-figure__caption--stale" in html
    assert f'<span class="book-figure__stale">{render.STALE_MARK} {words}</span>' in html
    assert (H100, "vector_add") in seen

    # The comparison words computed from that file claim nothing ...
    word = render.value_text("h100", "vector_add.compare", devices, REGISTRY, seen)
    assert word == render.NEUTRAL
    # ... while numbers are still shown, and data the edit does not touch is untouched.
    assert render.value_text("h100", "vector_add.bandwidth impl=torch", devices, REGISTRY)
    assert "stale" not in figure("softmax-forward", devices)[1]
    assert render.value_text(
        "h100", "softmax.compare of=triton to=compile cols=4096", devices, REGISTRY
    ) in (render.COMPARE_WORDS)


def test_a_stale_table_column_marks_its_cells_and_drops_its_words(tree, devices):
    fresh = render.table_markdown("scoreboard-07", devices, REGISTRY)
    assert any(w in fresh for w in ("faster:", "slower:", "ties:"))
    edit(tree, "kernels/vector_add.py", "\nEXTRA_BLOCK = 2048\n")
    seen: dict = {}
    table = render.table_markdown("scoreboard-07", devices, REGISTRY, seen)
    body = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert body and all(line.endswith(f"{render.STALE_MARK} |") for line in body)
    assert not any(w in table for w in ("faster:", "slower:", "ties:"))
    run = next(line for line in table.splitlines() if line.startswith("- Measured on "))
    assert f"{render.STALE_MARK} Measured with an earlier version of this kernel" in run
    assert (H100, "vector_add") in seen


def test_the_harness_makes_every_file_stale(tree, devices):
    edit(tree, "scripts/bench/benchlib.py", "\nPERCENTILES = (10, 50, 90)\n")
    entry = figure("softmax-forward", devices)[1]
    assert entry["stale"] == (
        f"Measured with an earlier version of the benchmark code, commit {COMMIT} "
        "(scripts/bench/benchlib.py changed since)"
    )


def test_a_word_the_tie_rule_decides_otherwise_is_left_open(tree, devices):
    """Lesson 06's tile finding (a ``choose`` on two comparisons, no ``stale`` phrasing):
    on stale data it cannot say which phrasing holds, so it shows STALE_WORDS rather than a
    finding, and the page's stale note lists the file."""
    body = page_choice("dsl/06-reductions.md", "reduction.tile_compare")
    assert render.choose_text(body, devices, REGISTRY) != render.STALE_WORDS
    edit(tree, "scripts/bench/benchmarks/reduction.py", "\nEXTRA = 1\n")
    seen: dict = {}
    assert render.choose_text(body, devices, REGISTRY, seen) == render.STALE_WORDS
    assert (H100, "reduction_tile") in seen
    assert render.value_text(
        "h100", "reduction.tile_compare op=sum to=torch", devices, REGISTRY
    ) == (render.NEUTRAL)


def test_a_file_that_cannot_say_what_it_measured_is_stale(devices):
    d = devices[H100]["vector_add"]["provenance"]
    del d["sources"]
    d["sources_unknown"] = "measured from a tree with uncommitted changes at commit d011732"
    entry = figure("vector-add-bandwidth", devices)[1]
    assert entry["stale"].startswith("Measured with code that may differ from this version")
    # A document that records neither (a test's, an older run's) is not judged.
    del d["sources_unknown"]
    render._STALE.clear()
    assert render.stale(devices[H100]["vector_add"]) is None


def test_the_page_opens_with_a_note(tree, devices, monkeypatch):
    edit(tree, "kernels/vector_add.py", "\nEXTRA_BLOCK = 2048\n")
    monkeypatch.setattr(hook, "_devices", devices)
    seen: dict = {}
    page = "# 07 · A page\n\nThe add is {{ value h100 vector_add.compare }} `torch.add`.\n"
    out = hook.with_stale_note(render.expand(page, devices, REGISTRY, seen), seen)
    assert out.startswith("# 07 · A page\n\n!!! warning")
    assert "`vector_add`. Measured with an earlier version of this kernel" in out
    assert f"The add is {render.NEUTRAL} `torch.add`." in out
    assert hook.with_stale_note(page, {}) == page


def test_a_choice_on_stale_data_shows_its_stale_phrasing(tree, devices):
    """Lesson 08's bytes-in-flight sentence (a ``choose`` with a ``stale`` phrasing): on
    stale controls it shows the page's own words for an open question, not a finding."""
    body = page_choice("building/08-fused-activation.md", "fused_activation.control_compare")
    assert "left open here" not in render.choose_text(body, devices, REGISTRY)
    edit(tree, "scripts/bench/benchmarks/fused_activation.py", "\nEXTRA = 1\n")
    seen: dict = {}
    shown = render.choose_text(body, devices, REGISTRY, seen)
    assert shown.startswith("These controls were measured with an earlier version")
    assert (H100, "fused_activation_controls") in seen


def test_a_counters_probe_is_stale_only_on_the_files_it_ran(tree, devices):
    """One counters file holds probes of many lessons: a change to one kernel marks the
    probes that ran it, and leaves the other lessons' counters fresh."""
    docs = devices[H100]
    assert render.stale(docs["counters/add-b256-w4"]) is None
    edit(tree, "kernels/vector_add.py", "\nCHANGED = 1\n")
    assert render.stale(docs["counters"])["changed"] == ["kernels/vector_add.py"]
    assert render.stale(docs["counters/add-b256-w4"])["changed"] == ["kernels/vector_add.py"]
    assert render.stale(docs["counters/sum-fp32-65536"]) is None
    assert "counters/add-b256-w4" in render.stale_note({(H100, "counters/add-b256-w4")}, devices)


def test_every_counters_probe_knows_its_files():
    paths = sources.probe_paths()
    probes = {r["probe"] for r in DEVICES[H100]["counters"]["rows"]}
    assert probes <= set(paths), "a probe in the data that the script no longer names"
    assert paths["add-b256-w4"] == sorted(
        {"scripts/bench/counters.py", "scripts/bench/benchlib.py", "kernels/vector_add.py"}
        | set(sources.dependencies("kernels/vector_add.py", sources.Tree()))
        | set(sources.dependencies("scripts/bench/benchlib.py", sources.Tree()))
    )
