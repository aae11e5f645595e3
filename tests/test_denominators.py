"""Fixed denominators, a valid environment or no score, and infrastructure errors.

* pass@k is over the task set (the config, or ``--task-ids``), never over whichever tasks
  happen to have samples: missing tasks exit 1 and are named, or count as 0 correct.
* Goldens failing in the chosen environment exit 3 with the fix; ``--allow-partial`` labels
  the headline ``partial: N of M``.
* A sandbox error is retried on fresh sandboxes; one that persists leaves the sample out of
  n and c, listed, and the run exits 4 unless ``--allow-partial``; a rerun retries it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reliability_support import inject_sandbox_failures, sandbox_reason

REPO_ROOT = Path(__file__).resolve().parent.parent
DEMO_SAMPLES = REPO_ROOT / "examples" / "demo_samples.jsonl"


def _sandbox() -> str:
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(reason)
    return "bwrap"


def _biocoder(
    *args: str, env: dict[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biocoder_metric", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=timeout,
    )


def _first_sample(tmp_path: Path, task_id: str) -> Path:
    for line in DEMO_SAMPLES.read_text().splitlines():
        if json.loads(line)["task_id"] == task_id:
            path = tmp_path / "one.jsonl"
            path.write_text(line + "\n")
            return path
    raise AssertionError(task_id)


@pytest.mark.engine
def test_missing_tasks_exit_1_and_are_named(tmp_path):
    from biocoder_dataset.configs import load_problems

    samples = _first_sample(tmp_path, "demo_py_gc_content")
    proc = _biocoder(
        "evaluate",
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--out",
        str(tmp_path / "r"),
        "--sandbox",
        _sandbox(),
        "--no-progress",
    )
    assert proc.returncode == 1, proc.stderr
    others = sorted(r["task_id"] for r in load_problems("demo") if r["task_id"] != "demo_py_gc_content")
    assert len(others) == 20
    assert "20 of 21 tasks have no samples" in proc.stderr
    for task_id in others:
        assert task_id in proc.stderr
    assert not (tmp_path / "r" / "summary.json").exists()  # nothing was scored


@pytest.mark.slow
def test_allow_missing_counts_them_as_zero_and_task_ids_names_a_subset(tmp_path):
    samples = _first_sample(tmp_path, "demo_py_gc_content")
    common = (
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--sandbox",
        _sandbox(),
        "--no-progress",
        "--k",
        "1",
        "--fuzz-cases",
        "2",
        "--golden-cache",
        str(tmp_path / "g"),
    )
    proc = _biocoder("evaluate", *common, "--out", str(tmp_path / "a"), "--allow-missing")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["pass@1"] == pytest.approx(1 / 21)
    assert len(summary["missing"]["tasks"]) == 20 and summary["missing"]["counted_as_zero"] is True
    assert summary["task_set"]["scored"] == 21
    assert "missing: 20 tasks had no samples and count as 0 correct" in proc.stdout
    assert "| all | 21 |" in proc.stdout

    proc = _biocoder("evaluate", *common, "--out", str(tmp_path / "b"), "--task-ids", "demo_py_gc_content")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["pass@1"] == 1.0 and summary["missing"]["tasks"] == [] and "partial" not in summary

    proc = _biocoder(
        "evaluate", *common, "--out", str(tmp_path / "c"), "--task-ids", "demo_py_gc_content,nope"
    )
    assert proc.returncode == 2 and "nope" in proc.stderr


@pytest.mark.slow
@pytest.mark.upstream
def test_goldens_failing_on_the_host_python_exit_3_or_partial(tmp_path, upstream_dir):
    """The host's Python lacks the reference stack: most goldens fail, so no score (exit 3)."""
    from biocoder_dataset.configs import load_problems

    _sandbox()
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.tasks import scoreable_tasks

    rows = [r for r in load_problems("python_public", source_dir=upstream_dir) if r.get("executable")]
    # the denominator: executable tasks, less the ones the shipped audit found weak
    total = len(scoreable_tasks({r["task_id"]: r for r in rows}, EvalOptions(sandbox="bwrap")))
    assert 0 < total <= len(rows)
    samples = tmp_path / "goldens.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": r["task_id"], "completion": r["golden_code"]}) + "\n" for r in rows)
    )
    env = {**os.environ, "BIOCODER_BWRAP_ROOTFS": "host", "BIOCODER_CACHE_DIR": str(tmp_path / "cache")}
    common = (
        "evaluate",
        "--sandbox",
        "bwrap",
        "--config",
        "python_public",
        "--source-dir",
        str(upstream_dir),
        "--samples",
        str(samples),
        "--no-progress",
        "--fuzz-cases",
        "1",
        "--k",
        "1",
    )
    proc = _biocoder(*common, "--out", str(tmp_path / "r"), env=env)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "goldens fail in this environment (sandbox bwrap)" in proc.stderr
    assert f"of {total} goldens fail" in proc.stderr
    assert (
        "ModuleNotFoundError" in proc.stderr
        and "--sandbox docker" in proc.stderr
        and "--allow-partial" in proc.stderr
    )

    proc = _biocoder(*common, "--out", str(tmp_path / "p"), "--allow-partial", env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    partial = summary["partial"]
    # the evaluation-time strength check may keep more tasks out (weak or return not observed)
    flagged = summary["tasks"]["excluded_by_status"]
    strength_out = flagged.get("weak_harness", 0) + flagged.get("return_unobserved", 0)
    assert partial["of"] == len(rows) - strength_out <= total and 0 < partial["scored"] < partial["of"]
    total = partial["of"]
    assert proc.stdout.startswith(f"PARTIAL: {partial['scored']} of {total} tasks scored")
    print(f"host python: {partial['scored']} of {total} goldens usable")


# ------------------------------------------------------------------------ infrastructure errors


@pytest.mark.slow
def test_sandbox_errors_are_retried_then_attributed_by_a_canary(tmp_path, monkeypatch):
    """One failure: retried on a fresh sandbox. Two (the retry fails too) but the canary runs:
    the candidate's fault, ``sandbox_killed``, in n. Three (the canary fails too): infrastructure,
    ``sandbox_error``, out of n and c, and the run is partial."""
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.execution import EvalOptions, run_evaluation
    from biocoder_metric.scoring.summary import build_summary

    rows = [r for r in load_problems("demo") if r["task_id"] in ("demo_py_gc_content", "demo_py_hamming")]
    samples = [{"task_id": r["task_id"], "completion": r["golden_code"]} for r in rows]
    options = EvalOptions(sandbox=_sandbox(), workers=1, fuzz_cases=2, golden_cache_dir=str(tmp_path / "g"))
    # goldens first (their own pool), so that the injected faults hit candidate jobs
    run_evaluation(rows, samples, options, progress=False)

    made = inject_sandbox_failures(monkeypatch, fails=1)
    run = run_evaluation(rows, samples, options, progress=False)
    assert [r.status for r in run.results] == ["passed", "passed"] and run.infra_errors == []
    assert made[0] >= 2  # the retry ran on a new sandbox

    monkeypatch.undo()
    inject_sandbox_failures(monkeypatch, fails=2)
    run = run_evaluation(rows, samples, options, progress=False)
    assert sorted(r.status for r in run.results) == ["passed", "sandbox_killed"] and run.infra_errors == []
    summary = build_summary(run.results, [1], task_set=run.task_set, missing=run.missing)
    assert summary["pass@1"] == 0.5 and "partial" not in summary and summary["samples"]["scored"] == 2

    # Three failures in a row (job, retry, canary): that sample is left out of n and c, and listed.
    monkeypatch.undo()
    inject_sandbox_failures(monkeypatch, fails=3)
    out = tmp_path / "run"
    run = run_evaluation(rows, samples, options, progress=False, out_dir=out)
    statuses = sorted(r.status for r in run.results)
    assert statuses == ["passed", "sandbox_error"]
    (bad,) = run.infra_errors
    summary = build_summary(run.results, [1], task_set=run.task_set, missing=run.missing)
    assert summary["infra_errors"] == [{"task_id": bad["task_id"], "sample_index": 0}]
    assert summary["partial"] == {
        "scored": 1,
        "of": 2,
        "unscored_tasks": [bad["task_id"]],
        "samples_left_out": 1,
    }
    assert summary["pass@1"] == 1.0 and summary["samples"]["scored"] == 1

    # A rerun retries the infrastructure failure (and only it).
    monkeypatch.undo()
    run = run_evaluation(rows, samples, options, progress=False, out_dir=out)
    assert run.executed == 1 and [r.status for r in run.results] == ["passed", "passed"]


@pytest.mark.slow
def test_cli_exits_4_on_infrastructure_errors_unless_allow_partial(tmp_path, monkeypatch, capsys):
    from biocoder_metric.cli import main

    samples = _first_sample(tmp_path, "demo_py_gc_content")
    common = [
        "evaluate",
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--sandbox",
        _sandbox(),
        "--no-progress",
        "--k",
        "1",
        "--fuzz-cases",
        "2",
        "--golden-cache",
        str(tmp_path / "g"),
        "--task-ids",
        "demo_py_gc_content",
    ]
    assert main([*common, "--out", str(tmp_path / "warm")]) == 0  # goldens cached: faults hit the candidate
    inject_sandbox_failures(monkeypatch, fails=3)
    assert main([*common, "--out", str(tmp_path / "a")]) == 4
    err = capsys.readouterr().err
    assert "1 samples hit sandbox errors" in err and "--allow-partial" in err
    inject_sandbox_failures(monkeypatch, fails=3)
    assert main([*common, "--out", str(tmp_path / "b"), "--allow-partial"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PARTIAL: 0 of 1 tasks scored")
    assert "| all (PARTIAL) |" in out
    assert "infrastructure errors: 1 samples left out of n and c" in out
