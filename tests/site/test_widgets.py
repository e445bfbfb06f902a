"""The widgets' shared mount (docs/assets/js/widgets.js), without a browser: the build adds
widget scripts only to pages that place a widget, a widget with no module fails the build,
and every widget module has its own test file.

Each widget NAME (docs/assets/js/widgets/NAME.js) is tested in a real headless Chromium in
tests/site/test_widget_NAME.py (dashes as underscores): it mounts, answers input with the
right numbers, works from the keyboard, logs no console error, follows the dark palette,
and fits a 390 px wide screen.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
from mkdocs.exceptions import PluginError

from tests.site.support import DOCS, ROOT, html_for, nav_pages

PAGE = "model/02-programs-and-tiles.md"
WIDGETS = DOCS / "assets" / "js" / "widgets"


WIDGET_TAG = re.compile(r'class="book-widget"[^>]*data-widget="([a-z0-9-]+)"')
MODULE_TAG = re.compile(r'<script defer src="[^"]*assets/js/widgets/([a-z0-9-]+)\.js"')


def test_widget_scripts_only_on_pages_with_widgets(built_site):
    with_widgets = 0
    for md in nav_pages():
        html = (built_site / html_for(md)).read_text()
        names = set(WIDGET_TAG.findall(html))
        scripts = set(MODULE_TAG.findall(html))
        if not names:
            assert "widgets.js" not in html and not scripts, f"{md} loads widget code"
            continue
        with_widgets += 1
        assert html.count("assets/js/widgets.js") == 1, md
        assert scripts == names, f"{md}: loads {scripts}, places {names}"
        assert 'src="/' not in html and "://" not in "".join(scripts)
    assert with_widgets >= 1
    html = (built_site / html_for(PAGE)).read_text()
    tags = re.findall(r'<script defer src="([^"]*widgets[^"]*)"', html)
    assert tags == [
        "../../assets/js/widgets.js",
        "../../assets/js/widgets/lifecycle.js",
        "../../assets/js/widgets/lanes.js",
        "../../assets/js/widgets/cuda-lines.js",
        "../../assets/js/widgets/predict.js",  # exercise 02.3, at the page's end
    ]


def test_a_widget_without_a_module_fails_the_build():
    from scripts.book import hook as book

    page = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"), url="x/")
    config = {"docs_dir": str(DOCS)}
    ok = '<div class="book-widget" data-widget="lanes"></div>'
    assert book.widget_scripts(ok, page, config)[-1] == "assets/js/widgets/lanes.js"
    assert book.widget_scripts("<p>no widget</p>", page, config) == []
    with pytest.raises(PluginError, match="no-such-widget"):
        missing = '<div class="book-widget" data-widget="no-such-widget"></div>'
        book.widget_scripts(missing, page, config)
    with pytest.raises(PluginError, match="data-widget"):
        book.widget_scripts('<div class="book-widget"></div>', page, config)


def test_every_widget_has_its_own_test_file():
    names = sorted(p.stem for p in WIDGETS.glob("*.js"))
    assert names, "no widget modules"
    missing = [
        f"tests/site/test_widget_{name.replace('-', '_')}.py"
        for name in names
        if not (ROOT / "tests" / "site" / f"test_widget_{name.replace('-', '_')}.py").is_file()
    ]
    assert not missing, f"widgets without their own test file: {missing}"


def test_widget_tests_serve_every_figure_script_empty(built_site):
    """The widget tests' pages get the figure scripts empty (tests/site/conftest.py): the
    pattern they are caught by matches every figure script a built page with a widget and
    a figure loads, and nothing else it loads."""
    from tests.site.conftest import FIGURE_SCRIPT_URL

    both = 0
    for md in nav_pages():
        html = (built_site / html_for(md)).read_text()
        if "book-widget" not in html or 'class="book-figure"' not in html:
            continue
        both += 1
        srcs = re.findall(r'<script[^>]*\bsrc="([^"]*)"', html)
        page_url = "http://127.0.0.1:8000/" + html_for(md).removesuffix("index.html")
        caught = [s for s in srcs if FIGURE_SCRIPT_URL.search(urljoin(page_url, s))]
        assert len(caught) == 2, f"{md}: figure scripts caught {caught} of {srcs}"
        assert caught == [s for s in srcs if "plotly" in s or s.endswith("/figures.js")], md
    assert both >= 1, "no page has both a widget and a figure"
