"""The shared helpers of scripts/book/render.py that figure modules use instead of writing
their own: points, traces, formats and row arithmetic. No data, no browser."""

from __future__ import annotations

import pytest

from scripts.book import render

SPREAD = {"p20": 1.0, "p50": 2.0, "p80": 4.0, "reps": 10}


def test_points_are_amounts_per_second_in_tera_units_low_from_the_slow_p80():
    rows = [
        {"bytes": 8e12, "flops": 4e12, "time_s": SPREAD, "empty_time_s": {**SPREAD, "p50": 8.0}}
    ]
    assert render.tbps_points(rows) == [(4.0, 2.0, 8.0)]
    assert render.tflops_points(rows) == [(2.0, 1.0, 4.0)]
    assert render.tbps_points(rows, "empty_time_s") == [(1.0, 2.0, 8.0)]
    assert render.tbps_points([]) == []
    assert render.us_points([{"time_s": {"p20": 1e-6, "p50": 2e-6, "p80": 4e-6}}]) == [
        (2.0, 1.0, 4.0)
    ]


def test_the_copy_ceiling_spans_the_xs_at_the_runs_copy_bandwidth():
    copy = {"bytes": 6e12, "time_s": SPREAD}  # 3 TB/s at the median
    docs = {"b": {"ceilings": {"copy": copy}, "rows": []}}
    c = render.copy_ceiling(docs, "b", [64, 4, 16], legendrank=2000)
    assert (c["x"], c["y"], c["name"]) == ([4, 64], [3.0, 3.0], "copy ceiling (3.00 TB/s)")
    assert c["line"] == {"dash": "dash"} and c["meta"] == {"role": "ceiling"}
    assert list(c)[-1] == "legendrank" and c["legendrank"] == 2000  # extra keys go last


def test_horizontal_bars_draw_medians_with_their_spread_and_colour_each_bar():
    bars = render.hbar(["a", "b"], [(2.0, 1.0, 4.0), (3.0, 3.0, 3.0)], "triton", name="ours",
                       hover="%{x:.1f}", text=["2", "3"], textposition="auto")  # fmt: skip
    assert (bars["type"], bars["orientation"], bars["y"], bars["x"]) == (
        "bar",
        "h",
        ["a", "b"],
        [2.0, 3.0],
    )
    assert bars["error_x"]["array"] == [2.0, 0.0] and bars["error_x"]["arrayminus"] == [1.0, 0.0]
    assert bars["meta"] == {"role": "bars", "roles": ["triton", "triton"]}
    assert (bars["text"], bars["textposition"], bars["textangle"]) == (["2", "3"], "auto", 0)
    assert bars["hovertemplate"] == "%{x:.1f}<extra>%{fullData.name}</extra>"
    plain = render.hbar(["a"], [5], ["cublas"])  # plain numbers, no name: no error bars
    assert plain["x"] == [5] and "error_x" not in plain and "name" not in plain
    assert plain["hovertemplate"] == "<extra></extra>" and plain["meta"]["roles"] == ["cublas"]
    own = render.hbar(["a"], [5], "triton", name="ours", hover="%{x}<extra></extra>")
    assert own["hovertemplate"] == "%{x}<extra></extra>"  # a hover with its own <extra> keeps it
    assert render.label_axis("inputs") == {
        "automargin": True, "autorange": "reversed", "title": {"text": "inputs"}
    }  # fmt: skip


def test_byte_formats():
    f = render.FORMATS
    assert f["mb"](117_440_512) == "117 MB" and f["mb"](1_234_567_890) == "1,235 MB"
    assert f["gb1"](2.25e9) == "2.2 GB" and f["gb"](2.25e9) == "2.25 GB"
    assert [f["kb_mb"](v) for v in (268_435_456, 33_554_432, 65_536)] == [
        "268 MB", "33.6 MB", "66 KB"
    ]  # fmt: skip
    assert f["kib"](32768) == "32 KiB" and f["bytes_kib"](98304) == "98,304 bytes (96 KiB)"
    assert f["mib"](50 * 2**20) == "50 MiB" and f["gib"](5 << 30) == "5.0 GiB"
    assert f["mib_gib"](512 * 2**20) == "512 MiB" and f["mib_gib"](3 << 29) == "1.5 GiB"


def test_ratio3_seconds_and_spans():
    f = render.FORMATS
    assert f["ratio3"](0.9996) == "1.000×" and f["s2"](12.345) == "12.35 s"
    spread = {"p20": 49.71e-6, "p50": 60e-6, "p80": 85.44e-6, "reps": 9}
    assert f["span_us1"](spread) == "49.7–85.4 µs" and f["span_ms2"](spread) == "0.05–0.09 ms"


def test_a_quotient_of_something_not_measured_is_not_measured():
    assert render.quotient(3.0, 2.0) == 1.5
    assert render.quotient(None, 2.0) is None and render.quotient(3.0, None) is None


def test_rows_by_orders_the_matching_rows_by_one_field():
    rows = [{"impl": "a", "n": 4}, {"impl": "b", "n": 1}, {"impl": "a", "n": 2}]
    docs = {"bench": {"rows": rows}}
    assert render.rows_by(docs, "bench", "n", impl="a") == [rows[2], rows[0]]
    assert [r["n"] for r in render.rows_by(docs, "bench", "n")] == [1, 2, 4]


def test_rate_lines_plot_the_rows_rates_against_one_field():
    rows = [{"n": 2, "bytes": 8e12, "flops": 4e12, "time_s": SPREAD}]
    bw = render.tbps_line(rows, "n", "ours", "triton", dash="dot")
    assert (bw["x"], bw["y"], bw["name"], bw["line"]) == ([2], [4.0], "ours", {"dash": "dot"})
    assert bw["error_y"]["array"] == [4.0] and bw["error_y"]["arrayminus"] == [2.0]
    assert render.tflops_line(rows, "n", "ours", "triton")["y"] == [2.0]


def test_the_winner_is_faster_beyond_the_spread():
    fast, slow = {"p20": 1.0, "p50": 1.5, "p80": 2.0}, {"p20": 3.0, "p50": 3.5, "p80": 4.0}
    overlapping = {"p20": 1.5, "p50": 2.5, "p80": 3.5}
    assert render.winner(fast, slow) == 1 and render.winner(slow, fast) == -1
    assert render.winner(fast, overlapping) == 0 and render.winner(overlapping, slow) == 0
    # the same rule as the prose's comparison words and the scoreboard's ties
    assert render.compare(fast, slow, margin=0.0) == "faster than"
    assert render.winner(fast, slow, margin=0.6) == 0  # widened past 1: a tie


def test_a_roofline_point_takes_the_rows_fields_unless_told():
    row = {"flops": 10, "bytes": 20, "time_s": SPREAD}
    assert render.roofline_point(row, "k") == {
        "kernel": "k",
        "flops": 10,
        "bytes": 20,
        "seconds": 2.0,
    }
    assert render.roofline_point(row, "k", 5, moved=7) == {
        "kernel": "k", "flops": 5, "bytes": 7, "seconds": 2.0
    }  # fmt: skip


def test_the_width_figure_lists_curves_in_order_and_draws_ours_last():
    docs = {"b": {"ceilings": {"copy": {"bytes": 6e12, "time_s": SPREAD}}, "rows": []}}
    row = {"cols": 256, "bytes": 8e12, "time_s": SPREAD}
    curves = [
        ([row], "ours", "triton", True, {"dash": "dash"}),
        ([row], "peer", "torch", False, {}),
    ]
    fig = render.width_figure(docs, "b", [256, 1024], curves)
    names = [t["name"] for t in fig["data"]]
    assert names == ["copy ceiling (3.00 TB/s)", "peer", "ours"]  # ceiling first, ours on top
    assert [t["legendrank"] for t in fig["data"]] == [2000, 1001, 1000]  # legend: curve order
    assert fig["data"][2]["line"] == {"dash": "dash"} and fig["layout"]["xaxis"]["type"] == "log"


def test_curves_are_one_per_implementation_and_style_that_has_rows():
    rows = [
        {"impl": "a", "dtype": "x", "n": 2}, {"impl": "a", "dtype": "x", "n": 1},
        {"impl": "a", "dtype": "y", "n": 1, "other": 1}, {"impl": "b", "dtype": "y", "n": 1},
    ]  # fmt: skip
    docs = {"bench": {"rows": rows}}
    impls = (("a", "A", "triton"), ("b", "B", "torch"), ("c", "C", "compile"))
    found = list(render.curves(docs, "bench", "n", impls, "dtype", (("x", "solid"), ("y", "dash"))))
    assert [(i, s, [r["n"] for r in rs]) for i, _, _, s, rs in found] == [
        ("a", "solid", [1, 2]), ("a", "dash", [1]), ("b", "dash", [1])
    ]  # fmt: skip
    assert found[0][:3] == ("a", "A", "triton")


def test_select_reads_none_as_any_value():
    rows = [{"block": 4, "warps": 1}, {"block": 4, "warps": 2}, {"block": 8, "warps": 1}]
    docs = {"bench": {"rows": rows}}
    assert render.select(docs, "bench", block=4, warps=None) == rows[:2]
    assert render.select(docs, "bench", block=None, warps=1) == [rows[0], rows[2]]
    assert render.select(docs, "bench", block=None) == rows


def test_panels_give_each_pane_its_axes_a_title_and_one_legend_entry_per_name():
    a = render.line([1, 2], [3, 4], "Triton", "triton")
    b = render.line([1, 2], [5, 6], "torch", "torch")
    fig = render.panels(
        [("fp32", [a, b]), ("bf16", [a, b])], render.axis("n", log=True), render.axis("TB/s")
    )
    assert [(t["xaxis"], t["yaxis"]) for t in fig["data"]] == [("x", "y")] * 2 + [("x2", "y2")] * 2
    assert [t.get("showlegend", True) for t in fig["data"]] == [True, True, False, False]
    assert {t["legendgroup"] for t in fig["data"]} == {"Triton", "torch"}
    lay = fig["layout"]
    assert lay["grid"]["rows"] == 1 and lay["grid"]["columns"] == 2
    assert lay["xaxis2"]["type"] == "log" and lay["yaxis2"]["matches"] == "y"
    assert [n["text"] for n in lay["annotations"]] == ["<b>fp32</b>", "<b>bf16</b>"]
    assert lay["annotations"][1]["xref"] == "x2 domain"
    assert "xaxis" not in a and "showlegend" not in a  # the traces given are not changed


def _device(gpu: str, n: int) -> dict:
    prov = {"gpu": gpu, "sm_count": 1, "driver": "1", "cuda": "1", "torch": "1", "triton": "1",
            "date": "2026-01-01", "commit": "abc"}  # fmt: skip
    return {"b": {"benchmark": "b", "provenance": prov, "rows": [{"n": n}]}}


def test_a_counted_figure_is_drawn_once_and_says_counted():
    import json
    import re

    import pytest

    def build(docs):
        return render.plot([render.line([1], [docs["b"]["rows"][0]["n"]], "x", "triton")])

    fig = render.Figure("t", ("b",), build, "alt", counted="bytes from the shapes")
    reg = render.Registry({"f": fig}, {})
    devices = {"h100": _device("H100", 1), "h200": _device("H200", 1)}
    out = render.figure_html("f", devices, reg)
    payload = json.loads(re.search(r'data">(.*?)</script>', out).group(1))
    assert payload["counted"] is True and len(payload["devices"]) == 1
    assert payload["devices"][0]["caption"] == "Counted: bytes from the shapes"
    assert "Measured on" not in out
    devices["h200"] = _device("H200", 2)  # counted yet different: the build says so
    with pytest.raises(render.RenderError, match="counted, not measured"):
        render.figure_html("f", devices, reg)


def test_impl_lines_draw_one_line_per_implementation_that_has_rows():
    t = {"p20": 1.0, "p50": 1.0, "p80": 1.0, "reps": 5}
    rows = [
        {"impl": i, "n": n, "dtype": d, "bytes": 1e12 * n, "time_s": t}
        for i in ("a", "b")
        for n in (2, 1)
        for d in ("x", "y")
    ]
    docs = {"bench": {"rows": rows}}
    impls = (("a", "A", "triton"), ("b", "B", "torch", {"mode": "markers"}), ("c", "C", "c"))
    lines = render.impl_lines(docs, "bench", "n", impls, render.tbps_points, "%{y}", dtype="x")
    assert [(t["name"], t["x"], t["y"]) for t in lines] == [
        ("A", [1, 2], [1.0, 2.0]),
        ("B", [1, 2], [1.0, 2.0]),
    ]  # "c" has no rows: no line
    assert lines[1]["mode"] == "markers" and lines[0]["meta"] == {"role": "triton"}
    assert lines[0] == render.tbps_line(
        render.rows_by(docs, "bench", "n", impl="a", dtype="x"), "n", "A", "triton", hover="%{y}"
    )


def test_impl_curves_are_width_figure_curves_with_ours_marked():
    rows = [{"impl": i, "cols": c} for i in ("triton", "torch") for c in (8, 4)]
    docs = {"bench": {"rows": rows}}
    impls = (("triton", "ours", "triton"), ("torch", "theirs", "torch"), ("x", "none", "x"))
    curves = render.impl_curves(docs, "bench", impls)
    assert [(rs[0]["cols"], name, role, ours, extra) for rs, name, role, ours, extra in curves] == [
        (4, "ours", "triton", True, {}),
        (4, "theirs", "torch", False, {}),
    ]


def test_clock_bars_draw_each_clock_every_row_has_and_name_the_rest():
    s = {"p20": 1e-6, "p50": 2e-6, "p80": 3e-6, "reps": 5}
    rows = [{"host_s": s, "gpu_s": s}, {"host_s": s}]
    clocks = (("host_s", "wall: a loop", "series-0"), ("gpu_s", "GPU: events", "series-1"))
    traces, missing = render.clock_bars(rows, ["a", "b"], clocks, lambda v: f"{v:g}", "%{x}")
    assert missing == ["GPU"] and len(traces) == 1
    bars = traces[0]
    assert (bars["name"], bars["x"], bars["text"]) == ("wall: a loop", [2.0, 2.0], ["2e-06"] * 2)
    assert bars["meta"] == {"role": "bars", "roles": ["series-0", "series-0"]}


def test_times_over_takes_the_per_round_ratio_where_timed_head_to_head():
    a = {"p20": 1.0, "p50": 2.0, "p80": 3.0, "reps": 5}
    b = {"p20": 3.0, "p50": 4.0, "p80": 5.0, "reps": 5}
    assert render.times_over(a, b) == 0.5 and render.times_over(a, None) is None
    ab = {"ab": {"group": "g", "name": "a"}, "vs": {"b": {"p20": 1.9, "p50": 2.1, "p80": 2.3}}}
    a_paired, b_paired = {**a, **ab}, {**b, "ab": {"group": "g", "name": "b"}}
    # b's time over a's: the per-round ratio a recorded against b, not 4 / 2
    assert render.times_over(b_paired, a_paired) == 2.1


def test_ran_is_the_row_that_has_a_time_or_none():
    docs = {"b": {"rows": [{"impl": "a", "time_s": SPREAD}, {"impl": "f", "failure": "no"}]}}
    assert render.ran(docs, "b", impl="a") == {"impl": "a", "time_s": SPREAD}
    assert render.ran(docs, "b", impl="f") is None  # a failure
    assert render.ran(docs, "b", impl="z") is None  # no such row
    assert render.ran({}, "b", impl="a") is None  # no such benchmark on the device


def test_pair_helpers_over_and_difference_give_none_without_both():
    assert render.over({}, 3.0, 2.0) == 1.5 and render.over({}, None, 2.0) is None
    minus = render.difference(render.p50)
    assert minus({}, {"time_s": {"p50": 3.0}}, {"time_s": {"p50": 1.0}}) == 2.0
    assert minus({}, None, {"time_s": {"p50": 1.0}}) is None


def test_scientific_notation_writes_a_true_minus_and_superscripts():
    assert render.sci(-6.5e-4) == "−6.5 × 10⁻⁴"
    assert render.sci(2.7e-3) == "2.7 × 10⁻³"
    assert render.sci(0) == "0"
    assert render.FORMATS["sci"] is render.sci


def test_a_figures_alt_text_defaults_to_its_build_functions_docstring():
    def build(docs):
        """Bars of one
        thing, with spaces collapsed."""

    assert render.Figure("t", (), build).alt == "Bars of one thing, with spaces collapsed."
    assert render.Figure("t", (), build, "given").alt == "given"
    try:
        render.Figure("t", (), lambda docs: {})
    except render.RenderError as exc:
        assert "give alt" in str(exc)
    else:
        raise AssertionError("a figure without alt text or docstring was accepted")


def test_sm_limits_are_those_of_the_runs_compute_capability():
    docs = {"b": {"provenance": {"compute_capability": "9.0"}, "rows": []}}
    assert render.sm_limits(docs)["threads"] == 2048
    docs["b"]["provenance"]["compute_capability"] = "1.0"
    assert render.sm_limits(docs) is None


def test_bar_chart_is_grouped_bars_on_a_zero_based_value_axis_with_labels_top_down():
    chart = render.bar_chart([{"type": "bar"}], "µs per call", "inputs", height=300)
    layout = chart["layout"]
    assert layout["barmode"] == "group" and layout["height"] == 300
    assert layout["xaxis"] == render.axis("µs per call", rangemode="tozero")
    assert layout["yaxis"] == render.label_axis("inputs")
    assert "barmode" not in render.bar_chart([], "x", group=False)["layout"]


def test_notes_and_arrows_are_annotations_in_axis_coordinates():
    assert render.note(1, 2, "here", xanchor="left") == {
        "x": 1, "y": 2, "text": "here", "showarrow": False, "xanchor": "left"
    }  # fmt: skip
    arrow = render.arrow(1, 2, 1, 0, arrowside="end+start")
    assert (arrow["ax"], arrow["ay"], arrow["axref"], arrow["ayref"]) == (1, 0, "x", "y")
    assert arrow["showarrow"] and arrow["text"] == "" and arrow["arrowside"] == "end+start"


def test_a_size_chart_has_a_log_x_axis_with_sorted_ticks_and_a_y_axis_from_zero():
    chart = render.size_chart([], "n", {4096, 1024}, "TB/s")["layout"]
    assert chart["xaxis"] == render.axis("n", log=True, ticks=[1024, 4096])
    assert chart["yaxis"] == render.axis("TB/s", rangemode="tozero")
    assert render.size_chart([], "n", [1], "s", y_log=True)["layout"]["yaxis"]["type"] == "log"
    two = render.size_chart([("a", []), ("b", [])], "n", [1, 2], "s", panes=True, columns=1)
    assert two["layout"]["grid"]["rows"] == 2 and two["layout"]["yaxis2"]["matches"] == "y"


def test_impl_panes_draw_one_trace_per_impl_that_ran_in_each_panel():
    rows = [{"impl": i, "causal": c, "n": n} for i in ("a", "b") for c in (False, True)
            for n in (2, 1) if (i, c) != ("b", True)]  # fmt: skip
    docs = {"bench": {"rows": rows}}
    impls = (("a", "A", "triton"), ("b", "B", "torch"))
    draw = lambda rs, label, role: (label, role, [r["n"] for r in rs])  # noqa: E731
    panes, xs = render.impl_panes(
        docs, "bench", impls, "causal", ((False, "full"), (True, "causal")), draw
    )
    assert xs == {1, 2}
    assert panes == [
        ("full", [("A", "triton", [1, 2]), ("B", "torch", [1, 2])]),
        ("causal", [("A", "triton", [1, 2])]),
    ]


def test_a_choice_may_leave_a_sentence_out():
    """An empty phrasing is a sentence the data leaves out (lesson 12's ladder: a rung that
    did not run is not told); a case still needs its '=>'."""

    def n(docs: render.Docs) -> int | None:
        """A made-up count, None where the device lacks it."""
        return docs["b"].get("n")

    reg = render.Registry(figures={}, values={"toy.n": render.Value(n)})
    body = "choose x | toy.n == none => | toy.n > 2 => many, {{ value x toy.n }} | else =>"
    runs = ({}, {"n": 3}, {"n": 1})
    shown = [render.choose_text(body, {"x": {"b": {"provenance": {}, **b}}}, reg) for b in runs]
    assert shown == ["", "many, 3", ""]
    with pytest.raises(render.RenderError, match="is not 'CONDITION => TEXT'"):
        render.choose_text("choose x | toy.n == none", {"x": {"b": {}}}, reg)


def test_code_constant_reads_a_files_constant_without_importing_it(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "ROOT", tmp_path)
    (tmp_path / "k.py").write_text("import torch\nTILE = (128, 64)\nN: int = 3\n")
    assert render.code_constant("k.py", "TILE") == (128, 64)
    with pytest.raises(KeyError, match="k.py defines no constant N"):
        render.code_constant("k.py", "N")  # annotated assignments are not read


def test_time_pair_kinds_compare_two_rows_median_times():
    a, b = ({"p20": t - 0.1, "p50": t, "p80": t + 0.1, "reps": 10} for t in (3.0, 2.0))
    rows = [{"impl": "a", "time_s": a}, {"impl": "b", "time_s": b}]
    docs = {"bench": {"rows": rows, "provenance": {}, "ceilings": {}}}

    def pick(docs: render.Docs, impl: str) -> dict | None:
        """The made-up row of ``impl``."""
        return render.maybe_one(docs, "bench", absent_ok=True, impl=impl)

    ratio, extra, vs, added = render.time_pair_kinds(pick, "impl", "bench")
    assert list(render.parameters(ratio)) == ["of", "to"]
    assert (ratio(docs, "a", "b"), extra(docs, "a", "b")) == (1.5, 0.5)
    assert added(docs, "a", "b") == 1.0
    assert vs(docs, "b", "a") == "faster than" and ratio(docs, "a", "c") is None


def test_pair_kind_default_lets_a_page_leave_of_and_to_out():
    a, b = ({"p20": t - 0.1, "p50": t, "p80": t + 0.1, "reps": 10} for t in (3.0, 2.0))
    rows = [{"impl": "a", "time_s": a}, {"impl": "b", "time_s": b}]
    docs = {"bench": {"rows": rows, "provenance": {}, "ceilings": {}}}

    def pick(docs: render.Docs, impl: str, scale: int = 1) -> dict | None:
        """The made-up row of ``impl``."""
        return render.maybe_one(docs, "bench", absent_ok=True, impl=impl)

    ratio = render.pair_kind(pick, "impl", render.divide(render.p50), "a over b", ("a", "b"))
    params = render.parameters(ratio)
    assert list(params) == ["of", "to", "scale"]
    assert (params["of"].default, params["to"].default) == ("a", "b")
    assert ratio(docs) == 1.5 and ratio(docs, to="a") == 1.0
    plain = render.pair_kind(pick, "impl", render.divide(render.p50), "no defaults")
    assert render.parameters(plain)["of"].required
