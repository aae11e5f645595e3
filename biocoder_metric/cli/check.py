"""``biocoder check``: run every golden through the sample path; pass or why not, per task."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from biocoder_metric.cli.common import (
    add_engine_flags,
    add_shard_flag,
    engine_errors,
    eval_options,
    load_problems,
    parse_shard_flag,
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
    from biocoder_metric.execution import check_goldens
    from biocoder_metric.scoring.results import write_json_atomic
    from biocoder_metric.scoring.summary import render_check_table

    problems = load_problems(args)
    options = eval_options(args)
    shard = parse_shard_flag(args)
    all_task_ids = sorted(r["task_id"] for r in problems)
    if shard is not None:
        from biocoder_metric.execution.shard import select_problems

        problems = select_problems(problems, shard)
    info: dict[str, Any] = {}
    try:
        checks = check_goldens(problems, options, progress=not args.no_progress, run_info=info)
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    report = {"config": args.config, **info, **options.fingerprint(), "tasks": checks}
    if shard is not None:
        report["shard"] = {"index": shard.index, "count": shard.count, "all_tasks": all_task_ids}
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_json_atomic(out / "check.json", report)
        except (OSError, *engine_errors()) as exc:
            raise UsageError(f"cannot write {out / 'check.json'}: {exc}") from None
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print(render_check_table(checks))
    from biocoder_metric.types import Status

    if args.strict and any(c["status"] != Status.PASSED for c in checks):
        return 1
    return 0
