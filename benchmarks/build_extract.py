"""Extraction throughput of ``biocoder build extract`` on the real repository snapshots.

For VarDictJava (Java, tree-sitter) and cnvkit (Python, ast) this times, in one run on the
same machine, (a) parsing every source file and nothing else and (b) the whole extraction
(parse + records: signatures, comments, content, imports, class context). It prints
functions per second for (b) and the side-by-side ratio (b)/(a), i.e. what building upstream's
records costs on top of the parser. Each measurement is the median of ``--repeat`` runs.

    python -m benchmarks build_extract [--repeat 5] [--out docs/bench-results/build_extract.json]

The snapshots are read from ``../shared/repos`` (``BIOCODER_REPOS_DIR`` overrides).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from biocoder_metric import pyast

REPO = Path(__file__).resolve().parent.parent
REPOS = Path(os.environ.get("BIOCODER_REPOS_DIR", REPO.parent / "shared" / "repos"))
TARGETS = (("VarDictJava", "AstraZeneca-NGS/VarDictJava", "java"), ("cnvkit", "etal/cnvkit", "python"))


def _parse_only(repo: Path, language: str) -> int:
    from biocoder_metric.build.common import iter_source_files

    n = 0
    for path in iter_source_files(repo, language):
        data = path.read_bytes()
        if language == "java":
            from biocoder_metric.build.extract_java import parser

            parser().parse(data)
        else:
            pyast.parse(data)
        n += 1
    return n


def _extract(repo: Path, repo_name: str, language: str) -> int:
    if language == "java":
        from biocoder_metric.build.extract_java import extract
    else:
        from biocoder_metric.build.extract_python import extract
    functions, _, _ = extract(repo, repo_name)
    return len(functions)


def _median_time(fn, repeat: int) -> tuple[float, list[float], int]:
    times, result = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


#: Raw output (docs/bench-results/) that ``scripts/figures.py`` renders with :func:`render_markdown`.
RESULTS_FILE = "build_extract.json"


def render_markdown(data: dict) -> str:
    """Functions extracted per second, per repository (medians of the repeated runs)."""
    rows = [
        f"Median of {data['repeat']} runs, {data['cpus']} shared CPUs (1-minute load average "
        f"{data['load_avg_1m']:.1f}), tree-sitter {data['versions']['tree-sitter']}, "
        f"tree-sitter-java {data['versions']['tree-sitter-java']}.",
        "",
        "| repository | language | files | functions | extract s | functions/s | extract time / bare parse |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in data["results"]:
        rows.append(
            f"| {r['repository']} | {r['language']} | {r['files']} | {r['functions']} | {r['extract_s']:.2f} | "
            f"{r['functions_per_s']:.0f} | {r['extract_over_parse']:.2f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=str(REPO / "docs" / "bench-results" / "build_extract.json"))
    args = ap.parse_args(argv)
    rows = []
    for folder, name, language in TARGETS:
        repo = REPOS / folder
        if not repo.is_dir():
            raise SystemExit(f"{repo}: repository snapshot not found (see ../shared/repos/README.md)")
        _extract(repo, name, language)  # warm-up: imports, parser construction, file cache
        parse_s, parse_all, n_files = _median_time(
            lambda r=repo, lang=language: _parse_only(r, lang), args.repeat
        )
        extract_s, extract_all, n_functions = _median_time(
            lambda r=repo, n=name, lang=language: _extract(r, n, lang), args.repeat
        )
        rows.append(
            {
                "repository": name,
                "language": language,
                "files": n_files,
                "functions": n_functions,
                "parse_only_s": round(parse_s, 4),
                "extract_s": round(extract_s, 4),
                "functions_per_s": round(n_functions / extract_s, 1),
                "files_per_s": round(n_files / extract_s, 1),
                "extract_over_parse": round(extract_s / parse_s, 2),
                "runs_parse_s": [round(t, 4) for t in parse_all],
                "runs_extract_s": [round(t, 4) for t in extract_all],
            }
        )
    print(
        f"{'repository':<30} {'lang':<7} {'files':>5} {'funcs':>6} {'parse s':>8} {'extract s':>9} {'funcs/s':>8} {'extract/parse':>13}"
    )
    for r in rows:
        print(
            f"{r['repository']:<30} {r['language']:<7} {r['files']:>5} {r['functions']:>6} {r['parse_only_s']:>8.3f} "
            f"{r['extract_s']:>9.3f} {r['functions_per_s']:>8.1f} {r['extract_over_parse']:>12.2f}x"
        )
    try:
        from importlib.metadata import version

        ts = {"tree-sitter": version("tree-sitter"), "tree-sitter-java": version("tree-sitter-java")}
    except Exception:  # noqa: BLE001 - versions are informative only
        ts = {}
    result = {
        "benchmark": "build_extract",
        "repeat": args.repeat,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_avg_1m": os.getloadavg()[0],
        "versions": ts,
        "results": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"raw output: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
