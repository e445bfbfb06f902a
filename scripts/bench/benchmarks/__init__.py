"""One module per kernel family, found by scripts/bench/measure.py.

Each ``F.py`` lists ``BENCHMARKS``."""
