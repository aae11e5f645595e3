"""The developer benchmarks, one command: ``python -m benchmarks NAME ...`` from the repo root.

* ``speed``: the engine versus the naive upstream-style runner, side by side (docs/performance.md).
  Prints, per sandbox, throughput (samples/s, cases/s) of both runners, the speed-up with its
  per-repeat pairs, verdict counts and every verdict the two runners disagree on; optionally
  the per-case overhead above the program's own compute and a scaling table. Everything also
  goes to ``--out`` as JSON. Exit status 1 when any verdict disagrees.
* ``scaling``, ``build_extract``, ``synth_compare``: the other modules of this folder, with
  their own flags (``python -m benchmarks NAME --help``; ``python -m benchmarks.NAME`` works too).

Not part of the installed package: nothing in ``biocoder_metric`` or ``biocoder_dataset``
imports this folder, and it uses only their public API.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

#: Benchmarks with their own ``main(argv)``: ``python -m benchmarks NAME ARGS`` hands ARGS over.
DELEGATED = {
    "scaling": "local workers vs a 2-node Ray cluster vs shards + merge (docs/scale.md)",
    "build_extract": "function-extraction throughput of `biocoder build` (docs/build.md)",
    "synth_compare": "synthesised harnesses vs upstream's hand-written ones (docs/synthesis.md)",
    "shipped_harnesses": "executable tasks per config by harness source, synthesis yield (docs/synthesis.md)",
    "reset_cost": "the per-case clean-state reset, timed inside each sandbox (docs/security.md)",
    "strength_cost": "the evaluation-time harness strength check: cost and findings per config (docs/validity.md)",
    "revalidate_shipped": "re-validate the shipped synthesised harnesses under the current gates (docs/synthesis.md)",
    "synth_generalise": "synthesis on fresh projects and upstream tasks, dev | held-out parts (issue #20; docs/synthesis.md)",
    "case_profile": "one case end to end, stage by stage, inside a real sandbox (docs/performance.md)",
    "serve_load": "biocoder serve under load and faults, against biocoder evaluate (docs/service.md)",
    "javac_server": "Java harness construction with a warm javac vs a javac process per compile (docs/synthesis.md)",
    "gpu_generation": "generation throughput of the transformers path on one GPU, batch sizes side by side (docs/generation.md)",
}


class UsageError(Exception):
    """Unusable flags or input: printed without a traceback, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    p = sub.add_parser(
        "speed",
        help="the engine against a naive upstream-style fresh-process-per-case runner",
        description="Evaluate the same tasks and samples (goldens and AST mutants) with the naive runner "
        "and the engine, interleaved, under each sandbox; print throughput, speed-up and verdict agreement.",
    )
    add_arguments(p)
    for name, text in DELEGATED.items():
        sub.add_parser(name, help=f"{text}; flags: python -m benchmarks {name} --help", add_help=False)
    return parser


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="demo", help="dataset config (default: demo)")
    p.add_argument(
        "--source-dir", default=None, help="local folder with the upstream files (python_public needs it)"
    )
    p.add_argument(
        "--language",
        default="python",
        choices=("python", "java", "all"),
        help="which tasks (default: python)",
    )
    p.add_argument(
        "--kind",
        default="harness",
        choices=("harness", "rosalind", "all"),
        help="which task kinds (default: harness)",
    )
    p.add_argument(
        "--sandbox", default="docker", help="comma-separated sandboxes: docker,bwrap,none (default: docker)"
    )
    p.add_argument("--allow-unsafe", action="store_true", help="permit the 'none' sandbox for both runners")
    p.add_argument("--image", default=None, help="Docker image (docker, and bwrap's root filesystem)")
    p.add_argument(
        "--tasks", type=int, default=None, help="use the first N tasks (by task id) whose golden passes"
    )
    p.add_argument(
        "--all-tasks", action="store_true", help="keep tasks whose golden fails (default: only passing ones)"
    )
    p.add_argument("--task-ids", default=None, help="comma-separated task ids (overrides --tasks)")
    p.add_argument(
        "--samples",
        type=int,
        default=None,
        help="samples per task (default: 20, --quick 4; every 4th is the golden)",
    )
    p.add_argument(
        "--fuzz-cases", type=int, default=None, help="fuzz cases per harness task (default: 10, --quick 2)"
    )
    p.add_argument(
        "--repeats", type=int, default=None, help="interleaved repeats per runner (default: 3, --quick 1)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="parallel sandboxes for BOTH runners (default: all cores)",
    )
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default: 10)")
    p.add_argument("--memory-mb", type=int, default=2048, help="memory limit per case (default: 2048)")
    p.add_argument("--seed", type=int, default=0, help="fuzz seed")
    p.add_argument("--no-naive", action="store_true", help="time the engine only (no comparison)")
    p.add_argument(
        "--no-engine-off",
        action="store_true",
        help="skip the engine with this round's optimisations off (a forked process per case)",
    )
    p.add_argument(
        "--baseline-exec-per-case",
        action="store_true",
        help="docker: the older baseline, one docker exec per program run (default: one per sample, "
        "running a driver, as a careful user writes it)",
    )
    p.add_argument(
        "--overhead", action="store_true", help="also measure per-case overhead above the program's compute"
    )
    p.add_argument(
        "--overhead-cases",
        type=int,
        default=10,
        help="fuzz cases per task in the overhead probe (default: 10)",
    )
    p.add_argument(
        "--scaling", action="store_true", help="also measure engine wall time vs tasks/samples/fuzz/workers"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="CI-sized defaults: 2 tasks, 4 samples, 2 fuzz cases, 1 repeat (explicit flags win)",
    )
    p.add_argument("--out", default=None, help="write the full report as JSON to this file")


def _eval_options(args: argparse.Namespace, sandbox: str) -> Any:
    """The engine options the benchmark's flags describe, for ``sandbox``."""
    from biocoder_metric.execution import EvalOptions

    return EvalOptions(
        sandbox=sandbox,
        allow_unsafe=args.allow_unsafe,
        image=args.image,
        workers=args.workers,
        fuzz_cases=args.fuzz_cases,
        timeout_s=args.timeout,
        memory_mb=args.memory_mb,
        seed=args.seed,
    )


def _select_rows(args: argparse.Namespace, log) -> list[dict[str, Any]]:
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.execution import check_goldens

    rows = [r for r in load_problems(args.config, source_dir=args.source_dir) if r.get("executable")]
    if args.language != "all":
        rows = [r for r in rows if r["language"] == args.language]
    if args.kind != "all":
        rows = [r for r in rows if r["kind"] == args.kind]
    rows.sort(key=lambda r: r["task_id"])
    if args.task_ids:
        want = [t.strip() for t in args.task_ids.split(",") if t.strip()]
        by_id = {r["task_id"]: r for r in rows}
        missing = [t for t in want if t not in by_id]
        if missing:
            raise UsageError(
                f"--task-ids: not executable {args.language} tasks of config {args.config}: {missing}"
            )
        return [by_id[t] for t in want]
    if not rows:
        raise UsageError(f"config {args.config} has no executable {args.language}/{args.kind} tasks")
    if args.all_tasks:
        return rows[: args.tasks] if args.tasks else rows
    # Keep tasks whose golden passes (checked with the engine and its normal golden cache,
    # not timed), so the benchmark measures evaluation work, not skipped tasks.
    sandbox = args.sandboxes[0]
    opts = _eval_options(args, sandbox)
    chosen: list[dict[str, Any]] = []
    want_n = args.tasks or len(rows)
    pos = 0
    while len(chosen) < want_n and pos < len(rows):
        batch = rows[pos : pos + max(want_n - len(chosen), 2) + 2]
        pos += len(batch)
        by_id = {r["task_id"]: r for r in batch}
        passing = []
        for entry in check_goldens(batch, opts, progress=False):
            if entry["status"] == "passed":
                passing.append(by_id[entry["task_id"]])
            else:
                log(
                    f"  skipping {entry['task_id']}: golden {entry['status']}: {str(entry.get('reason'))[:120]}"
                )
        # ... and that the engine scores (not excluded as a weak harness at evaluation time):
        # the baseline cannot tell, so comparing verdicts on excluded tasks would compare nothing.
        for row, (status, reason) in _engine_statuses(passing, opts):
            if status == "ok" and len(chosen) < want_n:
                chosen.append(row)
            elif status != "ok":
                log(f"  skipping {row['task_id']}: {status}: {str(reason)[:120]}")
    if not chosen:
        raise UsageError("no task's golden passes in this sandbox; see `biocoder check`")
    return sorted(chosen, key=lambda r: r["task_id"])


def _engine_statuses(
    rows: list[dict[str, Any]], opts: Any
) -> list[tuple[dict[str, Any], tuple[str, str | None]]]:
    """Each row with the engine's task status (golden phase and harness strength, cached)."""
    from biocoder_metric.execution.engine import Session

    if not rows:
        return []
    session = Session(opts)
    try:
        statuses = session.task_statuses(rows, False)
    finally:
        session.close()
    return [(row, statuses[row["task_id"]]) for row in rows]


def cmd_speed(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """``python -m benchmarks speed``; ``argv`` (the flags as given) is recorded in the report."""
    from benchmarks import speed
    from biocoder_metric.execution import EvalOptions

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    defaults = (
        {"tasks": 2, "samples": 4, "fuzz_cases": 2, "repeats": 1}
        if args.quick
        else {"tasks": None, "samples": 20, "fuzz_cases": 10, "repeats": 3}
    )
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.sandboxes = [s.strip() for s in args.sandbox.split(",") if s.strip()]
    for s in args.sandboxes:
        if s not in ("docker", "bwrap", "none"):
            raise UsageError(f"--sandbox: unknown sandbox {s!r} (docker, bwrap, none)")
    if "none" in args.sandboxes and not args.allow_unsafe:
        raise UsageError("--sandbox none runs generated code unsandboxed on this machine; add --allow-unsafe")
    for key in ("samples", "fuzz_cases", "repeats", "workers"):
        if getattr(args, key) < 1:
            raise UsageError(f"--{key.replace('_', '-')} must be >= 1")
    if args.image is None and any(s in ("docker", "bwrap") for s in args.sandboxes) and args.config != "demo":
        from biocoder_metric.sandbox.image import DEFAULT_IMAGE

        args.image = DEFAULT_IMAGE  # bwrap must run the image's software too, for the same verdicts

    started = time.time()
    rows = _select_rows(args, log)
    samples = speed.make_samples(rows, args.samples)
    options = _eval_options(args, args.sandboxes[0])
    log(
        f"speed: {len(rows)} tasks x {args.samples} samples x {args.fuzz_cases} fuzz cases, "
        f"{args.workers} workers, {args.repeats} repeats, sandboxes {args.sandboxes}"
    )
    report: dict[str, Any] = {
        "command": "python -m benchmarks speed " + shlex.join(argv or []),
        "config": args.config,
        "tasks": [r["task_id"] for r in rows],
        "samples_per_task": args.samples,
        "fuzz_cases": args.fuzz_cases,
        "workers": args.workers,
        "repeats": args.repeats,
        "cpu_count": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
        "sandboxes": {},
    }
    disagreements = 0
    for sandbox in args.sandboxes:
        sb_report = speed.bench_sandbox(
            sandbox,
            rows,
            samples,
            options,
            args.repeats,
            not args.no_naive,
            log,
            engine_off=not args.no_engine_off,
            exec_per_case=args.baseline_exec_per_case,
        )
        entry: dict[str, Any] = {"comparison": sb_report.summary(), "disagreements": sb_report.disagreements}
        disagreements += len(sb_report.disagreements)
        if args.overhead and any(r["language"] == "python" and r["kind"] == "harness" for r in rows):
            entry["overhead"] = speed.measure_overhead(
                sandbox,
                rows,
                EvalOptions(**{**vars(options), "sandbox": sandbox, "fuzz_cases": args.overhead_cases}),
                log=log,
                # --no-naive: the engine's paths only (the baseline's per-case cost is its own run)
                **({"paths": ("engine warm", "engine per-case", "engine cold")} if args.no_naive else {}),
            )
        if args.scaling:
            entry["scaling"] = speed.measure_scaling(sandbox, rows, args.samples, options, args.workers, log)
        report["sandboxes"][sandbox] = entry
        _print_sandbox(sandbox, entry)
    report["loadavg_end"] = os.getloadavg()
    report["elapsed_s"] = round(time.time() - started, 1)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(speed.dumps(report) + "\n", encoding="utf-8")
        log(f"report written to {args.out}")
    return 1 if disagreements else 0


def _print_sandbox(sandbox: str, entry: dict[str, Any]) -> None:
    c = entry["comparison"]
    print(
        f"\n== sandbox {sandbox}: {c['samples']} samples, {c['cases']} candidate cases, "
        f"medians of {c['repeats']} interleaved repeats"
    )
    print(f"{'runner':10} {'wall s':>9} {'samples/s':>10} {'cases/s':>9} {'ms/case':>9}")
    for key in ("naive", "engine", "engine_off"):
        if key in c:
            m = c[key]
            print(
                f"{key:10} {m['wall_s_median']:9.2f} {m['samples_per_s']:10.2f} {m['cases_per_s']:9.2f} {m['ms_per_case']:9.1f}"
            )
    for key in ("speedup_engine_off_over_naive", "speedup_engine_over_engine_off"):
        if key in c:
            print(f"{key}: {c[key]}x")
    if "speedup_engine_over_naive" in c:
        print(
            f"speed-up engine/naive (b/a throughput): {c['speedup_engine_over_naive']}x  per pair: {c['speedup_pairs']}"
        )
    print(f"verdicts: {c['verdicts']}")
    dis = entry["disagreements"]
    print(f"verdict disagreements: {len(dis)}")
    for d in dis[:20]:
        print(
            f"  {d['task_id']} #{d['sample_index']} ({d['sample']}) {d.get('runner', 'engine')}: "
            f"engine={d['engine']} naive={d['naive']}"
        )
    for o in entry.get("overhead", []):
        print(
            f"overhead {o.path:12}: {o.wall_ms_per_case:8.2f} ms/case wall, {o.compute_ms_per_case:8.2f} own compute, "
            f"{o.overhead_ms_per_case:8.2f} overhead (median per case {o.overhead_ms_median}) over {o.cases} cases"
        )
        if o.cpu_ms_per_case is not None:
            print(
                f"         {'':12}  CPU: {o.cpu_ms_per_case:8.2f} ms/case in the sandbox, {o.compute_cpu_ms_per_case:8.2f} "
                f"the program's own, {o.overhead_cpu_ms_per_case:8.2f} overhead"
            )
    for p in entry.get("scaling", []):
        print(
            f"scaling {p['point']:10} tasks={p['tasks']:3} samples/task={p['samples_per_task']:3} fuzz={p['fuzz_cases']:3} "
            f"workers={p['workers']}: {p['cases']:5} cases {p['wall_s']:8.2f} s {p['cases_per_s']:8.2f} cases/s"
        )


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks BENCHMARK ...``: ``speed`` here, the others by their own ``main``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:
        module = importlib.import_module(f"benchmarks.{argv[0]}")
        prog, sys.argv[0] = sys.argv[0], f"python -m benchmarks {argv[0]}"  # for its --help
        try:
            return int(module.main(argv[1:]) or 0)
        finally:
            sys.argv[0] = prog
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.benchmark != "speed":
        parser.print_help()
        return 2
    try:
        return cmd_speed(args, argv[1:])
    except UsageError as exc:
        print(f"python -m benchmarks speed: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
