"""The one JSON Lines reader: every ``.jsonl`` the project reads goes through it.

Why one: each file kind (samples, task rows, audit records, extracted functions) used to
parse lines its own way, with different errors for the same mistake. Here a bad line is
always an error naming ``FILE:LINE`` and what is wrong, in the caller's own error type.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _decode(path: Path, data: bytes, error: type[Exception]) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(
            f"{path}:{line_no}: not UTF-8 (byte {data[exc.start]:#04x} at column {column}); "
            "JSON Lines files are UTF-8"
        ) from None


def iter_jsonl(
    path: str | Path, *, torn_tail_ok: bool = False, objects: bool = True, error: type[Exception] = ValueError
) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each non-blank line of a UTF-8 JSON Lines file (``where`` is ``FILE:LINE``).

    ``torn_tail_ok``: a last line without its newline that is not valid JSON (a writer was
    killed mid-line) is skipped instead of being an error, for files this project appends to.
    ``objects``: every value must be a JSON object. Errors are raised as ``error``.
    """
    path = Path(path)
    if not path.is_file():
        raise error(f"{path}: no such file")
    text = _decode(path, path.read_bytes(), error)
    torn_from = text.rfind("\n") + 1 if torn_tail_ok and not text.endswith("\n") else None
    offset = 0
    with io.StringIO(text, newline=None) as fh:  # universal newlines, as text-mode open() reads
        for number, line in enumerate(fh, start=1):
            start, offset = offset, offset + len(line)
            where = f"{path}:{number}"
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                if torn_from is not None and start >= torn_from:
                    return
                raise error(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise error(f"{where}: JSON nested too deeply") from None
            if objects and not isinstance(value, dict):
                raise error(f"{where}: expected a JSON object, got {type(value).__name__}")
            yield where, value


def read_jsonl(path: str | Path, *, error: type[Exception] = ValueError) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, in order; see :func:`iter_jsonl`."""
    return [value for _, value in iter_jsonl(path, error=error)]
