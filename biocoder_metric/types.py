"""Shared value types of the execution engine: statuses, jobs, outcomes, results.

Every stage after generation speaks in these types. ``Status`` (a sample's verdict) and
``TaskStatus`` (why a task is or is not scored) are the host's vocabulary and are defined here.
``RunStatus`` (how one case ended) and the job defaults are the words the in-sandbox worker
speaks too, so they are defined once, in the worker protocol (``sandbox/runtime/protocol.py``),
and re-exported here. Nothing here imports ``datasets``, ``evaluate`` or ``lm_eval``: the engine
must stay usable without them.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from biocoder_metric.sandbox.runtime.protocol import (
    DEFAULT_CLASS_NAME,
    DEFAULT_MEMORY_MB,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DEFAULT_TIMEOUT_S,
    RunStatus,
)

#: Version of the per-sample results JSONL and summary JSON schemas (see docs/formats.md).
RESULTS_SCHEMA_VERSION = "biocoder-results/1"
SAMPLES_SCHEMA_VERSION = "biocoder-samples/1"

__all__ = [
    "RESULTS_SCHEMA_VERSION",
    "SAMPLES_SCHEMA_VERSION",
    "CaseOutcome",
    "Job",
    "RunStatus",
    "SampleResult",
    "Status",
    "TaskStatus",
]


class _StrEnum(str, enum.Enum):
    """A str whose members print as their plain value (``passed``, not ``Status.PASSED``).

    Members are str: they compare and hash equal to their value, and ``json.dumps`` writes the
    value, so every file keeps the same strings. (``enum.StrEnum`` needs Python 3.11.)
    """

    def __str__(self):
        return self.value

    def __format__(self, spec):
        return self.value.__format__(spec)


class Status(_StrEnum):
    """The verdict of one sample (see docs/formats.md)."""

    PASSED = "passed"  # identical output to the golden program on every fuzz case (Rosalind: expected output)
    FAILED = "failed"  # ran, but printed something else
    TIMEOUT = "timeout"  # a case ran past its time limit
    COMPILE_ERROR = "compile_error"  # Java did not compile / Python did not parse
    RUNTIME_ERROR = "runtime_error"  # non-zero exit, uncaught exception, output limit exceeded
    MEMORY_EXCEEDED = "memory_exceeded"  # MemoryError, rlimit or cgroup OOM kill
    #: the sandbox died or misbehaved while this sample ran, and a canary job then ran cleanly in a
    #: fresh sandbox of the same environment: the failure is the candidate's (counted in n, never in c)
    SANDBOX_KILLED = "sandbox_killed"
    #: the sandbox failed and the canary failed too: infrastructure, left out of n and c (run is partial)
    SANDBOX_ERROR = "sandbox_error"


class TaskStatus(_StrEnum):
    """Why a task is (not) part of pass@k. Such tasks are counted and reported, never hidden."""

    OK = "ok"  # golden passes: the task is scored
    NO_HARNESS = "no_harness"  # upstream has no executable harness for it
    GOLDEN_FAILS = "golden_fails"  # its own golden solution errors, times out or is not deterministic
    #: the harness audit found that a null candidate passes (see docs/validity.md)
    WEAK_HARNESS = "weak_harness"
    #: the golden returns values, but replacing its return value is never detected by the test
    RETURN_UNOBSERVED = "return_unobserved"


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
    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES
    class_name: str = DEFAULT_CLASS_NAME
    stdin: str = ""


@dataclass(frozen=True)
class CaseOutcome:
    """What running one program (one fuzz case) produced inside the sandbox."""

    status: str  # a RunStatus value
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""  # tail only
    duration_s: float = 0.0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseOutcome:
        return cls(
            status=str(d.get("status", RunStatus.SANDBOX_ERROR)),
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
