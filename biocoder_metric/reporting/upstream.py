"""BioCoder's own file layouts: the Rosalind ``outputs/`` folder in, ``results.json`` out.

Upstream's Rosalind tester (``evaluation/TestRosalind/tester.py`` in gersteinlab/BioCoder)
reads one generation per file, ``outputs/<problem>/<n>.txt`` with ``n`` = 1..20, and saves
its verdicts as ``pandas.DataFrame(columns=["Problem", "Generation", "Passed"])`` filled
row by row and written with ``DataFrame.to_json()`` (pandas' default "columns" orient:
``{"Problem": {"0": "ba1a", ...}, "Generation": {"0": 1, ...}, "Passed": {"0": true, ...}}``).
Reading that folder and writing that file here lets people who already have upstream
generations, or upstream's pass@k snippet, use this evaluator without converting anything.

The generation numbers come from the file names (``7.txt`` is generation 7); within a
problem the samples are numbered ``sample_index = 0, 1, ...`` in increasing ``n``, and the
mapping back to ``(problem, n)`` is kept so ``results.json`` names what upstream named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UPSTREAM_COLUMNS = ("Problem", "Generation", "Passed")
_GENERATION_FILE = re.compile(r"([0-9]+)\.txt")


class UpstreamFormatError(ValueError):
    """An ``outputs/`` folder or a results file does not have upstream's layout; says where."""


@dataclass
class SamplesFromDir:
    """Samples read from an ``outputs/`` folder, plus where each came from."""

    samples: list[dict[str, Any]]
    #: (task_id, sample_index) -> (problem folder name, generation number from the file name)
    origin: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)


def _task_for_folder(name: str, task_ids: set[str]) -> str | None:
    """The task a problem folder stands for: the task id itself or upstream's bare Rosalind id."""
    if name in task_ids:
        return name
    if f"rosalind_{name}" in task_ids:
        return f"rosalind_{name}"
    return None


def read_outputs_dir(folder: str | os.PathLike, task_ids: Iterable[str]) -> SamplesFromDir:
    """Samples from ``folder/<problem>/<n>.txt`` (upstream's tester layout).

    ``<problem>`` is a task id of the config or upstream's Rosalind problem id (``ba1a`` for
    ``rosalind_ba1a``). Every ``.txt`` file must be named by a positive integer; other
    entries (hidden files, non-``.txt`` files) are ignored, as upstream's tester never reads
    them. Unknown problem folders and unreadable files are errors naming the path.
    """
    root = Path(folder)
    if not root.is_dir():
        raise UpstreamFormatError(f"--samples-dir {root}: not a directory")
    known = set(task_ids)
    samples: list[dict[str, Any]] = []
    origin: dict[tuple[str, int], tuple[str, int]] = {}
    unknown = []
    for problem_dir in sorted(p for p in root.iterdir() if not p.name.startswith(".")):
        if not problem_dir.is_dir():
            continue
        task_id = _task_for_folder(problem_dir.name, known)
        if task_id is None:
            unknown.append(problem_dir.name)
            continue
        numbered = []
        for f in problem_dir.iterdir():
            if f.name.startswith(".") or f.suffix != ".txt":
                continue
            m = _GENERATION_FILE.fullmatch(f.name)
            if not m or int(m.group(1)) < 1:
                raise UpstreamFormatError(
                    f"{f}: generation files are named <n>.txt with n = 1, 2, ... (upstream's tester layout)"
                )
            numbered.append((int(m.group(1)), f))
        for index, (number, f) in enumerate(sorted(numbered)):
            try:
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise UpstreamFormatError(f"{f}: cannot read as UTF-8 text ({exc})") from None
            samples.append({"task_id": task_id, "completion": text, "prompt": None, "where": str(f)})
            origin[(task_id, index)] = (problem_dir.name, number)
    if unknown:
        shown = ", ".join(unknown[:8]) + (f" and {len(unknown) - 8} more" if len(unknown) > 8 else "")
        raise UpstreamFormatError(
            f"--samples-dir {root}: folders that name no task of this config: {shown} "
            "(expected a task id, or upstream's Rosalind problem id such as 'ba1a')"
        )
    if not samples:
        raise UpstreamFormatError(f"--samples-dir {root}: no <problem>/<n>.txt files found")
    return SamplesFromDir(samples, origin)


def upstream_rows(
    results: Iterable[Any], origin: Mapping[tuple[str, int], tuple[str, int]] | None = None
) -> list[tuple[str, int, bool]]:
    """``[Problem, Generation, Passed]`` rows, sorted by problem then generation.

    With ``origin`` (from :func:`read_outputs_dir`) the names and numbers are upstream's own;
    without it the problem is the task id (``rosalind_`` prefix dropped, as upstream names
    Rosalind problems) and the generation is ``sample_index + 1`` (upstream counts from 1).
    Samples of tasks excluded from scoring are left out: upstream never ran them either.
    """
    rows = []
    for r in results:
        if (r.extra or {}).get("task_status", "ok") != "ok":
            continue
        key = (r.task_id, r.sample_index)
        if origin and key in origin:
            problem, number = origin[key]
        else:
            problem = r.task_id.removeprefix("rosalind_")
            number = r.sample_index + 1
        rows.append((problem, int(number), r.status == "passed"))
    return sorted(rows, key=lambda row: (row[0], row[1]))


def write_upstream_results(path: str | os.PathLike, rows: Iterable[tuple[str, int, bool]]) -> Path:
    """Write ``rows`` exactly as upstream's tester does (pandas "columns" orient JSON).

    The tester fills an empty three-column frame row by row (``df.loc[len(df)] = row``) and
    calls ``to_json()``; that is quadratic (minutes for a full Rosalind run), so the frame is
    built in one go from object columns, which gives the same bytes (tests compare the two
    on the same rows). pandas comes with ``datasets``.
    """
    import pandas as pd

    rows = list(rows)
    df = pd.DataFrame(
        {
            "Problem": pd.Series([str(r[0]) for r in rows], dtype=object),
            "Generation": pd.Series([int(r[1]) for r in rows], dtype=object),
            "Passed": pd.Series([bool(r[2]) for r in rows], dtype=object),
        },
        columns=list(UPSTREAM_COLUMNS),
    )
    out = Path(path)
    if out.parent and not out.parent.is_dir():
        out.parent.mkdir(parents=True, exist_ok=True)
    df.to_json(out)
    return out


def read_upstream_results(path: str | os.PathLike) -> list[tuple[str, int, bool]]:
    """Rows of an upstream ``results.json`` (either pandas orient it may have been saved in)."""
    import pandas as pd

    try:
        df = pd.read_json(Path(path))
    except ValueError as exc:
        raise UpstreamFormatError(f"{path}: not a pandas JSON table ({exc})") from None
    missing = [c for c in UPSTREAM_COLUMNS if c not in df.columns]
    if missing:
        raise UpstreamFormatError(f"{path}: missing column(s) {', '.join(missing)}")
    return [
        (str(p), int(g), bool(x))
        for p, g, x in zip(df["Problem"], df["Generation"], df["Passed"], strict=True)
    ]
