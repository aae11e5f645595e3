"""Benchmark scripts (run as ``python3 -m benchmarks.NAME``); raw outputs go to docs/bench-results/."""
