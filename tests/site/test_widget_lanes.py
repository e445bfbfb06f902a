"""Widget "lanes" (lesson 02): which warp, lane and register hold element i of a 1-D tile
(the simple blocked layout, labelled as a model).

In a real headless Chromium: the widget's numbers are checked against the same arithmetic
done here in Python (a worked example, fixed and seeded random cases, the replicated small
blocks), the keyboard steps the element and changes the selects, the widget follows the
dark palette and fits a 390 px screen, and logs no console error.
"""

from __future__ import annotations

import random

import pytest

from tests.site.support import assert_fits_screen, outputs, toggle_dark, widget

PAGE = "model/02-programs-and-tiles.md"  # open_page's default page


def lanes_expected(block: int, warps: int, i: int) -> dict[str, str]:
    threads = 32 * warps
    ept = max(1, block // threads)
    t = i // ept
    return {
        "threads": str(threads),
        "ept": str(ept),
        "thread": str(t),
        "warp": str(t // 32),
        "lane": str(t % 32),
        "register": str(i % ept),
        "where": f"warp {t // 32}, lane {t % 32}, register {i % ept}",
    }


def set_lanes(pg, block: int, warps: int, i: int | None = None):
    el = widget(pg, "lanes")
    el.locator('[data-in="block"]').select_option(str(block))
    el.locator('[data-in="num_warps"]').select_option(str(warps))
    if i is not None:
        el.locator('[data-in="element"]').fill(str(i))
    return el


_rng_lanes = random.Random(3)
LANE_CASES = [
    (1024, 4, 1000),  # 8 per thread: thread 125 -> warp 3, lane 29, register 0
    (4096, 8, 4095),  # 16 per thread: the very last thread and register
    (256, 4, 77),  # 2 per thread: thread 38 -> warp 1, lane 6, register 1
    (128, 4, 5),  # exactly one per thread
]
for _ in range(3):
    _b = _rng_lanes.choice([256, 512, 1024, 2048, 4096])
    LANE_CASES.append((_b, _rng_lanes.choice([1, 2, 4, 8]), _rng_lanes.randrange(_b)))


def test_lanes_block1024_warps4_element1000(open_page):
    pg = open_page()
    el = set_lanes(pg, 1024, 4, 1000)
    got = outputs(el, "threads", "ept", "thread", "warp", "lane", "register", "where")
    assert got == {
        "threads": "128",
        "ept": "8",
        "thread": "125",
        "warp": "3",
        "lane": "29",
        "register": "0",
        "where": "warp 3, lane 29, register 0",
    }
    assert el.get_attribute("data-replicated") == "false"
    assert "lesson 03" in el.inner_text()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("block", "warps", "i"), LANE_CASES)
def test_lanes_match_python(open_page, block, warps, i):
    pg = open_page()
    el = set_lanes(pg, block, warps, i)
    expected = lanes_expected(block, warps, i)
    assert outputs(el, *expected) == expected
    assert el.locator(".book-widget__warp").count() == warps
    assert el.locator(".book-widget__lanes .book-widget__cell--valid").count() == 1
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("block", "warps"), [(64, 4), (16, 1), (128, 8)])
def test_lanes_small_block_is_called_replicated(open_page, block, warps):
    pg = open_page()
    el = set_lanes(pg, block, warps)
    assert block < 32 * warps
    assert outputs(el, "threads", "ept", "where") == {
        "threads": str(32 * warps),
        "ept": "1",
        "where": "replicated",
    }
    assert el.get_attribute("data-replicated") == "true"
    assert "copies" in el.inner_text()
    assert not pg.errors, pg.errors


def test_lanes_with_the_keyboard(open_page):
    pg = open_page()
    el = set_lanes(pg, 1024, 4, 1000)
    el.locator('[data-action="next"]').focus()
    pg.keyboard.press("Enter")
    assert el.locator('[data-in="element"]').input_value() == "1001"
    assert outputs(el, "where")["where"] == "warp 3, lane 29, register 1"
    el.locator('[data-action="prev"]').focus()
    for _ in range(2):
        pg.keyboard.press("Space")
    assert outputs(el, "where")["where"] == "warp 3, lane 28, register 7"
    # The selects answer the keyboard too.
    el.locator('[data-in="num_warps"]').focus()
    pg.keyboard.press("ArrowDown")
    assert outputs(el, "threads")["threads"] == "256"
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "lanes")

    def colour():
        return el.evaluate("e => getComputedStyle(e).color")

    light = colour()
    assert pg.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
    toggle_dark(pg)
    assert colour() != light, "lanes did not follow the dark palette"
    control = el.locator("select").first
    assert control.evaluate("e => getComputedStyle(e).color") == colour()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_page, scheme):
    pg = open_page(width=390, scheme=scheme, md=PAGE)
    el = widget(pg, "lanes")
    el.scroll_into_view_if_needed()
    set_lanes(pg, 4096, 8, 4095)  # the most warps
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors
