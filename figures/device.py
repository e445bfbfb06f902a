"""Values about the GPU a device folder was measured on (from any file's provenance)."""

from typing import Literal

from scripts.book import render
from scripts.book.render import Docs, Value


def name(docs: Docs) -> str:
    """The GPU's name as the driver reports it."""
    return render.provenance(docs)["gpu"]


def sm_count(docs: Docs) -> int:
    """Number of streaming multiprocessors (SMs)."""
    return render.provenance(docs)["sm_count"]


def l2_mb(docs: Docs) -> int:
    """L2 cache size, bytes (shown in MiB)."""
    return render.provenance(docs)["l2_bytes"]


def version(docs: Docs, of: Literal["triton", "torch", "cuda"]) -> str:
    """The version of Triton, PyTorch, or CUDA the device's data was measured with."""
    return render.provenance(docs)[of]


def after(
    docs: Docs, bench: str, field: Literal["sm_mhz", "sm_max_mhz", "power_draw_w", "power_limit_w"]
) -> float:
    """The SM clock or its maximum (MHz), or the power or its limit (W), after ``bench``."""
    return render.doc(docs, bench)["provenance"]["clocks_after"][field]


VALUES = {
    "device.name": Value(name),
    "device.sm_count": Value(sm_count, render.plain),
    "device.l2_mb": Value(l2_mb, render.mib),
    "device.version": Value(version),
    "device.after": Value(after, render.whole),
}
