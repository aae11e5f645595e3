"""Run problems x n samples through a processor into a samples JSONL, resumably, on 1..N processes.

The file is the contract with ``biocoder evaluate``: one JSON object per line,
``{"task_id", "sample_index", "completion", "raw", "schema"}``. ``completion`` is the
post-processed candidate, ``raw`` what the model produced (kept so post-processing can be
audited or redone).

Why the file layout is what it is:

* **Resume.** Lines are appended as soon as a batch finishes. A rerun counts the samples each
  task already has (evalplus' ``codegen`` does the same) and generates only what is missing;
  a line cut short by a crash is dropped and overwritten.
* **Several processes.** Under ``accelerate launch`` every process takes a contiguous share of
  the missing tasks (``PartialState.split_between_processes``) and appends to its own
  ``<stem>.rank<r>.partial.jsonl``; after a barrier the main process alone merges the main
  file and all shards into the final file (in problem order) and removes the shards. An
  interrupted multi-process run leaves its shards, and the rerun (with any process count)
  counts them too.
* **Cost.** Generation time and generated tokens are measured per process and written to
  ``<stem>.meta.json`` next to the samples, with the resolved model entry, so a score can be
  reproduced and its price read off. Each invocation appends one entry to ``runs``.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from biocoder_metric.generation.processors.base import Processor
from biocoder_metric.io import write_text_atomic
from biocoder_metric.samples import read_generated
from biocoder_metric.types import SAMPLES_SCHEMA_VERSION

META_SCHEMA_VERSION = "biocoder-generation-meta/1"


# ------------------------------------------------------------------------------------ paths
def meta_path(out: Path) -> Path:
    """``samples.jsonl`` -> ``samples.meta.json``."""
    return out.with_name(f"{out.stem}.meta.json")


def shard_path(out: Path, rank: int) -> Path:
    return out.with_name(f"{out.stem}.rank{rank}.partial.jsonl")


def _rank_stats_path(out: Path, rank: int) -> Path:
    return out.with_name(f"{out.stem}.rank{rank}.stats.json")


def shard_paths(out: Path) -> list[Path]:
    """Every per-process shard left next to ``out`` (by a finished or an interrupted run)."""
    return sorted(out.parent.glob(f"{out.stem}.rank*.partial.jsonl"))


# ------------------------------------------------------------------------------------ reading
def _repair_tail(path: Path) -> None:
    """Drop a trailing partial line so appended records start on a line of their own."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def existing_counts(out: Path) -> Counter[str]:
    """Samples per task already present in ``out`` and its shards (distinct sample indices)."""
    seen: set[tuple[str, int]] = set()
    for path in [out, *shard_paths(out)]:
        for rec in read_generated(path):
            seen.add((rec["task_id"], int(rec["sample_index"])))
    return Counter(task_id for task_id, _ in seen)


# ------------------------------------------------------------------------------------ state
class _SingleProcess:
    """Stands in for ``accelerate.PartialState`` when accelerate is absent."""

    process_index = 0
    num_processes = 1
    is_main_process = True
    device = None

    def wait_for_everyone(self) -> None:
        return None


def process_state() -> Any:
    """``accelerate.PartialState()`` (reads the env of ``accelerate launch``), or one process.

    ``PartialState`` only forms a multi-process CPU group when told ``cpu=True`` (``Accelerator``
    reads ``ACCELERATE_USE_CPU`` for that; ``PartialState`` does not), so we pass it on hosts
    without CUDA and when ``ACCELERATE_USE_CPU`` is set.
    """
    try:
        import torch
        from accelerate import PartialState
    except ImportError:
        return _SingleProcess()
    cpu = (
        os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true", "yes")
        or not torch.cuda.is_available()
    )
    return PartialState(cpu=cpu)


def _share(state: Any, items: list[Any]) -> list[Any]:
    """This process's contiguous slice of ``items`` (all of them on one process)."""
    if state.num_processes == 1:
        return list(items)
    with state.split_between_processes(items) as mine:
        return list(mine)


# ------------------------------------------------------------------------------------ run
@dataclass
class RankStats:
    """What one process did in one invocation."""

    rank: int
    tasks: int = 0
    samples: int = 0
    tokens: int = 0
    generation_s: float = 0.0


def _batches(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), max(1, size)):
        yield items[i : i + max(1, size)]


def generate_samples(
    problems: list[dict[str, Any]],
    processor: Processor,
    out: str | Path,
    *,
    n_samples: int,
    batch_size: int = 1,
    overwrite: bool = False,
    run_info: dict[str, Any] | None = None,
    state: Any = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Generate until every problem has ``n_samples`` samples in ``out``; return the metadata.

    Works unchanged on one process or under ``accelerate launch`` (see the module docstring).
    Only the main process writes ``out`` and the metadata; the return value is the metadata
    on the main process and this process's stats elsewhere.
    """
    out = Path(out)
    state = state or process_state()
    rank = state.process_index
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    ids = [p["task_id"] for p in problems]
    if len(set(ids)) != len(ids):
        dup = sorted({t for t in ids if ids.count(t) > 1})
        raise ValueError(f"duplicate task_id in the problems: {dup[:5]}")

    if state.is_main_process:
        out.parent.mkdir(parents=True, exist_ok=True)
        if overwrite:
            for path in [out, meta_path(out), *shard_paths(out)]:
                path.unlink(missing_ok=True)
        _repair_tail(out)
        for path in shard_paths(out):
            _repair_tail(path)
    state.wait_for_everyone()

    have = existing_counts(out)
    work = [(p, have.get(p["task_id"], 0)) for p in problems if have.get(p["task_id"], 0) < n_samples]
    mine = _share(state, work)
    write_to = out if state.num_processes == 1 else shard_path(out, rank)

    stats = RankStats(rank=rank)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    wall0 = time.perf_counter()
    if mine and processor.model is None:
        processor.load_model_tokenizer()
    bar = _progress(
        len(mine),
        f"generate [rank {rank}]" if state.num_processes > 1 else "generate",
        progress and (state.is_main_process or state.num_processes > 1),
        rank,
    )
    with write_to.open("a", encoding="utf-8") as fh:
        for batch in _batches(mine, batch_size):
            need = max(n_samples - done for _, done in batch)
            rows = [row for row, _ in batch]
            prompts = [processor.process_before(row) for row in rows]
            stops = processor.stop_sequences(rows[0]) if len({r.get("language") for r in rows}) == 1 else ()
            t0 = time.perf_counter()
            gens = processor.generate(prompts, need, stops)
            batch_s = time.perf_counter() - t0
            stats.generation_s += batch_s
            # CodeFuseEval-style per-sample cost: the batch's time shared evenly by the samples it produced
            produced = sum(
                len(range(done, n_samples)[: len(outs)]) for (_, done), outs in zip(batch, gens, strict=True)
            )
            per_sample_s = round(batch_s / produced, 4) if produced else None
            for (row, done), prompt, outs in zip(batch, prompts, gens, strict=True):
                for index, gen in zip(range(done, n_samples), outs, strict=False):
                    record = {
                        "task_id": row["task_id"],
                        "sample_index": index,
                        "completion": processor.process_after(gen.text, row, prompt),
                        "raw": gen.text,
                        "schema": SAMPLES_SCHEMA_VERSION,
                        "time_cost": per_sample_s,
                        "n_tokens": gen.n_tokens,
                    }
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                    stats.samples += 1
                    stats.tokens += gen.n_tokens
                stats.tasks += 1
            fh.flush()
            bar.update(len(batch))
    bar.close()
    if state.num_processes > 1:
        _rank_stats_path(out, rank).write_text(json.dumps(stats.__dict__), encoding="utf-8")
    state.wait_for_everyone()
    if not state.is_main_process:
        return dict(stats.__dict__)

    per_rank = [stats.__dict__]
    if state.num_processes > 1:
        per_rank = []
        for r in range(state.num_processes):
            path = _rank_stats_path(out, r)
            per_rank.append(json.loads(path.read_text(encoding="utf-8")))
            path.unlink()
    if shard_paths(out):  # this run's shards, or those an interrupted earlier run left behind
        _merge_shards(out, ids)
    wall = time.perf_counter() - wall0
    run = _run_entry(per_rank, started, wall, state.num_processes)
    return _write_meta(out, problems, n_samples, run, run_info or {})


def _merge_shards(out: Path, order: list[str]) -> None:
    """Main process: main file + shards -> one file in problem order (atomic replace)."""
    position = {t: i for i, t in enumerate(order)}
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    shards = shard_paths(out)
    for path in [out, *shards]:
        for rec in read_generated(path):
            merged.setdefault((rec["task_id"], int(rec["sample_index"])), rec)
    records = sorted(
        merged.values(),
        key=lambda r: (position.get(r["task_id"], len(position)), r["task_id"], int(r["sample_index"])),
    )
    write_text_atomic(out, "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records))
    for path in shards:
        path.unlink()


def _run_entry(
    per_rank: list[dict[str, Any]], started: str, wall_s: float, num_processes: int
) -> dict[str, Any]:
    samples = sum(r["samples"] for r in per_rank)
    tokens = sum(r["tokens"] for r in per_rank)
    gen_s = sum(r["generation_s"] for r in per_rank)
    tasks = sum(r["tasks"] for r in per_rank)
    phase_s = max((r["generation_s"] for r in per_rank), default=0.0)
    return {
        "started": started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "num_processes": num_processes,
        "wall_s": round(wall_s, 3),  # the whole invocation, model loading included
        "tasks": tasks,
        "samples": samples,
        "generated_tokens": tokens,
        "generation_s": round(gen_s, 3),  # summed over processes (device time)
        "avg_generation_s_per_task": round(gen_s / tasks, 4) if tasks else None,
        "avg_generation_s_per_sample": round(gen_s / samples, 4) if samples else None,
        # throughput of all processes together over the generation phase (model loading excluded)
        "tokens_per_s": round(tokens / phase_s, 2) if phase_s > 0 and tokens else None,
        "tokens_per_s_per_process": round(tokens / gen_s, 2) if gen_s > 0 and tokens else None,
        **_time_cost_names(gen_s, tasks, samples),
        "per_process": per_rank,
    }


def _time_cost_names(generation_s: float, tasks: int, samples: int) -> dict[str, Any]:
    """CodeFuseEval's names for the same figures, so its users find them: total seconds, seconds per task/sample."""
    return {
        "total_time_cost": round(generation_s, 3),
        "average_time_cost": round(generation_s / tasks, 4) if tasks else None,
        "average_time_cost_per_sample": round(generation_s / samples, 4) if samples else None,
    }


def _environment() -> dict[str, Any]:
    from importlib import metadata as md

    env: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("biocoder-eval", "torch", "transformers", "accelerate", "vllm"):
        try:
            env[dist] = md.version(dist)
        except md.PackageNotFoundError:
            continue
    return env


def _write_meta(
    out: Path, problems: list[dict[str, Any]], n_samples: int, run: dict[str, Any], run_info: dict[str, Any]
) -> dict[str, Any]:
    path = meta_path(out)
    meta: dict[str, Any] = {}
    if path.is_file():
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            meta = {}
    runs = [*meta.get("runs", []), run]
    records = read_generated(out)
    counts = existing_counts(out)
    total_s = sum(r["generation_s"] for r in runs)
    total_tok = sum(r["generated_tokens"] for r in runs)
    total_samples = sum(r["samples"] for r in runs)
    total_tasks = sum(r["tasks"] for r in runs)
    meta = {
        "schema": META_SCHEMA_VERSION,
        "samples_file": out.name,
        "samples_schema": SAMPLES_SCHEMA_VERSION,
        **run_info,
        "n_samples": n_samples,
        "tasks": len(problems),
        "samples_in_file": len(records),
        "complete": all(counts.get(p["task_id"], 0) >= n_samples for p in problems),
        "totals": {
            "generation_s": round(total_s, 3),
            "generated_tokens": total_tok,
            "avg_generation_s_per_task": round(total_s / total_tasks, 4) if total_tasks else None,
            "avg_generation_s_per_sample": round(total_s / total_samples, 4) if total_samples else None,
            "tokens_per_s": round(total_tok / total_s, 2) if total_s > 0 and total_tok else None,
            **_time_cost_names(total_s, total_tasks, total_samples),
        },
        "runs": runs,
        "environment": _environment(),
    }
    write_text_atomic(path, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return meta


def _progress(total: int, desc: str, enabled: bool, rank: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="task", disable=not enabled, position=rank, leave=True)
