"""``biocoder report`` and ``biocoder compare``: thin adapters over :mod:`biocoder_metric.reporting`.

* ``report RUN_DIR [RUN_DIR...] --out DIR``: ``report.html`` (self-contained), PNG + SVG
  plots and ``report.json``; with several runs, paired comparisons against the first.
* ``compare RUN_A RUN_B``: paired bootstrap of A minus B on the tasks both scored, with
  a CI and a p-value per pass@k, and the tasks only one of them solves.
"""

from __future__ import annotations

import argparse
import json
import sys

from biocoder_metric.cli import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    rp = subparsers.add_parser(
        "report",
        help="HTML report with plots and confidence intervals for one or more run directories",
        description="Write DIR/report.html (self-contained, opens offline), PNG and SVG plots and report.json for "
        "the given run directories (each from `biocoder evaluate --out`). Several runs are compared with the first.",
    )
    rp.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories (summary.json + results.jsonl)")
    rp.add_argument("--out", required=True, help="output directory for report.html and the plots")
    rp.add_argument("--names", default=None, help="comma-separated display names, one per run (default: model or folder name)")
    rp.add_argument("--source-dir", default=None, help="upstream files, for per-repository breakdowns of non-demo configs")
    rp.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for CIs (default: 1000, as summary.json)")
    rp.add_argument("--compare-n-boot", type=int, default=10_000, help="resamples for paired comparisons (default: 10000)")
    rp.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    rp.set_defaults(func=cmd_report)

    cp = subparsers.add_parser(
        "compare",
        help="is run A better than run B? paired bootstrap CI and p-value per pass@k",
        description="Paired bootstrap over the tasks both runs scored: difference A - B of pass@k, its 95% CI and a "
        "two-sided p-value, plus the tasks only one run solves.",
    )
    cp.add_argument("run_a", metavar="RUN_A")
    cp.add_argument("run_b", metavar="RUN_B")
    cp.add_argument("--n-boot", type=int, default=10_000, help="bootstrap resamples (default: 10000)")
    cp.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    cp.add_argument("--json", action="store_true", help="print JSON instead of the table")
    cp.set_defaults(func=cmd_compare)


def _load(paths: list[str], names: list[str] | None, source_dir: str | None):
    from biocoder_metric.reporting.runs import RunDirError, load_run, unique_names

    if names is not None and len(names) != len(paths):
        raise UsageError(f"--names gives {len(names)} names for {len(paths)} runs")
    try:
        runs = [load_run(p, name=names[i] if names else None, source_dir=source_dir) for i, p in enumerate(paths)]
    except RunDirError as exc:
        raise UsageError(str(exc)) from None
    unique_names(runs)
    return runs


def cmd_report(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.build import build_report

    if args.n_boot < 1 or args.compare_n_boot < 1:
        raise UsageError("--n-boot and --compare-n-boot must be >= 1")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    runs = _load(args.runs, names, args.source_dir)
    data = build_report(runs, args.out, n_boot=args.n_boot, seed=args.seed, compare_n_boot=args.compare_n_boot)
    print(f"report: {args.out}/report.html ({len(data['figures'])} plots, {len(data['tables'])} sections)", file=sys.stderr)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.build import compare_runs, render_comparison

    if args.n_boot < 1:
        raise UsageError("--n-boot must be >= 1")
    a, b = _load([args.run_a, args.run_b], None, None)
    cmp = compare_runs(a, b, n_boot=args.n_boot, seed=args.seed)
    if all(v is None for v in cmp["by_k"].values()):
        raise UsageError(f"{a.dir} and {b.dir} have no scored task in common: nothing to compare")
    print(json.dumps(cmp, indent=2, sort_keys=True) if args.json else render_comparison(cmp))
    return 0
