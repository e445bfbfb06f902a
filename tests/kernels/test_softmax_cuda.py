"""The hand-written CUDA row softmax (kernels/cuda/softmax_rows.cu), shown line by line
beside the Triton kernel in lesson 02: it compiles with nvcc, and on a GPU it computes
what torch.softmax does (and what kernels/softmax.py's whole-row kernel does).

Without nvcc every test here is skipped; without a GPU only the compile runs. The file's
``// status:`` line says what has been checked; lesson 02's widget shows it. Once this
file passes on a GPU, that line may say so (see test_status_line_is_one_the_widget_knows).
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from tests.support import ON_GPU, fresh_seed, poisoned_like, rand

SOURCE = Path(__file__).resolve().parents[2] / "kernels" / "cuda" / "softmax_rows.cu"
NVCC = shutil.which("nvcc")
requires_nvcc = pytest.mark.skipif(NVCC is None, reason="needs nvcc (the CUDA toolkit)")
requires_gpu_and_nvcc = pytest.mark.skipif(
    NVCC is None or not ON_GPU, reason="needs nvcc and a CUDA GPU"
)
# One worker compiles the library (the module fixture below) and runs every test using it.
pytestmark = pytest.mark.xdist_group("softmax-cuda-library")

# As tests/kernels/test_softmax.py: a softmax value may land an ulp or so of its dtype away
# from the float64 reference rounded to that dtype; atol covers values under the normal range.
TOL = {
    torch.float32: (1e-5, 2**-126),
    torch.float16: (1e-3, 2**-24),
    torch.bfloat16: (8e-3, 2**-126),
}
ENTRY = {torch.float32: "softmax_rows_f32", torch.float16: "softmax_rows_f16"}
ENTRY[torch.bfloat16] = "softmax_rows_bf16"
MAX_COLS = 16384  # 256 threads x 64 values: the widest row the launcher takes


def test_status_line_is_one_the_widget_knows():
    """One ``// status:`` line: "not yet compiled", or a claim that names this test file."""
    lines = [ln for ln in SOURCE.read_text().splitlines() if ln.startswith("// status:")]
    assert len(lines) == 1, lines
    status = lines[0].removeprefix("// status:").strip()
    assert status == "not yet compiled" or (
        status.startswith("compiled") and "tests/kernels/test_softmax_cuda.py" in status
    ), status


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cuda") / "softmax_rows.so"
    arch = "-arch=native" if ON_GPU else "-arch=sm_90"
    cmd = [NVCC, "-O3", arch, "-shared", "-Xcompiler", "-fPIC", "-o", str(out), str(SOURCE)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stdout}\n{result.stderr}"
    out.with_suffix(".log").write_text(result.stdout + result.stderr)
    return out


@requires_nvcc
def test_compiles_without_warnings(library):
    # The fixture compiled it; here, a look for warnings nvcc printed but did not fail on.
    assert library.is_file() and library.stat().st_size > 0
    log = library.with_suffix(".log").read_text()
    assert "warning" not in log.lower(), log


@requires_nvcc
def test_every_entry_point_is_exported(library):
    symbols = subprocess.run(["nm", "-D", str(library)], capture_output=True, text=True).stdout
    for name in ENTRY.values():
        assert re.search(rf"\bT {name}\b", symbols), f"{name} is not exported"


def run(lib, x: torch.Tensor, y: torch.Tensor) -> int:
    fn = getattr(lib, ENTRY[x.dtype])
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int]
    fn.argtypes += [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    stream = torch.cuda.current_stream().cuda_stream
    n_rows, n_cols = x.shape
    err = fn(x.data_ptr(), y.data_ptr(), n_rows, n_cols, x.stride(0), y.stride(0), stream)
    torch.cuda.synchronize()
    return err


def expected(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.double(), dim=-1).to(x.dtype)


@requires_gpu_and_nvcc
@pytest.mark.parametrize("dtype", list(ENTRY), ids=str)
@pytest.mark.parametrize(
    "shape", [(1, 1), (3, 17), (5, 255), (5, 256), (5, 257), (64, 1000), (7, 4097), (3, MAX_COLS)]
)
def test_matches_torch(library, dtype, shape):
    seed = fresh_seed()
    lib = ctypes.CDLL(str(library))
    # Padded rows: x is a slice of a wider buffer, so its row stride exceeds its width.
    x = rand((shape[0], shape[1] + 3), dtype, scale=4.0)[:, : shape[1]]
    y = poisoned_like(torch.empty(shape, dtype=dtype, device="cuda"))
    assert run(lib, x, y) == 0
    rtol, atol = TOL[dtype]
    torch.testing.assert_close(
        y.double(), expected(x).double(), rtol=rtol, atol=atol, msg=lambda m: f"{m}\nseed={seed}"
    )


@requires_gpu_and_nvcc
def test_all_minus_inf_row_is_nan_as_torch(library):
    lib = ctypes.CDLL(str(library))
    x = rand((3, 100))
    x[1] = float("-inf")
    y = poisoned_like(x)
    assert run(lib, x, y) == 0
    assert torch.isnan(y[1]).all() and not torch.isnan(y[[0, 2]]).any()
    torch.testing.assert_close(y[[0, 2]], expected(x)[[0, 2]], rtol=1e-5, atol=2**-126)


@requires_gpu_and_nvcc
def test_refuses_rows_too_wide(library):
    lib = ctypes.CDLL(str(library))
    x = rand((2, MAX_COLS + 1))
    y = poisoned_like(x)
    assert run(lib, x, y) == -1
    assert torch.isnan(y).all(), "a refused launch must not write"
