"""The ``biocoder`` command: one module per sub-command, named after it.

This package only parses arguments and dispatches. Each command module has a
``register(subparsers)`` that adds its parser and sets ``func``; flag groups shared by
several commands live in :mod:`.common` and are built from the options dataclasses by
:mod:`.flags`, so no default is written twice. The work itself is in the stage packages.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from biocoder_metric.cli.errors import UsageError

#: Command modules (``biocoder_metric.cli.<name>``), in the order ``--help`` lists them.
COMMANDS = (
    "data",  # data export | data push
    "generate",
    "run",
    "push",
    "evaluate",
    "check",
    "merge",  # of --shard runs
    "report",
    "compare",
    "build",  # build extract | select | prompts | tasks | run | serve | harness
    "audit",
    "serve",  # the verifier over HTTP, for RL trainers
)

__all__ = ["COMMANDS", "UsageError", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biocoder", description="BioCoder benchmark: data, generation, sandboxed evaluation, reports."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"biocoder_metric.cli.{name}")
        except ModuleNotFoundError as exc:  # an optional stage whose extra is not installed
            if exc.name and exc.name.split(".")[0] in ("biocoder_dataset", "biocoder_metric"):
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"biocoder {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished results are kept and a rerun resumes", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
