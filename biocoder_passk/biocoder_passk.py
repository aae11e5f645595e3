"""BioCoder pass@k: the ``evaluate`` metric over the sandboxed BioCoder execution engine.

A thin adapter: it resolves task ids to BioCoder rows and hands every candidate to
:func:`biocoder_metric.evaluation.evaluate_run`, the one call behind every entry point
(sandboxed, fuzzed, compared with the golden program's output; the one accounting rule;
the one unbiased estimator of :mod:`biocoder_metric.scoring.passk`), then presents its result.

This is the only copy of the metric script. Its folder is the Hub Space (with ``app.py``,
``README.md`` and ``requirements.txt``) and what ``evaluate.load("biocoder_passk")`` finds
from the repository root; wheels carry this same file, copied in at build time (``setup.py``),
and ``biocoder_metric.PASSK_PATH`` names the folder to load it from in any install.
"""

from __future__ import annotations

import json
from typing import Any

import datasets
import evaluate

_CITATION = """\
@article{tang2023biocoder,
  title   = {BioCoder: A Benchmark for Bioinformatics Code Generation with Large Language Models},
  author  = {Tang, Xiangru and Qian, Bill and Gao, Rick and Chen, Jiakang and Chen, Xinyun and Gerstein, Mark},
  journal = {arXiv preprint arXiv:2308.16458},
  year    = {2023}
}
@article{chen2021codex,
  title   = {Evaluating Large Language Models Trained on Code},
  author  = {Chen, Mark and Tworek, Jerry and Jun, Heewoo and others},
  journal = {arXiv preprint arXiv:2107.03374},
  year    = {2021}
}
"""

_DESCRIPTION = """\
BioCoder pass@k. Each candidate function is inserted into its task's test harness
(the `<<insert solution here>>` line), the harness's fuzz placeholders are filled with
seeded random values, and the program runs in a sandbox (Docker, bubblewrap, or -- only
with an explicit opt-in -- unsandboxed on the host). A candidate passes when it prints
exactly what the golden solution prints, for every fuzz case (Rosalind tasks: when
`solve(input)` equals the expected output after stripping). pass@k is the unbiased
estimator of Chen et al. (2021). Tasks whose golden solution itself fails, or that have
no executable harness, are listed in `details` and left out of pass@k, never hidden.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `list` of `str`): for each task, the candidate solutions
        (raw model answers are fine: code is extracted from markdown fences and prose).
    references (`list` of `str`): for each task, its BioCoder `task_id`, or a whole task
        row as a JSON object string (the columns of `biocoder_dataset.schema.COLUMNS`).
    k (`tuple` of `int`): the k values of pass@k. Default `(1,)`.
    config (`str`): dataset config that task ids are looked up in. Default `"demo"`.
    source_dir (`str`, optional): local folder with the upstream files (no download).
    sandbox (`str`, optional): `"auto"` (safest available), `"docker"`, `"bwrap"` or `"none"`.
    allow_unsafe (`bool`): required for `sandbox="none"`, which runs generated code on
        this machine without isolation. Default `False`.
    workers (`int`, optional): parallel sandboxes.
    fuzz_cases (`int`, optional): fuzz cases per harness task.
    timeout (`float`, optional): seconds per case.
    (Unset engine options take the engine's defaults, `biocoder_metric.execution.EvalOptions`.)
    task_ids (`list` of `str`, optional): the task set pass@k is over. Default: every task of
        `config` (plus any JSON task rows given). A task of the set without predictions
        raises a `ValueError` naming it, unless `allow_missing`.
    allow_missing (`bool`): count tasks of the set without predictions as 0 correct
        (`details.missing`). Default `False`.
    allow_partial (`bool`): when goldens fail in this environment, score the other tasks
        (`details.partial`) instead of raising. Default `False`.
    allow_short_k (`bool`): when a task has fewer than k candidates, average pass@k over the
        tasks that have k instead of returning `None` (labelled in `details`). Default `False`.
Returns:
    A dict with `"pass@<k>"` for each k (a float in [0, 1], higher is better; `None` when
    some task of the set has fewer than k candidates: pass@k is over one task set) and `"details"`: per task `n`, `c` and the status of each
    candidate, `excluded_tasks` (task id, status `golden_fails`/`no_harness`, reason),
    `insufficient_samples` (per k, the tasks with fewer than k candidates, with their n),
    and `status_counts`.
Examples:
    One correct and one wrong candidate for a demo task (``biocoder_metric.PASSK_PATH`` works
    from any directory; from the repository root ``evaluate.load("biocoder_passk")`` does too):

    >>> import evaluate
    >>> import biocoder_metric
    >>> biocoder_passk = evaluate.load(biocoder_metric.PASSK_PATH)
    >>> right = "def gc_content(seq):\\n    s = seq.upper()\\n    return (s.count('G') + s.count('C')) / len(s) if s else 0.0\\n"
    >>> wrong = "def gc_content(seq):\\n    return (seq.count('G') + seq.count('C')) / max(len(seq), 1)\\n"
    >>> out = biocoder_passk.compute(predictions=[[right, wrong]], references=["demo_py_gc_content"],
    ...                              task_ids=["demo_py_gc_content"], k=(1, 2), sandbox="auto", fuzz_cases=3)
    >>> out["pass@1"], out["pass@2"]
    (0.5, 1.0)
    >>> out["details"]["per_task"]["demo_py_gc_content"]["statuses"]
    ['passed', 'failed']

    A chat answer with prose around a fenced block is fine; a task with fewer than k
    candidates is listed, not averaged in silently:

    >>> answer = "Here you go:\\n```python\\n" + right + "```\\nIt counts G and C."
    >>> out = biocoder_passk.compute(predictions=[[answer]], references=["demo_py_gc_content"],
    ...                              task_ids=["demo_py_gc_content"], k=(1, 2), sandbox="auto", fuzz_cases=3)
    >>> out["pass@1"], out["pass@2"]
    (1.0, None)
    >>> out["details"]["insufficient_samples"]["pass@2"]
    [{'task_id': 'demo_py_gc_content', 'n': 1}]
"""

_HOMEPAGE = "https://github.com/gersteinlab/BioCoder"


def _rows_for(references: list[str], config: str, source_dir: str | None) -> list[dict[str, Any]]:
    """Task rows for the references: JSON row strings as given, task ids looked up in ``config``."""
    from biocoder_dataset.schema import empty_row

    rows: dict[str, dict[str, Any]] = {}
    by_id: dict[str, dict[str, Any]] | None = None
    for i, ref in enumerate(references):
        if ref.lstrip().startswith("{"):
            try:
                given = json.loads(ref)
            except json.JSONDecodeError as exc:
                raise ValueError(f"references[{i}]: not a task id and not valid JSON ({exc.msg})") from None
            if not isinstance(given, dict) or not isinstance(given.get("task_id"), str):
                raise ValueError(f"references[{i}]: a JSON task row needs a string 'task_id'")
            row = empty_row()
            row.update(given)
            rows[row["task_id"]] = row
            continue
        if by_id is None:
            from biocoder_dataset.configs import load_problems

            by_id = {r["task_id"]: r for r in load_problems(config, source_dir=source_dir)}
        if ref not in by_id:
            raise ValueError(f"references[{i}]: unknown task_id {ref!r} in config {config!r}")
        rows[ref] = by_id[ref]
    return list(rows.values())


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiocoderPassk(evaluate.Metric):
    """pass@k of candidate solutions on BioCoder tasks, judged in a sandbox."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            module_type="metric",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("string")),
                    "references": datasets.Value("string"),
                }
            ),
            homepage=_HOMEPAGE,
            codebase_urls=[_HOMEPAGE],
            reference_urls=["https://arxiv.org/abs/2308.16458", "https://arxiv.org/abs/2107.03374"],
            license="apache-2.0",
        )

    def _compute(
        self,
        predictions: list[list[str]],
        references: list[str],
        k: tuple[int, ...] = (1,),
        config: str = "demo",
        source_dir: str | None = None,
        sandbox: str | None = None,
        allow_unsafe: bool = False,
        workers: int | None = None,
        fuzz_cases: int | None = None,
        timeout: float | None = None,
        task_ids: list[str] | None = None,
        allow_missing: bool = False,
        allow_partial: bool = False,
        allow_short_k: bool = False,
    ) -> dict[str, Any]:
        from biocoder_metric.evaluation import RunOptions, evaluate_run
        from biocoder_metric.execution import EvalOptions

        if len(predictions) != len(references):
            raise ValueError(
                f"predictions ({len(predictions)}) and references ({len(references)}) differ in length"
            )
        rows = _rows_for(list(references), config, source_dir)
        ref_ids = [json.loads(r)["task_id"] if r.lstrip().startswith("{") else r for r in references]
        samples = [
            {"task_id": t, "completion": c}
            for t, cands in zip(ref_ids, predictions, strict=True)
            for c in cands
        ]
        chosen = {"sandbox": sandbox, "workers": workers, "fuzz_cases": fuzz_cases, "timeout_s": timeout}
        options = RunOptions(
            engine=EvalOptions(
                allow_unsafe=allow_unsafe, **{k: v for k, v in chosen.items() if v is not None}
            ),
            ks=k,
            config=config,
            task_ids=task_ids,
            allow_missing=allow_missing,
            allow_partial=allow_partial,
            allow_short_k=allow_short_k,
        )
        if any(not r.lstrip().startswith("{") for r in references):
            # Fixed denominators: the task set is the whole config (or the task_ids named), never
            # just the referenced tasks; config tasks without predictions are missing.
            from biocoder_dataset.configs import load_problems

            given = {r["task_id"]: r for r in rows}
            rows = [given.get(r["task_id"], r) for r in load_problems(config, source_dir=source_dir)]
            rows += [r for t, r in given.items() if t not in {x["task_id"] for x in rows}]
        # The one call every entry point makes (biocoder_metric.evaluation): the engine, then the one
        # accounting rule. A run that left samples out is partial, and an error unless allow_partial.
        run = evaluate_run(rows, samples, options)
        run.require_final("biocoder_passk")
        summary = run.summary
        statuses: dict[str, list[str]] = {}
        for r in run.results:
            statuses.setdefault(r.task_id, []).append(str(r.status))  # plain strings, as documented
        per_task = {
            t: {**summary["per_task"].get(t, {"n": len(s), "c": None}), "statuses": s}
            for t, s in sorted(statuses.items())
        }
        out: dict[str, Any] = {f"pass@{kk}": summary.get(f"pass@{kk}") for kk in summary["k"]}
        out["partial"] = "partial" in summary  # True: something was left out (only with allow_partial)
        out["details"] = {
            "per_task": per_task,
            "excluded_tasks": summary["excluded_tasks"],
            "insufficient_samples": summary["insufficient_samples"],
            "status_counts": summary["status_counts"],
            "sandbox": run.sandbox,
            "environment_id": run.environment_id,
            "task_set": summary["task_set"],
            "missing": summary["missing"],
            "infra_errors": summary["infra_errors"],
        }
        if "partial" in summary:
            out["details"]["partial"] = summary["partial"]
        return out
