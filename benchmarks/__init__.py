"""Developer benchmarks, not installed: ``python -m benchmarks NAME ...`` from the repo root
(``speed``, ``scaling``, ``build_extract``, ``synth_compare``); raw outputs go to docs/bench-results/."""
