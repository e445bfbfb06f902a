"""The launch_lean values: the comparison word follows the data by the tie rule, and every
value reads "not measured" without it (runs on a CPU, on made-up rows)."""

from __future__ import annotations

from pathlib import Path

from figures import launch_lean as fig
from scripts.book import render

ROOT = Path(__file__).resolve().parents[2]


def docs_with(lean_s: float, torch_add_s: float) -> dict:
    def row(key, t):
        spread = {"p20": t, "p50": t, "p80": t, "reps": 7}
        return {"key": key, "what": key, "host_s": spread, "enqueue_s": spread}

    rows = [row("lean", lean_s), row("torch_add", torch_add_s), row("launcher", lean_s / 2)]
    return {"launch_lean": {"rows": rows, "ceilings": {}}}


def test_compare_says_faster_only_beyond_the_tie_margin():
    assert fig.compare(docs_with(4e-6, 5e-6), "lean", "torch_add") == "faster than"
    assert fig.compare(docs_with(5e-6, 5e-6), "lean", "torch_add") == "as fast as"
    # 0.5% apart: inside the tie rule's floor of 1%, so a tie
    assert fig.compare(docs_with(5.025e-6, 5e-6), "lean", "torch_add") == "as fast as"


def test_compare_says_slower_when_lean_is_slower():
    assert fig.compare(docs_with(6e-6, 5e-6), "lean", "torch_add") == "slower than"


def test_values_without_data():
    """Every launch_lean value a page shows reads "not measured" on a device without the
    data (and every kind is shown somewhere)."""
    assert fig.compare({}, "lean", "torch_add") is None
    reg = render.discover()
    uses = [
        use
        for md in sorted((ROOT / "docs").rglob("*.md"))
        for _, use in render.placeholders(md.read_text())
        if use.kind.startswith("launch_lean.")
    ]
    assert {use.kind for use in uses} == set(fig.VALUES)
    for use in uses:
        assert "not measured" in render.value_text("gpu", use, {"gpu": {}}, reg), use


def test_checks_cost_is_lean_minus_launcher():
    assert abs(fig.checks_cost(docs_with(4e-6, 5e-6)) - 2e-6) < 1e-12
