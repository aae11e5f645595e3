"""Pure verdicts: from case outcomes and expected outputs to a sample status.

No I/O and no sandbox here, so the rules can be read (and tested) on their own and the
naive benchmark runner judges exactly as the engine does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from biocoder_dataset import settings
from biocoder_metric.languages import runner
from biocoder_metric.types import CaseOutcome, RunStatus, Status


def last_line(text: str) -> str:
    """The last non-blank line, stripped (where Python and Java put the exception)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def case_error(outcome: CaseOutcome, language: str) -> Status | None:
    """The sample status one case's outcome implies, or ``None`` when it ran cleanly (exit 0)."""
    if outcome.status == RunStatus.OK:
        if outcome.returncode == 0:
            return None
        last = last_line(outcome.stderr)
        lang = runner(language)
        if lang.is_compile_error(last):
            return Status.COMPILE_ERROR
        if re.match(
            r"(MemoryError|java\.lang\.OutOfMemoryError|Exception in thread \S+ java\.lang\.OutOfMemoryError)\b",
            last,
        ) or lang.is_out_of_memory(outcome.stderr):
            return Status.MEMORY_EXCEEDED
        return Status.RUNTIME_ERROR
    return {
        RunStatus.TIMEOUT: Status.TIMEOUT,
        RunStatus.MEMORY_EXCEEDED: Status.MEMORY_EXCEEDED,
        RunStatus.OUTPUT_LIMIT: Status.RUNTIME_ERROR,
        RunStatus.COMPILE_ERROR: Status.COMPILE_ERROR,
        RunStatus.SANDBOX_KILLED: Status.SANDBOX_KILLED,
    }.get(outcome.status, Status.SANDBOX_ERROR)


def tail(text: str) -> str:
    """The end of an output, as much as results keep (``settings.TAIL_CHARS``)."""
    return text[-settings.TAIL_CHARS :]


#: The worker's per-job scratch paths (``.../job-<pid>-<n>/case-<i>/src/``) differ between runs
#: and worker counts; they are cut from stderr so results files stay byte-identical.
_SCRATCH_PATH_RE = re.compile(r"(?:/[^\s/:'\"]+)*/job-\d+-\d+/case-\d+/(?:src/|work/)?")


def clean_stderr(text: str) -> str:
    """stderr without the run-specific scratch paths."""
    return _SCRATCH_PATH_RE.sub("", text)


def stripped_equal(actual: str, expected: str) -> bool:
    """Upstream Rosalind's exact rule: equal after stripping surrounding whitespace."""
    return actual.strip() == expected.strip()


def judge(
    outcomes: Sequence[CaseOutcome],
    expected: Sequence[str],
    language: str,
    compare: Callable[[str, str], bool] = str.__eq__,
) -> tuple[Status, int, dict[str, Any] | None]:
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
                "expected_tail": tail(want),
                "actual_tail": tail(outcome.stdout),
                "stderr_tail": tail(clean_stderr(outcome.stderr)),
            }
    return status, passed, first
