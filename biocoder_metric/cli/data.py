"""``biocoder data export`` and ``biocoder data push``: flags only, the work is in :mod:`biocoder_dataset.export`."""

from __future__ import annotations

import argparse
import json

from biocoder_dataset import settings
from biocoder_dataset.errors import DatasetError
from biocoder_metric.cli.errors import UsageError


def _usage_error(exc: Exception) -> UsageError:
    return UsageError(str(exc))


def _cmd_export(args: argparse.Namespace) -> int:
    from biocoder_dataset.export import export, export_task_file

    try:
        if args.tasks:
            result = export_task_file(args.out, args.tasks, overwrite=args.overwrite)
        else:
            result = export(
                args.out,
                configs=args.configs,
                source_dir=args.source_dir,
                verify=False if args.skip_checksum else None,
                overwrite=args.overwrite,
            )
    except DatasetError as exc:
        raise _usage_error(exc) from exc
    summary = {name: {k: c[k] for k in ("rows", "executable", "kinds")} for name, c in result.counts.items()}
    print(json.dumps({"out_dir": str(result.out_dir), "configs": summary}, indent=2))
    return 0


def _cmd_push(args: argparse.Namespace) -> int:
    from biocoder_dataset.export import push

    try:
        url = push(args.folder, args.repo_id, private=args.private, token=args.token)
    except DatasetError as exc:
        raise _usage_error(exc) from exc
    print(url)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``data export`` and ``data push`` to the ``biocoder`` command."""
    data = subparsers.add_parser("data", help="build and publish the BioCoder dataset (Parquet + card)")
    sub = data.add_subparsers(dest="data_command", metavar="DATA_COMMAND")
    data.set_defaults(func=lambda args: (data.print_help(), 2)[1])

    exp = sub.add_parser("export", help="write <out>/<config>/test-00000-of-00001.parquet and README.md")
    exp.add_argument("--out", required=True, help="output folder (written atomically)")
    exp.add_argument(
        "--source-dir",
        default=None,
        help=f"local copy of the upstream files (default: ${settings.ENV_SOURCE_DIR}, else download)",
    )
    exp.add_argument("--configs", default=None, help="comma-separated configs (default: all)")
    exp.add_argument(
        "--tasks",
        default=None,
        metavar="FILE",
        help="export the task rows in FILE (JSON/JSONL from `biocoder build tasks`) instead of the upstream configs",
    )
    exp.add_argument("--overwrite", action="store_true", help="replace an existing non-empty output folder")
    exp.add_argument(
        "--skip-checksum",
        action="store_true",
        help=f"do not verify upstream sha256 pins (development only; same as {settings.ENV_SKIP_CHECKSUM}=1)",
    )
    exp.set_defaults(func=_cmd_export)

    psh = sub.add_parser("push", help="upload an export folder to a Hugging Face dataset repo")
    psh.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo (created if missing)")
    psh.add_argument("--folder", required=True, help="a folder written by `biocoder data export`")
    psh.add_argument("--private", action="store_true", help="create the repo as private")
    psh.add_argument("--token", default=None, help="Hub token (default: the logged-in token / $HF_TOKEN)")
    psh.set_defaults(func=_cmd_push)
