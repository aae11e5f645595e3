"""The interface every executor's pool has: :class:`Pool` (a :class:`typing.Protocol`).

The engine talks to one pool per role (``golden``, ``candidate``) and only through these
members, so a new executor (a cluster, a queue) is one module in this package that builds an
object with them; nothing in the engine changes.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from biocoder_metric.types import CaseOutcome, Job

#: The roles a pool is built for: golden isolation keeps them in separate pools.
ROLES = ("golden", "candidate")


@runtime_checkable
class Pool(Protocol):
    """Where jobs run: the sandbox backend's ``name``, the ``environment_id`` that golden cache
    keys include, ``run(job)`` (one outcome per case; sandbox failures retried and attributed,
    never raised for what the candidate does) and ``close()``. A pool that runs more jobs at
    once than the engine's ``workers`` may also say so in ``concurrency``."""

    name: str
    role: str
    environment_id: str

    def run(self, job: Job) -> list[CaseOutcome]: ...

    def close(self) -> None: ...
