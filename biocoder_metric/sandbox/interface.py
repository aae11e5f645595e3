"""The sandbox interface every backend implements: :class:`Sandbox`.

A module of its own, importing nothing of the package at run time (``Job`` and ``CaseOutcome``
appear in annotations only), so that ``sandbox/__init__`` can export it directly: importing
``biocoder_metric.types`` runs ``sandbox/__init__`` (``types`` imports the worker protocol in
``sandbox/runtime/``), and ``sandbox/base`` imports ``types``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biocoder_metric.types import CaseOutcome, Job

__all__ = ["Sandbox"]


class Sandbox(ABC):
    """Runs :class:`~biocoder_metric.types.Job` s. One object serves one host thread at a time."""

    name: str = "?"

    @abstractmethod
    def run(self, job: Job) -> list[CaseOutcome]:
        """One outcome per ``job.programs`` entry; never raises for what the candidate does."""

    @property
    @abstractmethod
    def environment_id(self) -> str:
        """Identifies the software environment (part of golden-output cache keys)."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release processes/containers. Idempotent."""

    def stats(self) -> dict[str, Any]:
        """What this sandbox is and has done so far, for measuring tools (benchmarks, tests).

        Cheap and side-effect free: never starts a worker. Always has ``backend``; each
        backend adds its own keys (process ids, container id, counters).
        """
        return {"backend": self.name}

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
