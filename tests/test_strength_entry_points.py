"""Harness strength through every entry point: flagged tasks leave the headline by the same rule,
for a ``--tasks`` file through the CLI, for JSON rows through the metric, and in the lm-eval hooks
(the fixtures and the engine-level test: tests/strength_support.py, tests/test_strength.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reliability_support import REPO_ROOT
from strength_support import GOLDEN, WRONG, make_rows, skip_without_bwrap

pytestmark = [pytest.mark.slow]


def test_cli_tasks_file_and_metric_keep_flagged_tasks_out_of_the_headline(tmp_path, monkeypatch):
    skip_without_bwrap()
    import evaluate

    rows = make_rows()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    samples = tmp_path / "s.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": r["task_id"], "completion": c}) + "\n"
            for r in rows
            for c in (GOLDEN, WRONG)
        )
    )
    monkeypatch.setenv("BIOCODER_CACHE_DIR", str(tmp_path / "cache"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "biocoder_metric",
            "evaluate",
            "--tasks",
            str(tasks),
            "--samples",
            str(samples),
            "--out",
            str(tmp_path / "out"),
            "--k",
            "1",
            "--sandbox",
            "bwrap",
            "--fuzz-cases",
            "3",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["pass@1"] == 0.5 and summary["tasks"]["scored"] == 1
    assert "strength_result_unprinted: return_unobserved" in proc.stdout
    assert "strength_never_calls: weak_harness" in proc.stdout

    metric = evaluate.load(str(REPO_ROOT / "biocoder_passk"))
    out = metric.compute(
        predictions=[[GOLDEN, WRONG]] * len(rows),
        references=[json.dumps(r) for r in rows],
        k=[1],
        sandbox="bwrap",
        fuzz_cases=3,
    )
    assert out["pass@1"] == 0.5
    excluded = {e["task_id"]: e["task_status"] for e in out["details"]["excluded_tasks"]}
    assert excluded == {
        "strength_never_calls": "weak_harness",
        "strength_echoes_inputs": "weak_harness",
        "strength_result_unprinted": "return_unobserved",
    }


def test_lm_eval_hooks_score_flagged_tasks_none(tmp_path, monkeypatch):
    skip_without_bwrap()
    import importlib.util

    for key, value in {
        "BIOCODER_CACHE_DIR": str(tmp_path / "cache"),
        "BIOCODER_SANDBOX": "bwrap",
        "BIOCODER_FUZZ_CASES": "3",
    }.items():
        monkeypatch.setenv(key, value)
    spec = importlib.util.spec_from_file_location(
        "biocoder_lm_eval_utils_strength", REPO_ROOT / "lm_eval_tasks" / "biocoder" / "utils.py"
    )
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    rows = make_rows()
    docs = [{**r, "prompt": "", "prompt_style": "instruct"} for r in rows]
    preds = utils.build_predictions([[f"```python\n{r['golden_code']}```"] for r in rows], docs)
    scores = {
        r["task_id"]: utils.pass_at_k([r["task_id"]], [p])["pass@1"] for r, p in zip(rows, preds, strict=True)
    }
    assert scores == {
        "strength_never_calls": None,
        "strength_result_unprinted": None,
        "strength_echoes_inputs": None,
        "strength_sound": 1.0,
    }
    assert utils.mean_scored(list(scores.values())) == 1.0
