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
from dataclasses import dataclass, field
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

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.fuzz_cases < 1:
            raise ValueError(f"fuzz_cases must be >= 1, got {self.fuzz_cases}")
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:  # nan compares False with everything
            raise ValueError(f"timeout_s must be a finite number > 0, got {self.timeout_s}")
        if self.memory_mb < 16:
            raise ValueError(f"memory_mb must be >= 16, got {self.memory_mb}")

    def fingerprint(self) -> dict[str, Any]:
        """The fields that can change a verdict (workers and cache location cannot)."""
        return {k: getattr(self, k) for k in ("fuzz_cases", "timeout_s", "memory_mb", "seed")}

    def cache_dir(self) -> Path:
        if self.golden_cache_dir:
            return Path(self.golden_cache_dir)
        base = os.environ.get("BIOCODER_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "biocoder"
        )
        return Path(base) / "golden"


class EvalInputError(ValueError):
    """Samples or problems that cannot be evaluated; the message names the sample or task."""


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
        """Run ``job``; retry once on a sandbox error (fresh sandbox if it raised)."""
        from biocoder_metric.sandbox import SandboxError

        outcomes: list[CaseOutcome] = []
        for attempt in range(2):
            sb = self._acquire()
            try:
                outcomes = list(sb.run(job))
            except SandboxError as exc:
                self._discard(sb)
                outcomes = [CaseOutcome(status=RUN_SANDBOX_ERROR, stderr=f"sandbox error: {exc}")] * len(
                    job.programs
                )
                if attempt == 1:
                    return outcomes
                continue
            self._free.put(sb)
            if len(outcomes) != len(job.programs):
                outcomes = [
                    CaseOutcome(
                        status=RUN_SANDBOX_ERROR,
                        stderr=f"sandbox returned {len(outcomes)} outcomes for {len(job.programs)} cases",
                    )
                ] * len(job.programs)
            if not any(o.status == RUN_SANDBOX_ERROR for o in outcomes):
                return outcomes
        return outcomes

    def close(self) -> None:
        while True:
            try:
                sb = self._free.get_nowait()
            except queue.Empty:
                break
            self._discard(sb)


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
        self.pool = SandboxPool(options, options.workers)
        self._golden: dict[str, Golden] = {}

    def close(self) -> None:
        self.pool.close()

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
            outcomes = self.pool.run(job)
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
        g = self.golden(row)
        return (TaskStatus.OK, None) if g.ok else (TaskStatus.GOLDEN_FAILS, g.reason)

    # -- samples

    def run_sample(self, row: dict[str, Any], sample: dict[str, Any]) -> SampleResult:
        started = time.monotonic()
        raw = sample["completion"]
        language = row["language"]
        code = extract_code(raw, language, row.get("function_name"))
        if row["kind"] == "rosalind":
            outcomes = self.pool.run(self.rosalind_job(row, code))
            status, passed, first = judge(outcomes, [row["expected_output"]], language, _stripped_equal)
        else:
            g = self.golden(row)
            job = self.harness_job(row, code, prompt=sample.get("prompt"))
            outcomes = self.pool.run(job)
            status, passed, first = judge(outcomes, g.outputs, language)
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
            extra={"task_status": TaskStatus.OK, "completion_sha256": sha256(raw)},
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
    """Task status for each row, goldens computed in parallel."""
    statuses: dict[str, tuple[str, str | None]] = {}
    with (
        ThreadPoolExecutor(max_workers=workers) as ex,
        _progress(len(rows), "golden outputs", progress) as bar,
    ):
        futures = {ex.submit(engine.task_status, row): row["task_id"] for row in rows}
        for fut in as_completed(futures):
            statuses[futures[fut]] = fut.result()
            bar.update(1)
    return statuses


@dataclass
class EvalRun:
    """Everything one evaluation produced: the results, each task's status, the environment."""

    results: list[SampleResult]
    task_status: dict[str, tuple[str, str | None]]
    sandbox: str
    environment_id: str
    executed: int = 0  # samples actually run in this call (resumed ones are not)


def run_evaluation(
    problems: Iterable[dict[str, Any]],
    samples: Iterable[dict[str, Any]],
    options: EvalOptions,
    out_dir: str | os.PathLike | None = None,
    progress: bool = True,
    overwrite: bool = False,
    extra_fingerprint: dict[str, Any] | None = None,
) -> EvalRun:
    """Evaluate samples; with ``out_dir`` results are written as they finish and a rerun resumes.

    See :mod:`biocoder_metric.results` for the files and the resume rules.
    """
    by_id = index_problems(problems)
    norm = normalize_samples(samples, by_id)
    used = sorted({s["task_id"] for s in norm})
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
        done: dict[tuple[str, int], SampleResult] = dict(store.done) if store else {}
        todo = [s for s in norm if (s["task_id"], s["sample_index"]) not in done]
        statuses = _task_statuses(
            engine, [by_id[t] for t in sorted({s["task_id"] for s in todo})], options.workers, progress
        )
        # Tasks whose samples were all resumed keep the status recorded with them.
        for s in norm:
            key = (s["task_id"], s["sample_index"])
            if key in done and s["task_id"] not in statuses:
                r = done[key]
                statuses[s["task_id"]] = (r.extra.get("task_status", TaskStatus.OK), r.extra.get("reason"))
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
            ThreadPoolExecutor(max_workers=options.workers) as ex,
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
) -> list[SampleResult]:
    """One result per sample, sorted by (task_id, sample_index). See :func:`run_evaluation`."""
    return run_evaluation(problems, samples, options, out_dir=out_dir, progress=progress).results


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
    engine = _Engine(options)
    if run_info is not None:
        run_info.update(sandbox=engine.pool.name, environment_id=engine.pool.environment_id)
    try:
        statuses = _task_statuses(engine, rows, options.workers, progress)
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
            ThreadPoolExecutor(max_workers=options.workers) as ex,
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
    "EvalOptions",
    "EvalRun",
    "EvalInputError",
    "Golden",
    "SandboxPool",
    "case_error",
    "check_goldens",
    "evaluate_samples",
    "judge",
    "run_evaluation",
    "static_task_status",
]
