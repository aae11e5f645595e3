"""The local executor: a pool of sandboxes on this machine, lent one per thread.

Sandbox failures are handled here: goldens are retried on fresh sandboxes, candidates once and
then attributed by a canary job (``sandbox_killed`` or ``sandbox_error``). Cluster executors
(``ray_pool``) run this same pool on each of their nodes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.errors import SandboxError
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.languages import runner
from biocoder_metric.types import CaseOutcome, Job, RunStatus

#: What the canary prints: one fixed line, so that a sandbox that runs it cleanly is known to work.
CANARY_OUTPUT = "biocoder canary ok\n"


def canary_job(job: Job) -> Job:
    """A one-case job that must run cleanly anywhere ``job`` could: same language and limits."""
    cls = job.class_name or "Main"
    source = runner(job.language).canary(cls)
    return Job(
        language=job.language,
        programs=(source,),
        timeout_s=job.timeout_s,
        memory_mb=job.memory_mb,
        class_name=cls,
    )


class SandboxPool:
    """Up to ``size`` sandboxes, created lazily, each lent to one thread at a time."""

    def __init__(
        self,
        options: EvalOptions,
        size: int,
        factory: Callable[..., Any] | None = None,
        role: str = "candidate",
    ):
        from biocoder_metric.sandbox import default_sandbox_name, make_sandbox

        #: ``candidate`` (untrusted: sandbox failures are attributed by a canary) or ``golden``.
        self.role = role
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
        sb = self._make(
            self.name,
            allow_unsafe=self.options.allow_unsafe,
            image=self.options.image,
            batch=self.options.case_batching,
        )
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

    def _attempt(self, job: Job, sb: Any) -> tuple[list[CaseOutcome], bool]:
        """Run ``job`` on ``sb``: (outcomes, whether the sandbox failed). A failed sandbox is discarded."""
        try:
            outcomes = list(sb.run(job))
        except SandboxError as exc:
            self._discard(sb)
            return [CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr=f"sandbox error: {exc}")] * len(
                job.programs
            ), True
        if len(outcomes) != len(job.programs):
            outcomes = [
                CaseOutcome(
                    status=RunStatus.SANDBOX_ERROR,
                    stderr=f"sandbox returned {len(outcomes)} outcomes for {len(job.programs)} cases",
                )
            ] * len(job.programs)
        if any(o.status == RunStatus.SANDBOX_ERROR for o in outcomes):
            self._discard(sb)
            return outcomes, True
        self._free.put(sb)
        return outcomes, False

    def _fresh(self) -> Any | None:
        """A new sandbox, or None when none can be started (the engine is away, say)."""
        try:
            return self._new()
        except SandboxError:
            return None

    def run(self, job: Job) -> list[CaseOutcome]:
        """Run ``job``; a sandbox failure is retried, then (candidates) attributed by a canary.

        Goldens are trusted code: a sandbox failure while one runs is infrastructure, retried
        up to ``settings.SANDBOX_RETRIES`` times on fresh sandboxes. Candidates are not: a job
        whose sandbox failed runs once more on a fresh sandbox, and if that fails too, a fixed
        canary job runs on another fresh sandbox of the same environment. If the canary runs
        cleanly, the sandbox works and the failures are the candidate's (``sandbox_killed``:
        counted in n, never in c); only if the canary fails as well is it ``sandbox_error``,
        left out of n and c, and the run is partial. So a candidate cannot remove itself from
        the score by breaking its sandbox, and this costs two sandbox starts, not a minute.
        """
        if self.role != "candidate":
            outcomes: list[CaseOutcome] = []
            for attempt in range(1 + settings.SANDBOX_RETRIES):
                sb = self._acquire() if attempt == 0 else self._fresh()
                if sb is None:
                    continue
                outcomes, failed = self._attempt(job, sb)
                if not failed:
                    return outcomes
            return outcomes or [
                CaseOutcome(status=RunStatus.SANDBOX_ERROR, stderr="no sandbox could be started")
            ] * len(job.programs)
        outcomes, failed = self._attempt(job, self._acquire())
        if not failed:
            return outcomes
        sb = self._fresh()
        if sb is not None:
            outcomes, failed = self._attempt(job, sb)
            if not failed:
                return outcomes
        verdict = self.canary(job)
        if verdict is None:
            return outcomes  # infrastructure: the canary failed too
        return [
            CaseOutcome(
                status=RunStatus.SANDBOX_KILLED,
                stderr=f"{o.stderr[-1500:]}\nthe sandbox failed while this program ran, twice; a canary "
                f"job then ran cleanly in a fresh sandbox ({verdict}), so the failure is the program's",
                duration_s=o.duration_s,
            )
            if o.status == RunStatus.SANDBOX_ERROR
            else o
            for o in outcomes
        ]

    def canary(self, job: Job) -> str | None:
        """Run the fixed canary job (the job's language and limits) on a fresh sandbox.

        Returns a short description when it ran cleanly, None when it did not (or no sandbox
        could be started). The sandbox it ran on joins the pool: it is as fresh as any other.
        """
        sb = self._fresh()
        if sb is None:
            return None
        probe = canary_job(job)
        try:
            got = list(sb.run(probe))
        except SandboxError:
            self._discard(sb)
            return None
        ok = len(got) == 1 and got[0].status == RunStatus.OK and got[0].returncode == 0
        ok = ok and got[0].stdout == CANARY_OUTPUT
        if not ok:
            self._discard(sb)
            return None
        self._free.put(sb)
        return f"{probe.language} canary, {got[0].duration_s:.2f} s"

    def close(self) -> None:
        while True:
            try:
                sb = self._free.get_nowait()
            except queue.Empty:
                break
            self._discard(sb)
