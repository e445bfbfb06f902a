"""Prose numbers by kind and parameter (scripts/book/render.py): every registered kind is
used by some page or widget, every use renders, and a wrong placeholder fails the build
with the page, the kind and the parameter named. No torch, no browser."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from scripts.book import hook as book
from scripts.book import render
from tests.site.support import value_placeholders, widget_values

DEVICES = render.load_devices()
REGISTRY = render.discover()
PLACEHOLDERS = value_placeholders()
WIDGET_WORDS = widget_values()


@functools.cache
def used_kinds() -> dict[str, list[str]]:
    """kind -> the pages that use it, in a placeholder or a widget's data-values."""
    found: dict[str, list[str]] = {}
    for page, _, use in PLACEHOLDERS:
        found.setdefault(use.kind, []).append(page)
    for page, word in WIDGET_WORDS:
        found.setdefault(render.parse_widget_word(word).kind, []).append(page)
    return found


def test_pages_use_values():
    assert len(PLACEHOLDERS) > 500 and WIDGET_WORDS


# Figure modules still written as one function per number, each with values no page uses:
# the next conversions (one kind per meaning, chosen by parameters) remove them. Strict:
# once a module has no unused value its test passes, which fails here until it leaves
# this list, so the list can only shrink.
NOT_YET_CONVERTED: set[str] = set()
MODULES = sorted({kind.split(".")[0] for kind in REGISTRY.values})


@pytest.mark.parametrize(
    "module",
    [
        pytest.param(
            m,
            marks=pytest.mark.xfail(strict=True, reason="values by parameter: not yet converted"),
        )
        if m in NOT_YET_CONVERTED
        else m
        for m in MODULES
    ],
)
def test_every_registered_value_is_used_by_a_page_or_a_widget(module):
    """A value no page and no widget shows is dead code: delete it (or use it)."""
    unused = [k for k in REGISTRY.values if k.split(".")[0] == module and k not in used_kinds()]
    assert not unused, f"figures/{module}.py registers values no page or widget uses: {unused}"


def test_the_list_of_modules_not_yet_converted_names_modules_that_exist():
    assert NOT_YET_CONVERTED <= set(MODULES)


def distinct_uses() -> list[render.Use]:
    return sorted({use for _, _, use in PLACEHOLDERS}, key=str)


@pytest.mark.parametrize("use", distinct_uses(), ids=str)
def test_every_placeholder_renders_wherever_its_data_exists(use):
    """Each value as a page writes it renders on every device that has the benchmarks it
    reads (a device that has not run one yet is skipped), on the device the page names,
    and never as 'nan'."""
    rendered = []
    for slug in DEVICES:
        try:
            text = render.value_text(slug, use, DEVICES, REGISTRY)
        except render.RenderError as exc:
            if "data for this device" in str(exc):  # that device never ran the benchmark
                continue
            raise
        assert text and "nan" not in text.lower(), (slug, str(use), text)
        rendered.append(slug)
    assert rendered, f"{use} renders on no device"
    for page, device, other in PLACEHOLDERS:
        if other == use:
            assert render.resolve_device(device, DEVICES) in rendered, (page, device, str(use))


@pytest.mark.parametrize("page, word", WIDGET_WORDS, ids=[w for _, w in WIDGET_WORDS])
def test_every_widget_value_is_measured_somewhere(page, word):
    """A widget's value binds (kind and parameters known) and computes on some device: a
    parameter typo would otherwise leave it absent everywhere, silently."""
    val, args, _ = render.bind(render.parse_widget_word(word), REGISTRY)
    found = []
    for docs in DEVICES.values():
        try:
            found.append(val.compute(docs, **args))
        except (KeyError, IndexError, ValueError, TypeError, ZeroDivisionError):
            continue
    assert any(v is not None for v in found), f"{page}: {word} is measured on no device"


# ---- parameters: parsed, converted, refused by name ----------------------------------------


def test_the_placeholder_forms():
    text = "a {{ value h100 vector_add.bandwidth impl=torch }} b {{ value h100 ceilings.copy }}"
    out = render.expand(text, DEVICES, REGISTRY)
    bw = render.bandwidth(
        max(render.rows(DEVICES[render.resolve_device("h100", DEVICES)], "vector_add",
                        impl="torch", dtype="float32"), key=lambda r: r["n"])
    )  # fmt: skip
    assert out.startswith(f"a {render.tbps(bw)} b ") and out.endswith("TB/s")
    # Spread over lines, as a long placeholder in a paragraph may be.
    multi = "{{ value h100\n  vector_add.bandwidth\n  impl=torch }}"
    assert render.expand(multi, DEVICES, REGISTRY) == render.tbps(bw)


def test_as_picks_a_format_and_defaults_apply():
    slug = render.resolve_device("h100", DEVICES)
    t = render.compute(render.parse_use(["vector_add.empty_time", "block=4", "warps=4"]),
                       DEVICES[slug], REGISTRY)  # fmt: skip
    assert render.value_text("h100", "vector_add.empty_time block=4 warps=4", DEVICES) == (
        render.millis(1)(t)
    )
    assert render.value_text("h100", "vector_add.empty_time block=4 warps=4 as=us2", DEVICES) == (
        f"{t * 1e6:.2f} µs"
    )
    # dtype left out: its default, float32
    a = render.value_text("h100", "vector_add.bandwidth impl=triton", DEVICES)
    assert a == render.value_text("h100", "vector_add.bandwidth impl=triton dtype=float32", DEVICES)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("vector_add.bandwidth", r"vector_add.bandwidth needs impl=<triton\|torch>"),
        ("vector_add.bandwidth impl=triton colour=red", r"has no parameter 'colour'"),
        ("vector_add.bandwidth impl=cuda", r"impl=cuda is not one of triton\|torch"),
        ("vector_add.regs block=many warps=1", r"block=many is not a whole number"),
        ("vector_add.regs block=4 warps=1 spilled=yes", r"spilled=yes is not true or false"),
        ("vector_add.reaches_copy fraction=half", r"fraction=half is not a number"),
        ("vector_add.bandwidth impl=triton impl=torch", r"parameter 'impl' given twice"),
        ("vector_add.bandwidth impl", r"'impl' is not NAME=VALUE"),
        ("vector_add.bandwidth impl=triton as=furlongs", r"as=furlongs is not one of"),
        ("vector_add.nope", r"unknown value 'vector_add.nope'"),
    ],
)
def test_a_wrong_placeholder_is_refused_by_name(spec, message):
    with pytest.raises(render.RenderError, match=message):
        render.expand("{{ value h100 " + spec + " }}", DEVICES, REGISTRY)


def test_a_missing_row_names_the_benchmark_and_the_match():
    with pytest.raises(render.RenderError, match=r"vector_add_block_sweep has no row block=3 "):
        render.value_text("h100", "vector_add.regs block=3 warps=1", DEVICES, REGISTRY)
    docs = {"b": {"rows": [{"x": 1}, {"x": 1}]}}
    with pytest.raises(render.RenderError, match="b has 2 rows x=1"):
        render.one(docs, "b", x=1)
    assert render.maybe_one({}, "b", x=1) is None
    with pytest.raises(render.RenderError, match="b has no row x=2"):
        render.maybe_one(docs, "b", x=2)  # the run has the benchmark: a missing row is an error
    assert render.maybe_one(docs, "b", x=2, absent_ok=True) is None  # ... unless expected


def test_the_build_names_the_page():
    page = SimpleNamespace(file=SimpleNamespace(src_uri="part/07-x.md"))
    book.on_config({})
    with pytest.raises(PluginError, match=r"part/07-x.md: .*vector_add.bandwidth needs impl"):
        book.on_page_markdown("{{ value h100 vector_add.bandwidth }}", page, {}, None)


def test_widget_spelling():
    use = render.parse_widget_word("vector_add.bandwidth:impl=torch,dtype=float16")
    assert use == render.Use("vector_add.bandwidth", (("impl", "torch"), ("dtype", "float16")))
    assert render.parse_widget_word("ceilings.copy") == render.Use("ceilings.copy")
    with pytest.raises(render.RenderError, match="no as="):
        render.parse_widget_word("ceilings.copy:as=tbps")


BAD_KIND = '''
from scripts.book.render import Value
def n(docs, size: list):
    """A number."""
    return 3
VALUES = {"toy.n": Value(n)}
'''


def test_a_kind_with_a_parameter_of_no_known_type_is_refused(tmp_path, monkeypatch):
    package = f"badkind_{tmp_path.name}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "toy.py").write_text(BAD_KIND)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(render.RenderError, match=r"toy.n.*parameter 'size' is annotated"):
        render.discover(package)


# ---- choose: the page's phrasings, picked by the data ------------------------------------


def test_choose_picks_the_first_phrasing_whose_condition_holds():
    bw = "vector_add.bandwidth impl=triton"
    text = "{{ choose h100 | %s > 1e30 => huge | %s > 1e9 => fast\n  enough | else => slow }}"
    assert render.expand(text % (bw, bw), DEVICES, REGISTRY) == "fast enough"
    # another value as the operand; a quoted phrase against a kind that returns words
    mine = "vector_add.bandwidth impl=triton dtype=float32"
    assert render.expand(f"{{{{ choose h100 | {bw} == {mine} => same }}}}", DEVICES) == "same"
    said = render.value_text("h100", "vector_add.compare", DEVICES, REGISTRY)
    words = f'{{{{ choose h100 | vector_add.compare == "{said}" => yes | else => no }}}}'
    assert render.expand(words, DEVICES, REGISTRY) == "yes"
    # the kinds a choice reads count as used, on its device
    uses = render.placeholders(text % (bw, bw))
    assert uses == [("h100", render.parse_use(bw.split()))] * 2


@pytest.mark.parametrize(
    "body, message",
    [
        ("| vector_add.bandwidth impl=triton < 0 => never", r"no condition holds"),
        ("| vector_add.bandwidth impl=cuda < 0 => x", r"impl=cuda is not one of"),
        ("| vector_add.bandwidth impl=triton => x", r"is not 'KIND \[NAME=VALUE ...\] OP X'"),
        ("| vector_add.bandwidth impl=triton < 0 never", r"is not 'CONDITION => TEXT'"),
        ("| < 0 => x", r"is not 'KIND"),
        ("| vector_add.nope < 1 => x", r"unknown value 'vector_add.nope'"),
        ("| vector_add.bandwidth impl=triton < fast => x", r"unknown value 'fast'"),
    ],
)
def test_a_wrong_choice_is_refused_by_name(body, message):
    with pytest.raises(render.RenderError, match=message):
        render.expand("{{ choose h100 " + body + " }}", DEVICES, REGISTRY)


def test_a_choice_on_a_value_not_measured_names_it():
    """A value that gives None fails the build by name, unless the page asks ``== none``."""
    lacking = {"x": {k: v for k, v in DEVICES[render.resolve_device("h100", DEVICES)].items()
                     if k != "vector_add_streams"}}  # fmt: skip
    use = "vector_add.stream_of_copy stream=read"
    with pytest.raises(render.RenderError, match=f"value {use} is not measured on 'x'"):
        render.choose_text(f"choose x | {use} > 0.5 => fast | else => slow", lacking, REGISTRY)
    body = f"choose x | {use} == none => not run | else => run"
    assert render.choose_text(body, lacking, REGISTRY) == "not run"


def test_a_chosen_phrasing_may_hold_values():
    """A phrasing's ``value`` placeholders are filled in like any other, and count as
    uses of their kinds; the rest of the page's placeholders are found as before."""
    bw = "vector_add.bandwidth impl=triton"
    text = (
        "a {{ choose h100 | %s > 0 => at {{ value h100 %s }} | else => not }} b "
        "{{ value h100 ceilings.copy }}" % (bw, bw)
    )
    shown = render.value_text("h100", bw, DEVICES, REGISTRY)
    copy = render.value_text("h100", "ceilings.copy", DEVICES, REGISTRY)
    assert render.expand(text, DEVICES, REGISTRY) == f"a at {shown} b {copy}"
    kinds = [use.kind for _, use in render.placeholders(text)]
    assert kinds == ["vector_add.bandwidth", "vector_add.bandwidth", "ceilings.copy"]
