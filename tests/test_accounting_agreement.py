"""Every entry point applies the one accounting rule: same n, c, pass@k and partial label.

The same samples (the golden and a wrong answer of two demo tasks) go through the CLI, the
``evaluate`` metric and the lm-eval hooks, once cleanly and once with an injected
infrastructure failure on the first candidate job (the sandbox fails, the retry fails, the
canary fails too, so it is infrastructure): then that sample is left out everywhere, every
entry point says ``partial``, and without the allow-partial switch none gives a final-looking
headline (the CLI exits 4, the metric and lm-eval raise).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from reliability_support import REPO_ROOT, inject_sandbox_failures, sandbox_reason

pytestmark = [pytest.mark.slow]
TASKS = ("demo_py_gc_content", "demo_py_hamming")


def _rows_and_answers():
    from biocoder_dataset.configs import load_problems

    rows = [r for r in load_problems("demo") if r["task_id"] in TASKS]
    wrong = {
        "demo_py_gc_content": "def gc_content(seq):\n    return 0.5\n",
        "demo_py_hamming": "def hamming(a, b):\n    return 0\n",
    }
    return rows, {r["task_id"]: [r["golden_code"], wrong[r["task_id"]]] for r in rows}


def _cli(tmp_path: Path, tag: str, answers, allow_partial: bool) -> tuple[int, dict, str]:
    from biocoder_metric.cli import main

    samples = tmp_path / f"{tag}.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t in TASKS for c in answers[t])
    )
    argv = [
        "evaluate",
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--sandbox",
        "bwrap",
        "--no-progress",
        "--k",
        "1",
        "--fuzz-cases",
        "2",
        "--workers",
        "1",
        "--task-ids",
        ",".join(TASKS),
        "--out",
        str(tmp_path / tag),
    ]
    if allow_partial:
        argv.append("--allow-partial")
    code = main(argv)
    return code, json.loads((tmp_path / tag / "summary.json").read_text()), (tmp_path / tag).as_posix()


def _metric(answers, allow_partial: bool) -> dict:
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / "biocoder_passk"))
    return metric.compute(
        predictions=[answers[t] for t in TASKS],
        references=list(TASKS),
        k=[1],
        config="demo",
        sandbox="bwrap",
        fuzz_cases=2,
        workers=1,
        task_ids=list(TASKS),
        allow_partial=allow_partial,
    )


def _lm_eval(rows, answers) -> dict:
    spec = importlib.util.spec_from_file_location(
        "biocoder_lm_eval_utils_acc", REPO_ROOT / "lm_eval_tasks" / "biocoder" / "utils.py"
    )
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    docs = [{**r, "prompt": "", "prompt_style": "instruct"} for r in rows]
    resps = [[f"```python\n{c}```" for c in answers[r["task_id"]]] for r in rows]
    preds = utils.build_predictions(resps, docs)
    counts = {r["task_id"]: utils.verdicts(r["task_id"], p) for r, p in zip(rows, preds, strict=True)}
    per_task = {
        r["task_id"]: utils.pass_at_k([r["task_id"]], [p])["pass@1"] for r, p in zip(rows, preds, strict=True)
    }
    assert utils.pending_batches() == 0  # every doc scored: nothing is left for a later run to read
    return {"per_task": per_task, "counts": counts, "partial": any(v["partial"] for v in counts.values())}


def test_cli_metric_and_lm_eval_agree_on_n_c_and_partial(tmp_path, monkeypatch):
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    from biocoder_metric.scoring.accounting import PartialRunError

    for key, value in {
        "BIOCODER_CACHE_DIR": str(tmp_path / "cache"),
        "BIOCODER_SANDBOX": "bwrap",
        "BIOCODER_FUZZ_CASES": "2",
        "BIOCODER_WORKERS": "1",
    }.items():
        monkeypatch.setenv(key, value)
    rows, answers = _rows_and_answers()

    # Clean: every entry point gives n=2, c=1 per task, pass@1 = 50%, not partial.
    code, summary, _ = _cli(tmp_path, "clean", answers, allow_partial=False)
    assert code == 0 and "partial" not in summary and summary["pass@1"] == 0.5
    out = _metric(answers, allow_partial=False)
    assert out["pass@1"] == 0.5 and out["partial"] is False
    lm = _lm_eval(rows, answers)
    assert lm["partial"] is False and lm["per_task"] == {t: 0.5 for t in TASKS}
    for t in TASKS:
        assert (summary["per_task"][t]["n"], summary["per_task"][t]["c"]) == (2, 1)
        assert (out["details"]["per_task"][t]["n"], out["details"]["per_task"][t]["c"]) == (2, 1)
        assert (lm["counts"][t]["n"], lm["counts"][t]["c"]) == (2, 1)

    # Infrastructure fails the first candidate job three times (job, retry, canary): partial everywhere.
    inject_sandbox_failures(monkeypatch, 3)
    code, summary, _ = _cli(tmp_path, "strict", answers, allow_partial=False)
    assert code == 4 and summary["partial"]["samples_left_out"] == 1
    inject_sandbox_failures(monkeypatch, 3)
    code, summary, _ = _cli(tmp_path, "partial", answers, allow_partial=True)
    assert code == 0 and summary["partial"]["samples_left_out"] == 1
    inject_sandbox_failures(monkeypatch, 3)
    with pytest.raises(PartialRunError, match="partial"):
        _metric(answers, allow_partial=False)
    inject_sandbox_failures(monkeypatch, 3)
    out = _metric(answers, allow_partial=True)
    assert out["partial"] is True and out["details"]["partial"]["samples_left_out"] == 1
    inject_sandbox_failures(monkeypatch, 3)
    with pytest.raises(PartialRunError, match="partial"):
        _lm_eval(rows, answers)
    monkeypatch.setenv("BIOCODER_ALLOW_PARTIAL", "1")
    inject_sandbox_failures(monkeypatch, 3)
    lm = _lm_eval(rows, answers)
    assert lm["partial"] is True

    # The same sample is left out everywhere, and the rest is counted alike.
    cli_counts = {t: (v["n"], v["c"]) for t, v in summary["per_task"].items()}
    metric_counts = {t: (v["n"], v["c"]) for t, v in out["details"]["per_task"].items() if v["c"] is not None}
    lm_counts = {t: (v["n"], v["c"]) for t, v in lm["counts"].items()}
    assert cli_counts == metric_counts == lm_counts
    assert sorted(cli_counts.values()) == [(1, 0), (2, 1)]
    assert summary["pass@1"] == out["pass@1"]
