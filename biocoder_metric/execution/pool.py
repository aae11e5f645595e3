"""Where jobs run: a pool of sandboxes lent one per thread, or a cluster executor's pool.

Golden isolation is decided here: :func:`make_pool` gives goldens and candidates
separate pools, so no candidate runs in a worker that ever held a golden.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.types import CaseOutcome, Job, RunStatus


class SandboxPool:
    """Up to ``size`` sandboxes, created lazily, each lent to one thread at a time."""

    def __init__(self, options: EvalOptions, size: int, factory: Callable[..., Any] | None = None):
        from biocoder_metric.sandbox import default_sandbox_name, make_sandbox

        self._make = factory or make_sandbox  # ``factory``: same signature as make_sandbox
        self.options = options
        self.name = (
            options.sandbox if factory or options.sandbox != "auto" else default_sandbox_name(options.image)
        )
        self.size = size
        self._free: queue.LifoQueue = queue.LifoQueue()
        self._lock = threading.Lock()
        self._count = 0
        first = self._new()  # fail fast (e.g. Docker not running) before any work is scheduled
        self.environment_id: str = first.environment_id
        self._free.put(first)

    def _new(self):
        sb = self._make(self.name, allow_unsafe=self.options.allow_unsafe, image=self.options.image)
        with self._lock:
            self._count += 1
        return sb

    def _acquire(self):
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            grow = self._count < self.size
        if grow:
            return self._new()
        return self._free.get()

    def _discard(self, sb) -> None:
        with self._lock:
            self._count -= 1
        try:
            sb.close()
        except Exception:  # noqa: BLE001 - a broken sandbox may fail to close; it is dropped either way
            pass

    def run(self, job: Job) -> list[CaseOutcome]:
        """Run ``job``; on a sandbox error retry up to ``settings.SANDBOX_RETRIES`` times, each on a fresh sandbox.

        Infrastructure is never the candidate's fault: a sandbox that failed (raised, or reported
        ``sandbox_error`` for a case) is discarded, and the whole job runs again on a new one.
        """
        from biocoder_metric.sandbox import SandboxError

        outcomes: list[CaseOutcome] = []
        for attempt in range(1 + settings.SANDBOX_RETRIES):
            sb = self._acquire() if attempt == 0 else self._new()
            try:
                outcomes = list(sb.run(job))
            except SandboxError as exc:
                self._discard(sb)
                outcomes = [
                    CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr=f"sandbox error: {exc}")
                ] * len(job.programs)
                continue
            if len(outcomes) != len(job.programs):
                outcomes = [
                    CaseOutcome(
                        status=RunStatus.SANDBOX_ERROR,
                        stderr=f"sandbox returned {len(outcomes)} outcomes for {len(job.programs)} cases",
                    )
                ] * len(job.programs)
            if not any(o.status == RunStatus.SANDBOX_ERROR for o in outcomes):
                self._free.put(sb)
                return outcomes
            self._discard(sb)
        return outcomes

    def close(self) -> None:
        while True:
            try:
                sb = self._free.get_nowait()
            except queue.Empty:
                break
            self._discard(sb)


def executor_pool(options: EvalOptions, role: str) -> Any | None:
    """The pool of a non-local executor (``options.executor``), or None for a local run.

    Imported lazily so that Ray is loaded only when ``--executor ray`` asks for it.
    """
    if options.executor == "ray":
        from biocoder_metric.execution.executors.ray_pool import RayPool

        return RayPool(options, role)
    return None


def make_pool(options: EvalOptions, role: str) -> Any:
    """The pool for ``role``: ``"golden"`` (reference outputs) or ``"candidate"`` (samples).

    Golden isolation: golden programs and candidates never share a worker, so no candidate
    can find a golden's text or outputs in its sandbox (memory, processes, files). Golden
    pools are short-lived: the engine closes one as soon as the goldens it needed are known.
    """
    if role not in ("golden", "candidate"):
        raise ValueError(f"pool role must be 'golden' or 'candidate', got {role!r}")
    return executor_pool(options, role) or SandboxPool(options, options.workers)


def dispatch_threads(options: EvalOptions, pool: Any) -> int:
    """Engine threads feeding ``pool``: ``workers``, or more when the pool (a cluster) runs more at once."""
    return max(options.workers, int(getattr(pool, "concurrency", 0) or 0))
