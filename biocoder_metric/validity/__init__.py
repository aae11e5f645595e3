"""Benchmark validity: how much a task's test can be trusted (tools above the engine).

* :mod:`.audit` -- null candidates, constant output and mutation score per task
  (``biocoder audit``); its results ship with the dataset as ``harness_strength``.
* :mod:`.mutation`, :mod:`.heldout_mutants` -- the mutants the audit and the synthesis run.

The judging rules the engine itself applies (``--plus`` edge values, Rosalind's acceptance
rules) are not here: they sit beside judging, in :mod:`biocoder_metric.execution.rules`.
"""
