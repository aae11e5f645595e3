"""A wrong candidate cannot move the score by sabotaging its sandbox.

Each sabotage class (signals to pid 1, to the zygote/parent, to its process group and to every
process; a full ``/work`` and scratch dirs; closed fds; another process's limits, priority, CPU
set and scheduling policy changed from outside, and every process stopped; from Python and from
Java, where a Java candidate can run ``kill``, ``prlimit``, ``renice``, ``taskset``, ``chrt`` or
use ``ProcessHandle``) is a task of its own with the golden plus
3 wrong samples that sabotage before answering wrongly. Whatever the sabotage does, the score
must be pass@1 = 25% on every task, with every sample counted in n (no infrastructure error,
no partial label), under docker and bwrap, through the CLI (with and without
``--allow-partial``) and through the ``evaluate`` metric.

The canary path itself (a sandbox that really dies because of the candidate) is exercised with
an *unguarded* worker (a test-only worker flag that keeps Python's default SIGINT handler in
pid 1, as the worker had before), so the real failure is attributed: ``sandbox_killed``, in n.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reliability_support import JAVA_GOLDEN, PY_GOLDEN, REPO_ROOT, sandbox_reason, tiny_task

pytestmark = [pytest.mark.slow]

PY_SABOTAGE = {
    "signals_pid1": """
    import os, signal
    for sig in sorted(signal.valid_signals()):
        try:
            os.kill(1, sig)
        except Exception:
            pass
""",
    "signals_parent": """
    import os, signal
    parent = os.getppid()
    for sig in sorted(signal.valid_signals()):
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                os.kill(parent, sig)
            except Exception:
                pass
    try:
        os.killpg(os.getpgid(parent), signal.SIGINT)
        os.kill(parent, signal.SIGSTOP)
    except Exception:
        pass
""",
    "signals_everyone": """
    import os, signal
    for sig in sorted(signal.valid_signals()):
        if sig != signal.SIGKILL:
            try:
                os.kill(-1, sig)
            except Exception:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
    except Exception:
        pass
""",
    "fill_writable": """
    import os
    block = b"x" * (1 << 20)
    for d in ("/work", "/tmp", "/var/tmp", "/dev/shm", os.getcwd()):
        for i in range(4096):
            try:
                with open(os.path.join(d, "fill-%d" % i), "wb") as fh:
                    fh.write(block * 4)
            except OSError:
                break
""",
    "closed_fds": """
    import os
    os.closerange(0, 1)
    os.closerange(3, 4096)
""",
    # what any process of the same uid may change in another from outside: limits, priority,
    # CPU set, scheduling policy, and stopping it (the spare case process, the zygote, the worker)
    "process_controls": """
    import os, resource, signal
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        for res, val in ((resource.RLIMIT_CPU, 1), (resource.RLIMIT_NOFILE, 8), (resource.RLIMIT_NPROC, 1)):
            try:
                resource.prlimit(pid, res, (val, val))
            except Exception:
                pass
        try:
            tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
        except OSError:
            tids = [pid]
        for tid in tids:
            for act in (
                lambda: os.setpriority(os.PRIO_PROCESS, tid, 19),
                lambda: os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0)),
                lambda: os.sched_setaffinity(tid, {min(os.sched_getaffinity(0))}),
            ):
                try:
                    act()
                except Exception:
                    pass
        try:
            os.kill(pid, signal.SIGSTOP)
        except Exception:
            pass
""",
}

JAVA_SABOTAGE = {
    "process_controls": """
        long me = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().map(ProcessHandle::pid).filter(p -> p != me).forEach(p -> {
            String pid = Long.toString(p);
            String[][] commands = {
                {"prlimit", "--pid", pid, "--cpu=1:1", "--nofile=8:8"},
                {"renice", "-n", "19", "-p", pid},
                {"taskset", "-p", "-c", "0", pid},
                {"chrt", "-i", "-p", "0", pid},
                {"kill", "-STOP", pid},
            };
            for (String[] command : commands) {
                try { new ProcessBuilder(command).start().waitFor(); } catch (Exception e) { }
            }
        });
""",
    "kill_pid1": """
        for (String sig : new String[] {"INT", "TERM", "HUP", "USR1", "KILL", "STOP"}) {
            try { new ProcessBuilder("kill", "-" + sig, "1").start().waitFor(); } catch (Exception e) { }
        }
""",
    "destroy_parent": """
        ProcessHandle.current().parent().ifPresent(p -> { p.destroy(); p.destroyForcibly(); });
""",
    "destroy_everyone": """
        long me = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().filter(p -> p.pid() != me).forEach(p -> {
            try { p.destroyForcibly(); } catch (Exception e) { }
        });
        try { new ProcessBuilder("kill", "-KILL", "-1").start().waitFor(); } catch (Exception e) { }
""",
    "fill_writable": """
        byte[] block = new byte[1 << 22];
        for (String d : new String[] {"/work", "/tmp", "/var/tmp", "/dev/shm"}) {
            for (int i = 0; i < 4096; i++) {
                try (java.io.FileOutputStream out = new java.io.FileOutputStream(d + "/fill-" + i)) {
                    out.write(block);
                } catch (Exception e) { break; }
            }
        }
""",
}


def _py_wrong(body: str) -> str:
    return "def f(x):\n" + body.rstrip() + "\n    return x * 3\n"


def _java_wrong(body: str) -> str:
    return "public static int f(int x) {\n" + body.rstrip() + "\n    return x * 3;\n}\n"


def _tasks_and_samples() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows, samples = [], []
    for lang, table, golden, wrong in (
        ("python", PY_SABOTAGE, PY_GOLDEN, _py_wrong),
        ("java", JAVA_SABOTAGE, JAVA_GOLDEN, _java_wrong),
    ):
        for name, body in table.items():
            task_id = f"sabotage_{lang}_{name}"
            rows.append(tiny_task(task_id, lang))
            samples.append({"task_id": task_id, "completion": golden})
            samples += [{"task_id": task_id, "completion": wrong(body)} for _ in range(3)]
    return rows, samples


def _check_scores(per_task: dict[str, Any], headline: float | None, tasks: list[str]) -> None:
    assert sorted(per_task) == sorted(tasks)
    bad = {t: (v["n"], v["c"]) for t, v in per_task.items() if (v["n"], v["c"]) != (4, 1)}
    assert not bad, f"tasks whose (n, c) is not (4, 1): {bad}"
    assert headline == pytest.approx(0.25)


SANDBOXES = ("bwrap", "docker")


@pytest.mark.parametrize(
    ("sandbox", "allow_partial"),
    # allow-partial changes only the exit decision, which the sandbox does not touch: run once
    [("bwrap", False), ("docker", False), ("bwrap", True)],
    ids=["bwrap-strict", "docker-strict", "bwrap-allow-partial"],
)
def test_sabotage_leaves_the_score_at_25_percent_through_the_cli(sandbox, allow_partial, tmp_path):
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    rows, samples = _tasks_and_samples()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sample_file = tmp_path / "samples.jsonl"
    sample_file.write_text("".join(json.dumps(s) + "\n" for s in samples))
    out = tmp_path / "out"
    argv = [
        sys.executable,
        "-m",
        "biocoder_metric",
        "evaluate",
        "--tasks",
        str(tasks),
        "--samples",
        str(sample_file),
        "--out",
        str(out),
        "--k",
        "1",
        "--sandbox",
        sandbox,
        "--fuzz-cases",
        "2",
        "--timeout",
        "5",
        "--workers",
        "2",
        "--no-progress",
        "--golden-cache",
        str(tmp_path / "g"),
    ]
    if allow_partial:
        argv.append("--allow-partial")
    proc = subprocess.run(
        argv, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT, env=dict(os.environ)
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    _check_scores(summary["per_task"], summary["pass@1"], [r["task_id"] for r in rows])
    assert "partial" not in summary and summary["infra_errors"] == []
    assert "PARTIAL" not in proc.stdout
    statuses = summary["status_counts"]
    assert statuses["passed"] == len(rows) and statuses["sandbox_error"] == 0


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_sabotage_leaves_the_score_at_25_percent_through_the_metric(sandbox, tmp_path, monkeypatch):
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    import evaluate

    monkeypatch.setenv("BIOCODER_CACHE_DIR", str(tmp_path / "cache"))
    rows, samples = _tasks_and_samples()
    by_task: dict[str, list[str]] = {}
    for s in samples:
        by_task.setdefault(s["task_id"], []).append(s["completion"])
    metric = evaluate.load(str(REPO_ROOT / "biocoder_passk"))
    out = metric.compute(
        predictions=[by_task[r["task_id"]] for r in rows],
        references=[json.dumps(r) for r in rows],
        k=[1],
        sandbox=sandbox,
        fuzz_cases=2,
        timeout=5,
        workers=2,
    )
    per_task = {t: v for t, v in out["details"]["per_task"].items()}
    _check_scores(per_task, out["pass@1"], [r["task_id"] for r in rows])
    assert out["partial"] is False and out["details"]["infra_errors"] == []


def test_a_sandbox_the_candidate_really_kills_is_attributed_by_the_canary(tmp_path, monkeypatch):
    """The attribution path with a real failure: an unguarded worker dies of the candidate's
    SIGINT to pid 1; retried, it dies again; the canary runs cleanly -> sandbox_killed, in n."""
    sandbox = "bwrap"
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    from biocoder_metric.execution import EvalOptions, run_evaluation
    from biocoder_metric.sandbox import bubblewrap
    from biocoder_metric.scoring.accounting import account

    real_argv = bubblewrap.BwrapSandbox.bwrap_argv
    monkeypatch.setattr(bubblewrap.BwrapSandbox, "bwrap_argv", lambda self: [*real_argv(self), "--unguarded"])
    row = tiny_task("canary_py", "python")
    wrong = _py_wrong(
        PY_SABOTAGE["signals_pid1"].replace("sorted(signal.valid_signals())", "[signal.SIGINT]")
    )
    samples = [{"task_id": "canary_py", "completion": c} for c in (PY_GOLDEN, wrong, wrong, wrong)]
    options = EvalOptions(
        sandbox=sandbox, workers=1, fuzz_cases=2, timeout_s=5, golden_cache_dir=str(tmp_path / "g")
    )
    # The worker must die of the SIGINT whatever disposition it inherits: a test run started in
    # the background inherits SIGINT ignored, the worker kept it, the kernel dropped the case's
    # SIGINT to pid 1, and the wrong samples came out ``failed`` (seen in full local runs, never in
    # CI, and depending on which earlier test of the same xdist worker had reset SIGINT). So the
    # sandboxes here are started with SIGINT ignored, the case that failed.
    import signal

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        run = run_evaluation([row], samples, options, progress=False)
    finally:
        signal.signal(signal.SIGINT, before)
    statuses = [r.status for r in run.results]
    seen = [(r.status, ((r.first_failure or {}).get("stderr_tail") or "")[-400:]) for r in run.results]
    assert statuses == ["passed", "sandbox_killed", "sandbox_killed", "sandbox_killed"], seen
    books = account(run.results, run.task_set, run.missing)
    assert books.counts == {"canary_py": (4, 1)} and not books.partial
    assert "canary job then ran cleanly" in run.results[1].first_failure["stderr_tail"]
    assert Path(tmp_path).exists()
