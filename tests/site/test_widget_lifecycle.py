"""Widget "lifecycle" (lesson 02): N elements in tiles of BLOCK, one program's life cycle
(pointers, mask, load, compute, store) and the ragged last program.

In a real headless Chromium: the widget's numbers are checked against the same arithmetic
done here in Python (a worked example, fixed and seeded random cases, the first and the
last program, the elements it draws), the keyboard moves the slider and steps the stages, the
widget follows the dark palette and fits a 390 px screen, and logs no console error.
"""

from __future__ import annotations

import math
import random

import pytest

from tests.site.support import assert_fits_screen, assert_follows_dark, outputs, widget

PAGE = "model/02-programs-and-tiles.md"  # open_page's default page
BLOCKS = [16, 32, 64, 128, 256, 512, 1024]


def lifecycle_expected(n: int, block: int, pid: int) -> dict[str, str]:
    programs = math.ceil(n / block)
    first = pid * block
    valid = max(0, min(block, n - first))
    return {
        "programs": str(programs),
        "elements": str(programs * block),
        "masked": str(programs * block - n),
        "pid": str(pid),
        "first": str(first),
        "last": str(first + block - 1),
        "valid": str(valid),
        "program-masked": str(block - valid),
    }


def set_lifecycle(pg, n: int, block: int):
    el = widget(pg, "lifecycle")
    el.locator('[data-in="n"]').fill(str(n))
    el.locator('[data-in="block"]').select_option(str(block))
    slider = el.locator('[data-in="program"]')
    slider.focus()
    pg.keyboard.press("End")  # the keyboard moves the program slider to the last program
    return el


_rng = random.Random(2)
RANDOM_CASES = [(_rng.randint(1, 5000), _rng.choice(BLOCKS)) for _ in range(4)]


def test_lifecycle_n1000_block256(open_page):
    pg = open_page()
    el = set_lifecycle(pg, 1000, 256)
    got = outputs(el, "programs", "elements", "masked", "pid", "first", "last", "valid")
    assert got == {
        "programs": "4",
        "elements": "1024",
        "masked": "24",
        "pid": "3",
        "first": "768",
        "last": "1023",
        "valid": "232",
    }
    assert outputs(el, "program-masked") == {"program-masked": "24"}
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("n", "block"), [(5000, 1024), (1, 16), (4096, 512), *RANDOM_CASES])
def test_lifecycle_matches_python(open_page, n, block):
    pg = open_page()
    el = set_lifecycle(pg, n, block)
    programs = math.ceil(n / block)
    names = list(lifecycle_expected(n, block, 0))
    assert outputs(el, *names) == lifecycle_expected(n, block, programs - 1)
    # First program too: Home takes the slider back to program 0.
    pg.keyboard.press("Home")
    assert outputs(el, *names) == lifecycle_expected(n, block, 0)
    # The drawn tile: BLOCK cells, the valid ones marked as such once the mask is applied.
    el.locator('[data-action="step"]').click()
    assert el.locator(".book-widget__cells .book-widget__cell").count() == block
    valid = int(lifecycle_expected(n, block, 0)["valid"])
    assert el.locator(".book-widget__cells .book-widget__cell--valid").count() == valid
    assert el.locator(".book-widget__cells .book-widget__cell--masked").count() == block - valid
    assert not pg.errors, pg.errors


def test_lifecycle_steps_with_the_keyboard(open_page):
    pg = open_page()
    el = widget(pg, "lifecycle")
    assert el.get_attribute("data-step") == "pointers"
    assert el.locator('[data-action="back"]').is_disabled()
    step = el.locator('[data-action="step"]')
    step.focus()
    pg.keyboard.press("Enter")
    assert el.get_attribute("data-step") == "mask"
    assert "24 false" in el.locator('[data-out="explain"]').inner_text()
    pg.keyboard.press("Space")
    assert el.get_attribute("data-step") == "load"
    for _ in range(2):
        pg.keyboard.press("Enter")
    assert el.get_attribute("data-step") == "store"
    assert step.is_disabled()
    back = el.locator('[data-action="back"]')
    assert back.evaluate("b => b === document.activeElement"), "focus is lost at the last step"
    pg.keyboard.press("Enter")
    assert el.get_attribute("data-step") == "compute"
    assert el.locator('li[aria-current="step"]').inner_text().endswith("Compute")
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "lifecycle")
    assert_follows_dark(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_page, scheme):
    pg = open_page(width=390, scheme=scheme, md=PAGE)
    el = widget(pg, "lifecycle")
    el.scroll_into_view_if_needed()
    set_lifecycle(pg, 1000, 1024)  # the widest drawing: 1024 elements
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("block", [256, 16])
def test_an_empty_input_has_no_program(open_page, block):
    """N = 0: ⌈0 / BLOCK⌉ = 0 programs, so nothing to follow; the widget says so rather
    than showing one program with BLOCK − 1 masked elements (it clamped 0 to 1)."""
    pg = open_page()
    el = widget(pg, "lifecycle")
    el.locator('[data-in="block"]').select_option(str(block))
    n = el.locator('[data-in="n"]')
    n.fill("0")
    n.press("Tab")  # commit: the value is kept as typed, not clamped to 1
    assert n.input_value() == "0"
    assert outputs(el, "programs", "elements", "masked") == {
        "programs": "0",
        "elements": "0",
        "masked": "0",
    }
    empty = el.locator('[data-out="empty"]')
    assert empty.is_visible()
    assert f"⌈0 / {block}⌉ = 0 programs" in empty.inner_text()
    assert "Nothing is launched" in empty.inner_text()
    for part in ('[data-out="pid"]', '[data-action="step"]', '[data-out="explain"]'):
        assert el.locator(part).is_hidden(), part
    assert el.locator(".book-widget__cells .book-widget__cell").count() == 0
    assert el.locator('[data-in="program"]').is_disabled()
    assert "valid elements" not in el.inner_text()  # no program's line is shown
    # Back to N = 1: one program, BLOCK − 1 masked, and the stages return.
    n.fill("1")
    assert outputs(el, "programs", "masked", "valid") == {
        "programs": "1",
        "masked": str(block - 1),
        "valid": "1",
    }
    assert empty.is_hidden()
    assert el.locator('[data-action="step"]').is_visible()
    assert not el.locator('[data-in="program"]').is_disabled()
    assert not pg.errors, pg.errors
