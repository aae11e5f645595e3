"""Re-validate every shipped synthesised harness under the current gates; keep only what passes.

``python -m benchmarks revalidate_shipped --source-dir DIR [--sandbox docker] [--workers 2]
[--out docs/bench-results/revalidation.json] [--write]``

Each record of ``biocoder_dataset/synth/harnesses-v1.jsonl`` is applied to its row (the
shipped configs, loaded from the upstream files in DIR) and validated again by
:func:`biocoder_metric.synth.validate.validate`, strictly: null candidates, the
return-observed check, result variation, at least 5 non-equivalent mutants with 80% killed,
and both mutant families' scores recorded. ``--write`` rewrites the shipped file with the
records that pass, each carrying the new measurements; the raw report lists every record
with its verdict, so the README's counts can be printed from it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

#: The raw output ``scripts/figures.py`` prints the ``revalidate_shipped`` block from.
RESULTS_FILE = "revalidation.json"


def render_markdown(data: dict) -> str:
    """Per config: shipped before, passing the current gates, and why the others fail."""
    from collections import Counter

    rows = [
        "| config | shipped before | pass the current gates | median project mutation score | median held-out mutation score |",
        "|---|---:|---:|---:|---:|",
    ]

    def median(xs: list[float]) -> str:
        xs = sorted(x for x in xs if x is not None)
        return f"{xs[len(xs) // 2]:.2f}" if xs else "n/a"

    for config, d in sorted(data["per_config"].items()):
        recs = [r for r in data["records"] if r["config"] == config and r.get("passed")]
        rows.append(
            f"| `{config}` | {d['shipped_before']} | {d['pass_now']} | "
            f"{median([r.get('mutation_score') for r in recs])} | {median([r.get('heldout_mutation_score') for r in recs])} |"
        )
    causes = Counter()
    for r in data["records"]:
        if not r.get("passed"):
            reason = r.get("reason") or "?"
            causes[reason.split(":")[0].split(" (")[0][:60]] += 1
    lines = [f"- {n} x {cause}" for cause, n in causes.most_common()]
    return "\n".join(
        rows
        + ["", "Why the others fail:"]
        + lines
        + [
            "",
            f"{data['sandbox']}, {data['fuzz_cases']} fuzz cases; raw output `docs/bench-results/revalidation.json` "
            "(`python -m benchmarks revalidate_shipped`).",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    from biocoder_dataset.configs import load_problems
    from biocoder_dataset.synth_harnesses import SHIPPED_FILE, SOURCE_SYNTHESIZED
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.executors.local import SandboxPool
    from biocoder_metric.execution.parallel import parallel_map
    from biocoder_metric.synth.validate import validate

    parser = argparse.ArgumentParser(prog="python -m benchmarks revalidate_shipped", description=__doc__)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--sandbox", default="docker")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fuzz-cases", type=int, default=10)
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--write", action="store_true", help="rewrite the shipped file with the records that pass"
    )
    args = parser.parse_args(argv)

    records = [
        json.loads(line) for line in SHIPPED_FILE.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    rows = {}
    for config in sorted({r["config"] for r in records}):
        for row in load_problems(config, source_dir=args.source_dir):
            if row.get("harness_source") == SOURCE_SYNTHESIZED:
                rows[(config, row["task_id"])] = row
    pool = SandboxPool(EvalOptions(sandbox=args.sandbox, workers=args.workers), args.workers)
    started = time.monotonic()

    def check(rec: dict) -> dict:
        row = rows.get((rec["config"], rec["task_id"]))
        if row is None:
            return {"passed": False, "reason": "no row of the shipped configs carries this harness"}
        v = validate(pool, row, fuzz_cases=args.fuzz_cases)
        return v.to_json()

    try:
        verdicts = {
            (rec["config"], rec["task_id"]): v
            for rec, v in parallel_map(check, records, args.workers, "revalidate", True)
        }
    finally:
        pool.close()
    report = {
        "benchmark": "revalidate_shipped",
        "sandbox": args.sandbox,
        "fuzz_cases": args.fuzz_cases,
        "seconds": round(time.monotonic() - started, 1),
        "records": [],
    }
    kept = []
    for rec in records:
        v = verdicts[(rec["config"], rec["task_id"])]
        v.pop("mutants", None)
        report["records"].append({"config": rec["config"], "task_id": rec["task_id"], **v})
        if v.get("passed"):
            kept.append(
                {
                    **rec,
                    "mutation_score": v["mutation_score"],
                    "mutants_killed": v["mutants_killed"],
                    "mutants_judged": v["mutants_judged"],
                    "mutants_likely_equivalent": v["mutants_likely_equivalent"],
                    "heldout_mutation_score": v["heldout_mutation_score"],
                    "heldout_killed": v["heldout_killed"],
                    "heldout_judged": v["heldout_judged"],
                    "null_candidates_passed": v["null_candidates_passed"],
                    "return_unobserved": v["return_unobserved"],
                    "validation_gates": "v2",
                }
            )
    by_config: dict[str, list[int]] = {}
    for r in report["records"]:
        c = by_config.setdefault(r["config"], [0, 0])
        c[0] += 1
        c[1] += bool(r.get("passed"))
    report["per_config"] = {
        c: {"shipped_before": n, "pass_now": k} for c, (n, k) in sorted(by_config.items())
    }
    for c, d in report["per_config"].items():
        print(f"{c}: {d['pass_now']} of {d['shipped_before']} shipped harnesses pass the current gates")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    if args.write:
        SHIPPED_FILE.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in kept), encoding="utf-8")
        print(f"wrote {len(kept)} records to {SHIPPED_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
