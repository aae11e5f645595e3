"""``biocoder report RUN_DIR [RUN_DIR...] --out DIR``: ``report.html`` (self-contained), PNG + SVG
plots and ``report.json``; with several runs, paired comparisons against the first.
"""

from __future__ import annotations

import argparse
import sys

from biocoder_dataset import settings
from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    rp = subparsers.add_parser(
        "report",
        help="HTML report with plots and confidence intervals for one or more run directories",
        description="Write DIR/report.html (self-contained, opens offline), PNG and SVG plots and report.json for "
        "the given run directories (each from `biocoder evaluate --out`). Several runs are compared with the first.",
    )
    rp.add_argument(
        "runs", nargs="+", metavar="RUN_DIR", help="run directories (summary.json + results.jsonl)"
    )
    rp.add_argument("--out", required=True, help="output directory for report.html and the plots")
    rp.add_argument(
        "--names",
        default=None,
        help="comma-separated display names, one per run (default: model or folder name)",
    )
    rp.add_argument(
        "--source-dir", default=None, help="upstream files, for per-repository breakdowns of non-demo configs"
    )
    rp.add_argument(
        "--n-boot",
        type=int,
        default=settings.N_BOOT,
        help=f"bootstrap resamples for CIs (default: {settings.N_BOOT}, as summary.json)",
    )
    rp.add_argument(
        "--compare-n-boot",
        type=int,
        default=settings.COMPARE_N_BOOT,
        help=f"resamples for paired comparisons (default: {settings.COMPARE_N_BOOT})",
    )
    rp.add_argument(
        "--seed",
        type=int,
        default=settings.BOOTSTRAP_SEED,
        help=f"bootstrap seed (default: {settings.BOOTSTRAP_SEED})",
    )
    rp.set_defaults(func=cmd_report)


def load_runs(paths: list[str], names: list[str] | None, source_dir: str | None):
    from biocoder_metric.reporting.runs import RunDirError, load_run, unique_names

    if names is not None and len(names) != len(paths):
        raise UsageError(f"--names gives {len(names)} names for {len(paths)} runs")
    try:
        runs = [
            load_run(p, name=names[i] if names else None, source_dir=source_dir) for i, p in enumerate(paths)
        ]
    except RunDirError as exc:
        raise UsageError(str(exc)) from None
    unique_names(runs)
    return runs


def cmd_report(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.build import build_report

    if args.n_boot < 1 or args.compare_n_boot < 1:
        raise UsageError("--n-boot and --compare-n-boot must be >= 1")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    runs = load_runs(args.runs, names, args.source_dir)
    data = build_report(
        runs, args.out, n_boot=args.n_boot, seed=args.seed, compare_n_boot=args.compare_n_boot
    )
    print(
        f"report: {args.out}/report.html ({len(data['figures'])} plots, {len(data['tables'])} sections)",
        file=sys.stderr,
    )
    return 0
