"""``biocoder build extract|select|prompts|tasks|run|serve``: build a BioCoder-style task set from a repository.

Flags only; the work is in :mod:`biocoder_metric.build`. The ``build`` group is extensible:
another module adds a sub-command with :func:`register_build_command` (at import time) and is
listed in :data:`BUILD_COMMAND_MODULES`, so the group's parser is assembled in one place.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from biocoder_metric.cli.common import add_progress_flag
from biocoder_metric.cli.flags import add_option_flags, apply_overrides

#: Modules that add ``build`` sub-commands through :func:`register_build_command` when imported.
BUILD_COMMAND_MODULES: tuple[str, ...] = ("biocoder_metric.cli.build_harness",)


@dataclass
class BuildCommand:
    """One ``biocoder build <name>`` sub-command."""

    help: str
    configure: Callable[[argparse.ArgumentParser], None]  # adds the flags
    run: Callable[[argparse.Namespace], int]


#: name -> command, in ``--help`` order.
BUILD_COMMANDS: dict[str, BuildCommand] = {}


def register_build_command(
    name: str,
    help: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
) -> None:
    """Add ``biocoder build <name>`` (errors of type ValueError/FileNotFoundError become usage errors)."""
    if name in BUILD_COMMANDS:
        raise ValueError(f"biocoder build {name}: registered twice")
    BUILD_COMMANDS[name] = BuildCommand(help, configure, run)


def _usage(exc: Exception) -> Exception:
    from biocoder_metric.cli.errors import UsageError

    return UsageError(str(exc))


def _guarded(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        logging.basicConfig(
            level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
            format="%(levelname)s %(name)s: %(message)s",
        )
        try:
            return run(args)
        except (ValueError, FileNotFoundError, RuntimeError) as exc:
            raise _usage(exc) from exc

    return call


def _print(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=str))


# ------------------------------------------------------------------------------------ flags
def _repo_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", required=True, help="folder of the repository to read")
    p.add_argument(
        "--repo-name",
        required=True,
        help="OWNER/NAME of the repository (recorded as upstream's 'owner,name')",
    )
    p.add_argument("--language", required=True, choices=("python", "java"))
    p.add_argument(
        "--package-dir", default=None, help="only read this sub-folder of --repo (e.g. src/main/java)"
    )


def _select_flags(p: argparse.ArgumentParser) -> None:
    from biocoder_metric.build.select import SelectConfig

    p.add_argument(
        "--select-config", default=None, help="JSON file of select settings (field names of SelectConfig)"
    )
    add_option_flags(
        p.add_argument_group("selection rules (override --select-config)"), SelectConfig, overrides_only=True
    )
    p.add_argument(
        "--existing",
        action="append",
        default=[],
        metavar="FILE",
        help="existing BioCoder tasks (JSON/JSONL with golden_code/goldenCode) to de-duplicate against; repeatable",
    )


def _model_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model", default=None, help="registry model for summaries (models.yaml name, NAME@VERSION)"
    )
    p.add_argument(
        "--models-file", default=None, help="models file for --model (default: the packaged models.yaml)"
    )
    p.add_argument(
        "--api-base",
        default=None,
        help="OpenAI-compatible endpoint for summaries, e.g. http://127.0.0.1:8000/v1",
    )
    p.add_argument("--api-model", default=None, help="model name to ask the endpoint for")
    p.add_argument(
        "--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the endpoint's key"
    )
    p.add_argument(
        "--batch-size", type=int, default=8, help="concurrent requests per batch for --api-base (default 8)"
    )
    p.add_argument("--max-new-tokens", type=int, default=None, help="length limit of each summary")


def _common(p: argparse.ArgumentParser) -> None:
    add_progress_flag(p)
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also log progress details (skipped files are always logged)",
    )


def _select_config(args: argparse.Namespace) -> Any:
    from biocoder_metric.build.select import SelectConfig

    cfg = apply_overrides(
        SelectConfig.from_file(args.select_config) if args.select_config else SelectConfig(), args
    )
    if not 0.0 < cfg.dedup_threshold <= 1.0:
        raise ValueError(f"--dedup-threshold must be in (0, 1], got {cfg.dedup_threshold}")
    return cfg


def _backend(args: argparse.Namespace) -> Any:
    from biocoder_metric.build.prompts import make_backend

    return make_backend(
        args.model,
        args.models_file,
        args.api_base,
        args.api_model,
        os.environ.get(args.api_key_env) if args.api_key_env else None,
        args.batch_size,
        args.max_new_tokens,
    )


# ------------------------------------------------------------------------------------ commands
def _extract_flags(p: argparse.ArgumentParser) -> None:
    _repo_flags(p)
    p.add_argument(
        "--out", required=True, help="functions JSONL (also writes <stem>.files.jsonl and <stem>.report.json)"
    )
    _common(p)


def _cmd_extract(args: argparse.Namespace) -> int:
    from biocoder_metric.build.pipeline import extract_stage

    rep = extract_stage(
        args.repo, args.repo_name, args.language, args.out, args.package_dir, not args.no_progress
    )
    _print(
        {k: v for k, v in rep.items() if k != "skipped_files"} | {"skipped": rep["skipped_files"]["counts"]}
    )
    return 0


def _select_cmd_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--functions", required=True, help="functions JSONL from `biocoder build extract`")
    p.add_argument("--out", required=True, help="selected functions JSONL")
    p.add_argument("--report", default=None, help="report JSON (default: <out stem>.report.json)")
    _select_flags(p)
    _common(p)


def _cmd_select(args: argparse.Namespace) -> int:
    from biocoder_metric.build.pipeline import select_stage

    rep = select_stage(args.functions, args.out, args.report, _select_config(args), args.existing)
    _print(
        {
            "input": rep["input"],
            "kept": rep["kept"],
            "dropped": {n: r["dropped"] for n, r in rep["rules"].items()},
        }
    )
    return 0


def _prompts_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--functions", required=True, help="selected functions JSONL")
    p.add_argument("--out", required=True, help="prompted functions JSONL")
    p.add_argument(
        "--extracted",
        default=None,
        help="the full functions JSONL from `extract` (context: other functions, classes, file records); "
        "default: --functions itself",
    )
    _model_flags(p)
    _common(p)


def _cmd_prompts(args: argparse.Namespace) -> int:
    from biocoder_metric.build.pipeline import prompts_stage

    _print(prompts_stage(args.functions, args.out, args.extracted, _backend(args), not args.no_progress))
    return 0


def _tasks_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--functions", required=True, help="prompted functions JSONL from `biocoder build prompts`"
    )
    p.add_argument(
        "--out", required=True, help="task rows JSONL (for `evaluate --tasks` / `data export --tasks`)"
    )
    p.add_argument("--config", default="custom", help="config name written into the rows (default: custom)")
    p.add_argument(
        "--harness",
        action="append",
        default=[],
        metavar="FILE",
        help="harness records (JSON/JSONL with context + function_id, or package/function name); repeatable",
    )
    _common(p)


def _cmd_tasks(args: argparse.Namespace) -> int:
    from biocoder_metric.build.pipeline import tasks_stage

    _print(tasks_stage(args.functions, args.out, args.config, args.harness))
    return 0


def _run_flags(p: argparse.ArgumentParser) -> None:
    _repo_flags(p)
    p.add_argument(
        "--out-dir",
        required=True,
        help="folder for functions/selected/prompted/tasks .jsonl and build_state.json",
    )
    p.add_argument("--config", default="custom", help="config name of the task rows (default: custom)")
    p.add_argument(
        "--harness", action="append", default=[], metavar="FILE", help="harness records; repeatable"
    )
    _select_flags(p)
    _model_flags(p)
    _common(p)


def _cmd_run(args: argparse.Namespace) -> int:
    from biocoder_metric.build.pipeline import run

    _print(
        run(
            args.repo,
            args.repo_name,
            args.language,
            args.out_dir,
            package_dir=args.package_dir,
            select_config=_select_config(args),
            existing=args.existing,
            backend=_backend(args),
            harness=args.harness,
            config=args.config,
            progress=not args.no_progress,
        )
    )
    return 0


def _serve_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="path of a transformers causal LM")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback only)")
    p.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    p.add_argument("--max-batch", type=int, default=8, help="largest generate() batch")


def _cmd_serve(args: argparse.Namespace) -> int:
    from biocoder_metric.build.serve import main

    return main(
        [
            "--model",
            args.model,
            "--host",
            args.host,
            "--port",
            str(args.port),
            "--max-batch",
            str(args.max_batch),
        ]
    )


register_build_command(
    "extract",
    "extract functions/methods of a repository into upstream-shaped JSONL records",
    _extract_flags,
    _cmd_extract,
)
register_build_command(
    "select",
    "filter (size, comment, bio relevance) and de-duplicate extracted functions",
    _select_cmd_flags,
    _cmd_select,
)
register_build_command(
    "prompts",
    "write summary-only and full-context prompts (docstrings or model summaries)",
    _prompts_flags,
    _cmd_prompts,
)
register_build_command(
    "tasks", "turn prompted functions into task rows for `evaluate --tasks`", _tasks_flags, _cmd_tasks
)
register_build_command(
    "run", "all stages, resumably: build your own BioCoder from a repository", _run_flags, _cmd_run
)
register_build_command(
    "serve",
    "serve a local transformers model as an OpenAI-compatible endpoint (loopback)",
    _serve_flags,
    _cmd_serve,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``build`` and its sub-commands to the ``biocoder`` command."""
    for name in BUILD_COMMAND_MODULES:
        importlib.import_module(name)
    build = subparsers.add_parser(
        "build", help="build a BioCoder-style task set from a repository (extract, select, prompts, tasks)"
    )
    sub = build.add_subparsers(dest="build_command", metavar="BUILD_COMMAND")
    build.set_defaults(func=lambda args: (build.print_help(sys.stderr), 2)[1])
    for name, cmd in BUILD_COMMANDS.items():
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.configure(p)
        p.set_defaults(func=_guarded(cmd.run))
