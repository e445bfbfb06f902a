"""The GPU build script's CPU-checkable parts: discovery, selection, spread, provenance."""

from __future__ import annotations

import importlib
import json

import pytest

from scripts.bench import benchlib, measure
from tests.site.support import ROOT


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


def test_spread_is_nearest_rank_percentiles():
    samples = [float(i) for i in range(1, 101)]  # 1..100, shuffled order must not matter
    s = benchlib.spread(samples[::-1])
    assert (s["p20"], s["p50"], s["p80"], s["reps"]) == (21.0, 51.0, 80.0, 100)
    assert benchlib.spread([2.5]) == {"p20": 2.5, "p50": 2.5, "p80": 2.5, "reps": 1}
    with pytest.raises(ValueError):
        benchlib.spread([])


def test_clocks_are_parsed_and_missing_parts_are_null():
    line = "1980, 1980, 2619, 2619, 312.55, 700.00, 41"
    assert benchlib.parse_clocks(line) == {
        "sm_mhz": 1980.0,
        "sm_max_mhz": 1980.0,
        "mem_mhz": 2619.0,
        "mem_max_mhz": 2619.0,
        "power_draw_w": 312.55,
        "power_limit_w": 700.0,
        "temperature_c": 41.0,
    }
    assert benchlib.parse_clocks("345, 1980, 2619, 2619, [N/A], 700.00, 30")["power_draw_w"] is None
    assert benchlib.parse_clocks("garbage") is None


def test_every_family_is_discovered_with_a_row_schema():
    families = measure.discover()
    assert {"vector_add", "launch"} <= set(families)
    for family, benches in families.items():
        for b in benches:
            assert b.name == family or b.name.startswith(family + "_")
            assert (ROOT / "figures" / "schemas" / f"{b.name}.json").is_file(), b.name
            assert len(b.description) >= 20


def test_select_by_family_or_benchmark():
    families = measure.discover()
    names = [b.name for b in measure.select(families, ["vector_add"])]
    assert names == [
        "vector_add",
        "vector_add_block_sweep",
        "vector_add_ragged",
        "vector_add_streams",
    ]
    assert [b.name for b in measure.select(families, ["launch_overhead"])] == ["launch_overhead"]
    assert len(measure.select(families, [])) == sum(len(b) for b in families.values())
    with pytest.raises(KeyError):
        measure.select(families, ["no_such"])


def _fake_benchmarks(tmp_path, monkeypatch, module: str, names: list[str]):
    package = f"fakebench_{tmp_path.name}"  # a fresh package per test: no import cache
    pkg = tmp_path / package
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / f"{module}.py").write_text(
        "from scripts.bench.benchlib import Benchmark\n"
        f"BENCHMARKS = [Benchmark(n, 'a description long enough', list) for n in {names!r}]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(measure, "benchmarks_pkg", importlib.import_module(package))


@pytest.mark.parametrize(
    "module, names, message",
    [
        ("toy", ["other"], "must be named 'toy' or start with 'toy_'"),
        ("toy", ["toy_a", "toy_a"], "defined twice"),
        ("ceilings", ["ceilings"], "defined twice"),
        ("toy", [], "defines no BENCHMARKS"),
    ],
    ids=["prefix", "duplicate", "reserved", "empty"],
)
def test_badly_named_benchmark_is_refused(tmp_path, monkeypatch, module, names, message):
    _fake_benchmarks(tmp_path, monkeypatch, module, names)
    with pytest.raises(measure.RegistryError, match=message):
        measure.discover()


def test_a_benchmark_module_is_found_by_being_there(tmp_path, monkeypatch):
    _fake_benchmarks(tmp_path, monkeypatch, "toy", ["toy", "toy_more"])
    assert [b.name for b in measure.discover()["toy"]] == ["toy", "toy_more"]


def test_unknown_benchmark_is_refused():
    with pytest.raises(SystemExit) as exc:
        measure.main(["no_such_benchmark"])
    assert exc.value.code == 2


def test_list_needs_no_gpu(capsys):
    assert measure.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert "vector_add: vector_add, vector_add_block_sweep, vector_add_ragged" in listed


def test_refuses_to_run_without_a_gpu(monkeypatch, capsys):
    monkeypatch.setattr(measure.torch.cuda, "is_available", lambda: False)
    assert measure.main([]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_write_puts_the_envelope_around_rows(tmp_path):
    bench = benchlib.Benchmark("toy_rows", "a description long enough", lambda c: [])
    prov = {"device_slug": "fake-gpu"}
    path = benchlib.write(bench, prov, {"copy": {}}, [{"a": 1}], out_dir=tmp_path)
    doc = json.loads(path.read_text())
    assert path == tmp_path / "fake-gpu" / "toy_rows.json"
    assert doc["benchmark"] == "toy_rows" and doc["rows"] == [{"a": 1}]
    assert doc["schema_version"] == benchlib.SCHEMA_VERSION
    # Measurements only: what a page draws (a roofline point, a lesson) is chosen at build.
    assert list(doc) == ["schema_version", "benchmark", "description", "provenance",
                         "ceilings", "rows"]  # fmt: skip
    assert path.read_text() == json.dumps(doc, indent=1) + "\n"


SPREAD = {"p20": 1.0, "p50": 1.0, "p80": 1.0, "reps": 1}


def _fake_gpu(tmp_path, monkeypatch, names: list[str]):
    """The runner on a fake GPU: toy benchmarks ``names`` (family "toy"), data written under
    tmp_path/data, a provenance the caller may change, no clocks and no memory counters.
    Returns the data folder and that provenance; the caller fakes the ceilings."""
    _fake_benchmarks(tmp_path, monkeypatch, "toy", names)
    data = tmp_path / "data"
    monkeypatch.setattr(benchlib, "DATA_DIR", data)
    monkeypatch.setattr(measure.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(measure.torch.cuda, "current_device", lambda: 0)
    for name in ("reset_peak_memory_stats", "max_memory_allocated", "max_memory_reserved"):
        monkeypatch.setattr(measure.torch.cuda, name, lambda device=None: 0)
    prov = {"gpu": "Fake GPU", "device_slug": "fake-gpu", "torch": "t", "triton": "t",
            "cuda": "c", "driver": "d", "commit": "0123456789ab",
            "clocks_at_start": None}  # fmt: skip
    monkeypatch.setattr(benchlib, "provenance", lambda: dict(prov))
    monkeypatch.setattr(benchlib, "read_clocks", lambda index=0: None)
    return data, prov


def test_a_subset_run_rewrites_only_its_files(tmp_path, monkeypatch):
    """`make figures ONLY=toy_a` writes toy_a.json and keeps every other file as it was."""
    data, prov = _fake_gpu(tmp_path, monkeypatch, ["toy_a", "toy_b"])
    spread = SPREAD
    ceilings = {
        "copy": {"bytes": 8, "time_s": spread},
        "matmul": {"float16": {"flops": 8, "time_s": spread}},
    }
    monkeypatch.setattr(benchlib, "measure_ceilings", lambda: ceilings)

    assert measure.main([]) == 0  # a full run writes ceilings and every benchmark
    folder = data / "fake-gpu"
    assert sorted(p.name for p in folder.iterdir()) == ["ceilings.json", "toy_a.json", "toy_b.json"]
    kept = {p.name: p.read_text() for p in folder.iterdir()}

    prov["commit"] = "fedcba987654"
    assert measure.main(["toy_a"]) == 0
    assert json.loads((folder / "toy_a.json").read_text())["provenance"]["commit"] == "fedcba987654"
    for name in ("ceilings.json", "toy_b.json"):
        assert (folder / name).read_text() == kept[name], f"{name} was rewritten"


def test_ptx_loads_counts_each_kind_of_global_load():
    ptx = "@%p1 ld.global.v4.b32 { %r1 }, [ %rd1 ];\n ld.global.b32 %r5, [%rd2];\n ld.global.v4.b32"
    assert benchlib.ptx_loads(ptx) == {"ld.global.v4.b32": 2, "ld.global.b32": 1}


def test_captured_reports_the_launched_kernel_and_puts_it_back():
    class Compiled:
        n_regs, n_spills = 40, 2

    class Kernel:  # what a @triton.jit function looks like to a wrapper: kernel[grid](...)
        def __getitem__(self, grid):
            return lambda *args, **meta: Compiled()

    class Module:
        kernel = Kernel()
        unused = Kernel()

    original = Module.kernel

    def wrapper():
        Module.kernel[(1,)](0)

    assert benchlib.captured(wrapper, Module, "kernel", "unused") == {"n_regs": 40, "n_spills": 2}
    assert Module.kernel is original
    assert benchlib.kernel_resources(None) == {"n_regs": None, "n_spills": None}


def test_ptx_fmas_counts_fp32_fmas_only():
    ptx = "fma.rn.f32 %r1, %r2, %r3, %r4;\n fma.rn.f32 %r5;\n fma.rn.f64 %fd1;\n fma.rn.f32x2 %r9;"
    assert benchlib.ptx_fmas(ptx) == 2


def test_each_file_carries_the_power_sampled_while_its_benchmark_ran(tmp_path, monkeypatch):
    """The runner samples power and SM clock during every benchmark (a fake reader here:
    a board at its limit) and stamps the summary into that file's provenance, where the
    envelope schema accepts it; with nothing to read, no field is written."""
    data, _ = _fake_gpu(tmp_path, monkeypatch, ["toy_a"])
    ceilings = {"copy": {"bytes": 8, "time_s": SPREAD}, "matmul": {}}
    monkeypatch.setattr(benchlib, "measure_ceilings", lambda: ceilings)
    at_limit = {"power_w": 695.0, "power_limit_w": 700.0, "sm_mhz": 1700.0,
                "sm_max_mhz": 1980.0, "busy_percent": 100.0}  # fmt: skip
    monkeypatch.setattr(benchlib, "power_reader", lambda index=0: lambda: dict(at_limit))
    assert measure.main(["toy_a"]) == 0
    doc = json.loads((data / "fake-gpu" / "toy_a.json").read_text())
    power = doc["provenance"]["power"]
    assert power["capped"] and power["samples"] >= 1 and power["power_limit_w"] == 700.0
    assert power["sm_mhz"]["p50"] == 1700.0 and power["at_limit_share"] == 1.0
    schema = json.loads((ROOT / "figures" / "schema.json").read_text())
    jsonschema = pytest.importorskip("jsonschema")
    validator = {"$ref": "#/$defs/provenance", "$defs": schema["$defs"]}
    jsonschema.Draft202012Validator(validator).validate({**doc["provenance"], "dirty": False,
        "sm_count": 1, "compute_capability": "9.0", "memory_bytes": 1, "l2_bytes": 0,
        "numpy": "n", "python": "p", "date": "2026-11-26T00:00:00"})  # fmt: skip

    monkeypatch.setattr(benchlib, "power_reader", lambda index=0: None)
    assert measure.main(["toy_a"]) == 0
    assert "power" not in json.loads((data / "fake-gpu" / "toy_a.json").read_text())["provenance"]
