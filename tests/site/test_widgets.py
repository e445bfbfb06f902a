"""The interactive widgets: the shared mount, and each widget in a real headless Chromium.

Per widget: it mounts, answers input with the right numbers (checked against the same
arithmetic done here in Python), works from the keyboard, logs no console error, follows
the dark palette, and fits a 390 px wide screen. Without a browser: the build adds widget
scripts only to pages that place a widget, and a widget with no module fails the build.
"""

from __future__ import annotations

import functools
import math
import random
import re
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from tests.site.support import DOCS, assert_fits_screen, html_for, nav_pages, outputs, widget

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PAGE = "model/02-programs-and-tiles.md"
BLOCKS = [16, 32, 64, 128, 256, 512, 1024]


# --- lifecycle: N elements, tiles of BLOCK, the ragged last program --------------------


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


# --- lanes: the blocked layout Triton gives a 1-D tile -----------------------------------


def lanes_expected(block: int, warps: int, i: int, size: int = 4, proven: bool = True):
    """What the widget shows, from the rule of TritonGPU's coalescing pass: each thread
    takes min(16 bytes / element size, max(1, BLOCK / threads)) neighbouring elements (one
    without a proof of contiguity), lanes then warps take neighbouring runs, and the
    pattern wraps round the tile; a tile smaller than one pass is replicated."""
    threads = 32 * warps
    spt = min(16 // size, max(1, block // threads)) if proven else 1
    footprint = spt * threads
    if block < footprint:  # replicated: spt is 1, thread t holds element t % block
        passes, per_thread, t, reg = 1, spt, i, 0
    else:
        passes, per_thread = block // footprint, block // threads
        t = (i % footprint) // spt
        reg = (i // footprint) * spt + i % spt
    span = min(32 * spt, block) * size
    return {
        "threads": str(threads),
        "ept": str(spt),
        "footprint": str(footprint),
        "passes": str(passes),
        "per-thread": str(per_thread),
        "thread": str(t),
        "warp": str(t // 32),
        "lane": str(t % 32),
        "register": str(reg),
        "where": f"warp {t // 32}, lane {t % 32}, register {reg}",
        "lane-bytes": str(spt * size),
        "span": str(span),
        "sectors": str(-(-span // 32)),
        "layout": f"#ttg.blocked<{{sizePerThread = [{spt}], threadsPerWarp = [32], "
        f"warpsPerCTA = [{warps}], order = [0]}}>",
    }


def set_lanes(pg, block: int, warps: int, i: int | None = None, size: int = 4, proven=True):
    el = widget(pg, "lanes")
    el.locator('[data-in="block"]').select_option(str(block))
    el.locator('[data-in="num_warps"]').select_option(str(warps))
    el.locator('[data-in="dtype"]').select_option(str(size))
    el.locator('[data-in="proven"]').set_checked(proven)
    if i is not None:
        el.locator('[data-in="element"]').fill(str(i))
    return el


_rng_lanes = random.Random(3)
LANE_CASES = [
    (1024, 4, 1000, 4, True),  # lesson 03's TTGIR: 4 per thread, two passes; thread 122
    (4096, 8, 4095, 4, True),  # the very last thread and register
    (256, 4, 77, 4, True),  # 2 per thread: fewer than 16 bytes, the tile is small
    (128, 4, 5, 4, True),  # exactly one per thread
    (4096, 4, 3000, 2, True),  # bf16: 8 per thread, 16 bytes
    (4096, 2, 1234, 1, True),  # int8: 16 per thread
    (1024, 4, 999, 8, True),  # fp64: 2 per thread
    (1024, 4, 1000, 4, False),  # no proof: one element per thread, 8 passes
]
for _ in range(3):
    _b = _rng_lanes.choice([256, 512, 1024, 2048, 4096])
    LANE_CASES.append(
        (
            _b,
            _rng_lanes.choice([1, 2, 4, 8]),
            _rng_lanes.randrange(_b),
            _rng_lanes.choice([1, 2, 4, 8]),
            _rng_lanes.random() < 0.8,
        )
    )


def test_lanes_block1024_warps4_element1000(open_page):
    pg = open_page()
    el = set_lanes(pg, 1024, 4, 1000)
    got = outputs(el, "threads", "ept", "footprint", "passes", "thread", "where", "span")
    # The TTGIR of lesson 03: sizePerThread = [4], so 512 elements per pass, two passes;
    # element 1000 is the first of thread 122's second run; a warp's load spans 512 bytes.
    assert got == {
        "threads": "128",
        "ept": "4",
        "footprint": "512",
        "passes": "2",
        "thread": "122",
        "where": "warp 3, lane 26, register 4",
        "span": "512",
    }
    assert "sizePerThread = [4]" in outputs(el, "layout")["layout"]
    assert el.get_attribute("data-replicated") == "false"
    assert "lesson 03" in el.inner_text().lower()
    assert "488 … 491 and 1000 … 1003" in el.inner_text()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("block", "warps", "i", "size", "proven"), LANE_CASES)
def test_lanes_match_python(open_page, block, warps, i, size, proven):
    pg = open_page()
    el = set_lanes(pg, block, warps, i, size, proven)
    expected = lanes_expected(block, warps, i, size, proven)
    assert outputs(el, *expected) == expected
    assert el.locator(".book-widget__warp").count() == warps
    assert el.locator(".book-widget__lanes .book-widget__cell--valid").count() == 1
    # The strip is one warp-wide load: span / size elements, element i among them.
    spt = int(expected["ept"])
    assert el.locator(".book-widget__strip .book-widget__run").count() == int(expected["span"]) // (
        size * spt
    )
    assert el.locator(".book-widget__strip .book-widget__cell").count() == (
        int(expected["span"]) // size
    )
    assert el.locator(".book-widget__strip .book-widget__cell--valid").count() == 1
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("block", "warps"), [(64, 4), (16, 1), (128, 8)])
def test_lanes_small_block_is_replicated(open_page, block, warps):
    pg = open_page()
    el = set_lanes(pg, block, warps, 5)
    assert block < 32 * warps
    copies = 32 * warps // block
    expected = lanes_expected(block, warps, 5)
    assert outputs(el, "threads", "ept", "where", "copies") == {
        "threads": str(32 * warps),
        "ept": "1",
        "where": expected["where"],
        "copies": str(copies),
    }
    assert el.get_attribute("data-replicated") == "true"
    # Every thread that holds a copy of element 5 is marked: 5, 5 + BLOCK, ...
    assert el.locator(".book-widget__lanes .book-widget__cell--valid").count() == copies
    assert not pg.errors, pg.errors


def test_lanes_with_the_keyboard(open_page):
    pg = open_page()
    el = set_lanes(pg, 1024, 4, 1000)
    el.locator('[data-action="next"]').focus()
    pg.keyboard.press("Enter")
    assert el.locator('[data-in="element"]').input_value() == "1001"
    assert outputs(el, "where")["where"] == "warp 3, lane 26, register 5"
    el.locator('[data-action="prev"]').focus()
    for _ in range(2):
        pg.keyboard.press("Space")
    assert outputs(el, "where")["where"] == "warp 3, lane 25, register 7"
    # The selects and the box answer the keyboard too.
    el.locator('[data-in="num_warps"]').focus()
    pg.keyboard.press("ArrowDown")
    assert outputs(el, "threads")["threads"] == "256"
    el.locator('[data-in="proven"]').focus()
    pg.keyboard.press("Space")
    assert outputs(el, "ept", "span") == {"ept": "1", "span": "128"}
    assert not pg.errors, pg.errors


# --- both widgets: dark palette, narrow screen --------------------------------------------


@pytest.mark.parametrize("name", ["lifecycle", "lanes"])
def test_widget_follows_dark_palette(open_page, name):
    pg = open_page()
    el = widget(pg, name)

    def colour():
        return el.evaluate("e => getComputedStyle(e).color")

    light = colour()
    assert pg.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert colour() != light, f"{name} did not follow the dark palette"
    control = el.locator("select").first
    assert control.evaluate("e => getComputedStyle(e).color") == colour()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["lifecycle", "lanes"])
def test_widget_fits_a_narrow_screen(open_page, name, scheme):
    pg = open_page(width=390, scheme=scheme)
    el = widget(pg, name)
    el.scroll_into_view_if_needed()
    if name == "lifecycle":
        set_lifecycle(pg, 1000, 1024)  # the widest drawing: 1024 lanes
    else:
        set_lanes(pg, 4096, 8, 4095, size=1)  # the most warps, the widest load strip
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


# --- the build: scripts only where a widget is placed ------------------------------------

WIDGET_TAG = re.compile(r'class="book-widget"[^>]*data-widget="([a-z0-9-]+)"')
MODULE_TAG = re.compile(r'<script defer src="[^"]*assets/js/widgets/([a-z0-9-]+)\.js"')


def test_widget_scripts_only_on_pages_with_widgets(built_site):
    with_widgets = 0
    for md in nav_pages():
        html = (built_site / html_for(md)).read_text()
        names = set(WIDGET_TAG.findall(html))
        scripts = set(MODULE_TAG.findall(html))
        if not names:
            assert "widgets.js" not in html and not scripts, f"{md} loads widget code"
            continue
        with_widgets += 1
        assert html.count("assets/js/widgets.js") == 1, md
        assert scripts == names, f"{md}: loads {scripts}, places {names}"
        assert 'src="/' not in html and "://" not in "".join(scripts)
    assert with_widgets >= 1
    html = (built_site / html_for(PAGE)).read_text()
    tags = re.findall(r'<script defer src="([^"]*widgets[^"]*)"', html)
    assert tags == [
        "../../assets/js/widgets.js",
        "../../assets/js/widgets/lifecycle.js",
        "../../assets/js/widgets/lanes.js",
        "../../assets/js/widgets/cuda-lines.js",
    ]


def test_a_widget_without_a_module_fails_the_build():
    from scripts.book import hook as book

    page = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"), url="x/")
    config = {"docs_dir": str(DOCS)}
    ok = '<div class="book-widget" data-widget="lanes"></div>'
    assert book.widget_scripts(ok, page, config)[-1] == "assets/js/widgets/lanes.js"
    assert book.widget_scripts("<p>no widget</p>", page, config) == []
    with pytest.raises(PluginError, match="no-such-widget"):
        missing = '<div class="book-widget" data-widget="no-such-widget"></div>'
        book.widget_scripts(missing, page, config)
    with pytest.raises(PluginError, match="data-widget"):
        book.widget_scripts('<div class="book-widget"></div>', page, config)


# --- program-order (lesson 09): launch order and the tiles a wave loads -------------------

PAGE_09 = "building/09-tiled-matmul.md"


@pytest.fixture
def open_09(open_page):
    return functools.partial(open_page, md=PAGE_09)


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


@pytest.mark.parametrize(("side", "order", "group_m", "wave"), PROGRAM_ORDER_CASES)
def test_program_order_matches_the_python_model(open_09, side, order, group_m, wave):
    from figures import matmul as fm

    pg = open_09()
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
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
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
