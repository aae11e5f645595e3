"""The task set: which problems are scored, and why the others are not.

Fixed denominators live here: pass@k is taken over the task set (every problem given, or
a named subset), minus tasks that cannot be scored for a static reason (no harness, a
known-weak harness); a task without samples is missing, never silently dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from biocoder_metric.errors import EvalInputError
from biocoder_metric.execution import harness
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.execution.strength import CHECK_VERSION, harness_digest
from biocoder_metric.types import TaskStatus


def index_problems(problems: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """task_id -> row; duplicate ids are an error (they would make results ambiguous)."""
    by_id: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(problems):
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str):
            raise EvalInputError(f"problem #{i}: not a row with a string task_id")
        if row["task_id"] in by_id:
            raise EvalInputError(f"problem #{i}: duplicate task_id {row['task_id']!r}")
        by_id[row["task_id"]] = row
    return by_id


def shipped_strength(row: dict[str, Any]) -> dict[str, Any] | None:
    """The shipped ``harness_strength`` record of ``row``, or None when there is none or it is stale.

    A record that names the harness it was computed on (``harness_sha256``) counts only while
    the row's harness is that one: a user's upstream file or ``--tasks`` file with another
    harness under the same task id is checked afresh at evaluation time.
    """
    raw = row.get("harness_strength")
    if not raw:
        return None
    try:
        info = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    if not isinstance(info, dict):
        return None
    if info.get("harness_sha256") and info["harness_sha256"] != harness_digest(row):
        return None
    return info


def shipped_check(row: dict[str, Any]) -> dict[str, Any] | None:
    """The shipped record when it holds this version's evaluation-time check for this very harness."""
    info = shipped_strength(row)
    if info and info.get("harness_sha256") and info.get("check_version") == CHECK_VERSION:
        return info
    return None


def weak_harness_reason(row: dict[str, Any]) -> str | None:
    """Why the shipped strength record finds this task's test weak, or None.

    Weak: a null candidate passes (``weak_harness``), or the return value is never observed
    (``return_unobserved``, from the evaluation-time check shipped for this harness).
    """
    info = shipped_strength(row)
    if not info:
        return None
    if info.get("weak_harness"):
        passed = ", ".join(info.get("null_candidates_passed") or []) or "a null candidate"
        return f"weak harness: {passed} passes its test (harness audit {info.get('audit_version', '?')}; --include-weak scores it)"
    if info.get("return_unobserved") and shipped_check(row):
        return RETURN_UNOBSERVED_REASON
    return None


def shipped_exclusion(row: dict[str, Any]) -> tuple[TaskStatus, str] | None:
    """(task status, reason) when the shipped strength record keeps ``row`` out of the headline."""
    reason = weak_harness_reason(row)
    if reason is None:
        return None
    status = TaskStatus.RETURN_UNOBSERVED if reason == RETURN_UNOBSERVED_REASON else TaskStatus.WEAK_HARNESS
    return status, reason


RETURN_UNOBSERVED_REASON = (
    "the golden returns values, but replacing its return value (by None, or by another value of its type) is never "
    "detected by the test (--include-weak scores it)"
)


def static_task_status(row: dict[str, Any]) -> tuple[TaskStatus, str | None]:
    """Task status that needs no execution: ``no_harness`` with a reason, or ``ok`` (golden still to check)."""
    if not row.get("executable"):
        return TaskStatus.NO_HARNESS, row.get("not_executable_reason") or "marked not executable"
    if row.get("kind") == "harness":
        context = row.get("context")
        if not context:
            return TaskStatus.NO_HARNESS, "no harness program (context is empty)"
        try:
            if context.count(harness.INSERT_MARKER) != 1:
                raise harness.HarnessError(
                    f"task {row['task_id']}: harness must contain exactly one {harness.INSERT_MARKER!r} marker, "
                    f"found {context.count(harness.INSERT_MARKER)}"
                )
            harness.find_placeholders(context, row["task_id"])
        except harness.HarnessError as exc:
            return TaskStatus.NO_HARNESS, f"harness unusable: {exc}"
        if not row.get("golden_code"):
            return TaskStatus.NO_HARNESS, "no golden code to compute the expected output"
        return TaskStatus.OK, None
    if row.get("kind") == "rosalind":
        if row.get("test_input") is None or row.get("expected_output") is None:
            return TaskStatus.NO_HARNESS, "no test input / expected output"
        return TaskStatus.OK, None
    return TaskStatus.NO_HARNESS, f"kind {row.get('kind')!r} cannot be executed"


def select_tasks(
    by_id: dict[str, dict[str, Any]], task_ids: Sequence[str] | None
) -> dict[str, dict[str, Any]]:
    """The task set: every problem, or the named subset (an unknown id is an error naming it)."""
    if task_ids is None:
        return by_id
    unknown = sorted(set(task_ids) - set(by_id))
    if unknown:
        raise EvalInputError(
            f"--task-ids names tasks that are not in the loaded problems: {', '.join(unknown)}"
        )
    return {t: by_id[t] for t in sorted(set(task_ids))}


def scoreable_tasks(by_id: dict[str, dict[str, Any]], options: EvalOptions) -> list[str]:
    """Tasks of the set that can be scored at all: executable, and not a known-weak harness
    (unless ``include_weak``). Their number is the denominator of pass@k."""
    out = []
    for t, row in by_id.items():
        if static_task_status(row)[0] != TaskStatus.OK:
            continue
        if not options.include_weak and weak_harness_reason(row):
            continue
        out.append(t)
    return sorted(out)


def missing_tasks(by_id: dict[str, dict[str, Any]], used: Iterable[str], options: EvalOptions) -> list[str]:
    """Scoreable tasks of the set that have no sample."""
    have = set(used)
    return [t for t in scoreable_tasks(by_id, options) if t not in have]
