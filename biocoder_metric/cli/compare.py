"""``biocoder compare RUN_A RUN_B``: paired bootstrap of A minus B on the tasks both scored, with a
CI and a p-value per pass@k, and the tasks only one of them solves.
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
        "--seed", type=int, default=settings.BOOTSTRAP_SEED, help=f"bootstrap seed (default: {settings.BOOTSTRAP_SEED})"
    )
    cp.add_argument("--json", action="store_true", help="print JSON instead of the table")
    cp.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.build import compare_runs, render_comparison

    if args.n_boot < 1:
        raise UsageError("--n-boot must be >= 1")
    a, b = load_runs([args.run_a, args.run_b], None, None)
    cmp = compare_runs(a, b, n_boot=args.n_boot, seed=args.seed)
    if all(v is None for v in cmp["by_k"].values()):
        raise UsageError(f"{a.dir} and {b.dir} have no scored task in common: nothing to compare")
    print(json.dumps(cmp, indent=2, sort_keys=True) if args.json else render_comparison(cmp))
    return 0
