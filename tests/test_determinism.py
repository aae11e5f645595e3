"""Same inputs, same bytes: ``results.jsonl`` is identical across runs and worker counts.

Three runs with one worker and one with two, each with its own empty golden cache (so the
golden outputs are recomputed every time and their determinism is part of the check), over
the demo's Python, Rosalind and one Java task: golden, mutant, a sample that times out and
one that crashes. ``results.jsonl`` is compared byte for byte (it leaves timings out by
design, see biocoder_metric/execution/results.py).
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reliability_support import REPO_ROOT, evaluator_env, record, sandbox_reason

JAVA_TASK = "demo_java_gc_content"


def _samples(path: Path) -> int:
    from biocoder_dataset.configs import load_problems

    lines = []
    for row in load_problems("demo"):
        if row["language"] == "java" and row["task_id"] != JAVA_TASK:
            continue
        mutant = json.loads(row["metadata"] or "{}").get("mutant_code")
        lines.append({"task_id": row["task_id"], "completion": row["golden_code"]})
        if mutant:
            lines.append({"task_id": row["task_id"], "completion": mutant})
        if row["task_id"] == "demo_py_gc_content":
            lines.append(
                {
                    "task_id": row["task_id"],
                    "completion": "def gc_content(seq):\n    while True:\n        pass\n",
                }
            )
            lines.append(
                {
                    "task_id": row["task_id"],
                    "completion": "def gc_content(seq):\n    raise RuntimeError('boom')\n",
                }
            )
    path.write_text("".join(json.dumps(s) + "\n" for s in lines), encoding="utf-8")
    return len(lines)


def _task_ids(samples: Path) -> str:
    """The tasks the samples cover: the task set named explicitly (pass@k is over it)."""
    return ",".join(sorted({json.loads(x)["task_id"] for x in samples.read_text().splitlines() if x.strip()}))


def _run(samples: Path, root: Path, workers: int) -> bytes:
    env = evaluator_env(root / "golden")
    cmd = [
        sys.executable,
        "-m",
        "biocoder_metric",
        "evaluate",
        "--samples",
        str(samples),
        "--out",
        str(root / "out"),
        "--config",
        "demo",
        "--sandbox",
        "bwrap",
        "--workers",
        str(workers),
        "--fuzz-cases",
        "2",
        "--timeout",
        "1.5",
        "--no-progress",
        "--task-ids",
        _task_ids(samples),
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return (root / "out" / "results.jsonl").read_bytes()


@pytest.mark.slow
def test_results_are_byte_identical_across_runs_and_worker_counts(tmp_path: Path) -> None:
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    samples = tmp_path / "samples.jsonl"
    n = _samples(samples)
    runs = {
        "run1_w1": _run(samples, tmp_path / "r1", 1),
        "run2_w1": _run(samples, tmp_path / "r2", 1),
        "run3_w1": _run(samples, tmp_path / "r3", 1),
        "run4_w2": _run(samples, tmp_path / "r4", 2),
    }
    base = runs["run1_w1"]
    differing = [name for name, blob in runs.items() if blob != base]
    statuses = sorted({json.loads(line)["status"] for line in base.decode().splitlines()})
    record(
        "determinism",
        runs=len(runs),
        samples=n,
        identical=not differing,
        differing=differing,
        statuses=statuses,
    )
    assert base.count(b"\n") == n
    # The run covers more than the happy path, or identical bytes would prove little.
    assert {"passed", "failed", "timeout", "runtime_error"} <= set(statuses), statuses
    for name in differing:
        diff = "\n".join(
            difflib.unified_diff(
                base.decode().splitlines(), runs[name].decode().splitlines(), lineterm="", n=0
            )
        )
        pytest.fail(f"{name} differs from run1_w1:\n{diff[:3000]}")
