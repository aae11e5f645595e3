"""The judging engine end to end, in a real sandbox (bwrap when it works here, else `none`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from biocoder_dataset.schema import empty_row
from biocoder_metric.execution import (
    EvalInputError,
    EvalOptions,
    GoldenFailuresError,
    check_goldens,
    evaluate_samples,
    run_evaluation,
)
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.sandbox.base import Sandbox, SandboxError
from biocoder_metric.types import CaseOutcome, Job, RunStatus, Status, TaskStatus


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


SANDBOX = "bwrap" if _bwrap_ok() else "none"


def _opts(tmp_path: Path, **kw) -> EvalOptions:
    base = {
        "sandbox": SANDBOX,
        "allow_unsafe": SANDBOX == "none",
        "workers": 2,
        "fuzz_cases": 3,
        "golden_cache_dir": str(tmp_path / "golden"),
    }
    base.update(kw)
    return EvalOptions(**base)


def _py_row(task_id: str, context: str, golden: str, function_name: str = "f") -> dict:
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
    )
    return row


def _mutant(row: dict) -> str:
    return json.loads(row["metadata"])["mutant_code"]


# ---------------------------------------------------------------------------- demo


@pytest.fixture(scope="module")
def demo_rows():
    from biocoder_dataset.configs import load_problems

    return load_problems("demo")


@pytest.mark.slow
def test_demo_goldens_pass_and_mutants_fail(demo_rows, tmp_path):
    opts = _opts(tmp_path)
    checks = check_goldens(demo_rows, opts, progress=False)
    assert len(checks) == len(demo_rows) == 21
    assert {c["task_id"]: c["status"] for c in checks} == {r["task_id"]: "passed" for r in demo_rows}
    samples = [{"task_id": r["task_id"], "completion": _mutant(r)} for r in demo_rows]
    results = evaluate_samples(demo_rows, samples, opts, progress=False)
    assert {r.task_id: r.status for r in results} == {r["task_id"]: Status.FAILED for r in demo_rows}
    for r in results:
        assert (
            r.first_failure is not None and r.first_failure["expected_tail"] != r.first_failure["actual_tail"]
        )


# ---------------------------------------------------------------------------- statuses

CTX = "import sys\n<<insert solution here>>\ndef main():\n    print(f(<|int;range=1,9|>))\nmain()\n"
GOLD = "def f(x):\n    return x * 2\n"

CANDIDATES = {
    Status.PASSED: "def f(x):\n    return x + x\n",
    Status.FAILED: "def f(x):\n    return x * 3\n",
    Status.COMPILE_ERROR: "def f(x)\n    return x\n",
    Status.RUNTIME_ERROR: "def f(x):\n    raise ValueError('boom')\n",
    Status.TIMEOUT: "def f(x):\n    while True:\n        pass\n",
    Status.MEMORY_EXCEEDED: "def f(x):\n    blocks = []\n    while True:\n        blocks.append(bytearray(50 << 20))\n",
}


@pytest.mark.engine
def test_each_way_of_failing_gets_its_status(tmp_path):
    row = _py_row("unit_double", CTX, GOLD)
    samples = [{"task_id": "unit_double", "completion": c} for c in CANDIDATES.values()]
    samples.append(
        {"task_id": "unit_double", "completion": "def f(x):\n    print('x' * (3 << 20))\n    return x\n"}
    )
    samples.append(
        {"task_id": "unit_double", "completion": "def f(x):\n    return x * 2 if x % 2 else x * 3\n"}
    )
    results = evaluate_samples(
        [row], samples, _opts(tmp_path, timeout_s=2.0, memory_mb=256, fuzz_cases=6), progress=False
    )
    got = [r.status for r in results]
    assert got[: len(CANDIDATES)] == list(CANDIDATES)
    assert got[len(CANDIDATES)] == Status.RUNTIME_ERROR  # output limit exceeded
    assert [r.sample_index for r in results] == list(range(len(samples)))
    passed = results[0]
    assert (passed.cases_total, passed.cases_passed, passed.first_failure) == (6, 6, None)
    failed = results[1]
    assert failed.first_failure["case"] == 0 and failed.first_failure["status"] == Status.FAILED
    assert int(failed.first_failure["expected_tail"]) * 3 == int(failed.first_failure["actual_tail"]) * 2
    assert "ValueError: boom" in results[3].first_failure["stderr_tail"]
    # Wrong only for even fuzz values: the first even case decides, odd cases still count.
    from biocoder_metric.execution.harness import fill_placeholders

    values = [int(fill_placeholders("<|int;range=1,9|>", "unit_double", i, 0, "python")) for i in range(6)]
    partial = results[-1]
    assert partial.cases_passed == sum(v % 2 for v in values)
    evens = [i for i, v in enumerate(values) if v % 2 == 0]
    assert partial.status == (Status.FAILED if evens else Status.PASSED)
    if evens:
        assert partial.first_failure["case"] == evens[0]


@pytest.mark.engine
@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
def test_java_compile_error_and_pass(tmp_path):
    context = (
        "public class Main {\n    <<insert solution here>>\n\n    public static void main(String[] args) {\n"
        "        System.out.println(twice(<|int;range=1,100|>));\n    }\n}\n"
    )
    row = empty_row()
    row.update(
        task_id="unit_java",
        config="unit",
        language="java",
        kind="harness",
        executable=True,
        function_name="twice",
        signature="public static int twice(int x)",
        context=context,
        golden_code="public static int twice(int x) {\n    return 2 * x;\n}\n",
    )
    samples = [
        {
            "task_id": "unit_java",
            "completion": "```java\npublic static int twice(int x) {\n    return x << 1;\n}\n```",
        },
        {"task_id": "unit_java", "completion": "public static int twice(int x) {\n    return x * 2\n}\n"},
        {"task_id": "unit_java", "completion": "    return x + x;\n}\n"},  # continuation of the signature
    ]
    results = evaluate_samples([row], samples, _opts(tmp_path), progress=False)
    assert [r.status for r in results] == [Status.PASSED, Status.COMPILE_ERROR, Status.PASSED]
    # compiler messages name the file without the sandbox's per-run scratch path
    assert results[1].first_failure["stderr_tail"].startswith("Main.java:"), results[1].first_failure[
        "stderr_tail"
    ]


# ---------------------------------------------------------------------------- tasks left out


@pytest.mark.engine
def test_broken_tasks_are_reported_not_scored(tmp_path):
    raising = _py_row("unit_raises", CTX, "def f(x):\n    raise RuntimeError('golden broken')\n")
    random_out = _py_row("unit_random", CTX, "import random\ndef f(x):\n    return random.random()\n")
    no_ctx = _py_row("unit_noctx", None, GOLD)
    not_exec = _py_row("unit_notexec", CTX, GOLD)
    not_exec.update(executable=False, not_executable_reason="upstream ships no harness")
    bad_ph = _py_row("unit_badph", CTX.replace("<|int;range=1,9|>", "<|int;range=9|>"), GOLD)
    ok = _py_row("unit_ok", CTX, GOLD)
    rows = [raising, random_out, no_ctx, not_exec, bad_ph, ok]
    samples = [{"task_id": r["task_id"], "completion": GOLD} for r in rows]
    with pytest.raises(GoldenFailuresError, match=r"2 of 3 goldens fail"):  # 3 scoreable: no_harness never is
        run_evaluation(rows, samples, _opts(tmp_path), progress=False)
    run = run_evaluation(rows, samples, _opts(tmp_path), progress=False, allow_partial=True)
    status = {t: s for t, (s, _) in run.task_status.items()}
    assert status == {
        "unit_raises": TaskStatus.GOLDEN_FAILS,
        "unit_random": TaskStatus.GOLDEN_FAILS,
        "unit_noctx": TaskStatus.NO_HARNESS,
        "unit_notexec": TaskStatus.NO_HARNESS,
        "unit_badph": TaskStatus.NO_HARNESS,
        "unit_ok": TaskStatus.OK,
    }
    reasons = {t: r for t, (_, r) in run.task_status.items()}
    assert "golden broken" in reasons["unit_raises"]
    assert "nondeterministic" in reasons["unit_random"]
    assert reasons["unit_notexec"] == "upstream ships no harness"
    assert "<|int;range=9|>" in reasons["unit_badph"]
    by_task = {r.task_id: r for r in run.results}
    assert by_task["unit_ok"].status == Status.PASSED
    assert by_task["unit_raises"].status == TaskStatus.GOLDEN_FAILS
    assert by_task["unit_raises"].extra["task_status"] == TaskStatus.GOLDEN_FAILS
    checks = {c["task_id"]: c for c in check_goldens(rows, _opts(tmp_path), progress=False)}
    assert checks["unit_ok"]["status"] == "passed"
    assert checks["unit_random"]["status"] == TaskStatus.GOLDEN_FAILS
    assert checks["unit_notexec"]["status"] == TaskStatus.NO_HARNESS


@pytest.mark.engine
def test_bad_samples_are_named(tmp_path):
    row = _py_row("unit_ok", CTX, GOLD)
    with pytest.raises(EvalInputError, match="unknown task_id 'nope'"):
        evaluate_samples([row], [{"task_id": "nope", "completion": GOLD}], _opts(tmp_path), progress=False)
    with pytest.raises(EvalInputError, match="sample #1: task unit_ok: needs a 'completion' or 'solution'"):
        evaluate_samples(
            [row],
            [{"task_id": "unit_ok", "solution": GOLD}, {"task_id": "unit_ok"}],
            _opts(tmp_path),
            progress=False,
        )


# ---------------------------------------------------------------------------- rosalind (real test cases)


DNA_RIGHT = "def solve(text):\n    s = text.strip()\n    return ' '.join(str(s.count(b)) for b in 'ACGT')\n"
DNA_WRONG = "def solve(text):\n    s = text.strip()\n    return ' '.join(str(s.count(b)) for b in 'ACTG')\n"
HAMM_RIGHT = "def solve(text):\n    a, b = text.split()[:2]\n    return sum(x != y for x, y in zip(a, b))\n"
HAMM_WRONG = "def solve(text):\n    a, b = text.split()[:2]\n    return sum(x == y for x, y in zip(a, b))\n"


@pytest.mark.engine
@pytest.mark.upstream
def test_rosalind_real_problems(upstream_dir, tmp_path):
    rows = []
    for pid in ("dna", "hamm"):
        row = empty_row()
        row.update(
            task_id=f"rosalind_{pid}",
            config="rosalind",
            language="python",
            kind="rosalind",
            executable=True,
            function_name="solve",
            signature="def solve(input_text: str) -> str",
            test_input=(upstream_dir / "rosalind-testcases" / f"rosalind_{pid}.txt").read_text(),
            expected_output=(upstream_dir / "rosalind-testcases" / f"rosalind_{pid}sol.txt").read_text(),
        )
        rows.append(row)
    samples = [
        {"task_id": "rosalind_dna", "completion": f"```python\n{DNA_RIGHT}```"},
        {"task_id": "rosalind_dna", "completion": DNA_WRONG},
        {"task_id": "rosalind_hamm", "completion": HAMM_RIGHT},
        {"task_id": "rosalind_hamm", "completion": HAMM_WRONG},
        {"task_id": "rosalind_hamm", "completion": "def solve(text)\n    return 1\n"},
    ]
    results = evaluate_samples(rows, samples, _opts(tmp_path), progress=False)
    assert [r.status for r in results] == [
        Status.PASSED,
        Status.FAILED,
        Status.PASSED,
        Status.FAILED,
        Status.COMPILE_ERROR,
    ]


# ---------------------------------------------------------------------------- golden cache, determinism


@pytest.mark.engine
def test_golden_outputs_are_cached_on_disk(tmp_path):
    # The `none` backend (our own trusted code) so the golden can count its runs in a host file.
    counter = tmp_path / "golden_runs"
    golden = (
        f"def f(x):\n    with open({str(counter)!r}, 'a') as fh:\n        fh.write('.')\n    return x * 2\n"
    )
    row = _py_row("unit_counted", CTX, golden)
    # include_weak: no strength check, whose candidates call the golden too (tests/test_strength.py)
    opts = _opts(tmp_path, sandbox="none", allow_unsafe=True, include_weak=True)
    sample = [{"task_id": "unit_counted", "completion": GOLD}]
    first = evaluate_samples([row], sample, opts, progress=False)
    assert counter.read_text() == "." * 6  # 3 cases, each run twice (determinism check)
    second = evaluate_samples([row], sample, opts, progress=False)
    assert counter.read_text() == "." * 6  # served from the cache
    assert [r.to_json() | {"duration_s": 0} for r in first] == [
        r.to_json() | {"duration_s": 0} for r in second
    ]
    assert len(list((tmp_path / "golden").glob("*.json"))) == 1  # (no strength-*.json: include_weak)
    evaluate_samples(
        [row],
        sample,
        _opts(tmp_path, sandbox="none", allow_unsafe=True, seed=1, include_weak=True),
        progress=False,
    )
    assert counter.read_text() == "." * 12  # a new seed means new fuzz values: recomputed


@pytest.mark.engine
def test_results_do_not_depend_on_worker_count(demo_rows, tmp_path):
    rows = [
        r for r in demo_rows if r["task_id"] in ("demo_py_gc_content", "demo_py_hamming", "demo_rosalind_dna")
    ]
    samples = [
        {"task_id": r["task_id"], "completion": c}
        for r in rows
        for c in (r["golden_code"], _mutant(r), "garbage(")
    ]
    one = evaluate_samples(rows, samples, _opts(tmp_path, workers=1), progress=False)
    three = evaluate_samples(rows, samples, _opts(tmp_path, workers=3), progress=False)
    strip = lambda rs: [json.dumps(r.to_json() | {"duration_s": 0}, sort_keys=True) for r in rs]  # noqa: E731
    assert strip(one) == strip(three)
    assert [r.status for r in one] == [Status.PASSED, Status.FAILED, Status.COMPILE_ERROR] * 3


# ---------------------------------------------------------------------------- retry


class _FlakySandbox(Sandbox):
    """A sandbox that fails the first ``failures`` runs (raising or reporting sandbox_error)."""

    name = "flaky"
    runs = 0

    def __init__(self, failures: int, mode: str):
        self.failures, self.mode = failures, mode

    @property
    def environment_id(self) -> str:
        return "flaky"

    def run(self, job: Job) -> list[CaseOutcome]:
        type(self).runs += 1
        if type(self).runs <= self.failures:
            if self.mode == "raise":
                raise SandboxError("worker died")
            return [CaseOutcome(status=RunStatus.SANDBOX_ERROR)] * len(job.programs)
        from biocoder_metric.execution.executors.local import CANARY_OUTPUT

        out = CANARY_OUTPUT if "biocoder canary ok" in job.programs[0] else "ok\n"
        return [CaseOutcome(status=RunStatus.OK, returncode=0, stdout=out)] * len(job.programs)


def _pool_run(failures: int, mode: str, role: str) -> tuple[list[CaseOutcome], list[_FlakySandbox]]:
    job = Job(language="python", programs=("print('ok')",) * 2)
    _FlakySandbox.runs = 0
    made: list[_FlakySandbox] = []

    def factory(*a, **k):
        made.append(_FlakySandbox(failures, mode))
        return made[-1]

    pool = SandboxPool(EvalOptions(sandbox="flaky"), 1, factory=factory, role=role)
    outcomes = pool.run(job)
    pool.close()
    return outcomes, made


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_a_golden_sandbox_error_is_retried_twice_on_fresh_sandboxes(mode):
    for failures, expected, runs in (
        (1, RunStatus.OK, 2),
        (2, RunStatus.OK, 3),
        (3, RunStatus.SANDBOX_ERROR, 3),
    ):
        outcomes, made = _pool_run(failures, mode, "golden")
        assert [o.status for o in outcomes] == [expected] * 2
        assert _FlakySandbox.runs == runs
        assert len(made) == runs  # every retry on a sandbox that never failed before


@pytest.mark.parametrize("mode", ["raise", "report"])
def test_a_candidate_sandbox_error_is_retried_once_then_attributed_by_a_canary(mode):
    # 1 failure: the retry passes. 2: the retry fails, the canary runs cleanly -> the candidate's
    # fault (sandbox_killed). 3: the canary fails too -> infrastructure (sandbox_error).
    for failures, expected, runs in (
        (1, RunStatus.OK, 2),
        (2, RunStatus.SANDBOX_KILLED, 3),
        (3, RunStatus.SANDBOX_ERROR, 3),
    ):
        outcomes, made = _pool_run(failures, mode, "candidate")
        assert [o.status for o in outcomes] == [expected] * 2, failures
        assert _FlakySandbox.runs == runs
        assert len(made) == runs  # the retry and the canary each on a fresh sandbox
