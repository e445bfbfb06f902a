"""Lesson 12's forward ladder (figures/attention.py, "the last quarter"), read without a GPU:
from the committed data, where no device has the ladder's file yet (the figure then draws
lesson 12's kernel and the peers from the attention benchmark, and every ladder value says
"not measured"), and from a made-up ladder file in the runner's envelope (every rung drawn
in order, ratios read from the head-to-head spreads, a failed rung left out and named)."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from figures import attention as fa
from scripts.book import render
from tests.site.support import ROOT, schema_for

MEASURED = render.load_devices()
SLUG = next(s for s, docs in MEASURED.items() if "attention" in docs)
# The device as it was before any ladder run: its attention data, no ladder files (the
# made-up ladder below is added to this, so the tests do not depend on what is committed).
DEVICES = {
    slug: {b: d for b, d in docs.items() if not b.startswith(fa.LADDER)}
    for slug, docs in MEASURED.items()
}
TIMES = {"simple": 2.4e-3, "descriptors": 2.2e-3, "tuned": 2.0e-3, "sdpa_cudnn": 1.8e-3,
         "flex": 2.3e-3, "sdpa_flash": 3.2e-3}  # fmt: skip


def spread(name: str, t: float) -> dict:
    """A head-to-head spread: every other impl's per-round ratio is its time over ``t``."""
    vs = {
        other: {"p20": u / t * 0.99, "p50": u / t, "p80": u / t * 1.01, "reps": 50}
        for other, u in TIMES.items()
        if other != name
    }
    return {"p20": t * 0.99, "p50": t, "p80": t * 1.01, "reps": 50,
            "ab": {"group": "g-1", "name": name}, "vs": vs}  # fmt: skip


def ladder_doc(base: dict) -> dict:
    rows = []
    for d, heads in ((128, 32), (64, 64)):
        for causal in (False, True):
            common = {"direction": "forward", "dtype": "bfloat16", "batch": 4, "heads": heads,
                      "n": 4096, "head_dim": d, "causal": causal,
                      "flops": 4 * 4 * heads * 4096**2 * d // (2 if causal else 1)}  # fmt: skip
            for impl, t in TIMES.items():
                row = {"impl": impl, **common, "time_s": spread(impl, t)}
                if impl == "descriptors":
                    row.update(config="128x128 w8 s3", n_regs=188, n_spills=0, plan=False)
                if impl == "tuned":
                    row.update(config="128x64 w4 s2", n_regs=168, n_spills=0, plan=True)
                rows.append(row)
            failure = "CompilationError: NVGPUWarpSpecialization failed"
            rows.append({"impl": "warp_specialize", **common, "failure": failure})
    doc = copy.deepcopy(base)
    doc.update(benchmark=fa.LADDER, rows=rows)
    return doc


@pytest.fixture(scope="module")
def with_ladder():
    docs = dict(DEVICES[SLUG])
    docs[fa.LADDER] = ladder_doc(docs["attention"])
    return docs


LESSON = (ROOT / "docs" / "flagship" / "12-flash-attention.md").read_text()


def page_sentences(docs: dict, marker: str) -> list[str]:
    """Lesson 12's chooses on h100 in the paragraph holding ``marker``, rendered from
    ``docs`` as the device, in page order."""
    block = next(b for b in LESSON.split("\n\n") if marker in b)
    bodies = [
        m.group(1)
        for m in render.PLACEHOLDER.finditer(block)
        if m.group(1).split()[:2] == ["choose", "h100"]
    ]
    return [render.choose_text(body, {SLUG: docs}) for body in bodies]


def forward_sentences(docs: dict) -> tuple[str, str]:
    """The forward ladder's story (four chooses, joined as on the page) and goals."""
    *story, goals = page_sentences(docs, "The ladder was timed in a run of its own")
    assert len(story) == 4
    return " ".join(story), goals


def gluon_sentences(docs: dict) -> tuple[str, str, str]:
    """The Gluon rungs' story, goals and the sentence on its exp2 instructions."""
    story, goals = page_sentences(docs, "The same file keeps the two steps before this one")
    (overlap,) = page_sentences(docs, "That costs most at d = 64")
    return story, goals, overlap


def test_without_ladder_data_the_figure_draws_the_attention_benchmark():
    fig = fa.fig_ladder("forward")(DEVICES[SLUG])
    names = [t["name"] for t in fig["data"]]
    assert names[0] == fa.RUNGS[0][1] and fa.RUNGS[1][1] not in names
    assert "SDPA cuDNN" in names
    assert fig["data"][0]["y"] == [f"d = {d}, {m}" for d, m in fa.LADDER_SHAPES]
    cudnn = fig["data"][names.index("SDPA cuDNN")]
    assert cudnn["customdata"] == ["1.00× cuDNN's speed"] * 4


def test_without_ladder_data_the_story_reads_the_attention_benchmark():
    story, goals = forward_sentences(DEVICES[SLUG])
    assert story.startswith("At N = 4,096, d = 128, full attention, lesson 12's kernel runs")
    assert "TFLOP/s" in story and "not measured" not in story
    assert "are of lesson 12's kernel, not attention_tma" in goals
    assert goals.count("× (") == 4


def test_the_made_up_file_validates_against_the_schema(with_ladder):
    jsonschema.Draft202012Validator(schema_for(fa.LADDER)).validate(with_ladder[fa.LADDER])


def test_every_rung_that_ran_is_drawn_in_order_then_the_peers(with_ladder):
    fig = fa.fig_ladder("forward")(with_ladder)
    names = [t["name"] for t in fig["data"]]
    expected = [label for _, label in fa.RUNGS[:3]] + [label for _, label, _ in fa.LADDER_PEERS]
    assert names == expected  # warp_specialize failed: no bars
    tuned = fig["data"][2]
    assert tuned["x"][0] == pytest.approx(4 * 4 * 32 * 4096**2 * 128 / 2.0e-3 / 1e12)
    assert tuned["customdata"] == ["0.90× cuDNN's speed"] * 4
    assert tuned["meta"]["roles"] == ["series-6"] * 4
    assert fig["layout"]["barmode"] == "group"


def test_ladder_values(with_ladder):
    assert fa.ladder_gain(with_ladder, "tuned", "sdpa_cudnn") == pytest.approx(0.9)
    assert fa.ladder_gain(with_ladder, "tuned", "flex") == pytest.approx(1.15)
    assert fa.ladder_gain(with_ladder, "descriptors", "before") == pytest.approx(2.4 / 2.2)
    assert fa.ladder_gain(with_ladder, "simple", "before") is None
    assert fa.ladder_gain(with_ladder, "warp_specialize", "before") is None  # it did not run
    assert fa.ladder_plan(with_ladder) == "tuned"
    settings = [fa.ladder_setting(with_ladder, "tuned", of) for of in ("tiles", "warps", "stages")]
    assert settings == ["128×64", "4", "2"]
    assert fa.ladder_field(with_ladder, "tuned", "n_regs", d=64, mask="causal") == 168
    assert "NVGPUWarpSpecialization" in fa.ladder_failure(with_ladder, "warp_specialize")
    assert fa.ladder_failure(with_ladder, "tuned") is None
    assert fa.ladder_compare(with_ladder, "tuned", "sdpa_flash") == "faster than"
    assert fa.ladder_compare(with_ladder, "tuned", "sdpa_cudnn") == "slower than"


def test_the_story_and_the_goals_read_the_ladder(with_ladder):
    story, goals = forward_sentences(with_ladder)
    assert "lesson 12's kernel runs at 458 TFLOP/s" in story
    assert "make it 1.09× as fast" in story
    assert "the same configuration (128×128 tiles, 8 warps, 3 stages), make it" in story
    assert "Other tiles (128×64 tiles, 4 warps, 2 stages) make that 1.10× as fast" in story
    assert "reaches 550 TFLOP/s with 168 registers per thread" in story
    assert "did not compile (CompilationError" in story
    assert "0.90× (0.89–0.91) cuDNN's speed" in story
    assert "1.15× (1.14–1.16) FlexAttention's" in story
    assert goals.count("0.90×") == 4 and "d = 64, causal" in goals
    assert ", attention_tma runs at" in goals


# ---- the Gluon rung --------------------------------------------------------------------------


GLUON = {  # impl: (time, config)
    "gluon_pipelined": (2.5e-3, "pipelined 128x128 s3 w8"),
    "gluon_ws": (2.1e-3, "ws 128x128 s3 w8"),
    "gluon": (1.9e-3, "ws2 128x128 s3 w4"),
}


@pytest.fixture(scope="module")
def with_gluon(with_ladder):
    """The made-up ladder with the three Gluon rows at every shape, timed with the rest."""
    docs = dict(with_ladder)
    doc = copy.deepcopy(docs[fa.LADDER])
    times = dict(TIMES, **{impl: t for impl, (t, _) in GLUON.items()})

    def ratios(t):  # every other impl's per-round ratio to a row of time t
        return {o: {"p20": u / t * 0.99, "p50": u / t, "p80": u / t * 1.01, "reps": 50}
                for o, u in times.items() if u != t}  # fmt: skip

    for row in doc["rows"]:
        if "time_s" in row:
            row["time_s"]["vs"] = ratios(row["time_s"]["p50"])
    for d in (128, 64):
        for causal in (False, True):
            common = next(
                {k: v for k, v in r.items() if k not in ("impl", "time_s", "config", "plan",
                                                        "n_regs", "n_spills")}
                for r in doc["rows"]
                if r["head_dim"] == d and r["causal"] == causal
            )  # fmt: skip
            for impl, (t, config) in GLUON.items():
                time_s = {"p20": t * 0.99, "p50": t, "p80": t * 1.01, "reps": 50,
                          "ab": {"group": "g-1", "name": impl}, "vs": ratios(t)}  # fmt: skip
                row = {"impl": impl, **common, "time_s": time_s, "config": config,
                       "n_regs": 168, "n_spills": 0, "ex2_total": 396,
                       "ex2_overlapped": 0}  # fmt: skip
                if impl != "gluon_pipelined":
                    row.update(consumer_regs=240, loader_regs=24)
                doc["rows"].append(row)
    docs[fa.LADDER] = doc
    return docs


def test_the_gluon_rows_validate_against_the_schema(with_gluon):
    jsonschema.Draft202012Validator(schema_for(fa.LADDER)).validate(with_gluon[fa.LADDER])


def test_the_gluon_rung_is_drawn_after_the_triton_rungs(with_gluon):
    fig = fa.fig_ladder("forward")(with_gluon)
    names = [t["name"] for t in fig["data"]]
    gluon = dict(fa.RUNGS)["gluon"]
    assert names.index(gluon) == 3 and names[4:] == [label for _, label, _ in fa.LADDER_PEERS]
    assert len(names) == 7  # the Gluon kernel's first two steps are told, not drawn
    bars = fig["data"][3]
    assert bars["customdata"] == [f"{1.8 / 1.9:.2f}× cuDNN's speed"] * 4
    assert bars["meta"]["roles"] == ["series-3"] * 4


def test_the_gluon_story_reads_its_rows(with_gluon):
    story, goals, overlap = gluon_sentences(with_gluon)
    assert story.startswith("At N = 4,096, d = 128, full attention, the Gluon kernel runs at")
    assert "in one partition of 8 warps that copies and computes (128×128 tiles, 3 stages)" in story
    assert "With a loader warp and one consumer partition of 8 warps, it runs faster than" in story
    assert f"that ({2.5 / 2.1:.2f}× its speed)" in story
    assert f"two consumer groups of 4 warps, {2.1 / 1.9:.2f}× as fast as with one" in story
    assert "168 registers per thread" in story and "240 to each consumer" in story
    assert "faster than attention_tma (1.05× (1.04–1.06) its speed)" in story
    assert "and 0.95× (0.94–0.96) cuDNN's" in story
    assert goals.count("0.95×") == 4 and "d = 64, causal" in goals
    assert "multiples of attention_tma's: 1.05×" in goals
    assert "Of the 396 exp2 instructions" in overlap and "none is issued while" in overlap
    assert fa.ladder_plan(with_gluon) == "tuned"  # the Gluon rows are not attention_tma's


def test_on_stale_ladder_data_each_paragraph_leaves_its_question_open_once(with_gluon, monkeypatch):
    """The forward story is four chooses and the Gluon rungs' two: on a stale ladder file
    the first of each paragraph says the question is left open, the rest say nothing."""
    why = {"changed": ["kernels/attention_tma.py"], "commit": "abc1234"}
    ladder = with_gluon[fa.LADDER]
    monkeypatch.setattr(render, "stale", lambda d: why if d is ladder else None)
    story, goals = forward_sentences(with_gluon)
    assert " ".join(story.split()) == render.STALE_WORDS and goals == ""
    story, goals, overlap = gluon_sentences(with_gluon)
    assert (story, goals, overlap) == (render.STALE_WORDS, "", render.STALE_WORDS)


def test_without_gluon_rows_there_is_no_gluon_story(with_ladder):
    assert gluon_sentences(with_ladder) == ("", "", "")
    assert gluon_sentences(DEVICES[SLUG]) == ("", "", "")


# ---- the backward ladder ---------------------------------------------------------------------

BACKWARD_TIMES = {"simple": 7.2e-3, "descriptors": 6.0e-3, "tuned": 5.0e-3, "reduce": 6.25e-3,
                  "sdpa_cudnn": 5.5e-3, "flex": 6.5e-3, "sdpa_flash": 9.4e-3}  # fmt: skip


def backward_doc(base: dict) -> dict:
    rows = []
    for d, heads in ((128, 32), (64, 64)):
        for causal in (False, True):
            common = {"direction": "backward", "dtype": "bfloat16", "batch": 4, "heads": heads,
                      "n": 4096, "head_dim": d, "causal": causal,
                      "flops": 10 * 4 * heads * 4096**2 * d // (2 if causal else 1)}  # fmt: skip
            for impl, t in BACKWARD_TIMES.items():
                vs = {o: {"p20": u / t * 0.99, "p50": u / t, "p80": u / t * 1.01, "reps": 50}
                      for o, u in BACKWARD_TIMES.items() if o != impl}  # fmt: skip
                time_s = {"p20": t * 0.99, "p50": t, "p80": t * 1.01, "reps": 50,
                          "ab": {"group": "g-2", "name": impl}, "vs": vs}  # fmt: skip
                row = {"impl": impl, **common, "time_s": time_s}
                if impl == "descriptors":
                    row.update(config="dkdv 64x128 w8 s3; dq 128x64 w8 s3", plan=False,
                               n_regs=255, n_spills=0, dq_n_regs=240, dq_n_spills=0)  # fmt: skip
                if impl == "tuned":
                    row.update(config="dkdv 32x128 w4 s3; dq 128x64 w8 s3", plan=True,
                               n_regs=200, n_spills=0)  # fmt: skip
                if impl == "reduce":
                    row.update(config="dkdv 32x128 w4 s3; dq reduce", plan=False, n_regs=255,
                               n_spills=12)  # fmt: skip
                rows.append(row)
    doc = copy.deepcopy(base)
    doc.update(benchmark=fa.LADDER_BACKWARD, rows=rows)
    return doc


@pytest.fixture(scope="module")
def with_backward():
    docs = dict(DEVICES[SLUG])
    docs[fa.LADDER_BACKWARD] = backward_doc(docs["attention"])
    return docs


def test_the_made_up_backward_file_validates(with_backward):
    jsonschema.Draft202012Validator(schema_for(fa.LADDER_BACKWARD)).validate(
        with_backward[fa.LADDER_BACKWARD]
    )


def backward_sentences(docs: dict) -> list[str]:
    """Lesson 12's backward ladder sentences, its chooses on the plan's rung (the story at
    d = 128, three chooses joined as the page writes them side by side, the story at d = 64,
    full, then the goals), rendered from ``docs`` as the device."""
    bodies = [
        m.group(1)
        for m in render.PLACEHOLDER.finditer(LESSON)
        if m.group(1).split()[:1] == ["choose"] and "plan ladder=backward" in m.group(1)
    ]
    assert len(bodies) == 5
    said = [render.choose_text(body, {SLUG: docs}) for body in bodies]
    return [" ".join(t for t in said[:3] if t), *said[3:]]


def test_without_backward_data_the_figure_draws_the_attention_benchmark():
    fig = fa.fig_ladder("backward")(DEVICES[SLUG])
    names = [t["name"] for t in fig["data"]]
    assert names[0] == fa.BACKWARD_RUNGS[0][1] and fa.BACKWARD_RUNGS[1][1] not in names
    assert "SDPA cuDNN" in names and "backward TFLOP/s" in json.dumps(fig["layout"])
    _, story, goals = backward_sentences(DEVICES[SLUG])
    assert "timings at these shapes are of lesson 12's kernel, not attention_tma" in goals
    assert goals.count("cuDNN's") == 4 and goals.count("FlexAttention's") == 4
    assert story.startswith("At N = 4,096, d = 64, full attention, lesson 12's backward runs")
    assert "and cuDNN's at" in story and "not measured" not in story + goals


def test_the_backward_figure_draws_every_rung_then_the_peers(with_backward):
    fig = fa.fig_ladder("backward")(with_backward)
    names = [t["name"] for t in fig["data"]]
    expected = [label for _, label in fa.BACKWARD_RUNGS] + [
        label for _, label, _ in fa.LADDER_PEERS
    ]
    assert names == expected
    tuned = fig["data"][2]
    assert tuned["x"][0] == pytest.approx(10 * 4 * 32 * 4096**2 * 128 / 5.0e-3 / 1e12)
    assert tuned["customdata"] == ["1.10× cuDNN's speed"] * 4


def test_the_backward_story_and_goals_read_the_data(with_backward):
    story, _, goals = backward_sentences(with_backward)
    assert story.startswith("At N = 4,096, d = 128, full attention, lesson 12's backward runs at")
    assert (
        "at its tiles (dK/dV 64×128, 8 warps, 3 stages; dQ 128×64, 8 warps, 3 stages), "
        "run at 1.20× (1.19–1.21) its speed." in story
    )
    assert (
        "The tiles plan chose (dK/dV 32×128, 4 warps, 3 stages; dQ 128×64, 8 warps, 3 stages) "
        "run at 1.20× (1.19–1.21) that speed." in story
    )
    assert "one TMA reduction per tile (five tile matmuls per pair of blocks, not seven), " in story
    assert "runs at 0.80× (0.79–0.81) the speed of `plan`'s tiles" in story

    def reduce(of: str, kernel: str = "dkdv"):
        return fa.ladder_setting(with_backward, "reduce", of, "backward", kernel, d=64)

    assert [reduce(of) for of in ("tiles", "warps", "stages")] == ["32×128", "4", "3"]
    assert reduce("tiles", kernel="dq") is None  # dQ is added by the dK/dV kernel
    assert "with 200 registers per thread" in story
    assert "1.10× (1.09–1.11) cuDNN's speed and 1.30× (1.29–1.31) FlexAttention's" in story
    assert goals.count("1.10×") == 4 and goals.count("FlexAttention") == 4
    assert "d = 64, causal" in goals


def test_where_plan_keeps_lesson_12s_backward_tiles_the_story_says_so(with_backward):
    """At d = 128 without a mask plan runs lesson 12's tiles: no tuned rung, the descriptors
    rung is plan's, and the story says plan keeps those tiles (no tuned sentence)."""
    docs = dict(with_backward)
    doc = copy.deepcopy(docs[fa.LADDER_BACKWARD])
    full_128 = [r for r in doc["rows"] if r["head_dim"] == 128 and not r["causal"]]
    doc["rows"] = [r for r in doc["rows"] if not (r in full_128 and r["impl"] == "tuned")]
    for r in doc["rows"]:
        if r in full_128 and r["impl"] == "descriptors":
            r["plan"] = True
    docs[fa.LADDER_BACKWARD] = doc
    story, _, _ = backward_sentences(docs)
    assert "its speed. Without a mask, `plan` keeps those tiles. Adding each dQ tile" in story
    assert "The tiles plan chose" not in story and "not measured" not in story
    assert "the backward reaches" in story and "with 255 registers per thread" in story
