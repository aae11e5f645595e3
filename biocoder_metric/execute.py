"""Judge samples: schedule jobs over a pool of sandboxes, compare with golden outputs.

The engine entry points (see docs/ARCHITECTURE.md "Engine contract"):

* :func:`evaluate_samples` -- one :class:`~biocoder_metric.types.SampleResult` per sample.
* :func:`check_goldens` -- every task's golden run through the same path; pass or why not.

How a sample is judged:

* harness task: the golden program's stdout for each fuzz case is the expected output
  (computed once per (task, case, seed, harness hash, golden hash, sandbox environment)
  and cached on disk). The candidate passes when it prints exactly that for every case.
* Rosalind task: ``solve(test_input)`` printed, stripped, equals ``expected_output`` stripped.

A task whose golden cannot produce a reference (non-zero exit, timeout, different output
on two runs) is ``golden_fails``; one without an executable harness is ``no_harness``. Their
samples are not run; they get a result whose ``status`` is that task status, so they are
counted and reported, never silently dropped, and never counted as model failures.

Parallelism: ``workers`` threads, each borrowing one sandbox from a pool (a sandbox
serves one thread at a time). A job that hits a sandbox error is retried once.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from biocoder_metric import harness
from biocoder_metric.postprocess import extract_code
from biocoder_metric.types import (
    RUN_COMPILE_ERROR,
    RUN_MEMORY,
    RUN_OK,
    RUN_OUTPUT_LIMIT,
    RUN_SANDBOX_ERROR,
    RUN_TIMEOUT,
    CaseOutcome,
    Job,
    SampleResult,
    Status,
    TaskStatus,
)

#: Characters of expected / actual output / stderr kept in ``first_failure``.
TAIL_CHARS = 2000
#: Retries of a job whose sandbox failed, each on a fresh sandbox (issue: infrastructure errors).
SANDBOX_RETRIES = 2
#: Version of the golden cache entries; bump when their meaning changes.
_GOLDEN_CACHE_VERSION = 2


@dataclass
class EvalOptions:
    """Everything that decides how samples are run. Only some fields change results (see :meth:`fingerprint`)."""

    sandbox: str = field(default="auto", metadata={"help": "auto | docker | bwrap | none"})
    allow_unsafe: bool = field(
        default=False, metadata={"help": "permit the 'none' sandbox (runs code on the host)"}
    )
    image: str | None = field(default=None, metadata={"help": "Docker image (docker sandbox only)"})
    workers: int = field(default=2, metadata={"help": "parallel sandboxes (threads)"})
    fuzz_cases: int = field(default=10, metadata={"help": "fuzz cases per harness task"})
    timeout_s: float = field(default=10.0, metadata={"help": "wall-clock limit per case (seconds)"})
    memory_mb: int = field(default=2048, metadata={"help": "memory limit per case (MiB)"})
    seed: int = field(
        default=0, metadata={"help": "fuzz seed: values come from Random(f'{seed}:{task}:{case}')"}
    )
    golden_cache_dir: str | None = field(
        default=None,
        metadata={
            "help": "golden output cache (default $BIOCODER_CACHE_DIR/golden or ~/.cache/biocoder/golden)"
        },
    )
    use_golden_cache: bool = field(default=True, metadata={"help": "read/write the golden output cache"})
    executor: str = field(
        default="local", metadata={"help": "local | ray: where sandbox jobs run (see docs/scale.md)"}
    )
    ray_address: str | None = field(
        default=None, metadata={"help": "Ray cluster: auto | HOST:PORT | ray://... (default: RAY_ADDRESS or a new local one)"}
    )
    workers_per_node: int | None = field(
        default=None, metadata={"help": "ray: sandboxes per node (default: the node's CPUs)"}
    )
    rosalind_check: str = field(
        default="rosalind",
        metadata={"help": "rosalind | exact: Rosalind answers judged by Rosalind's rules or upstream's exact text"},
    )
    plus: bool = field(
        default=False,
        metadata={"help": "also judge edge-value and extra fuzz cases, reported as pass@k (plus)"},
    )
    include_weak: bool = field(
        default=False,
        metadata={"help": "score tasks whose harness the audit found weak (harness_strength.weak_harness)"},
    )

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.fuzz_cases < 1:
            raise ValueError(f"fuzz_cases must be >= 1, got {self.fuzz_cases}")
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:  # nan compares False with everything
            raise ValueError(f"timeout_s must be a finite number > 0, got {self.timeout_s}")
        if self.memory_mb < 16:
            raise ValueError(f"memory_mb must be >= 16, got {self.memory_mb}")
        if self.executor not in ("local", "ray"):
            raise ValueError(f"executor must be 'local' or 'ray', got {self.executor!r}")
        if self.workers_per_node is not None and self.workers_per_node < 1:
            raise ValueError(f"workers_per_node must be >= 1, got {self.workers_per_node}")
        if self.rosalind_check not in ("rosalind", "exact"):
            raise ValueError(f"rosalind_check must be 'rosalind' or 'exact', got {self.rosalind_check!r}")

    def fingerprint(self) -> dict[str, Any]:
        """The fields that can change a verdict (workers and cache location cannot)."""
        return {
            k: getattr(self, k)
            for k in ("fuzz_cases", "timeout_s", "memory_mb", "seed", "rosalind_check", "plus", "include_weak")
        }

    def cache_dir(self) -> Path:
        if self.golden_cache_dir:
            return Path(self.golden_cache_dir)
        base = os.environ.get("BIOCODER_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "biocoder"
        )
        return Path(base) / "golden"


class EvalInputError(ValueError):
    """Samples or problems that cannot be evaluated; the message names the sample or task."""


class MissingTasksError(EvalInputError):
    """Tasks of the task set have no sample: pass@k over the rest would move the denominator.

    The CLI exits 1 on it; ``allow_missing=True`` counts those tasks as 0 correct instead.
    """

    def __init__(self, missing: Sequence[str], total: int):
        self.missing = list(missing)
        self.total = total
        names = ", ".join(self.missing)
        super().__init__(
            f"{len(self.missing)} of {total} tasks have no samples: {names}. pass@k is taken over the whole "
            "task set; add samples for them, name the subset you evaluate with --task-ids, or pass "
            "--allow-missing to count them as 0 correct"
        )


class GoldenFailuresError(RuntimeError):
    """Goldens fail in the chosen environment: a score here would be over a shrunken task set.

    The CLI exits 3 on it; ``allow_partial=True`` scores the other tasks, labelled partial.
    """

    def __init__(self, failures: Sequence[tuple[str, str | None]], total: int, sandbox: str):
        self.failures = list(failures)
        self.total = total
        shown = "\n".join(f"  {t}: {r}" for t, r in self.failures[:5])
        more = f"\n  ... and {len(self.failures) - 5} more" if len(self.failures) > 5 else ""
        super().__init__(
            f"{len(self.failures)} of {total} goldens fail in this environment (sandbox {sandbox}), so its "
            f"outputs cannot be the reference:\n{shown}{more}\n"
            "Fix: run in the reference environment (bash scripts/setup_docker.sh builds the image; then "
            "--sandbox docker, or --sandbox bwrap, which runs the image's root filesystem), or pass "
            "--allow-partial to score the other tasks under a 'partial' headline"
        )


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------- sandbox pool


class SandboxPool:
    """Up to ``size`` sandboxes, created lazily, each lent to one thread at a time."""

    def __init__(self, options: EvalOptions, size: int, factory: Callable[..., Any] | None = None):
        from biocoder_metric.sandbox import default_sandbox_name, make_sandbox

        self._make = factory or make_sandbox  # ``factory``: same signature as make_sandbox
        self.options = options
        self.name = (
            options.sandbox if factory or options.sandbox != "auto" else default_sandbox_name(options.image)
        )
        self.size = size
        self._free: queue.LifoQueue = queue.LifoQueue()
        self._lock = threading.Lock()
        self._count = 0
        self._closed = False
        first = self._new()  # fail fast (e.g. Docker not running) before any work is scheduled
        self.environment_id: str = first.environment_id
        self._free.put(first)

    def _new(self):
        sb = self._make(self.name, allow_unsafe=self.options.allow_unsafe, image=self.options.image)
        with self._lock:
            self._count += 1
        return sb

    def _acquire(self):
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            grow = self._count < self.size
        if grow:
            return self._new()
        return self._free.get()

    def _discard(self, sb) -> None:
        with self._lock:
            self._count -= 1
        try:
            sb.close()
        except Exception:  # noqa: BLE001 - a broken sandbox may fail to close; it is dropped either way
            pass

    def run(self, job: Job) -> list[CaseOutcome]:
        """Run ``job``; on a sandbox error retry up to :data:`SANDBOX_RETRIES` times, each on a fresh sandbox.

        Infrastructure is never the candidate's fault: a sandbox that failed (raised, or reported
        ``sandbox_error`` for a case) is discarded, and the whole job runs again on a new one.
        """
        from biocoder_metric.sandbox import SandboxError

        outcomes: list[CaseOutcome] = []
        for attempt in range(1 + SANDBOX_RETRIES):
            sb = self._acquire() if attempt == 0 else self._new()
            try:
                outcomes = list(sb.run(job))
            except SandboxError as exc:
                self._discard(sb)
                outcomes = [CaseOutcome(status=RUN_SANDBOX_ERROR, stderr=f"sandbox error: {exc}")] * len(
                    job.programs
                )
                continue
            if len(outcomes) != len(job.programs):
                outcomes = [
                    CaseOutcome(
                        status=RUN_SANDBOX_ERROR,
                        stderr=f"sandbox returned {len(outcomes)} outcomes for {len(job.programs)} cases",
                    )
                ] * len(job.programs)
            if not any(o.status == RUN_SANDBOX_ERROR for o in outcomes):
                self._free.put(sb)
                return outcomes
            self._discard(sb)
        return outcomes

    def close(self) -> None:
        while True:
            try:
                sb = self._free.get_nowait()
            except queue.Empty:
                break
            self._discard(sb)


def executor_pool(options: EvalOptions, role: str) -> Any | None:
    """The pool of a non-local executor (``options.executor``), or None for a local run.

    Imported lazily so that Ray is loaded only when ``--executor ray`` asks for it.
    """
    if options.executor == "ray":
        from biocoder_metric.executors.ray_pool import RayPool

        return RayPool(options, role)
    return None


def make_pool(options: EvalOptions, role: str) -> Any:
    """The pool for ``role``: ``"golden"`` (reference outputs) or ``"candidate"`` (samples).

    Golden isolation: golden programs and candidates never share a worker, so no candidate
    can find a golden's text or outputs in its sandbox (memory, processes, files). Golden
    pools are short-lived: the engine closes one as soon as the goldens it needed are known.
    """
    if role not in ("golden", "candidate"):
        raise ValueError(f"pool role must be 'golden' or 'candidate', got {role!r}")
    return executor_pool(options, role) or SandboxPool(options, options.workers)


def dispatch_threads(options: EvalOptions, pool: Any) -> int:
    """Engine threads feeding ``pool``: ``workers``, or more when the pool (a cluster) runs more at once."""
    return max(options.workers, int(getattr(pool, "concurrency", 0) or 0))


# ---------------------------------------------------------------------------- judging (pure)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def case_error(outcome: CaseOutcome, language: str) -> str | None:
    """The sample status one case's outcome implies, or ``None`` when it ran cleanly (exit 0)."""
    if outcome.status == RUN_OK:
        if outcome.returncode == 0:
            return None
        last = _last_line(outcome.stderr)
        if language == "python" and re.match(r"(SyntaxError|IndentationError|TabError)\b", last):
            return Status.COMPILE_ERROR
        if re.match(
            r"(MemoryError|java\.lang\.OutOfMemoryError|Exception in thread \S+ java\.lang\.OutOfMemoryError)\b",
            last,
        ) or ("java.lang.OutOfMemoryError" in outcome.stderr and language == "java"):
            return Status.MEMORY_EXCEEDED
        return Status.RUNTIME_ERROR
    return {
        RUN_TIMEOUT: Status.TIMEOUT,
        RUN_MEMORY: Status.MEMORY_EXCEEDED,
        RUN_OUTPUT_LIMIT: Status.RUNTIME_ERROR,
        RUN_COMPILE_ERROR: Status.COMPILE_ERROR,
    }.get(outcome.status, Status.SANDBOX_ERROR)


def _tail(text: str) -> str:
    return text[-TAIL_CHARS:]


#: The worker's per-job scratch paths (``.../job-<pid>-<n>/case-<i>/src/``) differ between runs
#: and worker counts; they are cut from stderr so results files stay byte-identical.
_SCRATCH_PATH_RE = re.compile(r"(?:/[^\s/:'\"]+)*/job-\d+-\d+/case-\d+/(?:src/|work/)?")


def _clean_stderr(text: str) -> str:
    return _SCRATCH_PATH_RE.sub("", text)


def judge(
    outcomes: Sequence[CaseOutcome],
    expected: Sequence[str],
    language: str,
    compare: Callable[[str, str], bool] = str.__eq__,
) -> tuple[str, int, dict[str, Any] | None]:
    """(status, cases passed, first failure) for one sample; the first non-passed case decides."""
    passed = 0
    first: dict[str, Any] | None = None
    status = Status.PASSED
    for index, (outcome, want) in enumerate(zip(outcomes, expected, strict=True)):
        error = case_error(outcome, language)
        if error is None and compare(outcome.stdout, want):
            passed += 1
            continue
        if first is None:
            status = error or Status.FAILED
            first = {
                "case": index,
                "status": status,
                "returncode": outcome.returncode,
                "expected_tail": _tail(want),
                "actual_tail": _tail(outcome.stdout),
                "stderr_tail": _tail(_clean_stderr(outcome.stderr)),
            }
    return status, passed, first


def weak_harness_reason(row: dict[str, Any]) -> str | None:
    """Why the harness audit found this task's test weak (``harness_strength`` column), or None.

    The column is a JSON object string written by ``biocoder audit`` and shipped with the
    dataset; a row without it (not audited) is never weak.
    """
    raw = row.get("harness_strength")
    if not raw:
        return None
    try:
        info = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    if not isinstance(info, dict) or not info.get("weak_harness"):
        return None
    passed = ", ".join(info.get("null_candidates_passed") or []) or "a null candidate"
    return f"weak harness: {passed} passes its test (harness audit {info.get('audit_version', '?')}; --include-weak scores it)"


def _stripped_equal(actual: str, expected: str) -> bool:
    return actual.strip() == expected.strip()


# ---------------------------------------------------------------------------- tasks


def static_task_status(row: dict[str, Any]) -> tuple[str, str | None]:
    """Task status that needs no execution: ``no_harness`` with a reason, or ``ok`` (golden still to check)."""
    if not row.get("executable"):
        return TaskStatus.NO_HARNESS, row.get("not_executable_reason") or "marked not executable"
    if row.get("kind") == "harness":
        context = row.get("context")
        if not context:
            return TaskStatus.NO_HARNESS, "no harness program (context is empty)"
        try:
            if context.count(harness.INSERT_MARKER) != 1:
                raise harness.HarnessError(
                    f"task {row['task_id']}: harness must contain exactly one {harness.INSERT_MARKER!r} marker, "
                    f"found {context.count(harness.INSERT_MARKER)}"
                )
            harness.find_placeholders(context, row["task_id"])
        except harness.HarnessError as exc:
            return TaskStatus.NO_HARNESS, f"harness unusable: {exc}"
        if not row.get("golden_code"):
            return TaskStatus.NO_HARNESS, "no golden code to compute the expected output"
        return TaskStatus.OK, None
    if row.get("kind") == "rosalind":
        if row.get("test_input") is None or row.get("expected_output") is None:
            return TaskStatus.NO_HARNESS, "no test input / expected output"
        return TaskStatus.OK, None
    return TaskStatus.NO_HARNESS, f"kind {row.get('kind')!r} cannot be executed"


@dataclass
class Golden:
    """Reference outputs of one harness task (or why there are none)."""

    ok: bool
    outputs: list[str]
    reason: str | None = None


class _Engine:
    """One evaluation session: the sandbox pool, the golden cache, the options."""

    def __init__(self, options: EvalOptions):
        self.options = options
        self.pool = make_pool(options, "candidate")
        self._golden_pool: Any | None = None
        self._golden_pool_lock = threading.Lock()
        self._golden: dict[str, Golden] = {}
        self._plus_golden: dict[str, list[tuple[int, str]]] = {}

    def close(self) -> None:
        self.close_golden_pool()
        self.pool.close()

    def golden_pool(self) -> Any:
        """The pool golden programs run in (created on first use; never lent to a candidate)."""
        with self._golden_pool_lock:
            if self._golden_pool is None:
                from biocoder_metric.sandbox import SandboxError

                pool = make_pool(self.options, "golden")
                if pool.environment_id != self.pool.environment_id:
                    pool.close()
                    raise SandboxError(
                        f"the golden sandbox's environment ({pool.environment_id}) differs from the "
                        f"candidates' ({self.pool.environment_id}); outputs would not be comparable"
                    )
                self._golden_pool = pool
            return self._golden_pool

    def close_golden_pool(self) -> None:
        """End the golden workers: nothing that ran a golden outlives the golden phase."""
        with self._golden_pool_lock:
            pool, self._golden_pool = self._golden_pool, None
        if pool is not None:
            pool.close()

    # -- programs

    def harness_job(
        self, row: dict[str, Any], solution: str, prompt: str | None = None, repeat: int = 1
    ) -> Job:
        programs = harness.build_harness_programs(
            row, solution, fuzz_cases=self.options.fuzz_cases, seed=self.options.seed, prompt=prompt
        )
        return Job(
            language=row["language"],
            programs=programs * repeat,
            timeout_s=self.options.timeout_s,
            memory_mb=self.options.memory_mb,
            class_name=harness.java_class_name(row["context"]) if row["language"] == "java" else "Main",
        )

    def rosalind_job(self, row: dict[str, Any], solution: str) -> Job:
        return Job(
            language="python",
            programs=(harness.build_rosalind_program(solution, row.get("function_name") or "solve"),),
            timeout_s=self.options.timeout_s,
            memory_mb=self.options.memory_mb,
            stdin=row["test_input"],
        )

    # -- goldens

    def _cache_path(self, row: dict[str, Any]) -> Path:
        key = sha256(
            json.dumps(
                [
                    _GOLDEN_CACHE_VERSION,
                    row["task_id"],
                    self.options.seed,
                    sha256(row["context"]),
                    sha256(row["golden_code"]),
                    self.pool.environment_id,
                    self.options.timeout_s,
                    self.options.memory_mb,
                ]
            )
        )
        safe = re.sub(r"[^\w.-]", "_", row["task_id"])[:80]
        return self.options.cache_dir() / f"{safe}-{key[:24]}.json"

    def golden(self, row: dict[str, Any]) -> Golden:
        """Reference stdout per fuzz case: cached on disk per case; computed twice to catch nondeterminism."""
        task_id = row["task_id"]
        if task_id in self._golden:
            return self._golden[task_id]
        path = self._cache_path(row)
        n = len(
            harness.build_harness_programs(
                row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed
            )
        )
        cached: dict[str, Any] = {}
        if self.options.use_golden_cache and path.is_file():
            try:
                cached = json.loads(path.read_text(encoding="utf-8")).get("cases", {})
            except (OSError, ValueError):
                cached = {}
        if all(cached.get(str(i), {}).get("ok") for i in range(n)):
            entries = [cached[str(i)] for i in range(n)]
        else:
            job = self.harness_job(row, row["golden_code"], repeat=2)
            outcomes = self.golden_pool().run(job)
            entries = [self._golden_entry(i, outcomes[i], outcomes[i + n], row["language"]) for i in range(n)]
            if self.options.use_golden_cache:
                # Only reference outputs are cached. Failures are recomputed on every run: even a
                # non-zero exit can be load-dependent (fork EAGAIN under a shared process limit).
                keep = {str(i): e for i, e in enumerate(entries) if e["ok"]}
                if keep:
                    cached.update(keep)
                    _atomic_write(path, json.dumps({"task_id": task_id, "cases": cached}, sort_keys=True))
        failures = [e for e in entries if not e["ok"]]
        if failures:
            result = Golden(ok=False, outputs=[], reason=failures[0]["reason"])
        else:
            result = Golden(ok=True, outputs=[e["stdout"] for e in entries])
        self._golden[task_id] = result
        return result

    @staticmethod
    def _golden_entry(case: int, a: CaseOutcome, b: CaseOutcome, language: str) -> dict[str, Any]:
        for o in (a, b):
            error = case_error(o, language)
            if error is not None:
                detail = _last_line(_clean_stderr(o.stderr))[:300]
                how = f"exit code {o.returncode}" if o.status == RUN_OK else o.status
                return {
                    "ok": False,
                    "reason": f"golden case {case}: {error} ({how}){': ' + detail if detail else ''}",
                }
        if a.stdout != b.stdout:
            return {
                "ok": False,
                "reason": f"golden case {case}: output differs between two runs (nondeterministic)",
            }
        return {"ok": True, "stdout": a.stdout}

    def task_status(self, row: dict[str, Any]) -> tuple[str, str | None]:
        status, reason = static_task_status(row)
        if status != TaskStatus.OK or row["kind"] != "harness":
            return status, reason
        # A known-weak harness is out of the task set before any golden runs (it is static, from
        # the shipped audit), so the denominator is the same whatever the environment.
        weak = weak_harness_reason(row)
        if weak and not self.options.include_weak:
            return TaskStatus.WEAK_HARNESS, weak
        g = self.golden(row)
        if not g.ok:
            return TaskStatus.GOLDEN_FAILS, g.reason
        return TaskStatus.OK, None

    def plus_golden(self, row: dict[str, Any]) -> list[tuple[int, str]]:
        """(plus case index, golden stdout) for the plus cases on which the golden runs cleanly, twice alike.

        Plus cases the golden itself fails on are dropped (see :mod:`biocoder_metric.validity.plus`).
        Kept in memory only: plus mode is an occasional, explicit run.
        """
        from biocoder_metric.validity.plus import plus_programs

        key = "plus:" + row["task_id"]
        if key not in self._plus_golden:
            programs = plus_programs(row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed)
            kept: list[tuple[int, str]] = []
            if programs:
                outcomes = self.golden_pool().run(self._programs_job(row, programs * 2))
                n = len(programs)
                for i in range(n):
                    entry = self._golden_entry(i, outcomes[i], outcomes[i + n], row["language"])
                    if entry["ok"]:
                        kept.append((i, entry["stdout"]))
            self._plus_golden[key] = kept
        return self._plus_golden[key]

    def _programs_job(self, row: dict[str, Any], programs: Sequence[str]) -> Job:
        return Job(
            language=row["language"],
            programs=tuple(programs),
            timeout_s=self.options.timeout_s,
            memory_mb=self.options.memory_mb,
            class_name=harness.java_class_name(row["context"]) if row["language"] == "java" else "Main",
        )

    def _plus_verdict(self, row: dict[str, Any], code: str, prompt: str | None, base_status: str) -> dict[str, Any]:
        """``extra.plus`` of a harness sample: the plus status (base failure stands) and the case counts."""
        from biocoder_metric.validity.plus import plus_programs

        kept = self.plus_golden(row)
        total = len(plus_programs(row, row["golden_code"], fuzz_cases=self.options.fuzz_cases, seed=self.options.seed))
        info: dict[str, Any] = {"status": base_status, "cases": len(kept), "dropped": total - len(kept)}
        if base_status != Status.PASSED or not kept:
            return info
        programs = plus_programs(row, code, fuzz_cases=self.options.fuzz_cases, seed=self.options.seed, prompt=prompt)
        outcomes = self.pool.run(self._programs_job(row, [programs[i] for i, _ in kept]))
        status, passed, first = judge(outcomes, [out for _, out in kept], row["language"])
        info.update(status=status, cases_passed=passed)
        if first is not None:
            info["first_failure"] = {**first, "plus_case": kept[first["case"]][0]}
        return info

    # -- samples

    def run_sample(self, row: dict[str, Any], sample: dict[str, Any]) -> SampleResult:
        started = time.monotonic()
        raw = sample["completion"]
        language = row["language"]
        code = extract_code(raw, language, row.get("function_name"))
        if row["kind"] == "rosalind":
            from biocoder_metric.validity.rosalind_checkers import comparator

            checker, compare = comparator(row, self.options.rosalind_check)
            outcomes = self.pool.run(self.rosalind_job(row, code))
            status, passed, first = judge(outcomes, [row["expected_output"]], language, compare)
            added: dict[str, Any] = {"rosalind_checker": checker}
            if self.options.plus:
                added["plus"] = {"status": status, "cases": 0, "dropped": 0}
        else:
            g = self.golden(row)
            job = self.harness_job(row, code, prompt=sample.get("prompt"))
            outcomes = self.pool.run(job)
            status, passed, first = judge(outcomes, g.outputs, language)
            added = {}
            if self.options.plus:
                added["plus"] = self._plus_verdict(row, code, sample.get("prompt"), status)
        return SampleResult(
            task_id=row["task_id"],
            sample_index=sample["sample_index"],
            status=status,
            completion=raw,
            program_hash=sha256(code),
            cases_total=len(outcomes),
            cases_passed=passed,
            first_failure=first,
            duration_s=round(time.monotonic() - started, 3),
            extra={"task_status": TaskStatus.OK, "completion_sha256": sha256(raw), **added},
        )


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------- inputs


def index_problems(problems: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """task_id -> row; duplicate ids are an error (they would make results ambiguous)."""
    by_id: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(problems):
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str):
            raise EvalInputError(f"problem #{i}: not a row with a string task_id")
        if row["task_id"] in by_id:
            raise EvalInputError(f"problem #{i}: duplicate task_id {row['task_id']!r}")
        by_id[row["task_id"]] = row
    return by_id


def normalize_samples(
    samples: Iterable[dict[str, Any]], by_id: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Validate samples and number them per task in order of appearance (``sample_index``).

    Each sample needs ``task_id`` (a known task) and ``completion`` or ``solution`` (a string).
    A ``where`` key (e.g. ``"samples.jsonl:12"``) is used in error messages when present.
    """
    out: list[dict[str, Any]] = []
    counters: dict[str, int] = {}
    for i, s in enumerate(samples):
        where = s.get("where") if isinstance(s, dict) and s.get("where") else f"sample #{i}"
        if not isinstance(s, dict):
            raise EvalInputError(
                f"{where}: expected an object with task_id and completion, got {type(s).__name__}"
            )
        task_id = s.get("task_id")
        if not isinstance(task_id, str):
            raise EvalInputError(f"{where}: field 'task_id' missing or not a string")
        if task_id not in by_id:
            raise EvalInputError(f"{where}: unknown task_id {task_id!r} (not in the loaded problems)")
        text = s.get("completion", s.get("solution"))
        if text is None:
            raise EvalInputError(f"{where}: task {task_id}: needs a 'completion' or 'solution' field")
        if not isinstance(text, str):
            raise EvalInputError(
                f"{where}: task {task_id}: 'completion'/'solution' must be a string, got {type(text).__name__}"
            )
        prompt = s.get("prompt")
        if prompt is not None and not isinstance(prompt, str):
            raise EvalInputError(f"{where}: task {task_id}: 'prompt' must be a string")
        index = counters.get(task_id, 0)
        counters[task_id] = index + 1
        out.append(
            {"task_id": task_id, "completion": text, "prompt": prompt, "sample_index": index, "where": where}
        )
    return out


def samples_digest(samples: Sequence[dict[str, Any]]) -> str:
    """Identity of a normalised sample list: (task, index, completion hash) of every sample."""
    return sha256(json.dumps([[s["task_id"], s["sample_index"], sha256(s["completion"])] for s in samples]))


def problems_digest(rows: Iterable[dict[str, Any]]) -> str:
    """Identity of the problem rows that matter for judging."""
    keys = (
        "task_id",
        "language",
        "kind",
        "executable",
        "context",
        "golden_code",
        "test_input",
        "expected_output",
        "function_name",
        "signature",
    )
    return sha256(json.dumps([[r.get(k) for k in keys] for r in sorted(rows, key=lambda r: r["task_id"])]))


# ---------------------------------------------------------------------------- entry points


def _excluded_result(sample: dict[str, Any], task_status: str, reason: str | None) -> SampleResult:
    return SampleResult(
        task_id=sample["task_id"],
        sample_index=sample["sample_index"],
        status=task_status,
        completion=sample["completion"],
        program_hash="",
        extra={
            "task_status": task_status,
            "reason": reason,
            "completion_sha256": sha256(sample["completion"]),
        },
    )


def _progress(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="job", disable=not enabled or total == 0, dynamic_ncols=True)


def _task_statuses(
    engine: _Engine, rows: list[dict[str, Any]], workers: int, progress: bool
) -> dict[str, tuple[str, str | None]]:
    """Task status for each row, goldens computed in parallel (in the golden pool, closed after)."""
    statuses: dict[str, tuple[str, str | None]] = {}
    try:
        with (
            ThreadPoolExecutor(max_workers=workers) as ex,
            _progress(len(rows), "golden outputs", progress) as bar,
        ):
            futures = {ex.submit(engine.task_status, row): row["task_id"] for row in rows}
            for fut in as_completed(futures):
                statuses[futures[fut]] = fut.result()
                bar.update(1)
    finally:
        engine.close_golden_pool()
    return statuses


def select_tasks(by_id: dict[str, dict[str, Any]], task_ids: Sequence[str] | None) -> dict[str, dict[str, Any]]:
    """The task set: every problem, or the named subset (an unknown id is an error naming it)."""
    if task_ids is None:
        return by_id
    unknown = sorted(set(task_ids) - set(by_id))
    if unknown:
        raise EvalInputError(f"--task-ids names tasks that are not in the loaded problems: {', '.join(unknown)}")
    return {t: by_id[t] for t in sorted(set(task_ids))}


def scoreable_tasks(by_id: dict[str, dict[str, Any]], options: EvalOptions) -> list[str]:
    """Tasks of the set that can be scored at all: executable, and not a known-weak harness
    (unless ``include_weak``). Their number is the denominator of pass@k."""
    out = []
    for t, row in by_id.items():
        if static_task_status(row)[0] != TaskStatus.OK:
            continue
        if not options.include_weak and weak_harness_reason(row):
            continue
        out.append(t)
    return sorted(out)


def missing_tasks(by_id: dict[str, dict[str, Any]], used: Iterable[str], options: EvalOptions) -> list[str]:
    """Scoreable tasks of the set that have no sample."""
    have = set(used)
    return [t for t in scoreable_tasks(by_id, options) if t not in have]


def _infra_reason(r: SampleResult) -> str:
    ff = r.first_failure or {}
    return _last_line(ff.get("stderr_tail", "")) or "sandbox error"


@dataclass
class EvalRun:
    """Everything one evaluation produced: the results, each task's status, the environment."""

    results: list[SampleResult]
    task_status: dict[str, tuple[str, str | None]]
    sandbox: str
    environment_id: str
    executed: int = 0  # samples actually run in this call (resumed ones are not)
    #: The task set pass@k is taken over: the config's tasks, or the ``task_ids`` subset named.
    task_set: list[str] = field(default_factory=list)
    #: Scoreable tasks of the task set without any sample (only with ``allow_missing``: counted as 0).
    missing: list[str] = field(default_factory=list)
    #: Samples whose sandbox kept failing after the retries: in neither n nor c.
    infra_errors: list[dict[str, Any]] = field(default_factory=list)


def run_evaluation(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
    overwrite: bool = False,
    extra_fingerprint: dict[str, Any] | None = None,
    task_ids: Sequence[str] | None = None,
    allow_missing: bool = False,
    allow_partial: bool = False,
) -> EvalRun:
    """Evaluate samples; with ``out_dir`` results are written as they finish and a rerun resumes.

    Fixed denominators: pass@k is over the task set (every problem given, or the ``task_ids``
    subset), never over whichever tasks happen to have samples. A scoreable task without a
    sample raises :class:`MissingTasksError` before anything runs, unless ``allow_missing``
    (then it is listed in ``EvalRun.missing`` and counts as 0 correct). A golden that fails
    in this environment raises :class:`GoldenFailuresError` after the golden phase (before
    any candidate runs), unless ``allow_partial``. Samples whose sandbox kept failing are
    listed in ``EvalRun.infra_errors`` and run again on resume.

    See :mod:`biocoder_metric.results` for the files and the resume rules.
    """
    by_id = select_tasks(index_problems(problems), task_ids)
    norm = normalize_samples(samples, by_id)
    used = sorted({s["task_id"] for s in norm})
    missing = missing_tasks(by_id, used, options)
    if missing and not allow_missing:
        raise MissingTasksError(missing, len(scoreable_tasks(by_id, options)))
    rows = [by_id[t] for t in used]
    engine = _Engine(options)
    store = None
    try:
        if out_dir is not None:
            from biocoder_metric.results import ResultsStore

            fingerprint = {
                "options": options.fingerprint(),
                "sandbox": engine.pool.name,
                "environment_id": engine.pool.environment_id,
                "problems_sha256": problems_digest(rows),
                "samples_sha256": samples_digest(norm),
                **(extra_fingerprint or {}),
            }
            store = ResultsStore(out_dir, fingerprint, overwrite=overwrite)
        done: dict[tuple[str, int], SampleResult] = {
            k: r for k, r in (store.done if store else {}).items() if r.status != Status.SANDBOX_ERROR
        }  # infrastructure failures are retried on resume
        todo = [s for s in norm if (s["task_id"], s["sample_index"]) not in done]
        statuses = _task_statuses(
            engine, [by_id[t] for t in sorted({s["task_id"] for s in todo})], dispatch_threads(options, engine.pool), progress
        )
        # Tasks whose samples were all resumed keep the status recorded with them.
        for s in norm:
            key = (s["task_id"], s["sample_index"])
            if key in done and s["task_id"] not in statuses:
                r = done[key]
                statuses[s["task_id"]] = (r.extra.get("task_status", TaskStatus.OK), r.extra.get("reason"))
        failed = sorted((t, reason) for t, (status, reason) in statuses.items() if status == TaskStatus.GOLDEN_FAILS)
        if failed and not allow_partial:
            raise GoldenFailuresError(failed, len(scoreable_tasks(by_id, options)), engine.pool.name)
        results: dict[tuple[str, int], SampleResult] = dict(done)
        runnable = []
        for s in todo:
            status, reason = statuses[s["task_id"]]
            if status == TaskStatus.OK:
                runnable.append(s)
            else:
                r = _excluded_result(s, status, reason)
                results[(s["task_id"], s["sample_index"])] = r
                if store:
                    store.append(r)
        with (
            ThreadPoolExecutor(max_workers=dispatch_threads(options, engine.pool)) as ex,
            _progress(len(runnable), "samples", progress) as bar,
        ):
            futures = {ex.submit(engine.run_sample, by_id[s["task_id"]], s): s for s in runnable}
            for fut in as_completed(futures):
                r = fut.result()
                results[(r.task_id, r.sample_index)] = r
                if store:
                    store.append(r)
                bar.update(1)
        ordered = [results[k] for k in sorted(results)]
        if store:
            store.finalize(ordered)
        return EvalRun(
            results=ordered,
            task_status={t: statuses[t] for t in used},
            sandbox=engine.pool.name,
            environment_id=engine.pool.environment_id,
            executed=len(runnable),
            task_set=sorted(by_id),
            missing=missing,
            infra_errors=[
                {"task_id": r.task_id, "sample_index": r.sample_index, "reason": _infra_reason(r)}
                for r in ordered
                if r.status == Status.SANDBOX_ERROR
            ],
        )
    finally:
        if store:
            store.close()
        engine.close()


def evaluate_samples(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
    **rules: Any,
) -> list[SampleResult]:
    """One result per sample, sorted by (task_id, sample_index). See :func:`run_evaluation`
    (``rules``: its ``task_ids``, ``allow_missing`` and ``allow_partial``)."""
    return run_evaluation(problems, samples, options, out_dir=out_dir, progress=progress, **rules).results


def golden_outputs(
    problems: Iterable[dict[str, Any]], options: EvalOptions, progress: bool = True
) -> dict[str, Golden]:
    """Each harness task's golden outputs (or why there are none), through the engine's golden cache.

    For callers that look at the reference outputs themselves, e.g. the harness audit's
    constant-output check (:mod:`biocoder_metric.validity.audit`).
    """
    rows = [r for r in index_problems(problems).values() if static_task_status(r)[0] == TaskStatus.OK
            and r.get("kind") == "harness"]
    if not rows:
        return {}
    engine = _Engine(options)
    try:
        _task_statuses(engine, rows, dispatch_threads(options, engine.pool), progress)
        return {r["task_id"]: engine.golden(r) for r in rows}
    finally:
        engine.close()


def check_goldens(
    problems: Iterable[dict[str, Any]],
    options: EvalOptions,
    progress: bool = True,
    run_info: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run every task's golden through the sample path; per task ``pass`` or why not.

    Harness tasks: the golden must run cleanly and deterministically (twice), and then,
    fed through post-processing and insertion like any candidate, reproduce its own
    output. Rosalind tasks: the golden, as a candidate, must print the expected output.
    ``run_info``, when given, receives the sandbox name and its environment id.
    """
    rows = sorted(index_problems(problems).values(), key=lambda r: r["task_id"])
    options = replace(options, include_weak=True, plus=False)  # a golden check judges goldens, not harness strength
    engine = _Engine(options)
    if run_info is not None:
        run_info.update(sandbox=engine.pool.name, environment_id=engine.pool.environment_id)
    try:
        statuses = _task_statuses(engine, rows, dispatch_threads(options, engine.pool), progress)
        report: dict[str, dict[str, Any]] = {}
        runnable = []
        for row in rows:
            status, reason = statuses[row["task_id"]]
            entry = {
                "task_id": row["task_id"],
                "config": row.get("config"),
                "language": row["language"],
                "kind": row["kind"],
            }
            if status != TaskStatus.OK:
                report[row["task_id"]] = {**entry, "status": status, "reason": reason}
            else:
                report[row["task_id"]] = entry
                runnable.append(row)
        with (
            ThreadPoolExecutor(max_workers=dispatch_threads(options, engine.pool)) as ex,
            _progress(len(runnable), "goldens as candidates", progress) as bar,
        ):
            futures = {
                ex.submit(
                    engine.run_sample,
                    row,
                    {"task_id": row["task_id"], "completion": row["golden_code"], "sample_index": 0},
                ): row
                for row in runnable
            }
            for fut in as_completed(futures):
                row = futures[fut]
                r = fut.result()
                entry = report[row["task_id"]]
                entry["cases"] = r.cases_total
                if r.status == Status.PASSED:
                    entry.update(status="pass", reason=None)
                else:
                    ff = r.first_failure or {}
                    detail = _last_line(ff.get("stderr_tail", ""))[:300]
                    entry.update(
                        status=TaskStatus.GOLDEN_FAILS,
                        reason=f"golden as a candidate: {r.status} at case {ff.get('case')}{': ' + detail if detail else ''}",
                        first_failure=ff,
                    )
                bar.update(1)
        return [report[row["task_id"]] for row in rows]
    finally:
        engine.close()


__all__ = [
    "GoldenFailuresError",
    "MissingTasksError",
    "make_pool",
    "missing_tasks",
    "scoreable_tasks",
    "select_tasks",
    "EvalOptions",
    "EvalRun",
    "EvalInputError",
    "Golden",
    "SandboxPool",
    "case_error",
    "check_goldens",
    "evaluate_samples",
    "golden_outputs",
    "weak_harness_reason",
    "judge",
    "run_evaluation",
    "static_task_status",
]
