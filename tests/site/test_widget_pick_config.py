"""Widget "pick-config" (lesson 13): a matmul configuration and what it measured.

The widget's numbers are checked against the committed data read here in Python: the
TFLOP/s of the autotuner's pick recorded by matmul_grouped, its share of the device's
cuBLAS ceiling, the shared memory formula of kernels/matmul.py, the programs per SM of the
sweep's compiled configs, and "no measurement" for every configuration without a row and
for a device without matmul data (two made-up devices in a copy of the data). The same copy,
built once, has a synthetic lesson-13 sweep (matmul_configs, valid against its schema) in
place of one device's: the widget reads the sweep when it lands: every row, the ranking, a
failed configuration, the pick. Also: the widget's copy of the autotuner's list is
kernels/matmul.py's CONFIGS; keyboard, dark palette, 390 px, no console error, axe.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import json
import random
import re
import shutil

import jsonschema
import pytest

from tests.site.support import (
    DOCS,
    ROOT,
    assert_fits_screen,
    assert_follows_dark,
    mkdocs_build,
    outputs,
    schema_for,
    serve,
    widget,
)

# One worker runs this file: its extra build (made_up_site) is made once.
pytestmark = pytest.mark.xdist_group("widget-pick-config")

PAGE = "performance/13-autotuning.md"
DATA = ROOT / "figures" / "data"
KNOBS = ("block_m", "block_n", "block_k", "num_warps", "num_stages")


def kernel_configs() -> list[tuple[int, ...]]:
    """kernels/matmul.py's CONFIGS, read from the source (the site tests need no torch)."""
    tree = ast.parse((ROOT / "kernels" / "matmul.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["CONFIGS"]:
            return [tuple(ast.literal_eval(a) for a in call.args) for call in node.value.elts]
    raise AssertionError("no CONFIGS in kernels/matmul.py")


def widget_configs() -> list[tuple[int, ...]]:
    js = (DOCS / "assets" / "js" / "widgets" / "pick-config.js").read_text()
    block = re.search(r"const CONFIGS = \[(.*?)\n  \];", js, re.S).group(1)
    return [tuple(int(v) for v in m.split(",")) for m in re.findall(r"\[([\d, ]+)\]", block)]


def test_widget_list_is_the_autotuners():
    assert widget_configs() == kernel_configs()


def smem(cfg: dict, dtype: str) -> int:
    """kernels/matmul.py shared_memory_bytes: one a and one b tile per stage."""
    size = {"float16": 2, "bfloat16": 2, "float32": 4}[dtype]
    return cfg["num_stages"] * (cfg["block_m"] + cfg["block_n"]) * cfg["block_k"] * size


def load(slug: str, bench: str, data=DATA) -> dict | None:
    path = data / slug / f"{bench}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def cublas_rate(slug: str, dtype: str, data=DATA) -> float:
    mm = load(slug, "ceilings", data)["ceilings"]["matmul"][dtype]
    return mm["flops"] / mm["time_s"]["p50"]


def set_config(el, cfg: dict):
    for k in KNOBS:
        el.locator(f'[data-in="{k}"]').select_option(str(cfg[k]))


def value(el, name: str) -> float:
    return float(el.locator(f'[data-out="{name}"]').get_attribute("data-value"))


@pytest.fixture
def open_13(open_page):
    return functools.partial(open_page, md=PAGE)


# ---- the committed data -------------------------------------------------------------------

# Devices as they were before lesson 13's sweep ran, and a device with no matmul data at
# all: the committed data has neither any more (both GPUs have run everything), so these
# tests read a copy of it with the sweep removed from one device and a device added that
# has only its ceilings (older_site below), instead of skipping.
SOURCE = "h100-80gb-hbm3"  # the committed device the two made-up ones copy from
PICK_ONLY = "pick-only-gpu"  # lesson 09's pick (matmul_grouped) but no sweep
NO_MATMUL = "no-matmul-gpu"  # ceilings only
DEVICES_WITH_PICK = [PICK_ONLY]


def add_older_devices(data) -> None:
    """The two made-up devices, copied from SOURCE's files."""
    for slug, files in ((PICK_ONLY, ("ceilings", "matmul_grouped")), (NO_MATMUL, ("ceilings",))):
        (data / slug).mkdir()
        for name in files:
            shutil.copy(DATA / SOURCE / f"{name}.json", data / slug / f"{name}.json")


@pytest.fixture(scope="module")
def older_site(made_up_site):
    url, _, data = made_up_site
    return url, data


@pytest.fixture
def open_old(open_page, older_site):
    """Opens lesson 13 on older_site (open_page's options otherwise)."""
    url, _ = older_site
    return functools.partial(open_page, md=PAGE, url=url)


@pytest.mark.parametrize("slug", DEVICES_WITH_PICK)
def test_shows_the_recorded_pick(open_old, older_site, slug):
    _, data = older_site
    pg = open_old()
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(slug)
    (row,) = [r for r in load(slug, "matmul_grouped", data)["rows"] if r["group_m"] == 8]
    problem = f"{row['dtype']}/{row['m']}/{row['n']}/{row['k']}/8"
    assert el.locator('[data-in="problem"]').input_value() == problem
    cfg = {k: row[k] for k in KNOBS}
    set_config(el, cfg)
    rate = row["flops"] / row["time_s"]["p50"]
    assert value(el, "tflops") == pytest.approx(rate, rel=1e-12)
    assert outputs(el, "tflops")["tflops"] == f"{rate / 1e12:.0f} TFLOP/s"
    share = rate / cublas_rate(slug, row["dtype"], data)
    assert value(el, "of-cublas") == pytest.approx(share, rel=1e-12)
    assert outputs(el, "of-cublas")["of-cublas"].startswith(f"{100 * share:.0f}% of")
    in_list = tuple(cfg[k] for k in KNOBS) in kernel_configs()
    assert outputs(el, "in-list", "is-pick") == {
        "in-list": "yes" if in_list else "no",
        "is-pick": "this is it",
    }
    assert value(el, "smem") == smem(cfg, row["dtype"])
    assert el.get_attribute("data-measured") == "true"
    assert (
        "no data from lesson 13's configuration sweep"
        in el.locator('[data-out="source"]').inner_text()
    )
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("slug", DEVICES_WITH_PICK)
def test_every_other_config_is_not_measured(open_old, older_site, slug):
    _, data = older_site
    pg = open_old()
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(slug)
    (row,) = [r for r in load(slug, "matmul_grouped", data)["rows"] if r["group_m"] == 8]
    picked = tuple(row[k] for k in KNOBS)
    for tup in kernel_configs():
        cfg = dict(zip(KNOBS, tup, strict=True))
        set_config(el, cfg)
        got = outputs(el, "tflops", "in-list", "is-pick")
        if tup == picked:
            assert got["tflops"].endswith("TFLOP/s") and got["is-pick"] == "this is it"
        else:
            assert got == {"tflops": "no measurement", "in-list": "yes", "is-pick": "not this one"}
            assert outputs(el, "per-sm") == {"per-sm": "no measurement"}
            assert el.get_attribute("data-measured") == "false"
        assert value(el, "smem") == smem(cfg, row["dtype"])
    assert outputs(el, "measured-count", "list-count") == {
        "measured-count": str(int(picked in kernel_configs())),
        "list-count": str(len(kernel_configs())),
    }
    assert not pg.errors, pg.errors


def test_a_device_without_matmul_data(open_old):
    pg = open_old()
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(NO_MATMUL)
    assert el.locator('[data-in="problem"]').is_disabled()
    assert outputs(el, "tflops", "pick", "is-pick") == {
        "tflops": "no measurement",
        "pick": "not recorded",
        "is-pick": "unknown",
    }
    assert el.locator('[data-action="pick"]').is_disabled()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("slug", DEVICES_WITH_PICK)
def test_keyboard(open_old, slug):
    pg = open_old()
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(slug)
    # The knobs keep their values across devices; start from this device's pick, move
    # BLOCK_N off it with the arrow keys, then come back with the button.
    el.locator('[data-action="pick"]').click()
    before = outputs(el, "tflops", "is-pick")
    assert before["is-pick"] == "this is it" and before["tflops"].endswith("TFLOP/s"), before
    before = before["tflops"]
    el.locator('[data-in="block_n"]').focus()
    pg.keyboard.press("ArrowUp")
    assert outputs(el, "tflops", "is-pick") == {
        "tflops": "no measurement",
        "is-pick": "not this one",
    }
    el.locator('[data-action="pick"]').focus()
    pg.keyboard.press("Enter")
    assert outputs(el, "tflops", "is-pick") == {"tflops": before, "is-pick": "this is it"}
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_13):
    pg = open_13()
    el = widget(pg, "pick-config")
    assert_follows_dark(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_13, scheme):
    pg = open_13(width=390, scheme=scheme)
    el = widget(pg, "pick-config")
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation(open_13, scheme):
    from axe_playwright_python.sync_playwright import Axe

    pg = open_13(scheme=scheme)
    ctx = '.book-widget[data-widget="pick-config"]'
    violations = Axe().run(pg, context=ctx).response["violations"]
    serious = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
    assert not serious, serious


# ---- when lesson 13's sweep lands: a synthetic matmul_configs in a copy of the data -----

SWEEP_SLUG = "h100-80gb-hbm3"
EXTRA = (128, 128, 32, 4, 2)  # a configuration outside the autotuner's list
FAILS = (128, 256, 64, 8, 4)  # recorded as failed


def sweep_doc() -> dict:
    """A matmul_configs document: the envelope of a committed file, rows made up (seeded)."""
    base = load(SWEEP_SLUG, "matmul_grouped")
    rng = random.Random(13)
    rows = []
    for tup in [*kernel_configs(), EXTRA]:
        m = n = k = 4096
        row = {"impl": "triton", "dtype": "float16", "m": m, "n": n, "k": k, "group_m": 8}
        row.update(dict(zip(KNOBS, tup, strict=True)))
        row.update({"flops": 2 * m * n * k, "bytes": 2 * 3 * m * n, "autotuner_pick": False})
        if tup == FAILS:
            row["failure"] = "out of resources: shared memory"
        else:
            t = rng.uniform(2e-4, 6e-4)
            row["time_s"] = {"p20": t * 0.99, "p50": t, "p80": t * 1.02, "reps": 100}
        rows.append(row)
    timed = [r for r in rows if "time_s" in r]
    min(timed, key=lambda r: r["time_s"]["p50"])["autotuner_pick"] = True
    doc = {k: copy.deepcopy(base[k]) for k in ("schema_version", "provenance", "ceilings")}
    doc.update({"benchmark": "matmul_configs", "description": "synthetic sweep for a test"})
    doc["rows"] = rows
    jsonschema.Draft202012Validator(schema_for("matmul_configs")).validate(doc)
    return doc


@contextlib.contextmanager
def served_site(tmp_path_factory, data):
    """A strict build of the site from the data folder ``data``, served; yields its URL."""
    dest = tmp_path_factory.mktemp("site")
    result = mkdocs_build(ROOT / "mkdocs.yml", dest, data=data)
    assert result.returncode == 0, result.stderr
    with serve(dest) as url:
        yield url


@pytest.fixture(scope="module")
def made_up_site(tmp_path_factory):
    """One strict build from a copy of the data with both changes: the two made-up devices
    (older_site's tests choose them) and SWEEP_SLUG's sweep replaced by sweep_doc()
    (sweep_site's test chooses that device). Neither set of tests reads the other's
    device, and each was a build of its own before: one build serves both."""
    data = tmp_path_factory.mktemp("made-up-data")
    shutil.copytree(DATA, data, dirs_exist_ok=True)
    add_older_devices(data)
    doc = sweep_doc()
    (data / SWEEP_SLUG / "matmul_configs.json").write_text(json.dumps(doc))
    with served_site(tmp_path_factory, data) as url:
        yield url, doc, data


@pytest.fixture(scope="module")
def sweep_site(made_up_site):
    return made_up_site


def test_reads_the_sweep_when_it_lands(open_page, sweep_site):
    url, doc, data = sweep_site
    pg = open_page(md=PAGE, url=url)
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(SWEEP_SLUG)
    el.locator('[data-in="problem"]').select_option("float16/4096/4096/4096/8")
    timed = [r for r in doc["rows"] if "time_s" in r]
    # The table: every row of the sweep, fastest first, the failed one last.
    order = el.locator('[data-out="measured-table"] tbody tr').evaluate_all(
        "rs => rs.map(r => r.dataset.config)"
    )
    ranked = sorted(timed, key=lambda r: r["time_s"]["p50"])
    expected = ["/".join(str(r[k]) for k in KNOBS) for r in ranked]
    assert order == [*expected, "/".join(map(str, FAILS))]
    # Each timed row's rate, and whether it is the pick.
    for r in timed:
        set_config(el, r)
        rate = r["flops"] / r["time_s"]["p50"]
        assert value(el, "tflops") == pytest.approx(rate, rel=1e-12)
        share = rate / cublas_rate(SWEEP_SLUG, "float16", data)
        assert value(el, "of-cublas") == pytest.approx(share, rel=1e-12)
        is_pick = "this is it" if r["autotuner_pick"] else "not this one"
        assert outputs(el, "is-pick")["is-pick"] == is_pick
    set_config(el, dict(zip(KNOBS, FAILS, strict=True)))
    assert outputs(el, "tflops")["tflops"] == "did not run"
    assert "out of resources" in outputs(el, "of-cublas")["of-cublas"]
    set_config(el, dict(zip(KNOBS, EXTRA, strict=True)))  # offered: it is in the data
    assert outputs(el, "in-list")["in-list"] == "no"
    assert outputs(el, "tflops")["tflops"].endswith("TFLOP/s")
    assert outputs(el, "measured-count") == {"measured-count": str(len(kernel_configs()) - 1)}
    assert "configuration sweep" in el.locator('[data-out="source"]').inner_text()
    assert not pg.errors, pg.errors


# ---- the committed sweep ------------------------------------------------------------------

DEVICES_WITH_SWEEP = [p.parent.name for p in sorted(DATA.glob("*/matmul_configs.json"))]


def per_sm(row: dict, capability: str) -> int:
    """Programs of a compiled config one SM holds (lesson 13): registers (65,536, given to a
    warp in blocks of 256), shared memory (228 KiB, 1 KiB more per program), threads (2,048)
    and programs (32) per SM on compute capability 9.0, the only one the data has."""
    assert capability == "9.0", capability
    per_warp = -(-row["n_regs"] * 32 // 256) * 256
    by_registers = 65536 // per_warp // row["num_warps"]
    by_shared = 233472 // (row["shared_bytes"] + 1024)
    return min(by_registers, by_shared, 2048 // (32 * row["num_warps"]), 32)


@pytest.mark.parametrize("slug", DEVICES_WITH_SWEEP)
def test_opens_on_the_committed_sweep(open_13, slug):
    """A device with lesson 13's sweep opens on the swept problem; every timed config shows
    its measured rate and the programs per SM its compiled kernel allows, the autotuner's
    pick is marked, and the note names the sweep."""
    pg = open_13()
    el = widget(pg, "pick-config")
    el.locator('[data-in="device"]').select_option(slug)
    rows = load(slug, "matmul_configs")["rows"]
    first = rows[0]
    problem = f"{first['dtype']}/{first['m']}/{first['n']}/{first['k']}/{first['group_m']}"
    assert el.locator('[data-in="problem"]').input_value() == problem
    timed = [r for r in rows if "time_s" in r]
    assert timed, "the committed sweep has no timed config"
    capability = load(slug, "matmul_configs")["provenance"]["compute_capability"]
    for r in timed[:: max(1, len(timed) // 6)]:  # a spread of them: each is a page update
        set_config(el, r)
        rate = r["flops"] / r["time_s"]["p50"]
        assert value(el, "tflops") == pytest.approx(rate, rel=1e-12)
        assert value(el, "per-sm") == per_sm(r, capability)
        is_pick = "this is it" if r["autotuner_pick"] else "not this one"
        assert outputs(el, "is-pick")["is-pick"] == is_pick
    # Lesson 13's stage pair: the fourth stage of 128 x 128 x 64 on 4 warps halves the
    # programs per SM (its shared memory passes half the SM's).
    pair = [r for r in timed if (r["block_m"], r["block_n"], r["block_k"], r["num_warps"])
            == (128, 128, 64, 4) and r["num_stages"] in (3, 4)]  # fmt: skip
    for r in pair:
        set_config(el, r)
        assert value(el, "per-sm") == per_sm(r, capability)
    assert sorted(per_sm(r, capability) for r in pair) == [1, 2]
    (pick,) = [r for r in rows if r["autotuner_pick"]]
    set_config(el, pick)
    assert outputs(el, "is-pick")["is-pick"] == "this is it"
    assert "configuration sweep" in el.locator('[data-out="source"]').inner_text()
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_word_is_split_on_a_phone(open_13, scheme):
    """At 390 px every header and cell of the table of measured configurations stays on
    one line (issue 20: "warp s", "TFLOP /s", "128×128×12 8"), and the table fits."""
    pg = open_13(width=390, scheme=scheme)
    el = widget(pg, "pick-config")
    table = el.locator('[data-out="measured-table"]')
    table.scroll_into_view_if_needed()
    split = table.locator("th, td").evaluate_all(
        "cs => cs.filter(c => { const r = document.createRange(); r.selectNodeContents(c);"
        " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1; })"
        ".map(c => c.textContent)"
    )
    assert not split, split
    scroller = el.locator(".book-widget__scroll")
    assert scroller.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the table scrolls"
    assert not pg.errors, pg.errors
