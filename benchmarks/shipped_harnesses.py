"""Executable tasks per config, and where their harnesses come from (upstream or synthesized).

Reads the real configs (``--source-dir``, default ``../shared/biocoder-upstream``) through the
dataset loader, which merges the shipped synthesized harnesses, plus the ``biocoder build
harness`` reports of the shipping runs (``--reports DIR``: ``<config>.report.jsonl``), and
writes ``docs/bench-results/shipped_harnesses.json``: per config the row count, executable
tasks by harness source, and the synthesis yield (validated of processed, median mutation
score). ``scripts/figures.py`` prints the table in README.md and docs/synthesis.md from it.

    python -m benchmarks shipped_harnesses --reports runs/ship
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS_FILE = "shipped_harnesses.json"
#: Text only a harness with stubs holds (python_stubs' prelude defines ``_bc_stub``, java_stubs'
#: seed field); not ``_bc_stub_case`` alone, which the diagnostic of every harness since round 34
#: names (``_bc_origins`` looks up the stubs' results when there are any).
STUB_MARKERS = ("\ndef _bc_stub(slot", "_bcStubSeed")
CONFIGS = ("python_public", "python_similar", "java_public", "java_similar", "python_hidden", "java_hidden")


def render_markdown(data: dict) -> str:
    """One row per config: rows, executable (upstream + synthesized), synthesis yield and median score."""
    lines = [
        "| config | rows | executable | upstream harness | synthesized harness | of which with stubs | synthesis: validated / processed | median mutation score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in data["configs"]:
        s = c["synthesis"]
        yield_text = f"{s['validated']} / {s['processed']}" if s["processed"] else "n/a"
        if s.get("note"):
            yield_text = "n/a (report not kept)"
        score = f"{s['median_mutation_score']:.2f}" if s["median_mutation_score"] is not None else "n/a"
        lines.append(
            f"| `{c['config']}` | {c['rows']} | {c['executable']} | {c['upstream']} | {c['synthesized']} | "
            f"{c.get('with_stubs', 'n/a')} | {yield_text} | {score} |"
        )
    return "\n".join(lines)


def _report(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    from biocoder_dataset.configs import load_problems

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source-dir", default=str(REPO.parent / "shared" / "biocoder-upstream"))
    ap.add_argument("--reports", default=str(REPO / "runs" / "ship"), help="folder of <config>.report.jsonl")
    ap.add_argument("--out", default=str(REPO / "docs" / "bench-results" / RESULTS_FILE))
    args = ap.parse_args(argv)
    # Without the shipping runs' reports (they are not committed), the synthesis yield of the
    # previous raw output is kept as it was measured; the executable counts are always recounted.
    previous = {}
    if Path(args.out).is_file():
        previous = {c["config"]: c for c in json.loads(Path(args.out).read_text(encoding="utf-8"))["configs"]}
    out = []
    for config in CONFIGS:
        rows = load_problems(config, args.source_dir)
        source = Counter(r["harness_source"] for r in rows if r["executable"])
        report_file = Path(args.reports) / f"{config}.report.jsonl"
        recs = _report(report_file)
        scores = [
            r["validation"]["mutation_score"]
            for r in recs
            if r.get("status") == "validated"
            and (r.get("validation") or {}).get("mutation_score") is not None
        ]
        entry = {
            "config": config,
            "rows": len(rows),
            "executable": sum(r["executable"] for r in rows),
            "upstream": source.get("upstream", 0),
            "synthesized": source.get("synthesized", 0),
            # harnesses that stand in stubs for helpers, fields or classes with no source
            # (python_stubs / java_stubs): a candidate passes them by calling those as the golden does
            "with_stubs": sum(
                1
                for r in rows
                if r["executable"]
                and r["harness_source"] == "synthesized"
                and any(m in (r.get("context") or "") for m in STUB_MARKERS)
            ),
            "synthesis": {
                "processed": len(recs),
                "validated": sum(r.get("status") == "validated" for r in recs),
                "median_mutation_score": round(statistics.median(scores), 3) if scores else None,
                "tasks": [
                    {
                        "task_id": r["task_id"],
                        "status": r.get("status"),
                        "mutation_score": (r.get("validation") or {}).get("mutation_score"),
                        "reason": (r.get("reason") or "")[:200] or None,
                    }
                    for r in recs
                ],
            },
        }
        if not report_file.is_file() and config in previous:
            kept = previous[config]["synthesis"]
            if kept.get("validated") is None and kept.get("note"):
                entry["synthesis"] = kept  # already "not kept": stays so until a run with a report
            elif (
                kept["validated"] >= entry["synthesized"]
                or previous[config]["synthesized"] == entry["synthesized"]
            ):
                entry["synthesis"] = kept  # the harnesses it describes are still the ones shipped
            else:  # the harness file grew since: the old yield no longer describes it
                entry["synthesis"] = {
                    "processed": None,
                    "validated": None,
                    "median_mutation_score": None,
                    "tasks": [],
                    "note": "the report of the run that shipped these harnesses was not kept",
                }
        out.append(entry)
        print(
            f"{config:15} rows {entry['rows']:4} executable {entry['executable']:4} "
            f"(upstream {entry['upstream']}, synthesized {entry['synthesized']}); "
            f"synthesis {entry['synthesis']['validated']}/{entry['synthesis']['processed']}"
        )
    Path(args.out).write_text(
        json.dumps({"benchmark": "shipped_harnesses", "configs": out}, indent=2) + "\n", encoding="utf-8"
    )
    print(f"raw output: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
