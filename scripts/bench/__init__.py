"""The GPU side: the benchmark runner, its harness and one benchmark module per family."""
