"""From a task row and a solution to a sandbox :class:`~biocoder_metric.types.Job`.

Goldens and candidates go through the same builders, so both run under the same limits.
"""

from __future__ import annotations

from collections.abc import Sequence

from biocoder_dataset.schema import TaskRow
from biocoder_metric.execution import harness
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.languages import runner
from biocoder_metric.types import Job


def _class_name(row: TaskRow) -> str:
    return runner(row["language"]).class_name(row["context"])


def programs_job(options: EvalOptions, row: TaskRow, programs: Sequence[str]) -> Job:
    """A job running ``programs`` (one per case) with the task's language and the options' limits."""
    return Job(
        language=row["language"],
        programs=tuple(programs),
        timeout_s=options.timeout_s,
        memory_mb=options.memory_mb,
        class_name=_class_name(row),
    )


def harness_job(
    options: EvalOptions, row: TaskRow, solution: str, prompt: str | None = None, repeat: int = 1
) -> Job:
    """The harness programs of ``solution`` for every fuzz case (``repeat`` times over, for goldens)."""
    programs = harness.build_harness_programs(
        row, solution, fuzz_cases=options.fuzz_cases, seed=options.seed, prompt=prompt
    )
    return programs_job(options, row, programs * repeat)


def rosalind_job(options: EvalOptions, row: TaskRow, solution: str) -> Job:
    """``solve`` driven on the task's test input (stdin)."""
    return Job(
        language="python",
        programs=(harness.build_rosalind_program(solution, row.get("function_name") or "solve"),),
        timeout_s=options.timeout_s,
        memory_mb=options.memory_mb,
        stdin=row["test_input"],
    )
