"""Widget "choose-stack" (lesson 14): effort against measured speed-up, per pattern.

Each speed-up the widget shows is checked against the same ratio computed here from the
book's values (the functions behind the prose's {{ value }} placeholders, on the committed
data), for every pattern and every device that has data; where the book has no
measurement the widget must say so, and every effort must be labelled an estimate. Also:
the graceful path with no data at all, keyboard, dark palette, 390 px, no console errors.
"""

from __future__ import annotations

import functools
import re

import pytest

from scripts.book import render
from tests.site.support import DOCS, assert_controls_labelled, assert_fits_screen, outputs, widget

# The page's embedded widget data (scripts/book/hook.py), removed to test the no-data path.

PAGE = "performance/14-production.md"
NAME = "choose-stack"
STACKS = ("eager", "compile", "triton", "cuda")
EFFORT_WORDS = ("none", "minutes", "hours", "days", "weeks")


def one_if(key):
    return lambda v: None if v(key) is None else 1.0


def over(a, b):
    """a / b, where both are values (keys) or already-computed functions of v."""

    def get(x, v):
        return x(v) if callable(x) else v(x)

    def f(v):
        x, y = get(a, v), get(b, v)
        return None if x is None or y is None else x / y

    return f


FA, MM = "fused_activation.", "matmul."
RN = "rmsnorm.bandwidth:direction=forward,impl={},hidden=8192".format  # forward, by impl
# lesson 09's FLOP/s at 4096³ bf16, and cuBLAS + eager (or addmm + GELU) over the fused
# epilogue kernel at 8192³
MM_RATE = {
    i: MM + f"tflops:impl={i},dtype=bfloat16,n=4096" for i in ("cublas", "compile", "triton")
}
EPI_EAGER, EPI_ADDMM = (
    MM + f"epilogue_ratio:of={p},to=triton_fused,n=8192" for p in ("cublas_eager", "cublas_addmm")
)
# lesson 12's forward rate at N = 4096, d = 128, no mask: the same FLOPs for every impl
ATT = "attention.tflops:impl={},direction=forward,d=128,mask=full".format
COPY_NORM = over(RN("triton"), "rmsnorm.of_copy:direction=forward,hidden=8192")  # copy bandwidth
# pattern -> stack -> (kind, speed-up as a function of the value lookup), or just a kind.
SPEC = {
    "elementwise": {
        "eager": ("measured", one_if(FA + "time:impl=eager")),
        "compile": ("measured", over(FA + "time:impl=eager", FA + "time:impl=compile")),
        "triton": ("measured", over(FA + "time:impl=eager", FA + "time:impl=triton")),
        "cuda": ("bound", over(FA + "time:impl=eager", FA + "floor:chain=fused")),
    },
    "norm": {
        "eager": ("measured", one_if(RN("eager"))),
        "compile": ("measured", over(RN("compile"), RN("eager"))),
        "triton": ("measured", over(RN("triton"), RN("eager"))),
        "cuda": ("bound", over(COPY_NORM, RN("eager"))),
    },
    "matmul": {
        "eager": ("measured", one_if(MM_RATE["cublas"])),
        "compile": ("measured", over(MM_RATE["compile"], MM_RATE["cublas"])),
        "triton": ("measured", over(MM_RATE["triton"], MM_RATE["cublas"])),
        "cuda": ("measured", one_if(MM_RATE["cublas"])),  # eager is cuBLAS
    },
    "attention": {
        "eager": ("measured", one_if(ATT("naive"))),  # naive attention, the scores in HBM
        "compile": ("measured", over(ATT("flex"), ATT("naive"))),  # FlexAttention
        "triton": ("measured", over(ATT("triton"), ATT("naive"))),
        "cuda": ("measured", over(ATT("sdpa_cudnn"), ATT("naive"))),  # cuDNN through SDPA
    },
    "novel": {"eager": "baseline", "compile": None, "triton": None, "cuda": None},
}


def times(x: float) -> str:
    return (f"{x:.2f}" if x < 10 else f"{x:.0f}") + "×"


def declared_keys() -> list[str]:
    text = (DOCS / PAGE).read_text()
    return re.search(r'data-widget="choose-stack" data-values="([^"]*)"', text).group(1).split()


def values_by_device() -> dict[str, dict[str, float]]:
    """slug -> {key: value} for the keys the page declares, as the build computes them."""
    reg = render.discover()
    found: dict[str, dict[str, float]] = {}
    for slug, docs in render.load_devices().items():
        for key in declared_keys():
            try:
                v = render.compute(render.parse_widget_word(key), docs, reg)
            except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError):
                continue
            if v is not None:
                found.setdefault(slug, {})[key] = v
    return found


def expected(pattern: str, vals: dict[str, float]) -> dict[str, tuple[str, str]]:
    """stack -> (kind, text of its speed-up) for one pattern on one device's values."""
    got = {}
    for stack, spec in SPEC[pattern].items():
        if spec == "baseline":
            got[stack] = ("baseline", "1× by definition")
            continue
        if spec is None:
            got[stack] = ("not measured", "not measured")
            continue
        kind, f = spec
        x = f(vals.get)
        if x is None:
            got[stack] = ("not measured", "not measured")
        else:
            got[stack] = (kind, ("at most " if kind == "bound" else "") + times(x))
    return got


def shown(el) -> dict[str, tuple[str, str]]:
    return {
        s: (
            el.locator(f'li[data-stack="{s}"]').get_attribute("data-kind"),
            outputs(el, f"speedup-{s}")[f"speedup-{s}"],
        )
        for s in STACKS
    }


def wrapped_labels(el) -> list[str]:
    """Labels whose text breaks over more than one line (a squeezed label on a phone)."""
    return el.locator("label").evaluate_all(
        "ls => ls.filter(l => { const r = document.createRange(); r.selectNodeContents(l);"
        " return r.getClientRects().length > 1; }).map(l => l.textContent)"
    )


@pytest.fixture
def open_14(open_page):
    return functools.partial(open_page, md=PAGE)


def test_the_spec_reads_only_declared_values():
    used = set()
    for stacks in SPEC.values():
        for spec in stacks.values():
            if isinstance(spec, tuple):
                spec[1](lambda k: used.add(k) or 1.0)
    assert used <= set(declared_keys()), used - set(declared_keys())


def test_matches_the_books_measurements(open_14):
    devices = values_by_device()
    assert devices, "no device has any of the measurements this widget reads"
    pg = open_14()
    el = widget(pg, NAME)
    options = el.locator('[data-in="device"] option').evaluate_all("os => os.map(o => o.value)")
    assert options == list(devices)
    measured_somewhere = 0
    for slug, vals in devices.items():
        el.locator('[data-in="device"]').select_option(slug)
        for pattern in SPEC:
            el.locator('[data-in="pattern"]').select_option(pattern)
            assert el.get_attribute("data-pattern") == pattern
            want = expected(pattern, vals)
            assert shown(el) == want, (slug, pattern)
            measured_somewhere += sum(k == "measured" for k, _ in want.values())
            for stack in STACKS:
                effort = el.locator(f'li[data-stack="{stack}"] .book-widget__stack-effort')
                assert effort.inner_text().endswith("(estimate)")
                assert outputs(el, f"effort-{stack}")[f"effort-{stack}"] in EFFORT_WORDS
                assert outputs(el, f"note-{stack}")[f"note-{stack}"]
            if pattern == "matmul" and EPI_EAGER in vals:
                assert outputs(el, "epilogue-vs-eager", "epilogue-vs-addmm") == {
                    "epilogue-vs-eager": times(vals[EPI_EAGER]),
                    "epilogue-vs-addmm": times(vals[EPI_ADDMM]),
                }
            else:
                assert el.locator('[data-out="extra"]').is_hidden()
    assert measured_somewhere > 0
    assert not pg.errors, pg.errors


def test_attention_is_measured(open_14):
    """Lesson 12 measures every attention stack: none of them reads "not measured"."""
    devices = values_by_device()
    assert any(ATT("triton") in vals for vals in devices.values())
    pg = open_14()
    el = widget(pg, NAME)
    el.locator('[data-in="pattern"]').select_option("attention")
    got = shown(el)
    assert {kind for kind, _ in got.values()} == {"measured"}, got
    assert got["eager"] == ("measured", "1.00×")
    assert "not measured" not in el.locator(".book-widget__stacks").inner_text()
    assert not pg.errors, pg.errors


def test_patterns_without_data_say_so(open_14):
    pg = open_14()
    el = widget(pg, NAME)
    for pattern in ("novel",):
        el.locator('[data-in="pattern"]').select_option(pattern)
        got = shown(el)
        assert got["eager"] == ("baseline", "1× by definition")
        assert {got[s] for s in ("compile", "triton", "cuda")} == {("not measured", "not measured")}
        assert "×" not in el.locator(".book-widget__stacks").inner_text().replace("1×", "")
    assert not pg.errors, pg.errors


def test_without_data_nothing_is_invented(open_page):
    pg = open_page(md="performance/14-production.md", without_widget_data=True)
    el = widget(pg, NAME)
    assert el.locator('[data-in="device"]').is_disabled()
    for pattern in SPEC:
        el.locator('[data-in="pattern"]').select_option(pattern)
        assert shown(el) == expected(pattern, {}), pattern
    assert not pg.errors, pg.errors


def test_with_the_keyboard(open_14):
    pg = open_14()
    el = widget(pg, NAME)
    assert el.get_attribute("data-pattern") == "elementwise"
    select = el.locator('[data-in="pattern"]')
    select.focus()
    pg.keyboard.press("ArrowDown")
    assert el.get_attribute("data-pattern") == "norm"
    pg.keyboard.press("ArrowDown")
    assert el.get_attribute("data-pattern") == "matmul"
    pg.keyboard.press("End")
    assert el.get_attribute("data-pattern") == "novel"
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_14):
    pg = open_14()
    el = widget(pg, NAME)

    def colour(loc):
        return loc.evaluate("e => getComputedStyle(e).color")

    light = colour(el)
    fill = el.locator(".book-widget__bar-fill").first
    light_fill = fill.evaluate("e => getComputedStyle(e).backgroundColor")
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    assert colour(el) != light, "choose-stack did not follow the dark palette"
    assert colour(el.locator("select").first) == colour(el)
    assert fill.evaluate("e => getComputedStyle(e).backgroundColor") != light_fill
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_14, scheme):
    pg = open_14(width=390, scheme=scheme)
    el = widget(pg, NAME)
    for pattern in SPEC:
        el.locator('[data-in="pattern"]').select_option(pattern)
        el.scroll_into_view_if_needed()
        assert_fits_screen(pg, el)
        assert not wrapped_labels(el), wrapped_labels(el)
    assert not pg.errors, pg.errors


def test_every_control_has_a_label(open_14):
    pg = open_14()
    el = widget(pg, NAME)
    assert_controls_labelled(el)
    assert not pg.errors, pg.errors
