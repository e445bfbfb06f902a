"""Widget "triton-decision" (lesson 01): the page's decision table, interactive.

A Python copy of the rule is checked against the table printed on the page (so the page,
this copy and the widget cannot drift apart), then the widget against the copy for every
combination of answers, at shares on both sides of each threshold. Also: keyboard, dark
palette, a 390 px screen, no console errors.
"""

from __future__ import annotations

import functools
import itertools
import re

import pytest

from tests.site.support import DOCS, assert_controls_labelled, assert_fits_screen, outputs, widget

PAGE = "model/01-why-triton.md"
NAME = "triton-decision"

OPS = ("library", "chain", "custom")
SHAPES = ("regular", "irregular")
BOUNDS = ("bandwidth", "compute")
SHARES = (0, 0.5, 0.99, 1, 4.5, 9.99, 10, 37.5, 99, 100)

# The rule: (row, share band, op, shapes, bound, use); None matches any answer.
RULE = [
    (1, "under 1", None, None, None, "skip"),
    (2, "1 or more", "library", "regular", None, "library"),
    (3, "1 or more", "library", "irregular", None, "Triton"),
    (4, "1 or more", "chain", None, None, "torch.compile"),
    (5, "1 or more", "custom", None, "bandwidth", "Triton"),
    (6, "1 to 10", "custom", None, "compute", "torch.compile"),
    (7, "10 or more", "custom", None, "compute", "Triton"),
]
BANDS = {
    "under 1": lambda s: s < 1,
    "1 or more": lambda s: s >= 1,
    "1 to 10": lambda s: 1 <= s < 10,
    "10 or more": lambda s: s >= 10,
}


def decide(share: float, op: str, shapes: str, bound: str) -> tuple[int, str]:
    for row, band, r_op, r_shapes, r_bound, use in RULE:
        if (
            BANDS[band](share)
            and r_op in (None, op)
            and r_shapes in (None, shapes)
            and r_bound in (None, bound)
        ):
            return row, use
    raise AssertionError(f"no row matches {share, op, shapes, bound}")


def step_bound(share: float) -> str:
    return "no limit" if share >= 100 else f"{100 / (100 - share):.2f}×"


# ---- the page's table, read from the Markdown ----------------------------------------------

PAGE_BANDS = {"under 1 %": "under 1", "1 % or more": "1 or more", "1–10 %": "1 to 10"}
PAGE_BANDS["10 % or more"] = "10 or more"
PAGE_OPS = {"library op": "library", "chain of torch ops": "chain", "custom": "custom", "—": None}
PAGE_ANY = {"—": None}


def page_rule() -> list[tuple]:
    text = (DOCS / PAGE).read_text()
    section = text.split("## A decision rule", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or not cells[0].isdigit():
            continue
        row, share, op, shapes, bound, use = cells[:6]
        rows.append(
            (
                int(row),
                PAGE_BANDS[share],
                PAGE_OPS[op],
                PAGE_ANY.get(shapes, shapes),
                PAGE_ANY.get(bound, bound),
                re.sub(r"\*\*(.*)\*\*", r"\1", use),
            )
        )
    return rows


def test_the_python_rule_is_the_pages_table():
    assert page_rule() == RULE


def test_every_answer_has_exactly_one_first_row():
    # Every combination is decided (the table is complete), and at the thresholds too.
    for share, op, shapes, bound in itertools.product(SHARES, OPS, SHAPES, BOUNDS):
        decide(share, op, shapes, bound)


# ---- the widget -------------------------------------------------------------------------


@pytest.fixture
def open_01(open_page):
    return functools.partial(open_page, md=PAGE)


def wrapped_labels(el) -> list[str]:
    """Labels whose text breaks over more than one line (a squeezed label on a phone)."""
    return el.locator("label").evaluate_all(
        "ls => ls.filter(l => { const r = document.createRange(); r.selectNodeContents(l);"
        " return r.getClientRects().length > 1; }).map(l => l.textContent)"
    )


def answer(el, share, op, shapes, bound):
    el.locator('[data-in="share"]').fill(str(share))
    el.locator('[data-in="op"]').select_option(op)
    el.locator('[data-in="shapes"]').select_option(shapes)
    el.locator('[data-in="bound"]').select_option(bound)
    return outputs(el, "use", "row", "step-bound")


def test_widget_matches_the_rule_for_every_combination(open_01):
    pg = open_01()
    el = widget(pg, NAME)
    seen = set()
    for share, op, shapes, bound in itertools.product(SHARES, OPS, SHAPES, BOUNDS):
        row, use = decide(share, op, shapes, bound)
        got = answer(el, share, op, shapes, bound)
        assert got == {"use": use, "row": str(row), "step-bound": step_bound(share)}, (
            share,
            op,
            shapes,
            bound,
        )
        assert el.get_attribute("data-use") == use
        assert el.locator('[data-out="why"]').inner_text().strip()
        seen.add(row)
    assert seen == {r[0] for r in RULE}, "some row of the table is never reached"
    assert not pg.errors, pg.errors


def test_the_pages_worked_example(open_01):
    # The text: an op at 5 % of the step can never buy more than 1.05x.
    assert "can never buy more than 1.05×" in (DOCS / PAGE).read_text()
    pg = open_01()
    el = widget(pg, NAME)
    got = answer(el, 5, "chain", "regular", "bandwidth")
    assert got == {"use": "torch.compile", "row": "4", "step-bound": "1.05×"}
    assert not pg.errors, pg.errors


def test_with_the_keyboard(open_01):
    pg = open_01()
    el = widget(pg, NAME)
    answer(el, 9.5, "custom", "regular", "compute")
    assert outputs(el, "use", "row") == {"use": "torch.compile", "row": "6"}
    share = el.locator('[data-in="share"]')
    share.focus()
    pg.keyboard.press("ArrowUp")  # step 0.5: 9.5 -> 10, into row 7
    assert share.input_value() == "10"
    assert outputs(el, "use", "row") == {"use": "Triton", "row": "7"}
    el.locator('[data-in="bound"]').focus()
    pg.keyboard.press("ArrowUp")  # compute -> bandwidth
    assert outputs(el, "use", "row") == {"use": "Triton", "row": "5"}
    el.locator('[data-in="op"]').focus()
    pg.keyboard.press("ArrowUp")  # custom -> chain
    assert outputs(el, "use", "row") == {"use": "torch.compile", "row": "4"}
    # An impossible share is not taken: the last good one stays, and is restored on leaving.
    share.fill("250")
    assert outputs(el, "use", "step-bound") == {"use": "torch.compile", "step-bound": "1.11×"}
    pg.keyboard.press("Tab")
    assert share.input_value() == "10"
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_01):
    pg = open_01()
    el = widget(pg, NAME)

    def colour(loc):
        return loc.evaluate("e => getComputedStyle(e).color")

    light = colour(el)
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert colour(el) != light, "triton-decision did not follow the dark palette"
    assert colour(el.locator("select").first) == colour(el)
    assert colour(el.locator("input").first) == colour(el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_01, scheme):
    pg = open_01(width=390, scheme=scheme)
    el = widget(pg, NAME)
    answer(el, 37.5, "library", "irregular", "compute")
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not wrapped_labels(el), wrapped_labels(el)
    assert not pg.errors, pg.errors


def test_every_control_has_a_label(open_01):
    pg = open_01()
    el = widget(pg, NAME)
    assert_controls_labelled(el)
    assert not pg.errors, pg.errors


def test_the_whole_step_reads_as_a_sentence(open_01):
    """At 100 % the op is the whole step: no bound, said in words (it printed "at most
    without limit faster")."""
    pg = open_01()
    el = widget(pg, NAME)
    sentence = el.locator('[data-out="bound-sentence"]')
    answer(el, 100, "custom", "regular", "compute")
    text = sentence.inner_text()
    assert "This op is the whole step" in text and "no limit" in text, text
    assert "at most" not in text and "without limit" not in text, text
    answer(el, 99, "custom", "regular", "compute")
    assert sentence.inner_text() == (
        "Even if this op took no time at all, the step could get at most 100.00× faster"
        " (1 / (1 − share))."
    )
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("typed", ["150", "-5", ""])
def test_a_share_out_of_range_is_refused_out_loud(open_01, typed):
    """150 % was silently ignored: now the field is marked invalid and a message beside it
    says why and which share the answer is for; leaving the field puts back the last good
    share and says so; a good share clears the message."""
    pg = open_01()
    el = widget(pg, NAME)
    share = el.locator('[data-in="share"]')
    error = el.locator('[data-out="share-error"]')
    assert error.is_hidden()
    answer(el, 20, "custom", "regular", "compute")
    share.fill(typed)
    assert error.is_visible()
    assert "between 0 and 100 %" in error.inner_text()
    assert (typed + " %" if typed else "An empty share") in error.inner_text()
    assert "still for 20 %" in error.inner_text()
    assert share.get_attribute("aria-invalid") == "true"
    assert outputs(el, "use", "row", "step-bound") == {
        "use": "Triton",
        "row": "7",
        "step-bound": "1.25×",
    }
    share.press("Tab")
    assert share.input_value() == "20"
    assert "Kept 20 %." in error.inner_text()
    share.fill("50")
    assert error.is_hidden()
    assert share.get_attribute("aria-invalid") is None
    assert outputs(el, "step-bound") == {"step-bound": "2.00×"}
    assert not pg.errors, pg.errors
