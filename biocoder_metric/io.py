"""Shared file I/O of every stage: atomic writes, and the one JSON Lines reader.

The base of the package, beside ``errors`` and ``types``: generation, the engine (goldens, the
harness-strength cache, the run folder), the audit, the benchmark build and ``evaluation.py``
all write files here, so a reader never sees half a file, whoever wrote it. The JSON Lines
reader itself lives in ``biocoder_dataset.jsonl`` (the data package, below this one, reads
with it too); it is re-exported here so that the metric package has one I/O module.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from biocoder_dataset.jsonl import iter_jsonl, read_jsonl
from biocoder_metric.errors import ResultsWriteError

__all__ = ["iter_jsonl", "read_jsonl", "write_error", "write_json_atomic", "write_text_atomic"]


def write_error(
    path: Path, exc: OSError, kept: int | None = None, kept_in: Path | None = None
) -> ResultsWriteError:
    """The error for a failed write of ``path``; ``kept`` samples finished before stay in ``kept_in``."""
    kept_text = f"; the {kept} samples finished before are kept in {kept_in}" if kept else ""
    return ResultsWriteError(
        f"cannot write {path}: {exc.strerror or exc}{kept_text}; free space and rerun the same command to resume"
    )


def write_text_atomic(path: Path, text: str, durable: bool = True) -> None:
    """Write text via a temporary file + rename, so readers never see half a file.

    The temporary name is unique per process and thread, so concurrent writers of one path
    (golden cache entries written by several engine threads) never clobber each other's
    temporary file; the last rename wins with a whole file. ``durable`` fsyncs first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(path, exc) from None


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write JSON (indented, sorted keys, newline-terminated) atomically; see :func:`write_text_atomic`."""
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
