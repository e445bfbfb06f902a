"""The runner and the figure schemas agree: every row schema under figures/schemas/ belongs
to a benchmark scripts/bench/measure.py knows, or to one the runner writes itself. A family
lands before its first GPU run: its schema is there, its data not yet.

(The site side of the same bookkeeping — every data file and every figure's data has a
schema — is tests/site/test_data.py's, which runs without torch; this one needs the
runner's registry, and so torch.)"""

from __future__ import annotations

from scripts.bench import measure
from tests.site.support import ROOT


def test_the_book_has_no_orphan_schema():
    known = {b.name for benches in measure.discover().values() for b in benches}
    schemas = {p.stem for p in (ROOT / "figures" / "schemas").glob("*.json")}
    assert schemas, "no row schemas"
    assert schemas <= known | measure.RESERVED, schemas - known
