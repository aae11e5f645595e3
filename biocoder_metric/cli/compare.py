"""``biocoder compare RUN_A RUN_B``: A minus B over the headlines' task set (missing tasks count as 0,
as in the headline), with a paired bootstrap CI and an exact sign-flip p-value per pass@k, and the
tasks only one of them solves. Runs with other settings, environments or task sets are refused
unless ``--force``.
"""

from __future__ import annotations

import argparse
import json

from biocoder_dataset import settings
from biocoder_metric.cli.errors import UsageError
from biocoder_metric.cli.report import load_runs


def register(subparsers: argparse._SubParsersAction) -> None:
    cp = subparsers.add_parser(
        "compare",
        help="is run A better than run B? paired bootstrap CI and p-value per pass@k",
        description="Paired bootstrap over the tasks both runs scored: difference A - B of pass@k, its 95% CI and a "
        "two-sided p-value, plus the tasks only one run solves.",
    )
    cp.add_argument("run_a", metavar="RUN_A")
    cp.add_argument("run_b", metavar="RUN_B")
    cp.add_argument(
        "--n-boot",
        type=int,
        default=settings.COMPARE_N_BOOT,
        help=f"bootstrap resamples (default: {settings.COMPARE_N_BOOT})",
    )
    cp.add_argument(
        "--seed",
        type=int,
        default=settings.BOOTSTRAP_SEED,
        help=f"bootstrap seed (default: {settings.BOOTSTRAP_SEED})",
    )
    cp.add_argument("--json", action="store_true", help="print JSON instead of the table")
    cp.add_argument(
        "--force",
        action="store_true",
        help="compare although the runs differ in settings, environment or task set (printed as warnings)",
    )
    cp.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.build import compare_runs, render_comparison

    if args.n_boot < 1:
        raise UsageError("--n-boot must be >= 1")
    a, b = load_runs([args.run_a, args.run_b], None, None)
    cmp = compare_runs(a, b, n_boot=args.n_boot, seed=args.seed)
    if cmp["mismatches"] and not args.force:
        raise UsageError(
            f"{a.dir} and {b.dir} are not like for like: "
            + "; ".join(cmp["mismatches"])
            + ". Pass --force to compare them anyway"
        )
    if all(v is None for v in cmp["by_k"].values()):
        raise UsageError(f"{a.dir} and {b.dir} have no scored task in common: nothing to compare")
    print(json.dumps(cmp, indent=2, sort_keys=True) if args.json else render_comparison(cmp))
    return 0
