"""The compile-time benchmark (scripts/bench/benchmarks/compiler.py, ``compiler_time``)
without a GPU: the script it runs in a fresh process works (here under the interpreter,
on the CPU) and says what it timed, and the cache listing counts one kernel's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from scripts.bench import benchlib
from scripts.bench.benchmarks import compiler


def test_the_fresh_process_script_times_first_later_and_new_key_calls(tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1", "TRITON_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", compiler.FIRST_CALL_SCRIPT, "1024", "3", "cpu"],
        cwd=benchlib.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(got) == {"first", "later", "new_key"}
    assert len(got["later"]) == 3 and all(t > 0 for t in got["later"])
    assert got["first"] > 0 and got["new_key"] > 0


def test_cache_files_counts_one_kernels_files_by_name(tmp_path):
    for folder in ("A", "B"):
        (tmp_path / folder).mkdir()
        for name in ("add_kernel.ptx", "add_kernel.cubin", "__grp__add_kernel.json"):
            (tmp_path / folder / name).write_text("")
    (tmp_path / "C").mkdir()
    (tmp_path / "C" / "empty_kernel.ptx").write_text("")
    assert compiler.cache_files(str(tmp_path)) == {
        "__grp__add_kernel.json": 2,
        "add_kernel.cubin": 2,
        "add_kernel.ptx": 2,
    }


def test_rows_follow_the_schema_with_a_fake_process(monkeypatch):
    import copy

    import jsonschema

    calls = []

    def fake_first_call(cache_dir):
        calls.append(cache_dir)
        folder = os.path.join(cache_dir, f"HASH{len(calls)}")
        os.makedirs(folder, exist_ok=True)
        for name in ("add_kernel.ptx", "add_kernel.cubin", "empty_kernel.ptx"):
            open(os.path.join(folder, name), "w").close()
        return {"first": 0.5, "later": [3e-5] * compiler.LATER_CALLS, "new_key": 0.2}

    monkeypatch.setattr(compiler, "first_call", fake_first_call)
    rows = compiler.run_first_calls({})
    # one process fills the warm cache, then REPEATS cold and REPEATS warm ones
    assert len(calls) == 1 + 2 * compiler.REPEATS
    assert len(set(calls)) == 2 + compiler.REPEATS - 1  # the warm folder, a new cold each time
    envelope = json.loads((benchlib.ROOT / "figures" / "schema.json").read_text())
    schema = json.loads((benchlib.ROOT / "figures" / "schemas" / "compiler_time.json").read_text())
    jsonschema.Draft202012Validator({**copy.deepcopy(schema), "$defs": envelope["$defs"]}).validate(
        rows
    )
    by = {(r["cache"], r["call"]): r for r in rows}
    assert set(by) == {(c, k) for c in ("cold", "warm") for k in ("first", "later", "new_key")}
    assert by[("cold", "first")]["cache_files"] == {"add_kernel.cubin": 1, "add_kernel.ptx": 1}
    assert by[("warm", "later")]["time_s"]["reps"] == compiler.REPEATS * compiler.LATER_CALLS
