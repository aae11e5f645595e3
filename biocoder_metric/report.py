"""Summaries and tables from per-sample results: pass@k, status counts, excluded tasks.

Pure functions over :class:`~biocoder_metric.types.SampleResult` lists; the CLI writes
what they return (``summary.json``) and prints the tables. The summary is deterministic
(no timestamps, no durations) so two identical runs give byte-identical files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from biocoder_metric.scoring import pass_at_k_summary
from biocoder_metric.types import RESULTS_SCHEMA_VERSION, SampleResult, Status, TaskStatus


def task_counts(results: Iterable[SampleResult]) -> dict[str, tuple[int, int]]:
    """task_id -> (n, c) over results of scored tasks (``task_status == ok``)."""
    counts: dict[str, list[int]] = {}
    for r in results:
        if r.extra.get("task_status", TaskStatus.OK) != TaskStatus.OK:
            continue
        nc = counts.setdefault(r.task_id, [0, 0])
        nc[0] += 1
        nc[1] += r.status == Status.PASSED
    return {t: (n, c) for t, (n, c) in counts.items()}


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
) -> dict[str, Any]:
    """The ``summary.json`` object (schema in docs/formats.md)."""
    counts = task_counts(results)
    scores = pass_at_k_summary(counts, ks, task_config)
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
        "status_counts": {s: status_counts.get(s, 0) for s in Status.ALL},
        "tasks_scored_per_k": scores["overall"]["tasks_scored"],
        "insufficient_samples": scores["overall"]["insufficient"],
        "per_config": scores["per_config"],
        "per_task": scores["per_task"],
        "excluded_tasks": excluded,
        "run": dict(run_info or {}),
    }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def render_summary(summary: Mapping[str, Any]) -> str:
    """A short human-readable report of ``summary.json``."""
    ks = summary["k"]
    lines = [
        "| subset | tasks | " + " | ".join(f"pass@{k}" for k in ks) + " |",
        "|---|---|" + "---|" * len(ks),
    ]
    lines.append(
        f"| all | {summary['tasks']['scored']} | "
        + " | ".join(_fmt(summary.get(f"pass@{k}")) for k in ks)
        + " |"
    )
    for config, block in summary.get("per_config", {}).items():
        lines.append(
            f"| {config} | {block['tasks']} | "
            + " | ".join(_fmt(block["pass@k"].get(f"pass@{k}")) for k in ks)
            + " |"
        )
    lines.append("")
    lines.append("statuses: " + ", ".join(f"{s}={n}" for s, n in summary["status_counts"].items() if n))
    if summary["excluded_tasks"]:
        lines.append(f"excluded from pass@k ({len(summary['excluded_tasks'])} tasks):")
        for e in summary["excluded_tasks"]:
            lines.append(f"  {e['task_id']}: {e['task_status']} - {e['reason']}")
    for key, short in summary.get("insufficient_samples", {}).items():
        names = ", ".join(f"{d['task_id']} (n={d['n']})" for d in short[:10])
        more = f" and {len(short) - 10} more" if len(short) > 10 else ""
        lines.append(
            f"{key}: {len(short)} tasks have fewer than k samples and are not averaged in: {names}{more}"
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
