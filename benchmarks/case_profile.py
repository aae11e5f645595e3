"""Where one case's time goes, stage by stage: ``python -m benchmarks case_profile``.

Why: the per-case overhead (host-observed wall time minus the program's own run) is the sum of
many small steps on both sides of the sandbox wall. Guessing which one dominates is how the
wrong one gets optimised. So the worker can stamp every stage of a case with the kernel's
monotonic clock (a request's ``options.profile``; the host, the worker, the zygote and the case
child all read the same clock), and this script runs real harness programs through a real
sandbox with that on, and prints the median of each stage.

Stages (worker side unless said):

* ``host->worker``: from the host sending the job (or receiving the previous case) to the case's start;
* ``case files``: the case dir, its stdin and ``main.py`` written;
* ``to case process``: from the files written to the case process starting the case (the zygote's
  fork for a per-case process or a job's first case; the control message otherwise);
* ``zygote fork``: the request to the zygote, and its ``fork()`` (or the spare's handover);
* ``child setup``: in the child, session, stdio, rlimits, signals;
* ``compile``: the child compiles ``main.py``;
* ``main setup``: a fresh ``__main__``, stdio objects, ``sys.path``;
* ``program``: the program itself (its own imports that were not preloaded, its compute, exit hooks);
* ``process reset`` (one process per sample): timers, signals, environment put back, SysV segments detached;
* ``back to worker`` (one process per sample): the case's ``done`` reaching the worker;
* ``exit+reap``: the child's exit (address-space teardown) until the zygote has reaped it;
* ``zygote reply``: the zygote's reply reaching the worker;
* ``leftovers``: killing what the case left (its process group, descendants);
* ``state reset``: every writable place and IPC object put back (``state.py``);
* ``outcome``: stdout/stderr read back;
* ``cleanup``: the case dir removed, the workroot swept;
* ``worker->host``: the outcome message reaching the host.

Raw output: ``--out`` (every case's marks and the per-stage medians).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from typing import Any

#: (label, start mark, end mark), in the order a case goes through them.
STAGES = (
    ("host->worker", "host_sent", "case_start"),
    ("  job: to the worker", "host_sent", "job_start"),
    ("  job: last job's end, checks", "job_start", "job_checked"),
    ("  job: compile", "job_checked", "job_compiled"),
    ("  job: imports, zygote", "job_compiled", "job_zygote"),
    ("  job: to the first case", "job_zygote", "case_start"),
    ("case files", "case_start", "files_written"),
    ("to case process", "files_written", "child_start"),
    ("zygote fork", "files_written", "zygote_forked"),
    ("  fork()", "zygote_fork_start", "zygote_forked"),
    ("  handover", "zygote_forked", "zygote_started"),
    ("child setup", "child_start", "child_limits"),
    ("compile", "child_limits", "child_compiled"),
    ("main setup", "child_compiled", "program_start"),
    ("program", "program_start", "child_exit"),
    ("process reset", "child_exit", "child_restored"),
    ("back to worker", "child_restored", "end_received"),
    ("exit+reap", "child_exit", "zygote_reaped"),
    ("zygote reply", "zygote_reaped", "end_received"),
    ("leftovers", "end_received", "leftovers_killed"),
    ("state reset", "leftovers_killed", "state_reset"),
    ("outcome", "state_reset", "outcome_read"),
    ("cleanup", "outcome_read", "swept"),
    ("worker->host", "swept", "host_received"),
)


def stage_times(marks: dict[str, Any]) -> dict[str, float]:
    """Milliseconds per stage of one case (stages whose marks are missing are left out)."""
    out: dict[str, float] = {}
    for label, a, b in STAGES:
        if isinstance(marks.get(a), float) and isinstance(marks.get(b), float):
            out[label] = (marks[b] - marks[a]) * 1000.0
    if "host_sent" in marks and "host_received" in marks:
        out["total"] = (marks["host_received"] - marks["host_sent"]) * 1000.0
        out["overhead"] = out["total"] - out.get("program", 0.0)
    return out


def job_overheads(raw: list[dict[str, Any]], cases_per_job: int) -> list[float]:
    """Per job (``cases_per_job`` consecutive cases of one task): its wall time from the host
    sending it to the host holding its last outcome, minus its programs' own time, per case (ms).
    The figure the per-case stage medians add up to, once-per-job work included."""
    out = []
    for i in range(0, len(raw) - cases_per_job + 1, cases_per_job):
        job = raw[i : i + cases_per_job]
        if len({c["task_id"] for c in job}) != 1 or any(c.get("status") != "ok" for c in job):
            continue
        if not all(isinstance(c.get(k), float) for c in job for k in ("program_start", "child_exit")):
            continue
        wall = job[-1]["host_received"] - job[0]["host_sent"]
        programs = sum(c["child_exit"] - c["program_start"] for c in job)
        out.append(round(1000.0 * (wall - programs) / cases_per_job, 3))
    return out


def summarise(cases: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Median, p10 and p90 of each stage over ``cases``."""
    labels = [s[0] for s in STAGES] + ["total", "overhead"]
    out: dict[str, dict[str, float]] = {}
    for label in labels:
        xs = sorted(c[label] for c in cases if label in c)
        if not xs:
            continue
        out[label] = {
            "median_ms": round(statistics.median(xs), 3),
            "p10_ms": round(xs[len(xs) // 10], 3),
            "p90_ms": round(xs[min(len(xs) - 1, (9 * len(xs)) // 10)], 3),
        }
    return out


#: The raw output ``scripts/figures.py`` renders (``render_markdown``).
RESULTS_FILE = "case_profile.json"
#: The two designs profiled side by side: label -> the sandbox's ``batch`` setting.
MODES = {"per-case process (optimisations off)": False, "one process per sample": True}


def render_markdown(data: dict[str, Any]) -> str:
    """The stage table of docs/performance.md, one column per design, from the raw output."""
    modes = list(data["modes"])
    rows = [
        "| stage | " + " | ".join(f"{m}: median (p90) ms" for m in modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    labels = [s[0] for s in STAGES] + ["total", "overhead"]
    for label in labels:
        cells = []
        for m in modes:
            st = data["modes"][m]["stages"].get(label)
            cells.append("" if st is None else f"{st['median_ms']:.2f} ({st['p90_ms']:.2f})")
        if any(cells):
            name = label.strip()
            rows.append(
                f"| {'&nbsp;&nbsp;' + name if label.startswith(' ') else name} | " + " | ".join(cells) + " |"
            )
    if all("job_overhead_ms_per_case" in data["modes"][m] for m in modes):
        cells = [data["modes"][m]["job_overhead_ms_per_case"]["median"] for m in modes]
        rows.append(
            "| **whole job, per case** | "
            + " | ".join("" if c is None else f"**{c:.2f}**" for c in cells)
            + " |"
        )
    cases = ", ".join(f"{m}: {data['modes'][m]['cases']} cases" for m in modes)
    return "\n".join(
        rows
        + [
            "",
            f"{data['sandbox']}, {len(data['tasks'])} `{data['config']}` tasks x {data['fuzz_cases']} cases (their goldens), "
            f"{data['repeats']} timed jobs per task and design after a warm-up job, interleaved; {cases}. "
            "Stages a design does not have (a fork per case) are empty; in one process per sample the fork "
            "is paid once per job and mostly by a spare forked ahead. `overhead` = total - program. "
            "`host->worker` of a job's first case holds the worker's once-per-job work (compiling every case "
            "program, reading their imports); later cases start before the host has read the previous outcome, "
            "hence medians below zero; the `job:` rows split that once-per-job work (first cases only). "
            "`whole job, per case`: the median over jobs of (job time - its programs' time) / cases, the "
            "once-per-job work included (the speed benchmark's per-case overhead, below, measures the same "
            "from outside, with a program's imports counted as overhead). "
            "Raw output `docs/bench-results/case_profile.json` (`python -m benchmarks case_profile`).",
        ]
    )


def sample_job(row: dict[str, Any], n: int, fuzz_cases: int) -> Any:
    """The golden's case programs as the ``n``-th new sample's: its code made unique (a comment),
    so that no job finds its candidate's code compiled already (the worker remembers compiled
    top-level chunks by their text), as a real sample would not."""
    from biocoder_metric.execution import harness
    from biocoder_metric.types import Job

    golden = row["golden_code"].rstrip("\n") + f"\n# sample {n}\n"
    programs = harness.build_harness_programs(row, golden, fuzz_cases=fuzz_cases, seed=0)
    return Job(language="python", programs=tuple(programs), timeout_s=30.0)


def main(argv: list[str] | None = None) -> int:
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.sandbox import make_sandbox

    p = argparse.ArgumentParser(prog="python -m benchmarks case_profile", description=__doc__.split("\n")[0])
    p.add_argument("--config", default="demo")
    p.add_argument("--source-dir", default=None)
    p.add_argument("--sandbox", default="docker")
    p.add_argument("--image", default=None)
    p.add_argument(
        "--task-ids", default=None, help="comma-separated (default: every Python harness task, up to --tasks)"
    )
    p.add_argument("--tasks", type=int, default=24)
    p.add_argument("--fuzz-cases", type=int, default=5)
    p.add_argument(
        "--repeats", type=int, default=3, help="timed jobs per task and design after one warm-up job"
    )
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)

    rows = [
        r
        for r in load_problems(args.config, source_dir=args.source_dir)
        if r.get("executable") and r["language"] == "python" and r["kind"] == "harness"
    ]
    rows.sort(key=lambda r: r["task_id"])
    if args.task_ids:
        want = args.task_ids.split(",")
        rows = [r for r in rows if r["task_id"] in want]
    rows = rows[: args.tasks]
    boxes = {m: make_sandbox(args.sandbox, image=args.image, batch=batch) for m, batch in MODES.items()}
    raw: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    started = time.time()
    load_start = os.getloadavg()
    try:
        made = itertools.count(1)
        for row in rows:
            for box in boxes.values():
                box.run(sample_job(row, next(made), args.fuzz_cases))  # warm-up: imports preloaded once
            for rep in range(args.repeats):
                order = list(boxes) if rep % 2 == 0 else list(reversed(boxes))
                for m in order:
                    for marks in boxes[m].profile(sample_job(row, next(made), args.fuzz_cases)):
                        raw[m].append({"task_id": row["task_id"], **marks})
    finally:
        for box in boxes.values():
            box.close()
    report: dict[str, Any] = {
        "command": "python -m benchmarks case_profile "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "config": args.config,
        "sandbox": args.sandbox,
        "tasks": [r["task_id"] for r in rows],
        "fuzz_cases": args.fuzz_cases,
        "repeats": args.repeats,
        "loadavg_start": load_start,
        "modes": {},
    }
    for m in MODES:
        cases = [stage_times(x) for x in raw[m] if x.get("status") == "ok"]
        per_job = job_overheads(raw[m], args.fuzz_cases)
        report["modes"][m] = {
            "cases": len(cases),
            "stages": summarise(cases),
            "job_overhead_ms_per_case": {
                "median": round(statistics.median(per_job), 2) if per_job else None,
                "jobs": len(per_job),
            },
            "raw": raw[m],
        }
    report["loadavg_end"] = os.getloadavg()
    report["elapsed_s"] = round(time.time() - started, 1)
    print(render_markdown(report))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
