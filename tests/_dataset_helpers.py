"""Helpers shared by the dataset-layer tests (not a test module)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "dataset"
SYNTHETIC_SRC = FIXTURES / "synthetic_src"
DEMO_LIKE = FIXTURES / "demo_like"


def mirror(src: Path, dst: Path, skip: tuple[str, ...] = ()) -> Path:
    """A source dir at ``dst`` whose files are symlinks to ``src``'s, minus the relative paths in ``skip``.

    Lets a test damage or remove one upstream file without copying 30 MB or touching the
    read-only originals.
    """
    for path in src.rglob("*"):
        rel = path.relative_to(src).as_posix()
        if path.is_dir() or rel in skip:
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(path)
    return dst


def replace_file(root: Path, rel: str, data: bytes) -> Path:
    """Replace one (symlinked) file of a mirrored source dir with ``data``."""
    target = root / rel
    target.unlink()
    target.write_bytes(data)
    return target


def columns(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Records -> the pandas "columns" layout upstream uses."""
    out: dict[str, dict[str, Any]] = {}
    for i, rec in enumerate(records):
        for key, value in rec.items():
            out.setdefault(key, {})[str(i)] = value
    return out


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path
