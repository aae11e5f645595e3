"""Synthesised harnesses versus upstream's hand-written ones, on the 79 shared Python tasks.

For each task the harness is synthesised from the golden alone (upstream's ``context`` is
removed first; the cnvkit checkout is given for slicing when present), validated in the
sandbox, and timed (synthesis + validation, per task). Then the *same* mutants of the
golden (:mod:`biocoder_metric.validity.mutation`, seeded by task id) are judged under upstream's
harness, so both mutation scores are over one candidate set, and the per-mutant
verdicts (killed or not) are compared: ``agreement`` is the share of candidates (the
golden plus its mutants) on which both harnesses give the same verdict.

Prints one line per task and the medians; writes the raw records to
``docs/bench-results/synth_compare.json`` (or ``--out``). Resumable: the synthesis
report (``--work DIR``) is reused when rerun.

    python -m benchmarks synth_compare --sandbox docker --workers 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "biocoder-upstream"
REPOS = ROOT.parent / "shared" / "repos"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source-dir", default=str(UPSTREAM))
    ap.add_argument("--sandbox", default="docker")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fuzz-cases", type=int, default=5)
    ap.add_argument("--mutants", type=int, default=8)
    ap.add_argument("--max-plans", type=int, default=3)
    ap.add_argument("--good-score", type=float, default=0.5)
    ap.add_argument("--limit", type=int, default=None, help="only the first N tasks (smoke runs)")
    ap.add_argument("--work", default=str(ROOT / "runs" / "synth_compare"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "bench-results" / "synth_compare.json"))
    args = ap.parse_args(argv)

    from biocoder_dataset.configs import load_problems
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.execution.executors.local import SandboxPool
    from biocoder_metric.synth.pipeline import SynthOptions, synthesize
    from biocoder_metric.synth.validate import task_mutants, validate

    if not Path(args.source_dir).is_dir():
        print(f"upstream data not found at {args.source_dir}", file=sys.stderr)
        return 2
    everything = load_problems("python_public", source_dir=args.source_dir)
    rows = [r for r in everything if r["kind"] == "harness"]
    rows = sorted(rows, key=lambda r: r["task_id"])[: args.limit]
    golden_alone = [dict(r, context=None, kind="golden_only", executable=False) for r in rows]
    repos = {p.name: str(p) for p in REPOS.iterdir() if p.is_dir()} if REPOS.is_dir() else {}
    opts = SynthOptions(
        sandbox=args.sandbox,
        workers=args.workers,
        fuzz_cases=args.fuzz_cases,
        mutant_limit=args.mutants,
        max_plans=args.max_plans,
        good_score=args.good_score,
        repos=repos,
    )
    work = Path(args.work)
    started = time.monotonic()
    # Other tasks' goldens (same repository) may be sliced in as helpers: the benchmark's own data,
    # never upstream's hand-written context (removed above) nor the task's own golden.
    helpers = [dict(r, context=None) for r in everything]
    records = synthesize(golden_alone, opts, work / "synth.report.jsonl", helper_rows=helpers)
    synth_wall = time.monotonic() - started

    # Upstream's harness on the same mutants (cached per task in the work folder: resumable).
    up_path = work / "upstream.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if up_path.is_file():
        for line in up_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                done[rec["task_id"]] = rec
    todo = [r for r in rows if r["task_id"] not in done]
    if todo:
        pool = SandboxPool(EvalOptions(sandbox=args.sandbox, workers=args.workers), args.workers)

        def upstream(row: dict[str, Any]) -> dict[str, Any]:
            v = validate(
                pool, row, fuzz_cases=args.fuzz_cases, mutants=task_mutants(row, args.mutants), strict=False
            )
            return {"task_id": row["task_id"], "validation": v.to_json()}

        try:
            with ThreadPoolExecutor(args.workers) as ex, up_path.open("a", encoding="utf-8") as fh:
                for rec in ex.map(upstream, todo):
                    fh.write(json.dumps(rec, sort_keys=True) + "\n")
                    fh.flush()
                    done[rec["task_id"]] = rec
        finally:
            pool.close()

    table = []
    for row, rec in zip(rows, records, strict=True):
        up = done[row["task_id"]]["validation"]
        sv = rec.get("validation") or {}
        agree = None
        if rec["status"] == "validated" and up.get("mutants"):
            pairs = list(
                zip(
                    [m["killed"] for m in sv.get("mutants", [])],
                    [m["killed"] for m in up["mutants"]],
                    strict=False,
                )
            )
            same = sum(a == b for a, b in pairs) + 1  # + the golden: passes under both (validated)
            agree = round(same / (len(pairs) + 1), 4)
        table.append(
            {
                "task_id": row["task_id"],
                "function_name": row["function_name"],
                "synth_validated": rec["status"] == "validated",
                "synth_reason": rec.get("reason"),
                "synth_mutation_score": sv.get("mutation_score"),
                "upstream_passes_gates": up.get("passed"),
                "upstream_reason": up.get("reason"),
                "upstream_mutation_score": up.get("mutation_score"),
                "mutants": up.get("mutants_total"),
                "verdict_agreement": agree,
                "synth_seconds": rec["seconds"],
                "slice": rec.get("slice"),
            }
        )
    print(f"{'task':18} {'function':28} {'synth':>6} {'score_s':>8} {'score_up':>8} {'agree':>6} {'sec':>6}")
    for t in table:
        print(
            f"{t['task_id']:18} {t['function_name'][:28]:28} {('yes' if t['synth_validated'] else 'no'):>6} "
            f"{_f(t['synth_mutation_score']):>8} {_f(t['upstream_mutation_score']):>8} {_f(t['verdict_agreement']):>6} "
            f"{t['synth_seconds']:>6.1f}"
        )
    both = [
        t
        for t in table
        if t["synth_validated"]
        and t["upstream_mutation_score"] is not None
        and t["synth_mutation_score"] is not None
    ]
    summary = {
        "tasks": len(table),
        "synth_validated": sum(t["synth_validated"] for t in table),
        "yield": round(sum(t["synth_validated"] for t in table) / max(len(table), 1), 4),
        "both_scored": len(both),
        "median_mutation_score_synth": _med([t["synth_mutation_score"] for t in both]),
        "median_mutation_score_upstream": _med([t["upstream_mutation_score"] for t in both]),
        "median_verdict_agreement": _med(
            [t["verdict_agreement"] for t in table if t["verdict_agreement"] is not None]
        ),
        "median_seconds_synth_and_validate_per_task": _med([t["synth_seconds"] for t in table]),
        "synthesis_wall_s": round(synth_wall, 1),
        "settings": {
            "sandbox": args.sandbox,
            "workers": args.workers,
            "fuzz_cases": args.fuzz_cases,
            "mutants": args.mutants,
            "max_plans": args.max_plans,
            "good_score": args.good_score,
        },
    }
    print("\n" + json.dumps(summary, indent=2))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"summary": summary, "tasks": table}, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return 0


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _med(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 4) if xs else None


#: Raw output (docs/bench-results/) that ``scripts/figures.py`` renders with :func:`render_markdown`.
RESULTS_FILE = "synth_compare.json"


def _shipped(config: str) -> int:
    from pathlib import Path as _Path

    path = _Path(__file__).resolve().parent.parent / "biocoder_dataset" / "synth" / "harnesses-v1.jsonl"
    return sum(1 for ln in path.read_text(encoding="utf-8").splitlines() if f'"config": "{config}"' in ln)


def render_markdown(data: dict) -> str:
    """Yield, strength and time of synthesised harnesses, with java_public's run beside them."""
    import json as _json
    from pathlib import Path as _Path

    s = data["summary"]
    st = s["settings"]
    java_path = _Path(__file__).resolve().parent.parent / "docs" / "bench-results" / "synth_java_public.json"
    java = _json.loads(java_path.read_text(encoding="utf-8"))["summary"]["by_language"]["java"]
    rows = [
        "| set | validated | median mutation score | median s/task (synth + validate) | raw output |",
        "|---|---|---|---|---|",
        f"| `java_public` | {java['validated']} / {java['tasks']} ({100 * java['yield']:.0f}%) | "
        f"{java['median_mutation_score']:.2f} | {java.get('median_seconds_per_validated_task', java.get('median_seconds_per_task')):.1f} | "
        "`docs/bench-results/synth_java_public.json` |",
        f"| {s['tasks']} shared Python tasks, golden alone (fuzz {st['fuzz_cases']}, {st['mutants']} mutants, "
        f"{st['max_plans']} plans, {st['sandbox']}, {st['workers']} workers) | {s['synth_validated']} / {s['tasks']} "
        f"({100 * s['yield']:.0f}%) | {s['median_mutation_score_synth']:.2f} (upstream on the same tasks and mutants: "
        f"{s['median_mutation_score_upstream']:.2f}) | {s['median_seconds_synth_and_validate_per_task']:.1f} | "
        "`docs/bench-results/synth_compare.json` |",
        "",
        f"Shipped for `java_public` after the golden-leak guard (a harness may never contain the golden's body): "
        f"{_shipped('java_public')} harnesses (`biocoder_dataset/synth/harnesses-v1.jsonl`).",
        "",
        f"Median verdict agreement with upstream's harness on golden + mutants, over the {s['both_scored']} "
        f"tasks where both exist: {s['median_verdict_agreement']:.2f}.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
