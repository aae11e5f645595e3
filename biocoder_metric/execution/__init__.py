"""The execution engine: samples and goldens through sandbox pools, judged on the host.

Modules, in the order data flows through them: ``options`` (what decides a run), ``tasks``
(the task set and why a task is not scored), ``jobs`` (row + solution -> sandbox job),
``pool`` (where jobs run; golden and candidate pools), ``goldens`` (reference outputs and
their cache), ``judging`` (pure verdicts), ``parallel`` (the shared parallel map) and
``engine`` (orchestration and the entry points re-exported here).

It knows nothing of ``evaluate``, ``lm_eval`` or ``datasets``: those are adapters over it.
"""

from biocoder_metric.execution.engine import (
    EvalRun,
    check_goldens,
    evaluate_samples,
    golden_outputs,
    run_evaluation,
)
from biocoder_metric.execution.goldens import Golden
from biocoder_metric.execution.options import (
    EvalInputError,
    EvalOptions,
    GoldenFailuresError,
    MissingTasksError,
)

__all__ = [
    "EvalInputError",
    "EvalOptions",
    "EvalRun",
    "Golden",
    "GoldenFailuresError",
    "MissingTasksError",
    "check_goldens",
    "evaluate_samples",
    "golden_outputs",
    "run_evaluation",
]
