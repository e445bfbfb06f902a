"""The voice of the book's pages (issues 18 and 19), checked on the text a reader sees:
placeholders expanded, code left out. No torch, no browser, no site build.

1. **Project words.** A lesson speaks in the reader's terms ("reaches 94% of copy
   bandwidth"), never the project's: no "target", "met"/"missed", "verdict", "not
   measured", "not yet", "committed run", "once its run is in", "in progress", "does not
   yet capture". Checked on the rendered text, so a value that renders "not measured"
   counts. Pages: the orientation, Parts I-V, the reproduce appendix, the glossary and the
   labs' Markdown cells; the scoreboard and methodology appendices are exempt (they are
   about measurement itself).
2. **Typed comparisons.** A word whose truth depends on data (faster, slower, beats, wins,
   loses, ties, ahead, behind, more than, less than, spills ...) typed in the same sentence
   as a measured value (a placeholder that renders a ratio, a percent, a time or a rate)
   can contradict the number it stands beside once the data changes: such a sentence takes
   its word from the data (a value kind built on ``render.compare``). A word inside a
   placeholder is the data's own. Sentences whose direction does not depend on the data
   are listed in ``TYPED_ALLOWED``, each with its reason.
3. **Lanes.** A lane is a thread's position in its warp (0-31); the positions of a tile are
   its elements. Phrases that use "lane" for an element ("lanes of a tile", "4 lanes per
   thread", "holds 8 lanes", "masked-off lanes", "lane 100") are refused in pages, the
   glossary, the widgets' scripts and the diagrams.

Pages being rewritten are listed per check in a strict xfail list: a listed page that
becomes clean fails until it leaves the list (the rewriter of a page removes it), so each
list only shrinks.
"""

from __future__ import annotations

import functools
import html
import json
import re

import pytest
import yaml

from scripts.book import hook, render
from tests.site.support import DOCS, ROOT, nav_pages

DEVICES = render.load_devices()
REGISTRY = render.discover()
CONFIG = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

EXEMPT = {"appendix/scoreboard.md", "appendix/methodology.md"}
PAGES = [p for p in nav_pages() if p not in EXEMPT]
MARKDOWN_PAGES = [p for p in PAGES if p.endswith(".md")]

# ---- the text a reader sees ------------------------------------------------------------------

FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.S | re.M)
SNIPPET = re.compile(r"^[ \t]*-{1,2}8<-{1,2}.*$", re.M)
COMMENT = re.compile(r"<!--.*?-->", re.S)
CODE_SPAN = re.compile(r"`[^`\n]+`")
TAG = re.compile(r"<[^>]+>")
DIAGRAM = re.compile(r"^\{\{\s*diagram\b(.*?)\}\}[ \t]*$", re.S | re.M)
CONFIG_URL = re.compile(r"\{\{\s*config\s+repo_url\s*\}\}")


def prose(markdown: str) -> str:
    """Markdown without code: fenced blocks, snippet includes, comments and code spans go."""
    for pattern in (FENCE, SNIPPET, COMMENT):
        markdown = pattern.sub("", markdown)
    return CODE_SPAN.sub("", markdown)


def placeholder_text(words: list[str]) -> str:
    """What a reader sees of one placeholder: a value's text, a figure's title and
    alternative text, a table's cells."""
    if words[0] == "value":
        return render.value_text(words[1], render.parse_use(words[2:]), DEVICES, REGISTRY)
    if words[0] == "figure":
        fig = REGISTRY.figures[words[1]]
        return f"{fig.title}. {fig.alt}"
    if words[0] == "table":
        return render.table_markdown(words[1], DEVICES, REGISTRY)
    if words[0] == "choose":
        return render.choose_text(" ".join(words), DEVICES, REGISTRY)
    raise AssertionError(f"unknown placeholder {words}")


def expand(markdown: str) -> str:
    """The page's prose with every placeholder replaced by what it renders."""
    markdown = CONFIG_URL.sub(lambda m: hook.repo_link(CONFIG), markdown)
    markdown = DIAGRAM.sub(lambda m: m.group(1).partition("|")[2], markdown)
    return render.PLACEHOLDER.sub(lambda m: placeholder_text(m.group(1).split()), markdown)


def notebook_markdown(path) -> str:
    """The Markdown cells of a lab notebook, one after another."""
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@functools.cache
def source(page: str) -> str:
    path = DOCS / page
    return notebook_markdown(path) if page.endswith(".ipynb") else path.read_text()


@functools.cache
def rendered(page: str) -> str:
    """The words a reader sees on ``page``: placeholders expanded, code and tags left out."""
    # Twice: some values render a listing of their own (lesson 03's compiler output).
    return html.unescape(TAG.sub(" ", prose(expand(prose(source(page))))))


def sentences(text: str) -> list[str]:
    """Sentences, table rows and list items of some prose (one line of text each)."""
    text = re.sub(r"\b(e\.g|i\.e|vs|cf|etc)\.", r"\1", text)
    units = []
    for block in re.split(r"\n\s*\n", text):
        for part in re.split(r"\n(?=\s*(?:[-*+] |\d+\. |\||#))", block):
            units += re.split(r"(?<=[.!?:])\s+(?=[A-Z(\"“*_\[])", " ".join(part.split()))
    return [u for u in units if u.strip()]


def xfail_unless_rewritten(pages: list[str], pending: set[str], reason: str) -> list:
    """``pages`` as parameters; those in ``pending`` (not yet rewritten) strictly xfail."""
    mark = pytest.mark.xfail(strict=True, reason=reason)
    return [pytest.param(p, marks=mark) if p in pending else p for p in pages]


def find(patterns: list[re.Pattern], text: str, allowed: list[re.Pattern] = ()) -> list[str]:
    """Each sentence of ``text`` in which some pattern matches outside the allowed phrases."""
    hits = []
    for sentence in sentences(text):
        cleaned = sentence
        for ok in allowed:
            cleaned = ok.sub(" ", cleaned)
        if any(p.search(cleaned) for p in patterns):
            hits.append(sentence)
    return hits


# ---- 1. project words ------------------------------------------------------------------------

PROJECT_WORDS = [
    re.compile(rf"\b{w}\b", re.I)
    for w in (
        r"not (?:yet )?measured",
        r"not yet",
        r"targets?",
        r"met",
        r"missed",
        r"verdicts?",
        r"committed (?:run|data|sweep|measurement)s?",
        r"once (?:its|the) runs? (?:is|are) in",
        r"in progress",
        r"does not yet capture",
    )
]
PROJECT_ALLOWED = [
    re.compile(p, re.I)
    for p in (
        # "target" in its compiler sense: the GPU a kernel is compiled for.
        r"\bGPUTarget\b",
        r"\b(?:compilation|compile|compiler|backend|hardware) target\b",
        r"\btarget(?:-specific| architecture| GPU| device)\b",
        # "not yet" about the data a kernel waits for, not about the book's own progress.
        r"\bnot yet (?:received|arrived|written|read|loaded|stored|computed|seen|reduced)\b",
    )
]

# Pages whose rewrite is under way (issues 18, 19): the rewriter of a page removes it from
# each list below once it reads clean (a listed page that passes fails the suite).
PROJECT_PENDING: set[str] = set()


@pytest.mark.parametrize(
    "page", xfail_unless_rewritten(PAGES, PROJECT_PENDING, "voice: page not yet rewritten")
)
def test_no_project_words_in_what_a_reader_sees(page):
    hits = find(PROJECT_WORDS, rendered(page), PROJECT_ALLOWED)
    assert not hits, f"{page}: the project's words, not the reader's:\n- " + "\n- ".join(hits)


def test_the_project_word_patterns():
    said = [
        "Target: at least 95% of copy — met.",
        "The H200 column is not yet measured.",
        "The verdict table says missed.",
        "Once its run is in, the figure shows it.",
        "This section is in progress.",
        "torch.compile reaches not measured on this GPU.",
        "The committed run predates that field.",
    ]
    for sentence in said:
        assert find(PROJECT_WORDS, sentence, PROJECT_ALLOWED), sentence
    fine = [
        "Triton compiles for a GPUTarget such as cuda:90.",
        "The compiler target is the GPU in the machine.",
        "Meta tensors have no data; the kernel metadata is read once.",
        "A mask that is not all true.",
    ]
    for sentence in fine:
        assert not find(PROJECT_WORDS, sentence, PROJECT_ALLOWED), sentence


def test_the_pending_list_names_pages_that_exist():
    assert PROJECT_PENDING <= set(PAGES)
    assert TYPED_PENDING <= set(MARKDOWN_PAGES)
    assert LANE_PENDING <= set(PAGES) | set(WIDGETS) | set(DIAGRAMS)


# ---- 2. typed comparison words beside a measured value ---------------------------------------

COMPARISON = re.compile(
    r"\b(?:faster|slower|quicker|beats?|beating|wins?|winning|loses?|losing|ties|tied|"
    r"outperforms?|trails?|lags?|more than|less than|fewer than|higher than|lower than|"
    r"spills?|spilled|ahead of|(?:neither|nor) \w+ ahead|"
    # "behind"/"ahead" as a standing, not a place ("a kernel behind a wrapper"):
    r"(?:is|are|was|were|stays?|falls?|fell|remains?|well|far|slightly|just) (?:ahead|behind))\b",
    re.I,
)
# A rendered value that is a measurement: a ratio, a percent, a time or a rate.
MEASURED = re.compile(r"(?:×|%|\b(?:[µmn]?s|TB/s|GB/s|[TG]FLOP/s|MHz)\b)\s*$")
SLOT = "\u2063"  # where a value was: invisible, no letters for the word search to find

# Sentences whose comparison word does not depend on the data, by page, each with its
# reason; a phrase here is matched in the sentence's source Markdown.
TYPED_ALLOWED: dict[str, list[tuple[str, str]]] = {
    "building/10-softmax.md": [
        (
            "spills in float32",
            "'N spills' is a count the data gives (softmax.regs spilled=true), whatever it "
            "is, not a claim that the kernel spills",
        )
    ],
    "building/11-rmsnorm.md": [
        (
            "Loading ahead, the best shape was",
            "'N spilled' is a count the data gives (rmsnorm.sweep_field of=n_spills), "
            "whatever it is, not a claim that the kernel spills",
        )
    ],
}

TYPED_PENDING: set[str] = set()


def typed_comparisons(markdown: str, page: str = "", show=placeholder_text) -> list[str]:
    """Sentences of ``markdown`` (source) where a comparison word is typed beside a value
    placeholder that renders a measurement (``show(words)``: what a placeholder renders);
    the word inside a placeholder does not count."""
    values: list[str] = []

    def slot(match: re.Match) -> str:
        words = match.group(1).split()
        text = show(words) if words[0] == "value" else ""
        values.append(text)
        return f"{SLOT}{len(values) - 1}{SLOT}"

    text = render.PLACEHOLDER.sub(slot, prose(markdown))
    allowed = [phrase for phrase, _ in TYPED_ALLOWED.get(page, [])]
    hits = []
    for sentence in sentences(TAG.sub(" ", text)):
        used = [values[int(i)] for i in re.findall(rf"{SLOT}(\d+){SLOT}", sentence)]
        if not any(MEASURED.search(v) for v in used):
            continue
        words = re.sub(rf"{SLOT}\d+{SLOT}", " ", sentence)
        if COMPARISON.search(words) and not any(a in sentence for a in allowed):
            hits.append(re.sub(rf"{SLOT}(\d+){SLOT}", lambda m: values[int(m.group(1))], sentence))
    return hits


@pytest.mark.parametrize(
    "page",
    xfail_unless_rewritten(
        MARKDOWN_PAGES, TYPED_PENDING, "typed comparison beside a value: not yet rewritten"
    ),
)
def test_no_typed_comparison_beside_a_measured_value(page):
    hits = typed_comparisons(source(page), page)
    assert not hits, (
        f"{page}: a comparison typed beside a measured value; give the sentence its word "
        "from the data (a value kind built on render.compare):\n- " + "\n- ".join(hits)
    )


# A stand-in for the data in the rule's own tests: what each made-up kind renders.
SHOWN = {"x.ratio": "1.05×", "x.share": "97%", "x.time": "2.31 ms", "x.rate": "2.95 TB/s",
         "x.count": "4,096", "x.word": "faster than"}  # fmt: skip


@pytest.mark.parametrize(
    "sentence, flagged",
    [
        ("The kernel is faster than torch.compile: {{ value h100 x.ratio }}.", True),
        ("It reaches {{ value h100 x.share }}, more than torch.add.", True),
        ("It takes {{ value h100 x.time }} and beats the eager chain.", True),
        ("At {{ value h100 x.rate }} it is ahead of Liger.", True),
        ("| fp32 | {{ value h100 x.ratio }} | faster |", True),
        ("At {{ value h100 x.share }} of copy the kernel falls behind compile.", True),
        # "behind", "ahead" as places, not standings.
        ("It costs {{ value h100 x.time }} behind a wrapper that loads ahead.", False),
        # The word comes from the data, inside the placeholder: fine.
        ("The kernel is {{ value h100 x.word }} torch.compile ({{ value h100 x.ratio }}).", False),
        # No measured value in the sentence: a statement about a mechanism.
        ("A wider tile is faster when the row fits in registers.", False),
        # A count is not a measurement a typed comparison could contradict.
        ("It moves {{ value h100 x.count }} elements, more than the L2 holds.", False),
        # The word in another sentence than the value.
        ("Fusion is faster. The add reaches {{ value h100 x.share }}.", False),
    ],
)
def test_the_typed_comparison_rule(sentence, flagged):
    found = typed_comparisons(sentence, show=lambda words: SHOWN[words[2]])
    assert bool(found) is flagged, found


def test_every_allowed_sentence_is_still_on_its_page():
    for page, entries in TYPED_ALLOWED.items():
        for phrase, reason in entries:
            assert reason.strip(), (page, phrase)
            assert phrase in source(page), f"{page}: allowed phrase gone: {phrase!r}"


# ---- 3. lanes are threads' positions in a warp -----------------------------------------------

# (pattern, whether a number of at most 32 in the match makes it a warp's lanes)
LANE_MISUSE = [
    (re.compile(p, re.I), warp_ok)
    for p, warp_ok in (
        (
            r"\blanes? of (?:a|the|each|one|its|this) (?:tile|block|row|column|vector|program)\b",
            False,
        ),
        (r"\b(?:tile|block|row|program)'s lanes\b", False),
        (r"\blanes? per thread\b", False),
        (r"\bholds? (?:\S+ ){0,3}lanes\b", False),
        (r"\bmasked[- ]off lanes?\b", False),
        (r"\b(?:BLOCK|\d[\d,]*) lanes\b", True),
        (r"\blanes? \d[\d,]*", True),
    )
]


def lane_misuse(text: str) -> list[str]:
    """Sentences that use "lane" for a tile position. A lane count or index of at most 32
    ("32 lanes", "lane 0") is a warp's and passes."""
    hits = []
    for sentence in sentences(text):
        for pattern, warp_ok in LANE_MISUSE:
            for m in pattern.finditer(sentence):
                numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", m.group(0))]
                if warp_ok and numbers and all(n <= 32 for n in numbers):
                    continue
                hits.append(sentence)
    return hits


WIDGETS = sorted(
    str(p.relative_to(DOCS)) for p in (DOCS / "assets" / "js" / "widgets").glob("*.js")
)
DIAGRAMS = sorted(str(p.relative_to(DOCS)) for p in (DOCS / "assets" / "diagrams").glob("*.svg"))


def lane_text(item: str) -> str:
    path = DOCS / item
    if item.endswith(".js"):
        return path.read_text()
    if item.endswith(".svg"):
        return html.unescape(TAG.sub(" ", path.read_text()))
    return rendered(item)


LANE_PENDING: set[str] = set()


@pytest.mark.parametrize(
    "item",
    xfail_unless_rewritten(
        PAGES + WIDGETS + DIAGRAMS, LANE_PENDING, "'lane' for a tile position: not yet fixed"
    ),
)
def test_lane_means_a_threads_place_in_its_warp(item):
    hits = lane_misuse(lane_text(item))
    assert not hits, f"{item}: 'lane' used for a tile position (say element):\n- " + "\n- ".join(
        hits
    )


@pytest.mark.parametrize(
    "sentence, flagged",
    [
        ("The mask switches off the lanes of a tile past n.", True),
        ("Each thread holds 4 lanes.", True),
        ("A program of BLOCK lanes loads its tile.", True),
        ("Masked-off lanes read nothing.", True),
        ("Lane 100 of the tile is masked.", True),
        ("Each thread owns 8 lanes per thread in the layout.", True),
        ("A warp has 32 lanes; lane 0 holds the sum after the shuffle.", False),
        ("Thread i of the warp is lane i, and it holds 4 elements of the tile.", False),
        ("Masked-off elements are not read.", False),
    ],
)
def test_the_lane_rule(sentence, flagged):
    assert bool(lane_misuse(sentence)) is flagged, lane_misuse(sentence)
