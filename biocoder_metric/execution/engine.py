"""Orchestration: run samples and goldens through the pools, write results as they finish.

The engine entry points (docs/ARCHITECTURE.md "Engine contract"):

* :func:`run_evaluation` / :func:`evaluate_samples` -- one
  :class:`~biocoder_metric.types.SampleResult` per sample.
* :func:`check_goldens` -- every task's golden run through the sample path; pass or why not.
* :func:`golden_outputs` -- the reference outputs themselves (the harness audit reads them).

How a sample is judged:

* harness task: the golden program's stdout for each fuzz case is the expected output
  (:mod:`.goldens`). The candidate passes when it prints exactly that for every case.
* Rosalind task: ``solve(test_input)`` printed, judged by Rosalind's rules (or exactly).

A task whose golden cannot produce a reference is ``golden_fails``; one without an
executable harness is ``no_harness``. Their samples are not run; they get a result whose
``status`` is that task status, so they are counted and reported, never silently dropped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from biocoder_dataset.schema import TaskRow
from biocoder_metric.digests import problems_digest, samples_digest, sha256
from biocoder_metric.errors import GoldenFailuresError, MissingTasksError
from biocoder_metric.execution.goldens import Golden, GoldenStore
from biocoder_metric.execution.jobs import harness_job, programs_job, rosalind_job
from biocoder_metric.execution.judging import judge, last_line
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.parallel import parallel_map
from biocoder_metric.execution.pool import dispatch_threads, make_pool
from biocoder_metric.execution.strength import StrengthCheck
from biocoder_metric.execution.tasks import (
    index_problems,
    missing_tasks,
    scoreable_tasks,
    select_tasks,
    shipped_check,
    shipped_exclusion,
    static_task_status,
)
from biocoder_metric.generation.postprocess import extract_code
from biocoder_metric.samples import normalize_samples
from biocoder_metric.types import SampleResult, Status, TaskStatus


class Session:
    """One evaluation session: the candidate pool, the goldens (own pool), the options."""

    def __init__(self, options: EvalOptions):
        self.options = options
        self.pool = make_pool(options, "candidate")
        self.goldens = GoldenStore(options, self.pool.environment_id)
        self.strength = StrengthCheck(options, self.pool.environment_id)

    @property
    def threads(self) -> int:
        return dispatch_threads(self.options, self.pool)

    def close(self) -> None:
        self.goldens.close()
        self.pool.close()

    def task_status(self, row: TaskRow) -> tuple[TaskStatus, str | None]:
        """Whether ``row`` is scored: its static status, then (harness tasks) whether its golden runs."""
        status, reason = static_task_status(row)
        if status != TaskStatus.OK or row["kind"] != "harness":
            return status, reason
        # A known-weak harness is out of the task set before any golden runs (it is static, from
        # the shipped audit), so the denominator is the same whatever the environment.
        excluded = shipped_exclusion(row)
        if excluded and not self.options.include_weak:
            return excluded
        g = self.goldens.golden(row)
        if not g.ok:
            return TaskStatus.GOLDEN_FAILS, g.reason
        if self.options.include_weak or shipped_check(row):
            return TaskStatus.OK, None  # scored as asked, or the shipped check covers this very harness
        # Harness strength at evaluation time, for every task set (not only audited ones):
        # null candidates and the return-observed check, once per harness and environment.
        s = self.strength.check(row, g.outputs, self.goldens.pool())
        if s["weak_harness"]:
            names = ", ".join(s["null_candidates_passed"])
            return (
                TaskStatus.WEAK_HARNESS,
                f"weak harness: {names} passes its test (checked at evaluation; --include-weak scores it)",
            )
        if s["return_unobserved"]:
            return TaskStatus.RETURN_UNOBSERVED, (
                "the golden returns values, but replacing its return value (by None, or by another value of its "
                "type) is never detected by the test (checked at evaluation; --include-weak scores it)"
            )
        return TaskStatus.OK, None

    def task_statuses(
        self, rows: list[dict[str, Any]], progress: bool
    ) -> dict[str, tuple[TaskStatus, str | None]]:
        """Task status for each row, goldens computed in parallel (in the golden pool, closed after)."""
        try:
            return {
                row["task_id"]: status
                for row, status in parallel_map(
                    self.task_status, rows, self.threads, "golden outputs", progress
                )
            }
        finally:
            self.goldens.close()

    def _plus_verdict(self, row: TaskRow, code: str, prompt: str | None, base_status: str) -> dict[str, Any]:
        """``extra.plus`` of a harness sample: the plus status (base failure stands) and the case counts."""
        from biocoder_metric.execution.rules.plus import plus_programs

        kept = self.goldens.plus(row)
        total = len(
            plus_programs(row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed)
        )
        info: dict[str, Any] = {"status": base_status, "cases": len(kept), "dropped": total - len(kept)}
        if base_status != Status.PASSED or not kept:
            return info
        programs = plus_programs(
            row, code, fuzz_cases=self.options.fuzz_cases, seed=self.options.seed, prompt=prompt
        )
        outcomes = self.pool.run(programs_job(self.options, row, [programs[i] for i, _ in kept]))
        status, passed, first = judge(outcomes, [out for _, out in kept], row["language"])
        info.update(status=status, cases_passed=passed)
        if first is not None:
            info["first_failure"] = {**first, "plus_case": kept[first["case"]][0]}
        return info

    def run_sample(self, row: TaskRow, sample: dict[str, Any]) -> SampleResult:
        """Post-process, insert, run and judge one sample of a scored task."""
        started = time.monotonic()
        raw = sample["completion"]
        language = row["language"]
        code = extract_code(raw, language, row.get("function_name"))
        if row["kind"] == "rosalind":
            from biocoder_metric.execution.rules.rosalind_checkers import comparator

            checker, compare = comparator(row, self.options.rosalind_check)
            outcomes = self.pool.run(rosalind_job(self.options, row, code))
            status, passed, first = judge(outcomes, [row["expected_output"]], language, compare)
            added: dict[str, Any] = {"rosalind_checker": checker}
            if self.options.plus:
                added["plus"] = {"status": status, "cases": 0, "dropped": 0}
        else:
            g = self.goldens.golden(row)
            outcomes = self.pool.run(harness_job(self.options, row, code, prompt=sample.get("prompt")))
            status, passed, first = judge(outcomes, g.outputs, language)
            added = {}
            if self.options.plus:
                added["plus"] = self._plus_verdict(row, code, sample.get("prompt"), status)
        return SampleResult(
            task_id=row["task_id"],
            sample_index=sample["sample_index"],
            status=status,
            completion=raw,
            program_hash=sha256(code),
            cases_total=len(outcomes),
            cases_passed=passed,
            first_failure=first,
            duration_s=round(time.monotonic() - started, 3),
            extra={"task_status": TaskStatus.OK, "completion_sha256": sha256(raw), **added},
        )


def excluded_result(sample: dict[str, Any], task_status: str, reason: str | None) -> SampleResult:
    """The result of a sample of a task that is not scored: its status is the task's status."""
    return SampleResult(
        task_id=sample["task_id"],
        sample_index=sample["sample_index"],
        status=task_status,
        completion=sample["completion"],
        program_hash="",
        extra={
            "task_status": task_status,
            "reason": reason,
            "completion_sha256": sha256(sample["completion"]),
        },
    )


def _infra_reason(r: SampleResult) -> str:
    ff = r.first_failure or {}
    return last_line(ff.get("stderr_tail", "")) or "sandbox error"


@dataclass
class EvalRun:
    """Everything one evaluation produced: the results, each task's status, the environment."""

    results: list[SampleResult]
    task_status: dict[str, tuple[str, str | None]]
    sandbox: str
    environment_id: str
    executed: int = 0  # samples actually run in this call (resumed ones are not)
    #: The task set pass@k is taken over: the config's tasks, or the ``task_ids`` subset named.
    task_set: list[str] = field(default_factory=list)
    #: Scoreable tasks of the task set without any sample (only with ``allow_missing``: counted as 0).
    missing: list[str] = field(default_factory=list)
    #: Samples whose sandbox kept failing after the retries: in neither n nor c.
    infra_errors: list[dict[str, Any]] = field(default_factory=list)


def run_evaluation(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
    overwrite: bool = False,
    extra_fingerprint: dict[str, Any] | None = None,
    task_ids: Sequence[str] | None = None,
    allow_missing: bool = False,
    allow_partial: bool = False,
) -> EvalRun:
    """Evaluate samples; with ``out_dir`` results are written as they finish and a rerun resumes.

    Fixed denominators: pass@k is over the task set (every problem given, or the ``task_ids``
    subset), never over whichever tasks happen to have samples. A scoreable task without a
    sample raises :class:`MissingTasksError` before anything runs, unless ``allow_missing``
    (then it is listed in ``EvalRun.missing`` and counts as 0 correct). A golden that fails
    in this environment raises :class:`GoldenFailuresError` after the golden phase (before
    any candidate runs), unless ``allow_partial``. Samples whose sandbox kept failing are
    listed in ``EvalRun.infra_errors`` and run again on resume.

    See :mod:`biocoder_metric.execution.results` for the files and the resume rules.
    """
    by_id = select_tasks(index_problems(problems), task_ids)
    norm = normalize_samples(samples, by_id)
    used = sorted({s["task_id"] for s in norm})
    missing = missing_tasks(by_id, used, options)
    if missing and not allow_missing:
        raise MissingTasksError(missing, len(scoreable_tasks(by_id, options)))
    rows = [by_id[t] for t in used]
    session = Session(options)
    store = None
    try:
        if out_dir is not None:
            from biocoder_metric.execution.results import ResultsStore

            fingerprint = {
                "options": options.fingerprint(),
                "sandbox": session.pool.name,
                "environment_id": session.pool.environment_id,
                "problems_sha256": problems_digest(rows),
                "samples_sha256": samples_digest(norm),
                **(extra_fingerprint or {}),
            }
            store = ResultsStore(out_dir, fingerprint, overwrite=overwrite)
        done: dict[tuple[str, int], SampleResult] = {
            k: r for k, r in (store.done if store else {}).items() if r.status != Status.SANDBOX_ERROR
        }  # infrastructure failures are retried on resume
        todo = [s for s in norm if (s["task_id"], s["sample_index"]) not in done]
        statuses: dict[str, tuple[Any, str | None]] = dict(
            session.task_statuses([by_id[t] for t in sorted({s["task_id"] for s in todo})], progress)
        )
        # Tasks whose samples were all resumed keep the status recorded with them.
        for s in norm:
            key = (s["task_id"], s["sample_index"])
            if key in done and s["task_id"] not in statuses:
                r = done[key]
                statuses[s["task_id"]] = (r.extra.get("task_status", TaskStatus.OK), r.extra.get("reason"))
        failed = sorted(
            (t, reason) for t, (status, reason) in statuses.items() if status == TaskStatus.GOLDEN_FAILS
        )
        if failed and not allow_partial:
            raise GoldenFailuresError(failed, len(scoreable_tasks(by_id, options)), session.pool.name)
        results: dict[tuple[str, int], SampleResult] = dict(done)
        runnable = []
        for s in todo:
            status, reason = statuses[s["task_id"]]
            if status == TaskStatus.OK:
                runnable.append(s)
            else:
                r = excluded_result(s, status, reason)
                results[(s["task_id"], s["sample_index"])] = r
                if store:
                    store.append(r)

        def run_one(s: dict[str, Any]) -> SampleResult:
            return session.run_sample(by_id[s["task_id"]], s)

        for _, r in parallel_map(run_one, runnable, session.threads, "samples", progress):
            results[(r.task_id, r.sample_index)] = r
            if store:
                store.append(r)
        ordered = [results[k] for k in sorted(results)]
        if store:
            store.finalize(ordered)
        return EvalRun(
            results=ordered,
            task_status={t: statuses[t] for t in used},
            sandbox=session.pool.name,
            environment_id=session.pool.environment_id,
            executed=len(runnable),
            task_set=sorted(by_id),
            missing=missing,
            infra_errors=[
                {"task_id": r.task_id, "sample_index": r.sample_index, "reason": _infra_reason(r)}
                for r in ordered
                if r.status == Status.SANDBOX_ERROR
            ],
        )
    finally:
        if store:
            store.close()
        session.close()


def evaluate_samples(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
    **rules: Any,
) -> list[SampleResult]:
    """One result per sample, sorted by (task_id, sample_index). See :func:`run_evaluation`
    (``rules``: its ``task_ids``, ``allow_missing`` and ``allow_partial``)."""
    return run_evaluation(problems, samples, options, out_dir=out_dir, progress=progress, **rules).results


def golden_outputs(
    problems: Iterable[dict[str, Any]], options: EvalOptions, progress: bool = True
) -> dict[str, Golden]:
    """Each harness task's golden outputs (or why there are none), through the golden cache.

    For callers that look at the reference outputs themselves, e.g. the harness audit's
    constant-output check (:mod:`biocoder_metric.validity.audit`).
    """
    rows = [
        r
        for r in index_problems(problems).values()
        if static_task_status(r)[0] == TaskStatus.OK and r.get("kind") == "harness"
    ]
    if not rows:
        return {}
    session = Session(options)
    try:
        session.task_statuses(rows, progress)
        return {r["task_id"]: session.goldens.golden(r) for r in rows}
    finally:
        session.close()


def check_goldens(
    problems: Iterable[dict[str, Any]],
    options: EvalOptions,
    progress: bool = True,
    run_info: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run every task's golden through the sample path; per task ``passed`` or why not.

    Harness tasks: the golden must run cleanly and deterministically (twice), and then,
    fed through post-processing and insertion like any candidate, reproduce its own
    output. Rosalind tasks: the golden, as a candidate, must print the expected output.
    ``run_info``, when given, receives the sandbox name and its environment id.
    """
    rows = sorted(index_problems(problems).values(), key=lambda r: r["task_id"])
    options = replace(
        options, include_weak=True, plus=False
    )  # a golden check judges goldens, not harness strength
    session = Session(options)
    if run_info is not None:
        run_info.update(sandbox=session.pool.name, environment_id=session.pool.environment_id)
    try:
        statuses = session.task_statuses(rows, progress)
        report: dict[str, dict[str, Any]] = {}
        runnable = []
        for row in rows:
            status, reason = statuses[row["task_id"]]
            entry = {
                "task_id": row["task_id"],
                "config": row.get("config"),
                "language": row["language"],
                "kind": row["kind"],
            }
            if status != TaskStatus.OK:
                report[row["task_id"]] = {**entry, "status": status, "reason": reason}
            else:
                report[row["task_id"]] = entry
                runnable.append(row)

        def as_candidate(row: TaskRow) -> SampleResult:
            sample = {"task_id": row["task_id"], "completion": row["golden_code"], "sample_index": 0}
            return session.run_sample(row, sample)

        for row, r in parallel_map(
            as_candidate, runnable, session.threads, "goldens as candidates", progress
        ):
            entry = report[row["task_id"]]
            entry["cases"] = r.cases_total
            if r.status == Status.PASSED:
                entry.update(status=Status.PASSED, reason=None)
            else:
                ff = r.first_failure or {}
                detail = last_line(ff.get("stderr_tail", ""))[:300]
                entry.update(
                    status=TaskStatus.GOLDEN_FAILS,
                    reason=f"golden as a candidate: {r.status} at case {ff.get('case')}{': ' + detail if detail else ''}",
                    first_failure=ff,
                )
        return [report[row["task_id"]] for row in rows]
    finally:
        session.close()
