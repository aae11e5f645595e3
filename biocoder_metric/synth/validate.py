"""Validate a synthesised harness in the sandbox, through the engine's own pieces.

A generated harness is only worth shipping if it actually tests something. Programs are
built by :func:`biocoder_metric.execution.harness.build_harness_programs` (the exact insertion and
placeholder filling evaluation uses), run by :class:`biocoder_metric.execution.pool.SandboxPool`
and judged by :func:`biocoder_metric.execution.judging.judge`: there is no second runner, so a
harness that validates here behaves the same under ``biocoder evaluate``.

The gates, in order (the first failing one is the reason recorded):

1. the program runs (exit 0) on every fuzz case, and the golden raises on at most 20% of
   the calls (a raised exception is printed as ``exception: Name``; see python_harness);
2. deterministic: the same bytes on every case in each of ``runs`` (3) runs;
3. the output varies with the input (not one constant text for all cases);
4. mutants (:mod:`biocoder_metric.validity.mutation`) are killed: at least one, and the mutation
   score ``killed / judged`` is recorded. Mutants that do not compile (Java) are
   not judged: they say nothing about the harness.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.execution import harness
from biocoder_metric.execution.judging import case_error, judge
from biocoder_metric.execution.pool import SandboxPool
from biocoder_metric.sandbox.runtime import protocol
from biocoder_metric.synth.python_harness import EXCEPTION_PREFIX
from biocoder_metric.types import Job, Status
from biocoder_metric.validity.mutation import java_mutants, python_mutants

MAX_ERROR_RATE = 0.2
RUNS = 3


@dataclass
class Validation:
    """The verdict on one harness: passed or the reason, plus the measurements behind it."""

    passed: bool
    reason: str | None = None
    cases: int = 0
    calls: int = 0
    golden_error_cases: int = 0
    distinct_outputs: int = 0
    runs: int = 0
    mutants_total: int = 0
    mutants_judged: int = 0
    mutants_killed: int = 0
    mutation_score: float | None = None
    mutants: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    max_case_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def task_mutants(row: dict[str, Any], limit: int) -> list[tuple[str, str]]:
    """The project's own mutants of a task's golden (operator name, source)."""
    if row["language"] == "python":
        return python_mutants(row["golden_code"], limit, seed=row["task_id"])
    return java_mutants(row["golden_code"], limit)


def _job(row: dict[str, Any], programs: tuple[str, ...], timeout_s: float, memory_mb: int) -> Job:
    return Job(
        language=row["language"],
        programs=programs,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        class_name=harness.java_class_name(row["context"]) if row["language"] == "java" else "Main",
    )


def golden_outputs_checked(
    pool: SandboxPool, row: dict[str, Any], *, fuzz_cases: int, seed: int, timeout_s: float, memory_mb: int,
    runs: int = RUNS,
) -> tuple[list[str] | None, Validation]:
    """Run the golden ``runs`` times on every case.

    Returns ``(None, v)`` when it crashes or is nondeterministic (no reference exists), else
    the outputs, with ``v.reason`` set when a soft gate (error rate, varying output) fails.
    """
    progs = harness.build_harness_programs(row, row["golden_code"], fuzz_cases=fuzz_cases, seed=seed)
    n = len(progs)
    v = Validation(passed=False, cases=n, runs=runs)
    if row["language"] == "java":
        # One compile first: a harness that does not compile fails in one javac run, not n * runs.
        first_try = pool.run(_job(row, progs[:1], timeout_s, memory_mb))[0]
        if case_error(first_try, "java") is not None:
            v.reason = f"golden case 0 (run 1): {case_error(first_try, 'java')}: {_error_line(first_try.stderr)}"
            return None, v
    outcomes = pool.run(_job(row, progs * runs, timeout_s, memory_mb))
    for i, o in enumerate(outcomes):
        err = case_error(o, row["language"])
        if err is not None:
            v.reason = f"golden case {i % n} (run {i // n + 1}): {err}: {_error_line(o.stderr)}"
            return None, v
    first = [o.stdout for o in outcomes[:n]]
    v.max_case_s = round(max(o.duration_s for o in outcomes), 3)
    for r in range(1, runs):
        if [o.stdout for o in outcomes[r * n : (r + 1) * n]] != first:
            v.reason = f"nondeterministic: run {r + 1} printed different output than run 1"
            return None, v
    # Calls per program: one for Python harnesses, several for Java (SUBCASES); count calls.
    calls = [ln for out in first for ln in out.splitlines() if ln.startswith(("result: ", EXCEPTION_PREFIX))]
    v.calls = len(calls)
    v.golden_error_cases = sum(ln.startswith(EXCEPTION_PREFIX) for ln in calls)
    n_calls = max(len(calls), 1)
    v.distinct_outputs = len(set(first))
    if v.golden_error_cases > MAX_ERROR_RATE * n_calls:
        examples = sorted({ln for ln in calls if ln.startswith(EXCEPTION_PREFIX)})
        v.reason = f"golden raises on {v.golden_error_cases}/{n_calls} calls ({', '.join(examples)[:200]})"
    elif n > 1 and v.distinct_outputs < 2:
        v.reason = "output does not vary with the input (one constant output for all cases)"
    return first, v


def _error_line(stderr: str) -> str:
    """The informative line of an error output: javac's first ``error:`` line, else the last line."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln:
            return ln.split("error:", 1)[1].strip()[:300]
    return (lines[-1] if lines else "")[:300]


def validate(
    pool: SandboxPool,
    row: dict[str, Any],
    *,
    fuzz_cases: int = settings.FUZZ_CASES,
    seed: int = settings.SEED,
    timeout_s: float = protocol.DEFAULT_TIMEOUT_S,
    mutant_timeout_s: float = settings.MUTANT_TIMEOUT_S,
    memory_mb: int = protocol.DEFAULT_MEMORY_MB,
    mutant_limit: int = settings.MUTANTS,
    mutants: list[tuple[str, str]] | None = None,
    strict: bool = True,
) -> Validation:
    """Apply all gates to ``row`` (which carries the candidate ``context``).

    ``strict=False`` (used to measure upstream's harnesses) still judges the mutants when
    only a soft gate failed, so a mutation score is available for every harness with a reference.
    """
    started = time.monotonic()
    outputs, v = golden_outputs_checked(
        pool, row, fuzz_cases=fuzz_cases, seed=seed, timeout_s=timeout_s, memory_mb=memory_mb
    )
    if outputs is None or (strict and v.reason):
        v.seconds = round(time.monotonic() - started, 3)
        return v
    pool_mutants = task_mutants(row, mutant_limit) if mutants is None else mutants
    # A mutant that runs 5x longer than the slowest golden case is looping: cut it early.
    mutant_timeout_s = min(mutant_timeout_s, max(2.0, 5 * v.max_case_s))
    v.mutants_total = len(pool_mutants)
    if pool_mutants:
        results = judge_candidates(pool, row, [code for _, code in pool_mutants], outputs,
                                   fuzz_cases=fuzz_cases, seed=seed, timeout_s=mutant_timeout_s, memory_mb=memory_mb)
        for (op, _), status in zip(pool_mutants, results, strict=True):
            judged = status != Status.COMPILE_ERROR
            killed = judged and status != Status.PASSED
            v.mutants.append({"operator": op, "status": status, "killed": killed})
            v.mutants_judged += judged
            v.mutants_killed += killed
        if v.mutants_judged:
            v.mutation_score = round(v.mutants_killed / v.mutants_judged, 4)
    if v.reason:
        pass  # a soft gate failed (strict=False)
    elif v.mutants_judged and not v.mutants_killed:
        v.reason = f"kills none of {v.mutants_judged} mutants"
    else:
        v.passed = True
    v.seconds = round(time.monotonic() - started, 3)
    return v


def judge_candidates(
    pool: SandboxPool, row: dict[str, Any], candidates: list[str], expected: list[str], *,
    fuzz_cases: int, seed: int, timeout_s: float, memory_mb: int,
) -> list[str]:
    """The sample status of each candidate against ``expected`` (one job for all of them)."""
    progs: list[str] = []
    spans: list[tuple[int, int]] = []
    for code in candidates:
        p = harness.build_harness_programs(row, code, fuzz_cases=fuzz_cases, seed=seed)
        spans.append((len(progs), len(progs) + len(p)))
        progs.extend(p)
    outcomes = pool.run(_job(row, tuple(progs), timeout_s, memory_mb))
    return [judge(outcomes[a:b], expected, row["language"])[0] for a, b in spans]
