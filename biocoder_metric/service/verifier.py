"""A warm verifier: the engine's session kept open, judging samples on request.

Why not call ``biocoder evaluate`` per batch: an RL trainer asks for thousands of verdicts per
step, and each CLI run pays the start-up, the golden phase and the file round trip. A
:class:`Verifier` pays them once. It opens one engine :class:`~biocoder_metric.execution.engine.Session`
(the same candidate pool, golden store and harness-strength check the CLI uses), computes
every task's status at start (goldens from the cache when present), and then judges each
sample with ``Session.run_sample``: the very call ``biocoder evaluate`` makes. So a verdict
here is the CLI's verdict, with the same status vocabulary, the same retry-then-canary rule
for sandbox failures, and the same clean state between cases: concurrency comes only from
the pool's sandboxes, which the CLI uses concurrently too.

A sample of a task that is not scored (no harness, golden fails here, weak harness) gets
that task status as its status, as in ``results.jsonl``; it never counts as passed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from biocoder_metric.errors import EvalInputError
from biocoder_metric.execution.engine import Session, excluded_result
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.tasks import index_problems, select_tasks
from biocoder_metric.samples import check_sample
from biocoder_metric.types import SampleResult, Status, TaskStatus

#: The longest completion accepted (characters): a bigger one is a client error, not a program.
MAX_COMPLETION_CHARS = 200_000


class BadSampleError(EvalInputError):
    """A sample that cannot be judged (unknown task, missing or oversized completion); names the item."""


@dataclass
class Verdict:
    """One judged sample, in the service's response shape."""

    task_id: str
    sample_id: Any
    status: str
    passed: bool
    cases_passed: int | None
    cases_total: int | None
    first_failure: dict[str, Any] | None = None
    task_status: str = TaskStatus.OK

    def to_json(self) -> dict[str, Any]:
        out = {
            "sample_id": self.sample_id,
            "task_id": self.task_id,
            "status": self.status,
            "passed": self.passed,
            "cases_passed": self.cases_passed,
            "cases_total": self.cases_total,
            "task_status": self.task_status,
        }
        if self.first_failure is not None:
            # Never the expected output: with a fixed fuzz seed it is the same on every call, and a
            # trainer that feeds failures back to the model would teach it to print the answer.
            out["first_failure"] = {
                k: v for k, v in self.first_failure.items() if not k.startswith("expected")
            }
        return out

    @classmethod
    def of(cls, result: SampleResult, sample_id: Any) -> Verdict:
        return cls(
            task_id=result.task_id,
            sample_id=sample_id,
            status=str(result.status),
            passed=result.status == Status.PASSED,
            cases_passed=result.cases_passed,
            cases_total=result.cases_total,
            first_failure=result.first_failure,
            task_status=str(result.extra.get("task_status", TaskStatus.OK)),
        )


@dataclass
class Stats:
    """Counters the metrics endpoint reports (read under the verifier's lock)."""

    judged: int = 0
    in_flight: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    latencies_s: list[float] = field(default_factory=list)  # per sample, the last 10,000
    started: float = field(default_factory=time.monotonic)


class Verifier:
    """The engine session held open: ``judge(samples)`` returns the CLI's verdicts, in order."""

    def __init__(
        self,
        problems: Iterable[dict[str, Any]],
        options: EvalOptions,
        *,
        task_ids: Sequence[str] | None = None,
        progress: bool = False,
    ):
        self.options = options
        self.by_id = select_tasks(index_problems(problems), task_ids)
        self.session = Session(options)
        self._lock = threading.Lock()
        self.stats = Stats()
        try:
            rows = [r for r in self.by_id.values()]
            self.task_status = dict(self.session.task_statuses(rows, progress))  # the golden phase, once
        except BaseException:
            self.session.close()
            raise
        self._pool = ThreadPoolExecutor(max(1, self.session.threads), thread_name_prefix="biocoder-judge")
        self.sandbox = self.session.pool.name
        self.environment_id = self.session.pool.environment_id

    @property
    def concurrency(self) -> int:
        """Samples judged at once (the pool's sandboxes)."""
        return max(1, self.session.threads)

    def check(self, items: Sequence[Any]) -> list[dict[str, Any]]:
        """The request's samples, checked; the first bad one raises :class:`BadSampleError` naming it."""
        out = []
        for i, obj in enumerate(items):
            where = f"samples[{i}]"
            try:
                s = check_sample(obj, where)
            except ValueError as exc:
                raise BadSampleError(str(exc)) from None
            if s["task_id"] not in self.by_id:
                raise BadSampleError(f"{where}: unknown task_id {s['task_id']!r}")
            if len(s["completion"]) > MAX_COMPLETION_CHARS:
                raise BadSampleError(
                    f"{where}: completion of {len(s['completion'])} characters is over the "
                    f"limit of {MAX_COMPLETION_CHARS}"
                )
            s["sample_id"] = obj.get("sample_id", i) if isinstance(obj, dict) else i
            s["sample_index"] = i
            out.append(s)
        return out

    def judge_one(self, sample: dict[str, Any]) -> Verdict:
        """Judge one checked sample exactly as ``biocoder evaluate`` does."""
        started = time.monotonic()
        with self._lock:
            self.stats.in_flight += 1
        try:
            row = self.by_id[sample["task_id"]]
            status, reason = self.task_status[sample["task_id"]]
            if status == TaskStatus.OK:
                result = self.session.run_sample(row, sample)
            else:
                result = excluded_result(sample, status, reason)
            verdict = Verdict.of(result, sample.get("sample_id"))
        finally:
            with self._lock:
                self.stats.in_flight -= 1
        with self._lock:
            self.stats.judged += 1
            self.stats.by_status[verdict.status] = self.stats.by_status.get(verdict.status, 0) + 1
            self.stats.latencies_s.append(time.monotonic() - started)
            del self.stats.latencies_s[:-10_000]
        return verdict

    def judge(self, samples: Sequence[Any]) -> list[Verdict]:
        """Verdicts for ``samples`` (dicts with ``task_id``, ``completion``, optional ``sample_id``), in order."""
        return self.judge_checked(self.check(samples))

    def judge_checked(self, checked: Sequence[dict[str, Any]]) -> list[Verdict]:
        """Verdicts for samples :meth:`check` already returned (the server checks before admitting them)."""
        return list(self._pool.map(self.judge_one, checked))

    def tasks(self) -> list[dict[str, Any]]:
        """Each task: id, language, kind, and whether (and why not) it is scored."""
        out = []
        for t, row in sorted(self.by_id.items()):
            status, reason = self.task_status.get(t, (TaskStatus.NO_HARNESS, None))
            out.append(
                {
                    "task_id": t,
                    "language": row.get("language"),
                    "kind": row.get("kind"),
                    "task_status": str(status),
                    "reason": reason,
                    "scored": status == TaskStatus.OK,
                }
            )
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.session.close()
