"""The error types every layer raises or catches: the base of the package (imports nothing of it).

Why a module of its own: these errors cross layers. The samples reader raises ``SamplesError``,
the engine raises ``MissingTasksError`` and ``GoldenFailuresError`` and catches ``SandboxError``,
the run folder's writers raise ``ResultsWriteError``, and the adapters above (``evaluation.py``,
the CLI, the metric, lm-eval) map all of them to exit statuses. Defined down here, no stage
has to import a stage above it to name one. (Errors used inside one stage stay in that stage.)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "EvalInputError",
    "GoldenFailuresError",
    "MissingTasksError",
    "ResultsMismatchError",
    "ResultsWriteError",
    "SamplesError",
    "SandboxError",
]


class EvalInputError(ValueError):
    """Samples or problems that cannot be evaluated; the message names the sample or task."""


class SamplesError(EvalInputError):
    """A samples file or record that cannot be used; the message names the file and line."""


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


class SandboxError(RuntimeError):
    """The sandbox could not be started (or restarted) at all; not the candidate's fault."""


class ResultsMismatchError(ValueError):
    """The output directory holds results of a different run."""


class ResultsWriteError(ValueError):
    """Results could not be written (disk full, read-only, ...); what was written before is intact."""
