"""Widget "flash-walk" (lesson 12): one query block's walk over the K/V blocks.

Its numbers are checked against the same arithmetic done here in Python: the seeded
scores and values, which tiles causal masking skips or masks, and the online softmax's
running max m, rescale factor alpha, running sum l and accumulator acc after every block,
and at the end acc / l against the plain softmax-weighted sum. Also: keyboard, dark
palette, a 390 px screen, no console error, no serious axe violation.
"""

from __future__ import annotations

import functools
import math
import random

import pytest

from tests.site.support import assert_fits_screen, outputs, widget

PAGE = "flagship/12-flash-attention.md"
N_MAX = 64


# ---- the Python mirror of the widget's arithmetic -----------------------------------------


@functools.cache
def lcg(seed: int) -> list[int]:
    """x_{n+1} = (1664525 x_n + 1013904223) mod 2^32 from x_0 = seed: x_1, x_2, ..."""
    xs, x = [], seed
    for _ in range(N_MAX * N_MAX + N_MAX):
        x = (1664525 * x + 1013904223) % 2**32
        xs.append(x)
    return xs


def score(seed: int, i: int, j: int) -> float:
    return (math.floor(lcg(seed)[i * N_MAX + j] * 61 / 2**32) - 30) / 10


def value(seed: int, j: int) -> float:
    return (math.floor(lcg(seed)[N_MAX * N_MAX + j] * 21 / 2**32) - 10) / 10


def block_kind(n, bm, bn, causal, qb, kb) -> str:
    q0, k0 = qb * bm, kb * bn
    if causal and k0 > q0 + bm - 1:
        return "skipped"
    if (causal and k0 + bn - 1 > q0) or k0 + bn > n:
        return "partial"
    return "full"


def walk(n, bm, bn, causal, qb, row, seed) -> dict:
    """The online softmax of row qb * bm + row over the K/V blocks program qb loads."""
    i = qb * bm + row
    nkv = math.ceil(n / bn)
    m, run_sum, acc, steps = -math.inf, 0.0, 0.0, []
    for kb in range(nkv):
        if block_kind(n, bm, bn, causal, qb, kb) == "skipped":
            continue
        visible = [k for k in range(kb * bn, (kb + 1) * bn) if k < n and not (causal and k > i)]
        block_max = max((score(seed, i, k) for k in visible), default=-math.inf)
        m_new = max(m, block_max)
        alpha = 0.0 if m == -math.inf else math.exp(m - m_new)
        p = {k: math.exp(score(seed, i, k) - m_new) for k in visible}
        p_sum = sum(p.values())
        pv = sum(p[k] * value(seed, k) for k in visible)
        step = {"kb": kb, "block-max": block_max, "m-old": m, "m-new": m_new, "alpha": alpha}
        step.update({"p-sum": p_sum, "pv-sum": pv, "l-old": run_sum, "acc-old": acc, "p": p})
        run_sum, acc, m = run_sum * alpha + p_sum, acc * alpha + pv, m_new
        step.update({"l-new": run_sum, "acc-new": acc})
        steps.append(step)
    seen = [k for k in range(n) if not (causal and k > i)]
    top = max(score(seed, i, k) for k in seen)
    z = sum(math.exp(score(seed, i, k) - top) for k in seen)
    direct = sum(math.exp(score(seed, i, k) - top) / z * value(seed, k) for k in seen)
    kinds = [block_kind(n, bm, bn, causal, qb, kb) for kb in range(nkv)]
    out = acc / run_sum
    return {"i": i, "nkv": nkv, "steps": steps, "out": out, "direct": direct, "kinds": kinds}


def grid_kinds(n, bm, bn, causal) -> list[str]:
    nq, nkv = math.ceil(n / bm), math.ceil(n / bn)
    return [block_kind(n, bm, bn, causal, qb, kb) for qb in range(nq) for kb in range(nkv)]


# ---- driving the widget -------------------------------------------------------------------


@pytest.fixture
def open_12(open_page):
    return functools.partial(open_page, md=PAGE)


def set_walk(pg, n, bm, bn, causal, qb, row, seed):
    el = widget(pg, "flash-walk")
    el.locator('[data-in="n"]').fill(str(n))
    el.locator('[data-in="block_m"]').select_option(str(bm))
    el.locator('[data-in="block_n"]').select_option(str(bn))
    el.locator('[data-in="causal"]').set_checked(causal)
    el.locator('[data-in="q_block"]').fill(str(qb))
    el.locator('[data-in="row"]').fill(str(row))
    el.locator('[data-in="seed"]').fill(str(seed))
    return el


def shown(el, name: str) -> float:
    return float(el.locator(f'[data-out="{name}"]').first.get_attribute("data-value"))


def close(a: float, b: float) -> bool:
    # The browser's exp and Python's may differ in the last bit; nothing else may.
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def check_counts(el, expected: dict, params: tuple):
    n, bm, bn, causal, qb, _, _ = params
    kinds = expected["kinds"]
    grid = grid_kinds(n, bm, bn, causal)
    got = outputs(el, "visited", "kv-blocks", "full", "partial", "skipped", "grid-computed")
    assert got == {
        "visited": str(len(expected["steps"])),
        "kv-blocks": str(expected["nkv"]),
        "full": str(kinds.count("full")),
        "partial": str(kinds.count("partial")),
        "skipped": str(kinds.count("skipped")),
        "grid-computed": str(len(grid) - grid.count("skipped")),
    }
    drawn = el.locator(".book-widget__fa-cell").evaluate_all("cs => cs.map(c => c.dataset.kind)")
    assert drawn == grid
    assert outputs(el, "row-index")["row-index"] == str(expected["i"])


STEP_NAMES = ("block-max", "m-old", "m-new", "alpha", "p-sum", "pv-sum", "l-old", "l-new")
STEP_NAMES += ("acc-old", "acc-new")


def check_step(el, step: dict):
    for name in STEP_NAMES:
        assert close(shown(el, name), step[name]), (name, shown(el, name), step[name])
    chips = el.locator(".book-widget__fa-key[data-p]")
    got = dict(chips.evaluate_all("cs => cs.map(c => [+c.dataset.k, +c.dataset.p])"))
    assert got.keys() == step["p"].keys()
    assert all(close(got[k], step["p"][k]) for k in got)
    assert close(shown(el, "m"), step["m-new"]) and close(shown(el, "l"), step["l-new"])
    assert close(shown(el, "acc"), step["acc-new"])


def check_final(el, expected: dict):
    assert el.locator('[data-out="final"]').is_visible()
    assert close(shown(el, "out-online"), expected["out"])
    assert close(shown(el, "out-direct"), expected["direct"])
    # The point of the widget: the streamed result is the plain softmax-weighted sum.
    assert math.isclose(expected["out"], expected["direct"], rel_tol=1e-9, abs_tol=1e-12)


# ---- tests --------------------------------------------------------------------------------

DEFAULT = (12, 4, 4, True, 2, 1, 21)  # the widget's starting settings


def test_every_step_of_the_default_walk_matches_python(open_12):
    pg = open_12()
    el = widget(pg, "flash-walk")
    expected = walk(*DEFAULT)
    check_counts(el, expected, DEFAULT)
    assert el.get_attribute("data-step") == "0"
    assert outputs(el, "m", "l", "acc") == {"m": "−∞", "l": "0.0000", "acc": "0.0000"}
    assert not el.locator('[data-out="final"]').is_visible()
    step = el.locator('[data-action="step"]')
    step.focus()
    for t, s in enumerate(expected["steps"], 1):
        pg.keyboard.press("Enter")
        assert el.get_attribute("data-step") == str(t)
        check_step(el, s)
        # The history table has one row per block consumed so far.
        assert el.locator('[data-out="history"] tbody tr').count() == t
    check_final(el, expected)
    assert step.is_disabled()
    assert el.locator('[data-action="prev"]').evaluate("b => b === document.activeElement")
    assert not pg.errors, pg.errors


def test_first_block_has_nothing_to_rescale(open_12):
    pg = open_12()
    el = widget(pg, "flash-walk")
    el.locator('[data-action="step"]').click()
    first = walk(*DEFAULT)["steps"][0]
    assert first["alpha"] == 0.0 and shown(el, "alpha") == 0.0
    assert outputs(el, "m-old")["m-old"] == "−∞"
    assert "nothing to rescale" in el.locator('[data-out="explain"]').inner_text()
    assert not pg.errors, pg.errors


_rng = random.Random(12)
CASES = [
    (12, 4, 4, False, 2, 1, 1),  # not causal: every block loaded
    (64, 16, 16, True, 3, 15, 7),  # the last row of the last block: the whole triangle
    (10, 4, 8, True, 0, 0, 42),  # BLOCK_N > BLOCK_M, ragged N, the very first row
    (13, 8, 2, True, 1, 0, 3),  # BLOCK_M > BLOCK_N: a loaded block can mask a row fully
    (1, 2, 2, True, 0, 0, 5),  # one key
]
for _ in range(4):
    _n = _rng.randint(2, N_MAX)
    _bm, _bn = _rng.choice([2, 4, 8, 16]), _rng.choice([2, 4, 8, 16])
    _qb = _rng.randrange(math.ceil(_n / _bm))
    _row = _rng.randrange(min(_bm, _n - _qb * _bm))
    CASES.append((_n, _bm, _bn, _rng.random() < 0.7, _qb, _row, _rng.randrange(100000)))


# set_walk sets every input, and each one restarts the walk at its first block: the
# cases of the next two checks share one page (shared_page).
@pytest.mark.parametrize("params", CASES, ids=str)
def test_walk_matches_python(shared_page, params):
    pg = shared_page(md=PAGE)
    el = set_walk(pg, *params)
    expected = walk(*params)
    check_counts(el, expected, params)
    el.locator('[data-action="step"]').click()
    check_step(el, expected["steps"][0])
    if len(expected["steps"]) > 1:  # else the first block was the last: End is disabled
        el.locator('[data-action="end"]').click()
    check_step(el, expected["steps"][-1])
    check_final(el, expected)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("blocks", [2, 3, 6])
def test_causal_computes_the_triangle(shared_page, blocks):
    """With BLOCK_M = BLOCK_N and N a multiple of it, causal loads the k(k+1)/2 tiles on and
    below the diagonal, k of them masked; not causal loads all k^2."""
    pg = shared_page(md=PAGE)
    el = set_walk(pg, 4 * blocks, 4, 4, True, blocks - 1, 0, 1)
    got = outputs(el, "grid-computed", "grid-total", "visited", "partial")
    assert got == {
        "grid-computed": str(blocks * (blocks + 1) // 2),
        "grid-total": str(blocks * blocks),
        "visited": str(blocks),
        "partial": "1",
    }
    assert el.locator('.book-widget__fa-cell[data-kind="partial"]').count() == blocks
    el.locator('[data-in="causal"]').uncheck()
    assert outputs(el, "grid-computed")["grid-computed"] == str(blocks * blocks)
    assert not pg.errors, pg.errors


def test_keyboard_only(open_12):
    pg = open_12()
    el = widget(pg, "flash-walk")
    # The controls are reached with Tab and changed with the keyboard.
    el.locator('[data-in="causal"]').focus()
    pg.keyboard.press("Space")
    assert el.locator('[data-in="causal"]').is_checked() is False
    el.locator('[data-in="block_n"]').focus()
    pg.keyboard.press("ArrowDown")  # 4 -> 8
    expected = walk(12, 4, 8, False, 2, 1, 21)
    assert outputs(el, "kv-blocks")["kv-blocks"] == str(expected["nkv"])
    el.locator('[data-action="end"]').focus()
    pg.keyboard.press("Enter")
    check_final(el, expected)
    # End disabled itself: focus moved to Back, and Space steps back one block.
    assert el.locator('[data-action="prev"]').evaluate("b => b === document.activeElement")
    pg.keyboard.press("Space")
    assert el.get_attribute("data-step") == str(len(expected["steps"]) - 1)
    pg.keyboard.press("Tab")  # Back -> Next block
    pg.keyboard.press("Enter")
    check_final(el, expected)
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_12):
    pg = open_12()
    el = widget(pg, "flash-walk")
    cell = el.locator('.book-widget__fa-cell[data-kind="full"]').first

    def colours():
        return (
            el.evaluate("e => getComputedStyle(e).color"),
            cell.evaluate("e => getComputedStyle(e).backgroundColor"),
        )

    light = colours()
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark = colours()
    assert dark[0] != light[0] and dark[1] != light[1]
    assert el.locator("select").first.evaluate("e => getComputedStyle(e).color") == dark[0]
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_12, scheme):
    pg = open_12(width=390, scheme=scheme)
    el = set_walk(pg, 64, 2, 2, True, 31, 1, 9)  # the largest grid: 32 x 32 tiles
    el.locator('[data-action="end"]').click()
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation(open_12, scheme):
    from axe_playwright_python.sync_playwright import Axe

    pg = open_12(scheme=scheme)
    widget(pg, "flash-walk").locator('[data-action="step"]').click()
    violations = Axe().run(pg, context=".book-widget").response["violations"]
    serious = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
    assert not serious, serious


def test_typing_n_keeps_the_chosen_query_block(open_12):
    """Typing N = 16 key by key passes through N = 1 (one query block): the walk must come
    back to the block and row the reader chose, not stay on block 0."""
    pg = open_12()
    el = widget(pg, "flash-walk")
    assert outputs(el, "q-block", "row-index") == {"q-block": "2", "row-index": "9"}
    n = el.locator('[data-in="n"]')
    n.select_text()
    pg.keyboard.type("16")
    expected = walk(16, 4, 4, True, 2, 1, 21)
    assert outputs(el, "q-block", "row-index", "kv-blocks") == {
        "q-block": "2",
        "row-index": str(expected["i"]),
        "kv-blocks": str(expected["nkv"]),
    }
    assert el.locator('[data-in="q_block"]').input_value() == "2"
    assert el.locator('[data-in="row"]').input_value() == "1"
    # A smaller N clamps what is shown, and a larger one gives the choice back.
    n.fill("5")
    assert outputs(el, "q-block", "row-index") == {"q-block": "1", "row-index": "4"}
    n.fill("40")
    assert outputs(el, "q-block", "row-index") == {"q-block": "2", "row-index": "9"}
    assert not pg.errors, pg.errors


@pytest.mark.parametrize(("typed", "kept"), [("100", 64), ("0", 1), ("-3", 1)])
def test_n_out_of_range_is_clamped_on_leaving(open_12, typed, kept):
    pg = open_12()
    el = widget(pg, "flash-walk")
    n = el.locator('[data-in="n"]')
    n.fill(typed)
    n.press("Tab")
    assert n.input_value() == str(kept)
    qb = min(2, math.ceil(kept / 4) - 1)  # the chosen block and row, clamped to the grid
    row = min(1, min(4, kept - qb * 4) - 1)
    expected = walk(kept, 4, 4, True, qb, row, 21)
    assert outputs(el, "kv-blocks", "row-index") == {
        "kv-blocks": str(expected["nkv"]),
        "row-index": str(expected["i"]),
    }
    assert not pg.errors, pg.errors
