"""The launch benchmark's host-enqueue timing, with the GPU stubbed (runs on a CPU).

enqueue_time() must time only the calls, count a sample only when the spin kernel
outlasted them (so no call can have waited for the GPU), lengthen the spin when it did
not, and give up rather than report a number it cannot vouch for. Each sample's untimed
warm-up calls stay out of the timed batch (the first of them, after the host waited, is
kept apart), and several callables take their samples in turn.
"""

from __future__ import annotations

import pytest

from scripts.bench.benchmarks import launch as bench


class FakeGpu:
    """A spin kernel that lasts ``lasts`` host-clock ticks per cycle; calls take ``call``."""

    def __init__(self, monkeypatch, call: float, lasts_per_cycle: float, first: float = 0.0):
        self.now = 0.0
        self.call = call
        self.first = first or call  # the first call after a spin is queued
        self.cold = False
        self.per_cycle = lasts_per_cycle
        self.spins: list[int] = []
        monkeypatch.setattr(bench.time, "perf_counter", lambda: self.now)
        monkeypatch.setattr(bench.torch.cuda, "synchronize", lambda: None)
        monkeypatch.setattr(bench, "keep_gpu_busy", self.spin)

    def spin(self, cycles: int):
        self.spins.append(cycles)
        self.cold = True
        ends = self.now + cycles * self.per_cycle
        gpu = self

        class Done:
            def query(self):
                return gpu.now >= ends

        return Done()

    def fn(self):
        self.now += self.first if self.cold else self.call
        self.cold = False


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


def test_warm_up_calls_are_not_timed_and_the_first_is_kept_apart(monkeypatch):
    # The first call after each spin costs 100 µs, every other one 3 µs.
    gpu = FakeGpu(monkeypatch, call=3e-6, lasts_per_cycle=1e-9, first=100e-6)
    got = bench.enqueue_times({"a": gpu.fn}, calls={"a": 50}, samples=4, warm=5, cycles=1 << 22)
    assert got["a"]["enqueue_s"]["p50"] == pytest.approx(3e-6)
    assert got["a"]["enqueue_first_s"]["p50"] == pytest.approx(100e-6)
    assert got["a"]["enqueue_s"]["reps"] == got["a"]["enqueue_first_s"]["reps"] == 4


def test_callables_take_their_samples_in_turn(monkeypatch):
    gpu = FakeGpu(monkeypatch, call=1e-6, lasts_per_cycle=1e-9)
    log = []

    def way(key):
        def fn():
            log.append(key)
            gpu.fn()

        return fn

    bench.enqueue_times({"a": way("a"), "b": way("b")}, samples=2, warm=1, calls={"a": 2, "b": 2})
    # three warm-up calls each, then per sample one untimed and two timed calls, a then b
    assert "".join(log) == "aaabbb" + "aaabbb" * 2


def test_the_spin_length_is_kept_per_callable(monkeypatch):
    gpu = FakeGpu(monkeypatch, call=3e-6, lasts_per_cycle=1e-9)
    bench.enqueue_times({"a": gpu.fn}, calls={"a": 20}, samples=3, warm=1, cycles=1 << 14)
    # 21 calls of 3 µs need 63 µs: 2^16 cycles; once found, later samples start there.
    assert gpu.spins == [1 << 14, 1 << 15, 1 << 16, 1 << 16, 1 << 16]
