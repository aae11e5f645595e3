"""The embedded ``demo`` config: small hand-written tasks shipped as package data.

Layout of ``biocoder_dataset/demo/<task_id>/`` (one folder per task):

* ``task.json``: ``{"task_id", "language": "python"|"java", "kind": "harness"|"rosalind",
  "function_name", "signature", "comment", "file_path"?, "title"?}``
* harness tasks: ``context.<ext>`` (with ``<<insert solution here>>``) and ``golden.<ext>``
* Rosalind-style tasks: ``golden.py`` (defines ``solve``), ``input.txt``, ``output.txt``
* ``mutant.<ext>``: a deliberately wrong solution; its text is kept in the row's metadata
  (``mutant_code``) so metric and lm-eval tests can score a known failure from rows alone.

The demo runs with no download, so it is what smoke tests and the quick start use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biocoder_dataset.errors import RecordError
from biocoder_dataset.normalize import require_str
from biocoder_dataset.schema import KIND_HARNESS, KIND_ROSALIND, empty_row

#: The package's own demo folder.
DEMO_DIR = Path(__file__).resolve().parent / "demo"
_EXT = {"python": "py", "java": "java"}


def _read(path: Path, where: str) -> str:
    if not path.is_file():
        raise RecordError(f"{where}: missing file {path.name} (expected at {path})")
    return path.read_text(encoding="utf-8")


def load_demo_rows(demo_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Rows of the demo config (without prompts; ``configs`` adds those), sorted by task id."""
    root = Path(demo_dir) if demo_dir is not None else DEMO_DIR
    if not root.is_dir():
        raise RecordError(
            f"demo folder {root} does not exist (expected one sub-folder per task with a task.json)"
        )
    rows: list[dict[str, Any]] = []
    for task_dir in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        where = f"demo task {task_dir}"
        try:
            meta = json.loads(_read(task_dir / "task.json", where))
        except json.JSONDecodeError as exc:
            raise RecordError(f"{task_dir / 'task.json'}: invalid JSON ({exc})") from exc
        if not isinstance(meta, dict):
            raise RecordError(f"{task_dir / 'task.json'}: expected a JSON object")
        lang = meta.get("language")
        kind = meta.get("kind")
        if lang not in _EXT:
            raise RecordError(
                f"{task_dir / 'task.json'}: field 'language' should be 'python' or 'java', got {lang!r}"
            )
        if kind not in (KIND_HARNESS, KIND_ROSALIND):
            raise RecordError(
                f"{task_dir / 'task.json'}: field 'kind' should be 'harness' or 'rosalind', got {kind!r}"
            )
        if kind == KIND_ROSALIND and lang != "python":
            raise RecordError(f"{task_dir / 'task.json'}: Rosalind-style tasks are Python, got {lang!r}")
        ext = _EXT[lang]
        row = empty_row()
        row.update(
            task_id=require_str(meta.get("task_id"), "task_id", str(task_dir / "task.json")),
            config="demo",
            language=lang,
            kind=kind,
            executable=True,
            function_name=require_str(
                meta.get("function_name"), "function_name", str(task_dir / "task.json")
            ),
            signature=require_str(meta.get("signature"), "signature", str(task_dir / "task.json")),
            comment=require_str(meta.get("comment"), "comment", str(task_dir / "task.json"), allow_none=True),
            golden_code=_read(task_dir / f"golden.{ext}", where),
            file_path=meta.get("file_path"),
            source="demo",
        )
        if kind == KIND_HARNESS:
            row["context"] = _read(task_dir / f"context.{ext}", where)
            if "<<insert solution here>>" not in row["context"]:
                raise RecordError(f"{task_dir / f'context.{ext}'}: no '<<insert solution here>>' line")
        else:
            row["test_input"] = _read(task_dir / "input.txt", where)
            row["expected_output"] = _read(task_dir / "output.txt", where)
        extra = {
            k: v
            for k, v in meta.items()
            if k not in ("task_id", "language", "kind", "function_name", "signature", "comment", "file_path")
        }
        mutant = task_dir / f"mutant.{ext}"
        if mutant.is_file():
            extra["mutant_code"] = mutant.read_text(encoding="utf-8")
        row["metadata"] = json.dumps(extra, sort_keys=True, ensure_ascii=False)
        rows.append(row)
    if not rows:
        raise RecordError(f"demo folder {root} holds no tasks")
    return sorted(rows, key=lambda r: r["task_id"])
