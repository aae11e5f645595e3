"""Summaries and tables from per-sample results: pass@k, status counts, excluded tasks.

Pure functions over :class:`~biocoder_metric.types.SampleResult` lists;
:mod:`biocoder_metric.evaluation` writes what :func:`build_summary` returns (``summary.json``)
and the CLI prints the tables. The summary is deterministic
(no timestamps, no durations) so two identical runs give byte-identical files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from biocoder_metric.scoring.accounting import Accounting, account
from biocoder_metric.scoring.ci import format_ci, summary_confidence_intervals
from biocoder_metric.scoring.passk import pass_at_k_summary
from biocoder_metric.types import RESULTS_SCHEMA_VERSION, SampleResult, Status, TaskStatus


def task_counts(results: Iterable[SampleResult]) -> dict[str, tuple[int, int]]:
    """task_id -> (n, c) over results of scored tasks, by the one rule (:mod:`.accounting`)."""
    return account(results).counts


def excluded_tasks(results: Iterable[SampleResult]) -> list[dict[str, Any]]:
    """Tasks left out of pass@k, with their status, reason and number of samples."""
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        status = r.extra.get("task_status", TaskStatus.OK)
        if status == TaskStatus.OK:
            continue
        entry = out.setdefault(
            r.task_id,
            {"task_id": r.task_id, "task_status": status, "reason": r.extra.get("reason"), "samples": 0},
        )
        entry["samples"] += 1
    return [out[t] for t in sorted(out)]


def build_summary(
    results: Sequence[SampleResult],
    ks: Iterable[int],
    task_config: Mapping[str, str] | None = None,
    run_info: Mapping[str, Any] | None = None,
    task_set: Sequence[str] | None = None,
    missing: Sequence[str] = (),
    allow_short_k: bool = False,
) -> dict[str, Any]:
    """The ``summary.json`` object (schema in docs/formats.md).

    pass@k is ``None`` when a task of the set has fewer than k samples, unless
    ``allow_short_k``: then it is averaged over the tasks that have k, and labelled
    (``pass_at_k_subset``).

    ``task_set``: the tasks pass@k is taken over (default: the tasks of ``results``).
    ``missing``: tasks of that set without samples, counted as 0 correct (``--allow-missing``).
    The headline is labelled ``partial`` when some scoreable task of the set could not be
    scored (its golden fails here, or all its samples hit sandbox errors).
    """
    books = account(results, task_set, missing)
    counts = books.counts
    scores = pass_at_k_summary(counts, ks, task_config, allow_short_k)
    excluded = excluded_tasks(results)
    status_counts = Counter(
        r.status for r in results if r.extra.get("task_status", TaskStatus.OK) == TaskStatus.OK
    )
    return {
        "schema": RESULTS_SCHEMA_VERSION,
        "k": scores["k"],
        **scores["overall"]["pass@k"],
        "tasks": {
            "total": len({r.task_id for r in results}),
            "scored": len(counts),
            "excluded": len(excluded),
            "excluded_by_status": dict(sorted(Counter(e["task_status"] for e in excluded).items())),
        },
        "samples": {"total": len(results), "scored": sum(n for n, _ in counts.values())},
        "status_counts": {s.value: status_counts.get(s, 0) for s in Status},
        "tasks_scored_per_k": scores["overall"]["tasks_scored"],
        "insufficient_samples": scores["overall"]["insufficient"],
        **({"pass_at_k_subset": scores["overall"]["subset"]} if scores["overall"].get("subset") else {}),
        "per_config": scores["per_config"],
        "per_task": scores["per_task"],
        "excluded_tasks": excluded,
        "run": dict(run_info or {}),
        **_denominator_block(books, missing),
        **_plus_block(results, scores["k"], task_config, allow_short_k, missing),
        **_rosalind_block(results),
        # Bootstrap CIs over tasks (seeded, so the file stays byte-identical between reruns).
        "confidence_intervals": summary_confidence_intervals(
            counts, scores["k"], task_config, require_all=not allow_short_k
        ),
    }


def _denominator_block(books: Accounting, missing: Sequence[str]) -> dict[str, Any]:
    """What the headline is over: ``task_set`` size, ``missing`` tasks, ``partial`` and infra errors.

    ``partial`` is present whenever anything was left out (a sample or a scoreable task): the
    one rule of :mod:`biocoder_metric.scoring.accounting`.
    """
    block: dict[str, Any] = {
        "task_set": {"tasks": books.task_set_size, "scoreable": books.scoreable, "scored": len(books.counts)},
        "missing": {"tasks": sorted(missing), "counted_as_zero": bool(missing)},
        "infra_errors": books.infra_errors,
    }
    partial = books.partial_block()
    if partial:
        block["partial"] = partial
    return block


def _plus_block(
    results: Sequence[SampleResult],
    ks: Iterable[int],
    task_config: Mapping[str, str] | None,
    allow_short_k: bool = False,
    missing: Sequence[str] = (),
) -> dict[str, Any]:
    """``{"plus": ...}``: pass@k with the ``--plus`` cases (evalplus-style second headline), or ``{}``.

    A sample passes plus when it passed the base cases and every plus case the golden
    could run (``extra.plus.status``); the same scored tasks as the base headline.
    """
    scored = [r for r in results if r.extra.get("task_status", TaskStatus.OK) == TaskStatus.OK]
    if not any("plus" in r.extra for r in scored):
        return {}
    counts: dict[str, list[int]] = {}
    cases = dropped = 0
    for r in scored:
        nc = counts.setdefault(r.task_id, [0, 0])
        plus = r.extra.get("plus") or {}
        nc[0] += 1
        nc[1] += plus.get("status") == Status.PASSED
    for t in {r.task_id for r in scored}:
        plus = next((r.extra.get("plus") or {}) for r in scored if r.task_id == t)
        cases += plus.get("cases", 0)
        dropped += plus.get("dropped", 0)
    for t in missing:  # the base headline's task set: a missing task counts as 0 here too
        counts.setdefault(t, [0, 0])
    plus_counts = {t: (n, c) for t, (n, c) in counts.items()}
    scores = pass_at_k_summary(plus_counts, ks, task_config, allow_short_k)
    # samples the base cases pass and the plus cases catch: what the second headline adds
    plus_only = sorted(
        (
            {
                "task_id": r.task_id,
                "sample_index": r.sample_index,
                "first_failure": (r.extra.get("plus") or {}).get("first_failure"),
            }
            for r in scored
            if r.status == Status.PASSED and (r.extra.get("plus") or {}).get("status") != Status.PASSED
        ),
        key=lambda d: (d["task_id"], d["sample_index"]),
    )
    return {
        "plus": {
            **scores["overall"]["pass@k"],
            "per_config": scores["per_config"],
            "plus_cases": cases,
            "plus_cases_dropped_golden_fails": dropped,
            "plus_only_failures": plus_only,
            "confidence_intervals": summary_confidence_intervals(
                plus_counts, scores["k"], None, require_all=not allow_short_k
            )["overall"],
        }
    }


def _rosalind_block(results: Sequence[SampleResult]) -> dict[str, Any]:
    """``{"rosalind_checkers": {checker: samples}}`` when Rosalind samples were judged, else ``{}``."""
    used = Counter(r.extra["rosalind_checker"] for r in results if "rosalind_checker" in r.extra)
    return {"rosalind_checkers": dict(sorted(used.items()))} if used else {}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def render_summary(summary: Mapping[str, Any]) -> str:
    """A short human-readable report of ``summary.json``."""
    ks = summary["k"]
    lines = []
    partial = summary.get("partial")
    if partial:
        unscored = partial["unscored_tasks"]
        lines.append(
            f"PARTIAL: {partial['scored']} of {partial['of']} tasks scored, "
            f"{partial.get('samples_left_out', 0)} samples left out"
            + (
                f" (not scored: {', '.join(unscored[:20])}{' ...' if len(unscored) > 20 else ''})"
                if unscored
                else ""
            )
            + "; this is not a final score"
        )
    missing = (summary.get("missing") or {}).get("tasks") or []
    if missing:
        lines.append(
            f"missing: {len(missing)} tasks had no samples and count as 0 correct: {', '.join(missing)}"
        )
    infra = summary.get("infra_errors") or []
    if infra:
        lines.append(f"infrastructure errors: {len(infra)} samples left out of n and c (rerun to retry them)")
    if lines:
        lines.append("")
    lines += [
        "| subset | tasks | " + " | ".join(f"pass@{k}" for k in ks) + " |",
        "|---|---|" + "---|" * len(ks),
    ]
    label = "all (PARTIAL)" if partial else "all"
    lines.append(
        f"| {label} | {summary['tasks']['scored']} | "
        + " | ".join(
            _fmt(summary.get(f"pass@{k}"))
            + (" *" if f"pass@{k}" in (summary.get("pass_at_k_subset") or {}) else "")
            for k in ks
        )
        + " |"
    )
    for config, block in summary.get("per_config", {}).items():
        lines.append(
            f"| {config} | {block['tasks']} | "
            + " | ".join(_fmt(block["pass@k"].get(f"pass@{k}")) for k in ks)
            + " |"
        )
    cis = summary.get("confidence_intervals")
    if cis:
        level = round(100 * cis.get("level", 0.95))
        lines.append(
            f"| {level}% CI (all) | | "
            + " | ".join(format_ci(cis["overall"].get(f"pass@{k}")) for k in ks)
            + " |"
        )
    if summary.get("plus"):
        lines.append(
            f"| all (plus) | {summary['tasks']['scored']} | "
            + " | ".join(_fmt(summary["plus"].get(f"pass@{k}")) for k in ks)
            + " |"
        )
    lines.append("")
    lines.append("statuses: " + ", ".join(f"{s}={n}" for s, n in summary["status_counts"].items() if n))
    if summary["excluded_tasks"]:
        lines.append(f"excluded from pass@k ({len(summary['excluded_tasks'])} tasks):")
        for e in summary["excluded_tasks"]:
            lines.append(f"  {e['task_id']}: {e['task_status']} - {e['reason']}")
    subset = summary.get("pass_at_k_subset") or {}
    for key, short in summary.get("insufficient_samples", {}).items():
        names = ", ".join(f"{d['task_id']} (n={d['n']})" for d in short[:10])
        more = f" and {len(short) - 10} more" if len(short) > 10 else ""
        if key in subset:
            lines.append(
                f"{key}: over {subset[key]['tasks']} of {subset[key]['of']} tasks only (--allow-short-k): "
                f"{len(short)} tasks have fewer than k samples: {names}{more}"
            )
        else:
            lines.append(
                f"{key}: undefined: {len(short)} tasks have fewer than k samples ({names}{more}); pass@k needs k "
                "samples of every task (--allow-short-k averages over the others, labelled)"
            )
    return "\n".join(lines)


def render_check_table(checks: Sequence[Mapping[str, Any]]) -> str:
    """``biocoder check`` output: one line per task, then the totals."""
    width = max([len(c["task_id"]) for c in checks] + [7])
    lines = [f"{'task_id':<{width}}  {'status':<13} reason", f"{'-' * width}  {'-' * 13} ------"]
    for c in checks:
        lines.append(f"{c['task_id']:<{width}}  {c['status']:<13} {c.get('reason') or ''}".rstrip())
    totals = Counter(c["status"] for c in checks)
    lines.append("")
    lines.append(f"{len(checks)} tasks: " + ", ".join(f"{s}={n}" for s, n in sorted(totals.items())))
    return "\n".join(lines)
