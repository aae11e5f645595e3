"""Which pool a run gets: :func:`make_pool` picks the executor and keeps goldens apart.

Golden isolation is decided here: :func:`make_pool` gives goldens and candidates
separate pools, so no candidate runs in a worker that ever held a golden. The pools themselves
are executors (``executors/``): ``local.SandboxPool`` on this machine, ``ray_pool.RayPool``
over a cluster, both :class:`~biocoder_metric.execution.executors.base.Pool` s.
"""

from __future__ import annotations

from biocoder_metric.execution.executors.base import ROLES, Pool
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.execution.options import EvalOptions


def executor_pool(options: EvalOptions, role: str) -> Pool | None:
    """The pool of a non-local executor (``options.executor``), or None for a local run.

    Imported lazily so that Ray is loaded only when ``--executor ray`` asks for it.
    """
    if options.executor == "ray":
        from biocoder_metric.execution.executors.ray_pool import RayPool

        return RayPool(options, role)
    return None


def make_pool(options: EvalOptions, role: str) -> Pool:
    """The pool for ``role``: ``"golden"`` (reference outputs) or ``"candidate"`` (samples).

    Golden isolation: golden programs and candidates never share a worker, so no candidate
    can find a golden's text or outputs in its sandbox (memory, processes, files). Golden
    pools are short-lived: the engine closes one as soon as the goldens it needed are known.
    """
    if role not in ROLES:
        raise ValueError(f"pool role must be 'golden' or 'candidate', got {role!r}")
    return executor_pool(options, role) or SandboxPool(options, options.workers, role=role)


def dispatch_threads(options: EvalOptions, pool: Pool) -> int:
    """Engine threads feeding ``pool``: ``workers``, or more when the pool (a cluster) runs more at once."""
    return max(options.workers, int(getattr(pool, "concurrency", 0) or 0))
