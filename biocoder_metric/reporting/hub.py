"""Publish one evaluation run to the Hugging Face Hub (``biocoder push``).

A run directory (what ``biocoder run`` or ``biocoder generate`` + ``biocoder evaluate``
leave) becomes a dataset repository:

* ``README.md`` - a dataset card: YAML front matter declaring the ``results`` config
  (``data/test-00000-of-00001.parquet``, split ``test``) plus the pass@k table, the model and
  decoding settings, the excluded tasks, and the model-index block to paste into a model card;
* ``data/test-00000-of-00001.parquet`` - the per-sample results, loadable with ``datasets``;
* the run's own files, unchanged: ``summary.json``, ``results.jsonl``, ``run.json``,
  ``samples.jsonl`` and ``samples.meta.json`` (model entry, decode mode, timings) when present;
* ``model-index.yaml`` - the ``eval_results`` block (``huggingface_hub.EvalResult`` rendered
  by ``ModelCardData``), also printed;
* lm-evaluation-harness "details" layout, so leaderboard tooling that reads lm-eval details
  repos reads this one: ``<model>/results_<date>.json`` (aggregated scores under
  ``results.<task>`` as ``"pass@1,none"`` with ``"pass@1_stderr,none"`` and the CI bounds) and
  ``<model>/samples_<task>_<date>.jsonl`` (one line per sample), each with a Parquet twin that the
  card declares as configs ``<model>__results`` and ``<model>__<task>``, with a split per run date
  plus ``latest``, rebuilt from every details file present (``--previous`` keeps earlier runs').
  Every config is Parquet: ``datasets`` infers one format for a whole repository, so a JSON
  config beside a Parquet one fails to load. Each loads with plain ``load_dataset(repo, CONFIG)``;
* ``report/`` - ``biocoder report`` of the run (HTML + plots) when matplotlib is installed.

The bundle is always built in a local folder first; ``--dry-run`` stops there, so what
would be uploaded can be read file by file, and no network call is made. Only
``huggingface_hub`` is used to talk to the Hub.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

#: The dataset repository the scores refer to (where ``biocoder data push`` publishes BioCoder).
DEFAULT_DATASET_ID = "biocoder-eval/biocoder"
PARQUET_PATH = "data/test-00000-of-00001.parquet"
#: Run files copied verbatim when present (the first two are required).
RUN_FILES = ("summary.json", "results.jsonl", "run.json", "timing.json", "samples.jsonl", "samples.meta.json")


class PushError(ValueError):
    """The run directory cannot be published as it is; the message says what is missing."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PushError(f"{path}: cannot read JSON ({exc})") from exc


def load_run(results_dir: str | Path) -> dict[str, Any]:
    """Summary, results and (optional) generation metadata of a run directory."""
    folder = Path(results_dir)
    if not folder.is_dir():
        raise PushError(f"results directory {folder} does not exist")
    for name in ("summary.json", "results.jsonl"):
        if not (folder / name).is_file():
            raise PushError(
                f"{folder} has no {name}: run `biocoder evaluate --out {folder}` (or `biocoder run`) first"
            )
    from biocoder_metric.execution.results import read_results

    meta_path = folder / "samples.meta.json"
    return {
        "dir": folder,
        "summary": _read_json(folder / "summary.json"),
        "results": read_results(folder / "results.jsonl"),
        "meta": _read_json(meta_path) if meta_path.is_file() else {},
    }


def _model_name(run: dict[str, Any], model_name: str | None) -> str:
    """The model's Hub id when it was loaded from the Hub, else its registry name.

    From ``samples.meta.json`` when the run generated its samples; else from a ``model`` field
    of the samples themselves (samples made elsewhere often carry one); ``unknown-model`` last.
    """
    model = run["meta"].get("model") or {}
    path = model.get("path")
    if model_name:
        return model_name
    if path and re.fullmatch(r"[\w.-]+/[\w.-]+", path) and not Path(path).exists():
        return path  # a Hub id (a local folder, here or on the GPU host, is not a public name)
    return model.get("model") or path or _samples_model(run.get("dir")) or "unknown-model"


def _samples_model(folder: Path | None) -> str | None:
    """The ``model`` (or ``model_name``) field of the run's samples, when every sample names the same one."""
    if folder is None or not (Path(folder) / "samples.jsonl").is_file():
        return None
    names: set[str] = set()
    with (Path(folder) / "samples.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            name = rec.get("model") or rec.get("model_name") if isinstance(rec, dict) else None
            if isinstance(name, str) and name:
                names.add(name)
            if len(names) > 1:
                return None
    return next(iter(names), None)


def eval_results(run: dict[str, Any], *, dataset_id: str, source_url: str | None) -> list[Any]:
    """One ``huggingface_hub.EvalResult`` per pass@k value of the run (and per config when several)."""
    from huggingface_hub import EvalResult

    summary = run["summary"]
    config = (summary.get("run") or {}).get("config") or run["meta"].get("config")
    out = []
    blocks: list[tuple[str | None, dict[str, Any]]] = [
        (config, {f"pass@{k}": summary.get(f"pass@{k}") for k in summary.get("k", [])})
    ]
    per_config = summary.get("per_config") or {}
    if len(per_config) > 1:
        blocks = [(name, b.get("pass@k", {})) for name, b in sorted(per_config.items())]
    for cfg, scores in blocks:
        for metric, value in scores.items():
            if value is None:
                continue  # not estimable (fewer samples than k): never publish a made-up number
            out.append(
                EvalResult(
                    task_type="text-generation",
                    task_name="Code generation",
                    dataset_type=dataset_id,
                    dataset_name=f"BioCoder ({cfg})" if cfg else "BioCoder",
                    dataset_config=cfg,
                    dataset_split="test",
                    metric_type=metric,
                    metric_name=metric,
                    metric_value=round(100 * float(value), 2),
                    source_name="biocoder-eval" if source_url else None,  # the Hub requires both or neither
                    source_url=source_url,
                )
            )
    return out


def model_index_yaml(
    run: dict[str, Any], *, dataset_id: str, source_url: str | None, model_name: str | None = None
) -> str:
    """The ``model-index:`` YAML block for the evaluated model's card."""
    from huggingface_hub import ModelCardData

    data = ModelCardData(
        model_name=_model_name(run, model_name),
        eval_results=eval_results(run, dataset_id=dataset_id, source_url=source_url),
    )
    return data.to_yaml() + "\n"


def _results_table(summary: dict[str, Any]) -> str:
    ks = summary.get("k", [])
    head = "| subset | tasks scored | " + " | ".join(f"pass@{k}" for k in ks) + " |"
    sep = "|---|---|" + "---|" * len(ks)

    def fmt(v: Any) -> str:
        return "n/a" if v is None else f"{100 * float(v):.2f}"

    rows = [
        f"| all | {summary.get('tasks', {}).get('scored', '?')} | "
        + " | ".join(fmt(summary.get(f"pass@{k}")) for k in ks)
        + " |"
    ]
    plus = summary.get("plus")
    if plus:
        rows.append(
            f"| all (plus) | {summary.get('tasks', {}).get('scored', '?')} | "
            + " | ".join(fmt(plus.get(f"pass@{k}")) for k in ks)
            + " |"
        )
    for name, block in sorted((summary.get("per_config") or {}).items()):
        rows.append(
            f"| {name} | {block.get('tasks', '?')} | "
            + " | ".join(fmt(block.get("pass@k", {}).get(f"pass@{k}")) for k in ks)
            + " |"
        )
    return "\n".join([head, sep, *rows])


def render_card(
    run: dict[str, Any], *, repo_id: str, dataset_id: str, model_index: str, model_name: str | None
) -> str:
    """The dataset card (front matter + prose) of a results repository."""
    import yaml

    summary, meta = run["summary"], run["meta"]
    front = {
        "pretty_name": f"BioCoder results: {_model_name(run, model_name)}",
        "tags": ["biocoder", "code-generation", "evaluation-results", "bioinformatics"],
        "configs": [
            {
                "config_name": "results",
                "default": True,
                "data_files": [{"split": "test", "path": PARQUET_PATH}],
            }
        ],
    }
    model = meta.get("model") or {}
    settings = {
        k: model.get(k)
        for k in (
            "model",
            "version",
            "path",
            "processor",
            "decode_mode",
            "generation_config",
            "prompt_style",
            "n_samples",
        )
        if k in model
    }
    excluded = summary.get("excluded_tasks") or []
    status_counts = (
        ", ".join(f"{s}={n}" for s, n in (summary.get("status_counts") or {}).items() if n) or "none"
    )
    lines = [
        "---",
        yaml.safe_dump(front, sort_keys=False).rstrip(),
        "---",
        "",
        f"# BioCoder evaluation results: {_model_name(run, model_name)}",
        "",
        f"Scores of `{_model_name(run, model_name)}` on [BioCoder](https://arxiv.org/abs/2308.16458) "
        f"(dataset `{dataset_id}`), produced with biocoder-eval: every candidate ran in a sandbox and passed "
        "only if it printed exactly what the golden solution prints on every fuzz case (Rosalind: the expected answer).",
        "",
        "## Scores (pass@k, %)",
        "",
        _results_table(summary),
        "",
        f"Per-sample statuses: {status_counts}.",
        "",
        "## Model and decoding",
        "",
        "```json",
        json.dumps(
            settings or {"note": "no samples.meta.json in the run directory (generated elsewhere)"}, indent=2
        ),
        "```",
        "",
        "## Execution",
        "",
        "```json",
        json.dumps(summary.get("run") or {}, indent=2, sort_keys=True),
        "```",
        "",
        "## Tasks not scored",
        "",
    ]
    if excluded:
        lines += [f"- `{e['task_id']}`: {e['task_status']} ({e.get('reason')})" for e in excluded]
    else:
        lines.append("None: every task's golden solution passed its harness.")
    lines += [
        "",
        "## Files",
        "",
        f"- `{PARQUET_PATH}`: one row per sample (`task_id`, `sample_index`, `status`, `completion`, cases passed, first failure).",
        "- `summary.json`: pass@k overall, per config and per task; status counts; excluded tasks.",
        "- `results.jsonl`, `run.json`: the run's own files; `samples.jsonl`, `samples.meta.json`: generations and their settings.",
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("{repo_id}", "results", split="test")',
        "```",
        "",
        "## Model-index block for the model card",
        "",
        "```yaml",
        model_index.rstrip(),
        "```",
        "",
    ]
    return "\n".join(lines)


def _results_parquet(results: list[Any], path: Path) -> None:
    import datasets

    rows = []
    for r in results:
        d = r.to_json()
        rows.append(
            {
                "task_id": d["task_id"],
                "sample_index": int(d["sample_index"]),
                "status": d["status"],
                "task_status": (d.get("extra") or {}).get("task_status", "ok"),
                "completion": d["completion"],
                "program_hash": d["program_hash"],
                "cases_total": int(d.get("cases_total") or 0),
                "cases_passed": int(d.get("cases_passed") or 0),
                "first_failure": json.dumps(d.get("first_failure"))
                if d.get("first_failure") is not None
                else None,
                "extra": json.dumps(d.get("extra") or {}, sort_keys=True),
            }
        )
    feats = datasets.Features(
        {
            "task_id": datasets.Value("string"),
            "sample_index": datasets.Value("int32"),
            "status": datasets.Value("string"),
            "task_status": datasets.Value("string"),
            "completion": datasets.Value("string"),
            "program_hash": datasets.Value("string"),
            "cases_total": datasets.Value("int32"),
            "cases_passed": datasets.Value("int32"),
            "first_failure": datasets.Value("string"),
            "extra": datasets.Value("string"),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows, features=feats).to_parquet(str(path))


def build_bundle(
    results_dir: str | Path,
    out_dir: str | Path,
    *,
    repo_id: str,
    dataset_id: str = DEFAULT_DATASET_ID,
    model_name: str | None = None,
    date_id: str | None = None,
    previous: str | Path | None = None,
) -> dict[str, Any]:
    """Write exactly what ``push`` uploads into ``out_dir``; return the file list and the model-index YAML.

    ``date_id`` names the run in the lm-eval details layout (default: now, as lm-eval writes it).
    ``previous``: an earlier bundle or a local snapshot of the repository; its details files are
    kept, and the card's configs are rebuilt from every details file (lm-eval's rule).
    """
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise PushError(f"repo id {repo_id!r} should look like ORG/NAME")
    run = load_run(results_dir)
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise PushError(f"{out} is not empty; choose an empty folder for the bundle")
    out.mkdir(parents=True, exist_ok=True)
    source_url = f"https://huggingface.co/datasets/{repo_id}"
    model_index = model_index_yaml(run, dataset_id=dataset_id, source_url=source_url, model_name=model_name)
    for name in RUN_FILES:
        if (run["dir"] / name).is_file():
            shutil.copy2(run["dir"] / name, out / name)
    _results_parquet(run["results"], out / PARQUET_PATH)
    (out / "model-index.yaml").write_text(model_index, encoding="utf-8")
    if previous is not None:
        copy_previous_details(previous, out)
    details = write_details(run, out, model=_model_name(run, model_name), date_id=date_id) | {"out": out}
    _write_report(run, out / "report")
    card = render_card(
        run, repo_id=repo_id, dataset_id=dataset_id, model_index=model_index, model_name=model_name
    )
    (out / "README.md").write_text(add_details_to_card(card, run, details), encoding="utf-8")
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    return {"folder": str(out), "files": files, "model_index": model_index, "repo_id": repo_id}


def upload_bundle(
    folder: str | Path, repo_id: str, *, private: bool = False, token: str | None = None
) -> str:
    """Create the dataset repo if needed and upload the bundle in one commit; return its URL."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type="dataset",
        commit_message="Add BioCoder evaluation results",
    )
    return f"https://huggingface.co/datasets/{repo_id}"


# ------------------------------------------------------------------------------ lm-eval details layout
def sanitize_model_name(name: str) -> str:
    """lm-eval's folder name for a model (``lm_eval.utils.sanitize_model_name``)."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)


def sanitize_task_name(name: str) -> str:
    """lm-eval's config-name form of a task (``lm_eval.utils.sanitize_task_name``)."""
    return re.sub(r"\W", "_", name)


def _task_name(run: dict[str, Any]) -> str:
    config = (run["summary"].get("run") or {}).get("config") or run["meta"].get("config") or "all"
    return f"biocoder_{config}"


def write_details(
    run: dict[str, Any], out: Path, *, model: str, date_id: str | None = None
) -> dict[str, Any]:
    """``<model>/results_<date>.json`` and ``<model>/samples_<task>_<date>.jsonl`` as lm-eval writes them."""
    from datetime import datetime

    date_id = date_id or datetime.now().isoformat().replace(":", "-")
    folder = out / sanitize_model_name(model)
    folder.mkdir(parents=True, exist_ok=True)
    summary = run["summary"]
    task = _task_name(run)
    cis = (summary.get("confidence_intervals") or {}).get("overall") or {}
    scores: dict[str, Any] = {"alias": task}
    for k in summary.get("k", []):
        key = f"pass@{k}"
        ci = cis.get(key) or {}
        scores[f"{key},none"] = summary.get(key)
        scores[f"{key}_stderr,none"] = ci.get("std_err", "N/A") if ci else "N/A"
        scores[f"{key}_ci_low,none"] = ci.get("low")
        scores[f"{key}_ci_high,none"] = ci.get("high")
    results = {
        "results": {task: scores},
        "groups": {},
        "configs": {
            task: {
                "task": task,
                "dataset_path": DEFAULT_DATASET_ID,
                "dataset_name": task.removeprefix("biocoder_"),
                "output_type": "generate_until",
                "metric_list": [{"metric": f"pass@{k}"} for k in summary.get("k", [])],
            }
        },
        "versions": {task: 1},
        "n-samples": {
            task: {
                "original": summary.get("tasks", {}).get("total"),
                "effective": summary.get("tasks", {}).get("scored"),
            }
        },
        "config": {"model": "biocoder-eval", "model_name": model, "run": summary.get("run") or {}},
        "model_name": model,
        "model_name_sanitized": sanitize_model_name(model),
        "date": date_id,
        "biocoder_summary": summary,
    }
    results_path = folder / f"results_{date_id}.json"
    results_path.write_text(
        json.dumps(results, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"
    )
    samples_path = folder / f"samples_{task}_{date_id}.jsonl"
    sample_rows: list[dict[str, Any]] = []
    with samples_path.open("w", encoding="utf-8") as fh:
        for doc_id, r in enumerate(sorted(run["results"], key=lambda r: (r.task_id, r.sample_index))):
            d = r.to_json()
            line = {
                "doc_id": doc_id,
                "doc": {"task_id": d["task_id"]},
                "target": "",
                "arguments": {},
                "resps": [[d["completion"]]],
                "filtered_resps": [d["completion"]],
                "sample_index": d["sample_index"],
                "status": d["status"],
                "passed": d["status"] == "passed",
                "task_status": (d.get("extra") or {}).get("task_status", "ok"),
                "cases_total": d.get("cases_total"),
                "cases_passed": d.get("cases_passed"),
                "first_failure": d.get("first_failure"),
                "program_hash": d.get("program_hash"),
            }
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            sample_rows.append(line)
    # Parquet twins of both files: a card's configs must share one format, or `datasets` infers one
    # builder for the whole repository and reads JSON files as Parquet (ArrowInvalid: magic bytes).
    _write_parquet(
        [
            {
                "model_name": model,
                "date": date_id,
                "task": task,
                **{
                    key: (v if isinstance(v, (int, float)) or v is None else None)
                    for key, v in scores.items()
                    if key != "alias"
                },
                "results_json": json.dumps(results, sort_keys=True, default=str),
            }
        ],
        results_path.with_suffix(".parquet"),
    )
    _write_parquet(
        [
            {
                **row,
                "doc": json.dumps(row["doc"]),
                "arguments": json.dumps(row["arguments"]),
                "resps": json.dumps(row["resps"]),
                "filtered_resps": json.dumps(row["filtered_resps"]),
            }
            for row in sample_rows
        ],
        samples_path.with_suffix(".parquet"),
    )
    return {
        "model": model,
        "task": task,
        "date_id": date_id,
        "results": str(results_path.relative_to(out)),
        "samples": str(samples_path.relative_to(out)),
    }


def _write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)


_DETAIL_RE = re.compile(
    r"^(results|samples_(?P<task>.+))_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.parquet$"
)


def detail_configs(out: Path) -> list[dict[str, Any]]:
    """Card configs rebuilt from every details file in ``out`` (as lm-eval's details cards are).

    Per model folder: ``<model>__results`` and ``<model>__<task>``, each with a split per run
    date and ``latest`` (the newest date's file), all pointing at Parquet files.
    """
    found: dict[str, dict[str, str]] = {}
    for path in sorted(out.glob("*/*.parquet")):
        m = _DETAIL_RE.match(path.name)
        if not m:
            continue
        name = f"{path.parent.name}__{'results' if m.group(1) == 'results' else sanitize_task_name(m.group('task'))}"
        found.setdefault(name, {})[m.group("date")] = path.relative_to(out).as_posix()
    configs = []
    for name in sorted(found):
        dates = found[name]
        files = [{"split": re.sub(r"[^\w.]", "_", d), "path": [dates[d]]} for d in sorted(dates)]
        files.append({"split": "latest", "path": [dates[max(dates)]]})
        configs.append({"config_name": name, "data_files": files})
    return configs


def copy_previous_details(previous: str | Path, out: Path) -> int:
    """Copy the details files of an earlier bundle (or a local snapshot of the repository) into ``out``."""
    src = Path(previous)
    if not src.is_dir():
        raise PushError(f"--previous {src}: not a folder")
    n = 0
    for path in src.glob("*/*"):
        if path.is_file() and (path.name.startswith(("results_", "samples_"))):
            target = out / path.parent.name / path.name
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                n += 1
    return n


def add_details_to_card(card: str, run: dict[str, Any], details: dict[str, Any]) -> str:
    """Declare the lm-eval configs in the card's front matter and add the headline with its CIs."""
    import yaml

    _, front_text, body = card.split("---", 2)
    front = yaml.safe_load(front_text)
    model = sanitize_model_name(details["model"])
    split = re.sub(r"[^\w.]", "_", details["date_id"])
    front["configs"] = [c for c in front["configs"] if c["config_name"] == "results"] + detail_configs(
        details["out"]
    )
    summary = run["summary"]
    cis = (summary.get("confidence_intervals") or {}).get("overall") or {}
    head = ["## Headline", ""]
    for k in summary.get("k", []):
        v, ci = summary.get(f"pass@{k}"), cis.get(f"pass@{k}")
        if v is None:
            continue
        ci_text = (
            f" (95% CI {100 * ci['low']:.2f} to {100 * ci['high']:.2f}, bootstrap over {ci['tasks']} tasks)"
            if ci
            else ""
        )
        head.append(f"- **pass@{k} = {100 * v:.2f}%**{ci_text}")
    plus = summary.get("plus") or {}
    pcis = plus.get("confidence_intervals") or {}
    for k in summary.get("k", []) if plus else []:
        v, ci = plus.get(f"pass@{k}"), pcis.get(f"pass@{k}")
        if v is None:
            continue
        ci_text = f" (95% CI {100 * ci['low']:.2f} to {100 * ci['high']:.2f})" if ci else ""
        head.append(f"- pass@{k} with the plus cases = {100 * v:.2f}%{ci_text}")
    if plus:
        only = plus.get("plus_only_failures") or []
        head.append(
            f"- samples that pass the base cases but fail a plus case: {len(only)}"
            + (": " + ", ".join(f"`{f['task_id']}#{f['sample_index']}`" for f in only[:20]) if only else "")
        )
    head += [
        "",
        f"lm-evaluation-harness layout: aggregated `{details['results']}`, per-sample `{details['samples']}` "
        f"(configs `{model}__results` and `{model}__{sanitize_task_name(details['task'])}`, splits `{split}` and `latest`).",
        "",
    ]
    body = body.lstrip("\n")
    marker = "## Scores (pass@k, %)"
    body = (
        body.replace(marker, "\n".join(head) + "\n" + marker, 1) if marker in body else "\n".join(head) + body
    )
    return "---\n" + yaml.safe_dump(front, sort_keys=False).rstrip() + "\n---\n\n" + body


def _write_report(run: dict[str, Any], folder: Path) -> None:
    """``biocoder report`` of the run into the bundle, when matplotlib (extra ``metrics``) is there."""
    try:
        from biocoder_metric.reporting.build import build_report
        from biocoder_metric.reporting.runs import load_run as load_report_run
    except ImportError:
        return
    build_report([load_report_run(run["dir"])], folder)
