"""Values about the GPU a device folder was measured on (from its data files' provenance)."""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value


def provenance(
    docs: Docs, field: Literal["gpu", "sm_count", "l2_bytes", "triton", "torch", "cuda"]
) -> str | int:
    """A field of the run's provenance: the GPU's name, its SMs, its L2 bytes, or a version."""
    return render.provenance(docs)[field]


def after(
    docs: Docs, bench: str, field: Literal["sm_mhz", "sm_max_mhz", "power_draw_w", "power_limit_w"]
) -> float:
    """The SM clock or its maximum (MHz), or the power or its limit (W), after ``bench``."""
    return render.doc(docs, bench)["provenance"]["clocks_after"][field]


VALUES = {
    "device.provenance": Value(provenance, render.plain),
    "device.after": Value(after, render.whole),
}
