"""Widget "programs-in-flight" (lesson 04): programs to start against the dispatch rate, and
bytes in flight per SM, for a BLOCK slider.

The counts are checked against the same arithmetic done here in Python, the measured
numbers against the block-sweep data read here from figures/data, and the programs per SM
against figures/vector_add.py's own occupancy arithmetic (the value kinds the page quotes).
Also: the keyboard moves the slider, the widget says so when no device has data, dark
palette, a 390 px screen, no console errors.
"""

from __future__ import annotations

import functools
import math

import pytest

from figures import vector_add
from scripts.book import render
from tests.site.support import assert_controls_labelled, assert_fits_screen, outputs, widget

PAGE = "dsl/04-loads-stores-masks.md"
NAME = "programs-in-flight"
BENCH = "vector_add_block_sweep"
DEFAULT_N = 2**26


def sweep_devices() -> dict[str, dict]:
    """slug -> the device's documents, for every device with a block sweep."""
    return {s: docs for s, docs in render.load_devices().items() if BENCH in docs}


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


def counts(n: int, block: int) -> dict[str, str]:
    return {
        "n": grouped(n),
        "block-value": str(block),
        "programs": grouped(math.ceil(n / block)),
        "bytes-per-program": nbytes(8 * block),
        "bytes-total": nbytes(12 * n),
    }


def measured(docs: dict, block: int, warps: int) -> dict[str, str]:
    doc = docs[BENCH]
    row = next(r for r in doc["rows"] if r["block"] == block and r["num_warps"] == warps)
    programs = math.ceil(row["n"] / block)
    time, empty = row["time_s"]["p50"], row["empty_time_s"]["p50"]
    copy = render.copy_bw(doc)
    copy_time = row["bytes"] / copy
    if time <= 1.05 * empty:
        limit = "starting the programs"
    elif time <= 1.1 * copy_time:
        limit = "moving the bytes"
    elif row["n_spills"] > 0:
        limit = f"neither: the kernel spills {row['n_spills']} values to local memory"
    else:
        limit = "neither: too few bytes in flight to cover memory's round trip"
    got = {
        "device": doc["provenance"]["gpu"],
        "time": f"{time * 1e3:.3f} ms",
        "bandwidth": f"{bandwidth(row) / 1e12:.2f} TB/s",
        "empty-time": f"{empty * 1e3:.3f} ms",
        "rate": f"{programs / empty * 1e-9:.2f}",
        "copy": f"{copy / 1e12:.2f} TB/s",
        "copy-time": f"{copy_time * 1e3:.3f} ms",
        "limit": limit,
    }
    per_sm = vector_add.resident_per_sm(docs, block, warps)
    if per_sm is not None:
        names = {"threads": "threads", "blocks": "program slots", "registers": "registers"}
        binding = min(("threads", "blocks", "registers"), key=lambda k: per_sm[k])
        resident = vector_add.resident(docs, block, warps)
        got |= {
            "per-sm": str(per_sm["resident"]),
            "limiter": names[binding],
            "regs": str(row["n_regs"]),
            "resident": grouped(resident),
            "in-flight": nbytes(per_sm["resident"] * 8 * block),
            "lifetime": f"{round(vector_add.lifetime(docs, block, warps) * 1e9):,} ns",
        }
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


CASES = [(4, 1), (4, 16), (256, 4), (256, 16), (1024, 4), (4096, 1), (8192, 1), (16384, 4),
         (64, 8)]  # fmt: skip


# Each case sets the device, the warps and (from Home) the block: one page serves them all.
@pytest.mark.parametrize(("block", "warps"), CASES)
def test_matches_python_and_the_data(shared_page, block, warps):
    devices = sweep_devices()
    pg = shared_page(md=PAGE)
    el = widget(pg, NAME)
    options = el.locator('[data-in="device"] option').evaluate_all("os => os.map(o => o.value)")
    assert options == list(devices) or (not devices and options == [""])
    for slug, docs in devices.items():
        set_block(pg, el, block, warps, slug)
        expected = counts(docs[BENCH]["rows"][0]["n"], block)
        assert outputs(el, *expected) == expected
        want = measured(docs, block, warps)
        assert outputs(el, *want) == want, slug
        # The strip: one bar per measured BLOCK at these warps, this BLOCK's outlined.
        bars = el.locator(".book-widget__bar")
        assert bars.count() == sum(r["num_warps"] == warps for r in docs[BENCH]["rows"])
        current = el.locator(".book-widget__bar--current")
        assert current.count() == 1 and current.get_attribute("data-block") == str(block)
    assert not pg.errors, pg.errors


def test_the_three_regimes_the_page_describes(open_04):
    """BLOCK = 4 with 4 warps is set by starting programs, BLOCK = 1024 by moving bytes,
    and BLOCK = 256 with 16 warps by too few bytes in flight, on every device."""
    pg = open_04()
    el = widget(pg, NAME)
    for slug in sweep_devices():
        for block, warps, limit in (
            (4, 4, "starting the programs"),
            (1024, 4, "moving the bytes"),
            (256, 16, "neither: too few bytes in flight to cover memory's round trip"),
        ):
            set_block(pg, el, block, warps, slug)
            assert outputs(el, "limit") == {"limit": limit}, (slug, block, warps)
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
    row = next(
        r
        for r in next(iter(sweep_devices().values()))[BENCH]["rows"]
        if r["block"] == 8192 and r["num_warps"] == 8
    )
    assert outputs(el, "regs") == {"regs": str(row["n_regs"])}
    assert not pg.errors, pg.errors


def test_without_data_it_says_so(open_page):
    pg = open_page(md=PAGE, without_widget_data=True)
    el = widget(pg, NAME)
    assert outputs(el, "time", "programs", "n") == {
        "time": "No measurement",
        "programs": "65,536",
        "n": "67,108,864",
    }
    assert el.locator('[data-in="device"]').is_disabled()
    assert "no device has block-sweep data" in el.inner_text()
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
    assert colour(el) != light, "programs-in-flight did not follow the dark palette"
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
