"""The runner's modes, checked on the CPU with the GPU calls faked: quick mode and where its
data goes, skips (a whole benchmark, or rows), wall time and peak memory in provenance,
the message without a GPU; and scripts/bench/variation.py's CPU-checkable parts."""

from __future__ import annotations

import importlib
import json

import pytest

from scripts.bench import benchlib, measure, variation

SPREAD = {"p20": 1.0, "p50": 1.0, "p80": 1.0, "reps": 1}
CEILINGS = {
    "copy": {"bytes": 8, "time_s": SPREAD},
    "matmul": {"float16": {"flops": 8, "time_s": SPREAD}},
}

# A family whose benchmarks say what they saw: quick mode or not, and what they raise.
TOY = """
from scripts.bench import benchlib
from triton.runtime.errors import OutOfResources


def plain(ceilings):
    return [{"quick": benchlib.quick(), "n": n} for n in benchlib.pick([1, 2, 3], [1])]


def partly(ceilings):
    return [{"n": 1}, {"n": 2, "skipped": "no fp8 here"}, {"n": 3, "failure": "too big"}]


def unsupported(ceilings):
    benchlib.require_capability(99, 0, "a feature of the future")


def no_room(ceilings):
    raise OutOfResources(300000, 232448, "shared memory")


def broken(ceilings):
    raise RuntimeError("a real bug")


BENCHMARKS = [
    benchlib.Benchmark("toy_plain", "a description long enough", plain),
    benchlib.Benchmark("toy_partly", "a description long enough", partly),
    benchlib.Benchmark("toy_future", "a description long enough", unsupported),
    benchlib.Benchmark("toy_no_room", "a description long enough", no_room),
    benchlib.Benchmark("toy_broken", "a description long enough", broken),
]
"""


class FakeCuda:
    """The torch.cuda calls the runner makes, with an allocator whose peak we set."""

    def __init__(self):
        self.allocated = self.reserved = 0
        self.resets = 0

    def reset_peak_memory_stats(self, device=None):
        self.resets += 1
        self.allocated = self.reserved = 0

    def max_memory_allocated(self, device=None):
        return self.allocated

    def max_memory_reserved(self, device=None):
        return self.reserved


@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    """measure.main runs against a fake GPU, the toy family and folders under tmp_path."""
    package = f"fakebench_{tmp_path.name}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "toy.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(measure, "benchmarks_pkg", importlib.import_module(package))
    monkeypatch.setattr(benchlib, "DATA_DIR", tmp_path / "data")
    monkeypatch.setattr(measure, "QUICK_DIR", tmp_path / "data-quick")
    monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
    cuda = FakeCuda()
    for name in ("reset_peak_memory_stats", "max_memory_allocated", "max_memory_reserved"):
        monkeypatch.setattr(measure.torch.cuda, name, getattr(cuda, name))
    monkeypatch.setattr(measure.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(measure.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(measure.torch.cuda, "empty_cache", lambda: None)
    monkeypatch.setattr(measure.torch.cuda, "get_device_capability", lambda d=None: (8, 0))
    prov = {
        "gpu": "Fake GPU",
        "device_slug": "fake-gpu",
        "torch": "t",
        "triton": "t",
        "cuda": "c",
        "driver": "d",
        "commit": "0123456789ab",
        "clocks_at_start": None,
    }
    monkeypatch.setattr(benchlib, "provenance", lambda: dict(prov))
    monkeypatch.setattr(benchlib, "read_clocks", lambda index=0: None)

    def ceilings():
        cuda.allocated, cuda.reserved = 3 << 30, 4 << 30  # the 1 GiB copy and friends
        return CEILINGS

    monkeypatch.setattr(benchlib, "measure_ceilings", ceilings)
    return tmp_path


def load(path):
    return json.loads(path.read_text())


def test_quick_mode_is_marked_and_kept_apart_from_full_data(fake_gpu, capsys):
    data, quick = fake_gpu / "data" / "fake-gpu", fake_gpu / "data-quick" / "fake-gpu"
    assert measure.main(["toy_plain"]) == 0  # a full run first: the data quick mode must not touch
    full = {p.name: p.read_text() for p in data.iterdir()}
    assert load(data / "toy_plain.json")["rows"] == [{"quick": False, "n": n} for n in (1, 2, 3)]
    assert load(data / "toy_plain.json")["provenance"]["quick"] is False

    assert measure.main(["--quick", "toy_plain"]) == 0
    doc = load(quick / "toy_plain.json")
    assert doc["rows"] == [{"quick": True, "n": 1}]  # the module saw quick mode: fewer sizes
    assert doc["provenance"]["quick"] is True
    assert sorted(p.name for p in quick.iterdir()) == ["ceilings.json", "toy_plain.json"]
    for name, text in full.items():
        assert (data / name).read_text() == text, f"quick mode rewrote {name}"
    # The one file quick mode writes beside the full data: its summary.
    assert sorted(p.name for p in data.iterdir()) == sorted([*full, "quick_run.json"])
    summary = load(data / "quick_run.json")
    assert summary["benchmark"] == "quick_run" and summary["provenance"]["quick"] is True
    assert [r["benchmark"] for r in summary["rows"]] == ["ceilings", "toy_plain"]
    assert summary["rows"][1] == {
        "benchmark": "toy_plain",
        "status": "ok",
        "wall_s": summary["rows"][1]["wall_s"],
        "peak_memory_bytes": 0,
        "peak_reserved_bytes": 0,
        "rows": 1,
        "rows_skipped": 0,
    }
    assert summary["rows"][0]["peak_reserved_bytes"] == 4 << 30
    assert summary["provenance"]["wall_s"] >= sum(r["wall_s"] for r in summary["rows"]) - 0.1
    assert "quick mode" in capsys.readouterr().out


def test_the_environment_alone_also_means_quick(fake_gpu, monkeypatch):
    monkeypatch.setenv(benchlib.QUICK_ENV, "1")
    assert measure.main(["toy_plain"]) == 0
    assert (fake_gpu / "data-quick" / "fake-gpu" / "toy_plain.json").is_file()
    assert not (fake_gpu / "data" / "fake-gpu" / "toy_plain.json").exists()


def test_wall_time_and_peak_memory_are_in_provenance(fake_gpu):
    assert measure.main(["toy_plain"]) == 0
    folder = fake_gpu / "data" / "fake-gpu"
    ceilings = load(folder / "ceilings.json")["provenance"]
    assert ceilings["peak_memory_bytes"] == 3 << 30 and ceilings["peak_reserved_bytes"] == 4 << 30
    toy = load(folder / "toy_plain.json")["provenance"]
    assert toy["wall_s"] >= 0 and toy["peak_memory_bytes"] == 0  # reset before each benchmark
    assert "clocks_after" in toy


def test_skips_are_reported_and_are_not_failures(fake_gpu, capsys):
    assert measure.main(["toy_partly", "toy_future", "toy_no_room"]) == 0
    out = capsys.readouterr().out
    folder = fake_gpu / "data" / "fake-gpu"
    assert "2 of 3 rows skipped: no fp8 here; too big" in out
    assert "skipped toy_future: a feature of the future needs compute capability 99.0" in out
    assert "this GPU has 8.0" in out
    assert "skipped toy_no_room: needs more on-chip resources" in out
    assert "SKIPPED (this GPU cannot run them): toy_future" in out
    assert (folder / "toy_partly.json").is_file()
    assert not (folder / "toy_future.json").exists() and not (folder / "toy_no_room.json").exists()


def test_a_real_failure_still_fails_and_the_quick_summary_says_so(fake_gpu, capsys):
    assert measure.main(["--quick", "toy_broken", "toy_future", "toy_plain"]) == 1
    err = capsys.readouterr().err
    assert "FAILED: toy_broken" in err and "a real bug" in err
    rows = load(fake_gpu / "data" / "fake-gpu" / "quick_run.json")["rows"]
    assert {r["benchmark"]: r["status"] for r in rows} == {
        "ceilings": "ok",
        "toy_broken": "failed",
        "toy_future": "skipped",
        "toy_plain": "ok",
    }


def test_peak_memory_survives_a_benchmark_that_resets_the_counters(monkeypatch):
    cuda = FakeCuda()
    for name in ("reset_peak_memory_stats", "max_memory_allocated", "max_memory_reserved"):
        monkeypatch.setattr(measure.torch.cuda, name, getattr(cuda, name))
    original = measure.torch.cuda.reset_peak_memory_stats
    with measure.peak_memory() as peak:
        cuda.allocated, cuda.reserved = 10, 12
        measure.torch.cuda.reset_peak_memory_stats()  # what attention_memory does per step
        cuda.allocated, cuda.reserved = 5, 6
    assert peak == {"allocated": 10, "reserved": 12}
    assert measure.torch.cuda.reset_peak_memory_stats is original  # put back


def test_without_a_gpu_the_message_says_what_to_check(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(benchlib, "DATA_DIR", tmp_path / "data")
    monkeypatch.setattr(measure.torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
    assert measure.main(["--quick"]) == 2
    err = capsys.readouterr().err
    assert "needs a CUDA GPU" in err and "nvidia-smi" in err and "torch" in err
    assert not (tmp_path / "data").exists()


def test_list_and_quick_need_no_gpu(monkeypatch, capsys):
    monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
    assert measure.main(["--list", "--quick"]) == 0
    assert "vector_add: vector_add" in capsys.readouterr().out


def test_pick_and_quick_follow_the_environment(monkeypatch):
    monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
    assert not benchlib.quick() and benchlib.pick([1, 2], [1]) == [1, 2]
    monkeypatch.setenv(benchlib.QUICK_ENV, "1")
    assert benchlib.quick() and benchlib.pick([1, 2], [1]) == [1]


def test_the_big_families_have_smaller_quick_lists():
    """Each quick list is a proper subset of the full one it stands for."""
    from scripts.bench.benchmarks import matmul, rmsnorm, softmax, vector_add

    pairs = [
        (vector_add.SIZES, vector_add.QUICK_SIZES),
        (vector_add.SWEEP_BLOCKS, vector_add.QUICK_BLOCKS),
        (softmax.WIDTHS, softmax.QUICK_WIDTHS),
        (softmax.SWEEP_SHAPES, softmax.QUICK_SWEEP_SHAPES),
        (rmsnorm.HIDDEN[rmsnorm.torch.bfloat16], rmsnorm.QUICK_HIDDEN[rmsnorm.torch.bfloat16]),
        (rmsnorm.SWEEP_HIDDEN, rmsnorm.QUICK_SWEEP_HIDDEN),
        (rmsnorm.SMALL_M_HIDDEN, rmsnorm.QUICK_SMALL_M_HIDDEN),
        (matmul.SQUARES, matmul.QUICK_SQUARES),
        (matmul.LLM_M, matmul.QUICK_LLM_M),
        (matmul.EPILOGUE_SIZES, matmul.QUICK_EPILOGUE_SIZES),
    ]
    for full, quick in pairs:
        assert quick and set(quick) < set(full), (full, quick)


def test_attention_reads_the_same_switch(monkeypatch):
    from scripts.bench.benchmarks import attention

    try:
        monkeypatch.setenv(benchlib.QUICK_ENV, "1")
        quick = importlib.reload(attention)
        assert quick.QUICK and quick.N_FORWARD == (4096,) and quick.HEAD_DIMS == (128,)
        monkeypatch.delenv(benchlib.QUICK_ENV)
        full = importlib.reload(attention)
        assert not full.QUICK and len(full.N_FORWARD) > 1
    finally:
        monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
        importlib.reload(attention)


def test_matmul_quick_sweep_keeps_the_autotuner_configs(monkeypatch):
    from scripts.bench.benchmarks import matmul

    monkeypatch.setenv(benchlib.QUICK_ENV, "0")  # restored afterwards
    full = {matmul.config_key(c) for c in matmul.sweep_configs()}
    monkeypatch.setenv(benchlib.QUICK_ENV, "1")
    quick = {matmul.config_key(c) for c in matmul.sweep_configs()}
    autotuner = {matmul.config_key(c) for c in matmul.mm.CONFIGS}
    assert autotuner <= quick < full


# ---- scripts/bench/variation.py ---------------------------------------------------------------


def test_variation_merge_keeps_other_machines():
    old = [{"machine": "a", "run": 0}, {"machine": "b", "run": 0}, {"machine": "a", "run": 1}]
    new = [{"machine": "a", "run": 0, "fresh": True}]
    assert variation.merge(old, new, "a") == [{"machine": "b", "run": 0}] + new


def test_variation_machine_label_is_stable_and_hides_the_host_name():
    label = variation.machine_label("gpu-box-17.example.org")
    assert label == variation.machine_label("gpu-box-17.example.org")
    assert label != variation.machine_label("gpu-box-18.example.org")
    assert "gpu" not in label and label.startswith("m-") and len(label) == 8


def test_variation_needs_a_gpu_and_two_runs(monkeypatch, capsys):
    monkeypatch.setattr(variation.torch.cuda, "is_available", lambda: False)
    assert variation.main(["--runs", "3"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        variation.main(["--runs", "1"])


def test_variation_writes_its_rows_with_the_envelope(fake_gpu, monkeypatch):
    calls = []

    def fake_point(impl, n):
        calls.append((impl, n))
        return {"bytes": 12 * n, "time_s": SPREAD}

    monkeypatch.setattr(variation, "measure_point", fake_point)
    monkeypatch.setattr(benchlib, "warm_up", lambda seconds=1.0: None)
    assert variation.main(["--runs", "3", "--machine", "a"]) == 0
    assert variation.main(["--runs", "2", "--machine", "b"]) == 0
    doc = load(fake_gpu / "data" / "fake-gpu" / "variation.json")
    assert doc["benchmark"] == "variation"
    runs = {(r["machine"], r["run"]) for r in doc["rows"]}
    assert runs == {("a", 0), ("a", 1), ("a", 2), ("b", 0), ("b", 1)}
    assert len(calls) == 5 * len(variation.POINTS)
    assert doc["provenance"]["wall_s"] >= 0
