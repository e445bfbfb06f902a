"""Widget "hbm-trips" (lesson 04): trips between HBM and the chip for a BLOCK slider.

The counts are checked against the same arithmetic done here in Python, the measured
numbers against the committed block-sweep data read here from figures/data, and the page's
worked example against both. Also: the keyboard moves the slider, the widget says "not
measured" when the data is missing, dark palette, a 390 px screen, no console errors.
"""

from __future__ import annotations

import functools
import math

import pytest

from scripts.book import render
from tests.site.support import DOCS, assert_controls_labelled, assert_fits_screen, outputs, widget

# The page's embedded widget data (scripts/book/hook.py), removed to test the no-data path.

PAGE = "dsl/04-loads-stores-masks.md"
NAME = "hbm-trips"
BENCH = "vector_add_block_sweep"
DEFAULT_N = 2**26


def sweep_devices() -> dict[str, dict]:
    """slug -> the committed block-sweep document, for every device that has one."""
    return {s: docs[BENCH] for s, docs in render.load_devices().items() if BENCH in docs}


def grouped(v: int) -> str:
    return f"{v:,}"


def nbytes(b: int) -> str:
    s = f"{b:,} B"
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if b >= size:
            return s + f" ({f'{b / size:.1f}'.removesuffix('.0')} {unit})"
    return s


def bandwidth(row: dict) -> float:
    return row["bytes"] / row["time_s"]["p50"]


def counts(n: int, block: int, warps: int) -> dict[str, str]:
    programs = math.ceil(n / block)
    ept = max(1, block // (32 * warps))
    return {
        "n": grouped(n),
        "block-value": str(block),
        "programs": grouped(programs),
        "trips-per-program": "3",
        "bytes-per-trip": nbytes(4 * block),
        "bytes-per-program": nbytes(12 * block),
        "trips-total": grouped(3 * programs),
        "loads-total": grouped(2 * programs),
        "stores-total": grouped(programs),
        "bytes-total": nbytes(12 * n),
        "onchip-per-program": nbytes(8 * block),
        "threads": str(32 * warps),
        "ept": str(ept),
        "regs-model": str(2 * ept),
    }


def measured(doc: dict, block: int, warps: int) -> dict[str, str]:
    row = next(r for r in doc["rows"] if r["block"] == block and r["num_warps"] == warps)
    best = max(doc["rows"], key=bandwidth)
    got = {
        "device": doc["provenance"]["gpu"],
        "bandwidth": f"{bandwidth(row) / 1e12:.2f} TB/s",
        "time": f"{row['time_s']['p50'] * 1e3:.3f} ms",
        "best": f"{bandwidth(best) / 1e12:.2f} TB/s",
    }
    if "empty_time_s" in row:
        got["empty-time"] = f"{row['empty_time_s']['p50'] * 1e3:.3f} ms"
    if "n_regs" in row:
        got["regs"], got["spills"] = str(row["n_regs"]), str(row["n_spills"])
    return got


def wrapped_labels(el) -> list[str]:
    """Labels whose text breaks over more than one line (a squeezed label on a phone)."""
    return el.locator("label").evaluate_all(
        "ls => ls.filter(l => { const r = document.createRange(); r.selectNodeContents(l);"
        " return r.getClientRects().length > 1; }).map(l => l.textContent)"
    )


@pytest.fixture
def open_04(open_page):
    return functools.partial(open_page, md=PAGE)


def set_block(pg, el, block: int, warps: int | None = None, device: str | None = None):
    """Moves the slider with the keyboard: Home is BLOCK = 4, each ArrowRight doubles it."""
    if device is not None:
        el.locator('[data-in="device"]').select_option(device)
    if warps is not None:
        el.locator('[data-in="num_warps"]').select_option(str(warps))
    el.locator('[data-in="block"]').focus()
    pg.keyboard.press("Home")
    for _ in range(int(math.log2(block)) - 2):
        pg.keyboard.press("ArrowRight")
    assert el.get_attribute("data-block") == str(block)


def test_the_pages_worked_example(open_04):
    text = (DOCS / PAGE).read_text()
    pg = open_04()
    el = widget(pg, NAME)
    n = next(iter(sweep_devices().values()))["rows"][0]["n"] if sweep_devices() else DEFAULT_N
    assert n == DEFAULT_N, "the page's worked numbers are for the sweep's 2^26 elements"
    worked = ((1024, 65536, 196608, "4 KiB"), (4, 2**24, 3 * 2**24, "16 bytes"))
    flat = " ".join(text.split())
    for block, programs, trips, trip_bytes in worked:
        set_block(pg, el, block)
        got = outputs(el, "programs", "trips-total", "bytes-total")
        assert got == {
            "programs": grouped(programs),
            "trips-total": grouped(trips),
            "bytes-total": "805,306,368 B (768 MiB)",
        }
        assert f"{grouped(programs)} programs and {grouped(trips)} trips of {trip_bytes}" in flat
    assert "768 MiB" in text
    assert not pg.errors, pg.errors


CASES = [(4, 1), (256, 4), (1024, 4), (4096, 1), (8192, 1), (16384, 4), (16384, 16), (64, 8)]


@pytest.mark.parametrize(("block", "warps"), CASES)
def test_matches_python_and_the_committed_data(open_04, block, warps):
    devices = sweep_devices()
    pg = open_04()
    el = widget(pg, NAME)
    options = el.locator('[data-in="device"] option').evaluate_all("os => os.map(o => o.value)")
    assert options == list(devices) or (not devices and options == [""])
    for slug, doc in devices.items():
        set_block(pg, el, block, warps, slug)
        expected = counts(doc["rows"][0]["n"], block, warps)
        assert outputs(el, *expected) == expected
        want = measured(doc, block, warps)
        assert outputs(el, *want) == want, slug
        for absent in {"empty-time", "regs", "spills"} - set(want):  # older runs lack them
            assert el.locator(f'[data-out="{absent}"]').count() == 0, (slug, absent)
        # The strip: one bar per measured BLOCK at these warps, this BLOCK's outlined.
        bars = el.locator(".book-widget__bar")
        assert bars.count() == sum(r["num_warps"] == warps for r in doc["rows"])
        current = el.locator(".book-widget__bar--current")
        assert current.count() == 1 and current.get_attribute("data-block") == str(block)
    assert not pg.errors, pg.errors


def test_keyboard_and_end_of_range(open_04):
    pg = open_04()
    el = widget(pg, NAME)
    assert el.get_attribute("data-block") == "1024"
    slider = el.locator('[data-in="block"]')
    slider.focus()
    pg.keyboard.press("End")
    assert el.get_attribute("data-block") == "16384"
    pg.keyboard.press("ArrowRight")  # already at the end: stays
    assert outputs(el, "block-value", "programs") == {"block-value": "16384", "programs": "4,096"}
    assert slider.get_attribute("aria-valuetext") == "BLOCK = 16384"
    pg.keyboard.press("ArrowLeft")
    assert el.get_attribute("data-block") == "8192"
    el.locator('[data-in="num_warps"]').focus()
    pg.keyboard.press("ArrowDown")  # 4 -> 8 warps
    assert outputs(el, "threads", "ept", "regs-model") == {
        "threads": "256",
        "ept": "32",
        "regs-model": "64",
    }
    assert not pg.errors, pg.errors


def test_without_data_it_says_not_measured(open_page):
    pg = open_page(md="dsl/04-loads-stores-masks.md", without_widget_data=True)
    el = widget(pg, NAME)
    assert outputs(el, "bandwidth", "programs", "n") == {
        "bandwidth": "not measured",
        "programs": "65,536",
        "n": "67,108,864",
    }
    assert el.locator('[data-in="device"]').is_disabled()
    assert "no device has block-sweep data yet" in el.inner_text()
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_04):
    pg = open_04()
    el = widget(pg, NAME)

    def colour(loc):
        return loc.evaluate("e => getComputedStyle(e).color")

    light = colour(el)
    bar = el.locator(".book-widget__bar--current")
    light_bar = bar.evaluate("e => getComputedStyle(e).backgroundColor")
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert colour(el) != light, "hbm-trips did not follow the dark palette"
    assert colour(el.locator("select").first) == colour(el)
    assert bar.evaluate("e => getComputedStyle(e).backgroundColor") != light_bar
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_04, scheme):
    pg = open_04(width=390, scheme=scheme)
    el = widget(pg, NAME)
    set_block(pg, el, 16384)
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not wrapped_labels(el), wrapped_labels(el)
    assert not pg.errors, pg.errors


def test_every_control_has_a_label(open_04):
    pg = open_04()
    el = widget(pg, NAME)
    assert_controls_labelled(el)
    assert not pg.errors, pg.errors
