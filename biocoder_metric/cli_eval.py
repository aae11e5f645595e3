"""``biocoder evaluate`` and ``biocoder check``: thin CLI adapters over the execution engine.

``evaluate`` reads a samples JSONL file (docs/formats.md), judges every sample in a
sandbox, and writes per-sample results plus ``summary.json`` to ``--out``; rerunning the
same command resumes. ``check`` runs every golden through the same path and says, per
task, ``pass`` or why not (the harness sanity check to run before blaming a model).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from biocoder_metric.cli import UsageError

DEFAULT_KS = "1,5,10"


def _add_engine_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="demo", help="dataset config (default: demo, embedded, no download)")
    p.add_argument("--tasks", default=None, metavar="FILE",
                   help="evaluate the task rows in FILE (JSON/JSONL, e.g. from `biocoder build tasks`) instead of --config")
    p.add_argument("--source-dir", default=None, help="local folder with the upstream files (no download)")
    p.add_argument(
        "--sandbox",
        default="auto",
        choices=("auto", "docker", "bwrap", "none"),
        help="execution backend (default: auto = safest available)",
    )
    p.add_argument(
        "--allow-unsafe",
        action="store_true",
        help="permit --sandbox none: run generated code on this machine unisolated",
    )
    p.add_argument("--image", default=None, help="Docker image for --sandbox docker (default: the backend's)")
    p.add_argument("--workers", type=int, default=2, help="parallel sandboxes (default: 2)")
    p.add_argument("--fuzz-cases", type=int, default=10, help="fuzz cases per harness task (default: 10)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default: 10)")
    p.add_argument("--memory-mb", type=int, default=2048, help="memory limit per case in MiB (default: 2048)")
    p.add_argument("--seed", type=int, default=0, help="fuzz seed (default: 0)")
    p.add_argument(
        "--golden-cache", default=None, help="golden output cache dir (default: ~/.cache/biocoder/golden)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    _add_scale_flags(p)


def _add_scale_flags(p: argparse.ArgumentParser) -> None:
    """Where sandbox jobs run (docs/scale.md)."""
    p.add_argument(
        "--executor",
        default="local",
        choices=("local", "ray"),
        help="local (default) or ray: one sandbox pool per node of a Ray cluster (pip install 'biocoder-eval[ray]')",
    )
    p.add_argument(
        "--ray-address", default=None, help="Ray cluster to join: auto | HOST:PORT | ray://HOST:10001 (default: RAY_ADDRESS or a new local cluster)"
    )
    p.add_argument(
        "--workers-per-node", type=int, default=None, help="--executor ray: sandboxes per node (default: the node's CPUs)"
    )


def _add_shard_flag(p: argparse.ArgumentParser) -> None:
    """``--shard`` exists only where a merge can combine the slices (evaluate, check)."""
    p.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="do only slice I of N (whole tasks, deterministic); combine the N output dirs with `biocoder merge`",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    ev = subparsers.add_parser(
        "evaluate",
        help="judge generated samples in a sandbox and compute pass@k",
        description="Judge samples (JSONL lines {task_id, completion|solution}) and write results.jsonl + summary.json. "
        "Rerunning the same command resumes where it stopped.",
    )
    ev.add_argument("--samples", default=None, help="samples JSONL file (or --samples-dir)")
    ev.add_argument("--out", required=True, help="output directory (results.jsonl, summary.json, resume log)")
    ev.add_argument(
        "--k", default=DEFAULT_KS, help=f"comma-separated k values for pass@k (default: {DEFAULT_KS})"
    )
    ev.add_argument(
        "--overwrite",
        action="store_true",
        help="discard results in --out that came from different inputs/options",
    )
    _add_engine_flags(ev)
    _add_validity_flags(ev)
    _add_denominator_flags(ev)
    from biocoder_metric.reporting.eval_extras import add_evaluate_flags

    add_evaluate_flags(ev)  # --samples-dir, --upstream-results, --metrics
    _add_shard_flag(ev)
    ev.set_defaults(func=cmd_evaluate)

    ck = subparsers.add_parser(
        "check",
        help="run every golden solution through the harness and report pass or why not",
        description="Run each task's golden solution as a candidate; print a table (or JSON) of pass / golden_fails / no_harness.",
    )
    ck.add_argument("--out", default=None, help="also write check.json to this directory")
    ck.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ck.add_argument("--strict", action="store_true", help="exit 1 unless every task passes")
    _add_engine_flags(ck)
    _add_shard_flag(ck)
    ck.set_defaults(func=cmd_check)


def _add_denominator_flags(p: argparse.ArgumentParser) -> None:
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


#: Exit statuses of ``biocoder evaluate`` besides 0 (ok) and 2 (usage / input error).
EXIT_MISSING_TASKS = 1
EXIT_GOLDEN_FAILS = 3
EXIT_INFRA_ERRORS = 4


# ---------------------------------------------------------------------------- helpers


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise UsageError(f"--k must be comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise UsageError(f"--k values must be >= 1, got {text!r}")
    return ks


def read_samples(path: str | Path) -> list[dict[str, Any]]:
    """Samples from a JSONL file; every problem is reported as ``file:line``."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"samples file {path} does not exist")
    out = []
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_no = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UsageError(
            f"{path}:{line_no}: not UTF-8 (byte {data[exc.start]:#04x} at column {column}); "
            "samples files are UTF-8 JSON Lines"
        ) from None
    with io.StringIO(text, newline=None) as fh:  # universal newlines, as text-mode open() reads
        for number, line in enumerate(fh, start=1):
            where = f"{path}:{number}"
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UsageError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise UsageError(f"{where}: JSON nested too deeply to be a sample") from None
            if not isinstance(obj, dict):
                raise UsageError(f"{where}: expected a JSON object, got {type(obj).__name__}")
            if not isinstance(obj.get("task_id"), str):
                raise UsageError(f"{where}: field 'task_id' missing or not a string")
            text = obj.get("completion", obj.get("solution"))
            if text is None:
                raise UsageError(f"{where}: task {obj['task_id']}: needs a 'completion' or 'solution' field")
            if not isinstance(text, str):
                raise UsageError(
                    f"{where}: task {obj['task_id']}: 'completion'/'solution' must be a string, got {type(text).__name__}"
                )
            for field, value in (("task_id", obj["task_id"]), ("completion", text)):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise UsageError(
                        f"{where}: field {field!r} holds an unpaired surrogate escape (e.g. \\ud800), "
                        "which is not text and cannot be run or written"
                    ) from None
            out.append(
                {"task_id": obj["task_id"], "completion": text, "prompt": obj.get("prompt"), "where": where}
            )
    if not out:
        raise UsageError(f"{path}: no samples")
    return out


def _options(args: argparse.Namespace):
    from biocoder_metric.execute import EvalOptions

    try:
        return EvalOptions(
            sandbox=args.sandbox,
            allow_unsafe=args.allow_unsafe,
            image=args.image,
            workers=args.workers,
            fuzz_cases=args.fuzz_cases,
            timeout_s=args.timeout,
            memory_mb=args.memory_mb,
            seed=args.seed,
            golden_cache_dir=args.golden_cache,
            **_scale_options(args),
            **_validity_options(args),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _add_validity_flags(p: argparse.ArgumentParser) -> None:
    """Benchmark-validity switches of ``evaluate`` (docs/validity.md)."""
    p.add_argument(
        "--rosalind-check",
        default="rosalind",
        choices=("rosalind", "exact"),
        help="rosalind (default): judge Rosalind answers by the problem's own rules (tolerance, any valid "
        "answer, any order); exact: upstream's stripped text equality",
    )
    p.add_argument(
        "--plus",
        action="store_true",
        help="also judge edge-value and extra fuzz cases; reported as a separate headline pass@k (plus)",
    )
    p.add_argument(
        "--include-weak",
        action="store_true",
        help="score tasks whose harness the audit found weak (excluded from the headline by default)",
    )


def _validity_options(args: argparse.Namespace) -> dict[str, Any]:
    """The validity fields of EvalOptions (absent on commands without these flags: defaults)."""
    return {
        "rosalind_check": getattr(args, "rosalind_check", None) or "rosalind",
        "plus": bool(getattr(args, "plus", False)),
        "include_weak": bool(getattr(args, "include_weak", False)),
    }


def _scale_options(args: argparse.Namespace) -> dict[str, Any]:
    """The executor fields of EvalOptions (absent on callers that build their own Namespace)."""
    return {
        "executor": getattr(args, "executor", None) or "local",
        "ray_address": getattr(args, "ray_address", None),
        "workers_per_node": getattr(args, "workers_per_node", None),
    }


def _shard(args: argparse.Namespace):
    """The parsed ``--shard`` or None."""
    text = getattr(args, "shard", None)
    if not text:
        return None
    from biocoder_metric.shard import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _problems(args: argparse.Namespace) -> list[dict[str, Any]]:
    from biocoder_dataset.configs import load_problems

    if getattr(args, "tasks", None):  # a task set built with `biocoder build tasks` (or by hand)
        from biocoder_dataset.task_file import load_task_rows

        try:
            return load_task_rows(args.tasks)
        except ValueError as exc:
            raise UsageError(f"cannot load --tasks {args.tasks}: {exc}") from None
    try:
        return load_problems(args.config, source_dir=args.source_dir)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        raise UsageError(f"cannot load config {args.config!r}: {exc}") from None


def _engine_errors():
    from biocoder_metric.execute import EvalInputError
    from biocoder_metric.harness import HarnessError
    from biocoder_metric.results import ResultsMismatchError, ResultsWriteError
    from biocoder_metric.sandbox import SandboxError

    return (EvalInputError, HarnessError, ResultsMismatchError, ResultsWriteError, SandboxError)


# ---------------------------------------------------------------------------- commands


def cmd_evaluate(args: argparse.Namespace) -> int:
    from biocoder_metric.execute import run_evaluation
    from biocoder_metric.report import build_summary, render_summary
    from biocoder_metric.reporting import eval_extras
    from biocoder_metric.results import SUMMARY_NAME, write_json_atomic

    ks = parse_ks(args.k)
    eval_extras.requested_metrics(args)  # a bad --metrics fails before anything runs
    if getattr(args, "samples_dir", None):  # upstream layout: task ids come from the folder names
        problems = _problems(args)
        samples, origin = eval_extras.load_samples(args, problems, read_samples)
    else:
        samples, origin = eval_extras.load_samples(args, [], read_samples)
        problems = _problems(args)
    options = _options(args)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    extra_fingerprint: dict[str, Any] = {"config": args.config}
    from biocoder_metric.execute import GoldenFailuresError, MissingTasksError

    task_ids = parse_task_ids(getattr(args, "task_ids", None))
    allow_missing = bool(getattr(args, "allow_missing", False))
    all_samples = samples
    shard, shard_info = _shard(args), None
    if shard is not None:  # a slice of whole tasks; `biocoder merge` checks completeness
        from biocoder_metric.shard import plan

        try:
            samples, shard_info = plan(problems, samples, shard, args.config, options, task_ids, allow_missing)
        except _engine_errors() as exc:
            raise UsageError(str(exc)) from None
        extra_fingerprint["shard"] = {"index": shard.index, "count": shard.count}
    if shard is not None:  # a shard holds some tasks by construction; `biocoder merge` applies the rule
        task_ids = sorted({s["task_id"] for s in samples} & set(task_ids or {r["task_id"] for r in problems}))
    started = time.monotonic()
    try:
        run = run_evaluation(
            problems,
            samples,
            options,
            out_dir=out,
            progress=not args.no_progress,
            overwrite=args.overwrite,
            extra_fingerprint=extra_fingerprint,
            task_ids=task_ids,
            allow_missing=allow_missing,
            allow_partial=bool(getattr(args, "allow_partial", False)),
        )
        if shard_info is not None:
            from biocoder_metric.shard import SHARD_FILE

            write_json_atomic(out / SHARD_FILE, shard_info)
    except MissingTasksError as exc:
        print(f"biocoder evaluate: error: {exc}", file=sys.stderr)
        return EXIT_MISSING_TASKS
    except GoldenFailuresError as exc:
        print(f"biocoder evaluate: error: {exc}", file=sys.stderr)
        return EXIT_GOLDEN_FAILS
    except _engine_errors() as exc:
        raise UsageError(str(exc)) from None
    task_config = {r["task_id"]: r.get("config") or args.config for r in problems}
    run_info = {
        "config": args.config,
        "sandbox": run.sandbox,
        "environment_id": run.environment_id,
        **options.fingerprint(),
        **eval_extras.samples_identity(args, all_samples),  # the whole input, also in a shard
    }
    summary = build_summary(
        run.results,
        ks,
        {t: task_config[t] for t in {r.task_id for r in run.results} | set(run.missing)},
        run_info,
        task_set=run.task_set,
        missing=run.missing,
    )
    eval_extras.extend_summary(summary, args, run.results, problems)
    try:
        write_json_atomic(out / SUMMARY_NAME, summary)
        write_json_atomic(
            out / "timing.json",
            {
                "wall_s": round(time.monotonic() - started, 3),
                "samples_run": run.executed,
                "samples_resumed": len(run.results) - run.executed,
            },
        )
    except _engine_errors() as exc:
        raise UsageError(str(exc)) from None
    upstream = eval_extras.write_upstream(args, run.results, origin)
    print(render_summary(summary))
    if eval_extras.render_text_metrics(summary):
        print(eval_extras.render_text_metrics(summary))
    print(f"\nresults: {out / 'results.jsonl'}\nsummary: {out / SUMMARY_NAME}", file=sys.stderr)
    if upstream:
        print(f"upstream results.json: {upstream}", file=sys.stderr)
    if run.infra_errors and not getattr(args, "allow_partial", False):
        print(
            f"biocoder evaluate: error: {len(run.infra_errors)} samples hit sandbox errors on 3 fresh sandboxes "
            "each and are left out of n and c (listed in summary.json 'infra_errors'); rerun the same "
            "command to retry them, or pass --allow-partial to accept this partial score",
            file=sys.stderr,
        )
        return EXIT_INFRA_ERRORS
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from biocoder_metric.execute import check_goldens
    from biocoder_metric.report import render_check_table
    from biocoder_metric.results import write_json_atomic

    problems = _problems(args)
    options = _options(args)
    shard = _shard(args)
    all_task_ids = sorted(r["task_id"] for r in problems)
    if shard is not None:
        from biocoder_metric.shard import select_problems

        problems = select_problems(problems, shard)
    info: dict[str, Any] = {}
    try:
        checks = check_goldens(problems, options, progress=not args.no_progress, run_info=info)
    except _engine_errors() as exc:
        raise UsageError(str(exc)) from None
    report = {"config": args.config, **info, **options.fingerprint(), "tasks": checks}
    if shard is not None:
        report["shard"] = {"index": shard.index, "count": shard.count, "all_tasks": all_task_ids}
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_json_atomic(out / "check.json", report)
        except (OSError, *_engine_errors()) as exc:
            raise UsageError(f"cannot write {out / 'check.json'}: {exc}") from None
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print(render_check_table(checks))
    if args.strict and any(c["status"] != "pass" for c in checks):
        return 1
    return 0
