"""Turn prompted functions into task rows of :mod:`biocoder_dataset.schema`.

The rows are what ``biocoder evaluate --tasks FILE`` and ``biocoder data export --tasks FILE``
read (through :func:`biocoder_dataset.task_file.load_task_rows`), so a built set is judged and
published exactly like the upstream configs.

A row is executable only when a test harness exists for its function: ``--harness FILE`` gives
harness records (from ``biocoder build harness`` or upstream's harness tasks) matched to a
function by ``function_id`` (also read from a task row's ``metadata``, so the output of
``biocoder build harness`` can be fed back), or by package and function name when the harness's golden code is
the same function (same AST without docstrings for Python, same text without whitespace for
Java). Without a harness the row is ``golden_only`` and says why it cannot be run.
"""

from __future__ import annotations

import json
from typing import Any

from biocoder_dataset.schema import empty_row, validate_row
from biocoder_metric.languages import runner

SOURCE = "biocoder build"


def same_function(a: str, b: str, language: str) -> bool:
    """Is ``a`` the same function as ``b``? Python: same AST (docstrings aside); Java: same non-space text."""
    return runner(language).same_function(a, b)


def _harness_index(
    harness: list[dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], list[dict[str, Any]]]]:
    by_id: dict[str, dict[str, Any]] = {}
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for i, h in enumerate(harness):
        if not isinstance(h.get("context"), str) or not h["context"].strip():
            continue
        fid = h.get("function_id")
        if not fid and isinstance(
            h.get("metadata"), str
        ):  # a task row (e.g. `biocoder build harness` output)
            try:
                meta = json.loads(h["metadata"])
            except json.JSONDecodeError:
                meta = {}
            fid = meta.get("function_id") if isinstance(meta, dict) else None
        if fid:
            by_id[str(fid)] = h
        name = h.get("function_name") or h.get("functionName")
        pkg = h.get("package_name") or h.get("packageName") or ""
        if name:
            by_name.setdefault((pkg, name), []).append({**h, "_index": i})
    return by_id, by_name


def find_harness(
    rec: dict[str, Any],
    by_id: dict[str, dict[str, Any]],
    by_name: dict[tuple[str, str], list[dict[str, Any]]],
) -> dict[str, Any] | None:
    """The harness record for a function, or None (see the module docstring for the rule)."""
    if rec["function_id"] in by_id:
        return by_id[rec["function_id"]]
    lang = rec.get("language", "python")
    for h in by_name.get((rec.get("packageName", ""), rec["functionName"]), []):
        golden = h.get("golden_code") or h.get("goldenCode")
        if not golden or same_function(golden, rec["content"], lang):
            return h
    return None


def task_row(rec: dict[str, Any], config: str, harness: dict[str, Any] | None) -> dict[str, Any]:
    """One schema row for one prompted function record."""
    lang = rec.get("language", "python")
    prefix = runner(lang).task_prefix
    row = empty_row()
    repo = rec.get("repoName", "").replace(",", "/", 1)
    meta = {
        "function_id": rec["function_id"],
        "package_name": rec.get("packageName"),
        "parent_class": rec.get("parentClass") or None,
        "params": rec.get("params"),
        "return_type": rec.get("returnType"),
        "num_lines": rec.get("numLines"),
        "spec": rec.get("spec"),
        "prompt_source": rec.get("prompt_source"),
        "prompt_model": rec.get("prompt_model"),
    }
    if harness is not None:
        meta["harness_source"] = harness.get("task_id") or harness.get("source") or "harness file"
    row.update(
        {
            "task_id": f"build_{prefix}_{rec['function_id'][:12]}",
            "config": config,
            "language": lang,
            "kind": "harness" if harness is not None else "golden_only",
            "executable": harness is not None,
            "not_executable_reason": None
            if harness is not None
            else "no test harness for this function yet (give one with `biocoder build tasks --harness FILE`)",
            "function_name": rec["functionName"],
            "signature": rec["signature"],
            "comment": rec.get("comment") or rec.get("spec") or None,
            "prompt_summary_only": rec.get("prompt_summary_only"),
            "prompt_full_context": rec.get("prompt_full_context"),
            "context": harness["context"] if harness is not None else None,
            "golden_code": rec["content"],
            "repository": repo,
            "file_path": rec.get("filePath"),
            "line_start": rec.get("lineStart"),
            "line_end": rec.get("lineEnd"),
            "source": SOURCE,
            "metadata": json.dumps(meta, sort_keys=True, default=str),
        }
    )
    validate_row(row, f"task {row['task_id']} ({rec.get('filePath')}:{rec.get('lineStart')})")
    return row


def build_tasks(
    prompted: list[dict[str, Any]], config: str = "custom", harness: list[dict[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(rows, report): one row per function; the report counts rows with and without a harness."""
    by_id, by_name = _harness_index(harness or [])
    rows, seen = [], set()
    for rec in prompted:
        for key in ("function_id", "functionName", "signature", "content"):
            if key not in rec:
                raise ValueError(
                    f"prompted record {rec.get('function_id', '?')} ({rec.get('filePath')}): missing field {key!r}"
                )
        row = task_row(rec, config, find_harness(rec, by_id, by_name))
        if row["task_id"] in seen:
            raise ValueError(
                f"two functions share the task id {row['task_id']} (function_id prefix collision)"
            )
        seen.add(row["task_id"])
        rows.append(row)
    with_harness = sum(r["executable"] for r in rows)
    return rows, {
        "tasks": len(rows),
        "with_harness": with_harness,
        "golden_only": len(rows) - with_harness,
        "config": config,
    }
