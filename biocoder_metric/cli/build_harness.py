"""``biocoder build harness``: synthesise and validate test harnesses for task rows.

Flags only; the work is in :mod:`biocoder_metric.synth`. Registered into the ``build``
group through :func:`biocoder_metric.cli.build.register_build_command`.

Writes, for ``--out OUT.jsonl``:

* ``OUT.jsonl``: the task rows, those with a validated harness made executable
  (``context`` set, ``harness_source: synthesized``); the others unchanged;
* ``OUT.report.jsonl``: one record per task (schema ``biocoder-synth/1``, see
  docs/formats.md); appended as tasks finish, and the resume log: rerun the same
  command and finished tasks are skipped;
* ``OUT.summary.json``: counts, validated per language, median mutation score and time.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from biocoder_metric.cli.build import register_build_command
from biocoder_metric.cli.common import add_progress_flag
from biocoder_metric.cli.flags import add_option_flags, options_from_args


def _configure(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--tasks", help="task rows (JSON/JSONL, e.g. `biocoder build tasks` output)")
    src.add_argument("--config", help="a shipped config instead (python_similar, java_public, ...)")
    p.add_argument("--source-dir", default=None, help="upstream files for --config (else downloaded)")
    p.add_argument(
        "--out", required=True, help="output task rows JSONL (report and summary written next to it)"
    )
    p.add_argument(
        "--language", choices=("python", "java", "all"), default="all", help="only tasks of this language"
    )
    p.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="DIR",
        help="repository checkout for slicing and call sites (matched to rows by folder name); repeatable",
    )
    p.add_argument(
        "--only-missing", action="store_true", help="skip rows that already have an executable harness"
    )
    p.add_argument("--task-ids", default=None, help="comma-separated task ids to process (default: all)")
    from biocoder_metric.synth.pipeline import SynthOptions

    add_option_flags(p.add_argument_group("synthesis and validation"), SynthOptions, exclude=("repos",))
    p.add_argument(
        "--ship",
        nargs="?",
        const="default",
        default=None,
        metavar="FILE",
        help="also merge the validated harnesses into the shipped file (default "
        "biocoder_dataset/synth/harnesses-v1.jsonl); for maintainers regenerating the dataset",
    )
    add_progress_flag(p)


def _load_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.tasks:
        from biocoder_dataset.task_file import load_task_rows

        rows = load_task_rows(args.tasks)
    else:
        from biocoder_dataset.configs import load_problems

        rows = load_problems(args.config, source_dir=args.source_dir)
    if args.language != "all":
        rows = [r for r in rows if r["language"] == args.language]
    if args.task_ids:
        wanted = {t.strip() for t in args.task_ids.split(",") if t.strip()}
        unknown = wanted - {r["task_id"] for r in rows}
        if unknown:
            raise ValueError(f"--task-ids: unknown task id(s) {sorted(unknown)}")
        rows = [r for r in rows if r["task_id"] in wanted]
    return rows


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per language and status, median mutation score, time per validated task, failure causes.

    Time is the median over *validated* tasks: an instant rejection (an unresolved name, in
    milliseconds) says nothing about what a harness costs. Failures are keyed by cause
    (:func:`biocoder_metric.synth.pipeline.record_cause`), not by the plan that failed last.
    """
    from biocoder_metric.synth.pipeline import record_cause

    def median(values: list[float]) -> float | None:
        return round(statistics.median(values), 3) if values else None

    out: dict[str, Any] = {"schema": "biocoder-synth-summary/2", "tasks": len(records), "by_language": {}}
    for lang in sorted({r["language"] for r in records}):
        recs = [r for r in records if r["language"] == lang]
        ok = [r for r in recs if r["status"] == "validated"]
        scores = [
            r["validation"]["mutation_score"]
            for r in ok
            if r.get("validation", {}).get("mutation_score") is not None
        ]
        out["by_language"][lang] = {
            "tasks": len(recs),
            "validated": len(ok),
            "yield": round(len(ok) / len(recs), 4) if recs else None,
            "median_mutation_score": round(statistics.median(scores), 4) if scores else None,
            "median_seconds_per_validated_task": median([r["seconds"] for r in ok]),
            "median_seconds_per_failed_task": median(
                [r["seconds"] for r in recs if r["status"] != "validated"]
            ),
        }
    causes: dict[str, int] = {}
    for r in records:
        if r["status"] != "validated":
            key = r.get("cause") or record_cause(r) or "other"
            causes[key] = causes.get(key, 0) + 1
    out["failure_causes"] = dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])))
    return out


def _run(args: argparse.Namespace) -> int:
    from biocoder_metric.synth.pipeline import SynthOptions, apply_records, synthesize

    if args.sandbox == "none" and not args.allow_unsafe:
        raise ValueError("--sandbox none runs golden code on this machine: add --allow-unsafe to confirm")
    rows = _load_rows(args)
    todo = [r for r in rows if not (args.only_missing and r.get("executable") and r.get("context"))]
    repos = {}
    for d in args.repo:
        p = Path(d).resolve()  # `--repo .` or `--repo ../x` must slice like an absolute path
        if not p.is_dir():
            raise FileNotFoundError(f"--repo {d}: not a folder")
        repos[p.name] = str(p)
    opts = options_from_args(SynthOptions, args, repos=repos)
    out = Path(args.out)
    stem = out.with_suffix("") if out.suffix in (".jsonl", ".json") else out
    report = Path(f"{stem}.report.jsonl")
    records = synthesize(todo, opts, report, progress=not args.no_progress, helper_rows=rows)
    new_rows = apply_records(rows, records)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for row in new_rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    summary = summarize(records)
    Path(f"{stem}.summary.json").write_text(
        json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    for lang, s in summary["by_language"].items():
        print(
            f"{lang}: {s['validated']}/{s['tasks']} validated, median mutation score {s['median_mutation_score']}, "
            f"median {s['median_seconds_per_validated_task']} s per validated task"
        )
    print(f"rows: {out}  report: {report}")
    if args.ship:
        from biocoder_dataset.synth_harnesses import SHIPPED_FILE, write_shipped

        target = SHIPPED_FILE if args.ship == "default" else Path(args.ship)
        print(f"shipped: {write_shipped(records, target)} harnesses in {target}")
    return 0


register_build_command(
    "harness",
    "synthesise a test harness per task (sliced context, inferred input generators), validated in the sandbox",
    _configure,
    _run,
)
