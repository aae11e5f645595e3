"""Hostile candidates through the real harness path, for each real sandbox (bwrap, docker).

Every program of ``tests/hostile/`` (fork/thread bombs, memory and disk fillers, floods,
sleepers, signal games, daemons, network, secret readers, writers, killers, tamperers, ...)
is submitted as the *solution* of a tiny harness task (``f(x) = 2x``), followed by a wrong
solution that must still be judged ``failed``. The evaluator runs as its own process with
canary secrets in its environment and HOME. Afterwards, per program:

* the sample's status is the one its header promises (``# expect:``);
* nothing escaped: no process carrying its marker outlived its case, canary files are
  unchanged, the canary never appears in the results, the host listener got no
  connection, no marker-named file appeared on the host, hostname / pid_max unchanged;
* the evaluator exited 0 having judged every sample.

The ``none`` sandbox is deliberately not run here: it contains none of this (see
docs/security.md), and several programs would damage the shared test machine.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import signal
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from reliability_support import (
    JAVA_GOLDEN,
    JAVA_WRONG,
    PY_GOLDEN,
    PY_WRONG,
    REPO_ROOT,
    Canaries,
    HostListener,
    ProcessWatch,
    egress_ipv4_addresses,
    evaluator_env,
    host_ipv4_addresses,
    load_corpus,
    marker_processes,
    record,
    run_evaluator,
    sandbox_reason,
    tiny_task,
)

CORPUS = load_corpus()
TIMEOUT_S = 3.0
#: Programs that attack the host<->worker channel run last in their language's batch: if one
#: gets through (e.g. forged result lines left in the host's read buffer) it must not poison
#: the verdicts of the programs after it, so each finding is attributed to its own program.
CHANNEL_ATTACKERS = ("py_kill_evaluator", "py_pid1_output_flood", "py_protocol_forgery")
MEMORY_MB = 256

#: Which host-side check speaks for which program (a program may be named by several).
NETWORK = {"py_network_ip", "py_network_dns", "java_network"}
WRITERS = {"py_write_outside", "py_delete_outside", "py_tamper_results", "java_write_outside"}
FILLERS = {"py_disk_fill_tmp", "py_disk_fill_shm", "py_disk_fill_dev"}
KERNEL = {"py_proc_sys_write"}
TAMPER = {"py_tamper_results"}


def test_corpus_is_complete() -> None:
    """The issue asks for at least 25 programs, Python and Java, each with a stated expectation."""
    assert len(CORPUS) >= 25
    langs = {p.language for p in CORPUS}
    assert langs == {"python", "java"}
    for p in CORPUS:
        assert p.contained and p.description, p.name


def _pid_max() -> str:
    return Path("/proc/sys/kernel/pid_max").read_text().strip()


def _marker_files(run_prefix: str, canaries: Canaries) -> list[str]:
    patterns = [
        f"/tmp/{run_prefix}*",
        f"/dev/shm/{run_prefix}*",
        f"/dev/{run_prefix}*",
        f"/var/tmp/{run_prefix}*",
        f"/etc/{run_prefix}*",
    ]
    patterns += [f"{REPO_ROOT}/{run_prefix}*", f"{canaries.home}/{run_prefix}*"]
    return sorted(p for pat in patterns for p in glob.glob(pat))


def _forged_records(out_dir: Path) -> list[str]:
    """Lines of the output files that are not genuine results (a tamperer appended them)."""
    bad = []
    for name in ("results.partial.jsonl", "results.jsonl"):
        path = out_dir / name
        if not path.exists():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            try:
                rec = json.loads(line)
            except ValueError:
                bad.append(f"{name}:{n}: not JSON")
                continue
            if not str(rec.get("task_id", "")).startswith("hostile_") or "program_hash" not in rec:
                bad.append(f"{name}:{n}: {line[:80]}")
    return bad


def _build_samples(
    tokens: dict[str, str], run_prefix: str
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Samples in order (golden first, then hostile/wrong pairs per language, golden last)."""
    samples: list[dict[str, Any]] = []
    plan: dict[str, dict[str, Any]] = {}
    counters = {"hostile_py": 0, "hostile_java": 0}

    def add(task_id: str, solution: str) -> tuple[str, int]:
        samples.append({"task_id": task_id, "solution": solution})
        counters[task_id] += 1
        return task_id, counters[task_id] - 1

    order = sorted(
        range(len(CORPUS)),
        key=lambda i: (
            CORPUS[i].name in CHANNEL_ATTACKERS,
            CHANNEL_ATTACKERS.index(CORPUS[i].name) if CORPUS[i].name in CHANNEL_ATTACKERS else 0,
            CORPUS[i].name,
        ),
    )
    for lang, task_id, golden, wrong in (
        ("java", "hostile_java", JAVA_GOLDEN, JAVA_WRONG),
        ("python", "hostile_py", PY_GOLDEN, PY_WRONG),
    ):
        add(task_id, golden)
        for i in order:
            prog = CORPUS[i]
            if prog.language != lang:
                continue
            marker = f"{run_prefix}{i:03d}"
            key = add(task_id, prog.render({**tokens, "MARKER": marker}))
            # Python: a wrong answer right after every program (cheap); Java compiles each job
            # in a fresh JVM (~2 s), so its programs share the wrong answer at the end.
            follow = add(task_id, wrong) if lang == "python" else None
            plan[prog.name] = {"program": prog, "key": key, "follow": follow, "marker": marker}
        last_wrong = add(task_id, wrong)
        for entry in plan.values():
            if entry.get("follow", "") is None:
                entry["follow"] = last_wrong
        plan[f"_{task_id}_golden_last"] = {"key": add(task_id, golden)}
    return samples, plan


def _hostile_run(sandbox: str, tmp_path: Path) -> tuple[dict[str, list[str]], list[str], dict[str, Any]]:
    """Run the whole corpus on one sandbox; per program the list of problems (empty = contained)."""
    run_prefix = f"bchx{secrets.token_hex(3)}"
    canaries = Canaries(tmp_path / "canaries")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "canary.txt").write_text(f"output-dir secret {canaries.value}\n")
    out_canary = (out_dir / "canary.txt").read_bytes()
    cache_dir = tmp_path / "golden-cache"
    env = evaluator_env(cache_dir, canaries.env())
    hostname, pid_max = socket.gethostname(), _pid_max()

    with HostListener() as listener:
        tokens = {
            "CANARY_DIR": str(canaries.home),
            "OUT_DIR": str(out_dir),
            "PRIOR_DIR": str(canaries.prior),
            "CACHE_DIR": str(cache_dir),
            "REPO_ROOT": str(REPO_ROOT),
            "HOST_PORT": str(listener.port),
            "HOST_IPS": ",".join(host_ipv4_addresses()),
            "EGRESS_IPS": ",".join(egress_ipv4_addresses()),
        }
        samples, plan = _build_samples(tokens, run_prefix)
        problems = [tiny_task("hostile_py", "python"), tiny_task("hostile_java", "java")]
        options = {
            "sandbox": sandbox,
            "workers": 1,
            "fuzz_cases": 1,
            "timeout_s": TIMEOUT_S,
            "memory_mb": MEMORY_MB,
        }
        with ProcessWatch(run_prefix, done_file=out_dir / "results.partial.jsonl") as watch:
            run = run_evaluator(problems, samples, options, out_dir, env=env, timeout=900, spec_dir=tmp_path)
        leftovers = marker_processes(run_prefix)
        for pid, _ in leftovers:  # clean up what escaped, after recording it
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        accepted = list(listener.accepted)

    marker_files = _marker_files(run_prefix, canaries)
    for path in marker_files:
        try:
            os.remove(path)
        except OSError:
            pass
    kernel_changed = socket.gethostname() != hostname or _pid_max() != pid_max

    results = {(r["task_id"], r["sample_index"]): r for r in run.results}
    texts = {k: json.dumps(r, sort_keys=True) for k, r in results.items()}
    forged_records = _forged_records(out_dir)
    canary_changes = canaries.changes()
    cache_forged = [
        p for p in cache_dir.rglob("*") if p.is_file() and "FORGED" in p.read_text(errors="replace")
    ]

    problems_found: dict[str, list[str]] = {}
    global_problems: list[str] = []
    if run.returncode != 0:
        global_problems.append(f"evaluator exited {run.returncode}: {run.stderr[-3000:]}")
    if canaries.value in run.stdout + run.stderr:
        global_problems.append("the canary appears in the evaluator's own output")
    if (out_dir / "canary.txt").read_bytes() != out_canary:
        global_problems.append("out_dir/canary.txt was changed")

    for name, entry in plan.items():
        key = entry["key"]
        got = results.get(key)
        if name.startswith("_"):
            if got is None or got["status"] != "passed":
                global_problems.append(f"{name}: golden after the corpus not passed: {got and got['status']}")
            continue
        prog = entry["program"]
        issues = problems_found.setdefault(name, [])
        if got is None:
            issues.append("no result (evaluator died or lost the sample)")
        else:
            if got["status"] != prog.expect:
                ff = got.get("first_failure") or {}
                issues.append(
                    f"status {got['status']!r}, expected {prog.expect!r} "
                    f"(stdout tail {ff.get('actual_tail', '')[-200:]!r}, stderr tail {ff.get('stderr_tail', '')[-300:]!r})"
                )
            if canaries.value in texts[key]:
                issues.append("the canary secret appears in its result")
        follow = results.get(entry["follow"])
        if follow is None or follow["status"] != "failed":
            issues.append(
                f"the wrong sample after it was judged {follow and follow['status']!r}, not 'failed'"
            )
        marker = entry["marker"]
        if entry["follow"] in watch.alive_while_done.get(marker, set()):
            issues.append(f"a process carrying its marker {marker} outlived the case")
        if any(marker in text for _, text in leftovers):
            issues.append(
                f"a process carrying its marker {marker} was still alive after the evaluator exited"
            )
        if any(marker in path for path in marker_files):
            issues.append(f"files it named exist on the host: {[p for p in marker_files if marker in p]}")
        if name in NETWORK and accepted:
            issues.append(f"the host listener accepted connections from {accepted}")
        if name in WRITERS and canary_changes:
            issues.append(f"canary files changed: {canary_changes[:5]}")
        if name in KERNEL and kernel_changed:
            issues.append("host hostname or kernel.pid_max changed")
        if name in TAMPER and (forged_records or cache_forged):
            issues.append(
                f"forged records reached the results {forged_records[:3]} or the golden cache {cache_forged[:3]}"
            )

    # Host-side findings no program claimed still count against the sandbox.
    claimed = {e["marker"] for e in plan.values() if "marker" in e}
    stray = [t for _, t in leftovers if not any(m in t for m in claimed)]
    if stray:
        global_problems.append(f"unattributed leftover processes: {stray[:5]}")
    if canary_changes and not any(n in plan for n in WRITERS):
        global_problems.append(f"canary files changed: {canary_changes[:5]}")

    statuses = {name: results.get(plan[name]["key"], {}).get("status") for name in problems_found}
    return problems_found, global_problems, {"statuses": statuses, "wall_s": run.wall_s}


SANDBOXES = ("bwrap", "docker")


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both sandboxes' runs, concurrently (half the wall time: most of it is waiting on timeouts)."""
    reasons = {sb: sandbox_reason(sb) for sb in SANDBOXES}
    outcomes: dict[str, Any] = {}
    hostname, pid_max = socket.gethostname(), _pid_max()

    def work(sb: str) -> None:
        try:
            outcomes[sb] = _hostile_run(sb, tmp_path_factory.mktemp(f"hostile-{sb}"))
        except BaseException as exc:  # noqa: B036 - reported by the test of that sandbox
            outcomes[sb] = exc

    threads = [threading.Thread(target=work, args=(sb,)) for sb in SANDBOXES if not reasons[sb]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Undo what an escape may have changed on the host (after recording it).
    if socket.gethostname() != hostname:
        socket.sethostname(hostname)
    if _pid_max() != pid_max:
        Path("/proc/sys/kernel/pid_max").write_text(pid_max)
    return {"reasons": reasons, "outcomes": outcomes}


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_hostile_programs_are_contained(sandbox: str, hostile_runs: dict[str, Any]) -> None:
    reason = hostile_runs["reasons"][sandbox]
    if reason:
        pytest.skip(f"{sandbox} sandbox not available here: {reason}")
    outcome = hostile_runs["outcomes"][sandbox]
    if isinstance(outcome, BaseException):
        raise outcome
    problems_found, global_problems, meta = outcome
    for name, issues in problems_found.items():
        prog = next(p for p in CORPUS if p.name == name)
        record(
            "hostile",
            sandbox=sandbox,
            program=name,
            language=prog.language,
            expect=prog.expect,
            status=meta["statuses"][name],
            contained=not issues,
            issues=issues,
        )
    record("hostile_run", sandbox=sandbox, wall_s=round(meta["wall_s"], 1), global_problems=global_problems)

    escaped = {n: i for n, i in problems_found.items() if i}
    message = "\n".join(
        [f"{sandbox}: {len(escaped)} of {len(problems_found)} programs not contained:"]
        + [f"  {n}: {'; '.join(i)}" for n, i in sorted(escaped.items())]
        + [f"  (run) {p}" for p in global_problems]
    )
    assert not escaped and not global_problems, message
