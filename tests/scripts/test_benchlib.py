"""The GPU build script's CPU-checkable parts: device folder names, provenance, refusal."""

from __future__ import annotations

import pytest

from scripts import benchlib, benchmarks


@pytest.mark.parametrize(
    "name, slug",
    [
        ("NVIDIA H100 80GB HBM3", "h100-80gb-hbm3"),
        ("NVIDIA H200", "h200"),
        ("NVIDIA GeForce RTX 4090", "geforce-rtx-4090"),
        ("AMD Instinct MI300X", "amd-instinct-mi300x"),
    ],
)
def test_device_slug(name, slug):
    assert benchlib.device_slug(name) == slug


def test_commit_can_be_given_by_environment(monkeypatch):
    monkeypatch.setenv("BOOK_COMMIT", "0123456789abcdef")
    monkeypatch.setenv("BOOK_DIRTY", "1")
    assert benchlib.git_commit() == {"commit": "0123456789abcdef", "dirty": True}
    monkeypatch.setenv("BOOK_DIRTY", "0")
    assert benchlib.git_commit()["dirty"] is False


def test_unknown_benchmark_is_refused():
    with pytest.raises(SystemExit) as exc:
        benchmarks.main(["no_such_benchmark"])
    assert exc.value.code == 2


def test_refuses_to_run_without_a_gpu(monkeypatch, capsys):
    monkeypatch.setattr(benchmarks.torch.cuda, "is_available", lambda: False)
    assert benchmarks.main([]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err
