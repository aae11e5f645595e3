"""Harness audit, mutation operators, weak-task exclusion and ``--plus``, with real sandboxes.

Synthetic tasks here are built to be weak or strong on purpose (a harness that never calls the
function, one that calls it but prints nothing of it, one that really checks it); real upstream
tasks known to be weak are checked in the docker test at the end.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from biocoder_dataset.schema import empty_row
from biocoder_metric.execution import EvalOptions, run_evaluation
from biocoder_metric.execution.rules import plus
from biocoder_metric.scoring.summary import build_summary
from biocoder_metric.types import TaskStatus
from biocoder_metric.validity.audit import (
    audit_tasks,
    java_null_candidates,
    python_null_candidates,
    read_audit,
    summarize,
    write_audit,
)
from biocoder_metric.validity.mutation import OPERATORS, java_mask, java_mutants, python_mutants

# ---------------------------------------------------------------------------- mutation operators

PY_CODE = '''
def score(xs, n=3):
    """Sum of doubled values below n."""
    total = 0
    for i in range(len(xs)):
        if xs[i] < n and xs[i] != 0:
            total += xs[i] * 2
    flag = True
    return total / 2.5 if flag else None
'''


def test_python_mutants_cover_every_operator_deterministically():
    first = python_mutants(PY_CODE, 100, seed="t1")
    assert first == python_mutants(PY_CODE, 100, seed="t1")
    assert {op for op, _ in first} == set(OPERATORS)
    canonical = ast.unparse(ast.parse(PY_CODE))
    texts = [t for _, t in first]
    assert len(set(texts)) == len(texts) and canonical not in texts
    for text in texts:
        ast.parse(text)
    assert not any('"""' not in t and "Sum of doubled" not in t for t in texts), (
        "docstrings are never deleted"
    )
    few = python_mutants(PY_CODE, 6, seed="t1")
    assert [op for op, _ in few] == list(OPERATORS), "a small limit still takes one of each operator"
    assert python_mutants("def f(:", 5) == []


def test_python_mutants_leave_while_loops_terminating():
    code = "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
    for op, text in python_mutants(code, 50):
        if "while" not in text:
            continue  # the whole loop deleted: terminates trivially
        assert "while i < n" in text, (op, text)  # the condition is never changed
        assert "i -= " not in text and "i += " in text, (op, text)  # the loop still advances


JAVA_CODE = """public static int count(String s, int k) {
    // a comment with a < b and 1 + 2
    String label = "x < y + 1";
    int total = 0;
    for (int i = 0; i < s.length(); i++) {
        if (s.charAt(i) == 'G') {
            total += k;
        }
    }
    return total * 2;
}"""


def test_java_mutants_cover_operators_and_never_touch_strings_or_comments():
    muts = java_mutants(JAVA_CODE)
    assert muts == java_mutants(JAVA_CODE)
    assert {op for op, _ in muts} == set(OPERATORS)
    for _op, text in muts:
        assert '"x < y + 1"' in text and "a < b and 1 + 2" in text
    assert len(java_mutants(JAVA_CODE, limit=4)) == 4
    returns = [t for op, t in muts if op == "return"]
    assert returns == [JAVA_CODE.replace("return total * 2;", "return 0;")]
    assert java_mask('a = "<" + b; // <') == 'a = " " + b;     '


def test_bench_alias_keeps_its_labels():
    from benchmarks import speed as bench

    assert [label for label, _ in bench.mutants(PY_CODE, 3, seed="t1")] == [
        f"mutant: {op}" for op, _ in python_mutants(PY_CODE, 3, seed="t1")
    ]


# ---------------------------------------------------------------------------- null candidates


def test_python_null_candidates_keep_the_goldens_header():
    golden = "@property\ndef wants(self):\n    return self.a or self.b\n"
    names = dict(python_null_candidates(golden, "wants"))
    assert set(names) == {"return None", "pass", "raise"}  # no argument besides self
    assert names["return None"].startswith("@property\ndef wants(self):")
    static = dict(python_null_candidates("@staticmethod\ndef g(a, b=2):\n    return a\n", "g"))
    assert "return a" in static["return first argument"] and "b=2" in static["return first argument"]
    method = dict(python_null_candidates("def h(self, seq):\n    return seq[::-1]\n", "h"))
    assert method["return first argument"].endswith("return seq")


def test_java_null_candidates_follow_the_return_type():
    names = dict(java_null_candidates(JAVA_CODE, "count"))
    assert set(names) == {"return None", "raise"}  # int return: no `pass`, first arg is a String
    assert "return 0;" in names["return None"] and names["return None"].startswith("public static int count(")
    rc = dict(java_null_candidates("public static String rc(String s) {\n    return s;\n}", "rc"))
    assert "return s;" in rc["return first argument"] and "return null;" in rc["return None"]
    void = dict(java_null_candidates("public void log(int x) {\n    System.out.println(x);\n}", "log"))
    assert set(void) == {"return None", "pass", "raise"}


# ---------------------------------------------------------------------------- the audit, end to end


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


def _row(
    task_id: str, context: str, golden: str, function_name: str = "f", strength: dict | None = None
) -> dict:
    row = empty_row()
    row.update(
        task_id=task_id,
        config="unit",
        language="python",
        kind="harness",
        executable=True,
        function_name=function_name,
        signature=f"def {function_name}(x)",
        context=context,
        golden_code=golden,
        harness_strength=json.dumps(strength) if strength else None,
    )
    return row


GOLDEN = "def f(x):\n    y = 0\n    if x > 10:\n        return x * 2 + y\n    return x - 1\n"
STRONG = _row("strong", "<<insert solution here>>\nprint(f(<|int;range=0,20|>))\n", GOLDEN)
NEVER_CALLED = _row(
    "never_called", "import random\n<<insert solution here>>\nprint(<|int;range=0,20|>)\n", GOLDEN
)
RESULT_IGNORED = _row(
    "result_ignored",
    "<<insert solution here>>\ntry:\n    f(<|int;range=0,20|>)\nexcept Exception:\n    pass\nprint('done')\n",
    GOLDEN,
)
CONSTANT = _row("constant", "<<insert solution here>>\nprint(f(7))\n", GOLDEN)


def _opts(tmp_path: Path, **kw) -> EvalOptions:
    return EvalOptions(
        sandbox="bwrap", workers=2, fuzz_cases=5, golden_cache_dir=str(tmp_path / "golden"), **kw
    )


@pytest.mark.bwrap
def test_audit_flags_weak_and_constant_harnesses_and_scores_mutants(tmp_path):
    if not _bwrap_ok():
        pytest.skip("bubblewrap cannot create sandboxes here")
    records = audit_tasks(
        [STRONG, NEVER_CALLED, RESULT_IGNORED, CONSTANT],
        _opts(tmp_path),
        mutants=8,
        equivalence_cases=40,
        progress=False,
        out_dir=tmp_path / "work",
    )
    by = {r["task_id"]: r for r in records}
    assert by["strong"]["weak_harness"] is False and by["strong"]["null_candidates_passed"] == []
    assert by["never_called"]["weak_harness"] is True
    assert set(by["never_called"]["null_candidates_passed"]) == {
        "return None",
        "pass",
        "return first argument",
        "raise",
    }
    assert by["result_ignored"]["weak_harness"] is True
    # the harness even catches the exception, so all four pass
    assert set(by["result_ignored"]["null_candidates_passed"]) == {
        "return None",
        "pass",
        "return first argument",
        "raise",
    }
    assert by["constant"]["constant_output"] is True and by["strong"]["constant_output"] is False
    ms = by["strong"]["mutation_score"]
    assert ms["total"] == 8 and 0 < ms["killed"] < ms["total"]
    # `x * 2 + y` -> `x * 2 - y` is equivalent (y is 0): it survives the 40 extra cases too
    assert ms["likely_equivalent"] >= 1
    assert ms["killed"] + ms["killed_with_more_cases"] + ms["likely_equivalent"] == ms["total"]
    assert by["never_called"]["mutation_score"]["killed"] == 0
    path = write_audit(records, tmp_path / "out")
    assert [r["task_id"] for r in read_audit(path)] == sorted(by)
    summary = summarize(records)
    assert summary["weak_harness"] == ["never_called", "result_ignored"]
    assert summary["constant_output"] == [
        "constant",
        "result_ignored",
    ]  # never_called prints its random input


@pytest.mark.bwrap
def test_weak_tasks_are_left_out_of_the_headline_unless_included(tmp_path):
    if not _bwrap_ok():
        pytest.skip("bubblewrap cannot create sandboxes here")
    weak = dict(
        NEVER_CALLED,
        harness_strength=json.dumps(
            {"weak_harness": True, "null_candidates_passed": ["return None"], "audit_version": "test"}
        ),
    )
    rows = [STRONG, weak]
    samples = [
        {"task_id": "strong", "completion": GOLDEN},
        {"task_id": "never_called", "completion": "def f(x):\n    return None\n"},
    ]
    run = run_evaluation(rows, samples, _opts(tmp_path), progress=False)
    assert run.task_status["never_called"][0] == TaskStatus.WEAK_HARNESS
    assert "return None passes its test" in run.task_status["never_called"][1]
    summary = build_summary(run.results, [1])
    assert summary["pass@1"] == 1.0 and summary["tasks"]["excluded_by_status"] == {"weak_harness": 1}
    assert [e["task_id"] for e in summary["excluded_tasks"]] == ["never_called"]
    included = run_evaluation(rows, samples, _opts(tmp_path, include_weak=True), progress=False)
    assert included.task_status["never_called"][0] == TaskStatus.OK
    assert build_summary(included.results, [1])["pass@1"] == 1.0  # the null candidate passes a weak test


# ---------------------------------------------------------------------------- --plus


def test_edge_values_per_placeholder_type():
    import random

    from biocoder_metric.execution import harness

    rng = random.Random(0)
    ph = lambda text: harness.parse_placeholder(text, "t")  # noqa: E731
    assert plus.edge_values(ph("int;range=-3,7"), "python", rng) == ["-3", "7", "0"]
    assert plus.edge_values(ph("int;range=2,9"), "python", rng) == ["2", "9"]
    assert plus.edge_values(ph("float;range=0,1"), "python", rng) == ["0.0", "1.0"]
    assert plus.edge_values(ph("bool;type=upper"), "python", rng) == ["True", "False"]
    s = plus.edge_values(ph("string"), "python", rng)
    assert s[0] == '""' and len(s[1]) == plus.LONG_STRING + 2
    bounded = plus.edge_values(ph("string;length=3,5;quotes=single;type=alpha"), "java", rng)
    assert [len(v) - 2 for v in bounded] == [3, 5] and bounded[0].startswith("'")


def test_plus_contexts_add_edges_then_more_random_cases():
    row = _row("p", "<<insert solution here>>\nprint(f(<|int;range=0,20|>), <|string|>)\n", GOLDEN)
    ctx = plus.plus_contexts(row, fuzz_cases=4, seed=0)
    assert ctx == plus.plus_contexts(row, fuzz_cases=4, seed=0)
    assert 'print(f(0), "")' in ctx[0]  # every placeholder at its low edge
    assert any("f(20)" in c for c in ctx) and len(ctx) >= 4 + 3
    assert plus.plus_contexts(CONSTANT, fuzz_cases=4, seed=0) == []  # nothing to vary


@pytest.mark.bwrap
def test_plus_reports_a_second_headline_and_drops_cases_the_golden_rejects(tmp_path):
    if not _bwrap_ok():
        pytest.skip("bubblewrap cannot create sandboxes here")
    golden = "def f(s):\n    if not s:\n        raise ValueError('empty')\n    return s[0] + s[-1]\n"
    row = _row("ends", "<<insert solution here>>\nprint(f(<|string;length=0,30|>))\n", golden)
    # Correct on most strings; wrong on the longest allowed (30), which random cases rarely produce.
    fragile = "def f(s):\n    return s[0] + s[-1] if len(s) < 30 else s[:2]\n"
    samples = [{"task_id": "ends", "completion": golden}, {"task_id": "ends", "completion": fragile}]
    base = run_evaluation([row], samples, _opts(tmp_path), progress=False)
    assert [r.status for r in base.results] == ["passed", "passed"]
    run = run_evaluation([row], samples, _opts(tmp_path, plus=True), progress=False)
    plus_info = [r.extra["plus"] for r in run.results]
    assert [p["status"] for p in plus_info] == ["passed", "failed"]
    assert plus_info[0]["dropped"] >= 1, "the empty string is an edge case the golden raises on"
    summary = build_summary(run.results, [1])
    assert summary["pass@1"] == 1.0 and summary["plus"]["pass@1"] == 0.5
    # the plus headline leaves the terminal: its CI, the samples only plus catches, the report, the card
    only = summary["plus"]["plus_only_failures"]
    assert [(f["task_id"], f["sample_index"]) for f in only] == [("ends", 1)]
    ci = summary["plus"]["confidence_intervals"]["pass@1"]
    assert ci["low"] <= 0.5 <= ci["high"]
    from biocoder_metric.reporting.build import build_report
    from biocoder_metric.reporting.hub import _results_table
    from biocoder_metric.reporting.runs import Run

    data = build_report(
        [Run(name="r", dir=tmp_path, summary=summary, results=run.results)], tmp_path / "report"
    )
    assert data["runs"][0]["plus"]["pass@k"]["pass@1"] == 0.5 and "plus-only" in data["tables"]
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "r (plus)" in html and "table-plus-only" in html
    assert "| all (plus) | 1 | 50.00 |" in _results_table(summary)


# ---------------------------------------------------------------------------- real weak tasks


#: Real python_public tasks whose harness a null candidate passes (found by `biocoder audit`,
#: each confirmed by reading its harness; see docs/validity.md). py_67284eeea30d: the harness only
#: ever calls get_absolute_scale(<float>, {}), whose golden then returns float(scale), so
#: `return scale` (the first argument) passes without the percentile logic.
KNOWN_WEAK: tuple[str, ...] = ("py_67284eeea30d",)


@pytest.mark.docker
@pytest.mark.upstream
@pytest.mark.slow
def test_known_weak_real_tasks_are_flagged_and_kept_out_of_the_headline(upstream_dir, tmp_path):
    from biocoder_dataset.configs import load_problems
    from biocoder_metric.sandbox import image

    if not image.docker_available():
        pytest.skip("no Docker engine answers here")
    rows = [r for r in load_problems("python_public", upstream_dir) if r["task_id"] in KNOWN_WEAK]
    assert sorted(r["task_id"] for r in rows) == sorted(KNOWN_WEAK)
    for r in rows:  # the shipped audit says so ...
        assert json.loads(r["harness_strength"])["weak_harness"] is True, r["task_id"]
    opts = EvalOptions(sandbox="docker", workers=2, fuzz_cases=10, golden_cache_dir=str(tmp_path / "g"))
    records = audit_tasks(rows, opts, mutants=0, progress=False)  # ... and a fresh audit agrees
    assert all(r["weak_harness"] for r in records), records
    nulls = [
        {
            "task_id": r["task_id"],
            "completion": dict(python_null_candidates(r["golden_code"], r["function_name"]))["return None"],
        }
        for r in rows
    ]
    run = run_evaluation(rows, nulls, opts, progress=False)
    summary = build_summary(run.results, [1])
    assert summary["tasks"]["scored"] == 0
    assert summary["tasks"]["excluded_by_status"] == {"weak_harness": len(KNOWN_WEAK)}
