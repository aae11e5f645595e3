"""Benchmark validity: how much a task's test can be trusted, and judging Rosalind fairly.

* :mod:`.audit` -- null candidates, constant output and mutation score per task
  (``biocoder audit``); its results ship with the dataset as ``harness_strength``.
* :mod:`.rosalind_checkers` / :mod:`.rosalind_rules` -- Rosalind's own acceptance rules
  (numeric tolerance, any valid answer, order-free lists) instead of exact text.
* :mod:`.plus` -- edge values for fuzz placeholders (``--plus``).
"""
