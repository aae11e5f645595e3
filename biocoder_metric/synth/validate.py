"""Validate a synthesised harness in the sandbox, through the engine's own pieces.

A generated harness is only worth shipping if it actually tests something. Programs are
built by :func:`biocoder_metric.execution.harness.build_harness_programs` (the exact insertion and
placeholder filling evaluation uses), run by :class:`biocoder_metric.execution.executors.local.SandboxPool`
and judged by :func:`biocoder_metric.execution.judging.judge`: there is no second runner, so a
harness that validates here behaves the same under ``biocoder evaluate``.

The gates, in order (the first failing one is the reason recorded):

1. the program runs (exit 0) on every fuzz case, and the golden raises on at most 20% of
   the calls (a raised exception is printed as ``exception: Name``; see python_harness).
   An exception the golden raises *itself* (``raise IncorrectFormat(...)``, ``throw new
   IllegalArgumentException(...)``) is part of what it does, not a failure of the inputs: a
   validator's job is to reject some of them, and upstream's hand-written harnesses print
   that type too. Such calls may make up to half (``MAX_OWN_ERROR_RATE``); every other
   exception still counts against the 20%, and at least half the calls must return;
2. deterministic: the same bytes on every case in each of ``runs`` (3) runs;
3. the output varies with the input (not one constant text for all cases);
4. no null candidate passes (the engine's own, :mod:`biocoder_metric.execution.strength`:
   ``return None``, ``pass``, the first argument, ``raise``, a constant of the return type),
   and (Python) replacing the golden's return value is detected when it returns one;
5. what varies between cases is the function's result or effect, not an echo of inputs: the
   lines the golden prints and the ``return None`` candidate does not (its result) differ
   between at least two cases;
6. mutants (:mod:`biocoder_metric.validity.mutation`): at least ``MIN_MUTANTS`` (5) that are
   not likely equivalent (survivors are run again with ``EQUIVALENCE_FACTOR`` times the cases;
   one that survives even that is likely equivalent), or, when the function allows fewer, all
   of them but a third (``EQUIVALENT_SHARE``; at least one must count), and at least
   ``MIN_SCORE`` (80%) of those killed. Mutants that do not compile (Java) are not judged: they
   say nothing about the harness. Why the third: a small function's mutants include some that
   no input can tell apart (a deleted log call or ``close()``, ``> 0`` where an empty loop does
   nothing anyway); asking for all of them made such functions impossible to validate, while
   a third still leaves most of a small function's mutants to be killed. "Likely equivalent"
   is judged across the task's plans (:func:`regate`): a mutant another plan killed is a
   survivor, not equivalent, so a plan that reaches less of the code cannot pass where one
   that reaches more failed.

Both mutant families' scores are recorded: the project's (the one synthesis chooses plans
by) and the held-out family (:mod:`biocoder_metric.validity.heldout_mutants`), which never
influences any choice, so its score is the honest one.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.execution import harness
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.execution.judging import case_error, judge
from biocoder_metric.languages import runner
from biocoder_metric.sandbox.runtime import protocol
from biocoder_metric.synth.python_harness import DIAG_PREFIX, EXCEPTION_PREFIX
from biocoder_metric.types import Job, Status
from biocoder_metric.validity.heldout_mutants import heldout_mutants

MAX_ERROR_RATE = 0.2
#: Calls that may end in an exception the golden raises itself (a validator rejecting an input).
MAX_OWN_ERROR_RATE = 0.5
RUNS = 3
#: Gate 6: non-equivalent mutants needed (or all, when fewer exist) and the share killed.
MIN_MUTANTS = 5
MIN_SCORE = 0.8
#: Of a function with fewer than ``MIN_MUTANTS`` countable mutants, the share that may be likely
#: equivalent (rounded down, at least one).
EQUIVALENT_SHARE = 1 / 3
#: Survivors run again with this many times the fuzz cases to tell equivalent mutants apart.
EQUIVALENCE_FACTOR = 3


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
    mutants_likely_equivalent: int = 0
    mutants: list[dict[str, Any]] = field(default_factory=list)
    null_candidates_passed: list[str] = field(default_factory=list)
    return_unobserved: bool | None = None
    result_signals: int = 0
    heldout_total: int = 0
    heldout_judged: int = 0
    heldout_killed: int = 0
    heldout_mutation_score: float | None = None
    #: Mutants this plan's cases judged likely equivalent that another plan of the same task killed
    #: (:func:`regate`): counted as survivors here.
    mutants_killed_by_other_plans: int = 0
    seconds: float = 0.0
    max_case_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def own_exceptions(golden: str, language: str) -> frozenset[str]:
    """The exception types a golden raises itself (simple names, as the harness prints them)."""
    return runner(language).raised_exceptions(golden)


def error_gate(calls: list[str], golden: str, language: str) -> str | None:
    """Gate 1's verdict on one run's call lines (``result: ...`` / ``exception: Name``): ``None``
    when it passes, else the reason. Exceptions of types the golden raises itself count against
    :data:`MAX_OWN_ERROR_RATE`, all others against :data:`MAX_ERROR_RATE`."""
    n_calls = max(len(calls), 1)
    errors = [ln for ln in calls if ln.startswith(EXCEPTION_PREFIX)]
    own = own_exceptions(golden, language)
    incidental = [ln for ln in errors if ln[len(EXCEPTION_PREFIX) :].strip() not in own]
    if len(incidental) > MAX_ERROR_RATE * n_calls or len(errors) > MAX_OWN_ERROR_RATE * n_calls:
        examples = sorted(set(errors))
        return f"golden raises on {len(errors)}/{n_calls} calls ({', '.join(examples)[:200]})"
    return None


def task_mutants(row: dict[str, Any], limit: int) -> list[tuple[str, str]]:
    """The project's own mutants of a task's golden (operator name, source)."""
    return runner(row["language"]).mutants(row["golden_code"], limit, seed=row["task_id"])


def _job(row: dict[str, Any], programs: tuple[str, ...], timeout_s: float, memory_mb: int) -> Job:
    return Job(
        language=row["language"],
        programs=programs,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        class_name=runner(row["language"]).class_name(row["context"]),
    )


def golden_outputs_checked(
    pool: SandboxPool,
    row: dict[str, Any],
    *,
    fuzz_cases: int,
    seed: int,
    timeout_s: float,
    memory_mb: int,
    runs: int = RUNS,
) -> tuple[list[str] | None, Validation]:
    """Run the golden ``runs`` times on every case.

    Returns ``(None, v)`` when it crashes or is nondeterministic (no reference exists), else
    the outputs, with ``v.reason`` set when a soft gate (error rate, varying output) fails.
    """
    progs = harness.build_harness_programs(row, row["golden_code"], fuzz_cases=fuzz_cases, seed=seed)
    n = len(progs)
    v = Validation(passed=False, cases=n, runs=runs)
    # In stages, stopping at the first failing one: case 0 alone (a harness that does not
    # compile, or a golden that hangs on these inputs, costs one case, not n * runs time-outs),
    # then the rest of run 1, then the repeat runs.
    outcomes: list[Any] = []
    for stage in (progs[:1], progs[1:], progs * (runs - 1)):
        if not stage:
            continue
        start = len(outcomes)
        outcomes += pool.run(_job(row, tuple(stage), timeout_s, memory_mb))
        for i, o in enumerate(outcomes[start:], start):
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
    v.distinct_outputs = len(set(_without_probes(o) for o in first))
    raised = error_gate(calls, row["golden_code"], row["language"])
    if raised:
        v.reason = raised
    elif n > 1 and v.distinct_outputs < 2:
        v.reason = "output does not vary with the input (one constant output for all cases)"
    return first, v


def golden_case_outputs(
    pool: SandboxPool,
    row: dict[str, Any],
    contexts: list[str] | tuple[str, ...],
    cases: int,
    *,
    seed: int,
    timeout_s: float,
    memory_mb: int,
    diagnostics: bool = False,
) -> list[list[str | None]]:
    """Per context (a candidate harness of ``row``), the golden's stdout on each of ``cases``
    fuzz cases, ``None`` for a case that did not exit cleanly; every context in one sandbox job.

    The search of :mod:`biocoder_metric.synth.python_search` asks this to compare plans cheaply
    before any of them is validated. With ``diagnostics``, a case's ``bc-diag`` lines (the
    harness's stderr: where the golden raised, see :mod:`biocoder_metric.synth.python_repair`)
    follow its stdout.
    """
    if not contexts:
        return []
    progs: list[str] = []
    spans: list[tuple[int, int]] = []
    for ctx in contexts:
        trial = dict(row, context=ctx, kind="harness", executable=True)
        got = harness.build_harness_programs(trial, row["golden_code"], fuzz_cases=cases, seed=seed)
        spans.append((len(progs), len(progs) + len(got)))
        progs += got
    first = dict(row, context=contexts[0], kind="harness", executable=True)
    # Case 0 of every context first; the other cases only of contexts whose case 0 did not time
    # out (a variant on which the golden hangs costs one time-out, not ``cases`` of them).
    heads = [a for a, b in spans if b > a]
    outcomes: list[Any] = [None] * len(progs)
    for a, o in zip(
        heads, pool.run(_job(first, tuple(progs[a] for a in heads), timeout_s, memory_mb)), strict=True
    ):
        outcomes[a] = o
    rest = [
        i
        for a, b in spans
        if b > a and case_error(outcomes[a], row["language"]) != Status.TIMEOUT
        for i in range(a + 1, b)
    ]
    if rest:
        for i, o in zip(
            rest, pool.run(_job(first, tuple(progs[i] for i in rest), timeout_s, memory_mb)), strict=True
        ):
            outcomes[i] = o

    def text(o: Any) -> str | None:
        if o is None or case_error(o, row["language"]) is not None:
            return None
        if not diagnostics:
            return o.stdout
        diag = [ln for ln in (o.stderr or "").splitlines() if ln.startswith(DIAG_PREFIX)]
        return o.stdout + "".join(ln + "\n" for ln in diag)

    return [[text(o) for o in outcomes[a:b]] for a, b in spans]


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
    kw = {"fuzz_cases": fuzz_cases, "seed": seed, "timeout_s": mutant_timeout_s, "memory_mb": memory_mb}
    if not v.reason:
        v.reason = _null_gate(pool, row, outputs, v, **kw)
    if strict and v.reason:
        v.seconds = round(time.monotonic() - started, 3)
        return v
    v.mutants_total = len(pool_mutants)
    if pool_mutants:
        results = judge_candidates(pool, row, [code for _, code in pool_mutants], outputs, **kw)
        survivors = [i for i, st in enumerate(results) if st == Status.PASSED]
        equivalent = set()
        if survivors:
            more = {**kw, "fuzz_cases": fuzz_cases * EQUIVALENCE_FACTOR}
            more_expected = _golden_stdout(pool, row, more)
            if more_expected is not None:
                again = judge_candidates(
                    pool, row, [pool_mutants[i][1] for i in survivors], more_expected, **more
                )
                for i, st in zip(survivors, again, strict=True):
                    if st == Status.PASSED:
                        equivalent.add(i)
                    else:
                        results[i] = st  # killed by more cases: a real bug the normal test misses
        for i, ((op, _), status) in enumerate(zip(pool_mutants, results, strict=True)):
            judged = status != Status.COMPILE_ERROR
            killed = judged and status != Status.PASSED and i not in survivors
            v.mutants.append(
                {"operator": op, "status": status, "killed": killed, "likely_equivalent": i in equivalent}
            )
            v.mutants_judged += judged
            v.mutants_killed += killed
        v.mutants_likely_equivalent = len(equivalent)
        non_equivalent = v.mutants_judged - v.mutants_likely_equivalent
        if non_equivalent:
            v.mutation_score = round(v.mutants_killed / non_equivalent, 4)
    heldout = heldout_mutants(row["golden_code"], row["language"], mutant_limit)
    v.heldout_total = len(heldout)
    if heldout:
        for status in judge_candidates(pool, row, [code for _, code in heldout], outputs, **kw):
            judged = status != Status.COMPILE_ERROR
            v.heldout_judged += judged
            v.heldout_killed += judged and status != Status.PASSED
        if v.heldout_judged:
            v.heldout_mutation_score = round(v.heldout_killed / v.heldout_judged, 4)
    if v.reason:
        pass  # a soft gate failed (strict=False)
    else:
        v.reason = _mutant_gate(v)
        v.passed = v.reason is None
    v.seconds = round(time.monotonic() - started, 3)
    return v


def _without_probes(stdout: str) -> str:
    """A case's output without its probe lines (``probe: ...``, ``probe exception: ...``).

    Whether a case adds a probe call is itself random, so probe lines would make the output
    "vary" for a function that ignores its input: variation is measured on the main call only.
    """
    return "".join(ln for ln in stdout.splitlines(keepends=True) if not ln.startswith("probe"))


def killed_indices(v: Validation) -> set[int]:
    """Indices (in the task's mutant list, the same for every plan) of the mutants ``v`` killed."""
    return {i for i, m in enumerate(v.mutants) if m.get("killed")}


def regate(v: Validation, killed_elsewhere: set[int]) -> Validation:
    """``v`` judged again knowing which mutants other plans of the same task killed.

    Why: a plan's "likely equivalent" only means its own cases (and three times as many) could
    not tell the mutant apart. A mutant another plan of the same task killed is not equivalent:
    that plan found an input the golden handles on which it differs. Without this, a plan that
    reaches less of the code passed gate 6 where one that reached more failed it, because every
    mutant on the code it never reached counted as equivalent (a weaker harness validated). The
    mutant list is seeded by the task, so an index names the same mutant in every plan.
    """
    if not v.passed or not v.mutants:
        return v
    missed = {
        i
        for i, m in enumerate(v.mutants)
        if m.get("likely_equivalent") and not m.get("killed") and i in killed_elsewhere
    }
    if not missed:
        return v
    out = replace(v, mutants=[dict(m) for m in v.mutants])
    for i in missed:
        out.mutants[i]["likely_equivalent"] = False
    out.mutants_killed_by_other_plans = len(missed)
    out.mutants_likely_equivalent = v.mutants_likely_equivalent - len(missed)
    non_equivalent = out.mutants_judged - out.mutants_likely_equivalent
    out.mutation_score = round(out.mutants_killed / non_equivalent, 4) if non_equivalent else None
    out.reason = _mutant_gate(out)
    out.passed = out.reason is None
    return out


def _mutant_gate(v: Validation) -> str | None:
    """Gate 6 (see the module docstring), or None when it holds."""
    if not v.mutants_judged:
        return "no mutant of this function can be judged: a harness cannot be shown to catch anything"
    non_equivalent = v.mutants_judged - v.mutants_likely_equivalent
    allowance = max(1, int(v.mutants_judged * EQUIVALENT_SHARE))
    need = max(1, min(MIN_MUTANTS, v.mutants_judged - allowance))
    if non_equivalent < need:
        return f"only {non_equivalent} mutants are not likely equivalent (needs {need})"
    if v.mutants_killed < MIN_SCORE * non_equivalent:
        return f"kills {v.mutants_killed} of {non_equivalent} non-equivalent mutants (needs {MIN_SCORE:.0%})"
    return None


def _golden_stdout(pool: SandboxPool, row: dict[str, Any], kw: dict[str, Any]) -> list[str] | None:
    """The golden's stdout per case under ``kw``'s fuzz cases, or None when it does not run cleanly."""
    progs = harness.build_harness_programs(
        row, row["golden_code"], fuzz_cases=kw["fuzz_cases"], seed=kw["seed"]
    )
    outcomes = pool.run(_job(row, progs, kw["timeout_s"] * 2, kw["memory_mb"]))
    if any(case_error(o, row["language"]) is not None for o in outcomes):
        return None
    return [o.stdout for o in outcomes]


def _null_gate(
    pool: SandboxPool, row: dict[str, Any], outputs: list[str], v: Validation, **kw: Any
) -> str | None:
    """Gates 4 and 5: no null candidate passes, the return value is observed, the result varies."""
    from biocoder_metric.execution.strength import (
        NULL_CONSTANT,
        NULL_RETURN_NONE,
        RETURN_NONE_AFTER_CALL,
        RETURN_PERTURBED,
        RETURNS_SOMETHING,
        null_candidates,
    )

    nulls = null_candidates(row)
    wrapped = runner(row["language"]).wrapped_candidates(row["golden_code"], row.get("function_name"))
    cands = nulls + [c for c in wrapped if c[0] != RETURNS_SOMETHING]
    statuses = dict(
        zip(
            [c[0] for c in cands],
            judge_candidates(pool, row, [c[1] for c in cands], outputs, **kw),
            strict=True,
        )
    )
    null_labels = [c[0] for c in nulls] + (
        [NULL_CONSTANT] if any(c[0] == NULL_CONSTANT for c in wrapped) else []
    )
    v.null_candidates_passed = [label for label in null_labels if statuses.get(label) == Status.PASSED]
    if v.null_candidates_passed:
        return f"null candidate passes: {', '.join(v.null_candidates_passed)}"
    if wrapped:
        v.return_unobserved = False
        if (
            statuses.get(RETURN_NONE_AFTER_CALL) == Status.PASSED
            and statuses.get(RETURN_PERTURBED) == Status.PASSED
        ):
            probe = [c[1] for c in wrapped if c[0] == RETURNS_SOMETHING]
            v.return_unobserved = judge_candidates(pool, row, probe, outputs, **kw)[0] != Status.PASSED
            if v.return_unobserved:
                return "the return value is never observed: replacing it (by None or another value) is not detected"
    # Gate 5: the result (what the golden prints beyond a null's output) must vary between cases.
    none_code = dict(nulls).get(NULL_RETURN_NONE)
    if none_code is not None and len(outputs) > 1:
        progs = harness.build_harness_programs(row, none_code, fuzz_cases=kw["fuzz_cases"], seed=kw["seed"])
        null_out = [o.stdout for o in pool.run(_job(row, progs, kw["timeout_s"], kw["memory_mb"]))]
        signals = set()
        for gold, null in zip(outputs, null_out, strict=False):
            extra = Counter(_without_probes(gold).splitlines()) - Counter(_without_probes(null).splitlines())
            if extra:
                signals.add(frozenset(extra.items()))
        v.result_signals = len(signals)
        if len(signals) < 2:
            return "what varies between cases is not the function's result (the output beyond a null candidate's is the same on every case)"
    return None


def judge_candidates(
    pool: SandboxPool,
    row: dict[str, Any],
    candidates: list[str],
    expected: list[str],
    *,
    fuzz_cases: int,
    seed: int,
    timeout_s: float,
    memory_mb: int,
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
