"""Values about the code a device's data was measured with: each data file's fingerprints
(provenance.sources, scripts/bench/sources.py) against the tree the site is built from."""

from scripts.bench import sources
from scripts.book import render
from scripts.book.render import Docs, Value

DIGITS = 12  # of a sha256, enough to tell two versions apart on a page


def commit(docs: Docs, bench: str) -> str:
    """The commit ``bench``'s data was measured at, abbreviated."""
    return render.doc(docs, bench)["provenance"]["commit"][:7]


def recorded(docs: Docs, bench: str, path: str) -> str | None:
    """The fingerprint ``bench``'s file recorded for ``path`` (its first digits), or None."""
    found = render.doc(docs, bench)["provenance"].get("sources", {}).get(path)
    return found[:DIGITS] if found else None


def tree(docs: Docs, path: str) -> str:
    """The fingerprint of ``path`` in the tree the site is built from (its first digits)."""
    text = (render.SOURCES_ROOT / path).read_text()
    return sources.fingerprint(text, path)[:DIGITS]


def agrees(docs: Docs, bench: str, path: str) -> str:
    """Whether ``path`` is the code ``bench`` measured, by fingerprint, in words."""
    full = render.doc(docs, bench)["provenance"].get("sources", {}).get(path)
    now = sources.fingerprint((render.SOURCES_ROOT / path).read_text(), path)
    return "the same code" if full == now else "different code"


def count(docs: Docs, bench: str) -> int:
    """How many files ``bench``'s data records fingerprints of."""
    return len(render.doc(docs, bench)["provenance"].get("sources", {}))


def stale_files(docs: Docs) -> int:
    """How many of this device's data files are stale (render.stale)."""
    return sum(1 for d in dict.values(docs) if render.stale(d))


VALUES = {
    "sources.commit": Value(commit),
    "sources.recorded": Value(recorded, missing="none"),
    "sources.tree": Value(tree),
    "sources.agrees": Value(agrees),
    "sources.count": Value(count, render.plain),
    "sources.stale_files": Value(stale_files, render.plain),
}
