"""``biocoder run``: generate + evaluate + summarise into one directory; rerunning resumes both.

Generation writes ``DIR/samples.jsonl``; the evaluation is the same call as ``biocoder evaluate``
(:func:`~biocoder_metric.evaluation.evaluate_run`, through :func:`.evaluate.evaluate_and_report`)
with ``run``'s own flags parsed into :class:`~biocoder_metric.evaluation.RunOptions`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from biocoder_metric.cli.common import (
    DEFAULT_KS,
    add_engine_flags,
    eval_options,
    load_problems,
    parse_ks,
    parse_task_ids,
    read_samples,
    run_options,
)
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


def run_eval_options(args: argparse.Namespace) -> Any:
    """``biocoder run``'s flags as the typed :class:`~biocoder_metric.evaluation.RunOptions` of its evaluation.

    ``run`` has the engine flags but not evaluate's validity, denominator, shard or reporting
    flags: those keep the run defaults. Its ``--task-ids`` (what was generated for) is also the
    task set pass@k is over, and ``--overwrite`` discards old results as well as old samples.
    """
    return run_options(
        engine=eval_options(args, validity=False),
        ks=parse_ks(args.k),
        config=args.config,
        task_ids=parse_task_ids(args.task_ids),
        overwrite=args.overwrite,
        progress=not args.no_progress,
    )


def cmd_run(args: argparse.Namespace) -> int:
    from biocoder_metric.cli.evaluate import evaluate_and_report
    from biocoder_metric.cli.evaluate_extras import samples_identity
    from biocoder_metric.generation.generate import process_state

    options = run_eval_options(args)  # bad evaluation flags fail before the model is loaded
    out = Path(args.out)
    samples_file = out / "samples.jsonl"
    if process_state().num_processes > 1:
        raise UsageError(
            "biocoder run evaluates in this process; for multi-GPU generation use "
            "`accelerate launch -m biocoder_metric generate ...` then `biocoder evaluate`"
        )
    print(f"[1/2] generating into {samples_file}", file=sys.stderr)
    meta = generate_into(args, samples_file, args.config, args.source_dir)
    print_meta(meta)
    if args.generation_only:
        print(
            f"--generation-only: evaluate later with `biocoder evaluate --config {args.config} --samples {samples_file} "
            f"--out {out}` (any executor, any machine with a sandbox)",
            file=sys.stderr,
        )
        return 0
    print(f"[2/2] evaluating in sandbox {args.sandbox!r} into {out}", file=sys.stderr)
    samples = read_samples(samples_file)
    problems = load_problems(args)
    identity = samples_identity(str(samples_file), samples)
    return evaluate_and_report("run", problems, samples, options, out, identity)
