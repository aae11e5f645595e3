"""``biocoder evaluate``: judge samples in a sandbox, write results and pass@k; a rerun resumes.

A thin adapter: its flags become :class:`~biocoder_metric.evaluation.RunOptions`, and
:func:`~biocoder_metric.evaluation.evaluate_run` does the run and writes every file of ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from biocoder_metric.cli.common import (
    DEFAULT_KS,
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
    run_options,
)
from biocoder_metric.cli.errors import UsageError
from biocoder_metric.cli.evaluate_extras import (
    add_evaluate_flags,
    load_samples,
    render_text_metrics,
    requested_metrics,
    samples_identity,
)


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
    add_evaluate_flags(ev)  # --samples-dir, --upstream-results, --metrics
    add_shard_flag(ev)
    ev.set_defaults(func=cmd_evaluate)


def evaluate_options(args: argparse.Namespace) -> Any:
    """``biocoder evaluate``'s flags as the typed :class:`~biocoder_metric.evaluation.RunOptions`."""
    return run_options(
        engine=eval_options(args, validity=True),
        ks=parse_ks(args.k),
        config=args.config,
        task_ids=parse_task_ids(args.task_ids),
        allow_missing=args.allow_missing,
        allow_partial=args.allow_partial,
        allow_short_k=args.allow_short_k,
        overwrite=args.overwrite,
        progress=not args.no_progress,
        shard=parse_shard_flag(args.shard),
        metrics=requested_metrics(args.metrics),
        upstream_results=args.upstream_results,
    )


def cmd_evaluate(args: argparse.Namespace) -> int:
    options = evaluate_options(args)  # bad flags (--metrics, --k, limits) fail before anything is read
    if args.samples_dir:  # upstream layout: task ids come from the folder names
        problems = load_problems(args)
        samples, origin = load_samples(args.samples, args.samples_dir, problems, read_samples)
    else:
        samples, origin = load_samples(args.samples, None, [], read_samples)
        problems = load_problems(args)
    identity = samples_identity(args.samples, samples)  # the whole input, also in a shard
    return evaluate_and_report("evaluate", problems, samples, options, Path(args.out), identity, origin)


def evaluate_and_report(
    command: str,
    problems: list[dict[str, Any]],
    samples: list[dict[str, Any]],
    options: Any,
    out: Path,
    run_info: dict[str, Any],
    origin: dict[tuple[str, int], tuple[str, int]] | None = None,
) -> int:
    """Call :func:`~biocoder_metric.evaluation.evaluate_run` (it writes the run folder), print, return the exit status.

    Shared by ``biocoder evaluate`` and ``biocoder run``; all this adds is the error mapping
    (exit 1 missing tasks, 3 goldens failing here, 2 usage) and the printed report.
    """
    from biocoder_metric.evaluation import evaluate_run, exit_status
    from biocoder_metric.execution.results import FINAL_NAME, SUMMARY_NAME
    from biocoder_metric.reporting.text_metrics import MetricsUnavailableError
    from biocoder_metric.scoring.summary import render_summary

    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    from biocoder_metric.errors import GoldenFailuresError, MissingTasksError

    try:
        result = evaluate_run(problems, samples, options, out_dir=out, run_info=run_info, origin=origin)
    except (MissingTasksError, GoldenFailuresError) as exc:
        print(f"biocoder {command}: error: {exc}", file=sys.stderr)
        return int(exit_status(exc))
    except MetricsUnavailableError as exc:
        raise UsageError(str(exc)) from None
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    print(render_summary(result.summary))
    if render_text_metrics(result.summary):
        print(render_text_metrics(result.summary))
    print(f"\nresults: {out / FINAL_NAME}\nsummary: {out / SUMMARY_NAME}", file=sys.stderr)
    if result.upstream_results:
        print(f"upstream results.json: {result.upstream_results}", file=sys.stderr)
    code = result.exit_code
    if code:
        print(
            f"biocoder {command}: error: {len(result.infra_errors)} samples hit sandbox errors, retried on a "
            "fresh sandbox and confirmed as infrastructure by a canary job; they are left out of n and c "
            "(listed in summary.json 'infra_errors') and the score above is PARTIAL. Rerun the same command "
            "to retry them, or pass --allow-partial to accept this partial score",
            file=sys.stderr,
        )
    return code
