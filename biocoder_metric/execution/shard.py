"""``--shard I/N``: a deterministic slice of a samples file, for Slurm arrays and any batch system.

Why whole tasks, not single samples: every sample of a task lands in the same shard, so

* ``sample_index`` (the position of a sample among its task's samples in the file) is the same
  in a shard as in the unsharded run, with no renumbering to get wrong;
* each task's golden outputs are computed by one shard only (goldens cost two runs of every
  fuzz case), not once per shard;
* pass@k, a per-task quantity, never straddles two shards.

Assignment: tasks sorted by (samples descending, task_id), each given to the shard with the
fewest samples so far (ties: the lowest shard index) -- "longest first" balancing. It depends
only on the samples file, so every array element computes the same partition without talking
to the others, and the N slices are disjoint and cover every sample. ``shard.json`` in each
shard's output directory records what ``biocoder merge`` needs to check that (docs/formats.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SHARD_SCHEMA_VERSION = "biocoder-shard/1"
SHARD_FILE = "shard.json"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (0-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"I/N"`` with ``0 <= I < N`` (Slurm: ``--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT``)."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m:
        raise ValueError(f"--shard must look like I/N (e.g. 0/4), got {text!r}")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1 or index >= count:
        raise ValueError(f"--shard {text}: need 0 <= I < N and N >= 1")
    return Shard(index, count)


def assign_tasks(samples_per_task: dict[str, int], count: int) -> dict[str, int]:
    """task_id -> shard index, balancing sample counts (see the module docstring)."""
    loads = [0] * count
    out: dict[str, int] = {}
    for task_id, n in sorted(samples_per_task.items(), key=lambda kv: (-kv[1], kv[0])):
        target = min(range(count), key=lambda i: (loads[i], i))
        out[task_id] = target
        loads[target] += n
    return out


def select(samples: Iterable[dict[str, Any]], shard: Shard) -> list[dict[str, Any]]:
    """The samples of ``shard``, in file order (whole tasks; ``task_id`` is all that is read)."""
    samples = list(samples)
    owner = assign_tasks(Counter(s["task_id"] for s in samples), shard.count)
    return [s for s in samples if owner[s["task_id"]] == shard.index]


def shard_record(
    shard: Shard,
    normalized_all: list[dict[str, Any]],
    samples_sha256_all: str,
    problems_sha256_all: str,
    task_config: dict[str, str],
    task_set: list[str] | None = None,
    scoreable: list[str] | None = None,
    allow_missing: bool = False,
) -> dict[str, Any]:
    """The ``shard.json`` content: this slice, and the whole run it is a slice of.

    ``task_set`` / ``scoreable`` are the unsharded run's denominator (the tasks pass@k is over,
    and those of them that can be scored), so the merge applies the missing-tasks rule and
    writes the unsharded summary; ``allow_missing`` records whether the shards were told to
    count tasks without samples as 0.
    """
    per_task = Counter(s["task_id"] for s in normalized_all)
    owner = assign_tasks(per_task, shard.count)
    mine = sorted(t for t, i in owner.items() if i == shard.index)
    return {
        "schema": SHARD_SCHEMA_VERSION,
        "index": shard.index,
        "count": shard.count,
        "tasks": mine,
        "samples": sum(per_task[t] for t in mine),
        "all_samples_per_task": dict(sorted(per_task.items())),
        "all_samples_sha256": samples_sha256_all,
        "all_problems_sha256": problems_sha256_all,
        "task_config": dict(sorted(task_config.items())),
        "task_set": sorted(task_set if task_set is not None else per_task),
        "scoreable_tasks": sorted(scoreable if scoreable is not None else per_task),
        "allow_missing": bool(allow_missing),
    }


def plan(
    problems: list[dict[str, Any]],
    samples: list[dict[str, Any]],
    shard: Shard,
    default_config: str,
    options: Any = None,
    task_ids: list[str] | None = None,
    allow_missing: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(this shard's samples, its ``shard.json`` record) for an evaluation of ``samples``.

    The digests are those the *unsharded* run would write in its ``run.json``, so the merged
    directory carries the unsharded fingerprint and a later unsharded rerun there resumes.
    Invalid samples raise :class:`~biocoder_metric.execution.EvalInputError` exactly as unsharded.
    """
    from biocoder_metric.digests import problems_digest, samples_digest
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.tasks import index_problems, scoreable_tasks, select_tasks
    from biocoder_metric.samples import normalize_samples

    by_id = select_tasks(index_problems(problems), task_ids)
    norm = normalize_samples(samples, by_id)
    used = sorted({s["task_id"] for s in norm})
    record = shard_record(
        shard,
        norm,
        samples_digest(norm),
        problems_digest([by_id[t] for t in used]),
        {t: row.get("config") or default_config for t, row in by_id.items()},
        task_set=sorted(by_id),
        scoreable=scoreable_tasks(by_id, options or EvalOptions()),
        allow_missing=allow_missing,
    )
    mine = set(record["tasks"])
    return [s for s in samples if s["task_id"] in mine], record


def select_problems(problems: list[dict[str, Any]], shard: Shard) -> list[dict[str, Any]]:
    """``biocoder check --shard``: whole tasks of the config, one unit of work each."""
    owner = assign_tasks({r["task_id"]: 1 for r in problems}, shard.count)
    return [r for r in problems if owner[r["task_id"]] == shard.index]


__all__ = [
    "SHARD_FILE",
    "SHARD_SCHEMA_VERSION",
    "Shard",
    "assign_tasks",
    "parse_shard",
    "plan",
    "select",
    "select_problems",
    "shard_record",
]
