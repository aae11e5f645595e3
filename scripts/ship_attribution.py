"""Which Java harnesses a shipping run validated that the code before it could not have built.

Why: a shipping run re-tries rows whose last failure named what a round addresses, so its yield
alone does not say how much the round added: the rows' recorded failures may come from older code.
For Java the answer needs no sandbox: a row whose harness does not compile with the golden gets no
candidate at all. This runs the candidate step (``javac`` on the host, nothing executes) of the
code in ``--before`` (a checkout, e.g. ``git worktree add /tmp/before HEAD``) on every row the run
validated, in a subprocess with that checkout first on ``sys.path``, and writes per row: the
run's status, and whether the earlier code produced a compiling candidate (and its reason when
not). Rows the earlier code could not compile are gains of the round; the others might have
validated before it too.

    python scripts/ship_attribution.py --config java_hidden --report runs/ship12/java_hidden.report.jsonl \\
        --before /tmp/before --out docs/bench-results/ship_round12_java.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: Run inside the earlier checkout: the candidate step for the given rows, one JSON line each.
_PROBE = """
import json, sys
from biocoder_dataset.configs import load_problems
from biocoder_metric.synth import pipeline
config, source_dir, ids = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
rows = load_problems(config, source_dir)
index = pipeline.sibling_index(rows)
for row in rows:
    if row["task_id"] not in ids:
        continue
    row = dict(row, context=None)
    key = (row.get("repository") or "", row.get("file_path") or "")
    cands, reason, _ = pipeline.candidates(row, pipeline.SynthOptions(), index.get(key))
    print(json.dumps({"task_id": row["task_id"], "candidates": len(cands), "reason": reason}), flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--report", required=True, help="the shipping run's <out>.report.jsonl")
    ap.add_argument("--before", required=True, help="a checkout of the code before the round")
    ap.add_argument("--source-dir", default=str(REPO.parent / "shared" / "biocoder-upstream"))
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    recs = [json.loads(x) for x in Path(args.report).read_text(encoding="utf-8").splitlines() if x.strip()]
    validated = [r["task_id"] for r in recs if r.get("status") == "validated"]
    before: dict[str, dict] = {}
    if validated:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, args.config, args.source_dir, ",".join(validated)],
            cwd=args.before,
            env={**os.environ, "PYTHONPATH": str(Path(args.before).resolve())},
            capture_output=True,
            text=True,
            check=True,
        )
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                before[r["task_id"]] = r
    rows = []
    for r in recs:
        b = before.get(r["task_id"])
        rows.append(
            {
                "task_id": r["task_id"],
                "status": r.get("status"),
                "before_compiles": None if b is None else b["candidates"] > 0,
                "before_reason": None if b is None else b["reason"],
            }
        )
    gained = [r for r in rows if r["status"] == "validated" and r["before_compiles"] is False]
    summary = {
        "rows": len(rows),
        "validated": len(validated),
        "validated_not_compiling_before": len(gained),
        "validated_compiling_before": len(validated) - len(gained),
    }
    out = {
        "script": "scripts/ship_attribution.py",
        "config": args.config,
        "report": args.report,
        "before": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=args.before, capture_output=True, text=True
        ).stdout.strip(),
        "summary": summary,
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
