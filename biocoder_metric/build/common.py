"""Shared plumbing of the ``biocoder build`` stages: source-file walking, skip accounting, JSONL I/O, ids.

Why it exists: every extractor must treat bad input the same way (skip the file, count and log
the reason, never abort), every stage writes JSONL atomically so an interrupted run never
leaves a half file that a rerun would mistake for a finished stage, and every stage needs the
same cache root. Keeping these in one place keeps the stage modules about their one job.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import textwrap
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.io import write_text_atomic

log = logging.getLogger("biocoder.build")

#: Files larger than this are skipped as "huge": generated code, vendored bundles, data dumps.
MAX_FILE_BYTES = 1_000_000
#: Folders never walked: VCS data, virtualenvs, caches, build outputs.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".tox",
        ".venv",
        "venv",
        "node_modules",
        "build",
        "dist",
        "target",
        ".eggs",
    }
)
#: File extension per language.
EXTENSIONS = {"python": ".py", "java": ".java"}


def cache_root() -> Path:
    """The cache root's ``build`` folder (:func:`biocoder_dataset.settings.cache_dir`): model summaries live here."""
    return settings.cache_dir("build")


def upstream_repo_name(repo_name: str) -> str:
    """``owner/name`` -> ``owner,name``: upstream's records spell the repository with a comma."""
    return repo_name.replace("/", ",", 1)


def function_id(repo_name: str, file_path: str, parent_class: str, signature: str) -> str:
    """sha256 of the signature, qualified by repository, file and class.

    Upstream hashes the signature alone; Java overloads and same-named helpers in different
    files would then collide, so the file and enclosing class are part of the hashed text.
    """
    text = "\x1f".join((repo_name, file_path, parent_class, signature))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(*parts: str) -> str:
    """Hex sha256 of ``parts`` joined by a separator that cannot appear in source text."""
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()


def dedent_block(text: str, first_line_indent: int | str) -> str:
    """Dedent a slice of source whose first line started after ``first_line_indent`` on its line.

    A node's text begins mid-line (its indentation is not part of it) while later lines keep
    theirs; putting the first line's own indentation back before ``textwrap.dedent`` removes
    the common indent. Pass the indentation text itself (tabs stay tabs, so a tab-indented
    file dedents fully); an ``int`` stands for that many spaces.
    """
    pad = " " * first_line_indent if isinstance(first_line_indent, int) else first_line_indent
    if pad.strip():  # code before the node on its line: only its width matters
        pad = " " * len(pad)
    return textwrap.dedent(pad + text)


@dataclass
class SkipLog:
    """Counted reasons for skipping files (and functions): reported, never fatal."""

    counts: Counter[str] = field(default_factory=Counter)
    items: list[dict[str, str]] = field(default_factory=list)

    def skip(self, path: str, reason: str, detail: str = "") -> None:
        self.counts[reason] += 1
        self.items.append({"filePath": path, "reason": reason, "detail": detail[:300]})
        log.warning("skipped %s: %s%s", path, reason, f" ({detail[:200]})" if detail else "")

    def as_dict(self) -> dict[str, Any]:
        return {"counts": dict(sorted(self.counts.items())), "items": self.items}


def iter_source_files(repo: Path, language: str, package_dir: str | None = None) -> Iterator[Path]:
    """Source files of ``language`` under ``repo`` (or ``repo/package_dir``), sorted for reproducibility."""
    if language not in EXTENSIONS:
        raise ValueError(f"unknown language {language!r}; use one of {sorted(EXTENSIONS)}")
    root = repo / package_dir if package_dir else repo
    if not root.is_dir():
        raise ValueError(f"{root}: not a directory (check --repo / --package-dir)")
    ext = EXTENSIONS[language]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(ext))
    yield from sorted(found)


def read_source(path: Path, rel: str, skips: SkipLog, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """The file's text, or None after logging why it was skipped (unreadable, huge, binary, not UTF-8)."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            skips.skip(rel, "huge", f"{size} bytes > {max_bytes}")
            return None
        data = path.read_bytes()
    except OSError as exc:
        skips.skip(rel, "unreadable", str(exc))
        return None
    if b"\x00" in data[:8192]:
        skips.skip(rel, "binary", "NUL byte in the first 8 KiB")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        skips.skip(rel, "not_utf8", str(exc))
        return None


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write records atomically (temp file + rename); returns how many were written."""
    lines = [json.dumps(rec, ensure_ascii=False) + "\n" for rec in records]
    write_text_atomic(Path(path), "".join(lines))
    return len(lines)


def write_json(path: Path, data: Any) -> None:
    """Write one JSON document atomically."""
    write_text_atomic(Path(path), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def files_path(functions_path: Path) -> Path:
    """``functions.jsonl`` -> ``functions.files.jsonl``: where ``extract`` writes its per-file records."""
    functions_path = Path(functions_path)
    return functions_path.with_name(f"{functions_path.stem}.files.jsonl")


def report_path(functions_path: Path) -> Path:
    """``functions.jsonl`` -> ``functions.report.json``: the extract stage's counts and skips."""
    functions_path = Path(functions_path)
    return functions_path.with_name(f"{functions_path.stem}.report.json")
