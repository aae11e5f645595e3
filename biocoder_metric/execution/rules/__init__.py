"""The judging rules the engine applies beside :mod:`~biocoder_metric.execution.judging`.

``plus`` (extra fuzz cases: ``--plus``) and Rosalind's answer checkers (``rosalind_checkers``
over ``rosalind_rules``) decide verdicts, so they sit in the engine; the harness audit and the
mutation tools that *measure* harnesses stay above it, in :mod:`biocoder_metric.validity`.
"""
