"""Scaling benchmark: one workload run locally (1 and 2 workers), on a 2-node Ray cluster, and as 2 shards + merge.

Why one script, one run: the ratios only mean something when every mode ran on the same
machine, under the same load, minutes apart. Each mode judges the same samples with the same
sandbox and a warm golden cache (filled by a warm-up run first), so what is compared is the
sample throughput of each way to run; every mode's ``results.jsonl`` must be byte-identical
to the 1-worker local run's, or the script fails.

Ray's per-sample scheduling overhead is measured two ways: (a) directly, as the extra latency
of a trivial sandbox job sent through a Ray actor versus run on a local pool (same sandbox
kind, sequential calls); (b) in the workload, as ``(ray wall - local 2-worker wall) / samples``
for the same number of sandboxes.

    python -m benchmarks scaling [--fuzz-cases 5] [--repeat 2] [--out docs/bench-results/scaling.json]

The Ray cluster is ``ray.cluster_utils.Cluster`` on this machine: 2 nodes, 1 CPU each, loopback
addresses. Shards run as two concurrent ``biocoder evaluate --shard I/2`` processes (1 worker
each), then ``biocoder merge``; their wall time includes process start and the merge.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO_SAMPLES = REPO / "examples" / "demo_samples.jsonl"


def _workload(root: Path, repeat: int) -> tuple[Path, str, int]:
    """Python + Rosalind demo samples (repeated ``repeat`` times); Java's JVM start would dominate 2 cores."""
    lines = [
        ln
        for ln in DEMO_SAMPLES.read_text(encoding="utf-8").splitlines()
        if ln.strip() and not json.loads(ln)["task_id"].startswith("demo_java")
    ] * repeat
    path = root / "samples.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, ",".join(sorted({json.loads(ln)["task_id"] for ln in lines})), len(lines)


def _cli(argv: list[str]) -> float:
    from biocoder_metric.cli import main

    t = time.perf_counter()
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):  # keep the table readable
        rc = main(argv)
    if rc != 0:
        raise SystemExit(f"scaling: `biocoder {' '.join(argv)}` exited {rc}")
    return time.perf_counter() - t


def _shards(base: list[str], root: Path) -> float:
    t = time.perf_counter()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "biocoder_metric",
                "evaluate",
                *base,
                "--workers",
                "1",
                "--shard",
                f"{i}/2",
                "--out",
                str(root / f"shard{i}"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for i in (0, 1)
    ]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"scaling: shard exited {p.returncode}: {err[-2000:]}")
    from biocoder_metric.cli import main

    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
        rc = main(["merge", "--out", str(root / "sharded"), str(root / "shard0"), str(root / "shard1")])
    if rc != 0:
        raise SystemExit("scaling: merge failed")
    return time.perf_counter() - t


def _job_latency(pool, n: int) -> list[float]:
    from biocoder_metric.types import Job

    job = Job(language="python", programs=("print(1)",), timeout_s=10.0, memory_mb=256)
    pool.run(job)  # warm
    out = []
    for _ in range(n):
        t = time.perf_counter()
        outcomes = pool.run(job)
        out.append(time.perf_counter() - t)
        assert outcomes[0].stdout.strip() == "1", outcomes
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fuzz-cases", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=2, help="copies of the demo samples (more work per mode)")
    ap.add_argument("--sandbox", default="bwrap")
    ap.add_argument("--latency-jobs", type=int, default=40)
    ap.add_argument("--out", default=str(REPO / "docs" / "bench-results" / "scaling.json"))
    args = ap.parse_args(argv)

    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # loopback addresses for the local cluster
    import ray
    from ray.cluster_utils import Cluster

    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.executors.local import SandboxPool
    from biocoder_metric.execution.executors.ray_pool import RayPool

    root = Path(tempfile.mkdtemp(prefix="biocoder-scaling-"))
    samples, task_ids, n = _workload(root, args.repeat)
    gc = root / "golden"
    base = [
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--task-ids",
        task_ids,
        "--sandbox",
        args.sandbox,
        "--fuzz-cases",
        str(args.fuzz_cases),
        "--golden-cache",
        str(gc),
        "--no-progress",
    ]
    print(
        f"scaling: {n} samples, {args.fuzz_cases} fuzz cases, sandbox {args.sandbox}, {os.cpu_count()} CPUs",
        file=sys.stderr,
    )
    _cli(["evaluate", *base, "--workers", "2", "--out", str(root / "warmup")])  # fills the golden cache
    wall: dict[str, float] = {}
    wall["local_1_worker"] = _cli(["evaluate", *base, "--workers", "1", "--out", str(root / "local1")])
    wall["local_2_workers"] = _cli(["evaluate", *base, "--workers", "2", "--out", str(root / "local2")])

    node = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False}
    t = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args=dict(node))
    cluster.add_node(**node)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    cluster_start_s = time.perf_counter() - t
    try:
        wall["ray_2_nodes"] = _cli(
            ["evaluate", *base, "--executor", "ray", "--workers-per-node", "1", "--out", str(root / "ray")]
        )
        opts = EvalOptions(sandbox=args.sandbox, workers=1, executor="ray", workers_per_node=1)
        t = time.perf_counter()
        rpool = RayPool(opts, "candidate")
        pool_start_s = time.perf_counter() - t  # actors placed, one sandbox started per node, ids checked
        try:
            ray_lat = _job_latency(rpool, args.latency_jobs)
        finally:
            rpool.close()
    finally:
        ray.shutdown()
        cluster.shutdown()
    lpool = SandboxPool(EvalOptions(sandbox=args.sandbox, workers=1), 1)
    try:
        local_lat = _job_latency(lpool, args.latency_jobs)
    finally:
        lpool.close()
    wall["shards_2_plus_merge"] = _shards(base, root)

    reference = (root / "local1" / "results.jsonl").read_bytes()
    identical = {
        m: (root / d / "results.jsonl").read_bytes() == reference
        for m, d in (
            ("local_2_workers", "local2"),
            ("ray_2_nodes", "ray"),
            ("shards_2_plus_merge", "sharded"),
        )
    }
    summaries_identical = all(
        (root / d / "summary.json").read_bytes() == (root / "local1" / "summary.json").read_bytes()
        for d in ("local2", "ray", "sharded")
    )
    one = wall["local_1_worker"]
    result = {
        "workload": {
            "samples": n,
            "fuzz_cases": args.fuzz_cases,
            "sandbox": args.sandbox,
            "config": "demo",
            "tasks": len(task_ids.split(",")),
            "golden_cache": "warm (filled by a warm-up run)",
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "ray": ray.__version__,
            "note": "shared machine: other processes were running",
        },
        "wall_s": {k: round(v, 3) for k, v in wall.items()},
        "speedup_vs_local_1_worker": {k: round(one / v, 3) for k, v in wall.items()},
        "samples_per_s": {k: round(n / v, 2) for k, v in wall.items()},
        "ray": {
            "cluster_start_s": round(cluster_start_s, 2),
            "pool_start_s": round(pool_start_s, 2),
            "job_latency_ms_median": {
                "local_pool": round(1000 * statistics.median(local_lat), 2),
                "ray_actor": round(1000 * statistics.median(ray_lat), 2),
            },
            "scheduling_overhead_ms_per_job_direct": round(
                1000 * (statistics.median(ray_lat) - statistics.median(local_lat)), 2
            ),
            "scheduling_overhead_ms_per_sample_in_workload": round(
                1000 * (wall["ray_2_nodes"] - wall["local_2_workers"]) / n, 2
            ),
            "note": "the workload figure includes starting the Ray pools (actors + one sandbox pool per node, "
            "golden and candidate pools) and run-to-run noise of a shared machine; the direct figure "
            "is the dispatch latency alone",
        },
        "results_identical_to_local_1_worker": identical,
        "summaries_identical": summaries_identical,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{'mode':<22}{'wall s':>9}{'samples/s':>11}{'x local-1':>11}")
    for k, v in wall.items():
        print(f"{k:<22}{v:>9.2f}{n / v:>11.2f}{one / v:>11.2f}")
    r = result["ray"]
    print(
        f"ray job latency median: local pool {r['job_latency_ms_median']['local_pool']} ms, "
        f"ray actor {r['job_latency_ms_median']['ray_actor']} ms -> "
        f"{r['scheduling_overhead_ms_per_job_direct']} ms/job overhead; "
        f"in the workload (pool starts included) {r['scheduling_overhead_ms_per_sample_in_workload']} ms/sample; "
        f"one pool start {r['pool_start_s']} s; cluster start {r['cluster_start_s']} s"
    )
    print(f"results identical: {identical}; summaries identical: {summaries_identical}")
    print(f"raw: {args.out}")
    return 0 if all(identical.values()) and summaries_identical else 1


#: Raw output (docs/bench-results/) that ``scripts/figures.py`` renders with :func:`render_markdown`.
RESULTS_FILE = "scaling.json"

_MODES = (
    ("local_1_worker", "local, 1 worker"),
    ("local_2_workers", "local, 2 workers"),
    ("ray_2_nodes", "Ray, 2 nodes x 1 sandbox"),
    ("shards_2_plus_merge", "2 shards (1 worker each) + merge"),
)


def render_markdown(data: dict) -> str:
    """The scaling table and Ray's overhead, from the raw output of :func:`main`."""
    w = data["workload"]
    rows = [
        f"Workload: `{w['config']}`, {w['samples']} samples over {w['tasks']} tasks, {w['fuzz_cases']} fuzz cases, "
        f"{w['sandbox']}, golden cache {w['golden_cache']}; {data['machine']['cpus']} shared CPUs.",
        "",
        "| mode | wall s | samples/s | ratio to local 1 worker | results identical |",
        "|---|---:|---:|---:|---|",
    ]
    same = data["results_identical_to_local_1_worker"]
    for key, label in _MODES:
        rows.append(
            f"| {label} | {data['wall_s'][key]:.2f} | {data['samples_per_s'][key]:.2f} | "
            f"{data['wall_s']['local_1_worker'] / data['wall_s'][key]:.2f} | {'reference' if key == 'local_1_worker' else same[key]} |"
        )
    r = data["ray"]
    lat = r["job_latency_ms_median"]
    rows += [
        "",
        f"Ray dispatch: median {lat['ray_actor']:.1f} ms per trivial job through an actor against "
        f"{lat['local_pool']:.1f} ms on a local pool, so {r['scheduling_overhead_ms_per_job_direct']:.1f} ms of "
        f"scheduling overhead per job; in the workload (pool starts included) "
        f"{r['scheduling_overhead_ms_per_sample_in_workload']:.1f} ms per sample; one pool start "
        f"{r['pool_start_s']:.1f} s; cluster start {r['cluster_start_s']:.1f} s (not in the wall times). "
        f"Summaries identical across modes: {data['summaries_identical']}.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
