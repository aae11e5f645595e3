"""What the evaluation-time harness strength check costs, and what it finds, per config.

``python -m benchmarks strength_cost --config python_public [--source-dir DIR] [--sandbox docker]
[--workers 2] [--out FILE] [--ship]``

Side by side in one run, on fresh caches: the golden phase alone (``include_weak``: no strength
check, what the engine did before) and then the strength check on top of the same, now cached,
golden outputs. Printed: seconds of each, extra candidate jobs and cases per task, and the
tasks found ``weak_harness`` or ``return_unobserved``. ``--ship`` writes each checked task's
verdicts (with its harness hash and the check version) into the shipped ``harness_strength``
file, so rows carry them and the engine can skip the check where the hash matches.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

#: The raw output ``scripts/figures.py`` prints the ``strength_cost`` block from.
RESULTS_FILE = "strength_cost.json"


def render_markdown(data: dict) -> str:
    """The README/docs table: cost of the check beside the golden phase, and what it found."""
    rows = [
        "| config | harness tasks checked | golden phase | strength check on top | per task | cases per task | weak harness | return unobserved |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for c in data["configs"]:
        weak = ", ".join(f"`{t}`" for t in c["weak_harness"]) or "none"
        unobs = ", ".join(f"`{t}`" for t in c["return_unobserved"]) or "none"
        rows.append(
            f"| `{c['config']}` | {c['golden_ok']} | {c['golden_phase_s']} s | {c['strength_check_s']} s | "
            f"{c['seconds_per_task']} s | {c['cases_per_task']} | {len(c['weak_harness'])} ({weak}) | "
            f"{len(c['return_unobserved'])} ({unobs}) |"
        )
    first = data["configs"][0]
    return "\n".join(
        rows
        + [
            "",
            f"{first['sandbox']}, {first['workers']} workers, {first['fuzz_cases']} fuzz cases, "
            "fresh caches; once per harness and environment (cached). Raw output "
            "`docs/bench-results/strength_cost.json` (`python -m benchmarks strength_cost`).",
        ]
    )


class _CountingPool:
    """The golden pool as the strength check sees it, counting the jobs and cases it runs."""

    def __init__(self, pool):
        self.pool, self.jobs, self.cases = pool, 0, 0

    def run(self, job):
        self.jobs += 1
        self.cases += len(job.programs)
        return self.pool.run(job)


def measure(config: str, source_dir: str | None, sandbox: str, workers: int, fuzz_cases: int) -> dict:
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.engine import Session
    from biocoder_metric.execution.parallel import parallel_map
    from biocoder_metric.execution.tasks import static_task_status
    from biocoder_metric.types import TaskStatus

    rows = [
        r
        for r in load_problems(config, source_dir=source_dir)
        if r.get("kind") == "harness" and static_task_status(r)[0] == TaskStatus.OK
    ]
    cache = tempfile.mkdtemp(prefix="biocoder-strength-")
    base = EvalOptions(sandbox=sandbox, workers=workers, fuzz_cases=fuzz_cases, golden_cache_dir=cache)
    session = Session(dataclasses.replace(base, include_weak=True))
    try:
        start = time.monotonic()
        goldens = {
            r["task_id"]: g for r, g in parallel_map(session.goldens.golden, rows, workers, "goldens", True)
        }
        golden_s = time.monotonic() - start
        ok_rows = [r for r in rows if goldens[r["task_id"]].ok]
        counting = _CountingPool(session.goldens.pool())
        start = time.monotonic()
        records = {
            row["task_id"]: rec
            for row, rec in parallel_map(
                lambda r: session.strength.check(r, goldens[r["task_id"]].outputs, counting),
                ok_rows,
                workers,
                "strength",
                True,
            )
        }
        strength_s = time.monotonic() - start
    finally:
        session.close()
    return {
        "config": config,
        "sandbox": sandbox,
        "workers": workers,
        "fuzz_cases": fuzz_cases,
        "harness_tasks": len(rows),
        "golden_ok": len(ok_rows),
        "golden_phase_s": round(golden_s, 2),
        "strength_check_s": round(strength_s, 2),
        "strength_jobs": counting.jobs,
        "strength_cases": counting.cases,
        "cases_per_task": round(counting.cases / max(1, len(ok_rows)), 1),
        "seconds_per_task": round(strength_s / max(1, len(ok_rows)), 3),
        "weak_harness": sorted(t for t, r in records.items() if r["weak_harness"]),
        "return_unobserved": sorted(t for t, r in records.items() if r["return_unobserved"]),
        "records": records,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks strength_cost", description=__doc__)
    parser.add_argument("--config", default="demo", help="comma-separated configs")
    parser.add_argument("--source-dir", default=None)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fuzz-cases", type=int, default=10)
    parser.add_argument("--out", default=None, help="raw figures as JSON")
    parser.add_argument(
        "--ship", action="store_true", help="write the verdicts into the shipped harness_strength file"
    )
    args = parser.parse_args(argv)
    report = {"benchmark": "strength_cost", "configs": []}
    for config in [c for c in args.config.split(",") if c]:
        row = measure(config, args.source_dir, args.sandbox, args.workers, args.fuzz_cases)
        report["configs"].append(row)
        print(
            f"{config} ({row['sandbox']}, {row['workers']} workers, {row['fuzz_cases']} cases): "
            f"{row['golden_ok']} of {row['harness_tasks']} harness tasks checked; golden phase "
            f"{row['golden_phase_s']} s, strength check {row['strength_check_s']} s on top "
            f"({row['seconds_per_task']} s, {row['cases_per_task']} cases per task, once); "
            f"weak_harness {len(row['weak_harness'])}, return_unobserved {len(row['return_unobserved'])}"
        )
        if args.ship:
            from biocoder_dataset.harness_strength import merge_strength_checks

            merge_strength_checks(config, row["records"])
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
