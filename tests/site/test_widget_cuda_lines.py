"""Widget "cuda-lines" (lesson 02): the whole-row softmax kernel in Triton, line by line,
each line opening into the CUDA of kernels/cuda/softmax_rows.cu written for it.

Without a browser: every statement of the Triton kernel section has CUDA, every CUDA marker
names exactly one Triton statement, and no CUDA code sits outside a marked part. In the
browser: the widget's statements, line counts (per line, running and total) and CUDA text
are those of the two files, as parsed here independently (the Triton side with ``ast``);
the status line is shown as the file says it; keyboard, dark palette, 390 px, no console
error, no serious axe violation.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap

import pytest

from tests.site.support import ROOT, assert_fits_screen, outputs, widget

PAGE = "model/02-programs-and-tiles.md"
TRITON_FILE = ROOT / "kernels" / "softmax.py"
CUDA_FILE = ROOT / "kernels" / "cuda" / "softmax_rows.cu"
SECTION = "whole_rows"
MARKER = re.compile(r"^\s*// (triton|cuda-only): (.*)$")


# ---- the two files, parsed here ------------------------------------------------------------


def triton_section() -> list[str]:
    text = TRITON_FILE.read_text()
    start = re.search(rf"#\s*--8<--\s*\[start:{SECTION}\]\n", text)
    end = re.search(rf"#\s*--8<--\s*\[end:{SECTION}\]", text)
    return text[start.end() : end.start()].rstrip("\n").split("\n")


def is_code(line: str, comment: str) -> bool:
    return bool(line.strip()) and not line.strip().startswith(comment)


@functools.cache
def triton_statements() -> list[dict]:
    """The kernel's statements in order: the decorator, the signature, each body statement
    (ast line ranges), each with its first line (the key) and its lines of code."""
    lines = triton_section()
    tree = ast.parse("\n".join(lines))
    (fn,) = tree.body
    spans = [(d.lineno, d.end_lineno) for d in fn.decorator_list]
    spans.append((fn.lineno, fn.body[0].lineno - 1))
    spans += [(s.lineno, s.end_lineno) for s in fn.body]
    out = []
    for a, b in spans:
        span = lines[a - 1 : b]
        while not is_code(span[-1], "#"):  # the comments between signature and body
            span.pop()
        chunk = [ln for ln in span if is_code(ln, "#")]
        out.append({"key": chunk[0].strip(), "code": len(chunk), "lines": span})
    return out


@functools.cache
def cuda_parts() -> tuple[list[str], list[dict]]:
    """(the lines before the first marker, [{kind, target, lines, code}] per marked part)."""
    prelude, parts = [], []
    for line in CUDA_FILE.read_text().split("\n"):
        m = MARKER.match(line)
        if m:
            parts.append({"kind": m.group(1), "target": m.group(2).strip(), "lines": []})
        elif parts:
            parts[-1]["lines"].append(line)
        else:
            prelude.append(line)
    for p in parts:
        while p["lines"] and not p["lines"][-1].strip():
            p["lines"].pop()
        while p["lines"] and not p["lines"][0].strip():
            p["lines"].pop(0)
        p["code"] = sum(is_code(ln, "//") for ln in p["lines"])
    return prelude, parts


def parts_of(statement: dict) -> list[dict]:
    return [
        p
        for p in cuda_parts()[1]
        if p["kind"] == "triton" and statement["key"].startswith(p["target"])
    ]


def status_line() -> str:
    prelude, _ = cuda_parts()
    (line,) = [ln for ln in prelude if ln.startswith("// status:")]
    return line.removeprefix("// status:").strip()


# ---- the files alone -----------------------------------------------------------------------


def test_every_triton_statement_has_cuda():
    stmts = triton_statements()
    assert len(stmts) >= 8, [s["key"] for s in stmts]
    missing = [s["key"] for s in stmts if not parts_of(s)]
    assert not missing, f"Triton lines with no CUDA part in {CUDA_FILE.name}: {missing}"


def test_every_marker_names_one_triton_statement():
    keys = [s["key"] for s in triton_statements()]
    for p in cuda_parts()[1]:
        if p["kind"] == "triton":
            hits = [k for k in keys if k.startswith(p["target"])]
            assert len(hits) == 1, f"// triton: {p['target']} matches {hits}"
        assert p["code"] > 0 or p["kind"] == "triton", f"empty part {p['target']}"


def test_no_cuda_code_outside_a_marked_part():
    prelude, parts = cuda_parts()
    assert not [ln for ln in prelude if is_code(ln, "//")], "code before the first marker"
    assert sum(p["code"] for p in parts) == sum(
        is_code(ln, "//") for ln in CUDA_FILE.read_text().split("\n")
    )


# ---- in the browser ------------------------------------------------------------------------


def open_all(pg):
    el = widget(pg, "cuda-lines")
    el.locator('[data-action="expand"]').click()
    return el


def test_lines_and_counts_match_the_files(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "cuda-lines")
    stmts = triton_statements()
    toggles = el.locator(".book-widget__cl-toggle")
    assert toggles.count() == len(stmts)
    got = toggles.evaluate_all(
        """ts => ts.map(t => [t.querySelector('.book-widget__cl-code').textContent,
            +t.dataset.tritonLines, +t.dataset.cudaLines, +t.dataset.tritonTotal,
            +t.dataset.cudaTotal])"""
    )
    t_run = c_run = 0
    for (code, t, c, t_total, c_total), s in zip(got, stmts, strict=True):
        cuda = sum(p["code"] for p in parts_of(s))
        t_run, c_run = t_run + s["code"], c_run + cuda
        assert code == textwrap.dedent("\n".join(s["lines"])), code
        assert (t, c, t_total, c_total) == (s["code"], cuda, t_run, c_run), s["key"]
    only = sum(p["code"] for p in cuda_parts()[1] if p["kind"] == "cuda-only")
    assert outputs(el, "triton-lines", "statements", "cuda-lines", "cuda-only-lines") == {
        "triton-lines": str(t_run),
        "statements": str(len(stmts)),
        "cuda-lines": str(c_run),
        "cuda-only-lines": str(only),
    }
    assert c_run > t_run  # the point of the comparison; both counted from the files
    assert not pg.errors, pg.errors


def test_each_line_opens_into_its_cuda(open_page):
    pg = open_page(md=PAGE)
    el = open_all(pg)
    stmts = triton_statements()
    for i, s in enumerate(stmts):
        panel = el.locator(f'[data-cuda-for="{i}"]')
        assert panel.is_visible()
        shown = panel.locator("pre code").all_text_contents()
        expected = [textwrap.dedent("\n".join(p["lines"])) for p in parts_of(s)]
        assert shown == expected, s["key"]
    # The reductions are where CUDA grows: warp shuffles, shared memory and barriers.
    tl_max = next(i for i, s in enumerate(stmts) if s["key"].startswith("m = tl.max("))
    text = el.locator(f'[data-cuda-for="{tl_max}"]').inner_text()
    assert "__shfl_xor_sync" in text and "__shared__" in text and "__syncthreads" in text
    assert outputs(el, "open") == {"open": str(len(stmts))}
    assert not pg.errors, pg.errors


def test_status_is_the_files(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "cuda-lines")
    status = status_line()
    label = el.locator('[data-out="status"]')
    compiled = status.lower().startswith("compiled")
    assert label.get_attribute("data-compiled") == str(compiled).lower()
    if compiled:
        assert label.inner_text().startswith("Compiled and checked")
    else:
        assert label.inner_text().startswith("Unchecked")
        assert status in label.inner_text()
    assert not pg.errors, pg.errors


def test_keyboard(open_page):
    pg = open_page(md=PAGE)
    el = widget(pg, "cuda-lines")
    toggles = el.locator(".book-widget__cl-toggle")
    first = toggles.nth(0)
    first.focus()
    pg.keyboard.press("Enter")
    assert first.get_attribute("aria-expanded") == "true"
    assert el.locator('[data-cuda-for="0"]').is_visible()
    pg.keyboard.press("ArrowDown")
    assert toggles.nth(1).evaluate("t => t === document.activeElement")
    pg.keyboard.press("Space")
    assert toggles.nth(1).get_attribute("aria-expanded") == "true"
    assert outputs(el, "open") == {"open": "2"}
    pg.keyboard.press("End")
    last = toggles.nth(toggles.count() - 1)
    assert last.evaluate("t => t === document.activeElement")
    pg.keyboard.press("Home")
    pg.keyboard.press("Enter")  # closes the first again
    assert first.get_attribute("aria-expanded") == "false"
    assert not el.locator('[data-cuda-for="0"]').is_visible()
    el.locator('[data-action="expand"]').focus()
    pg.keyboard.press("Enter")
    assert outputs(el, "open") == {"open": str(toggles.count())}
    pg.keyboard.press("Tab")
    pg.keyboard.press("Enter")  # Close all
    assert outputs(el, "open") == {"open": "0"}
    assert not pg.errors, pg.errors


def test_follows_dark_palette(open_page):
    pg = open_page(md=PAGE)
    el = open_all(pg)
    code = el.locator(".book-widget__cl-cuda pre").first

    def colours():
        return (
            el.evaluate("e => getComputedStyle(e).color"),
            code.evaluate("e => getComputedStyle(e).backgroundColor"),
        )

    light = colours()
    pg.locator("label.md-header__button[for^='__palette']").first.click()
    pg.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    dark = colours()
    assert dark[0] != light[0] and dark[1] != light[1]
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fits_a_narrow_screen(open_page, scheme):
    pg = open_page(width=390, scheme=scheme, md=PAGE)
    el = open_all(pg)
    el.locator("details.book-widget__cl-files summary").click()
    el.scroll_into_view_if_needed()
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation(open_page, scheme):
    from axe_playwright_python.sync_playwright import Axe

    pg = open_page(scheme=scheme, md=PAGE)
    open_all(pg)
    ctx = '.book-widget[data-widget="cuda-lines"]'
    violations = Axe().run(pg, context=ctx).response["violations"]
    serious = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
    assert not serious, serious


# Lines of each element's text as laid out: one client rect per line box it occupies.
LINE_BOXES = """e => { const r = document.createRange(); r.selectNodeContents(e);
  const tops = new Set([...r.getClientRects()].map(b => Math.round(b.top)));
  return tops.size; }"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_code_is_never_wrapped_on_a_phone(open_page, scheme):
    """At 390 px a statement's code keeps its lines as in the file (issue 20: "tl.int64"
    broke into "tl.i / nt64" and continuation lines lost their indentation): as many line
    boxes as lines, the indentation kept, and the list scrolls sideways as one block with
    the running count in view."""
    pg = open_page(width=390, scheme=scheme, md=PAGE)
    el = open_all(pg)
    codes = el.locator(".book-widget__cl-code")
    assert codes.count() > 5
    for i in range(codes.count()):
        code = codes.nth(i)
        text = code.text_content()
        assert code.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"
        assert code.evaluate(LINE_BOXES) == len(text.split("\n")), text
    assert any("\n    " in codes.nth(i).text_content() for i in range(codes.count()))
    listing = el.locator("ol.book-widget__cl-list")
    assert listing.evaluate("e => e.scrollWidth > e.clientWidth"), "nothing to scroll at 390 px?"
    box = listing.bounding_box()
    listing.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    for count in el.locator('[data-out="running"]').all()[:5]:
        c = count.bounding_box()
        assert box["x"] <= c["x"] and c["x"] + c["width"] <= box["x"] + box["width"] + 1, c
    listing.evaluate("e => { e.scrollLeft = 0; }")
    first = el.locator('[data-out="running"]').first.bounding_box()
    assert first["x"] + first["width"] <= box["x"] + box["width"] + 1, "the count sticks in view"
    assert_fits_screen(pg, el)
    assert not pg.errors, pg.errors
