"""lm-evaluation-harness hooks for the BioCoder tasks: a thin adapter over biocoder-eval.

Every hook is a small function over plain lists and dicts; importing this module has no
side effects (the task listing imports it), so the dataset layer and the execution engine
are imported inside the hooks.

* ``load_biocoder`` (``custom_dataset``): the rows of one config, offline, via
  ``biocoder_dataset.configs.load_problems`` (upstream files from the source-dir setting)
  or from an exported Parquet folder (the Parquet-dir setting); only executable rows; a
  ``prompt`` column built by ``biocoder_dataset.prompts.build_prompt``.
* ``build_predictions`` (the ``custom`` filter): raw generations -> candidate functions, the
  same post-processing as ``biocoder generate`` (``processors.base.assemble_candidate``).
* ``pass_at_k`` (the metric): runs the candidates in OUR sandboxed engine
  (the sandbox setting, default the safest available; ``none`` also needs the unsafe
  opt-in) and returns the unbiased pass@k of each doc. All docs a filter
  call produced are executed together on the first metric call, so the engine's worker
  pool runs them in parallel; later calls read the verdicts.
* ``mean_scored`` (the aggregation): tasks whose golden fails or that have no harness score
  ``None`` (they are not the model's fault) and are left out of the mean, and listed in the log.

Environment: the ``lm-eval`` rows of the settings table (docs/ARCHITECTURE.md "Settings",
:mod:`biocoder_dataset.settings`): source and Parquet folders, sandbox, unsafe opt-in,
workers, fuzz cases, timeout, seed, a results folder (each batch's per-sample results, for
audit) and allow-partial (score the other tasks when goldens fail in this environment;
default: raise with the engine's message, as ``biocoder evaluate`` exits 3).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from biocoder_dataset import settings

log = logging.getLogger("biocoder.lm_eval")

#: Which filter batch each (task_id, candidates) pair belongs to, and the batches themselves.
_LOCK = threading.Lock()
_BATCHES: list[dict[str, Any]] = []
_INDEX: dict[tuple[str, tuple[str, ...]], int] = {}


# ----------------------------------------------------------------------------------- dataset
def _parquet_rows(folder: Path, config: str) -> list[dict[str, Any]]:
    """Rows of ``config`` from an exported folder (``<config>/test-*.parquet``, the Hub layout)."""
    import datasets

    files = sorted((folder / config).glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{settings.ENV_PARQUET_DIR}={folder}: no Parquet files under {folder / config}")
    return list(datasets.load_dataset("parquet", data_files={"test": [str(f) for f in files]}, split="test"))


def load_biocoder(
    config: str,
    prompt_style: str = "full_context",
    language: str | None = None,
    kind: str | None = None,
    source_dir: str | None = None,
    **_metadata: Any,
):
    """``custom_dataset`` hook: a ``DatasetDict`` with one ``test`` split of executable rows.

    lm-eval passes the task's ``metadata`` (version, model args) as extra keywords; they are
    ignored. ``language``/``kind`` select part of a config (the demo config mixes them).
    """
    import datasets

    from biocoder_dataset.prompts import build_prompt
    from biocoder_dataset.schema import features

    parquet_dir = settings.env_str(settings.ENV_PARQUET_DIR)
    if parquet_dir:
        rows = _parquet_rows(Path(parquet_dir), config)
        where = f"Parquet folder {parquet_dir}"
    else:
        from biocoder_dataset.configs import load_problems

        source_dir = source_dir or settings.env_str(settings.ENV_SOURCE_DIR)
        rows = load_problems(config, source_dir)
        where = f"source dir {source_dir}" if source_dir else "the default sources"
    selected = [
        r for r in rows if (language is None or r["language"] == language) and (kind is None or r["kind"] == kind)
    ]
    executable = [r for r in selected if r["executable"]]
    if not executable:
        raise ValueError(
            f"BioCoder config {config!r} (language={language}, kind={kind}) from {where} has no executable "
            f"tasks ({len(selected)} rows, none with a test harness); nothing to evaluate"
        )
    log.info("biocoder %s: %d executable of %d rows (%d without harness skipped)", config, len(executable), len(selected), len(selected) - len(executable))
    feats = features()
    feats["prompt"] = datasets.Value("string")
    feats["prompt_style"] = datasets.Value("string")
    data = [{**r, "prompt": build_prompt(r, prompt_style), "prompt_style": prompt_style} for r in executable]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(data, features=feats)})


def doc_to_text(doc: dict[str, Any]) -> str:
    """The prompt, built in Python by the dataset layer (no Jinja, so no escaping surprises)."""
    return doc["prompt"]


# ----------------------------------------------------------------------------------- filter
def build_predictions(resps: list[list[str]], docs: list[dict[str, Any]]) -> list[list[str]]:
    """``custom`` filter: each raw generation -> the candidate function the engine inserts.

    Completion prompts get the function's head put back and are cut at the function's end;
    instruct prompts are read out of their code fence. The docs are remembered so the metric
    can run all of this call's candidates in one engine call.
    """
    from biocoder_metric.generation.processors.base import STOP_SEQUENCES, assemble_candidate

    out: list[list[str]] = []
    for resp, doc in zip(resps, docs, strict=True):
        chat = doc.get("prompt_style") == "instruct"
        stops = () if chat else STOP_SEQUENCES.get(doc["language"], ())
        out.append([assemble_candidate(doc["prompt"], r, doc, chat=chat, stops=stops) for r in resp])
    with _LOCK:
        batch = {"rows": {}, "candidates": {}, "counts": None}
        for doc, cands in zip(docs, out, strict=True):
            row = {k: v for k, v in doc.items() if k not in ("prompt", "prompt_style")}
            batch["rows"][doc["task_id"]] = row
            batch["candidates"][doc["task_id"]] = list(cands)
            _INDEX[(doc["task_id"], tuple(cands))] = len(_BATCHES)
        _BATCHES.append(batch)
    return out


# ----------------------------------------------------------------------------------- metric
def eval_options():
    """Engine options from the environment (the sandbox defaults to the safest available)."""
    from biocoder_metric.execution import EvalOptions

    # Only what the environment sets is passed: every other field keeps EvalOptions' default.
    given = {
        "sandbox": settings.env_str(settings.ENV_SANDBOX),
        "workers": settings.env_number(settings.ENV_WORKERS, None),
        "fuzz_cases": settings.env_number(settings.ENV_FUZZ_CASES, None),
        "timeout_s": settings.env_number(settings.ENV_TIMEOUT, None, float),
        "seed": settings.env_number(settings.ENV_SEED, None),
    }
    return EvalOptions(allow_unsafe=settings.allow_unsafe_from_env(), **{k: v for k, v in given.items() if v is not None})


def _run_batch(batch_no: int) -> None:
    """Execute every candidate of one filter call; store (n, c, task status) per task."""
    from biocoder_metric.execution import run_evaluation
    from biocoder_metric.scoring.accounting import account
    from biocoder_metric.types import TaskStatus

    batch = _BATCHES[batch_no]
    samples = [
        {"task_id": t, "completion": c, "where": f"lm-eval doc {t} sample {i}"}
        for t, cands in batch["candidates"].items()
        for i, c in enumerate(cands)
    ]
    out_dir = settings.env_str(settings.ENV_RESULTS_DIR)
    if out_dir:
        out_dir = str(Path(out_dir) / f"batch{batch_no}-pid{os.getpid()}")
    # Same rules as `biocoder evaluate`: a golden failing in this environment raises the engine's
    # GoldenFailuresError (what failed, how to fix it) instead of scoring a shrunken task set,
    # unless the allow-partial setting is on.
    run = run_evaluation(
        list(batch["rows"].values()), samples, eval_options(), out_dir=out_dir, progress=False, overwrite=True,
        allow_partial=settings.env_flag(settings.ENV_ALLOW_PARTIAL),
    )
    # The one accounting rule (biocoder_metric.scoring.accounting): the same n, c and partial
    # label as `biocoder evaluate`; a run that left samples out raises unless allow-partial is on.
    allow_partial = settings.env_flag(settings.ENV_ALLOW_PARTIAL)
    books = account(run.results, run.task_set, run.missing)
    books.require_final(allow_partial, "biocoder lm-eval")
    if books.partial:
        log.warning("biocoder: PARTIAL score: %s", books.partial_reason())
    counts: dict[str, dict[str, Any]] = {}
    for t in batch["rows"]:
        status, reason = run.task_status.get(t, (TaskStatus.OK, None))
        if status == TaskStatus.OK and t not in books.counts:  # every sample left out (allow-partial)
            status, reason = "unscored", "every sample hit infrastructure errors"
        n, c = books.counts.get(t, (0, 0))
        counts[t] = {
            "n": n,
            "c": c,
            "task_status": status,
            "reason": reason,
            "statuses": [r.status for r in run.results if r.task_id == t],
        }
    excluded = {t: e for t, e in counts.items() if e["task_status"] != TaskStatus.OK}
    if excluded:
        log.warning(
            "biocoder: %d task(s) not scored (not the model's fault): %s",
            len(excluded), "; ".join(f"{t}: {e['task_status']} ({e['reason']})" for t, e in sorted(excluded.items())[:10]),
        )
    log.info("biocoder: executed %d samples with sandbox %s", run.executed, run.sandbox)
    batch["counts"] = counts
    batch["sandbox"] = run.sandbox
    batch["partial"] = books.partial


def verdicts(task_id: str, candidates: list[str]) -> dict[str, Any]:
    """(n, c, statuses, task status) for one doc's candidates, executing its batch if needed."""
    key = (task_id, tuple(candidates))
    with _LOCK:
        batch_no = _INDEX.get(key)
        if batch_no is None:
            raise KeyError(
                f"biocoder pass_at_k: no candidates recorded for task {task_id!r}; the task's filter must be "
                "utils.build_predictions (it records the problem rows the metric executes against)"
            )
        if _BATCHES[batch_no]["counts"] is None:
            _run_batch(batch_no)
        return _BATCHES[batch_no]["counts"][task_id]


def pass_at_k(references: list[str], predictions: list[list[str]], k: list[int] | int = (1,)) -> dict[str, float | None]:
    """Metric hook: ``{"pass@k": value}`` for one doc (``None`` when the task cannot be scored).

    ``references[0]`` is the task id (``doc_to_target: task_id``); ``predictions[0]`` the
    doc's filtered candidates (``repeats`` of them). Uses the project's one pass@k estimator.
    """
    from biocoder_metric.scoring.passk import estimate_pass_at_k
    from biocoder_metric.types import TaskStatus

    ks = [k] if isinstance(k, int) else list(k)
    task_id, candidates = references[0], list(predictions[0])
    v = verdicts(task_id, candidates)
    if v["task_status"] != TaskStatus.OK:
        return {f"pass@{kk}": None for kk in ks}
    too_big = [kk for kk in ks if kk > v["n"]]
    if too_big:
        raise ValueError(f"biocoder pass_at_k: k={too_big} needs at least that many samples per task; set repeats >= {max(too_big)} (task {task_id} has {v['n']})")
    return {f"pass@{kk}": estimate_pass_at_k(v["n"], v["c"], kk) for kk in ks}


def mean_scored(values: list[float | None]) -> float:
    """Mean over the docs that could be scored (``None`` = golden fails / no harness)."""
    scored = [float(v) for v in values if v is not None]
    if len(scored) < len(values):
        log.warning("biocoder: %d of %d tasks left out of the mean (task not scorable)", len(values) - len(scored), len(values))
    return sum(scored) / len(scored) if scored else float("nan")
