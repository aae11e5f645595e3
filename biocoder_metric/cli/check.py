"""``biocoder check``: run every golden through the sample path; pass or why not, per task.

A thin adapter over :func:`biocoder_metric.evaluation.check_run` (which writes ``check.json``).
"""

from __future__ import annotations

import argparse
import json

from biocoder_metric.cli.common import (
    add_engine_flags,
    add_shard_flag,
    engine_errors,
    eval_options,
    load_problems,
    parse_shard_flag,
    run_options,
)
from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    ck = subparsers.add_parser(
        "check",
        help="run every golden solution through the harness and report pass or why not",
        description="Run each task's golden solution as a candidate; print a table (or JSON) of pass / golden_fails / no_harness.",
    )
    ck.add_argument("--out", default=None, help="also write check.json to this directory")
    ck.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ck.add_argument("--strict", action="store_true", help="exit 1 unless every task passes")
    add_engine_flags(ck)
    add_shard_flag(ck)
    ck.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from biocoder_metric.evaluation import check_run
    from biocoder_metric.scoring.summary import render_check_table

    options = run_options(
        engine=eval_options(args, validity=False),
        config=args.config,
        shard=parse_shard_flag(args.shard),
        progress=not args.no_progress,
    )
    problems = load_problems(args)
    try:
        result = check_run(problems, options, out_dir=args.out)
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.report, indent=2, sort_keys=True))
    else:
        print(render_check_table(result.checks))
    return result.exit_code(args.strict)
