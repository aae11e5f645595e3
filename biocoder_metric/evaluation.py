"""One call owns a run: the engine, the one accounting rule, every file of the run folder, a typed result.

Layer: above ``scoring`` and ``reporting`` (it uses the summary builder, the accounting rule,
and the upstream-format and text-metric extras), below the adapters. Every entry point goes
through here, so they cannot drift apart:

* ``biocoder evaluate`` and ``biocoder run`` (:mod:`biocoder_metric.cli.evaluate`, ``cli/run.py``)
  call :func:`evaluate_run`; ``biocoder check`` calls :func:`check_run`; ``biocoder merge``
  calls :func:`merge_run`;
* the ``evaluate`` metric (``biocoder_passk/biocoder_passk.py``) and the lm-eval adapter
  (``lm_eval_tasks/biocoder/utils.py``) call :func:`evaluate_run` and present its
  :class:`RunResult`;
* the Ray executor is ``RunOptions(engine=EvalOptions(executor="ray"))``: only where jobs run
  changes, the call is the same.

What :func:`evaluate_run` does, in order:

1. ``--shard I/N``: cuts this shard's whole tasks out of the samples (``execution.shard.plan``);
2. runs the engine (:func:`biocoder_metric.execution.run_evaluation`), which writes ``run.json``,
   ``results.partial.jsonl`` (the resume log, as samples finish) and ``results.jsonl`` when
   ``out_dir`` is given; missing tasks and goldens failing here raise the engine's
   :class:`~biocoder_metric.execution.MissingTasksError` / :class:`~biocoder_metric.execution.GoldenFailuresError`
   before any candidate runs (:func:`exit_status` maps them to the CLI's exit 1 / 3);
3. applies the one accounting rule (:func:`biocoder_metric.scoring.accounting.account`) and
   builds ``summary.json`` (:func:`biocoder_metric.scoring.summary.build_summary`), plus
   ``text_metrics`` when asked;
4. writes ``shard.json``, ``summary.json``, ``timing.json`` and, when asked, upstream's
   ``results.json``;
5. returns a :class:`RunResult`: n, c, pass@k, CIs, the partial label, missing, excluded,
   infrastructure errors, status counts, the summary, and the exit decision.

Printing stays with the adapters; nothing here writes to stdout.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from biocoder_metric.errors import GoldenFailuresError, MissingTasksError, ResultsWriteError
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.results import FINAL_NAME, SUMMARY_NAME
from biocoder_metric.execution.shard import SHARD_FILE, Shard
from biocoder_metric.io import write_json_atomic
from biocoder_metric.scoring.accounting import (
    EXIT_GOLDEN_FAILS,
    EXIT_MISSING_TASKS,
    Accounting,
    account,
)
from biocoder_metric.types import SampleResult

TIMING_NAME = "timing.json"
CHECK_NAME = "check.json"


@dataclass(frozen=True)
class RunOptions:
    """Everything that decides one run: the engine's options and the run's own rules and outputs.

    The CLI builds it from its flags, the metric from its keyword arguments, the lm-eval adapter
    from the environment; fields a caller does not set keep these defaults.
    """

    #: How samples are executed (sandbox, limits, executor: ``local`` or ``ray``).
    engine: EvalOptions = field(default_factory=EvalOptions)
    #: The k values of pass@k (sorted, unique, each >= 1).
    ks: tuple[int, ...] = (1,)
    #: The config the rows come from: rows without a ``config`` column are counted under it, and
    #: it is recorded in ``run.json`` and the summary's ``run`` block (None: not recorded).
    config: str | None = None
    #: The task set pass@k is over (default: every problem given).
    task_ids: tuple[str, ...] | None = None
    #: Tasks of the set without samples count as 0 correct (else :class:`MissingTasksError`).
    allow_missing: bool = False
    #: Score what can be scored when goldens fail here or sandboxes keep failing (labelled partial).
    allow_partial: bool = False
    #: pass@k of a k some task has fewer samples than: averaged over the tasks that have k, labelled
    #: (default: undefined, ``None``; never averaged over another task set than pass@1's row).
    allow_short_k: bool = False
    #: Discard results in ``out_dir`` that came from other inputs or options.
    overwrite: bool = False
    #: Progress bars on stderr.
    progress: bool = False
    #: Do only this slice of the samples (whole tasks); ``merge_run`` combines the slices.
    shard: Shard | None = None
    #: Similarity metrics against the golden in the summary (``codebleu``, ``bleu``).
    metrics: tuple[str, ...] = ()
    #: Also write upstream BioCoder's three-column ``results.json`` to this path.
    upstream_results: str | None = None

    def __post_init__(self) -> None:
        from biocoder_metric.reporting.text_metrics import SUPPORTED

        ks = (self.ks,) if isinstance(self.ks, int) else tuple(self.ks)
        try:
            ks = tuple(sorted({int(k) for k in ks}))
        except (TypeError, ValueError):
            raise ValueError(f"k values must be integers, got {self.ks!r}") from None
        if not ks or ks[0] < 1:
            raise ValueError(f"k values must be >= 1, got {self.ks!r}")
        object.__setattr__(self, "ks", ks)
        if self.task_ids is not None:
            object.__setattr__(self, "task_ids", tuple(self.task_ids))
        metrics = tuple(dict.fromkeys(self.metrics))
        bad = [m for m in metrics if m not in SUPPORTED]
        if bad:
            raise ValueError(f"unknown metric(s) {', '.join(bad)}; choose from {', '.join(SUPPORTED)}")
        object.__setattr__(self, "metrics", metrics)


@dataclass(frozen=True)
class RunResult:
    """What one run produced, typed: the counts, the scores, what was left out, and the exit decision."""

    #: The ``summary.json`` object (written to ``out_dir`` when one was given).
    summary: dict[str, Any]
    #: The one accounting rule applied to the results.
    accounting: Accounting
    #: One result per sample, sorted by (task_id, sample_index).
    results: list[SampleResult]
    options: RunOptions
    sandbox: str | None = None
    environment_id: str | None = None
    #: task_id -> (task status, reason) of the tasks with samples.
    task_status: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    #: Samples run in this call (resumed ones are not).
    executed: int = 0
    out_dir: Path | None = None
    #: Where upstream's ``results.json`` was written, if asked.
    upstream_results: Path | None = None
    #: The ``timing.json`` object.
    timing: dict[str, Any] = field(default_factory=dict)
    #: The ``shard.json`` record of a ``--shard`` run.
    shard_info: dict[str, Any] | None = None

    @property
    def ks(self) -> list[int]:
        return list(self.summary["k"])

    @property
    def counts(self) -> dict[str, tuple[int, int]]:
        """task_id -> (n, c) over the scored tasks (missing tasks, when allowed, as (0, 0))."""
        return dict(self.accounting.counts)

    @property
    def n(self) -> int:
        """Samples in pass@k."""
        return sum(n for n, _ in self.accounting.counts.values())

    @property
    def c(self) -> int:
        """Correct samples in pass@k."""
        return sum(c for _, c in self.accounting.counts.values())

    @property
    def pass_at_k(self) -> dict[str, float | None]:
        """``{"pass@1": ..., ...}``: the headline (None where no task has k samples)."""
        return {f"pass@{k}": self.summary.get(f"pass@{k}") for k in self.summary["k"]}

    @property
    def confidence_intervals(self) -> dict[str, Any] | None:
        return self.summary.get("confidence_intervals")

    @property
    def partial(self) -> bool:
        """True when a sample or a scoreable task was left out (the headline says PARTIAL)."""
        return self.accounting.partial

    @property
    def partial_block(self) -> dict[str, Any] | None:
        """The summary's ``partial`` object, or None."""
        return self.summary.get("partial")

    @property
    def missing(self) -> list[str]:
        """Tasks of the set without samples, counted as 0 correct (only with ``allow_missing``)."""
        return list(self.summary["missing"]["tasks"])

    @property
    def excluded(self) -> list[dict[str, Any]]:
        """Tasks left out of pass@k (golden fails, no harness, weak harness, ...), with why."""
        return list(self.summary["excluded_tasks"])

    @property
    def infra_errors(self) -> list[dict[str, Any]]:
        """Samples left out of n and c: the sandbox failed, and a canary confirmed it was infrastructure."""
        return list(self.accounting.infra_errors)

    @property
    def status_counts(self) -> dict[str, int]:
        return dict(self.summary["status_counts"])

    @property
    def exit_code(self) -> int:
        """The run's exit status under the accounting rule: 4 when samples were left out and that was not accepted."""
        return self.accounting.exit_code(self.options.allow_partial)

    def require_final(self, where: str) -> None:
        """Raise :class:`~biocoder_metric.scoring.accounting.PartialRunError` unless the run is complete
        or a partial score was accepted (what the library adapters do instead of an exit status)."""
        self.accounting.require_final(self.options.allow_partial, where)


def exit_status(exc: BaseException) -> int | None:
    """The CLI exit status of an error :func:`evaluate_run` raises before scoring (None: a usage error)."""
    if isinstance(exc, MissingTasksError):
        return EXIT_MISSING_TASKS
    if isinstance(exc, GoldenFailuresError):
        return EXIT_GOLDEN_FAILS
    return None


def _as_run_options(options: RunOptions | EvalOptions | None, changes: Mapping[str, Any]) -> RunOptions:
    if options is None:
        options = RunOptions()
    elif isinstance(options, EvalOptions):
        options = RunOptions(engine=options)
    return replace(options, **changes) if changes else options


def _task_config(
    problems: Iterable[Mapping[str, Any]], config: str | None, tasks: Iterable[str]
) -> dict[str, str] | None:
    """task_id -> config for the per-config breakdown; None when some task has no config to name."""
    by_task = {r["task_id"]: r.get("config") or config for r in problems}
    chosen = {t: by_task.get(t) for t in tasks}
    return chosen if all(isinstance(v, str) for v in chosen.values()) else None


def _score(
    results: Sequence[SampleResult],
    options: RunOptions,
    *,
    task_set: Sequence[str],
    missing: Sequence[str],
    task_config: Mapping[str, str] | None,
    run_info: Mapping[str, Any],
    problems: Sequence[Mapping[str, Any]] = (),
) -> tuple[dict[str, Any], Accounting]:
    """The summary and the accounting of ``results``: the one builder and the one rule, for every entry point."""
    from biocoder_metric.scoring.summary import build_summary

    if options.allow_short_k:
        run_info = {**run_info, "allow_short_k": True}  # recorded: `merge` applies the same rule
    summary = build_summary(
        results,
        options.ks,
        task_config,
        run_info,
        task_set=task_set,
        missing=missing,
        allow_short_k=options.allow_short_k,
    )
    if options.metrics:
        from biocoder_metric.reporting.text_metrics import text_metrics

        summary["text_metrics"] = text_metrics(
            results, {r["task_id"]: r for r in problems}, list(options.metrics)
        )
    return summary, account(results, task_set, missing)


def _write_run_files(out: Path, summary: Mapping[str, Any], timing: Mapping[str, Any]) -> None:
    """The files of a run folder besides the records (results, resume log, run.json): summary and timing."""
    write_json_atomic(out / SUMMARY_NAME, summary)
    write_json_atomic(out / TIMING_NAME, timing)


def _write_upstream(
    target: str, results: Sequence[SampleResult], origin: Mapping[tuple[str, int], tuple[str, int]] | None
) -> Path:
    from biocoder_metric.reporting.upstream import upstream_rows, write_upstream_results

    try:
        return write_upstream_results(target, upstream_rows(results, origin))
    except OSError as exc:
        raise ResultsWriteError(f"cannot write --upstream-results {target}: {exc.strerror or exc}") from None


def evaluate_run(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: RunOptions | EvalOptions | None = None,
    *,
    out_dir: str | os.PathLike | None = None,
    run_info: Mapping[str, Any] | None = None,
    origin: Mapping[tuple[str, int], tuple[str, int]] | None = None,
    **changes: Any,
) -> RunResult:
    """Evaluate ``samples`` on ``problems`` and score them; with ``out_dir``, write the whole run folder.

    ``options``: a :class:`RunOptions` (an :class:`EvalOptions` alone means the run defaults);
    ``changes`` replace fields of it (``evaluate_run(rows, samples, EvalOptions(...), ks=(1, 10))``).
    ``run_info``: extra entries for the summary's ``run`` block (the CLI names the samples file's
    sha256 there). ``origin``: (task_id, sample_index) -> upstream (problem, generation), for the
    upstream ``results.json`` of samples read from upstream's folder layout.

    Raises the engine's errors (:class:`MissingTasksError`, :class:`GoldenFailuresError`, any
    :class:`~biocoder_metric.execution.EvalInputError`, sandbox and results-folder errors);
    a run that left samples out is *returned* (``partial``; ``exit_code`` 4 unless
    ``allow_partial``): :meth:`RunResult.require_final` turns that into an error for library callers.
    """
    from biocoder_metric.execution.engine import run_evaluation

    options = _as_run_options(options, changes)
    started = time.monotonic()
    problems = list(problems)
    samples = list(samples)
    out = Path(out_dir) if out_dir is not None else None
    engine = options.engine
    task_ids = list(options.task_ids) if options.task_ids is not None else None
    fingerprint: dict[str, Any] = {} if options.config is None else {"config": options.config}
    shard_info = None
    if options.shard is not None:  # a slice of whole tasks; merge_run checks completeness
        from biocoder_metric.execution.shard import plan

        shard = options.shard
        samples, shard_info = plan(
            problems, samples, shard, options.config or "", engine, task_ids, options.allow_missing
        )
        fingerprint["shard"] = {"index": shard.index, "count": shard.count}
        # A shard holds some tasks by construction; merge_run applies the missing-tasks rule.
        task_ids = sorted({s["task_id"] for s in samples} & set(task_ids or {r["task_id"] for r in problems}))
    run = run_evaluation(
        problems,
        samples,
        engine,
        out_dir=out,
        progress=options.progress,
        overwrite=options.overwrite,
        extra_fingerprint=fingerprint,
        task_ids=task_ids,
        allow_missing=options.allow_missing,
        allow_partial=options.allow_partial,
    )
    if (
        out is not None and shard_info is not None
    ):  # first: a shard folder names its slice even if the rest fails
        write_json_atomic(out / SHARD_FILE, shard_info)
    info = {
        **({} if options.config is None else {"config": options.config}),
        "sandbox": run.sandbox,
        "environment_id": run.environment_id,
        **engine.fingerprint(),
        **(run_info or {}),
    }
    task_config = _task_config(problems, options.config, {r.task_id for r in run.results} | set(run.missing))
    summary, books = _score(
        run.results,
        options,
        task_set=run.task_set,
        missing=run.missing,
        task_config=task_config,
        run_info=info,
        problems=problems,
    )
    timing: dict[str, Any] = {}
    if out is not None:
        timing = {
            "wall_s": round(time.monotonic() - started, 3),
            "samples_run": run.executed,
            "samples_resumed": len(run.results) - run.executed,
        }
        _write_run_files(out, summary, timing)
    upstream = (
        _write_upstream(options.upstream_results, run.results, origin) if options.upstream_results else None
    )
    return RunResult(
        summary=summary,
        accounting=books,
        results=run.results,
        options=options,
        sandbox=run.sandbox,
        environment_id=run.environment_id,
        task_status=dict(run.task_status),
        executed=run.executed,
        out_dir=out,
        upstream_results=upstream,
        timing=timing,
        shard_info=shard_info,
    )


# ---------------------------------------------------------------------------- merge of shards


def merge_run(
    shard_dirs: Sequence[str | os.PathLike],
    out_dir: str | os.PathLike,
    *,
    allow_missing: bool = False,
    allow_partial: bool = False,
    overwrite: bool = False,
) -> tuple[Any, RunResult | None]:
    """Merge the folders of ``--shard I/N`` runs into ``out_dir``: the files one unsharded run writes.

    The shards are checked and combined by :mod:`biocoder_metric.scoring.merge` (which also writes
    the merged ``run.json``, ``results.partial.jsonl`` and ``results.jsonl``); the summary, the
    accounting and the exit decision come from the same builder and rule as :func:`evaluate_run`.
    Returns ``(MergeReport, RunResult)``, the result None when nothing was written (the report says why).
    """
    from biocoder_metric.scoring.merge import combine_shards, merged_timing, write_merged_records

    report, merged = combine_shards(shard_dirs, allow_missing=allow_missing)
    if merged is None:
        return report, None
    out = Path(out_dir)
    write_merged_records(out, merged, overwrite=overwrite)
    options = RunOptions(
        ks=tuple(merged.ks),
        allow_missing=allow_missing,
        allow_partial=allow_partial,
        overwrite=overwrite,
        allow_short_k=bool((merged.run_info or {}).get("allow_short_k")),
    )
    task_set, missing = merged.task_set, report.missing_tasks
    task_config = {t: merged.task_config[t] for t in {r.task_id for r in merged.results} | set(missing)}
    summary, books = _score(
        merged.results,
        options,
        task_set=task_set,
        missing=missing,
        task_config=task_config,
        run_info=merged.run_info,
    )
    timing = merged_timing(merged)
    _write_run_files(out, summary, timing)
    report.accounting = books
    run_info = merged.run_info or {}
    result = RunResult(
        summary=summary,
        accounting=books,
        results=merged.results,
        options=options,
        sandbox=run_info.get("sandbox"),
        environment_id=run_info.get("environment_id"),
        out_dir=out,
        timing=timing,
    )
    return report, result


# ---------------------------------------------------------------------------- golden check


@dataclass(frozen=True)
class CheckResult:
    """``biocoder check``: every golden through the sample path, pass or why not, per task."""

    #: The ``check.json`` object (header, and ``tasks``).
    report: dict[str, Any]
    out_dir: Path | None = None

    @property
    def checks(self) -> list[dict[str, Any]]:
        return list(self.report["tasks"])

    @property
    def all_passed(self) -> bool:
        from biocoder_metric.types import Status

        return all(c["status"] == Status.PASSED for c in self.report["tasks"])

    def exit_code(self, strict: bool) -> int:
        """1 when ``strict`` and some task did not pass, else 0."""
        return 1 if strict and not self.all_passed else 0


def check_run(
    problems: Iterable[dict[str, Any]],
    options: RunOptions | EvalOptions | None = None,
    *,
    out_dir: str | os.PathLike | None = None,
    **changes: Any,
) -> CheckResult:
    """Run every task's golden as a candidate (``check_goldens``); with ``out_dir``, write ``check.json``.

    Of ``options`` it uses the engine, ``config`` (recorded), ``shard`` (whole tasks of the
    config; ``biocoder merge`` combines the shards' ``check.json``) and ``progress``.
    """
    from biocoder_metric.execution.engine import check_goldens

    options = _as_run_options(options, changes)
    problems = list(problems)
    all_task_ids = sorted(r["task_id"] for r in problems)
    if options.shard is not None:
        from biocoder_metric.execution.shard import select_problems

        problems = select_problems(problems, options.shard)
    info: dict[str, Any] = {}
    checks = check_goldens(problems, options.engine, progress=options.progress, run_info=info)
    report = {
        **({} if options.config is None else {"config": options.config}),
        **info,
        **options.engine.fingerprint(),
        "tasks": checks,
    }
    if options.shard is not None:
        report["shard"] = {
            "index": options.shard.index,
            "count": options.shard.count,
            "all_tasks": all_task_ids,
        }
    out = None
    if out_dir is not None:
        out = Path(out_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsWriteError(f"cannot write {out / CHECK_NAME}: {exc.strerror or exc}") from None
        write_json_atomic(out / CHECK_NAME, report)
    return CheckResult(report=report, out_dir=out)


__all__ = [
    "CHECK_NAME",
    "FINAL_NAME",
    "SUMMARY_NAME",
    "TIMING_NAME",
    "CheckResult",
    "RunOptions",
    "RunResult",
    "check_run",
    "evaluate_run",
    "exit_status",
    "merge_run",
]
