"""Head-to-head timing, on a CPU with fake clocks (issue 21): implementations are called in
turn (A B A B ...), the L2 flushed before each call; each gets its own spread and, per other
implementation, the percentiles of the ratio taken per round; ``head_to_head`` checks at
once and times at the end of its block. And the power sampler: nvidia-smi's lines parsed,
samples summarised, a capped run told from one that is not."""

from __future__ import annotations

import itertools

import pytest
import torch

from scripts.bench import benchlib


class FakeClock:
    """A clock that the fake calls move: ``mark`` reads it, ``seconds`` subtracts; every
    flush and call is logged, so the order can be checked."""

    def __init__(self, log: list):
        self.now, self.log = 0.0, log

    def flush(self) -> None:
        self.log.append("flush")

    def mark(self) -> float:
        return self.now

    def seconds(self, start: float, end: float) -> float:
        return end - start

    def sync(self) -> None:
        pass


def fake_call(clock: FakeClock, name: str, base: float, drift):
    """A call that takes ``base`` seconds times the GPU's current slowness ``drift()``."""

    def call():
        clock.log.append(name)
        clock.now += base * drift()

    return call


def drifting(factors):
    """The GPU's slowness per call, changing every two calls (one round of two impls)."""
    values = itertools.cycle(factors)
    state = {"calls": 0, "now": next(values)}

    def drift():
        if state["calls"] and state["calls"] % 2 == 0:
            state["now"] = next(values)
        state["calls"] += 1
        return state["now"]

    return drift


def test_calls_alternate_with_a_flush_before_each_timed_call():
    log: list = []
    clock = FakeClock(log)
    fns = {
        "a": fake_call(clock, "a", 2**-10, lambda: 1.0),  # about 1 ms
        "b": fake_call(clock, "b", 2**-9, lambda: 1.0),
    }
    found = benchlib.interleaved(fns, warmup_ms=3, rep_ms=30, min_rounds=4, clock=clock)
    # one untimed call each; 5 flushed calls of a, then of b, to size the rounds (as
    # do_bench's estimate); warm-up rounds without flushes; then the timed rounds
    assert log[:2] == ["a", "b"]
    assert log[2:12] == ["flush", "a"] * 5
    assert log[12:22] == ["flush", "b"] * 5
    warm = int(3e-3 * 2 / (3 * 2**-10))  # about warmup_ms per implementation
    assert log[22 : 22 + 2 * warm] == ["a", "b"] * warm
    rounds = int(30e-3 * 2 / (3 * 2**-10))  # about rep_ms per implementation: 20
    assert log[22 + 2 * warm :] == ["flush", "a", "flush", "b"] * rounds
    assert found["a"]["reps"] == found["b"]["reps"] == rounds == 20


def test_each_spread_says_its_comparison_and_its_ratio_to_the_others():
    clock = FakeClock([])
    drift = drifting([1.0, 3.0, 0.5, 2.0, 1.5])  # the clocks move a lot between rounds
    fns = {
        "triton": fake_call(clock, "triton", 1e-3, drift),
        "cublas": fake_call(clock, "cublas", 1.1e-3, drift),
    }
    found = benchlib.interleaved(fns, warmup_ms=0, rep_ms=0, min_rounds=25, clock=clock)
    ours, peer = found["triton"], found["cublas"]
    assert ours["ab"]["group"] == peer["ab"]["group"]
    assert (ours["ab"]["name"], peer["ab"]["name"]) == ("triton", "cublas")
    # each round's two calls saw the same clocks: the ratio is exact in every round ...
    assert ours["vs"]["cublas"]["p20"] == pytest.approx(1.1)
    assert ours["vs"]["cublas"]["p80"] == pytest.approx(1.1)
    assert peer["vs"]["triton"]["p50"] == pytest.approx(1 / 1.1)
    assert ours["vs"]["cublas"]["reps"] == 25
    # ... while the two spreads overlap widely: apart, they could not be told apart
    assert ours["p80"] > peer["p20"]


def test_ratio_percentiles_are_taken_per_round():
    times = {"a": [1.0, 2.0, 4.0, 1.0, 1.0], "b": [2.0, 2.0, 4.0, 3.0, 1.5]}
    found = benchlib.ratios(times, "g")
    # per round b/a: 2, 1, 1, 3, 1.5 -> sorted 1, 1, 1.5, 2, 3
    assert found["a"]["vs"]["b"] == {"p20": 1.0, "p50": 1.5, "p80": 2.0, "reps": 5}
    assert found["b"]["vs"]["a"]["p50"] == pytest.approx(1 / 1.5)
    assert found["a"]["p50"] == 1.0 and found["b"]["p50"] == 2.0


def test_three_implementations_each_carry_a_ratio_to_the_other_two():
    clock = FakeClock([])
    fns = {n: fake_call(clock, n, t, lambda: 1.0) for n, t in (("x", 1), ("y", 2), ("z", 4))}
    found = benchlib.interleaved(fns, warmup_ms=0, rep_ms=0, min_rounds=3, clock=clock)
    assert set(found["x"]["vs"]) == {"y", "z"}
    assert found["x"]["vs"]["z"]["p50"] == pytest.approx(4)
    assert found["z"]["vs"]["y"]["p50"] == pytest.approx(0.5)
    assert len({s["ab"]["group"] for s in found.values()}) == 1


def test_host_loops_alternate_and_are_synchronised_at_their_ends():
    log: list = []
    clock = FakeClock(log)
    clock.sync = lambda: log.append("sync")
    fns = {
        "torch_add": fake_call(clock, "torch_add", 6e-6, lambda: 1.0),
        "lean": fake_call(clock, "lean", 9e-6, lambda: 1.0),
    }
    found = benchlib.interleaved_host(fns, calls=3, rounds=4, clock=clock)
    timed = log[-4 * 8 :]
    assert timed == (["torch_add"] * 3 + ["sync"] + ["lean"] * 3 + ["sync"]) * 4
    assert found["lean"]["p50"] == pytest.approx(9e-6)
    assert found["lean"]["vs"]["torch_add"]["p50"] == pytest.approx(6 / 9)
    assert found["lean"]["reps"] == 4


@pytest.fixture
def fake_clocks(monkeypatch):
    log: list = []
    clock = FakeClock(log)
    monkeypatch.setattr(benchlib, "CLOCKS", {"device": lambda: clock, "host": lambda: clock})
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    return clock


def test_a_head_to_head_block_checks_at_once_and_times_at_its_end(fake_clocks):
    clock = fake_clocks
    x = torch.arange(8.0)
    expected = x + 1
    out = torch.empty_like(x)

    def impl(name, seconds):
        def call():
            clock.log.append(name)
            clock.now += seconds
            torch.add(x, 1, out=out)

        return call

    rows = []
    with benchlib.head_to_head():
        for name, seconds in (("triton", 1e-3), ("torch", 2e-3)):
            timing = benchlib.check_then_time(
                impl(name, seconds), expected, name, out=out, host=True, name=name
            )
            assert timing["time_s"] == {} and timing["host_s"] == {}  # noted, not yet timed
            rows.append({"impl": name, **timing})
        assert clock.log.count("triton") == 1 + benchlib.ESTIMATE_CALLS  # checked + sized
    triton, torch_row = rows
    assert triton["time_s"]["p50"] == pytest.approx(1e-3)
    assert triton["time_s"]["vs"]["torch"]["p50"] == pytest.approx(2.0)
    assert torch_row["host_s"]["vs"]["triton"]["p50"] == pytest.approx(0.5)
    assert triton["time_s"]["ab"]["group"] != triton["host_s"]["ab"]["group"]


def test_a_wrong_result_fails_before_anything_is_timed(fake_clocks):
    x = torch.arange(4.0)
    with pytest.raises(AssertionError, match="wrong"), benchlib.head_to_head():
        benchlib.check_then_time(lambda: x + 2, x + 1, "wrong", name="wrong")
    assert "flush" not in fake_clocks.log


def test_comparisons_apart_in_one_block_are_timed_apart(fake_clocks):
    clock = fake_clocks
    fns = {
        (name, among): fake_call(clock, f"{name}-{among}", t, lambda: 1.0)
        for name, among, t in (("a", "fwd", 1), ("b", "fwd", 2), ("a", "bwd", 3), ("b", "bwd", 5))
    }
    with benchlib.head_to_head():
        got = {k: benchlib.device_time(fn, 0, 0, name=k[0], among=k[1]) for k, fn in fns.items()}
    assert got[("a", "bwd")]["vs"]["b"]["p50"] == pytest.approx(5 / 3)
    assert got[("a", "fwd")]["ab"]["group"] != got[("a", "bwd")]["ab"]["group"]
    with pytest.raises(ValueError, match="twice"), benchlib.head_to_head():
        benchlib.device_time(fns[("a", "fwd")], name="a")
        benchlib.device_time(fns[("b", "fwd")], name="a")


def test_group_ids_differ_between_comparisons_and_processes():
    first, second = benchlib.new_group(), benchlib.new_group()
    assert first != second and first.split("-")[0] == benchlib._GROUP_TAG


# ---- power and clocks ---------------------------------------------------------------------


def test_nvidia_smi_power_lines_are_parsed():
    assert benchlib.parse_power("681.23, 700.00, 1755, 1980, 100") == {
        "power_w": 681.23,
        "power_limit_w": 700.0,
        "sm_mhz": 1755.0,
        "sm_max_mhz": 1980.0,
        "busy_percent": 100.0,
    }
    partial = benchlib.parse_power("[N/A], 700.00, 1980, 1980, [N/A]")
    assert partial["power_w"] is None and partial["busy_percent"] is None
    assert benchlib.parse_power("power.draw [W], power.limit [W]") is None
    assert benchlib.parse_power("") is None
    assert benchlib.parse_power("[N/A], [N/A], [N/A], [N/A], [N/A]") is None


def sample(power, clock, busy=100, limit=700.0, top=1980.0):
    return {
        "power_w": power,
        "power_limit_w": limit,
        "sm_mhz": clock,
        "sm_max_mhz": top,
        "busy_percent": busy,
    }


def test_a_run_at_its_power_limit_is_capped():
    samples = [sample(690, 1755)] * 3 + [sample(420, 1980, busy=0)] * 7
    found = benchlib.power_summary(samples)
    assert found["capped"] and found["at_limit_share"] == 0.3
    assert found["power_w"] == {"min": 420, "p50": 420, "max": 690}
    assert found["sm_mhz"]["max"] == 1980 and found["busy_sm_mhz"] == 1755
    assert found["samples"] == 10 and found["power_limit_w"] == 700


def test_a_run_under_its_limit_at_full_clock_is_not_capped():
    samples = [sample(520, 1980)] * 9 + [sample(690, 1980)]  # one sample at the limit: 10%
    assert benchlib.power_summary(samples)["capped"]
    samples = [sample(520, 1980)] * 40 + [sample(690, 1980)]  # one in 41: under 5%
    assert not benchlib.power_summary(samples)["capped"]
    idle = [sample(80, 345, busy=0)] * 5 + [sample(500, 1980)] * 5  # idle clocks do not count
    assert not benchlib.power_summary(idle)["capped"]
    slow = [sample(500, 1600)] * 5  # busy, well under the top clock, power to spare
    assert benchlib.power_summary(slow)["capped"]
    assert benchlib.power_summary([]) is None


def test_the_sampler_polls_until_the_block_ends():
    reads = iter([sample(600, 1980), None, sample(700, 1700)] + [sample(650, 1800)] * 1000)

    def read():
        value = next(reads)
        if value is None:
            raise RuntimeError("NVML hiccup")  # a failed read loses one sample
        return value

    with benchlib.PowerSampler(read, interval_ms=1) as sampler:
        while len(sampler.samples) < 5:
            pass
    count = len(sampler.samples)
    assert sampler.samples[:2] == [sample(600, 1980), sample(700, 1700)]
    summary = sampler.summary()
    assert summary["samples"] == count and summary["interval_ms"] == 1
    assert benchlib.PowerSampler(None).__enter__().summary() is None  # nothing to read with


def test_a_comparison_out_of_memory_together_is_timed_apart(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)

    def together():
        raise torch.cuda.OutOfMemoryError("every graph alive at once")

    apart = {"a": lambda: {"p20": 1, "p50": 1, "p80": 1, "reps": 3}}
    assert benchlib._or_apart(together, apart) == {"a": apart["a"]()}
    assert "timing ['a'] apart" in capsys.readouterr().out


def test_a_time_under_the_events_resolution_does_not_divide_by_zero():
    found = benchlib.ratios({"a": [0.0, 1e-6], "b": [1e-6, 1e-6]}, "g")
    assert found["a"]["vs"]["b"]["reps"] == 2 and found["b"]["vs"]["a"]["p20"] > 0
