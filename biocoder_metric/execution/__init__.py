"""The execution engine: samples and goldens through sandbox pools, judged on the host.

Modules, in the order data flows through them: ``options`` (what decides a run), ``tasks``
(the task set and why a task is not scored), ``jobs`` (row + solution -> sandbox job),
``pool`` (where jobs run; golden and candidate pools), ``goldens`` (reference outputs and
their cache), ``judging`` (pure verdicts), ``parallel`` (the shared parallel map) and
``engine`` (orchestration and the entry points re-exported here).

It knows nothing of ``evaluate``, ``lm_eval`` or ``datasets``: those are adapters over it.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module that defines it (relative: a module of this package). Imported on
#: first use (PEP 562), so that importing one module of the engine (``execution.harness`` for the
#: synthesis, ``execution.shard`` for the merge) does not start the whole engine. The errors
#: are defined below every stage, in ``biocoder_metric.errors``, and re-exported here (public API).
_EXPORTS = {
    "EvalRun": "engine",
    "check_goldens": "engine",
    "evaluate_samples": "engine",
    "golden_outputs": "engine",
    "run_evaluation": "engine",
    "Golden": "goldens",
    "EvalInputError": "biocoder_metric.errors",
    "EvalOptions": "options",
    "GoldenFailuresError": "biocoder_metric.errors",
    "MissingTasksError": "biocoder_metric.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = _EXPORTS[name]
        return getattr(importlib.import_module(module if "." in module else f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
