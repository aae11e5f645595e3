"""Fault injection on the real ``biocoder evaluate`` command (subprocess, real sandboxes).

* The evaluator is SIGKILLed at seeded random moments of a run, several times, and rerun
  with the same command each time: the final ``results.jsonl`` must be byte-identical to
  an uninterrupted run's, every sample recorded exactly once in the resume log.
* The sandbox dies under a running evaluator (``docker kill`` of its worker container; the
  bwrap process tree killed from the host): the affected samples are retried or marked
  ``sandbox_error``, never judged ``failed``/``passed`` wrongly, and the run completes.
* The Docker daemon restarts under a running evaluator (SIGTERM, as a service restart, and
  SIGKILL, a crash; then started again as scripts/setup_docker.sh does): the run completes, or
  stops with a clear error and the same command resumes and completes; every sample ends with
  its reference status or ``sandbox_error`` (few), and no container of ours is left behind.
* The output directory runs out of space (a 48 KiB tmpfs mounted as ``--out``): a clear
  error and a non-zero exit, every line already written intact, and a rerun in a roomy
  copy of the directory completes to the same results as an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reliability_support import REPO_ROOT, descendants, evaluator_env, pid_alive, record, sandbox_reason

SLEEP_S = 0.15
BASE_ARGS = [
    "--config",
    "demo",
    "--workers",
    "1",
    "--fuzz-cases",
    "2",
    "--timeout",
    "5",
    "--no-progress",
    "--allow-missing",
]  # Python and Rosalind tasks only: the Java ones are missing on purpose


def _demo_samples(path: Path) -> int:
    """Golden, mutant and a slightly slow golden for every Python/Rosalind demo task."""
    from biocoder_dataset.configs import load_problems

    lines = []
    for row in load_problems("demo"):
        if row["language"] != "python":
            continue
        mutant = json.loads(row["metadata"] or "{}").get("mutant_code")
        lines.append({"task_id": row["task_id"], "completion": row["golden_code"]})
        if mutant:
            lines.append({"task_id": row["task_id"], "completion": mutant})
        lines.append(
            {
                "task_id": row["task_id"],
                "completion": f"import time\ntime.sleep({SLEEP_S})\n" + row["golden_code"],
            }
        )
    path.write_text("".join(json.dumps(s) + "\n" for s in lines), encoding="utf-8")
    return len(lines)


def _env(cache: Path) -> dict[str, str]:
    """A private golden cache per run, so a faulted run recomputes everything itself."""
    return evaluator_env(cache)


def _cmd(samples: Path, out: Path, sandbox: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "biocoder_metric",
        "evaluate",
        "--samples",
        str(samples),
        "--out",
        str(out),
        "--sandbox",
        sandbox,
        *BASE_ARGS,
    ]


def _partial_keys(out: Path) -> list[tuple[str, int]]:
    path = out / "results.partial.jsonl"
    if not path.exists():
        return []
    keys = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)  # every complete line must parse
        keys.append((d["task_id"], d["sample_index"]))
    return keys


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """An uninterrupted bwrap run: the results every faulted run must reproduce."""
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    root = tmp_path_factory.mktemp("reference")
    samples = root / "samples.jsonl"
    n = _demo_samples(samples)
    start = time.monotonic()
    proc = subprocess.run(
        _cmd(samples, root / "out", "bwrap"),
        env=_env(root / "cache"),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    final = (root / "out" / "results.jsonl").read_bytes()
    assert final.count(b"\n") == n
    return {"samples": samples, "n": n, "final": final, "wall_s": time.monotonic() - start}


def _statuses(blob: bytes) -> dict[tuple[str, int], str]:
    return {
        (d["task_id"], d["sample_index"]): d["status"] for d in map(json.loads, blob.decode().splitlines())
    }


@pytest.mark.slow
def test_sigkill_at_random_points_then_resume(reference: dict, tmp_path: Path) -> None:
    rng = random.Random(20240607)
    samples, n = reference["samples"], reference["n"]
    out, env = tmp_path / "out", _env(tmp_path / "cache")
    cmd = _cmd(samples, out, "bwrap")
    kills = 0
    progress = []
    sandbox_pids: set[int] = set()
    for attempt in range(4):
        proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT
        )
        # Random points across the whole run: start-up, golden computation, mid-sample.
        until = time.monotonic() + rng.uniform(0.8, max(1.0, reference["wall_s"] * 0.6))
        # The last attempt waits (bounded) until a sandbox is up, so at least one kill lands
        # while bwrap runs even when start-up is slow on a loaded machine.
        must_see_sandbox = attempt == 3 and not sandbox_pids
        while proc.poll() is None and (
            time.monotonic() < until
            or (must_see_sandbox and not sandbox_pids and time.monotonic() < until + 60)
        ):
            sandbox_pids |= {p for p, comm in descendants(proc.pid).items() if comm == "bwrap"}
            time.sleep(0.05)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        keys = _partial_keys(out)
        assert len(keys) == len(set(keys)), f"a sample was recorded twice after kill {attempt}: {keys}"
        progress.append(len(keys))
    # Finish with the same command, uninterrupted.
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    keys = _partial_keys(out)
    final = (out / "results.jsonl").read_bytes()
    lost = n - len(set(keys))
    twice = len(keys) - len(set(keys))
    identical = final == reference["final"]
    # No sandbox of a killed evaluator may survive it (bwrap --die-with-parent).
    time.sleep(0.5)
    survivors = sorted(p for p in sandbox_pids if pid_alive(p))
    record(
        "fault",
        fault="sigkill_evaluator",
        sandbox="bwrap",
        injected=kills,
        recovered=int(identical and not lost and not twice and not survivors),
        lost=lost,
        duplicated=twice,
        progress=progress,
        survivors=len(survivors),
    )
    assert kills >= 3, f"only {kills} kills landed before the run ended (progress {progress})"
    assert lost == 0 and twice == 0
    assert identical, "results after kill+resume differ from the uninterrupted run"
    assert sandbox_pids, "no bwrap sandbox was seen under the evaluator"
    assert not survivors, f"sandbox processes outlived their killed evaluator: {survivors}"


def _kill_sandbox(sandbox: str, evaluator_pid: int, cache: Path) -> bool:
    """Kill the sandbox under a running evaluator from the outside. True if something was killed."""
    if sandbox == "docker":
        ids = subprocess.run(
            ["docker", "ps", "-q", "--filter", f"label=biocoder-eval.pid={evaluator_pid}"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
        for cid in ids:
            subprocess.run(["docker", "kill", cid], capture_output=True, timeout=60)
        return bool(ids)
    killed = False
    for pid, comm in descendants(evaluator_pid).items():
        if comm == "bwrap":
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed = True
    return killed


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["docker", "bwrap"])
def test_sandbox_dies_mid_run(sandbox: str, reference: dict, tmp_path: Path) -> None:
    reason = sandbox_reason(sandbox)
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    samples = reference["samples"]
    out, cache = tmp_path / "out", tmp_path / "cache"
    proc = subprocess.Popen(
        _cmd(samples, out, sandbox),
        env=_env(cache),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    kills, seen = 0, 0
    deadline = time.monotonic() + 300
    # Kill the sandbox each time a few more samples have finished, so kills land mid-run.
    while proc.poll() is None and time.monotonic() < deadline and kills < 3:
        done = len(_partial_keys(out))
        if done >= seen + 6 and _kill_sandbox(sandbox, proc.pid, cache):
            kills += 1
            seen = done
        time.sleep(0.1)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    got = _statuses((out / "results.jsonl").read_bytes())
    want = _statuses(reference["final"])
    wrong = {k: (got.get(k), v) for k, v in want.items() if got.get(k) not in (v, "sandbox_error")}
    retried = sum(1 for k, v in want.items() if got.get(k) == v)
    record(
        "fault",
        fault="sandbox_killed_mid_run",
        sandbox=sandbox,
        injected=kills,
        recovered=int(not wrong and len(got) == len(want)),
        lost=len(want) - len(got),
        wrong=len(wrong),
        sandbox_errors=sum(1 for s in got.values() if s == "sandbox_error"),
        retried_ok=retried,
    )
    assert kills >= 2, f"only {kills} sandbox kills landed"
    assert len(got) == len(want), "samples lost"
    assert not wrong, f"samples judged wrongly after the sandbox died (got, reference): {wrong}"
    # No container of this evaluator is left behind.
    if sandbox == "docker":
        left = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=biocoder-eval.pid={proc.pid}"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
        assert not left, f"containers left behind: {left}"


@contextlib.contextmanager
def _small_tmpfs(path: Path, size: str):
    path.mkdir(parents=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to simulate a full disk (needs root): {proc.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.mark.slow
def test_disk_full_while_writing_results(reference: dict, tmp_path: Path) -> None:
    if shutil.which("mount") is None:
        pytest.skip("no mount command to simulate a full disk")
    samples, n = reference["samples"], reference["n"]
    with _small_tmpfs(tmp_path / "full", "48k") as out:
        proc = subprocess.run(
            _cmd(samples, out, "bwrap"),
            env=_env(tmp_path / "cache"),
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO_ROOT,
        )
        written = (
            (out / "results.partial.jsonl").read_bytes() if (out / "results.partial.jsonl").exists() else b""
        )
        copy = tmp_path / "roomy"
        shutil.copytree(out, copy)
    err = proc.stderr
    complete = written[: written.rfind(b"\n") + 1]
    lines_ok = all(json.loads(line) for line in complete.decode().splitlines())
    # The resume log is the record of what was done: resuming from it elsewhere must finish the job.
    resumed = subprocess.run(
        _cmd(samples, copy, "bwrap"),
        env=_env(tmp_path / "cache"),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    final = (copy / "results.jsonl").read_bytes() if resumed.returncode == 0 else b""
    clear = "No space left on device" in err and "Traceback" not in err
    record(
        "fault",
        fault="disk_full",
        sandbox="bwrap",
        injected=1,
        recovered=int(proc.returncode != 0 and lines_ok and final == reference["final"]),
        lost=0 if final == reference["final"] else n,
        clear_error=clear,
        exit_code=proc.returncode,
        lines_before_full=complete.count(b"\n"),
    )
    assert proc.returncode != 0, "a run that could not write its results must not exit 0"
    assert 0 < complete.count(b"\n") < n, "the tmpfs should fill part-way through the run"
    assert lines_ok
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert final == reference["final"]
    assert clear, f"the error should say the disk is full, without a traceback; stderr was:\n{err[-2500:]}"


# --------------------------------------------------------------------------- daemon restart


def _dockerd_pids() -> list[int]:
    """Host pids of processes named exactly ``dockerd`` (read from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{entry}/comm").read_text().strip() == "dockerd" and pid_alive(int(entry)):
                    pids.append(int(entry))
    return pids


def _engine_up(timeout: float = 20) -> bool:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(["docker", "version"], capture_output=True, timeout=timeout).returncode == 0
    return False


def _daemon_restart_reason() -> str | None:
    """Why this test may not restart the Docker daemon here, or None when it may."""
    host = os.environ.get("DOCKER_HOST", "")
    if host and host != "unix:///var/run/docker.sock":
        return f"DOCKER_HOST={host} is not a local daemon this test could restart"
    if os.geteuid() != 0:
        return "restarting dockerd needs root"
    if shutil.which("dockerd") is None:
        return "no dockerd binary here (the engine is not ours to restart)"
    if len(_dockerd_pids()) != 1:
        return f"expected exactly one local dockerd process, found {_dockerd_pids()} (not started by scripts/setup_docker.sh?)"
    return None


def _start_dockerd() -> None:
    """Start dockerd exactly as scripts/setup_docker.sh does (``nohup setsid dockerd``), wait until it answers."""
    cache = Path(
        os.environ.get("BIOCODER_CACHE_DIR", Path(os.environ.get("HOME", "/root")) / ".cache" / "biocoder")
    )
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "dockerd.log", "ab") as log:
        subprocess.Popen(
            ["nohup", "setsid", "dockerd"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + 90
    while not _engine_up(10):
        assert time.monotonic() < deadline, "dockerd did not come back within 90 s"
        time.sleep(0.5)


def _restart_dockerd(sig: signal.Signals, down_s: float) -> dict[str, float]:
    """Stop the local dockerd with ``sig`` (SIGTERM: a service restart, which first stops every
    container, up to 10 s each; SIGKILL: a crash), keep it down ``down_s``, start it again."""
    (pid,) = _dockerd_pids()
    t0 = time.monotonic()
    os.kill(pid, sig)
    while pid_alive(pid):
        if time.monotonic() - t0 > 30:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    stopped = time.monotonic()
    time.sleep(down_s)
    _start_dockerd()
    return {"stop_s": round(stopped - t0, 2), "unreachable_s": round(time.monotonic() - stopped, 2)}


@pytest.mark.slow
@pytest.mark.docker
@pytest.mark.serial  # the engine goes away: any docker test running beside it would see no engine
@pytest.mark.parametrize(
    ("sig", "copies"),
    [(signal.SIGTERM, 3), (signal.SIGKILL, 3), (signal.SIGTERM, 1)],
    ids=["restart", "crash", "restart-as-run-ends"],
)
def test_docker_daemon_restarts_mid_run(
    sig: signal.Signals, copies: int, reference: dict, tmp_path: Path
) -> None:
    """The daemon goes away under a running evaluator and comes back (WARNING: every container
    on this engine is stopped, other users' too). A SIGTERMed daemon keeps serving attached
    streams while it stops containers (~10 s), so with every reference sample three times
    samples are still due once the engine is gone; with one copy the run usually ends while
    the engine is away, and its last container must still be removed."""
    reason = _daemon_restart_reason() or sandbox_reason("docker")
    if reason:
        pytest.skip(f"cannot restart the Docker daemon under a run here: {reason}")
    lines = reference["samples"].read_text(encoding="utf-8").splitlines(keepends=True)
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(line for line in lines for _ in range(copies)), encoding="utf-8")
    # Same completion, same verdict: the reference status of each (task, completion).
    by_code = {
        (d["task_id"], d["completion"]): d["status"]
        for d in map(json.loads, reference["final"].decode().splitlines())
    }
    want: dict[tuple[str, int], str] = {}
    seen: dict[str, int] = {}
    for d in (json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()):
        index = seen[d["task_id"]] = seen.get(d["task_id"], -1) + 1
        want[(d["task_id"], index)] = by_code[(d["task_id"], d["completion"])]
    out, env = tmp_path / "out", _env(tmp_path / "cache")
    cmd = _cmd(samples, out, "docker")
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT
    )
    pids = [proc.pid]
    timing: dict[str, float] = {}
    done_at_restart = -1
    try:
        deadline = time.monotonic() + 300
        # Restart once some samples are judged (goldens done, a worker container busy).
        while proc.poll() is None and time.monotonic() < deadline:
            done_at_restart = len(_partial_keys(out))
            if done_at_restart >= 6:
                timing = _restart_dockerd(sig, down_s=2.0)
                break
            time.sleep(0.1)
        _, err = proc.communicate(timeout=600)
    finally:
        if not _engine_up():  # never leave the machine without its engine
            _start_dockerd()
    first_rc, reruns, done_first = proc.returncode, 0, len(_partial_keys(out))
    errors = [err]
    while proc.returncode != 0 and reruns < 2:
        # A run that stopped must say why, without a traceback, and the same command must resume.
        reruns += 1
        proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT
        )
        pids.append(proc.pid)
        _, rerun_err = proc.communicate(timeout=600)
        errors.append(rerun_err)
    got = _statuses((out / "results.jsonl").read_bytes()) if proc.returncode == 0 else {}
    wrong = {k: (got.get(k), v) for k, v in want.items() if got.get(k) not in (v, "sandbox_error")}
    sandbox_errors = sorted(k for k, s in got.items() if s == "sandbox_error")
    left = [
        f"{c} (run {n}, pid {p})"
        for n, p in enumerate(pids)
        for c in subprocess.run(
            [
                "docker",
                "ps",
                "-a",
                "--filter",
                f"label=biocoder-eval.pid={p}",
                "--format",
                "{{.ID}} {{.Status}}",
            ],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.splitlines()
    ]
    record(
        "fault",
        fault=f"docker_daemon_{'restart' if sig == signal.SIGTERM else 'crash'}_x{copies}",
        sandbox="docker",
        injected=int(bool(timing)),
        recovered=int(proc.returncode == 0 and not wrong and len(got) == len(want) and not left),
        lost=len(want) - len(got),
        wrong=len(wrong),
        sandbox_errors=len(sandbox_errors),
        first_exit=first_rc,
        reruns=reruns,
        done_at_restart=done_at_restart,
        done_by_first_run=done_first,
        samples=len(want),
        containers_left=len(left),
        clear_error=all("Traceback" not in e for e in errors),
        first_error=(errors[0].strip().splitlines() or [""])[-1][:300] if first_rc else "",
        **timing,
    )
    assert timing, f"the run ended before the daemon could be restarted ({done_at_restart} samples done)"
    for e in errors[:-1]:
        assert "Traceback" not in e and e.strip(), (
            f"a run stopped by the daemon restart must say why, without a traceback:\n{e[-3000:]}"
        )
    assert proc.returncode == 0, f"the rerun did not complete after {reruns} tries:\n{errors[-1][-3000:]}"
    assert len(got) == len(want), "samples lost"
    assert not wrong, f"samples judged wrongly across the daemon restart (got, reference): {wrong}"
    # Only samples whose container the restart killed, or that ran while the engine was away, may be
    # sandbox errors: a handful with --workers 1, never a large share of the run.
    assert len(sandbox_errors) <= 3, f"too many sandbox errors for one brief restart: {sandbox_errors}"
    assert not left, f"containers left behind: {left}"
