"""``biocoder push``: publish a run directory to the Hub (``--dry-run``: build the bundle only)."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    push = subparsers.add_parser(
        "push",
        help="publish a run directory (scores, per-sample results, settings) to the Hugging Face Hub",
        description="Build a dataset repo from a run directory: README card, per-sample Parquet, summary, settings, "
        "and print the model-index block for the model card. --dry-run writes the bundle locally only.",
    )
    push.add_argument("--results", required=True, help="run directory (summary.json + results.jsonl)")
    push.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo to create/update")
    push.add_argument("--dataset-id", default=None, help="Hub id of the BioCoder dataset the scores refer to")
    push.add_argument(
        "--model-name", default=None, help="model name for the card (default: from samples.meta.json)"
    )
    push.add_argument(
        "--dry-run", action="store_true", help="write the bundle to --bundle-dir and upload nothing"
    )
    push.add_argument(
        "--bundle-dir",
        default=None,
        help="an empty folder to build the bundle in (default: RESULTS/hub-bundle for --dry-run, a temporary folder otherwise)",
    )
    push.add_argument(
        "--previous",
        default=None,
        metavar="DIR",
        help="an earlier bundle or a local snapshot of the repo: its runs stay in the card (default for a real push: "
        "the details files already in the Hub repo)",
    )
    push.add_argument("--private", action="store_true", help="create the repo private")
    push.add_argument("--token", default=None, help="Hub token (default: the logged-in one / HF_TOKEN)")
    push.set_defaults(func=cmd_push)


def _existing_details(repo_id: str, token: str | None) -> str | None:
    """A local copy of the details files already in the Hub repo (None when it does not exist yet)."""
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(
            repo_id, repo_type="dataset", token=token, allow_patterns=["*/results_*", "*/samples_*"]
        )
    except Exception as exc:  # noqa: BLE001 - a new repo, or no network: the card then lists this run only
        print(
            f"biocoder push: no earlier runs read from {repo_id} ({type(exc).__name__}); the card lists this run",
            file=sys.stderr,
        )
        return None


def cmd_push(args: argparse.Namespace) -> int:
    from biocoder_metric.reporting.hub import DEFAULT_DATASET_ID, PushError, build_bundle, upload_bundle

    if args.bundle_dir:
        bundle = Path(args.bundle_dir)
    elif args.dry_run:
        bundle = Path(args.results) / "hub-bundle"  # ours: rebuilt on every dry run
        if bundle.is_dir():
            shutil.rmtree(bundle)
    else:
        bundle = Path(tempfile.mkdtemp(prefix="biocoder-push-"))
    previous = args.previous
    if previous is None and not args.dry_run:
        previous = _existing_details(args.repo_id, args.token)
    try:
        info = build_bundle(
            args.results,
            bundle,
            repo_id=args.repo_id,
            dataset_id=args.dataset_id or DEFAULT_DATASET_ID,
            model_name=args.model_name,
            previous=previous,
        )
    except PushError as exc:
        raise UsageError(str(exc)) from None
    print(f"bundle for {args.repo_id} in {info['folder']}:", file=sys.stderr)
    for name in info["files"]:
        print(f"  {name}", file=sys.stderr)
    print("\n# model-index block for the model card (README.md front matter):")
    print(info["model_index"], end="")
    if args.dry_run:
        print(
            f"\ndry run: nothing uploaded; the files above are exactly what would be pushed to {args.repo_id}",
            file=sys.stderr,
        )
        return 0
    try:
        url = upload_bundle(bundle, args.repo_id, private=args.private, token=args.token)
    except Exception as exc:  # noqa: BLE001 - any Hub/network failure: say so, keep the bundle for a retry
        print(
            f"biocoder push: upload to {args.repo_id} failed: {type(exc).__name__}: {exc}\n"
            f"the bundle is kept in {bundle}",
            file=sys.stderr,
        )
        return 1
    print(f"\nuploaded to {url}", file=sys.stderr)
    return 0
