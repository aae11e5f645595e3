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
* ``pass_at_k`` (the metric): runs the candidates through
  :func:`biocoder_metric.evaluation.evaluate_run`, the one call behind every entry point
  (OUR sandboxed engine; the sandbox setting, default the safest available; ``none`` also
  needs the unsafe opt-in; the one accounting rule) and returns the unbiased pass@k of each
  doc. All docs a filter call produced are executed together on the first metric call, so
  the engine's worker pool runs them in parallel; later calls read the verdicts.
* ``mean_scored`` (the aggregation): tasks whose golden fails or that have no harness score
  ``None`` (they are not the model's fault) and are left out of the mean, and listed in the log.

Environment: the ``lm-eval`` rows of the settings table (docs/ARCHITECTURE.md "Settings",
:mod:`biocoder_dataset.settings`): source and Parquet folders, sandbox, unsafe opt-in,
workers, fuzz cases, timeout, seed, a results folder (each batch's run folder, as
``biocoder evaluate`` writes it: ``results.jsonl``, ``summary.json``, ``timing.json``, for audit)
and allow-partial (score the other tasks when goldens fail in this environment; default: raise
with the engine's message, as ``biocoder evaluate`` exits 3).

State between the hooks: lm-eval calls the filter once per task with every doc, and then the
metric once per doc with only that doc's target and candidates (no handle to the filter call,
no run id). So the filter's batches must wait in this module for their metric calls: a global
is forced by the hook signatures. It is kept per run and cleared: each batch is dropped as soon
as every one of its docs has been scored (or when executing it failed), so nothing outlives the
lm-eval run that made it, and a later run in the same process never reads an earlier run's
verdicts. ``pending_batches()`` says how many are waiting.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from biocoder_dataset import settings

log = logging.getLogger("biocoder.lm_eval")


class _Batch:
    """The docs of one filter call: their rows and candidates, then (after the first metric call) the verdicts."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.rows: dict[str, dict[str, Any]] = {}
        self.candidates: dict[str, list[str]] = {}
        self.verdicts: dict[str, dict[str, Any]] | None = None
        self.run: Any = None  # the RunResult
        self.unscored: set[str] = set()  # docs whose metric call has not come yet


class _Pending:
    """Filter batches waiting for their metric calls (see the module docstring for why it is global).

    ``(task_id, candidates)`` -> the batches holding that doc, oldest first: two tasks of one
    lm-eval run (e.g. a group's variants) may produce the same doc, and lm-eval scores the
    tasks in the order it filtered them.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.batches: dict[int, _Batch] = {}
        self.index: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        self.made = 0

    def add(self, batch_docs: list[tuple[dict[str, Any], list[str]]]) -> _Batch:
        with self.lock:
            batch = _Batch(self.made)
            self.made += 1
            for row, cands in batch_docs:
                batch.rows[row["task_id"]] = row
                batch.candidates[row["task_id"]] = list(cands)
                batch.unscored.add(row["task_id"])
                self.index.setdefault((row["task_id"], tuple(cands)), []).append(batch.number)
            self.batches[batch.number] = batch
            return batch

    def find(self, task_id: str, candidates: list[str]) -> _Batch:
        numbers = self.index.get((task_id, tuple(candidates)))
        if not numbers:
            raise KeyError(
                f"biocoder pass_at_k: no candidates recorded for task {task_id!r}; the task's filter must be "
                "utils.build_predictions (it records the problem rows the metric executes against)"
            )
        return self.batches[numbers[0]]

    def drop(self, batch: _Batch, task_ids: list[str] | None = None) -> None:
        """Forget ``task_ids`` of ``batch`` (default: all); the batch goes when none is left."""
        for t in list(batch.unscored) if task_ids is None else task_ids:
            batch.unscored.discard(t)
            key = (t, tuple(batch.candidates[t]))
            numbers = self.index.get(key, [])
            if batch.number in numbers:
                numbers.remove(batch.number)
            if not numbers:
                self.index.pop(key, None)
        if not batch.unscored:
            self.batches.pop(batch.number, None)


_PENDING = _Pending()


def pending_batches() -> int:
    """Filter batches of this process still waiting for metric calls (0 after a complete lm-eval run)."""
    with _PENDING.lock:
        return len(_PENDING.batches)


# ----------------------------------------------------------------------------------- dataset
def _parquet_rows(folder: Path, config: str) -> list[dict[str, Any]]:
    """Rows of ``config`` from an exported folder (``<config>/test-*.parquet``, the Hub layout)."""
    import datasets

    files = sorted((folder / config).glob("*.parquet"))
    if not files:
        raise FileNotFoundError(
            f"{settings.ENV_PARQUET_DIR}={folder}: no Parquet files under {folder / config}"
        )
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
        r
        for r in rows
        if (language is None or r["language"] == language) and (kind is None or r["kind"] == kind)
    ]
    executable = [r for r in selected if r["executable"]]
    if not executable:
        raise ValueError(
            f"BioCoder config {config!r} (language={language}, kind={kind}) from {where} has no executable "
            f"tasks ({len(selected)} rows, none with a test harness); nothing to evaluate"
        )
    log.info(
        "biocoder %s: %d executable of %d rows (%d without harness skipped)",
        config,
        len(executable),
        len(selected),
        len(selected) - len(executable),
    )
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
    _PENDING.add(
        [
            ({k: v for k, v in doc.items() if k not in ("prompt", "prompt_style")}, cands)
            for doc, cands in zip(docs, out, strict=True)
        ]
    )
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
    return EvalOptions(
        allow_unsafe=settings.allow_unsafe_from_env(), **{k: v for k, v in given.items() if v is not None}
    )


def _run_batch(batch: _Batch, ks: list[int]) -> None:
    """Execute every candidate of one filter call through ``evaluate_run``; store (n, c, task status) per task."""
    from biocoder_metric.evaluation import RunOptions, evaluate_run
    from biocoder_metric.types import TaskStatus

    samples = [
        {"task_id": t, "completion": c, "where": f"lm-eval doc {t} sample {i}"}
        for t, cands in batch.candidates.items()
        for i, c in enumerate(cands)
    ]
    out_dir = settings.env_str(settings.ENV_RESULTS_DIR)
    if out_dir:
        out_dir = str(Path(out_dir) / f"batch{batch.number}-pid{os.getpid()}")
    allow_partial = settings.env_flag(settings.ENV_ALLOW_PARTIAL)
    # Same call and rules as `biocoder evaluate`: a golden failing in this environment raises the
    # engine's GoldenFailuresError (what failed, how to fix it) instead of scoring a shrunken task
    # set, unless the allow-partial setting is on; with a results folder, every file of the run
    # folder is written there (results.jsonl, summary.json, timing.json).
    run = evaluate_run(
        list(batch.rows.values()),
        samples,
        RunOptions(engine=eval_options(), ks=tuple(ks), overwrite=True, allow_partial=allow_partial),
        out_dir=out_dir,
    )
    # The one accounting rule: the same n, c and partial label as `biocoder evaluate`; a run that
    # left samples out raises unless allow-partial is on.
    run.require_final("biocoder lm-eval")
    if run.partial:
        log.warning("biocoder: PARTIAL score: %s", run.accounting.partial_reason())
    verdicts: dict[str, dict[str, Any]] = {}
    for t in batch.rows:
        status, reason = run.task_status.get(t, (TaskStatus.OK, None))
        if status == TaskStatus.OK and t not in run.counts:  # every sample left out (allow-partial)
            status, reason = "unscored", "every sample hit infrastructure errors"
        n, c = run.counts.get(t, (0, 0))
        verdicts[t] = {
            "n": n,
            "c": c,
            "task_status": status,
            "reason": reason,
            "statuses": [r.status for r in run.results if r.task_id == t],
            "partial": run.partial,
        }
    excluded = {t: e for t, e in verdicts.items() if e["task_status"] != TaskStatus.OK}
    if excluded:
        log.warning(
            "biocoder: %d task(s) not scored (not the model's fault): %s",
            len(excluded),
            "; ".join(f"{t}: {e['task_status']} ({e['reason']})" for t, e in sorted(excluded.items())[:10]),
        )
    log.info("biocoder: executed %d samples with sandbox %s", run.executed, run.sandbox)
    batch.verdicts = verdicts
    batch.run = run


def verdicts(task_id: str, candidates: list[str], k: list[int] | int = (1,)) -> dict[str, Any]:
    """(n, c, statuses, task status, partial) for one doc's candidates, executing its batch if needed.

    Reading verdicts does not score the doc: :func:`pass_at_k` does, and drops the batch after its
    last doc. A batch whose execution fails is dropped with the error (lm-eval stops there).
    """
    with _PENDING.lock:
        batch = _PENDING.find(task_id, candidates)
        if batch.verdicts is None:
            try:
                _run_batch(batch, [k] if isinstance(k, int) else list(k))
            except BaseException:
                _PENDING.drop(batch)
                raise
        return batch.verdicts[task_id]


def _score_doc(task_id: str, candidates: list[str], k: list[int]) -> dict[str, Any]:
    """The doc's verdicts, and the doc marked scored (its batch goes after its last doc)."""
    v = verdicts(task_id, candidates, k)
    with _PENDING.lock:
        _PENDING.drop(_PENDING.find(task_id, candidates), [task_id])
    return v


def pass_at_k(
    references: list[str], predictions: list[list[str]], k: list[int] | int = (1,)
) -> dict[str, float | None]:
    """Metric hook: ``{"pass@k": value}`` for one doc (``None`` when the task cannot be scored).

    ``references[0]`` is the task id (``doc_to_target: task_id``); ``predictions[0]`` the
    doc's filtered candidates (``repeats`` of them). Uses the project's one pass@k estimator.
    """
    from biocoder_metric.scoring.passk import estimate_pass_at_k
    from biocoder_metric.types import TaskStatus

    ks = [k] if isinstance(k, int) else list(k)
    task_id, candidates = references[0], list(predictions[0])
    v = _score_doc(task_id, candidates, ks)
    if v["task_status"] != TaskStatus.OK:
        return {f"pass@{kk}": None for kk in ks}
    too_big = [kk for kk in ks if kk > v["n"]]
    if too_big:
        raise ValueError(
            f"biocoder pass_at_k: k={too_big} needs at least that many samples per task; set repeats >= {max(too_big)} (task {task_id} has {v['n']})"
        )
    return {f"pass@{kk}": estimate_pass_at_k(v["n"], v["c"], kk) for kk in ks}


def mean_scored(values: list[float | None]) -> float:
    """Mean over the docs that could be scored (``None`` = golden fails / no harness)."""
    scored = [float(v) for v in values if v is not None]
    if len(scored) < len(values):
        log.warning(
            "biocoder: %d of %d tasks left out of the mean (task not scorable)",
            len(values) - len(scored),
            len(values),
        )
    return sum(scored) / len(scored) if scored else float("nan")
