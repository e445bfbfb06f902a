"""Widget "program-order" (lesson 09): the order in which a matmul's programs run, row-major
or grouped, and the tiles of A and B each wave of programs loads.

In a real headless Chromium: the widget's numbers and its drawing are checked against
figures/matmul.py's own model of program order and tile loads (the page's worked example,
fixed cases including ragged waves and groups larger than the grid, every wave stepped to
the last), the keyboard steps and plays the waves, the widget follows the dark palette and
fits a 390 px screen with no tile's number cut off, and logs no console error.
"""

from __future__ import annotations

import functools
import math

import pytest

from tests.site.support import assert_fits_screen, outputs, toggle_dark, widget

PAGE = "building/09-tiled-matmul.md"


@pytest.fixture
def open_09(open_page):
    return functools.partial(open_page, md=PAGE)


def set_program_order(pg, side: int, order: str, group_m: int, wave: int):
    el = widget(pg, "program-order")
    el.locator('[data-in="tiles"]').fill(str(side))
    el.locator('[data-in="order"]').select_option(order)
    if order == "grouped":
        el.locator('[data-in="group_m"]').fill(str(group_m))
    el.locator('[data-in="wave"]').fill(str(wave))
    return el


def program_order_expected(side: int, group_m: int, wave: int, index: int) -> dict[str, str]:
    """The widget's numbers for wave ``index``, from figures/matmul.py's model itself."""
    from figures import matmul as fm

    order = fm.program_tiles(side, side, group_m)
    chunk = order[index * wave : (index + 1) * wave]
    upto = fm.tile_loads(side, side, side, group_m, wave, waves=index + 1)
    before = fm.tile_loads(side, side, side, group_m, wave, waves=index)
    rows, cols = len({m for m, _ in chunk}), len({n for _, n in chunk})
    assert (upto[0] - before[0], upto[1] - before[1]) == (side * rows, side * cols)
    return {
        "wave-index": str(index + 1),
        "waves": str(math.ceil(side * side / wave)),
        "first-pid": str(index * wave),
        "last-pid": str(index * wave + len(chunk) - 1),
        "group-m": str(group_m),
        "rows": str(rows),
        "cols": str(cols),
        "k": str(side),
        "a-loads": str(upto[0] - before[0]),
        "b-loads": str(upto[1] - before[1]),
        "loads": str(upto[0] - before[0] + upto[1] - before[1]),
        "unshared": str(len(chunk) * 2 * side),
        "total-a": str(upto[0]),
        "total-b": str(upto[1]),
        "total": str(sum(upto)),
    }


def drawn_tiles(el) -> dict[int, tuple[int, int]]:
    """pid -> (row, column) of each drawn tile, read off the grid's layout."""
    side = int(el.locator('[data-out="k"]').text_content())
    pids = el.locator(".book-widget__tile").evaluate_all("ts => ts.map(t => +t.dataset.pid)")
    return {pid: divmod(i, side) for i, pid in enumerate(pids)}


def test_program_order_worked_example(open_09):
    pg = open_09()
    el = widget(pg, "program-order")
    # The starting settings are the page's example: 9 x 9 tiles, row-major, waves of nine.
    got = outputs(el, "rows", "cols", "a-loads", "b-loads", "loads", "unshared")
    assert got == {
        "rows": "1",
        "cols": "9",
        "a-loads": "9",
        "b-loads": "81",
        "loads": "90",
        "unshared": "162",
    }
    el.locator('[data-in="order"]').select_option("grouped")
    got = outputs(el, "group-m", "rows", "cols", "a-loads", "b-loads", "loads")
    assert got == {
        "group-m": "3",
        "rows": "3",
        "cols": "3",
        "a-loads": "27",
        "b-loads": "27",
        "loads": "54",
    }
    assert el.locator(".book-widget__tiles .book-widget__tile--wave").count() == 9
    wave = el.locator(".book-widget__tiles .book-widget__tile--wave").evaluate_all(
        "ts => ts.map(t => +t.dataset.pid)"
    )
    assert sorted(wave) == list(range(9))
    # The drawing is the page's table: grouped, program 3 is tile (0, 1), 27 is (3, 0).
    tiles = drawn_tiles(el)
    assert tiles[3] == (0, 1) and tiles[9] == (0, 3) and tiles[27] == (3, 0)
    assert not pg.errors, pg.errors


PROGRAM_ORDER_CASES = [
    (9, "row-major", 1, 9),
    (9, "grouped", 3, 9),
    (16, "grouped", 8, 132),  # ragged last wave, more programs than a group's rows
    (10, "grouped", 4, 7),  # the last group has only two rows
    (7, "grouped", 1, 5),  # GROUP_M = 1 is row-major
    (12, "row-major", 1, 144),  # one wave for everything: each tile once
    (5, "grouped", 8, 3),  # GROUP_M larger than the grid
]


# set_program_order sets the grid, the order (and GROUP_M where it counts) and the wave,
# which starts the walk at wave 1: the cases share one page (shared_page).
@pytest.mark.parametrize(("side", "order", "group_m", "wave"), PROGRAM_ORDER_CASES)
def test_program_order_matches_the_python_model(shared_page, side, order, group_m, wave):
    from figures import matmul as fm

    pg = shared_page(md=PAGE)
    el = set_program_order(pg, side, order, group_m, wave)
    g = group_m if order == "grouped" else 1
    expected = program_order_expected(side, g, wave, 0)
    assert outputs(el, *expected) == expected
    tiles = drawn_tiles(el)
    assert [tiles[pid] for pid in range(side * side)] == fm.program_tiles(side, side, g)
    # Every wave, and at the last the running total is tile_loads over all waves.
    waves = math.ceil(side * side / wave)
    step = el.locator('[data-action="step"]')
    for index in range(1, min(waves, 4)):
        step.click()
        expected = program_order_expected(side, g, wave, index)
        assert outputs(el, *expected) == expected
    for _ in range(waves):
        if step.is_disabled():
            break
        step.click()
    expected = program_order_expected(side, g, wave, waves - 1)
    assert outputs(el, *expected) == expected
    total = fm.tile_loads(side, side, side, g, wave)
    assert outputs(el, "total-a", "total-b") == {"total-a": str(total[0]), "total-b": str(total[1])}
    assert not pg.errors, pg.errors


def test_program_order_with_the_keyboard(open_09):
    pg = open_09()
    el = widget(pg, "program-order")
    assert el.get_attribute("data-wave") == "0"
    assert el.locator('[data-action="prev"]').is_disabled()
    step = el.locator('[data-action="step"]')
    step.focus()
    pg.keyboard.press("Enter")
    assert el.get_attribute("data-wave") == "1"
    assert outputs(el, "first-pid", "last-pid", "total") == {
        "first-pid": "9",
        "last-pid": "17",
        "total": "180",
    }
    pg.keyboard.press("Space")
    assert el.get_attribute("data-wave") == "2"
    for _ in range(6):
        pg.keyboard.press("Enter")
    assert el.get_attribute("data-wave") == "8"
    assert step.is_disabled()
    back = el.locator('[data-action="prev"]')
    assert back.evaluate("b => b === document.activeElement"), "focus is lost at the last wave"
    pg.keyboard.press("Enter")
    assert el.get_attribute("data-wave") == "7"
    # The order select answers the keyboard; a new setting starts again at wave 1.
    el.locator('[data-in="order"]').focus()
    pg.keyboard.press("ArrowDown")
    assert el.get_attribute("data-wave") == "0"
    assert outputs(el, "loads")["loads"] == "54"
    # Play steps on by itself, and Pause stops it.
    play = el.locator('[data-action="play"]')
    play.focus()
    pg.keyboard.press("Enter")
    assert play.text_content() == "Pause"
    pg.wait_for_function(
        "document.querySelector('.book-widget[data-widget=\"program-order\"]').dataset.wave !== '0'"
    )
    pg.keyboard.press("Enter")
    assert play.text_content() == "Play"
    assert not pg.errors, pg.errors


def test_program_order_follows_dark_palette(open_09):
    pg = open_09()
    el = widget(pg, "program-order")

    def colour(loc):
        return loc.evaluate("e => getComputedStyle(e).color")

    light = colour(el)
    toggle_dark(pg)
    assert colour(el) != light, "program-order did not follow the dark palette"
    assert colour(el.locator("select").first) == colour(el)
    plain_tile = el.locator(".book-widget__tile:not(.book-widget__tile--wave)").first
    assert colour(plain_tile) == colour(el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("side", [9, 16])
def test_program_order_fits_a_narrow_screen(open_09, side, scheme):
    pg = open_09(width=390, scheme=scheme)
    el = set_program_order(pg, side, "grouped", 3, 9)
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    # No tile's number is cut off or wrapped: each fits its cell.
    clipped = el.locator(".book-widget__tile").evaluate_all(
        "ts => ts.filter(t => t.scrollWidth > t.clientWidth"
        " || t.scrollHeight > t.clientHeight).length"
    )
    assert clipped == 0
    assert not pg.errors, pg.errors
