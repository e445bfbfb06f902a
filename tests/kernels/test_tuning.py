"""kernels/_tuning.py: the split-K kernel tuned two ways (lesson 13).

- ``split_k_for`` (the heuristic) picks the SPLIT_K its docstring promises;
- ``split_k_matmul`` matches the float64 reference with either way of tuning;
- the autotuner's ``reset_to_zero`` is what makes the autotuned call right: the same tuner
  without it returns the product added up once per timed run.

Without a GPU the autotuner cannot time with CUDA events; there the tests build the same
autotuner (configs, key, reset_to_zero read from ``split_k_autotuned``) with a ``do_bench``
that runs each config a fixed number of times on the CPU.

Tolerance, per element, against the float64 result ``ref``: ``2 (t + (K + 8) 2**-24)
(|a| @ |b|) + 2**-24``, with t = 2**-9 for TF32 (float32 inputs on a GPU) and 0 otherwise
(fp16 products are exact in float32). A missing or doubled K step is off by about the size
of the values and fails.
"""

import pytest
import torch
import triton

from kernels import _tuning as tu
from tests.support import ON_GPU, fresh_seed, rand, requires_gpu

RUNS_PER_CONFIG = 3  # the CPU stand-in for do_bench runs each config this often


def assert_matches(c, a, b, msg=""):
    ref = tu.reference(a, b).double()
    scale = a.double().abs() @ b.double().abs()
    tf32 = 2**-9 if a.dtype == torch.float32 and ON_GPU else 0.0
    allowed = 2 * (tf32 + (a.shape[1] + 8) * 2**-24) * scale + 2**-24
    assert c.dtype == torch.float32 and c.shape == ref.shape, msg
    bad = ~((c.double() - ref).abs() <= allowed)
    assert not bad.any(), f"{int(bad.sum())} of {c.numel()} elements off {msg}"


def counting_bench(kernel_call, quantiles=None):
    """do_bench on the CPU: run the config RUNS_PER_CONFIG times, report the mean in ms."""
    import time

    t0 = time.perf_counter()
    for _ in range(RUNS_PER_CONFIG):
        kernel_call()
    ms = (time.perf_counter() - t0) / RUNS_PER_CONFIG * 1e3
    return [ms, ms, ms] if quantiles else ms


def twin(reset: bool):
    """An autotuner like split_k_autotuned (same configs and key), with or without its
    reset_to_zero; on the CPU it times with counting_bench."""
    src = tu.split_k_autotuned
    return triton.autotune(
        configs=src.configs,
        key=src.keys,
        reset_to_zero=src.reset_to_zero if reset else None,
        do_bench=None if ON_GPU else counting_bench,
    )(tu.split_k_kernel)


def spied_twin(monkeypatch):
    """``twin(reset=True)`` in place of split_k_autotuned, and the list its do_bench calls
    append to: one entry per config timed."""
    calls = []
    tuner = twin(reset=True)
    real = tuner.do_bench

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    tuner.__dict__["do_bench"] = spy  # cached_property: the instance's own value wins
    monkeypatch.setattr(tu, "split_k_autotuned", tuner)
    return tuner, calls


# ---- the heuristic --------------------------------------------------------------------------


def blocks(m, n, k):
    return {"M": m, "N": n, "K": k, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}


@pytest.mark.parametrize(
    "m, n, k, split",
    [
        (4096, 4096, 4096, 1),  # 4,096 tiles: the grid is full without splitting
        (64, 64, 8192, 8),  # one tile, 256 K steps: split as far as allowed
        (64, 64, 200, 1),  # one tile, 7 K steps: too few to share
        (64, 64, 256, 2),  # 8 K steps: two programs of 4
        (512, 512, 4096, 2),  # 64 tiles: 2 x 64 = 128 programs is enough
    ],
)
def test_heuristic_split(m, n, k, split):
    assert tu.split_k_for(blocks(m, n, k)) == split


# ---- results --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", tu.SUPPORTED_DTYPES, ids=str)
@pytest.mark.parametrize("m, n, k", [(70, 45, 300), (33, 130, 1100), (1, 1, 2100), (5, 7, 3)])
def test_heuristics_matches_reference(m, n, k, dtype):
    seed = fresh_seed()
    a, b = rand((m, k), dtype), rand((k, n), dtype)
    c = tu.split_k_matmul(a, b)
    split = tu.split_k_for(blocks(m, n, k))
    assert_matches(c, a, b, msg=f"seed={seed} SPLIT_K={split}")


def test_reads_transposed_operands_in_place():
    seed = fresh_seed()
    a, b = rand((300, 40), torch.float16).t(), rand((90, 300), torch.float16).t()
    assert_matches(tu.split_k_matmul(a, b), a, b, msg=f"seed={seed}")


def test_launch_alone_matches_reference():
    """The launch section works on its own (heuristic SPLIT_K: no GPU needed)."""
    seed = fresh_seed()
    a, b = rand((64, 2100), torch.float16), rand((2100, 30), torch.float16)
    assert_matches(tu.launch(a, b), a, b, msg=f"seed={seed}")


# ---- reset_to_zero --------------------------------------------------------------------------


def test_the_autotuned_kernel_resets_its_output(monkeypatch):
    """With reset_to_zero the autotuned call is right, even though every config ran many
    times into the same c while it was being timed."""
    seed = fresh_seed()
    a, b = rand((40, 50), torch.float16), rand((600, 50), torch.float16).t()
    if not ON_GPU:
        monkeypatch.setattr(tu, "split_k_autotuned", twin(reset=True))
    tuner = tu.split_k_autotuned
    c = tu.split_k_matmul(a, b, tuning="autotune")
    assert_matches(c, a, b, msg=f"seed={seed} picked {tuner.best_config}")


def test_without_reset_to_zero_the_timed_runs_add_up(monkeypatch):
    """The same autotuner without reset_to_zero: c holds the product once per timed run,
    plus once for the real call."""
    seed = fresh_seed()
    a, b = rand((40, 600), torch.float16), rand((600, 50), torch.float16)
    monkeypatch.setattr(tu, "split_k_autotuned", twin(reset=False))
    c = tu.split_k_matmul(a, b, tuning="autotune")
    ref = tu.reference(a, b)
    ratio = (c.double() * ref.double()).sum() / (ref.double() ** 2).sum()  # c ~ ratio * ref
    if not ON_GPU:
        runs = len(tu.split_k_autotuned.configs) * RUNS_PER_CONFIG + 1
        assert ratio.item() == pytest.approx(runs, rel=1e-3), f"seed={seed}"
    else:  # do_bench decides how many runs; each adds one more product
        assert ratio.item() > 10, f"seed={seed}"


def test_a_second_call_with_the_same_shape_does_not_retune(monkeypatch):
    tuner, calls = spied_twin(monkeypatch)
    a, b = rand((20, 300), torch.float16), rand((300, 30), torch.float16)
    tu.split_k_matmul(a, b, tuning="autotune")
    first = len(calls)
    assert first == len(tuner.configs)  # one do_bench per config
    assert_matches(tu.split_k_matmul(a, b, tuning="autotune"), a, b)
    assert len(calls) == first  # same key: the cached winner, no timing
    tu.split_k_matmul(
        rand((20, 301), torch.float16), rand((301, 30), torch.float16), tuning="autotune"
    )
    assert len(calls) == 2 * first  # a new K is a new key


@requires_gpu
def test_autotuned_at_a_realistic_small_output_size():
    seed = fresh_seed()
    a, b = rand((128, 8192), torch.float16), rand((8192, 192), torch.float16)
    c = tu.split_k_matmul(a, b, tuning="autotune")
    assert_matches(c, a, b, msg=f"seed={seed} picked {tu.split_k_autotuned.best_config}")


def test_a_new_m_in_the_same_bucket_does_not_retune(monkeypatch):
    """The key holds M's bucket (the next power of two), not M: a batch of 20 rows tunes,
    one of 25 reuses the winner, one of 40 (bucket 64) tunes again."""
    assert "M" not in tu.split_k_autotuned.keys and "M_BUCKET" in tu.split_k_autotuned.keys
    tuner, calls = spied_twin(monkeypatch)
    b = rand((300, 30), torch.float16)
    counts = []
    for m in (20, 25, 32, 40):
        a = rand((m, 300), torch.float16)
        assert_matches(tu.split_k_matmul(a, b, tuning="autotune"), a, b, msg=f"M={m}")
        counts.append(len(calls))
    per_tuning = len(tuner.configs)
    assert counts == [per_tuning, per_tuning, per_tuning, 2 * per_tuning], counts
