"""Harness strength at evaluation time (``execution/strength.py``), on harnesses written here.

* a harness that never calls the function: every null candidate passes -> ``weak_harness``;
* a harness that calls it but prints only the function's own log line, never its result:
  the nulls fail (no log line), but replacing the return value is never detected while the
  golden does return something -> ``return_unobserved``;
* a harness that echoes its inputs and not the result: the nulls pass -> ``weak_harness``;
* a sound harness (prints the result): scored.

Here, the engine (``run_evaluation``) flags them by itself: no shipped strength file knows these
tasks. That the CLI, the metric and the lm-eval hooks keep them out of the headline by the same
rule is tests/test_strength_entry_points.py (full tier).
"""

from __future__ import annotations

import pytest

from strength_support import EXPECTED, GOLDEN, WRONG, make_rows, skip_without_bwrap

pytestmark = [pytest.mark.slow]


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
    skip_without_bwrap()
    from biocoder_metric.execution import EvalOptions, run_evaluation
    from biocoder_metric.scoring.summary import build_summary

    rows = make_rows()
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
