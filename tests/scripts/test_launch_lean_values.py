"""The launch_lean values: the verdict follows the data, and reads "not measured" without
it (runs on a CPU, on made-up rows)."""

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
    return {"launch_lean": {"rows": rows}}


def test_verdict_met_when_lean_is_not_slower():
    assert fig.verdict(docs_with(4e-6, 5e-6)).startswith("met: 4.0 µs")
    assert fig.verdict(docs_with(5e-6, 5e-6)).startswith("met")


def test_verdict_not_met_when_lean_is_slower():
    assert fig.verdict(docs_with(6e-6, 5e-6)).startswith("not met: 6.0 µs")


def test_values_without_data():
    """Every launch_lean value a page shows reads "not measured" on a device without the
    data (and every kind is shown somewhere)."""
    assert fig.verdict({}) == "not measured yet on this GPU"
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
