"""Harness audit: how strong is each task's test? (``biocoder audit``)

A pass@k is only as good as the tests behind it. Some upstream harnesses never look at
the function's result, so *any* candidate passes; others catch few realistic bugs. This
module measures that per task, by judging candidates that are known to be wrong exactly
as samples are judged (through :func:`biocoder_metric.execution.run_evaluation`, so the
same sandbox, golden outputs, post-processing and insertion apply; there is no second
runner):

* **Null candidates**: the function with its body replaced by ``return None``, ``pass``,
  ``return <first argument>`` and ``raise`` (Java: the return type's default, an empty
  body for ``void``, the first argument when its type is the return type, ``throw``).
  If any passes, the harness cannot tell a real solution from nothing: ``weak_harness``.
* **Constant output**: the golden prints the same text on every fuzz case, so the fuzz
  values do not reach the output (or the harness has no placeholders at all).
* **Mutation score**: single-site mutants of the golden (:mod:`biocoder_metric.validity.mutation`)
  judged at the normal fuzz-case count; ``killed`` of ``total``. Surviving mutants are run
  again with many more fuzz cases: one killed then was a real bug the normal test misses
  (``killed_with_more_cases``); one that survives even that is probably *equivalent* to
  the golden (``likely_equivalent``), an estimate, not a proof.

Tasks whose golden cannot produce a reference are reported with their task status and no
verdict (``weak_harness`` is ``null``), never silently dropped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from biocoder_dataset import settings
from biocoder_dataset.jsonl import iter_jsonl
from biocoder_metric.execution import EvalOptions, golden_outputs, run_evaluation
from biocoder_metric.execution.strength import (  # noqa: F401 - the audit's null candidates are the engine's
    NULL_FIRST_ARG,
    NULL_PASS,
    NULL_RAISE,
    NULL_RETURN_NONE,
    java_null_candidates,
    null_candidates,
    python_null_candidates,
    rosalind_null_candidates,
)
from biocoder_metric.execution.tasks import static_task_status
from biocoder_metric.io import write_text_atomic
from biocoder_metric.languages import runner
from biocoder_metric.types import Status, TaskStatus

#: Schema of ``audit.jsonl`` records and of the shipped ``harness_strength`` file.
AUDIT_SCHEMA_VERSION = "biocoder-audit/1"
AUDIT_FILE = "audit.jsonl"


def golden_mutants(row: dict[str, Any], limit: int) -> list[tuple[str, str]]:
    """Mutants of a harness task's golden (Rosalind goldens are not mutated: they need upstream's helpers)."""
    if row.get("kind") != "harness":
        return []
    return runner(row["language"]).mutants(row["golden_code"], limit, seed=row["task_id"])


# ---------------------------------------------------------------------------- the audit


def _auditable(row: dict[str, Any]) -> bool:
    return static_task_status(row)[0] == TaskStatus.OK


def audit_tasks(
    problems: Iterable[dict[str, Any]],
    options: EvalOptions,
    *,
    mutants: int = settings.MUTANTS,
    equivalence_cases: int = 50,
    progress: bool = True,
    out_dir: str | os.PathLike | None = None,
) -> list[dict[str, Any]]:
    """One audit record per executable task (see the module doc and docs/validity.md).

    ``out_dir`` (optional) keeps the engine's per-sample results of each pass in
    subfolders (``nulls_and_mutants/``, ``equivalence/``), so an interrupted audit resumes
    like ``biocoder evaluate`` does.
    """
    # The audit judges the harness itself: a task already marked weak must still run, and
    # the plus cases are not part of the normal test being measured.
    options = replace(options, include_weak=True, plus=False)
    rows = sorted((r for r in problems if _auditable(r)), key=lambda r: r["task_id"])
    samples: list[dict[str, Any]] = []
    labels: dict[tuple[str, int], tuple[str, str]] = {}
    for row in rows:
        index = 0
        for kind, pool in (("null", null_candidates(row)), ("mutant", golden_mutants(row, mutants))):
            for name, code in pool:
                samples.append({"task_id": row["task_id"], "completion": code})
                labels[(row["task_id"], index)] = (kind, name)
                index += 1
    goldens = golden_outputs([r for r in rows if r["kind"] == "harness"], options, progress=progress)
    # allow_missing: a task with no candidate (golden unparsable) is simply not audited;
    # allow_partial: failing goldens are reported per task below, not a reason to stop.
    base = (
        run_evaluation(
            rows,
            samples,
            options,
            out_dir=_sub(out_dir, "nulls_and_mutants"),
            progress=progress,
            allow_missing=True,
            allow_partial=True,
        )
        if samples
        else None
    )
    results = {(r.task_id, r.sample_index): r for r in (base.results if base else [])}
    # Surviving mutants again with many more fuzz cases (equivalent-mutant estimate).
    survivors = []
    for (task_id, index), (kind, _name) in sorted(labels.items()):
        r = results.get((task_id, index))
        if kind == "mutant" and r is not None and r.status == Status.PASSED:
            survivors.append((task_id, index, r.completion))
    extra_verdict: dict[tuple[str, int], str] = {}
    if survivors and equivalence_cases > options.fuzz_cases:
        more = replace(options, fuzz_cases=equivalence_cases)
        by_id = {r["task_id"]: r for r in rows}
        used = sorted({t for t, _, _ in survivors})
        run = run_evaluation(
            [by_id[t] for t in used],
            [{"task_id": t, "completion": code} for t, _, code in survivors],
            more,
            out_dir=_sub(out_dir, "equivalence"),
            progress=progress,
            allow_missing=True,
            allow_partial=True,
        )
        counters: dict[str, int] = {}
        for t, index, _ in survivors:
            k = counters.get(t, 0)
            counters[t] = k + 1
            match = next(r for r in run.results if r.task_id == t and r.sample_index == k)
            extra_verdict[(t, index)] = match.status
    records = []
    for row in rows:
        tid = row["task_id"]
        status, reason = base.task_status.get(tid, (TaskStatus.OK, None)) if base else (TaskStatus.OK, None)
        mine = sorted((i, kind, name) for (t, i), (kind, name) in labels.items() if t == tid)
        rec: dict[str, Any] = {
            "schema": AUDIT_SCHEMA_VERSION,
            "task_id": tid,
            "config": row.get("config"),
            "language": row["language"],
            "kind": row["kind"],
            "task_status": status,
        }
        if status != TaskStatus.OK:
            rec.update(
                reason=reason,
                weak_harness=None,
                constant_output=None,
                null_candidates_passed=None,
                mutation_score=None,
            )
            records.append(rec)
            continue
        nulls = [(name, results[(tid, i)].status) for i, kind, name in mine if kind == "null"]
        passed = [name for name, st in nulls if st == Status.PASSED]
        killed = total = more_killed = equivalent = 0
        by_operator: dict[str, list[int]] = {}
        for i, kind, name in mine:
            if kind != "mutant":
                continue
            total += 1
            ok = results[(tid, i)].status != Status.PASSED
            killed += ok
            by_operator.setdefault(name, [0, 0])
            by_operator[name][0] += ok
            by_operator[name][1] += 1
            verdict = extra_verdict.get((tid, i))  # only survivors were run again
            if verdict == Status.PASSED:
                equivalent += 1
            elif verdict is not None:
                more_killed += 1
        g = goldens.get(tid)
        outputs = g.outputs if g is not None and g.ok else []
        rec.update(
            weak_harness=bool(passed),
            constant_output=(len(set(outputs)) <= 1) if row["kind"] == "harness" else None,
            fuzz_cases=len(outputs) if row["kind"] == "harness" else 1,
            null_candidates={name: st for name, st in nulls},
            null_candidates_passed=passed,
            mutation_score={
                "killed": killed,
                "total": total,
                "killed_with_more_cases": more_killed,
                "likely_equivalent": equivalent,
                "equivalence_cases": equivalence_cases if equivalence_cases > options.fuzz_cases else None,
                "by_operator": {op: {"killed": k, "total": n} for op, (k, n) in sorted(by_operator.items())},
            },
        )
        records.append(rec)
    return records


def _sub(out_dir: str | os.PathLike | None, name: str) -> Path | None:
    return None if out_dir is None else Path(out_dir) / name


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Totals over audit records: tasks audited, weak, constant-output, mutants killed."""
    ok = [r for r in records if r["task_status"] == TaskStatus.OK]
    ms = [r["mutation_score"] for r in ok]
    killed = sum(m["killed"] for m in ms)
    total = sum(m["total"] for m in ms)
    equivalent = sum(m["likely_equivalent"] for m in ms)
    return {
        "tasks": len(records),
        "audited": len(ok),
        "not_audited": {r["task_id"]: r["task_status"] for r in records if r["task_status"] != TaskStatus.OK},
        "weak_harness": sorted(r["task_id"] for r in ok if r["weak_harness"]),
        "constant_output": sorted(r["task_id"] for r in ok if r["constant_output"]),
        "mutants": {
            "killed": killed,
            "total": total,
            "killed_with_more_cases": sum(m["killed_with_more_cases"] for m in ms),
            "likely_equivalent": equivalent,
            "score": round(killed / total, 4) if total else None,
            "score_excluding_likely_equivalent": round(killed / (total - equivalent), 4)
            if total - equivalent > 0
            else None,
        },
    }


def write_audit(records: Sequence[dict[str, Any]], out_dir: str | os.PathLike) -> Path:
    """``audit.jsonl`` (one record per task, sorted, keys sorted) and ``audit_summary.json``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / AUDIT_FILE
    write_text_atomic(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    (out / "audit_summary.json").write_text(
        json.dumps(summarize(records), indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return path


def read_audit(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Records of an ``audit.jsonl``; a bad line is an error naming ``FILE:LINE``."""
    out = []
    for where, rec in iter_jsonl(path):
        if not isinstance(rec.get("task_id"), str):
            raise ValueError(f"{where}: expected an audit record with a string task_id")
        out.append(rec)
    return out


def ship_records(
    records: Sequence[dict[str, Any]], path: str | os.PathLike, *, config: str, options: EvalOptions
) -> Path:
    """Merge ``records`` of ``config`` into a ``harness_strength`` data file (see
    :mod:`biocoder_dataset.harness_strength`); other configs in the file are kept."""
    from biocoder_dataset.harness_strength import write_strength_file

    return write_strength_file(
        path,
        config,
        {r["task_id"]: r for r in records if r["task_status"] == TaskStatus.OK},
        run={"fuzz_cases": options.fuzz_cases, "seed": options.seed, "timeout_s": options.timeout_s},
    )
