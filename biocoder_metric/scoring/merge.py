"""``biocoder merge``: combine the output dirs of ``--shard I/N`` runs into the unsharded run's files.

Why it is strict: a merged score is only the unsharded score if the shards judged the same
samples, with the same options, in the same sandbox environment, and together cover every
sample exactly once. So the merge

* refuses shards whose ``run.json`` (options, sandbox, environment id, config) or whose
  whole-run digests in ``shard.json`` (all samples, all problems) differ, naming what differs;
* refuses unfinished shards (no ``results.jsonl``), shard counts that disagree, and reports
  missing shard indices, missing samples and samples present in more than one shard;
* writes ``run.json`` with the *unsharded* fingerprint, ``results.partial.jsonl`` (the shards'
  resume logs) and ``results.jsonl`` exactly as one unsharded run writes them; the summary,
  timing and exit decision come from :func:`biocoder_metric.evaluation.merge_run`, the same
  builder and accounting rule as an unsharded run, so the merged directory is
  indistinguishable from (and resumable as) an unsharded run.

``biocoder check --shard`` outputs (``check.json``) are merged the same way into one ``check.json``.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biocoder_metric.execution.results import (
    FINAL_NAME,
    MANIFEST_NAME,
    PARTIAL_NAME,
    SUMMARY_NAME,
    _differences,
    final_line,
    read_results,
)
from biocoder_metric.execution.shard import SHARD_FILE, SHARD_SCHEMA_VERSION
from biocoder_metric.io import write_json_atomic, write_text_atomic

#: run.json keys that legitimately differ between the shards of one run.
_PER_SHARD_KEYS = ("samples_sha256", "problems_sha256", "shard")
#: shard.json keys that must be equal across the shards of one run.
_WHOLE_RUN_KEYS = (
    "count",
    "all_samples_per_task",
    "all_samples_sha256",
    "all_problems_sha256",
    "task_set",
    "scoreable_tasks",
    "task_config",
    "allow_missing",
)
#: How many missing / duplicated samples a report lists by name.
_LIST_LIMIT = 20


class MergeError(ValueError):
    """Shards that cannot be merged; the message names the directory and the reason."""


@dataclass
class MergeReport:
    """What the merge found; ``ok`` when every sample is present exactly once."""

    shards: int = 0
    count: int = 0
    samples: int = 0
    missing_shards: list[int] = field(default_factory=list)
    duplicated_shards: list[int] = field(default_factory=list)
    missing: list[tuple[str, int]] = field(default_factory=list)
    duplicated: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    #: Scoreable tasks of the task set with no result (no sample in the file, or in an absent shard).
    missing_tasks: list[str] = field(default_factory=list)
    #: The merged run under the one accounting rule (set when a summary was written).
    accounting: Any = None

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicated or self.missing_shards or self.duplicated_shards)

    def render(self) -> str:
        lines = [f"merge: {self.shards} shard dir(s) of {self.count}, {self.samples} samples"]
        if self.missing_shards:
            lines.append(f"  missing shard(s): {', '.join(f'{i}/{self.count}' for i in self.missing_shards)}")
        if self.duplicated_shards:
            lines.append(
                f"  shard(s) given more than once: {', '.join(f'{i}/{self.count}' for i in self.duplicated_shards)}"
            )
        if self.missing:
            shown = ", ".join(f"{t}#{i}" for t, i in self.missing[:_LIST_LIMIT])
            more = f" (+{len(self.missing) - _LIST_LIMIT} more)" if len(self.missing) > _LIST_LIMIT else ""
            lines.append(f"  missing samples: {len(self.missing)}: {shown}{more}")
        if self.missing_tasks:
            shown = ", ".join(self.missing_tasks[:_LIST_LIMIT])
            more = (
                f" (+{len(self.missing_tasks) - _LIST_LIMIT} more)"
                if len(self.missing_tasks) > _LIST_LIMIT
                else ""
            )
            lines.append(f"  tasks of the task set without samples: {len(self.missing_tasks)}: {shown}{more}")
        if self.duplicated:
            items = list(self.duplicated.items())
            shown = "; ".join(f"{t}#{i} in {', '.join(d)}" for (t, i), d in items[:_LIST_LIMIT])
            more = f" (+{len(items) - _LIST_LIMIT} more)" if len(items) > _LIST_LIMIT else ""
            lines.append(f"  duplicated samples: {len(items)}: {shown}{more}")
        return "\n".join(lines)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(f"{path}: missing") from None
    except (OSError, ValueError) as exc:
        raise MergeError(f"{path}: unreadable ({exc})") from None


def _compare(what: str, first_dir: Path, first: Any, other_dir: Path, other: Any) -> None:
    if first != other:
        if isinstance(first, dict) and isinstance(other, dict):
            diff = "; ".join(_differences(first, other)[:6])
        else:
            diff = f"{first!r} -> {other!r}"
        raise MergeError(
            f"{other_dir} is not a shard of the same run as {first_dir}: {what} differs ({diff})"
        )


@dataclass
class _Shard:
    dir: Path
    manifest: dict[str, Any]
    record: dict[str, Any]
    summary: dict[str, Any]


def _load_shard(d: Path) -> _Shard:
    if not d.is_dir():
        raise MergeError(f"{d}: not a directory")
    record = _read_json(d / SHARD_FILE) if (d / SHARD_FILE).is_file() else None
    if record is None:
        raise MergeError(f"{d}: no {SHARD_FILE}; it is not the output of `biocoder evaluate --shard I/N`")
    if record.get("schema") != SHARD_SCHEMA_VERSION:
        raise MergeError(
            f"{d / SHARD_FILE}: schema {record.get('schema')!r}, expected {SHARD_SCHEMA_VERSION!r}"
        )
    if not (d / FINAL_NAME).is_file() or not (d / SUMMARY_NAME).is_file():
        raise MergeError(
            f"{d}: shard {record.get('index')}/{record.get('count')} did not finish (no {FINAL_NAME} / {SUMMARY_NAME}); "
            "rerun its command (it resumes), then merge"
        )
    return _Shard(d, _read_json(d / MANIFEST_NAME), record, _read_json(d / SUMMARY_NAME))


def _base(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in manifest.items() if k not in _PER_SHARD_KEYS}


@dataclass
class MergedShards:
    """The combined content of shards that merge: what the unsharded run's folder is written from."""

    #: Every result, sorted by (task_id, sample_index).
    results: list[Any]
    #: The unsharded ``run.json``.
    manifest: dict[str, Any]
    #: The shards' resume-log lines.
    partial_lines: list[str]
    task_set: list[str]
    task_config: dict[str, str]
    ks: list[int]
    #: The summary's ``run`` block (equal in every shard).
    run_info: dict[str, Any]
    #: Per shard: ``{"shard": "I/N", **its timing.json}``.
    timings: list[dict[str, Any]]


def combine_shards(
    shard_dirs: Sequence[str | os.PathLike], *, allow_missing: bool = False
) -> tuple[MergeReport, MergedShards | None]:
    """Check and combine evaluation shards; returns (report, combined or None when they must not merge).

    They merge only if every sample is present exactly once and every scoreable task of the task
    set has samples -- the rule an unsharded ``evaluate`` applies. ``allow_missing`` (or
    ``--allow-missing`` given to the shards, for tasks the samples file lacks) merges anyway,
    tasks without results counted as 0 correct and listed; duplicates never merge. Nothing is
    written here: :func:`biocoder_metric.evaluation.merge_run` writes the merged folder.
    """
    if not shard_dirs:
        raise MergeError("no shard directories given")
    shards = [_load_shard(Path(d)) for d in shard_dirs]
    first = shards[0]
    for s in shards[1:]:
        _compare(
            "run.json (options, sandbox, environment, config)",
            first.dir,
            _base(first.manifest),
            s.dir,
            _base(s.manifest),
        )
        for key in _WHOLE_RUN_KEYS:
            _compare(f"shard.json {key}", first.dir, first.record.get(key), s.dir, s.record.get(key))
        _compare("summary.json k", first.dir, first.summary.get("k"), s.dir, s.summary.get("k"))
        _compare("summary.json run", first.dir, first.summary.get("run"), s.dir, s.summary.get("run"))

    count = int(first.record["count"])
    report = MergeReport(shards=len(shards), count=count)
    seen_idx: dict[int, int] = defaultdict(int)
    for s in shards:
        seen_idx[int(s.record["index"])] += 1
    report.missing_shards = [i for i in range(count) if i not in seen_idx]
    report.duplicated_shards = sorted(i for i, n in seen_idx.items() if n > 1)

    where: dict[tuple[str, int], list[str]] = defaultdict(list)
    results = {}
    partial_lines: list[str] = []
    task_config: dict[str, str] = {}
    for s in shards:
        try:
            shard_results = read_results(s.dir / FINAL_NAME)
        except ValueError as exc:
            raise MergeError(str(exc)) from None
        for r in shard_results:
            key = (r.task_id, r.sample_index)
            where[key].append(str(s.dir))
            results[key] = r
        task_config.update(s.record.get("task_config") or {})
        partial = s.dir / PARTIAL_NAME
        if partial.is_file():
            partial_lines += [ln for ln in partial.read_text(encoding="utf-8").splitlines() if ln.strip()]
    expected = {(t, i) for t, n in first.record["all_samples_per_task"].items() for i in range(int(n))}
    report.missing = sorted(expected - set(results))
    report.duplicated = {k: v for k, v in sorted(where.items()) if len(v) > 1}
    unexpected = sorted(set(results) - expected)
    if unexpected:
        raise MergeError(
            f"{where[unexpected[0]][0]}: sample {unexpected[0][0]}#{unexpected[0][1]} is not in the samples "
            f"file the shards were cut from ({len(unexpected)} such samples)"
        )
    report.samples = len(results)
    have = {t for t, _ in results}
    report.missing_tasks = [t for t in first.record["scoreable_tasks"] if t not in have]
    file_lacks = [t for t in report.missing_tasks if t not in first.record["all_samples_per_task"]]
    if report.duplicated or report.duplicated_shards:
        return report, None
    if (report.missing or report.missing_shards) and not allow_missing:
        return report, None
    if file_lacks and not (allow_missing or first.record.get("allow_missing")):
        return report, None
    timings = []
    for s in shards:
        t = _read_json(s.dir / "timing.json") if (s.dir / "timing.json").is_file() else {}
        timings.append({"shard": f"{s.record['index']}/{count}", **t})
    merged = MergedShards(
        results=[results[k] for k in sorted(results)],
        manifest={
            **_base(first.manifest),
            "samples_sha256": first.record["all_samples_sha256"],
            "problems_sha256": first.record["all_problems_sha256"],
        },
        partial_lines=sorted(partial_lines),
        task_set=list(first.record["task_set"]),
        task_config={**first.record["task_config"], **task_config},
        ks=list(first.summary["k"]),
        run_info=dict(first.summary.get("run") or {}),
        timings=timings,
    )
    return report, merged


def write_merged_records(out: Path, merged: MergedShards, *, overwrite: bool = False) -> None:
    """The merged folder's records: ``run.json`` (the unsharded fingerprint), the resume log, ``results.jsonl``."""
    _prepare_out(out, overwrite)
    write_json_atomic(out / MANIFEST_NAME, merged.manifest)
    _write_lines(out / PARTIAL_NAME, merged.partial_lines)
    _write_lines(out / FINAL_NAME, [final_line(r).rstrip("\n") for r in merged.results])


def merged_timing(merged: MergedShards) -> dict[str, Any]:
    """``timing.json`` of the merged run: the longest shard's wall time, the sums, and each shard's."""
    timings = merged.timings
    return {
        "wall_s": max((t.get("wall_s") or 0.0 for t in timings), default=0.0),
        "samples_run": sum(t.get("samples_run") or 0 for t in timings),
        "samples_resumed": sum(t.get("samples_resumed") or 0 for t in timings),
        "shards": timings,
    }


def _prepare_out(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise MergeError(f"--out {out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    names = (MANIFEST_NAME, PARTIAL_NAME, FINAL_NAME, SUMMARY_NAME, "timing.json", "check.json")
    present = [n for n in names if (out / n).exists()]
    if present and not overwrite:
        raise MergeError(
            f"--out {out} already holds {', '.join(present)}; use --overwrite or another directory"
        )
    for n in present:
        (out / n).unlink()


def _write_lines(path: Path, lines: list[str]) -> None:
    write_text_atomic(path, "".join(ln + "\n" for ln in lines))


def merge_checks(
    shard_dirs: list[str | os.PathLike], out_dir: str | os.PathLike, *, overwrite: bool = False
) -> tuple[list[str], dict[str, Any]]:
    """Merge ``check.json`` of ``biocoder check --shard`` runs; returns (missing task ids, merged report)."""
    reports = [(Path(d), _read_json(Path(d) / "check.json")) for d in shard_dirs]
    d0, r0 = reports[0]
    header0 = {k: v for k, v in r0.items() if k not in ("tasks", "shard")}
    tasks: dict[str, dict[str, Any]] = {}
    for d, r in reports:
        if "shard" not in r:
            raise MergeError(f"{d / 'check.json'}: not the output of `biocoder check --shard I/N`")
        _compare(
            "check.json header", d0, header0, d, {k: v for k, v in r.items() if k not in ("tasks", "shard")}
        )
        _compare(
            "check.json shard count / task list",
            d0,
            (r0["shard"]["count"], r0["shard"]["all_tasks"]),
            d,
            (r["shard"]["count"], r["shard"]["all_tasks"]),
        )
        for t in r["tasks"]:
            if t["task_id"] in tasks:
                raise MergeError(f"{d / 'check.json'}: task {t['task_id']} also checked by another shard")
            tasks[t["task_id"]] = t
    missing = [t for t in r0["shard"]["all_tasks"] if t not in tasks]
    merged = {**header0, "tasks": [tasks[t] for t in r0["shard"]["all_tasks"] if t in tasks]}
    if not missing:
        out = Path(out_dir)
        _prepare_out(out, overwrite)
        write_json_atomic(out / "check.json", merged)
    return missing, merged


__all__ = [
    "MergeError",
    "MergeReport",
    "MergedShards",
    "combine_shards",
    "merge_checks",
    "merged_timing",
    "write_merged_records",
]
