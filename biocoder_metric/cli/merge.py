"""``biocoder merge``: the second half of a sharded (Slurm array / batch) evaluation.

Each array element runs ``biocoder evaluate --shard I/N --out DIR_I``; ``biocoder merge --out
DIR DIR_0 ... DIR_N-1`` then writes the files one unsharded run would have written (see
:mod:`biocoder_metric.scoring.merge` and docs/scale.md). Exit status: 0 merged; 1 samples or shards
missing or duplicated (nothing written, the report says which); 2 shards that do not belong
together or cannot be read.
"""

from __future__ import annotations

import argparse
import sys

from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    mg = subparsers.add_parser(
        "merge",
        help="combine the output dirs of `evaluate --shard I/N` (or `check --shard`) runs",
        description="Merge shard output directories into one results.jsonl + summary.json, identical to an "
        "unsharded run. Refuses shards whose options or environment differ; reports missing or duplicated samples.",
    )
    mg.add_argument("--out", required=True, help="directory for the merged run")
    mg.add_argument("shards", nargs="+", metavar="SHARD_DIR", help="the --out directories of the shard runs")
    mg.add_argument(
        "--allow-missing",
        action="store_true",
        help="write the merge even if shards/samples are missing (they are reported; duplicates never are allowed)",
    )
    mg.add_argument("--overwrite", action="store_true", help="replace merged files already in --out")
    mg.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 even when samples were left out as infrastructure errors (the headline says PARTIAL)",
    )
    mg.set_defaults(func=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from pathlib import Path

    from biocoder_metric.errors import ResultsWriteError
    from biocoder_metric.evaluation import merge_run
    from biocoder_metric.scoring.merge import MergeError, merge_checks
    from biocoder_metric.scoring.summary import render_summary

    dirs = [Path(d) for d in args.shards]
    try:
        if all((d / "check.json").is_file() and not (d / "shard.json").is_file() for d in dirs):
            missing, merged = merge_checks(dirs, args.out, overwrite=args.overwrite)
            if missing:
                print(
                    f"merge: {len(missing)} task(s) not checked by any shard: {', '.join(missing[:20])}",
                    file=sys.stderr,
                )
                return 1
            print(
                f"merged {len(dirs)} check shard(s): {len(merged['tasks'])} tasks -> {Path(args.out) / 'check.json'}",
                file=sys.stderr,
            )
            return 0
        report, result = merge_run(
            dirs,
            args.out,
            allow_missing=args.allow_missing,
            allow_partial=args.allow_partial,
            overwrite=args.overwrite,
        )
    except (MergeError, ResultsWriteError, OSError) as exc:
        raise UsageError(str(exc)) from None
    print(report.render(), file=sys.stderr)
    if result is None:
        if report.duplicated or report.duplicated_shards:
            why = "duplicated samples"
        elif report.missing or report.missing_shards:
            why = "missing samples (--allow-missing writes it anyway, their tasks counted as 0 correct)"
        else:
            why = (
                "tasks of the task set have no samples; pass@k is over the whole task set "
                "(--allow-missing counts them as 0 correct)"
            )
        print(f"merge: nothing written: {why}", file=sys.stderr)
        return 1
    print(render_summary(result.summary))
    print(
        f"\nresults: {Path(args.out) / 'results.jsonl'}\nsummary: {Path(args.out) / 'summary.json'}",
        file=sys.stderr,
    )
    # The one accounting rule, as `biocoder evaluate` applies it (evaluation.merge_run).
    code = result.exit_code
    if code:
        print(
            f"merge: error: {result.accounting.partial_reason()}; rerun the shards' evaluate to retry them, "
            "or pass --allow-partial to accept this partial score",
            file=sys.stderr,
        )
    return code
