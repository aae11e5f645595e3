"""Run directories as the report sees them: summary, per-sample results, generation metadata, tasks.

A run directory is what ``biocoder evaluate --out`` (or ``biocoder run``) leaves. The report
needs, beyond ``summary.json`` and ``results.jsonl``, the task rows (repository, length of
the context) for its breakdowns: they are loaded from the run's config when that works
offline (``demo``, or a ``--source-dir``), and the breakdowns fall back to the task's kind
and language otherwise, saying so, rather than failing the whole report.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_metric.execution.results import read_results
from biocoder_metric.scoring.ci import pass_at_k_cis
from biocoder_metric.scoring.summary import task_counts


class RunDirError(ValueError):
    """A directory is not a finished run; the message names the missing file."""


@dataclass
class Run:
    """One evaluated run, loaded."""

    name: str
    dir: Path
    summary: dict[str, Any]
    results: list[Any]
    meta: dict[str, Any] = field(default_factory=dict)
    problems: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems_note: str = ""

    @property
    def ks(self) -> list[int]:
        return list(self.summary.get("k") or [1])

    @property
    def counts(self) -> dict[str, tuple[int, int]]:
        """task_id -> (n, c) over the headline's task set: scored tasks, and missing ones as (0, 0).

        The same set the headline pass@k is taken over (a task without samples, accepted with
        ``--allow-missing``, counts as 0), so comparisons and per-repository tables agree with it.
        """
        out = task_counts(self.results)
        missing = self.summary.get("missing") or {}
        if missing.get("counted_as_zero"):
            for t in missing.get("tasks") or []:
                out.setdefault(t, (0, 0))
        return out

    @property
    def missing_counted_as_zero(self) -> list[str]:
        missing = self.summary.get("missing") or {}
        return sorted(missing.get("tasks") or []) if missing.get("counted_as_zero") else []

    def cis(self, n_boot: int, seed: int) -> dict[str, Any]:
        """Overall pass@k CIs: from ``summary.json`` when it has them, else computed (older runs)."""
        block = self.summary.get("confidence_intervals")
        if block and block.get("n_boot") == n_boot and block.get("seed") == seed:
            return block["overall"]
        return pass_at_k_cis(self.counts, self.ks, n_boot=n_boot, seed=seed)

    def group_of(self, task_id: str) -> str:
        """The repository a task comes from, else ``<language> <kind>`` (e.g. ``python rosalind``)."""
        row = self.problems.get(task_id) or {}
        if row.get("repository"):
            return str(row["repository"])
        if row:
            return f"{row.get('language', '?')} {row.get('kind', '?')}"
        return task_id.rsplit("_", 1)[0] if "_" in task_id else task_id

    def size_of(self, task_id: str) -> int | None:
        """Task size for the length plot: characters of the harness context, else of the golden."""
        row = self.problems.get(task_id) or {}
        text = row.get("context") or row.get("golden_code") or ""
        return len(text) if text else None

    def status_counts(self) -> dict[str, int]:
        return dict(self.summary.get("status_counts") or Counter(r.status for r in self.results))

    def generation(self) -> dict[str, Any] | None:
        """Generation cost figures (from ``samples.meta.json``), if the run generated its samples here."""
        totals = self.meta.get("totals")
        if not totals:
            return None
        return {
            "total_time_cost": totals.get("total_time_cost", totals.get("generation_s")),
            "average_time_cost": totals.get("average_time_cost", totals.get("avg_generation_s_per_task")),
            "average_time_cost_per_sample": totals.get(
                "average_time_cost_per_sample", totals.get("avg_generation_s_per_sample")
            ),
            "tokens_per_s": totals.get("tokens_per_s"),
            "generated_tokens": totals.get("generated_tokens"),
        }


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunDirError(f"{path}: cannot read JSON ({exc})") from None


def _model_name(meta: dict[str, Any]) -> str | None:
    model = meta.get("model") or {}
    return model.get("model") or model.get("path") if isinstance(model, dict) else None


def load_run(path: str | Path, *, name: str | None = None, source_dir: str | None = None) -> Run:
    """Load a run directory (``summary.json`` and ``results.jsonl`` required)."""
    folder = Path(path)
    if not folder.is_dir():
        raise RunDirError(f"{folder}: not a directory")
    for required in ("summary.json", "results.jsonl"):
        if not (folder / required).is_file():
            raise RunDirError(f"{folder}: no {required}; run `biocoder evaluate --out {folder}` first")
    summary = _read_json(folder / "summary.json")
    try:
        results = read_results(folder / "results.jsonl")
    except ValueError as exc:
        raise RunDirError(str(exc)) from None
    meta = _read_json(folder / "samples.meta.json") if (folder / "samples.meta.json").is_file() else {}
    run = Run(
        name=name or _model_name(meta) or folder.name, dir=folder, summary=summary, results=results, meta=meta
    )
    config = (summary.get("run") or {}).get("config")
    if config:
        try:
            from biocoder_dataset.configs import load_problems

            run.problems = {r["task_id"]: r for r in load_problems(config, source_dir=source_dir)}
        except Exception as exc:  # noqa: BLE001 - any reason the rows are unavailable: report it, group by kind
            run.problems_note = f"task rows of config {config!r} unavailable ({type(exc).__name__}: {exc}); grouped by task id prefix"
    return run


def unique_names(runs: list[Run]) -> None:
    """Make run names distinct (``name``, ``name (2)``...) so tables and plots can tell them apart."""
    seen: Counter[str] = Counter()
    for run in runs:
        seen[run.name] += 1
        if seen[run.name] > 1:
            run.name = f"{run.name} ({seen[run.name]})"
