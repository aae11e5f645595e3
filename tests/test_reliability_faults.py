"""Fault injection on the real ``biocoder evaluate`` command (subprocess, real sandboxes).

* The evaluator is SIGKILLed at seeded random moments of a run, several times, and rerun
  with the same command each time: the final ``results.jsonl`` must be byte-identical to
  an uninterrupted run's, every sample recorded exactly once in the resume log.
* The sandbox dies under a running evaluator (``docker kill`` of its worker container; the
  bwrap process tree killed from the host): the affected samples are retried or marked
  ``sandbox_error``, never judged ``failed``/``passed`` wrongly, and the run completes.
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
BASE_ARGS = ["--config", "demo", "--workers", "1", "--fuzz-cases", "2", "--timeout", "5", "--no-progress"]


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
        lines.append({"task_id": row["task_id"], "completion": f"import time\ntime.sleep({SLEEP_S})\n" + row["golden_code"]})
    path.write_text("".join(json.dumps(s) + "\n" for s in lines), encoding="utf-8")
    return len(lines)


def _env(cache: Path) -> dict[str, str]:
    """A private golden cache per run, so a faulted run recomputes everything itself."""
    return evaluator_env(cache)


def _cmd(samples: Path, out: Path, sandbox: str) -> list[str]:
    return [sys.executable, "-m", "biocoder_metric", "evaluate", "--samples", str(samples), "--out", str(out), "--sandbox", sandbox, *BASE_ARGS]


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
    proc = subprocess.run(_cmd(samples, root / "out", "bwrap"), env=_env(root / "cache"), capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    final = (root / "out" / "results.jsonl").read_bytes()
    assert final.count(b"\n") == n
    return {"samples": samples, "n": n, "final": final, "wall_s": time.monotonic() - start}


def _statuses(blob: bytes) -> dict[tuple[str, int], str]:
    return {(d["task_id"], d["sample_index"]): d["status"] for d in map(json.loads, blob.decode().splitlines())}


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
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
        # Random points across the whole run: start-up, golden computation, mid-sample.
        until = time.monotonic() + rng.uniform(0.8, max(1.0, reference["wall_s"] * 0.6))
        # The last attempt waits (bounded) until a sandbox is up, so at least one kill lands
        # while bwrap runs even when start-up is slow on a loaded machine.
        must_see_sandbox = attempt == 3 and not sandbox_pids
        while proc.poll() is None and (
            time.monotonic() < until or (must_see_sandbox and not sandbox_pids and time.monotonic() < until + 60)
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
    record("fault", fault="sigkill_evaluator", sandbox="bwrap", injected=kills, recovered=int(identical and not lost and not twice),
           lost=lost, duplicated=twice, progress=progress, survivors=len(survivors))
    assert kills >= 3, f"only {kills} kills landed before the run ended (progress {progress})"
    assert lost == 0 and twice == 0
    assert identical, "results after kill+resume differ from the uninterrupted run"
    assert sandbox_pids, "no bwrap sandbox was seen under the evaluator"
    assert not survivors, f"sandbox processes outlived their killed evaluator: {survivors}"


def _kill_sandbox(sandbox: str, evaluator_pid: int, cache: Path) -> bool:
    """Kill the sandbox under a running evaluator from the outside. True if something was killed."""
    if sandbox == "docker":
        ids = subprocess.run(
            ["docker", "ps", "-q", "--filter", f"label=biocoder-eval.pid={evaluator_pid}"], capture_output=True, text=True, timeout=30
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
    proc = subprocess.Popen(_cmd(samples, out, sandbox), env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
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
    record("fault", fault="sandbox_killed_mid_run", sandbox=sandbox, injected=kills,
           recovered=int(not wrong and len(got) == len(want)), lost=len(want) - len(got), wrong=len(wrong),
           sandbox_errors=sum(1 for s in got.values() if s == "sandbox_error"), retried_ok=retried)
    assert kills >= 2, f"only {kills} sandbox kills landed"
    assert len(got) == len(want), "samples lost"
    assert not wrong, f"samples judged wrongly after the sandbox died (got, reference): {wrong}"
    # No container of this evaluator is left behind.
    if sandbox == "docker":
        left = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=biocoder-eval.pid={proc.pid}"], capture_output=True, text=True, timeout=30
        ).stdout.split()
        assert not left, f"containers left behind: {left}"


@contextlib.contextmanager
def _small_tmpfs(path: Path, size: str):
    path.mkdir(parents=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True, text=True)
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
        proc = subprocess.run(_cmd(samples, out, "bwrap"), env=_env(tmp_path / "cache"), capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
        written = (out / "results.partial.jsonl").read_bytes() if (out / "results.partial.jsonl").exists() else b""
        copy = tmp_path / "roomy"
        shutil.copytree(out, copy)
    err = proc.stderr
    complete = written[: written.rfind(b"\n") + 1]
    lines_ok = all(json.loads(line) for line in complete.decode().splitlines())
    # The resume log is the record of what was done: resuming from it elsewhere must finish the job.
    resumed = subprocess.run(_cmd(samples, copy, "bwrap"), env=_env(tmp_path / "cache"), capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    final = (copy / "results.jsonl").read_bytes() if resumed.returncode == 0 else b""
    clear = "No space left on device" in err and "Traceback" not in err
    record("fault", fault="disk_full", sandbox="bwrap", injected=1,
           recovered=int(proc.returncode != 0 and lines_ok and final == reference["final"]),
           lost=0 if final == reference["final"] else n, clear_error=clear, exit_code=proc.returncode,
           lines_before_full=complete.count(b"\n"))
    assert proc.returncode != 0, "a run that could not write its results must not exit 0"
    assert 0 < complete.count(b"\n") < n, "the tmpfs should fill part-way through the run"
    assert lines_ok
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert final == reference["final"]
    assert clear, f"the error should say the disk is full, without a traceback; stderr was:\n{err[-2500:]}"
