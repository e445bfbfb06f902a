"""Values about the GPU a device folder was measured on (from any file's provenance)."""

from __future__ import annotations

from typing import Literal

from scripts.book.render import Docs, Value, doc, plain, provenance, whole


def name(docs: Docs) -> str:
    """The GPU's name as the driver reports it."""
    return provenance(docs)["gpu"]


def sm_count(docs: Docs) -> int:
    """Number of streaming multiprocessors (SMs)."""
    return provenance(docs)["sm_count"]


def l2_mb(docs: Docs) -> str:
    """L2 cache size in MiB."""
    return f"{provenance(docs)['l2_bytes'] / 2**20:.0f} MiB"


def version(docs: Docs, of: Literal["triton", "torch", "cuda"]) -> str:
    """The version of Triton, PyTorch, or the CUDA PyTorch was built with, that the
    device's data was measured with (from its provenance)."""
    return provenance(docs)[of]


def after(
    docs: Docs, bench: str, field: Literal["sm_mhz", "sm_max_mhz", "power_draw_w", "power_limit_w"]
) -> float:
    """The GPU's state right after benchmark ``bench`` ran, from its provenance: the SM
    clock and its maximum (MHz), the power drawn and the power limit (W)."""
    return doc(docs, bench)["provenance"]["clocks_after"][field]


VALUES = {
    "device.name": Value(name),
    "device.sm_count": Value(sm_count, plain),
    "device.l2_mb": Value(l2_mb),
    "device.version": Value(version),
    # added for the methodology appendix
    "device.after": Value(after, whole),
}
