"""What several commands share: where tasks come from, the engine's flag groups, error mapping.

The engine flags are built from :class:`~biocoder_metric.execution.EvalOptions` (see
:mod:`.flags`); the rest are the input flags (``--config``, ``--tasks``, ``--source-dir``)
and parsers for the small value languages (``--k``, ``--task-ids``, ``--shard``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from biocoder_metric.cli.errors import UsageError
from biocoder_metric.cli.flags import (
    ENGINE_FIELDS,
    SCALE_FIELDS,
    VALIDITY_FIELDS,
    add_option_flags,
    options_from_args,
)

DEFAULT_KS = "1,5,10"

#: Exit statuses of ``biocoder evaluate`` besides 0 (ok) and 2 (usage / input error): they live
#: with the accounting rule (``scoring/accounting.py``) and are re-exported here for the commands.
from biocoder_metric.scoring.accounting import EXIT_GOLDEN_FAILS as EXIT_GOLDEN_FAILS  # noqa: E402
from biocoder_metric.scoring.accounting import EXIT_INFRA_ERRORS as EXIT_INFRA_ERRORS  # noqa: E402
from biocoder_metric.scoring.accounting import EXIT_MISSING_TASKS as EXIT_MISSING_TASKS  # noqa: E402

# ---------------------------------------------------------------------------- flag groups


def add_source_flags(p: argparse.ArgumentParser) -> None:
    """Where the task rows come from: a config, or a task file."""
    p.add_argument("--config", default="demo", help="dataset config (default: demo, embedded, no download)")
    p.add_argument(
        "--tasks",
        default=None,
        metavar="FILE",
        help="the task rows in FILE (JSON/JSONL, e.g. from `biocoder build tasks`) instead of --config",
    )
    p.add_argument("--source-dir", default=None, help="local folder with the upstream files (no download)")


def add_engine_flags(p: argparse.ArgumentParser) -> None:
    """Input, sandbox and limits, executor: the flags of every command that runs code."""
    from biocoder_metric.execution import EvalOptions

    add_source_flags(p)
    add_option_flags(p.add_argument_group("sandbox and limits"), EvalOptions, ENGINE_FIELDS)
    add_option_flags(p.add_argument_group("executor (docs/scale.md)"), EvalOptions, SCALE_FIELDS)
    add_progress_flag(p)


def add_validity_flags(p: argparse.ArgumentParser) -> None:
    """Benchmark-validity switches of ``evaluate`` (docs/validity.md)."""
    from biocoder_metric.execution import EvalOptions

    add_option_flags(p.add_argument_group("validity (docs/validity.md)"), EvalOptions, VALIDITY_FIELDS)


def add_progress_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def add_shard_flag(p: argparse.ArgumentParser) -> None:
    """``--shard`` exists only where a merge can combine the slices (evaluate, check)."""
    p.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="do only slice I of N (whole tasks, deterministic); combine the N output dirs with `biocoder merge`",
    )


def add_denominator_flags(p: argparse.ArgumentParser) -> None:
    """What pass@k is over, and what may be left out of it (docs/formats.md, exit statuses)."""
    p.add_argument(
        "--task-ids",
        default=None,
        metavar="IDS",
        help="evaluate this subset of the config: comma-separated task ids, or @FILE with one id per line "
        "(default: every task of the config)",
    )
    p.add_argument(
        "--allow-missing",
        action="store_true",
        help="tasks of the set without samples count as 0 correct (default: exit 1 and name them)",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="score what can be scored when goldens fail in this environment or sandboxes keep failing; "
        "the headline is labelled partial (default: exit 3, resp. 4)",
    )
    p.add_argument(
        "--allow-short-k",
        action="store_true",
        help="report pass@k for a k some task has fewer samples than, over the tasks that have k, labelled "
        "(default: that pass@k is undefined: it is never averaged over another task set than pass@1)",
    )


# ---------------------------------------------------------------------------- values


def eval_options(args: argparse.Namespace, *, validity: bool) -> Any:
    """The engine options from the parsed flags: the engine and executor groups (:func:`add_engine_flags`),
    and the validity group when the command has it (:func:`add_validity_flags`); fields outside the
    command's groups keep their defaults."""
    from biocoder_metric.execution import EvalOptions

    names = ENGINE_FIELDS + SCALE_FIELDS + (VALIDITY_FIELDS if validity else ())
    return options_from_args(EvalOptions, args, names=names)


def run_options(**values: Any) -> Any:
    """The typed :class:`~biocoder_metric.evaluation.RunOptions` of a command; a bad value is a usage error."""
    from biocoder_metric.evaluation import RunOptions

    try:
        return RunOptions(**values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise UsageError(f"--k must be comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise UsageError(f"--k values must be >= 1, got {text!r}")
    return ks


def parse_task_ids(text: str | None) -> list[str] | None:
    """``--task-ids``: ``a,b,c`` or ``@file`` (one id per line, ``#`` comments)."""
    if not text:
        return None
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"--task-ids: cannot read {path}: {exc}") from None
        ids = [ln.split("#", 1)[0].strip() for ln in lines]
    else:
        ids = [x.strip() for x in text.split(",")]
    ids = [x for x in ids if x]
    if not ids:
        raise UsageError(f"--task-ids {text!r} names no task")
    return ids


def parse_shard_flag(text: str | None):
    """The parsed ``--shard`` value, or None when it was not given."""
    if not text:
        return None
    from biocoder_metric.execution.shard import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def read_samples(path: str | Path) -> list[dict[str, Any]]:
    """Samples from a JSONL file (:func:`biocoder_metric.samples.read_samples`); errors name ``file:line``."""
    from biocoder_metric.errors import SamplesError
    from biocoder_metric.samples import read_samples as read

    try:
        return read(path)
    except SamplesError as exc:
        raise UsageError(str(exc)) from None


def load_problems(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The task rows of ``--tasks FILE``, else of ``--config`` (from ``--source-dir`` or the cache)."""
    from biocoder_dataset.configs import load_problems as load

    if args.tasks:  # a task set built with `biocoder build tasks` (or by hand)
        from biocoder_dataset.task_file import load_task_rows

        try:
            return load_task_rows(args.tasks)
        except ValueError as exc:
            raise UsageError(f"cannot load --tasks {args.tasks}: {exc}") from None
    try:
        return load(args.config, source_dir=args.source_dir)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        raise UsageError(f"cannot load config {args.config!r}: {exc}") from None


def engine_errors() -> tuple[type[Exception], ...]:
    """The engine's input and environment errors: each becomes a usage error (exit 2) at the CLI."""
    from biocoder_metric.errors import EvalInputError, ResultsMismatchError, ResultsWriteError, SandboxError
    from biocoder_metric.execution.harness import HarnessError

    return (EvalInputError, HarnessError, ResultsMismatchError, ResultsWriteError, SandboxError)
