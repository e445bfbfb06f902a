"""Values about the GPU a device folder was measured on (from any file's provenance)."""

from scripts.render import Docs, Value, plain, provenance


def name(docs: Docs) -> str:
    """The GPU's name as the driver reports it."""
    return provenance(docs)["gpu"]


def sm_count(docs: Docs) -> int:
    """Number of streaming multiprocessors (SMs)."""
    return provenance(docs)["sm_count"]


def l2_mb(docs: Docs) -> str:
    """L2 cache size in MiB."""
    return f"{provenance(docs)['l2_bytes'] / 2**20:.0f} MiB"


VALUES = {
    "device.name": Value(name),
    "device.sm_count": Value(sm_count, plain),
    "device.l2_mb": Value(l2_mb),
}
