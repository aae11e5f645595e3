"""Run ``evaluate_samples`` on a JSON spec, as its own process (used by the reliability tests).

Usage: ``python tests/reliability_driver.py SPEC.json`` where the spec holds ``problems``
(schema rows), ``samples``, ``options`` (EvalOptions fields) and ``out_dir``. The results
land in ``out_dir`` exactly as the CLI writes them; stdout's last line is a JSON summary.

Why a process of its own: the hostile corpus includes programs that try to kill the
evaluator; if the sandbox let them, this process dies and the test sees a non-zero exit
and missing results, instead of pytest itself being killed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    from biocoder_metric.execution import EvalOptions, evaluate_samples

    options = EvalOptions(**spec["options"])
    # Hostile programs that go after the evaluator need its pid, known only here.
    for sample in spec["samples"]:
        for key in ("completion", "solution"):
            if isinstance(sample.get(key), str):
                sample[key] = sample[key].replace("@@EVALUATOR_PID@@", str(os.getpid()))
    out_dir = spec.get("out_dir")
    results = evaluate_samples(spec["problems"], spec["samples"], options, out_dir=out_dir, progress=False)
    summary = {
        "pid": os.getpid(),
        "statuses": [[r.task_id, r.sample_index, r.status] for r in results],
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
