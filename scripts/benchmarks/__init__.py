"""One module per kernel family, found by scripts/measure.py: ``F.py`` lists ``BENCHMARKS``."""
