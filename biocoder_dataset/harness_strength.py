"""The ``harness_strength`` column: harness audit results shipped with the dataset.

``biocoder audit`` (``biocoder_metric.validity.audit``) measures per task whether null
candidates pass its test (``weak_harness``), whether the golden's output is the same on
every fuzz case, and the golden mutants its test kills. Those results are data about the
benchmark, so they ship with it: ``harness_strength.json`` next to this module, versioned
(``AUDIT_VERSION`` changes whenever it is regenerated), and the loader puts one JSON
object string per audited task into the ``harness_strength`` column (null when a task was
not audited). The engine reads that column to leave weak tasks out of the headline.

File layout (``schema`` ``biocoder-harness-strength/1``)::

    {"schema": ..., "audit_version": ..., "configs": {CONFIG: {"run": {...},
     "tasks": {TASK_ID: {"weak_harness", "constant_output", "null_candidates_passed",
                         "mutation_score": {"killed", "total", "killed_with_more_cases",
                                            "likely_equivalent"}}}}}}
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA = "biocoder-harness-strength/1"
SHIPPED_FILE = Path(__file__).with_name("harness_strength.json")
_KEEP = ("weak_harness", "constant_output", "null_candidates_passed")
#: Fields of the engine's evaluation-time strength check (``biocoder_metric.execution.strength``).
_CHECK_KEEP = ("return_unobserved", "harness_sha256", "check_version")
_KEEP_SCORE = ("killed", "total", "killed_with_more_cases", "likely_equivalent")


def _compact(rec: dict[str, Any]) -> dict[str, Any]:
    out = {k: rec.get(k) for k in _KEEP}
    ms = rec.get("mutation_score") or {}
    out["mutation_score"] = {k: ms.get(k) for k in _KEEP_SCORE}
    out.update({k: rec[k] for k in _CHECK_KEEP if k in rec})
    return out


def merge_strength_checks(
    config: str, checks: dict[str, dict[str, Any]], path: str | os.PathLike = SHIPPED_FILE
) -> Path:
    """Add the engine's strength-check verdicts of ``config`` to the file (other fields kept).

    A task the audit never saw gets a record of its own: weak when a null candidate passed,
    and no mutation score.
    """
    p = Path(path)
    data = json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {"schema": SCHEMA, "configs": {}}
    tasks = data["configs"].setdefault(config, {"run": {}, "tasks": {}}).setdefault("tasks", {})
    for task_id, check in sorted(checks.items()):
        rec = tasks.get(task_id) or {
            "weak_harness": False,
            "constant_output": check.get("constant_output"),
            "null_candidates_passed": [],
            "mutation_score": {k: None for k in _KEEP_SCORE},
        }
        rec["weak_harness"] = bool(rec.get("weak_harness")) or bool(check.get("weak_harness"))
        passed = sorted(
            set(rec.get("null_candidates_passed") or []) | set(check.get("null_candidates_passed") or [])
        )
        rec["null_candidates_passed"] = passed
        rec.update({k: check.get(k) for k in _CHECK_KEEP})
        tasks[task_id] = rec
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    _load.cache_clear()
    return p


@lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        return {"schema": SCHEMA, "audit_version": None, "configs": {}}
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{p}: harness_strength file is not valid JSON ({exc})") from None
    if (
        not isinstance(data, dict)
        or data.get("schema") != SCHEMA
        or not isinstance(data.get("configs"), dict)
    ):
        raise ValueError(f"{p}: not a {SCHEMA} file (field 'schema' or 'configs' missing or wrong)")
    return data


def strength_column(config: str, task_id: str, path: str | os.PathLike = SHIPPED_FILE) -> str | None:
    """The ``harness_strength`` value for one row: a JSON object string, or None when not audited."""
    data = _load(str(path))
    rec = data["configs"].get(config, {}).get("tasks", {}).get(task_id)
    if rec is None:
        return None
    return json.dumps({**rec, "audit_version": data.get("audit_version")}, sort_keys=True)


def card_summary(path: str | os.PathLike = SHIPPED_FILE) -> dict[str, dict[str, Any]]:
    """Per config: tasks audited, weak ones (ids), constant-output count, mutants killed/total."""
    data = _load(str(path))
    out = {}
    for config, block in sorted(data["configs"].items()):
        tasks = block.get("tasks", {})
        killed = sum(t["mutation_score"]["killed"] or 0 for t in tasks.values())
        total = sum(t["mutation_score"]["total"] or 0 for t in tasks.values())
        out[config] = {
            "audited": len(tasks),
            "weak": sorted(t for t, r in tasks.items() if r.get("weak_harness")),
            "return_unobserved": sorted(t for t, r in tasks.items() if r.get("return_unobserved")),
            "constant_output": sum(bool(r.get("constant_output")) for r in tasks.values()),
            "mutants_killed": killed,
            "mutants_total": total,
            "likely_equivalent": sum(t["mutation_score"]["likely_equivalent"] or 0 for t in tasks.values()),
            "audit_version": data.get("audit_version"),
        }
    return out


def write_strength_file(
    path: str | os.PathLike, config: str, records: dict[str, dict[str, Any]], run: dict[str, Any]
) -> Path:
    """Replace ``config``'s block of the file at ``path`` (created if absent) and bump its version."""
    p = Path(path)
    data = json.loads(json.dumps(_load(str(p)))) if p.is_file() else {"schema": SCHEMA, "configs": {}}
    data["schema"] = SCHEMA
    data["audit_version"] = _dt.date.today().isoformat()
    data["configs"][config] = {"run": run, "tasks": {t: _compact(r) for t, r in sorted(records.items())}}
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    _load.cache_clear()
    return p
