"""Jargon before definition: the glossary's anchors exist, and on the pages of the
orientation and lessons 01-07, each term of a short list is, where it first appears on a
page, either linked to its glossary entry or defined in place.

"Defined in place" has three checkable forms:
- the first use is set in emphasis, ``*warp*`` or ``**warps**``: the book's convention for
  the word a sentence is defining;
- it is followed at once, or after one more word, by a parenthesis that explains it:
  ``every lane (one position of the tile)``, ``the L2 cache (the GPU's ...)``;
- it is an abbreviation opening the parenthesis after its long form:
  ``streaming multiprocessor (SM, ...)``.

Code (fenced or inline), HTML tags, placeholders, headings (and bold run-in labels of
list items, such as ``1. **Shared memory.**``), link targets and the titles of links to
other pages are not uses: a page title such as "02 · Programs and tiles" in a link is not
jargon the reader has to know yet.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

from tests.site.support import ROOT

DOCS = ROOT / "docs"
GLOSSARY = DOCS / "appendix" / "glossary.md"

# term -> (glossary anchor, pattern). Acronyms match case-sensitively, words in any case.
WORD = re.IGNORECASE
TERMS = {
    "lane": ("lane", re.compile(r"\blanes?\b", WORD)),
    "warp": ("warp", re.compile(r"\bwarps?\b", WORD)),
    "SM": ("sm", re.compile(r"\bSMs?\b")),
    "HBM": ("hbm", re.compile(r"\bHBM\b")),
    "L2": ("l2", re.compile(r"\bL2\b")),
    "CUDA graph": ("cuda-graph", re.compile(r"\bCUDA[ -]graphs?\b", WORD)),
    "occupancy": ("occupancy", re.compile(r"\boccupancy\b", WORD)),
    "tensor core": ("tensor-core", re.compile(r"\btensor[ -]cores?\b", WORD)),
    "CUDA core": ("cuda-core", re.compile(r"\bCUDA[ -]cores?\b", WORD)),
    "shared memory": ("shared-memory", re.compile(r"\bshared[ -]memory\b", WORD)),
    "program": ("program", re.compile(r"\bprograms?\b", WORD)),
    "tile": ("tile", re.compile(r"\btiles?\b", WORD)),
    "PTX": ("ptx", re.compile(r"\bPTX\b")),
}


def lesson_pages() -> list[Path]:
    """The orientation page and every lesson numbered 01 to 07, found in the tree."""
    lessons = [p for p in DOCS.rglob("*.md") if re.match(r"0[1-7]-", p.name)]
    return [DOCS / "index.md", *sorted(lessons, key=lambda p: p.name)]


def glossary_anchors() -> set[str]:
    """The ids MkDocs gives the glossary's headings (Python-Markdown's toc slugify)."""
    anchors = set()
    for line in GLOSSARY.read_text().splitlines():
        m = re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if m:
            anchors.add(slugify(m.group(1).replace("`", ""), "-"))
    return anchors


LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")


def glossary_target(target: str) -> str | None:
    """The anchor of a link into the glossary, or None for any other link."""
    m = re.search(r"(?:^|/)glossary\.md#([\w-]+)$", target)
    return m.group(1) if m else None


def _blank(text: str, start: int, end: int) -> str:
    """``text`` with [start, end) replaced by spaces (newlines kept): positions stay put."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def prose(markdown: str) -> tuple[str, list[tuple[int, int, str | None]]]:
    """The page with everything that is not running text blanked out, and its links as
    (start, end, glossary anchor or None) spans of their visible text."""
    text = markdown
    patterns = [
        (r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M),  # fenced code, widget listings included
        (r"`[^`\n]+`", 0),  # inline code
        (r"\{\{.*?\}\}", re.S),  # placeholders
        (r"<[^>\n]+>", 0),  # HTML tags (their text content stays)
        (r"^#{1,6} .*$", re.M),  # headings
        (r"^\s*(?:\d+\.|[-*])\s+\*\*[^*\n]+[.:]\*\*", re.M),  # run-in list labels: "1. **Tiles.**"
        (r"^(?:!!!|\?\?\?).*$", re.M),  # admonition openers and their titles
    ]
    for pattern, flags in patterns:
        for m in reversed(list(re.finditer(pattern, text, flags))):
            text = _blank(text, m.start(), m.end())
    links = []
    for m in reversed(list(LINK.finditer(text))):
        anchor = glossary_target(m.group(2))
        text = _blank(text, m.start(2) - 1, m.end())  # the target, with its "("
        if anchor is None:  # a link to another page: its title is not a use
            text = _blank(text, m.start(1), m.end(1))
        else:
            links.append((m.start(1), m.end(1), anchor))
    return text, links


def first_use_problem(markdown: str, term: str) -> str | None:
    """Why the first use of ``term`` on this page is neither linked nor defined, or None."""
    anchor, pattern = TERMS[term]
    text, links = prose(markdown)
    m = pattern.search(text)
    if m is None:
        return None
    for start, end, target in links:
        if start <= m.start() and m.end() <= end:
            if target == anchor:
                return None
            return f"links to glossary#{target}, not #{anchor}"
    before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
    if before in ("*", "_") and after in ("*", "_"):  # *warp*: the word being defined
        return None
    # "every lane (one position of the tile)", "the L2 cache (the GPU's last-level cache)"
    if re.match(r"(?: [\w-]+)? \(", text[m.end() : m.end() + 40]):
        return None
    if before == "(" and after in (",", ")", ":"):  # "streaming multiprocessor (SM, ...)"
        return None
    line_no = text.count("\n", 0, m.start()) + 1
    line = markdown.splitlines()[line_no - 1].strip()
    return f"line {line_no}: {line[:100]!r}"


def test_the_glossary_is_in_the_nav_and_defines_every_listed_term():
    assert "appendix/glossary.md" in (ROOT / "mkdocs.yml").read_text()
    anchors = glossary_anchors()
    missing = sorted(t for t, (anchor, _) in TERMS.items() if anchor not in anchors)
    assert not missing, f"no glossary entry (anchor) for {missing}"


@pytest.mark.parametrize("page", sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(DOCS)))
def test_every_glossary_link_lands_on_an_entry(page):
    anchors = glossary_anchors()
    for m in LINK.finditer(page.read_text()):
        if "glossary.md#" in m.group(2):
            anchor = glossary_target(m.group(2))
            assert anchor in anchors, (
                f"{page.relative_to(DOCS)} links to {m.group(2)!r}, which names no glossary entry"
            )


@pytest.mark.parametrize("page", lesson_pages(), ids=lambda p: str(p.relative_to(DOCS)))
@pytest.mark.parametrize("term", sorted(TERMS))
def test_jargon_is_defined_or_linked_at_first_use(page, term):
    problem = first_use_problem(page.read_text(), term)
    assert problem is None, (
        f"{page.relative_to(DOCS)}: the first use of {term!r} is neither linked to "
        f"glossary#{TERMS[term][0]} nor defined in place ({problem})"
    )


@pytest.mark.parametrize(
    "markdown, ok",
    [
        ("A *warp* is 32 threads. Each warp runs.", True),
        ("Each [warp](../appendix/glossary.md#warp) runs. A warp again.", True),
        ("Each warp runs. A *warp* is 32 threads.", False),
        ("Each [warp](../appendix/glossary.md#lane) runs.", False),
        ("Set `num_warps` and read [02 · warps](02.md). Then *warps* are defined.", True),
        ("```python\nwarp = 1\n```\nA *warp* is 32 threads.", True),
        ("## Warps\n\nA **warps** of 32.", True),
        ("A *warp-level* thing, then a warp.", False),
        ("Each warp (32 threads in lockstep) runs.", True),
        ("Each warp scheduler (one per quarter of an SM) runs.", True),
        ("A group of 32 threads (warp, in NVIDIA's terms) runs.", True),
        ("Each warp, as always, runs (in lockstep).", False),
        ("1. **Warps.** A *warp* is 32 threads.", True),
    ],
    ids=[
        "defined",
        "linked",
        "used-before-defined",
        "wrong-anchor",
        "code-and-page-titles-skipped",
        "fence-skipped",
        "heading-skipped",
        "emphasis-must-be-the-term",
        "parenthesis-after",
        "parenthesis-after-head-noun",
        "abbreviation-in-parenthesis",
        "no-explanation",
        "run-in-label-skipped",
    ],
)
def test_the_check_itself(markdown, ok):
    assert (first_use_problem(markdown, "warp") is None) == ok
