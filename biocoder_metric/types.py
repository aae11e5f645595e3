"""Shared value types of the execution engine: statuses, jobs, outcomes, results.

Every stage after generation speaks in these types, so the status vocabulary is
defined exactly once. Nothing here imports ``datasets``, ``evaluate`` or
``lm_eval``: the engine must stay usable without them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Version of the per-sample results JSONL and summary JSON schemas (see docs/formats.md).
RESULTS_SCHEMA_VERSION = "biocoder-results/1"
SAMPLES_SCHEMA_VERSION = "biocoder-samples/1"


class Status:
    """The one status vocabulary for samples (see the issue tracker and docs/formats.md)."""

    PASSED = "passed"  # identical output to the golden program on every fuzz case (Rosalind: expected output)
    FAILED = "failed"  # ran, but printed something else
    TIMEOUT = "timeout"  # a case ran past its time limit
    COMPILE_ERROR = "compile_error"  # Java did not compile / Python did not parse
    RUNTIME_ERROR = "runtime_error"  # non-zero exit, uncaught exception, output limit exceeded
    MEMORY_EXCEEDED = "memory_exceeded"  # MemoryError, rlimit or cgroup OOM kill
    SANDBOX_ERROR = "sandbox_error"  # the sandbox itself failed; never the candidate's fault

    ALL = (PASSED, FAILED, TIMEOUT, COMPILE_ERROR, RUNTIME_ERROR, MEMORY_EXCEEDED, SANDBOX_ERROR)


class TaskStatus:
    """Why a task is (not) part of pass@k. Such tasks are counted and reported, never hidden."""

    OK = "ok"  # golden passes: the task is scored
    NO_HARNESS = "no_harness"  # upstream has no executable harness for it
    GOLDEN_FAILS = "golden_fails"  # its own golden solution errors, times out or is not deterministic
    WEAK_HARNESS = "weak_harness"  # the harness audit found that a null candidate passes (see docs/validity.md)


# Outcome statuses of one program run (one fuzz case) as reported by the in-sandbox worker.
RUN_OK = "ok"  # exited (any return code) within limits; look at returncode/stdout
RUN_TIMEOUT = "timeout"
RUN_MEMORY = "memory_exceeded"
RUN_OUTPUT_LIMIT = "output_limit"
RUN_COMPILE_ERROR = "compile_error"
RUN_SANDBOX_ERROR = "sandbox_error"


@dataclass(frozen=True)
class Job:
    """One candidate program, expanded into one program text per fuzz case.

    ``programs[i]`` is the complete source for case ``i`` (solution inserted,
    placeholders filled). For Java every program declares ``class_name``; the
    worker compiles them in one compiler run and runs each case from the
    compiled classes. ``stdin`` is fed to every case (Rosalind uses it).
    """

    language: str  # "python" | "java"
    programs: tuple[str, ...]
    timeout_s: float = 10.0
    memory_mb: int = 2048
    output_limit_bytes: int = 1 << 20
    class_name: str = "Main"
    stdin: str = ""


@dataclass(frozen=True)
class CaseOutcome:
    """What running one program (one fuzz case) produced inside the sandbox."""

    status: str  # one of the RUN_* constants
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""  # tail only
    duration_s: float = 0.0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseOutcome:
        return cls(
            status=str(d.get("status", RUN_SANDBOX_ERROR)),
            returncode=d.get("returncode"),
            stdout=str(d.get("stdout", "")),
            stderr=str(d.get("stderr", "")),
            duration_s=float(d.get("duration_s", 0.0)),
        )


@dataclass
class SampleResult:
    """The verdict for one sample (one candidate for one task): one line of results.jsonl."""

    task_id: str
    sample_index: int
    status: str
    completion: str  # raw text as given (kept for audit)
    program_hash: str  # sha256 of the post-processed solution inserted into the harness
    cases_total: int = 0
    cases_passed: int = 0
    first_failure: dict[str, Any] | None = None  # case index, status, expected/actual tails
    duration_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["schema"] = RESULTS_SCHEMA_VERSION
        return d
