"""The site builds strictly, every page exists, and a bad placeholder or include fails it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.site.support import ROOT, figure_pages, html_for, mkdocs_build, nav_pages


def test_nav_has_every_page_of_the_book():
    pages = nav_pages()
    # 00 orientation, lessons 01..15 (and any later ones) once each, no number skipped, and
    # every other page under docs/
    numbers = sorted(int(Path(p).name[:2]) for p in pages if Path(p).name[:2].isdigit())
    assert numbers[-1] >= 15 and numbers == list(range(1, numbers[-1] + 1))
    docs = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.ipynb")]  # pages, labs
    assert sorted(str(p.relative_to(ROOT / "docs")) for p in docs) == sorted(pages)


def test_every_page_is_built(built_site):
    for md in nav_pages():
        assert (built_site / html_for(md)).is_file(), md


def test_plotly_is_served_from_the_site_only_where_a_figure_needs_it(built_site):
    vendor = built_site / "assets" / "vendor"
    js = vendor / "plotly-basic.min.js"
    assert js.is_file() and "plotly.js (basic - minified)" in js.read_text()[:200]
    assert "MIT License" in (vendor / "plotly-LICENSE.txt").read_text()
    figures = set(figure_pages())
    for md in nav_pages():
        loads = "plotly-basic.min.js" in (built_site / html_for(md)).read_text()
        assert loads == (md in figures), f"{md}: loads plotly {loads}, has a figure {md in figures}"


def test_placeholders_are_expanded(built_site):
    for md in nav_pages():
        page = (built_site / html_for(md)).read_text()
        assert not re.search(r"\{\{\s*(figure|value)\b", page), f"{md}: placeholder left"
    for md in figure_pages():
        assert 'class="book-figure"' in (built_site / html_for(md)).read_text(), md


def _broken_copy(tmp_path: Path, page_text: str) -> Path:
    """A copy of the book's config, hook and assets whose one page is ``page_text``, built
    from the repo root. The book's own pages are left out: the build fails on the broken
    page alone, and building 30 pages besides only cost time (a second test checks that
    this copy builds when its page is sound)."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.md", "*.ipynb"))
    (docs / "broken.md").write_text(page_text)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["docs_dir"] = str(docs)
    config["hooks"] = [str(ROOT / h) for h in config["hooks"]]
    config["watch"] = [str(ROOT / w) for w in config["watch"]]
    config["nav"] = [{"Broken": "broken.md"}]
    path = tmp_path / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    return path


@pytest.mark.parametrize(
    "text, message",
    [
        ("# Broken\n\n{{ figure no-such-figure }}\n", "unknown figure"),
        ("# Broken\n\n{{ value h100 no.such.value }}\n", "unknown value"),
        ("# Broken\n\n{{ value no-such-gpu device.provenance field=gpu }}\n", "matches no device"),
        ("# Broken\n\n{{ nonsense }}\n", "unknown placeholder"),
        (
            '# Broken\n\n```python\n--8<-- "kernels/vector_add.py:no-such-section"\n```\n',
            "no-such-section",
        ),
        ('# Broken\n\n```python\n--8<-- "kernels/no_such_file.py:kernel"\n```\n', "no_such_file"),
    ],
    ids=["figure", "value", "device", "syntax", "snippet-section", "snippet-file"],
)
def test_bad_placeholder_or_include_fails_the_build(tmp_path, text, message):
    result = mkdocs_build(_broken_copy(tmp_path, text), tmp_path / "out")
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_the_one_page_copy_builds_when_its_page_is_sound(tmp_path):
    """The control for the test above: its copy of the book fails for the placeholder or
    include it is given, not for being a copy (a figure, a value and an include that exist)."""
    text = (
        "# Sound\n\n{{ figure vector-add-bandwidth }}\n\n"
        "{{ value h100 device.provenance field=sm_count }}\n\n"
        '```python\n--8<-- "kernels/vector_add.py:kernel"\n```\n'
    )
    result = mkdocs_build(_broken_copy(tmp_path, text), tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
