"""``biocoder audit``: how strong is each task's test? (thin adapter over :mod:`.validity.audit`)

Prints one line per task (null candidates that passed, constant output, mutants killed)
and the totals; ``--out DIR`` writes ``audit.jsonl`` (docs/formats.md) and
``audit_summary.json``. ``--ship FILE`` also writes the ``harness_strength`` data file the
dataset loader merges (``biocoder_dataset/harness_strength.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.cli.common import add_engine_flags, engine_errors, eval_options, load_problems
from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "audit",
        help="check each task's harness with null candidates, constant output and golden mutants",
        description="For every executable task: do null candidates (return None, pass, return the first "
        "argument, raise) pass? Is the golden's output the same on every fuzz case? How many single-site "
        "mutants of the golden does the test kill (survivors re-run with --equivalence-cases to estimate "
        "equivalent mutants)? See docs/validity.md.",
    )
    p.add_argument("--out", default=None, help="write audit.jsonl and audit_summary.json to this directory")
    p.add_argument(
        "--mutants",
        type=int,
        default=settings.MUTANTS,
        help=f"golden mutants per task (default: {settings.MUTANTS})",
    )
    p.add_argument(
        "--equivalence-cases",
        type=int,
        default=50,
        help="fuzz cases for re-running surviving mutants (equivalent-mutant estimate; default: 50)",
    )
    p.add_argument("--task", action="append", default=None, help="audit only this task id (repeatable)")
    p.add_argument("--json", action="store_true", help="print the records as JSON lines")
    p.add_argument(
        "--ship",
        default=None,
        help="also write a harness_strength data file (the format of biocoder_dataset/harness_strength.json)",
    )
    add_engine_flags(p)
    p.set_defaults(func=cmd_audit)


def _line(rec: dict[str, Any]) -> str:
    if rec["task_status"] != "ok":
        return f"{rec['task_id']}  {rec['task_status']}: {rec.get('reason') or ''}"
    ms = rec["mutation_score"]
    weak = "WEAK" if rec["weak_harness"] else "ok  "
    nulls = ",".join(rec["null_candidates_passed"]) or "-"
    const = "constant-output" if rec["constant_output"] else ""
    eq = (
        f" (+{ms['killed_with_more_cases']} with more cases, ~{ms['likely_equivalent']} equivalent)"
        if ms["total"]
        else ""
    )
    return f"{rec['task_id']}  {weak}  nulls passed: {nulls}  mutants killed {ms['killed']}/{ms['total']}{eq}  {const}".rstrip()


def cmd_audit(args: argparse.Namespace) -> int:
    from biocoder_metric.validity.audit import audit_tasks, ship_records, summarize, write_audit

    if args.mutants < 0:
        raise UsageError(f"--mutants must be >= 0, got {args.mutants}")
    problems = load_problems(args)
    if args.task:
        known = {r["task_id"] for r in problems}
        unknown = [t for t in args.task if t not in known]
        if unknown:
            raise UsageError(f"--task: unknown task id(s) {', '.join(unknown)} in config {args.config!r}")
        problems = [r for r in problems if r["task_id"] in set(args.task)]
    options = eval_options(args, validity=False)
    try:
        records = audit_tasks(
            problems,
            options,
            mutants=args.mutants,
            equivalence_cases=args.equivalence_cases,
            progress=not args.no_progress,
            out_dir=args.out,
        )
    except engine_errors() as exc:
        raise UsageError(str(exc)) from None
    if args.out:
        path = write_audit(records, args.out)
        print(f"audit: {path}", file=sys.stderr)
    if args.ship:
        ship_records(records, args.ship, config=args.config, options=options)
        print(f"harness_strength file: {args.ship}", file=sys.stderr)
    if args.json:
        for rec in records:
            print(json.dumps(rec, sort_keys=True))
    else:
        for rec in records:
            print(_line(rec))
        summary = summarize(records)
        m = summary["mutants"]
        print(
            f"\n{summary['audited']} of {summary['tasks']} tasks audited; weak harness: {len(summary['weak_harness'])}"
            f" {summary['weak_harness']}; constant output: {len(summary['constant_output'])};"
            f" mutants killed {m['killed']}/{m['total']} (score {m['score']}),"
            f" {m['killed_with_more_cases']} more killed with more cases, {m['likely_equivalent']} likely equivalent"
        )
    return 0
