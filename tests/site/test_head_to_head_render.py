"""What the engine makes of head-to-head data (issue 21): comparison words from the ratio's
spread where two spreads were timed in turn ("faster", "slower", or "ties" when the
ratio's 20th-80th percentile interval includes 1), today's rule for data timed apart;
host-bound points drawn hollow, with the caption explaining them once; a power-capped run
said in the caption. No GPU, no browser: made-up rows."""

from __future__ import annotations

import copy
import json
import re

import pytest

from scripts.book import render


def timed_apart(p50: float) -> dict:
    return {"p20": p50 * 0.9, "p50": p50, "p80": p50 * 1.1, "reps": 100}


def head_to_head(ours_p50, peer_p50, ratio, group="g1"):
    """Two spreads timed in turn: wide spreads (the clocks moved), a ratio of ``ratio``
    = (p20, p50, p80) of peer / ours per round."""
    low, mid, high = ratio
    ours = {
        **timed_apart(ours_p50),
        "ab": {"group": group, "name": "triton"},
        "vs": {"cublas": {"p20": low, "p50": mid, "p80": high, "reps": 100}},
    }
    peer = {
        **timed_apart(peer_p50),
        "ab": {"group": group, "name": "cublas"},
        "vs": {"triton": {"p20": 1 / high, "p50": 1 / mid, "p80": 1 / low, "reps": 100}},
    }
    return ours, peer


@pytest.mark.parametrize(
    "ratio, word, winner",
    [
        pytest.param((1.02, 1.03, 1.04), "faster than", 1, id="faster"),
        pytest.param((0.95, 0.96, 0.97), "slower than", -1, id="slower"),
        pytest.param((0.99, 1.005, 1.02), "as fast as", 0, id="ties"),
    ],
)
def test_words_come_from_the_ratio_spread(ratio, word, winner):
    ours, peer = head_to_head(1.0, 1.0, ratio)  # the spreads alone overlap: a tie apart
    assert render.compare(ours, peer) == word
    assert render.winner(ours, peer) == winner
    assert render.speedup(ours, peer) == (ratio[1], ratio[0], ratio[2])
    # seen from the peer's side, the same comparison the other way round
    back = {"faster than": "slower than", "slower than": "faster than"}.get(word, word)
    assert render.compare(peer, ours) == back


def test_the_ratio_is_not_widened_by_the_runs_drift():
    ours, peer = head_to_head(1.0, 1.05, (1.02, 1.03, 1.04))
    assert render.compare(ours, peer, margin=0.2) == "faster than"
    assert render.speedup(ours, peer, 0.2)[1:] == (1.02, 1.04)


def test_spreads_timed_apart_keep_todays_rule():
    fast, slow = timed_apart(1.0), timed_apart(1.5)
    assert render.paired(fast, slow) is None
    assert render.compare(fast, slow, margin=0.0) == "faster than"
    assert render.speedup(fast, slow) == pytest.approx((1.5, 1.35 / 1.1, 1.65 / 0.9))
    assert render.compare(timed_apart(1.0), timed_apart(1.05)) == "as fast as"


def test_spreads_of_different_comparisons_are_not_paired():
    ours, _ = head_to_head(1.0, 1.0, (1.02, 1.03, 1.04), group="g1")
    _, peer = head_to_head(1.0, 1.3, (1.02, 1.03, 1.04), group="g2")
    assert render.paired(ours, peer) is None
    assert render.speedup(ours, peer)[0] == pytest.approx(1.3)
    assert render.paired(ours, ours) is None  # itself: no ratio


# ---- host-bound points ----------------------------------------------------------------


def row(n, time_us, host_us=None, graph_us=None):
    r = {"n": n, "bytes": n * 12, "time_s": timed_apart(time_us * 1e-6)}
    if host_us is not None:
        r["host_s"] = timed_apart(host_us * 1e-6)
    if graph_us is not None:
        r["graph_time_s"] = timed_apart(graph_us * 1e-6)
    return r


def test_a_row_is_host_bound_when_its_host_time_exceeds_its_gpu_time():
    assert render.host_bound(row(256, 3.0, host_us=6.0))
    assert not render.host_bound(row(1 << 28, 1000.0, host_us=1001.0))  # the GPU's pace
    assert not render.host_bound(row(1 << 20, 10.0, host_us=10.5))  # within the spreads
    assert not render.host_bound(row(256, 3.0))  # no host time: nothing to say
    # the CUDA-graph time, where a row has it, is the GPU's time
    assert render.host_bound(row(64, 9.0, host_us=8.0, graph_us=2.0))
    assert not render.host_bound(row(64, 3.0, host_us=4.0, graph_us=5.0))
    # more GPU work than any host path: the host loop's excess is not the host's path
    assert not render.host_bound(row(1 << 24, 199.0, host_us=234.0))
    assert not render.graph_host_bound(row(1 << 24, 200.0, host_us=234.0, graph_us=199.0))
    assert render.graph_host_bound(row(64, 9.0, host_us=8.0, graph_us=2.0))


def test_host_bound_points_are_drawn_hollow_point_by_point():
    rows = [row(256, 3.0, host_us=6.0), row(1 << 16, 4.0, host_us=6.0), row(1 << 26, 900, 901)]
    trace = render.tbps_line(rows, "n", "Triton", "triton", marker={"symbol": "square"})
    assert trace["marker"]["symbol"] == ["square-open", "square-open", "square"]
    assert trace["meta"]["host_bound"] == [True, True, False]
    assert trace["meta"]["role"] == "triton"
    plain = render.line([1, 2], [1.0, 2.0], "x", "torch", rows=[row(1, 1.0), row(2, 2.0)])
    assert "symbol" not in plain.get("marker", {}) and "host_bound" not in plain["meta"]
    assert render.line([1], [1.0], "x", "torch")["meta"] == {"role": "torch"}


def fake_docs(rows, power=None):
    ceilings = {"copy": {"elements": 1, "dtype": "float32", "bytes": 8, "time_s": timed_apart(1)}}
    prov = {
        "gpu": "NVIDIA H100 80GB HBM3",
        "sm_count": 132,
        "driver": "1",
        "cuda": "12",
        "torch": "2",
        "triton": "3",
        "date": "2026-11-26T00:00:00",
        "commit": "0123456789abcdef",
        "dirty": False,
    }
    if power:
        prov["power"] = power
    return {"toy": {"benchmark": "toy", "provenance": prov, "ceilings": ceilings, "rows": rows}}


def toy_registry():
    fig = render.Figure(
        title="toy",
        needs=("toy",),
        build=lambda docs: render.plot(
            [render.tbps_line(docs["toy"]["rows"], "n", "Triton", "triton")]
        ),
        alt="a toy figure",
    )
    return render.Registry({"toy": fig}, {})


def captions(html: str) -> list[str]:
    blob = re.search(r'class="book-figure__data">(.*?)</script>', html, re.S).group(1)
    return [entry["caption"] for entry in json.loads(blob)["devices"]]


def test_the_caption_explains_hollow_markers_once_where_a_figure_has_them():
    bound = [row(256, 3.0, host_us=6.0), row(512, 3.0, host_us=6.0), row(1 << 26, 900, 901)]
    devices = {"h100": fake_docs(bound), "h200": fake_docs([row(1 << 26, 900, 901)])}
    with_marks, without = captions(render.figure_html("toy", devices, toy_registry()))
    assert with_marks.count(render.HOST_BOUND_NOTE) == 1
    assert render.HOST_BOUND_NOTE not in without
    assert with_marks.startswith("Measured on ")


POWER = {
    "interval_ms": 100,
    "samples": 50,
    "power_w": {"min": 120.0, "p50": 640.0, "max": 699.0},
    "sm_mhz": {"min": 1410.0, "p50": 1755.0, "max": 1980.0},
    "power_limit_w": 700.0,
    "sm_max_mhz": 1980.0,
    "at_limit_share": 0.42,
    "busy_sm_mhz": 1755.0,
    "capped": True,
}


def test_a_power_capped_run_is_said_in_the_caption():
    rows = [row(1 << 26, 900, 901)]
    capped = {"h100": fake_docs(rows, POWER)}
    text = captions(render.figure_html("toy", capped, toy_registry()))[0]
    assert "power-capped while measured: 42% of samples within 3% of the 700 W limit" in text
    assert "SM clock 1755 of 1980 MHz under load" in text
    calm = copy.deepcopy(POWER) | {"capped": False, "at_limit_share": 0.0}
    for power in (calm, None):
        text = captions(render.figure_html("toy", {"h100": fake_docs(rows, power)}, toy_registry()))
        assert "power-capped" not in text[0]


def test_two_files_of_one_run_are_one_part_of_the_caption():
    """Two benchmarks of one run differ only in their start time: the caption names the
    run once, and a file of another run (another commit) gets its own part."""
    prov = {
        "gpu": "NVIDIA H100 80GB HBM3", "sm_count": 132, "driver": "580", "cuda": "13.0",
        "torch": "2.11", "triton": "3.6", "commit": "a" * 40,
        "date": "2026-11-26T21:59:18+00:00",
        "clocks_after": {"sm_mhz": 1980.0, "sm_max_mhz": 1980.0},
    }  # fmt: skip
    later = prov | {"date": "2026-11-26T22:01:02+00:00"}
    other = prov | {"commit": "b" * 40}
    docs = {name: {"provenance": p} for name, p in (("x", prov), ("y", later), ("z", other))}
    run = "2026-11-26 · commit aaaaaaaaaa · SM clock after run 1980 of 1980 MHz"
    assert render.caption(docs, ("x", "y")).count(run) == 1
    both = render.caption(docs, ("x", "y", "z"))
    assert both.count(run) == 1 and "commit bbbbbbbbbb" in both
