"""Shared value types of the execution engine: statuses, jobs, outcomes, results.

Every stage after generation speaks in these types. The status vocabularies (``Status``,
``TaskStatus``, ``RunStatus``) and the job defaults are defined once, in the worker protocol
(``sandbox/runtime/protocol.py``), because the in-sandbox worker speaks them too; they are
re-exported here. Nothing here imports ``datasets``, ``evaluate`` or
``lm_eval``: the engine must stay usable without them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from biocoder_metric.sandbox.runtime.protocol import (
    DEFAULT_CLASS_NAME,
    DEFAULT_MEMORY_MB,
    DEFAULT_OUTPUT_LIMIT_BYTES,
    DEFAULT_TIMEOUT_S,
    RunStatus,
    Status,
    TaskStatus,
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
