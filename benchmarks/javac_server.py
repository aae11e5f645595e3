"""Java harness construction with a warm javac against a ``javac`` process per compile.

``python -m benchmarks javac_server --source-dir DIR [--config java_hidden] [--tasks 30] [--out FILE]``

Building a Java harness (:func:`biocoder_metric.synth.pipeline.candidates`: slicing, stubs,
and the repair rounds of :func:`biocoder_metric.synth.java_stubs.complete`, each of which
compiles the harness with the golden) is timed on a seeded sample of upstream Java rows, each
row twice back to back: once with ``BIOCODER_JAVAC_SERVER=0`` (a ``javac`` process per compile,
what the code did before) and once with the warm servers of
:mod:`biocoder_metric.synth.javac_server`, in alternating order so that neither always runs
second. Both runs must build the same candidates (the same reason, the same harness texts):
any row where they differ is printed and makes the exit status 1. The servers' start (a JVM
and the server's own compile) is paid inside the first row that uses one, so it is counted.

Printed: per-row seconds of both, the totals and their ratio, the median per-row ratio, and
the rows that differ. Everything also goes to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def _build(row: dict[str, Any], server: bool) -> tuple[float, Any]:
    from biocoder_dataset import settings
    from biocoder_metric.synth.pipeline import SynthOptions, candidates

    os.environ[settings.ENV_JAVAC_SERVER] = "1" if server else "0"
    start = time.perf_counter()
    cands, reason, origin = candidates(dict(row, context=None), SynthOptions(), [])
    took = time.perf_counter() - start
    return took, (reason, origin, [(label, ctx) for label, _, ctx in cands])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks javac_server", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--source-dir", required=True, help="the upstream files (java_hidden / java_public)")
    p.add_argument("--config", default="java_hidden")
    p.add_argument("--tasks", type=int, default=30, help="rows sampled (seeded)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="JSON output")
    args = p.parse_args(argv)

    from biocoder_dataset.configs import load_problems
    from biocoder_metric.synth import javac_server

    rows = [dict(r) for r in load_problems(args.config, source_dir=args.source_dir)]
    rows = sorted(
        random.Random(args.seed).sample(rows, min(args.tasks, len(rows))), key=lambda r: r["task_id"]
    )
    javac_server.shutdown()
    records = []
    for i, row in enumerate(rows):
        order = (False, True) if i % 2 == 0 else (True, False)
        done = {server: _build(row, server) for server in order}
        (cold, a), (warm, b) = done[False], done[True]
        records.append({"task_id": row["task_id"], "process_s": round(cold, 3), "server_s": round(warm, 3),
                        "same": a == b, "reason": a[0]})  # fmt: skip
        print(f"{row['task_id']}: javac process {cold:6.2f} s, warm server {warm:6.2f} s"
              f"{'' if a == b else '  DIFFERENT CANDIDATES'}", flush=True)  # fmt: skip
    javac_server.shutdown()
    total_cold = sum(r["process_s"] for r in records)
    total_warm = sum(r["server_s"] for r in records)
    ratios = [r["process_s"] / r["server_s"] for r in records if r["server_s"] > 0]
    summary = {
        "rows": len(records),
        "process_total_s": round(total_cold, 2),
        "server_total_s": round(total_warm, 2),
        "speedup_total": round(total_cold / total_warm, 2) if total_warm else None,
        "speedup_median_per_row": round(statistics.median(ratios), 2) if ratios else None,
        "rows_different": [r["task_id"] for r in records if not r["same"]],
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"benchmark": "javac_server", "command": " ".join(sys.argv),
                                              "cpu_count": os.cpu_count(), "loadavg_end": os.getloadavg(),
                                              "summary": summary, "rows": records}, indent=1) + "\n")  # fmt: skip
    return 1 if summary["rows_different"] else 0


if __name__ == "__main__":
    sys.exit(main())
