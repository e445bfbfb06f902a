"""The scoreboard appendix (figures/scoreboard.py, docs/appendix/scoreboard.md) and the tie
rule it shares with the prose (scripts/book/render.py: speedup, ties, tie_margin,
compare): every table renders on every device that has its data, each lesson 07-14 has
its anchor, and a cell says "ties" exactly when its interval includes 1. No torch, no
browser."""

from __future__ import annotations

import re

import markdown
import pytest
import yaml

from figures import scoreboard
from scripts.book import render
from tests.site.support import DOCS, ROOT

DEVICES = render.load_devices()
REGISTRY = render.discover()
PAGE = DOCS / "appendix" / "scoreboard.md"
TABLE = re.compile(r"\{\{\s*table\s+(\S+)\s*\}\}")


def spread(p50: float, low: float | None = None, high: float | None = None) -> dict:
    """A time spread: p20 and p80 default to the median (no spread)."""
    return {"p20": low or p50, "p50": p50, "p80": high or p50, "reps": 100}


# ---- the rule --------------------------------------------------------------------------------


def test_speedup_pairs_opposite_percentiles():
    ours, peer = spread(1.0, 0.9, 1.2), spread(2.0, 1.8, 2.2)
    mid, low, high = render.speedup(ours, peer)
    assert (mid, low, high) == pytest.approx((2.0, 1.8 / 1.2, 2.2 / 0.9))
    mid, low, high = render.speedup(ours, peer, margin=0.05)
    assert (low, high) == pytest.approx((1.8 / 1.2 / 1.05, 2.2 / 0.9 * 1.05))


@pytest.mark.parametrize(
    "low, high, tie",
    [
        (0.95, 1.05, True),
        (1.0, 1.2, True),
        (0.8, 1.0, True),
        (1.001, 1.2, False),
        (0.8, 0.999, False),
    ],
    ids=["around", "touches-low", "touches-high", "above", "below"],
)
def test_a_ratio_ties_exactly_when_its_interval_includes_one(low, high, tie):
    assert render.ties(low, high) is tie


def test_overlapping_spreads_tie_whatever_the_medians_say():
    # Medians 4% apart, but our slow end (p80) is slower than the peer's fast end (p20).
    ours, peer = spread(1.00, 0.97, 1.03), spread(1.04, 1.01, 1.07)
    assert render.compare(ours, peer, margin=0.0) == "as fast as"
    # Apart beyond both spreads: a direction.
    assert render.compare(spread(1.0, 0.99, 1.005), peer, margin=0.0) == "faster than"
    assert render.compare(peer, spread(1.0, 0.99, 1.005), margin=0.0) == "slower than"


def test_the_margin_turns_a_small_gap_into_a_tie():
    ours, peer = spread(1.0), spread(1.005)  # 0.5% apart, no spread at all
    assert render.compare(ours, peer, margin=0.0) == "faster than"
    assert render.compare(ours, peer) == "as fast as"  # the 1% floor by default
    assert render.compare(ours, spread(1.02)) == "faster than"


def test_compare_takes_its_own_words():
    words = ("beats", "ties", "trails")
    assert render.compare(spread(1.0), spread(2.0), words) == "beats"
    assert render.compare(spread(2.0), spread(1.0), words) == "trails"


def matmul_doc(ceiling_s: float, row_s: float | None) -> dict:
    shape = {"m": 8192, "n": 8192, "k": 8192}
    rows = [] if row_s is None else [
        {"impl": "cublas", "dtype": "float16", **shape, "time_s": spread(row_s)}
    ]  # fmt: skip
    return {
        "ceilings": {"matmul": {"float16": {**shape, "time_s": spread(ceiling_s)}}},
        "rows": rows,
    }


def test_repeat_drift_is_the_gap_between_the_runs_two_timings_of_cublas():
    assert render.repeat_drift(matmul_doc(1.0, 1.05)) == pytest.approx(0.05)
    assert render.repeat_drift(matmul_doc(1.0, None)) == 0.0  # nothing repeated
    assert render.tie_margin(matmul_doc(1.0, None)) == render.TIE_FLOOR
    assert render.tie_margin(matmul_doc(1.0, 0.97)) == pytest.approx(0.03)


# ---- cells --------------------------------------------------------------------------------


def docs_with(rows: list[dict], ceiling_s: float = 1.0) -> dict:
    d = {
        "provenance": {},
        "ceilings": {"copy": {"bytes": 100, "time_s": spread(ceiling_s)}},
        "rows": rows,
    }
    return {"b": d}


@pytest.mark.parametrize(
    "ours, peer, word",
    [
        (spread(1.0, 0.98, 1.02), spread(1.03, 1.01, 1.05), "ties"),
        (spread(1.0, 0.99, 1.01), spread(1.10, 1.09, 1.11), "faster"),
        (spread(1.10, 1.09, 1.11), spread(1.0, 0.99, 1.01), "slower"),
    ],
    ids=["ties", "faster", "slower"],
)
def test_a_cell_says_ties_exactly_when_its_shown_interval_includes_one(ours, peer, word):
    docs = docs_with([])
    text = scoreboard.against(docs, "b", {"time_s": ours}, {"time_s": peer})
    assert text.startswith(f"{word}: ")
    low, high = map(float, re.search(r"\(([\d.]+)–([\d.]+)\)", text).groups())
    assert render.ties(low, high) == (word == "ties"), text


def test_a_cell_of_copy_is_a_share_of_the_runs_copy_bandwidth():
    docs = docs_with([], ceiling_s=1.0)
    assert scoreboard.of_copy(docs, "b", {"bytes": 50, "time_s": spread(1.0)}) == "50% (50–50%)"
    assert scoreboard.of_copy(docs, "b", {"bytes": 100, "time_s": spread(1.0)}).startswith("ties")
    assert scoreboard.of_copy(docs, "b", None) is None  # not measured: no cell


def test_a_cell_near_one_gets_the_digits_that_show_its_side():
    # 1.2% faster, beyond the 1% margin: two decimals would print (1.00–1.02), a tie to the eye.
    ours, peer = {"time_s": spread(1.0)}, {"time_s": spread(1.012)}
    assert scoreboard.against(docs_with([]), "b", ours, peer) == "faster: 1.012× (1.002–1.022)"


def test_host_bound_needs_both_controls():
    row = {"time_s": spread(10e-6), "host_s": spread(20e-6), "graph_time_s": spread(5e-6)}
    assert render.graph_host_bound(row)
    assert not render.graph_host_bound({**row, "host_s": spread(5e-6)})
    assert not render.graph_host_bound({"time_s": spread(10e-6), "host_s": spread(20e-6)})


# ---- the tables and the page ----------------------------------------------------------------


def placed(page=PAGE) -> list[str]:
    return TABLE.findall(page.read_text())


def test_the_scoreboard_places_each_of_its_tables_once():
    assert sorted(placed()) == sorted(scoreboard.TABLES)


def test_every_table_is_placed_on_some_page():
    """A table no page shows is dead code, as an unused value kind is."""
    everywhere = [name for md in sorted(DOCS.rglob("*.md")) for name in placed(md)]
    assert set(REGISTRY.tables) <= set(everywhere), set(REGISTRY.tables) - set(everywhere)


@pytest.mark.parametrize("name", sorted(REGISTRY.tables))
def test_every_table_renders_on_every_device_with_its_data(name):
    table = REGISTRY.tables[name]
    text = render.table_markdown(name, DEVICES, REGISTRY)
    lines = text.splitlines()
    have = [
        render.provenance(docs)["gpu"]
        for docs in DEVICES.values()
        if any(b in docs for b in table.reads)
    ]
    assert have, f"{name}: no device has {table.reads}"
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == [*table.head, *have]
    body = [line for line in lines[2:] if line.startswith("|")]
    assert body, name
    for line in body:
        cells = [c.strip() for c in line.strip("|").split("|")][len(table.head) :]
        assert len(cells) == len(have), line
        # A row no device can fill would be a typo in a lookup, not a measurement.
        assert any(c != render.NOT_THERE for c in cells), f"{name}: empty row {line}"
        assert "nan" not in line.lower(), line
    # Each column has at least one measured cell, and each device's run is named under it.
    for i, gpu in enumerate(have):
        column = [
            [c.strip() for c in line.strip("|").split("|")][len(table.head) + i] for line in body
        ]
        assert any(c != render.NOT_THERE for c in column), f"{name}: {gpu} column empty"
        assert any(line.startswith(f"- Measured on {gpu} ") for line in lines), gpu


def test_a_device_without_a_row_shows_a_dash():
    devices = {slug: dict(docs) for slug, docs in DEVICES.items()}
    slug = next(iter(devices))
    bench = dict(devices[slug]["vector_add"])
    bench["rows"] = [r for r in bench["rows"] if r["impl"] != "torch"]
    devices[slug]["vector_add"] = bench
    text = render.table_markdown("scoreboard-07", devices, REGISTRY)
    assert render.NOT_THERE in text


def test_an_unknown_table_fails():
    with pytest.raises(render.RenderError, match="unknown table 'scoreboard-99'"):
        render.expand("{{ table scoreboard-99 }}", DEVICES, REGISTRY)


LESSONS = [f"{n:02d}" for n in range(7, 19)]


def test_each_lesson_07_to_18_has_its_anchor():
    """Lessons link ``../appendix/scoreboard.md#lesson-NN``: the heading ids are fixed
    (attr_list), so a retitled heading keeps its anchor."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert "attr_list" in config["markdown_extensions"]
    text = TABLE.sub("", PAGE.read_text())
    html = markdown.markdown(text, extensions=["attr_list", "toc"])
    ids = set(re.findall(r'<h2 id="([^"]+)"', html))
    assert {f"lesson-{n}" for n in LESSONS} <= ids, sorted(ids)


def test_the_page_is_in_the_nav():
    assert "appendix/scoreboard.md" in (ROOT / "mkdocs.yml").read_text()


def test_host_times_are_widened_by_the_launch_bound_drift(monkeypatch):
    docs = docs_with([])
    ours, peer = {"host_s": spread(1.0)}, {"host_s": spread(1.10)}
    assert scoreboard.against(docs, "b", ours, peer, "host_s").startswith("faster")
    monkeypatch.setattr(scoreboard, "launch_drift", lambda docs: 0.15)
    assert scoreboard.against(docs, "b", ours, peer, "host_s").startswith("ties")
    # A device time that the host did not set keeps the plain margin.
    assert (
        scoreboard.against(docs, "b", {"time_s": spread(1.0)}, {"time_s": spread(1.10)})[:6]
        == "faster"
    )
