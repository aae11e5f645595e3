"""``biocoder evaluate``: judge samples in a sandbox, write results and pass@k; a rerun resumes."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from biocoder_metric.cli.common import (
    DEFAULT_KS,
    EXIT_GOLDEN_FAILS,
    EXIT_MISSING_TASKS,
    add_denominator_flags,
    add_engine_flags,
    add_shard_flag,
    add_validity_flags,
    engine_errors,
    eval_options,
    load_problems,
    parse_ks,
    parse_shard_flag,
    parse_task_ids,
    read_samples,
)
from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    ev = subparsers.add_parser(
        "evaluate",
        help="judge generated samples in a sandbox and compute pass@k",
        description="Judge samples (JSONL lines {task_id, completion|solution}) and write results.jsonl + summary.json. "
        "Rerunning the same command resumes where it stopped.",
    )
    ev.add_argument("--samples", default=None, help="samples JSONL file (or --samples-dir)")
    ev.add_argument("--out", required=True, help="output directory (results.jsonl, summary.json, resume log)")
    ev.add_argument(
        "--k", default=DEFAULT_KS, help=f"comma-separated k values for pass@k (default: {DEFAULT_KS})"
    )
    ev.add_argument(
        "--overwrite",
        action="store_true",
        help="discard results in --out that came from different inputs/options",
    )
    add_engine_flags(ev)
    add_validity_flags(ev)
    add_denominator_flags(ev)
    from biocoder_metric.cli.evaluate_extras import add_evaluate_flags

    add_evaluate_flags(ev)  # --samples-dir, --upstream-results, --metrics
    add_shard_flag(ev)
    ev.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from biocoder_metric.cli import evaluate_extras as eval_extras
    from biocoder_metric.execution import run_evaluation
    from biocoder_metric.scoring.results import SUMMARY_NAME, write_json_atomic
    from biocoder_metric.scoring.summary import build_summary, render_summary

    ks = parse_ks(args.k)
    eval_extras.requested_metrics(args)  # a bad --metrics fails before anything runs
    if getattr(args, "samples_dir", None):  # upstream layout: task ids come from the folder names
        problems = load_problems(args)
        samples, origin = eval_extras.load_samples(args, problems, read_samples)
    else:
        samples, origin = eval_extras.load_samples(args, [], read_samples)
        problems = load_problems(args)
    options = eval_options(args)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    extra_fingerprint: dict[str, Any] = {"config": args.config}
    from biocoder_metric.execution import GoldenFailuresError, MissingTasksError

    task_ids = parse_task_ids(getattr(args, "task_ids", None))
    allow_missing = bool(getattr(args, "allow_missing", False))
    all_samples = samples
    shard, shard_info = parse_shard_flag(args), None
    if shard is not None:  # a slice of whole tasks; `biocoder merge` checks completeness
        from biocoder_metric.execution.shard import plan

        try:
            samples, shard_info = plan(
                problems, samples, shard, args.config, options, task_ids, allow_missing
            )
        except engine_errors() as exc:
            raise UsageError(str(exc)) from None
        extra_fingerprint["shard"] = {"index": shard.index, "count": shard.count}
    if shard is not None:  # a shard holds some tasks by construction; `biocoder merge` applies the rule
        task_ids = sorted({s["task_id"] for s in samples} & set(task_ids or {r["task_id"] for r in problems}))
    started = time.monotonic()
    try:
        run = run_evaluation(
            problems,
            samples,
            options,
            out_dir=out,
            progress=not args.no_progress,
            overwrite=args.overwrite,
            extra_fingerprint=extra_fingerprint,
            task_ids=task_ids,
            allow_missing=allow_missing,
            allow_partial=bool(getattr(args, "allow_partial", False)),
        )
        if shard_info is not None:
            from biocoder_metric.execution.shard import SHARD_FILE

            write_json_atomic(out / SHARD_FILE, shard_info)
    except MissingTasksError as exc:
        print(f"biocoder evaluate: error: {exc}", file=sys.stderr)
        return EXIT_MISSING_TASKS
    except GoldenFailuresError as exc:
        print(f"biocoder evaluate: error: {exc}", file=sys.stderr)
        return EXIT_GOLDEN_FAILS
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    task_config = {r["task_id"]: r.get("config") or args.config for r in problems}
    run_info = {
        "config": args.config,
        "sandbox": run.sandbox,
        "environment_id": run.environment_id,
        **options.fingerprint(),
        **eval_extras.samples_identity(args, all_samples),  # the whole input, also in a shard
    }
    summary = build_summary(
        run.results,
        ks,
        {t: task_config[t] for t in {r.task_id for r in run.results} | set(run.missing)},
        run_info,
        task_set=run.task_set,
        missing=run.missing,
    )
    eval_extras.extend_summary(summary, args, run.results, problems)
    try:
        write_json_atomic(out / SUMMARY_NAME, summary)
        write_json_atomic(
            out / "timing.json",
            {
                "wall_s": round(time.monotonic() - started, 3),
                "samples_run": run.executed,
                "samples_resumed": len(run.results) - run.executed,
            },
        )
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    upstream = eval_extras.write_upstream(args, run.results, origin)
    print(render_summary(summary))
    if eval_extras.render_text_metrics(summary):
        print(eval_extras.render_text_metrics(summary))
    print(f"\nresults: {out / 'results.jsonl'}\nsummary: {out / SUMMARY_NAME}", file=sys.stderr)
    if upstream:
        print(f"upstream results.json: {upstream}", file=sys.stderr)
    from biocoder_metric.scoring.accounting import account

    books = account(run.results, run.task_set, run.missing)
    code = books.exit_code(bool(getattr(args, "allow_partial", False)))
    if code:
        print(
            f"biocoder evaluate: error: {len(books.infra_errors)} samples hit sandbox errors, retried on a "
            "fresh sandbox and confirmed as infrastructure by a canary job; they are left out of n and c "
            "(listed in summary.json 'infra_errors') and the score above is PARTIAL. Rerun the same command "
            "to retry them, or pass --allow-partial to accept this partial score",
            file=sys.stderr,
        )
    return code
