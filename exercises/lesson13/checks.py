"""Checks of lesson 13's exercises: each launches the reader's kernel with its own grid."""

import time

import torch
import triton
from triton.runtime.autotuner import Autotuner

from exercises.checking import INTERPRETED, Wrong, answer, book_value, launch, ragged, rand

RUNS_PER_CONFIG = 3  # the CPU stand-in for do_bench runs each config this often


def _cpu_bench(kernel_call, quantiles=None):
    """do_bench without a GPU: run the config RUNS_PER_CONFIG times, the mean in ms."""
    t0 = time.perf_counter()
    for _ in range(RUNS_PER_CONFIG):
        kernel_call()
    ms = (time.perf_counter() - t0) / RUNS_PER_CONFIG * 1e3
    return [ms, ms, ms] if quantiles else ms


def _tuner(module, name="sum_kernel", do_bench=None) -> Autotuner:
    tuner = getattr(module, name, None)
    if not isinstance(tuner, Autotuner):
        raise Wrong(f"{name} is no longer autotuned: keep @triton.autotune and fix its settings")
    if do_bench is not None or INTERPRETED:
        # Without a GPU the autotuner cannot time with CUDA events: the same autotuner (your
        # configs, key, reset_to_zero and restore_value) with a CPU stand-in for do_bench.
        return triton.autotune(
            configs=tuner.configs,
            key=tuner.keys,
            reset_to_zero=tuner.reset_to_zero or None,
            restore_value=tuner.restore_value or None,
            prune_configs_by=(
                {"early_config_prune": prune}
                if (prune := getattr(tuner, "early_config_prune", None))
                else None
            ),
            do_bench=do_bench or _cpu_bench,
        )(tuner.fn)
    return tuner


def reset_to_zero(module) -> str:
    tuner = _tuner(module)
    sizes = (ragged(200, 400), ragged(500, 900))
    for n in (*sizes, sizes[0]):  # two new n (each tuned), then the first again (cached)
        x = rand((n,)).abs() + 0.5  # positive: the sum is far from 0, the ratio readable
        out = torch.zeros(1, device=x.device)
        grid = lambda meta, n=n: ((n + meta["BLOCK"] - 1) // meta["BLOCK"],)  # noqa: E731
        launch(tuner, grid, x, out, n)
        got, want = out.item(), x.double().sum().item()
        if abs(got - want) > 1e-3 * (1 + x.double().abs().sum().item()):
            raise Wrong(
                f"n = {n}: out = {got:.6g}, want {want:.6g}, {got / want:.1f} times the sum", hint=1
            )
    return f"n = {sizes[0]} and {sizes[1]}, each tuned over 3 BLOCKs, then {sizes[0]} cached"


def _same_time(kernel_call, quantiles=None):
    """do_bench that runs the config once and calls every config equally fast: the
    autotuner then keeps the first config left after pruning, the same on every machine."""
    kernel_call()
    return [1.0, 1.0, 1.0] if quantiles else 1.0


def key(module) -> str:
    tuner = _tuner(module, "row_max_kernel", do_bench=_same_time)
    n_rows = ragged(3, 9)
    calls = []
    for n_cols in (ragged(70, 120), ragged(300, 500)):  # the same rows, then wider ones
        x = rand((n_rows, n_cols + 3))[:, :n_cols]
        x[:, -1] = x.abs().max() + 1  # every row's maximum in its last column
        out = torch.full((n_rows,), float("nan"), device=x.device)
        launch(tuner, (n_rows,), x, out, n_rows, n_cols, x.stride(0))
        block = tuner.best_config.kwargs["BLOCK"]
        calls.append(f"{n_cols} columns: BLOCK {block}")
        want = x.double().amax(dim=1)
        bad = ~((out.double() - want).abs() <= 1e-6)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise Wrong(
                f"{n_rows} rows of {n_cols} columns, after {' and '.join(calls[:-1])}: "
                f"out[{i}] = {out[i].item():.6g}, want {want[i].item():.6g}; this call ran "
                f"with BLOCK = {block}",
                hint=1,
            )
    return f"{n_rows} rows of {calls[0]}, then of {calls[1]}"


STAGES = (3, 4, 5)


def stages(module) -> str:
    guess = answer(module, "ANSWER", hint=1)
    if guess not in STAGES:
        raise Wrong(f"ANSWER is {guess!r}: pick 3, 4 or 5", hint=1)
    rates = {
        s: book_value("h100", "matmul_autotune.config_tflops", tile="128x128x64", warps=8, stages=s)
        for s in STAGES
    }
    best = max(rates, key=rates.get)
    said = ", ".join(f"{s} stages {rates[s] / 1e12:.0f}" for s in STAGES)
    if guess != best:
        raise Wrong(f"not {guess}: our H100 measured {said} TFLOP/s", hint=2)
    return f"our H100 measured {said} TFLOP/s"
