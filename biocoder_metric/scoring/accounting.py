"""The one accounting rule: from per-sample results to n, c, the partial label and the exit decision.

Why a module of its own: every entry point (``biocoder evaluate``, ``run``, ``merge``, the
``evaluate`` metric, the lm-eval tasks, the Ray executor, which runs through the same engine)
must count the same way, or a candidate that is left out by one rule is counted by another
(the lm-eval adapter once counted ``sandbox_error`` in n while the CLI left it out). So the
rule is written once, here, and applied in one place, :mod:`biocoder_metric.evaluation`
(``evaluate_run`` / ``merge_run``), which every entry point calls; the adapters only present
the :class:`~biocoder_metric.evaluation.RunResult` it returns.

The rule:

* a sample of a scored task (``task_status == ok``) is in n; it is in c when it ``passed``;
* a ``sandbox_error`` sample (the sandbox failed and a canary in a fresh sandbox failed too:
  infrastructure, never the candidate) is in neither, and is listed;
* ``sandbox_killed`` (the candidate broke its sandbox, proven by a canary) is a failure: in n;
* tasks of the task set without samples count as 0 correct only when the caller allowed it;
* whenever any sample or scoreable task is left out, the run is **partial**: every headline
  says so, and without ``allow_partial`` the run is not final (exit 4, or an error raised by
  the library adapters), whatever the numbers look like.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from biocoder_metric.types import SampleResult, Status, TaskStatus

#: Exit statuses of a run (the CLI's; the library adapters raise :class:`PartialRunError` instead).
EXIT_OK = 0
EXIT_MISSING_TASKS = 1
EXIT_GOLDEN_FAILS = 3
EXIT_INFRA_ERRORS = 4


class PartialRunError(RuntimeError):
    """A run left samples or tasks out and the caller did not accept a partial score."""

    def __init__(self, accounting: Accounting, where: str):
        self.accounting = accounting
        super().__init__(
            f"{where}: {accounting.partial_reason()}; pass allow_partial to accept a partial score"
        )


@dataclass(frozen=True)
class Accounting:
    """n and c per scored task, and what was left out."""

    #: task_id -> (n, c) over the scored tasks; missing tasks (allowed) appear as (0, 0).
    counts: dict[str, tuple[int, int]]
    #: Samples left out of n and c (``sandbox_error``): ``{"task_id", "sample_index"}``.
    infra_errors: list[dict[str, Any]] = field(default_factory=list)
    #: Scoreable tasks that could not be scored here (golden fails, or every sample infra).
    unscored_tasks: list[str] = field(default_factory=list)
    #: Size of the task set pass@k is over.
    task_set_size: int = 0

    @property
    def scoreable(self) -> int:
        """The denominator a complete run would have: scored plus could-not-be-scored tasks."""
        return len(self.counts) + len(self.unscored_tasks)

    @property
    def partial(self) -> bool:
        """True when anything was left out: a sample (infrastructure) or a scoreable task."""
        return bool(self.infra_errors or self.unscored_tasks)

    def partial_reason(self) -> str:
        parts = []
        if self.infra_errors:
            parts.append(
                f"{len(self.infra_errors)} samples hit sandbox errors that a canary confirmed as infrastructure"
            )
        if self.unscored_tasks:
            parts.append(f"{len(self.unscored_tasks)} of {self.scoreable} tasks could not be scored here")
        return "partial: " + ("; ".join(parts) if parts else "nothing left out")

    def partial_block(self) -> dict[str, Any] | None:
        """The ``partial`` object of ``summary.json`` (and the metric's details), or None."""
        if not self.partial:
            return None
        return {
            "scored": len(self.counts),
            "of": self.scoreable,
            "unscored_tasks": list(self.unscored_tasks),
            "samples_left_out": len(self.infra_errors),
        }

    def exit_code(self, allow_partial: bool) -> int:
        """The run's exit status: 4 when something was left out and that was not accepted."""
        return EXIT_INFRA_ERRORS if self.infra_errors and not allow_partial else EXIT_OK

    def require_final(self, allow_partial: bool, where: str) -> None:
        """Raise :class:`PartialRunError` unless the run is complete or a partial one is accepted."""
        if self.partial and not allow_partial:
            raise PartialRunError(self, where)


def _task_status(r: SampleResult) -> str:
    return r.extra.get("task_status", TaskStatus.OK)


def account(
    results: Iterable[SampleResult],
    task_set: Sequence[str] | None = None,
    missing: Sequence[str] = (),
) -> Accounting:
    """Apply the rule (module docstring) to ``results``.

    ``task_set``: the tasks pass@k is over (default: the tasks of ``results`` and ``missing``);
    ``missing``: tasks of it without samples that the caller chose to count as 0 correct.
    """
    results = list(results)
    counts: dict[str, list[int]] = {}
    infra: list[dict[str, Any]] = []
    golden_fails: set[str] = set()
    for r in results:
        status = _task_status(r)
        if status == TaskStatus.GOLDEN_FAILS:
            golden_fails.add(r.task_id)
        if status != TaskStatus.OK:
            continue
        if r.status == Status.SANDBOX_ERROR:
            infra.append({"task_id": r.task_id, "sample_index": r.sample_index})
            continue
        nc = counts.setdefault(r.task_id, [0, 0])
        nc[0] += 1
        nc[1] += r.status == Status.PASSED
    for t in missing:
        counts.setdefault(t, [0, 0])
    unscored = sorted(golden_fails | {d["task_id"] for d in infra if d["task_id"] not in counts})
    size = len(set(task_set)) if task_set is not None else len({r.task_id for r in results} | set(missing))
    return Accounting(
        counts={t: (n, c) for t, (n, c) in sorted(counts.items())},
        infra_errors=infra,
        unscored_tasks=unscored,
        task_set_size=size,
    )
