"""Widget "predict" (every lesson's exercises): commit to an answer, then the truth from
the book's data.

Every predict widget on every page is found in the Markdown; for each, the right answer is
computed here in Python from the same committed data (scripts/book/render.py) with a copy
of the widget's rule (data-pick), and the widget is driven to it: the explanation stays
hidden until an answer is given, the right answer is called right and a wrong one wrong,
with the truth shown. Also: keyboard, labelled controls, dark palette, a 390 px screen.
"""

from __future__ import annotations

import math
import re

import pytest

from tests.site.support import DOCS, assert_controls_labelled, assert_fits_screen, widget

NAME = "predict"
TAG = re.compile(r'<div class="book-widget" data-widget="predict"[^>]*>', re.S)
ATTR = re.compile(r'data-([a-z]+)="([^"]*)"')


def predict_widgets() -> list[tuple[str, int, dict]]:
    """(page, index on the page, attributes) of every predict widget under docs/."""
    found = []
    for md in sorted(DOCS.rglob("*.md")):
        for i, tag in enumerate(TAG.findall(md.read_text())):
            found.append((str(md.relative_to(DOCS)), i, dict(ATTR.findall(tag))))
    return found


WIDGETS = predict_widgets()


def book_value(device: str, word: str):
    from scripts.book import render

    devices = render.load_devices()
    val, args, _ = render.bind(render.parse_widget_word(word), render.discover())
    return val.compute(devices[render.resolve_device(device, devices)], **args)


def truth(attrs: dict):
    """The widget's rule, in Python: the index of the right choice, or the number."""
    pick = attrs.get("pick", "number")
    keys = attrs["values"].split()
    vals = [book_value(attrs.get("device", "h100"), k) for k in keys]
    choices = [c for c in attrs.get("choices", "").split("|") if c.strip()]
    if pick == "number":
        return vals[0] / float(attrs.get("scale", "1"))
    if pick in ("max", "min"):
        assert len(vals) == len(choices), "max/min: one value per choice"
        return vals.index(max(vals) if pick == "max" else min(vals))
    nums = [float(c) for c in (attrs.get("numbers", "").split() or choices)]
    if pick == "at-least":
        return nums.index(min(c for c in nums if c >= vals[0]))
    if pick == "nearest":
        return min(range(len(nums)), key=lambda i: abs(math.log(nums[i] / vals[0])))
    raise AssertionError(f"unknown data-pick {pick}")


def test_there_is_a_prediction_in_parts_one_and_two():
    pages = {page for page, _, _ in WIDGETS}
    assert any(p.startswith("model/") for p in pages), "no prediction in Part I"
    assert any(p.startswith("dsl/") for p in pages), "no prediction in Part II"


def answer(el, attrs, mine):
    if attrs.get("pick", "number") == "number":
        el.locator('[data-in="answer"]').fill(str(mine))
    else:
        el.locator('[data-in="choice"]').nth(mine).check()
    el.locator('[data-in="check"]').click()


@pytest.mark.parametrize("page,index,attrs", WIDGETS, ids=lambda v: str(v)[:40])
def test_right_and_wrong_answers(open_page, page, index, attrs):
    want = truth(attrs)
    number = attrs.get("pick", "number") == "number"
    choices = [c for c in attrs.get("choices", "").split("|") if c.strip()]
    shown = None if number else choices[want]
    wrong = want * 10 if number else (want + 1) % len(choices)

    pg = open_page(md=page)
    el = widget(pg, NAME).nth(index)
    assert el.locator('[data-out="explain"]').is_hidden(), "the explanation shows too early"
    answer(el, attrs, wrong)
    assert el.get_attribute("data-correct") == "false"
    verdict = el.locator('[data-out="verdict"]').inner_text()
    assert verdict.startswith("Not this time"), verdict
    if shown is not None:
        assert el.locator('[data-out="truth"]').inner_text() == shown
    assert el.locator('[data-out="explain"]').is_visible()

    answer(el, attrs, want)
    assert el.get_attribute("data-correct") == "true"
    assert el.locator('[data-out="verdict"]').inner_text().startswith("Right")
    assert not pg.errors, pg.errors


def test_with_the_keyboard(open_page):
    page, index, attrs = next(w for w in WIDGETS if w[2].get("choices"))
    pg = open_page(md=page)
    el = widget(pg, NAME).nth(index)
    first = el.locator('[data-in="choice"]').first
    first.focus()
    pg.keyboard.press("Space")
    pg.keyboard.press("ArrowRight")  # radio buttons: the arrow moves and selects
    assert el.locator('[data-in="choice"]').nth(1).is_checked()
    el.locator('[data-in="check"]').focus()
    pg.keyboard.press("Enter")
    assert el.get_attribute("data-state") == "revealed"
    assert el.get_attribute("data-correct") == ("true" if truth(attrs) == 1 else "false")
    assert not pg.errors, pg.errors


def test_nothing_chosen_asks_for_an_answer(open_page):
    page, index, _ = WIDGETS[0]
    pg = open_page(md=page)
    el = widget(pg, NAME).nth(index)
    el.locator('[data-in="check"]').click()
    assert "first" in el.locator('[data-out="verdict"]').inner_text()
    assert el.locator('[data-out="explain"]').is_hidden()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("page,index,attrs", WIDGETS[:1], ids=lambda v: str(v)[:40])
def test_labels_dark_and_narrow(open_page, page, index, attrs):
    pg = open_page(md=page)
    el = widget(pg, NAME).nth(index)
    assert_controls_labelled(el)
    light = el.evaluate("e => getComputedStyle(e).color")
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert el.evaluate("e => getComputedStyle(e).color") != light
    pg = open_page(md=page, width=390)
    el = widget(pg, NAME).nth(index)
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


def test_without_the_data_it_says_so(open_page):
    page, index, attrs = WIDGETS[0]
    pg = open_page(md=page, without_widget_data=True)
    el = widget(pg, NAME).nth(index)
    answer(el, attrs, 0)
    assert "no measurement" in el.locator('[data-out="verdict"]').inner_text()
    assert el.get_attribute("data-correct") is None
    assert el.locator('[data-out="explain"]').is_visible()
    assert not pg.errors, pg.errors
