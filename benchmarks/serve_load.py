"""Load test of ``biocoder serve`` on loopback, against ``biocoder evaluate`` on the same samples.

``python -m benchmarks serve_load [--config demo] [--workers 2] [--out docs/bench-results/serve_load.json]``

Why these scenarios: a trainer calls the verifier thousands of times per step, concurrently, and
restarts it when a node is recycled. So, side by side in one run:

* **baseline**: ``biocoder evaluate`` on the samples (same sandbox, workers, warm golden cache),
  its samples/s and every verdict;
* **throughput and latency** at 1, 8 and 32 concurrent clients, one sample per request (what a
  reward function sends), with p50/p95/p99 request latency;
* **overload**: a server with a 4-sample queue hit by 32 clients: ``429`` with ``Retry-After``,
  clients retry, every sample is eventually judged once;
* **a sandbox dying mid-request**: sandbox worker processes are killed while requests are in
  flight; the engine's retry and canary decide, verdicts must not change;
* **a client disconnecting mid-request**: requests abandoned after 50 ms; the server keeps serving;
* **a restart with requests in flight**: the server is stopped while clients are sending; they
  retry against the restarted server.

Every verdict of every scenario is compared with the CLI's for the same (task, completion):
nothing may be lost, duplicated or different. Bounded: each scenario sends a fixed number of
samples and every wait has a deadline. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: The raw output ``scripts/figures.py`` renders the README block ``serve_load`` from.
RESULTS_FILE = "serve_load.json"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * len(v) + 0.5)) - 1))]


class ServerProcess:
    """``biocoder serve`` as a child process on a loopback port."""

    def __init__(
        self, args: argparse.Namespace, cache: Path, queue: int | None = None, port: int | None = None
    ):
        self.port = port or _port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [
            sys.executable,
            "-m",
            "biocoder_metric",
            "serve",
            "--config",
            args.config,
            "--sandbox",
            args.sandbox,
            "--workers",
            str(args.workers),
            "--fuzz-cases",
            str(args.fuzz_cases),
            "--port",
            str(self.port),
            "--golden-cache",
            str(cache),
            "--no-progress",
        ]
        if args.source_dir:
            cmd += ["--source-dir", args.source_dir]
        if queue:
            cmd += ["--queue", str(queue)]
        self.proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.started_s = self._wait()

    def _wait(self, deadline_s: float = 600) -> float:
        import httpx

        t0 = time.monotonic()
        while time.monotonic() - t0 < deadline_s:
            if self.proc.poll() is not None:
                raise RuntimeError(f"biocoder serve exited: {self.proc.stderr.read()[-2000:]}")
            try:
                if httpx.get(self.url + "/v1/health", timeout=2).status_code == 200:
                    return round(time.monotonic() - t0, 2)
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("biocoder serve did not come up")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def post(
    url: str, sample: dict[str, Any], timeout: float = 600, retry: bool = True
) -> tuple[dict[str, Any] | None, dict]:
    """(verdict or None, counters): one sample, retried on 429 and on connection errors when ``retry``."""
    import httpx

    counts = {"429": 0, "conn_errors": 0, "latency_s": 0.0}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t0 = time.monotonic()
        try:
            resp = httpx.post(url + "/v1/judge", json={"samples": [sample]}, timeout=timeout)
        except httpx.HTTPError:
            counts["conn_errors"] += 1
            if not retry:
                return None, counts
            time.sleep(0.5)
            continue
        if resp.status_code == 429:
            counts["429"] += 1
            time.sleep(min(2.0, float(resp.headers.get("Retry-After", "1"))) * 0.25)
            continue
        resp.raise_for_status()
        counts["latency_s"] = time.monotonic() - t0
        return resp.json()["results"][0], counts
    return None, counts


def fire(url: str, samples: list[dict[str, Any]], clients: int, retry: bool = True) -> dict[str, Any]:
    """Send ``samples`` one per request from ``clients`` threads; verdicts, latencies, 429s, throughput."""
    t0 = time.monotonic()
    with ThreadPoolExecutor(clients) as pool:
        done = list(pool.map(lambda s: post(url, s, retry=retry), samples))
    wall = time.monotonic() - t0
    lat = [c["latency_s"] for v, c in done if v is not None]
    return {
        "clients": clients,
        "samples": len(samples),
        "wall_s": round(wall, 3),
        "samples_per_s": round(len(samples) / wall, 3),
        "latency_p50_s": round(_pct(lat, 0.5), 4),
        "latency_p95_s": round(_pct(lat, 0.95), 4),
        "latency_p99_s": round(_pct(lat, 0.99), 4),
        "http_429": sum(c["429"] for _, c in done),
        "connection_errors": sum(c["conn_errors"] for _, c in done),
        "verdicts": [v for v, _ in done],
    }


def check(
    verdicts: list[dict[str, Any] | None], samples: list[dict[str, Any]], expected: dict[tuple[str, str], str]
) -> dict[str, int]:
    """Lost (no verdict), wrong (not the CLI's status) and duplicated (sample ids answered twice)."""
    lost = sum(v is None for v in verdicts)
    wrong = sum(
        1
        for v, s in zip(verdicts, samples, strict=True)
        if v is not None and v["status"] != expected[(s["task_id"], s["completion"])]
    )
    ids = [v["sample_id"] for v in verdicts if v is not None]
    return {"lost": lost, "wrong": wrong, "duplicated": len(ids) - len(set(ids))}


def kill_sandboxes(server: ServerProcess, stop: threading.Event, every_s: float = 1.5) -> list[int]:
    """Kill sandbox worker processes of the server's session now and then (mid-request)."""
    killed: list[int] = []
    while not stop.wait(every_s):
        out = subprocess.run(
            ["pgrep", "-f", "worker.py --contained"], capture_output=True, text=True
        ).stdout.split()
        for pid in out[:1]:
            try:
                os.kill(int(pid), signal.SIGKILL)
                killed.append(int(pid))
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks serve_load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", default="demo")
    parser.add_argument("--source-dir", default=None)
    parser.add_argument("--samples", default=str(REPO / "examples" / "demo_samples.jsonl"))
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fuzz-cases", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2, help="send the samples this many times per scenario")
    parser.add_argument("--out", default=str(REPO / "docs" / "bench-results" / "serve_load.json"))
    args = parser.parse_args(argv)

    base = [json.loads(x) for x in Path(args.samples).read_text(encoding="utf-8").splitlines() if x.strip()]
    samples = [
        {"task_id": s["task_id"], "completion": s["completion"], "sample_id": f"{i}"}
        for i, s in enumerate(base * args.repeat)
    ]
    work = Path(tempfile.mkdtemp(prefix="biocoder-serve-load-"))
    cache = work / "golden"
    report: dict[str, Any] = {
        "benchmark": "serve_load",
        "config": args.config,
        "sandbox": args.sandbox,
        "workers": args.workers,
        "fuzz_cases": args.fuzz_cases,
        "samples": len(samples),
        "cpu_count": os.cpu_count(),
        "scenarios": {},
    }

    # baseline: biocoder evaluate on the same samples (warm golden cache: a first run fills it)
    sfile = work / "samples.jsonl"
    sfile.write_text(
        "".join(json.dumps({k: s[k] for k in ("task_id", "completion")}) + "\n" for s in samples)
    )
    cmd = [
        sys.executable,
        "-m",
        "biocoder_metric",
        "evaluate",
        "--config",
        args.config,
        "--samples",
        str(sfile),
        "--sandbox",
        args.sandbox,
        "--workers",
        str(args.workers),
        "--fuzz-cases",
        str(args.fuzz_cases),
        "--golden-cache",
        str(cache),
        "--no-progress",
        "--allow-missing",
    ]
    if args.source_dir:
        cmd += ["--source-dir", args.source_dir]
    subprocess.run(cmd + ["--out", str(work / "warm")], cwd=REPO, check=True, capture_output=True)
    t0 = time.monotonic()
    subprocess.run(cmd + ["--out", str(work / "cli")], cwd=REPO, check=True, capture_output=True)
    cli_wall = time.monotonic() - t0
    from biocoder_metric.execution.results import read_results

    cli = read_results(work / "cli" / "results.jsonl")
    expected = {(s["task_id"], s["completion"]): None for s in samples}
    per_task: dict[str, list[str]] = {}
    for r in sorted(cli, key=lambda r: (r.task_id, r.sample_index)):
        per_task.setdefault(r.task_id, []).append(r.status)
    seen: dict[str, int] = {}
    for s in samples:  # the CLI numbers samples per task in file order
        i = seen.get(s["task_id"], 0)
        seen[s["task_id"]] = i + 1
        expected[(s["task_id"], s["completion"])] = per_task[s["task_id"]][i]
    report["baseline"] = {
        "command": "biocoder evaluate (warm golden cache, process start included)",
        "wall_s": round(cli_wall, 3),
        "samples_per_s": round(len(samples) / cli_wall, 3),
    }
    print(
        f"baseline biocoder evaluate: {len(samples)} samples in {cli_wall:.1f} s "
        f"({len(samples) / cli_wall:.2f}/s)",
        flush=True,
    )

    server = ServerProcess(args, cache)
    report["server_start_s"] = server.started_s
    try:
        for clients in (1, 8, 32):
            res = fire(server.url, samples, clients)
            res.update(check(res.pop("verdicts"), samples, expected))
            res["vs_evaluate"] = round(res["samples_per_s"] / report["baseline"]["samples_per_s"], 3)
            report["scenarios"][f"clients_{clients}"] = res
            print(
                f"{clients:>2} clients: {res['samples_per_s']:.2f} samples/s ({res['vs_evaluate']:.2f}x evaluate), "
                f"p50 {res['latency_p50_s']:.3f} s, p99 {res['latency_p99_s']:.3f} s, lost {res['lost']}, "
                f"wrong {res['wrong']}",
                flush=True,
            )

        # a sandbox dying mid-request
        stop = threading.Event()
        killed: list[int] = []
        killer = threading.Thread(target=lambda: killed.extend(kill_sandboxes(server, stop)))
        killer.start()
        res = fire(server.url, samples, 8)
        stop.set()
        killer.join()
        res.update(check(res.pop("verdicts"), samples, expected), sandbox_workers_killed=len(killed))
        report["scenarios"]["sandbox_killed_mid_request"] = res
        print(
            f"sandboxes killed mid-request: {len(killed)} kills, lost {res['lost']}, wrong {res['wrong']}",
            flush=True,
        )

        # a client disconnecting mid-request, then the server still answers correctly
        import httpx

        abandoned = 0
        for s in samples[:8]:
            try:
                httpx.post(server.url + "/v1/judge", json={"samples": [s]}, timeout=0.05)
            except httpx.HTTPError:
                abandoned += 1
        res = fire(server.url, samples[:16], 4)
        res.update(check(res.pop("verdicts"), samples[:16], expected), abandoned_requests=abandoned)
        report["scenarios"]["client_disconnects"] = res
        print(
            f"clients disconnecting: {abandoned} abandoned, then lost {res['lost']}, wrong {res['wrong']}",
            flush=True,
        )
    finally:
        server.stop()

    # overload: a 4-sample queue, 32 clients
    small = ServerProcess(args, cache, queue=4)
    try:
        res = fire(small.url, samples, 32)
        res.update(check(res.pop("verdicts"), samples, expected))
        report["scenarios"]["overload_queue_4"] = res
        print(
            f"overload (queue 4, 32 clients): {res['http_429']} x 429, lost {res['lost']}, wrong {res['wrong']}",
            flush=True,
        )
    finally:
        small.stop()

    # a restart with requests in flight: clients retry against the new server on the same port
    port = _port()
    first = ServerProcess(args, cache, port=port)
    results: dict[str, Any] = {}

    def clients_run() -> None:
        results.update(fire(f"http://127.0.0.1:{port}", samples, 8))

    t = threading.Thread(target=clients_run)
    t.start()
    time.sleep(2.0)
    first.stop()
    second = ServerProcess(args, cache, port=port)
    t.join()
    second.stop()
    results.update(check(results.pop("verdicts"), samples, expected), restart_s=second.started_s)
    report["scenarios"]["restart_in_flight"] = results
    print(
        f"restart with requests in flight: {results['connection_errors']} connection errors retried, "
        f"lost {results['lost']}, wrong {results['wrong']}",
        flush=True,
    )

    bad = {k: v for k, v in report["scenarios"].items() if v["lost"] or v["wrong"] or v["duplicated"]}
    report["all_verdicts_match_cli"] = not bad
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"raw output: {args.out}")
    return 1 if bad else 0


#: Further raw outputs of the same benchmark on other configs, shown beside ``RESULTS_FILE``'s.
MORE_RESULTS = ("serve_load_python_public.json",)


def render_markdown(data: dict[str, Any]) -> str:
    """The README table, from the raw output (and the other configs' runs, when committed)."""
    runs = [data]
    for name in MORE_RESULTS:
        path = REPO / "docs" / "bench-results" / name
        if path.is_file():
            runs.append(json.loads(path.read_text(encoding="utf-8")))
    rows = [
        "| config | scenario | samples/s | vs `biocoder evaluate` | p50 s | p99 s | 429s | lost / wrong |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for run in runs:
        for name, s in run["scenarios"].items():
            rows.append(
                f"| `{run['config']}` | {name.replace('_', ' ')} | {s['samples_per_s']:.2f} | "
                f"{s.get('vs_evaluate', '-')} | {s['latency_p50_s']:.3f} | {s['latency_p99_s']:.3f} | "
                f"{s['http_429']} | {s['lost']} / {s['wrong']} |"
            )
        b = run["baseline"]
        notes.append(
            f"`{run['config']}`: baseline `biocoder evaluate` {b['samples_per_s']:.2f} samples/s "
            f"({run['samples']} samples, {run['workers']} workers, {run['sandbox']}, {run['fuzz_cases']} "
            "fuzz cases, warm golden cache, in the same run)."
        )
    return "\n".join(rows + [""] + notes)


if __name__ == "__main__":
    sys.exit(main())
