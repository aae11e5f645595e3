"""``biocoder serve``: the verifier behind HTTP for RL trainers (docs/service.md).

Flags only: the work is :class:`biocoder_metric.service.verifier.Verifier` (a warm engine session)
and :func:`biocoder_metric.service.app.create_app` (the routes).
"""

from __future__ import annotations

import argparse
import sys

from biocoder_metric.cli.common import (
    add_engine_flags,
    add_validity_flags,
    eval_options,
    load_problems,
    parse_task_ids,
)
from biocoder_metric.cli.errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="serve sandboxed verdicts over HTTP (POST /v1/judge) for RL trainers",
        description="Load the task set, compute golden outputs once, keep the sandboxes warm and judge samples "
        "on request: the verdicts `biocoder evaluate` gives. Binds to loopback unless --host and --token say otherwise.",
    )
    add_engine_flags(p)
    add_validity_flags(p)
    p.add_argument("--task-ids", default=None, help="comma-separated task ids to serve (default: all)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)"
    )
    p.add_argument("--port", type=int, default=8765, help="port (default: 8765)")
    p.add_argument(
        "--token",
        default=None,
        help="bearer token every request must carry (required to bind anything but loopback; "
        "default: the server-token setting, docs/ARCHITECTURE.md)",
    )
    p.add_argument(
        "--queue", type=int, default=None, help="samples admitted at once before 429 (default: 4 x sandboxes)"
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from biocoder_dataset import settings
    from biocoder_metric.service.app import create_app, is_loopback
    from biocoder_metric.service.verifier import Verifier

    token = args.token or settings.env_str(settings.ENV_SERVER_TOKEN) or None
    if not is_loopback(args.host) and not token:
        raise UsageError(
            f"--host {args.host} is reachable from other machines, and the server runs submitted code (in its "
            "sandboxes): give --token (or set the server-token setting) so only your trainer can use it"
        )
    try:
        import uvicorn
    except ImportError:
        raise UsageError(
            "biocoder serve needs the service extra: pip install 'biocoder-eval[service]'"
        ) from None
    options = eval_options(args, validity=True)
    problems = load_problems(args)
    print(f"biocoder serve: loading {len(problems)} tasks and their golden outputs ...", file=sys.stderr)
    verifier = Verifier(
        problems, options, task_ids=parse_task_ids(args.task_ids), progress=not args.no_progress
    )
    scored = sum(1 for t in verifier.tasks() if t["scored"])
    print(
        f"biocoder serve: {scored} of {len(verifier.by_id)} tasks scored, sandbox {verifier.sandbox}, "
        f"{verifier.concurrency} at once; listening on http://{args.host}:{args.port}",
        file=sys.stderr,
        flush=True,
    )
    app = create_app(verifier, token=token, queue_limit=args.queue)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        verifier.close()
    return 0
