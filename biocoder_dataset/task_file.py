"""Read a user's tasks file: task rows of :mod:`biocoder_dataset.schema` in JSON or JSON Lines.

This is how a task set built with ``biocoder build`` (or written by hand) enters the rest of
the project: ``biocoder evaluate --tasks FILE`` and ``biocoder data export --tasks FILE`` both
call :func:`load_task_rows`, so a file either works everywhere or fails everywhere with the
same message. It lives in the dataset layer because the exporter may not import the engine.

Accepted layouts: JSON Lines (one row per line), a JSON list of rows, or the pandas "columns"
object upstream uses. Missing columns are filled with null (``executable`` defaults to False);
an unknown column, a wrong type or a duplicate ``task_id`` is an error naming the file and row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biocoder_dataset.errors import RecordError
from biocoder_dataset.jsonl import read_jsonl
from biocoder_dataset.normalize import read_json, to_records
from biocoder_dataset.schema import COLUMNS, empty_row, validate_row

#: Config name given to rows that do not say which config they belong to.
DEFAULT_CONFIG = "custom"


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON / JSON Lines / pandas-"columns" file (no schema check)."""
    path = Path(path)
    if not path.is_file():
        raise RecordError(f"{path}: tasks file not found")
    if path.suffix in (".jsonl", ".ndjson"):  # one object per line (a one-line file is still a list)
        return read_jsonl(path, error=RecordError)
    data = read_json(path, path.name)
    if (
        isinstance(data, dict)
        and data
        and not all(isinstance(v, dict) for v in data.values())
        and "data" not in data
    ):
        return [data]  # a single row
    return to_records(data, str(path))


def load_task_rows(path: str | Path) -> list[dict[str, Any]]:
    """Validated schema rows of a tasks file (see the module docstring for what is accepted)."""
    path = Path(path)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for i, rec in enumerate(load_records(path)):
        where = f"{path}: row {i}" + (
            f" (task {rec['task_id']!r})" if isinstance(rec.get("task_id"), str) else ""
        )
        unknown = sorted(k for k in rec if k not in COLUMNS)
        if unknown:
            raise RecordError(
                f"{where}: unknown field(s) {unknown}; a task row has only the columns "
                f"{list(COLUMNS)} (put extra information in 'metadata' as a JSON string)"
            )
        row = empty_row()
        row["config"] = DEFAULT_CONFIG
        row.update({k: v for k, v in rec.items() if v is not None or k not in ("config", "executable")})
        if isinstance(row.get("metadata"), dict):
            row["metadata"] = json.dumps(row["metadata"], sort_keys=True)
        try:
            validate_row(row, where)
        except ValueError as exc:
            raise RecordError(str(exc)) from exc
        if row["language"] not in ("python", "java"):
            raise RecordError(
                f"{where}: field 'language' must be 'python' or 'java', got {row['language']!r}"
            )
        if row["kind"] == "harness" and row["executable"] and not row.get("context"):
            raise RecordError(f"{where}: an executable harness task needs a 'context' program")
        if row["task_id"] in seen:
            raise RecordError(
                f"{where}: duplicate task_id {row['task_id']!r} (first at row {seen[row['task_id']]})"
            )
        seen[row["task_id"]] = i
        rows.append(row)
    if not rows:
        raise RecordError(f"{path}: the tasks file holds no rows")
    return rows
