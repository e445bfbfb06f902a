"""Widget "lanes" (lesson 02): which warp, lane and register hold element i of a 1-D tile,
by the blocked layout Triton's coalescing pass gives it (16 bytes per thread, then wrap).

In a real headless Chromium: the widget's numbers are checked against the same arithmetic
done here in Python (a worked example, fixed and seeded random cases, the replicated small
blocks), the keyboard steps the element and changes the selects, the widget follows the
dark palette and fits a 390 px screen, and logs no console error.
"""

from __future__ import annotations

import random

import pytest

from tests.site.support import assert_fits_screen, assert_follows_dark, outputs, widget

PAGE = "model/02-programs-and-tiles.md"  # open_page's default page


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


# The cases below set every input (set_lanes), so they share one page (shared_page).
@pytest.mark.parametrize(("block", "warps", "i", "size", "proven"), LANE_CASES)
def test_lanes_match_python(shared_page, block, warps, i, size, proven):
    pg = shared_page()
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
def test_lanes_small_block_is_replicated(shared_page, block, warps):
    pg = shared_page()
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


def test_follows_dark_palette(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "lanes")
    assert_follows_dark(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_page, scheme):
    pg = open_page(width=390, scheme=scheme, md=PAGE)
    el = widget(pg, "lanes")
    el.scroll_into_view_if_needed()
    set_lanes(pg, 4096, 8, 4095, size=1)  # the most warps, the widest load strip
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors
