"""``biocoder run``: generate + evaluate + summarise into one directory; rerunning resumes both."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from biocoder_metric.cli.common import DEFAULT_KS, add_engine_flags
from biocoder_metric.cli.errors import UsageError
from biocoder_metric.cli.generate import add_generation_flags, generate_into, print_meta


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser(
        "run",
        help="generate + evaluate + summarise in one directory",
        description="Generate samples with a registered model into DIR/samples.jsonl, judge them in a sandbox, "
        "and write DIR/results.jsonl and DIR/summary.json. Rerunning resumes both stages.",
    )
    add_generation_flags(run, with_data=False)
    run.add_argument("--out", required=True, help="run directory")
    run.add_argument(
        "--k",
        default=DEFAULT_KS,
        help=f"comma-separated k for pass@k (default: {DEFAULT_KS}; k above n is reported as not estimable)",
    )
    run.add_argument("--overwrite", action="store_true", help="discard existing samples and results in --out")
    run.add_argument(
        "--generation-only",
        action="store_true",
        help="stop after generation (GPU nodes); evaluate DIR/samples.jsonl later, e.g. on CPU nodes",
    )
    add_engine_flags(run)
    run.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from biocoder_metric.cli.evaluate import cmd_evaluate
    from biocoder_metric.generation.generate import process_state

    out = Path(args.out)
    samples = out / "samples.jsonl"
    if process_state().num_processes > 1:
        raise UsageError(
            "biocoder run evaluates in this process; for multi-GPU generation use "
            "`accelerate launch -m biocoder_metric generate ...` then `biocoder evaluate`"
        )
    print(f"[1/2] generating into {samples}", file=sys.stderr)
    meta = generate_into(args, samples, args.config, args.source_dir)
    print_meta(meta)
    if getattr(args, "generation_only", False):
        print(
            f"--generation-only: evaluate later with `biocoder evaluate --config {args.config} --samples {samples} "
            f"--out {out}` (any executor, any machine with a sandbox)",
            file=sys.stderr,
        )
        return 0
    print(f"[2/2] evaluating in sandbox {args.sandbox!r} into {out}", file=sys.stderr)
    eval_args = argparse.Namespace(**{**vars(args), "samples": str(samples), "out": str(out)})
    return cmd_evaluate(eval_args)
