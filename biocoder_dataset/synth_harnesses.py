"""Synthesised test harnesses shipped with the dataset (never regenerated on load).

``biocoder build harness`` (``biocoder_metric.synth``) builds and validates a harness per
golden-only task offline; the validated ones are collected into a versioned JSONL file
next to this module, ``synth/harnesses-v1.jsonl``. The loader merges them into the rows of
the shipped configs: a golden-only row whose ``(task_id, sha256(golden_code))`` has a
record becomes an executable ``harness`` row with ``harness_source: synthesized``. The
golden hash in the key means a harness is never applied to a golden it was not validated
against. Upstream's hand-written harnesses keep ``harness_source: upstream``.

Record fields (schema ``biocoder-synth-harness/1``): ``task_id``, ``config``,
``language``, ``golden_sha256``, ``context``, ``mutation_score``, ``mutants_killed``,
``mutants_judged``, ``plan``, ``synth_version``.

The synth-harnesses setting (:mod:`biocoder_dataset.settings`) set to 0 turns the merge off (rows stay as upstream publishes them).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from biocoder_dataset import settings

SCHEMA = "biocoder-synth-harness/1"
SYNTH_VERSION = "v1"
SHIPPED_FILE = Path(__file__).parent / "synth" / f"harnesses-{SYNTH_VERSION}.jsonl"
SOURCE_SYNTHESIZED = "synthesized"
SOURCE_UPSTREAM = "upstream"


def golden_sha256(code: str | None) -> str:
    return hashlib.sha256((code or "").encode("utf-8")).hexdigest()


@lru_cache(maxsize=4)
def _load(path: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    p = Path(path)
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    if not p.is_file():
        return out
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{p}:{i}: not JSON ({exc})") from None
        missing = [
            k for k in ("task_id", "config", "golden_sha256", "context") if not isinstance(rec.get(k), str)
        ]
        if rec.get("schema") != SCHEMA or missing:
            raise ValueError(f"{p}:{i}: not a {SCHEMA} record (missing/ill-typed: {missing or ['schema']})")
        out[(rec["config"], rec["task_id"], rec["golden_sha256"])] = rec
    return out


def golden_body_key(row: dict[str, Any]) -> str | None:
    """Whitespace-free text of the golden's body (without its header and docstring), or None."""
    import ast

    from biocoder_dataset.normalize import code_key

    code = row.get("golden_code") or ""
    if row.get("language") == "java":
        i = code.find("{")
        body = code_key(code[i + 1 :]) if i >= 0 else ""
        return body if len(body) > 2 else None  # "}" alone says nothing
    try:
        fn = ast.parse(code).body[0]
    except (SyntaxError, IndexError, ValueError):
        return None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    stmts = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
    return code_key("\n".join(ast.get_source_segment(code, s) or "" for s in stmts)) or None


def context_leaks_golden(row: dict[str, Any], context: str | None) -> bool:
    """True when a harness ``context`` holds the golden's body (e.g. a sliced copy in a helper
    class): a candidate could call it instead of solving the task, and a full-context prompt
    built from it would show the answer. Such a harness is never shipped nor attached."""
    from biocoder_dataset.normalize import code_key

    body = golden_body_key(row)
    return bool(body and context and body in code_key(context.replace("<<insert solution here>>", "")))


def enabled() -> bool:
    """Whether shipped synthesised harnesses are attached (the settings' synth-harnesses switch)."""
    return settings.env_flag(settings.ENV_SYNTH_HARNESSES, default=True)


def apply(config: str, row: dict[str, Any], path: str | os.PathLike = SHIPPED_FILE) -> None:
    """Set ``harness_source`` on ``row`` and, for a golden-only row with a shipped harness, make it executable."""
    if row.get("kind") == "harness" and row.get("context"):
        row.setdefault("harness_source", None)
        if row["harness_source"] is None:
            row["harness_source"] = SOURCE_UPSTREAM
        return
    row.setdefault("harness_source", None)
    if not enabled() or row.get("kind") != "golden_only":
        return
    rec = _load(str(path)).get((config, row["task_id"], golden_sha256(row.get("golden_code"))))
    if rec is None or context_leaks_golden(row, rec["context"]):
        return
    row.update(
        kind="harness",
        executable=True,
        not_executable_reason=None,
        context=rec["context"],
        harness_source=SOURCE_SYNTHESIZED,
    )


def write_shipped(records: list[dict[str, Any]], path: str | os.PathLike = SHIPPED_FILE) -> int:
    """Merge validated ``biocoder build harness`` report records into the shipped file; returns its size.

    The file is read again here, under an exclusive lock held until it is rewritten: a run reads
    it (cached) when it loads its config, and another ``--ship`` run may have merged into it
    since. Merging into the copy read at the start dropped that run's harnesses."""
    import fcntl

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{p}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _load.cache_clear()
        return _merge(records, p)


def _merge(records: list[dict[str, Any]], p: Path) -> int:
    current = dict(_load(str(p)))
    for r in records:
        if r.get("status") != "validated" or not r.get("config"):
            continue
        v = r.get("validation") or {}
        current[(r["config"], r["task_id"], r["golden_sha256"])] = {
            "schema": SCHEMA,
            "task_id": r["task_id"],
            "config": r["config"],
            "language": r["language"],
            "golden_sha256": r["golden_sha256"],
            "context": r["context"],
            "mutation_score": v.get("mutation_score"),
            "mutants_killed": v.get("mutants_killed"),
            "mutants_judged": v.get("mutants_judged"),
            "plan": r.get("plan"),
            "synth_version": SYNTH_VERSION,
        }
    lines = [json.dumps(current[k], sort_keys=True) for k in sorted(current)]
    p.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    _load.cache_clear()
    return len(lines)
