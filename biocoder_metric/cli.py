"""The ``biocoder`` command: one sub-command per pipeline stage.

This module only parses arguments and dispatches. Each ``cli_*`` module owns its
sub-commands (``register(subparsers)`` sets ``func`` on its parsers), so a stage's
flags live next to the code they drive, and this file holds no logic.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Modules that contribute sub-commands, in the order ``--help`` lists them.
_COMMAND_MODULES = (
    "biocoder_dataset.cli_data",  # data export | data push
    "biocoder_metric.cli_gen",  # generate | run | push
    "biocoder_metric.cli_eval",  # evaluate | check
    "biocoder_metric.cli_scale",  # merge (of --shard runs)
    "biocoder_metric.cli_bench",  # bench
    "biocoder_metric.cli_report",  # report | compare
    "biocoder_metric.cli_build",  # build extract | select | prompts | tasks | run | serve
    "biocoder_metric.cli_audit",  # audit
)


class UsageError(Exception):
    """Unusable input: printed without a traceback, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="biocoder", description="BioCoder benchmark: data, generation, sandboxed evaluation, reports.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
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
