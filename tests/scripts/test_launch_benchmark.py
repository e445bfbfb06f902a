"""The launch benchmark's host-enqueue timing, with the GPU stubbed (runs on a CPU).

enqueue_time() must time only the calls, count a sample only when the spin kernel
outlasted them (so no call can have waited for the GPU), lengthen the spin when it did
not, and give up rather than report a number it cannot vouch for.
"""

from __future__ import annotations

import pytest

from scripts.bench.benchmarks import launch as bench


class FakeGpu:
    """A spin kernel that lasts ``lasts`` host-clock ticks per cycle; calls take ``call``."""

    def __init__(self, monkeypatch, call: float, lasts_per_cycle: float):
        self.now = 0.0
        self.call = call
        self.per_cycle = lasts_per_cycle
        self.spins: list[int] = []
        monkeypatch.setattr(bench.time, "perf_counter", lambda: self.now)
        monkeypatch.setattr(bench.torch.cuda, "synchronize", lambda: None)
        monkeypatch.setattr(bench, "keep_gpu_busy", self.spin)

    def spin(self, cycles: int):
        self.spins.append(cycles)
        ends = self.now + cycles * self.per_cycle
        gpu = self

        class Done:
            def query(self):
                return gpu.now >= ends

        return Done()

    def fn(self):
        self.now += self.call


def test_times_only_the_calls_per_call(monkeypatch):
    gpu = FakeGpu(monkeypatch, call=3e-6, lasts_per_cycle=1e-9)
    s = bench.enqueue_time(gpu.fn, calls=20, samples=5, cycles=1 << 20)
    assert s["reps"] == 5
    assert s["p50"] == pytest.approx(3e-6)
    assert set(gpu.spins) == {1 << 20}


def test_a_spin_too_short_is_doubled_and_its_sample_dropped(monkeypatch):
    # 20 calls of 3 µs take 60 µs; 2^14 cycles at 1 ns last 16 µs: too short, twice.
    gpu = FakeGpu(monkeypatch, call=3e-6, lasts_per_cycle=1e-9)
    s = bench.enqueue_time(gpu.fn, calls=20, samples=3, cycles=1 << 14)
    assert gpu.spins[:3] == [1 << 14, 1 << 15, 1 << 16]
    assert s["reps"] == 3 and s["p50"] == pytest.approx(3e-6)


def test_gives_up_when_no_spin_outlasts_the_calls(monkeypatch):
    gpu = FakeGpu(monkeypatch, call=1.0, lasts_per_cycle=1e-12)
    with pytest.raises(RuntimeError, match="GPU finished before"):
        bench.enqueue_time(gpu.fn, calls=20, samples=3)


def test_per_kernel_divides_the_times_not_the_count():
    s = {"p20": 2.0, "p50": 3.0, "p80": 4.0, "reps": 7}
    assert bench.per_kernel(s, 100) == {"p20": 0.02, "p50": 0.03, "p80": 0.04, "reps": 7}
