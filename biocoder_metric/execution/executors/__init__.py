"""Executors: where the engine's sandbox jobs run.

The engine (:mod:`biocoder_metric.execution`) talks to one pool object per role (``golden``,
``candidate``) through the :class:`~biocoder_metric.execution.executors.base.Pool` protocol:
``name``, ``role``, ``environment_id``, ``run(job) -> list[CaseOutcome]``, ``close()``. The local
executor is :class:`~biocoder_metric.execution.executors.local.SandboxPool`;
:mod:`biocoder_metric.execution.executors.ray_pool` spreads the same jobs over a Ray cluster
(a local pool on each node). ``execution/pool.py`` (``make_pool``) picks one. This package imports nothing heavy: Ray is imported only when a Ray pool is
built (``--executor ray``).
"""

from __future__ import annotations

EXECUTORS = ("local", "ray")

__all__ = ["EXECUTORS"]
