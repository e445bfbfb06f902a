"""Values about the GPU a device folder was measured on (from any file's provenance)."""

from scripts.book.render import Docs, Value, plain, provenance


def name(docs: Docs) -> str:
    """The GPU's name as the driver reports it."""
    return provenance(docs)["gpu"]


def sm_count(docs: Docs) -> int:
    """Number of streaming multiprocessors (SMs)."""
    return provenance(docs)["sm_count"]


def l2_mb(docs: Docs) -> str:
    """L2 cache size in MiB."""
    return f"{provenance(docs)['l2_bytes'] / 2**20:.0f} MiB"


def triton_version(docs: Docs) -> str:
    """The Triton version the device's data was measured with (from its provenance)."""
    return provenance(docs)["triton"]


def torch_version(docs: Docs) -> str:
    """The PyTorch version the device's data was measured with (from its provenance)."""
    return provenance(docs)["torch"]


def cuda_version(docs: Docs) -> str:
    """The CUDA version PyTorch was built with, for the device's data."""
    return provenance(docs)["cuda"]


VALUES = {
    "device.name": Value(name),
    "device.sm_count": Value(sm_count, plain),
    "device.l2_mb": Value(l2_mb),
    "device.triton_version": Value(triton_version),
    "device.torch_version": Value(torch_version),
    "device.cuda_version": Value(cuda_version),
}
