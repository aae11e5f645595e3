"""Harness strength at evaluation time (``execution/strength.py``), on harnesses written here.

* a harness that never calls the function: every null candidate passes -> ``weak_harness``;
* a harness that calls it but prints only the function's own log line, never its result:
  the nulls fail (no log line), but replacing the return value is never detected while the
  golden does return something -> ``return_unobserved``;
* a harness that echoes its inputs and not the result: the nulls pass -> ``weak_harness``;
* a sound harness (prints the result): scored.

Both flagged kinds leave the headline by the same rule, for a ``--tasks`` file through the CLI
and for JSON rows through the metric; ``--include-weak`` scores them. No shipped strength
file knows these tasks: the engine finds out by itself.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reliability_support import REPO_ROOT, sandbox_reason

pytestmark = [pytest.mark.slow]

GOLDEN = 'def f(x):\n    print("computing", x)\n    return x * 2\n'
WRONG = 'def f(x):\n    print("computing", x)\n    return x * 3\n'
#: The echo fixture's golden has no effect of its own: only the echoed input varies.
PURE = "def f(x):\n    return x * 2\n"
HARNESSES = {
    "never_calls": "<<insert solution here>>\nx = <|int;range=1,99|>\nprint('checked', x)\n",
    "result_unprinted": "<<insert solution here>>\nx = <|int;range=1,99|>\nf(x)\n",
    "echoes_inputs": "<<insert solution here>>\nx = <|int;range=1,99|>\nr = f(x)\nprint(x)\n",
    "sound": "<<insert solution here>>\nx = <|int;range=1,99|>\nprint(f(x))\n",
}
EXPECTED = {
    "never_calls": "weak_harness",
    "result_unprinted": "return_unobserved",
    "echoes_inputs": "weak_harness",
    "sound": "ok",
}


def _rows() -> list[dict]:
    from biocoder_dataset.schema import empty_row

    rows = []
    for name, context in HARNESSES.items():
        row = empty_row()
        row.update(
            task_id=f"strength_{name}",
            config="custom",
            language="python",
            kind="harness",
            executable=True,
            function_name="f",
            signature="def f(x):",
            context=context,
            golden_code=PURE if name == "echoes_inputs" else GOLDEN,
        )
        rows.append(row)
    return rows


def _skip_without_bwrap() -> None:
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")


def test_python_wrapped_candidates_keep_the_header_and_call_the_golden():
    from biocoder_metric.execution.strength import RETURN_PERTURBED, python_wrapped_candidates

    wrapped = dict(
        python_wrapped_candidates("@staticmethod\ndef g(a, b=2, *c, d, **e):\n    return a + b\n", "g")
    )
    src = wrapped[RETURN_PERTURBED]
    assert src.startswith("@staticmethod\ndef g(a, b=2, *c, d, **e):")
    assert "_biocoder_golden(a, b, *c, d=d, **e)" in src
    namespace: dict = {}
    exec(src.replace("@staticmethod\n", ""), namespace)  # the wrapper really perturbs the golden's value
    assert namespace["g"](1, d=0) == 4
    assert python_wrapped_candidates("def h():\n    yield 1\n", "h") == []  # generators are not wrapped


def test_the_engine_flags_weak_and_unobserved_harnesses_it_was_never_told_about(tmp_path):
    _skip_without_bwrap()
    from biocoder_metric.execution import EvalOptions, run_evaluation
    from biocoder_metric.scoring.summary import build_summary

    rows = _rows()
    samples = [{"task_id": r["task_id"], "completion": c} for r in rows for c in (GOLDEN, WRONG)]
    options = EvalOptions(sandbox="bwrap", workers=2, fuzz_cases=3, golden_cache_dir=str(tmp_path / "g"))
    run = run_evaluation(rows, samples, options, progress=False)
    got = {t: s for t, (s, _) in run.task_status.items()}
    assert got == {f"strength_{k}": v for k, v in EXPECTED.items()}
    summary = build_summary(run.results, [1], task_set=run.task_set, missing=run.missing)
    assert sorted(summary["per_task"]) == ["strength_sound"] and summary["pass@1"] == 0.5
    assert summary["tasks"]["excluded_by_status"] == {"return_unobserved": 1, "weak_harness": 2}
    # cached: a second session reads the verdicts instead of running the candidates again
    assert len(list((tmp_path / "g").glob("strength-*.json"))) == len(rows)
    again = run_evaluation(rows, samples, options, progress=False)
    assert {t: s for t, (s, _) in again.task_status.items()} == got
    # --include-weak scores them all
    weak_too = run_evaluation(
        rows,
        samples,
        EvalOptions(
            sandbox="bwrap", workers=2, fuzz_cases=3, golden_cache_dir=str(tmp_path / "g"), include_weak=True
        ),
        progress=False,
    )
    assert {s for s, _ in weak_too.task_status.values()} == {"ok"}


def test_cli_tasks_file_and_metric_keep_flagged_tasks_out_of_the_headline(tmp_path, monkeypatch):
    _skip_without_bwrap()
    import evaluate

    rows = _rows()
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
    _skip_without_bwrap()
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
    rows = _rows()
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
