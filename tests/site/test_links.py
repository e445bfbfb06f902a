"""Every local link and asset in the built site resolves; nothing is loaded from off-site.

A lesson may cite its sources with ordinary https links (a reader clicks them; the page
never fetches them). Everything the page itself loads (scripts, styles, images, frames:
every ``src``, and every ``href`` that is not an ``<a>``) must come from the site."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.citations: set[str] = set()  # https links a reader may follow: <a href>
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "a" and a.get("class", "").startswith("md-source")):
                self.refs.append(a[key])
                if tag == "a" and key == "href" and a[key].startswith("https://"):
                    self.citations.add(a[key])


def parse(path: Path) -> _Refs:
    p = _Refs()
    p.feed(path.read_text())
    return p


def target_file(page: Path, url: str, root: Path) -> Path:
    path = unquote(urlsplit(url).path)
    base = root if path.startswith("/") else page.parent
    target = (base / path.lstrip("/")).resolve()
    return target / "index.html" if target.is_dir() else target


def test_local_links_and_assets_resolve(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) >= 17
    problems = []
    for page in pages:
        refs = parse(page)
        for url in refs.refs:
            parts = urlsplit(url)
            if parts.scheme in ("mailto", "data", "javascript"):
                continue
            if parts.scheme or parts.netloc:
                if url in refs.citations:  # a cited source: followed by the reader, not loaded
                    continue
                # Material's own footer credit is the only other outside link a page may show.
                if not re.match(
                    r"https://(squidfunk\.github\.io/mkdocs-material|www\.mkdocs\.org)", url
                ):
                    problems.append(f"{page.relative_to(built_site)}: off-site link {url}")
                continue
            if not parts.path:  # same-page anchor
                if parts.fragment and parts.fragment not in refs.ids:
                    problems.append(
                        f"{page.relative_to(built_site)}: missing anchor #{parts.fragment}"
                    )
                continue
            target = target_file(page, url, built_site)
            if not target.exists():
                problems.append(f"{page.relative_to(built_site)}: broken link {url}")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and parts.fragment not in parse(target).ids
            ):
                problems.append(
                    f"{page.relative_to(built_site)}: {url} has no anchor #{parts.fragment}"
                )
    assert not problems, "\n".join(problems)
