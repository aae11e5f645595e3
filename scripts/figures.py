#!/usr/bin/env python3
"""Print every figure of README.md and docs/ from the raw output committed in docs/bench-results/.

No number in the documentation is typed by hand: each table sits between markers

    <!-- figures:NAME -->
    ...generated text...
    <!-- /figures -->

and this script regenerates it from the raw JSON the benchmark and reliability scripts wrote.

    python scripts/figures.py                 # print every block
    python scripts/figures.py --write         # rewrite the blocks in README.md and docs/*.md
    python scripts/figures.py --check         # exit 1 if a block differs from what the raw output gives

Speed-ups are ratios of median wall times measured side by side in one run (never a median
of per-pair ratios); every row names its baseline, as recorded in the raw output.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "docs" / "bench-results"
BLOCK_RE = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)


def _load(name: str) -> dict[str, Any]:
    path = RESULTS / name
    if not path.is_file():
        raise SystemExit(f"figures: raw output {path.relative_to(REPO)} is missing")
    return json.loads(path.read_text(encoding="utf-8"))


def _bench_reports() -> list[tuple[str, dict[str, Any]]]:
    """(file name, report) of every `python -m benchmarks speed` report whose baseline is recorded."""
    out = []
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("sandboxes"), dict):
            out.append((path.name, data))
    return out


def _workload(report: dict[str, Any], comparison: dict[str, Any]) -> str:
    lang = f" ({report['language']})" if report.get("language") else ""
    return (
        f"`{report['config']}`{lang}, {comparison['sandbox']}, {len(report['tasks'])} tasks x "
        f"{report['samples_per_task']} samples x {report['fuzz_cases']} cases, {report['workers']} workers, "
        f"{comparison['repeats']} repeat{'s' if comparison['repeats'] != 1 else ''}"
    )


def speed() -> str:
    """The engine (and, where measured, the engine with this round's optimisations off) against
    the baseline each report names, as the ratio of median wall times from one interleaved run."""
    rows = [
        "| workload | baseline (median) | engine, optimisations off (median) | engine (median) | speed-up | "
        "verdicts differing | raw output |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    baselines: dict[str, str] = {}
    for name, report in _bench_reports():
        for _sandbox, block in sorted(report["sandboxes"].items()):
            c = block.get("comparison") or {}
            if not c.get("baseline") or "naive" not in c or "engine" not in c:
                continue  # no recorded baseline: not a figure we print
            label = (
                f"baseline {len(baselines) + 1}"
                if c["baseline"] not in baselines.values()
                else next(k for k, v in baselines.items() if v == c["baseline"])
            )
            baselines[label] = c["baseline"]
            n, e = c["naive"]["wall_s_median"], c["engine"]["wall_s_median"]
            off = c.get("engine_off", {}).get("wall_s_median")
            off_text = "" if off is None else f"{off:.2f} s ({n / off:.1f}x)"
            rows.append(
                f"| {_workload(report, c)} | {n:.1f} s ({label}) | {off_text} | {e:.2f} s | **{n / e:.1f}x** | "
                f"{c['disagreements']} of {c['samples']} samples | `docs/bench-results/{name}` |"
            )
    notes = [f"- {label}: {text}." for label, text in baselines.items()]
    return "\n".join(rows + [""] + notes)


#: How the bench's overhead paths are named in the tables.
PATH_LABELS = {
    "naive": "baseline (upstream-style, a fresh python3 per case)",
    "engine warm": "engine (one clean process per sample)",
    "engine per-case": "engine, optimisations off (a forked process per case)",
    "engine cold": "engine, fresh python3 per case",
}


def overhead() -> str:
    """Per-case overhead above the program's own compute (`python -m benchmarks speed --overhead`)."""
    rows = [
        "| workload | path | cases (per job) | wall overhead per case: median (p10 / p90) | CPU overhead per case | raw output |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, report in _bench_reports():
        m = re.search(r"--overhead-cases[ =](\d+)", report.get("command", ""))
        per_job = m.group(1) if m else "10"  # the benchmark's default
        for sandbox, block in sorted(report["sandboxes"].items()):
            for o in block.get("overhead") or []:
                cpu = o.get("overhead_cpu_ms_per_case")
                q = o.get("overhead_ms_quantiles") or {}
                spread = f" ({q['p10']:.1f} / {q['p90']:.1f})" if q else ""
                rows.append(
                    f"| `{report['config']}`, {sandbox} | {PATH_LABELS.get(o['path'], o['path'])} | {o['cases']} ({per_job}) | "
                    f"{o['overhead_ms_median']:.1f} ms{spread} | {'' if cpu is None else f'{cpu:.1f} ms'} | "
                    f"`docs/bench-results/{name}` |"
                )
    return "\n".join(rows)


def reliability() -> str:
    """The reliability table, as `scripts/reliability_report.py --json` recorded it."""
    data = _load("reliability.json")
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        report = importlib.import_module("reliability_report")
    finally:
        sys.path.pop(0)
    figures = data["figures"]
    table = report.render(figures, data.get("junit") or {}, data.get("wall_s", 0.0)).split("\n\n")[0]
    junit = data.get("junit") or {}
    failed = len(junit.get("failure", [])) + len(junit.get("error", []))
    return (
        table
        + f"\n\npytest over {data.get('scope', 'the reliability files')}: {len(junit.get('passed', []))} passed, "
        f"{failed} failed, {len(junit.get('skipped', []))} skipped (exit {data.get('pytest_exit')}); "
        "raw output `docs/bench-results/reliability.json`."
    )


def audit() -> str:
    """`biocoder audit` results shipped with the dataset (biocoder_dataset/harness_strength.json)."""
    data = json.loads((REPO / "biocoder_dataset" / "harness_strength.json").read_text(encoding="utf-8"))
    rows = [
        "| config | tasks audited | weak harness | return unobserved | constant output | mutants killed | killed only with more cases | surviving more cases (likely equivalent or out of reach) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lists = []
    for config, block in sorted(data["configs"].items()):
        tasks = block["tasks"]
        weak = sorted(t for t, v in tasks.items() if v.get("weak_harness"))
        unobserved = sorted(t for t, v in tasks.items() if v.get("return_unobserved"))
        const = sorted(t for t, v in tasks.items() if v.get("constant_output"))
        ms = [v["mutation_score"] for v in tasks.values() if v.get("mutation_score")]
        killed, total = sum(m["killed"] or 0 for m in ms), sum(m["total"] or 0 for m in ms)
        more = sum(m.get("killed_with_more_cases") or 0 for m in ms)
        equiv = sum(m.get("likely_equivalent") or 0 for m in ms)
        share = f" ({100 * killed / total:.1f}%)" if total else ""
        rows.append(
            f"| `{config}` | {len(tasks)} | {len(weak)} | {len(unobserved)} | {len(const)} | {killed} / {total}{share} | {more} | {equiv} |"
        )
        if weak:
            lists.append(f"- `{config}` weak: " + ", ".join(f"`{t}`" for t in weak))
        if const:
            lists.append(f"- `{config}` constant output: " + ", ".join(f"`{t}`" for t in const))
    return "\n".join(
        rows
        + ([""] + lists if lists else [])
        + ["", f"Audit version {data.get('audit_version')}; settings per config in the file (`run`)."]
    )


def _plugin_blocks() -> dict[str, Callable[[], str]]:
    """Blocks rendered by a benchmark module of ``benchmarks/`` from its own raw output.

    A module ``benchmarks/NAME.py`` that defines ``RESULTS_FILE`` (a file in docs/bench-results)
    and ``render_markdown(data) -> str`` provides the block ``NAME``.
    """
    out: dict[str, Callable[[], str]] = {}
    bench_dir = REPO / "benchmarks"
    if not bench_dir.is_dir():
        return out
    sys.path.insert(0, str(REPO))
    try:
        for path in sorted(bench_dir.glob("*.py")):
            if path.name.startswith("_") or "RESULTS_FILE" not in path.read_text(encoding="utf-8"):
                continue  # not a plugin (e.g. the speed benchmark): no need to import it
            module = importlib.import_module(f"benchmarks.{path.stem}")
            results, render = getattr(module, "RESULTS_FILE", None), getattr(module, "render_markdown", None)
            if results and render:
                out[path.stem] = lambda results=results, render=render: render(_load(results))
    finally:
        sys.path.pop(0)
    return out


def blocks() -> dict[str, Callable[[], str]]:
    return {
        "speed": speed,
        "overhead": overhead,
        "reliability": reliability,
        "audit": audit,
        **_plugin_blocks(),
    }


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def refresh(text: str, rendered: dict[str, str], where: Path) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group("name")
        if name not in rendered:
            raise SystemExit(
                f"figures: {where.relative_to(REPO)} has a block {name!r} that no renderer makes"
            )
        return f"{m.group(1)}{rendered[name].rstrip()}\n{m.group(4)}"

    return BLOCK_RE.sub(sub, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the blocks in README.md and docs/*.md")
    mode.add_argument("--check", action="store_true", help="exit 1 if a block differs from the raw output")
    args = parser.parse_args(argv)
    used = {
        m.group("name") for doc in documents() for m in BLOCK_RE.finditer(doc.read_text(encoding="utf-8"))
    }
    makers = blocks()
    rendered = {name: makers[name]() for name in sorted(used) if name in makers}
    if not (args.write or args.check):
        for name in sorted(makers):
            print(f"## {name}\n\n{rendered.get(name) or makers[name]()}\n")
        return 0
    stale = []
    for doc in documents():
        text = doc.read_text(encoding="utf-8")
        new = refresh(text, rendered, doc)
        if new != text:
            stale.append(doc.relative_to(REPO))
            if args.write:
                doc.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(
            "figures: out of date with docs/bench-results: "
            + ", ".join(map(str, stale))
            + " (python scripts/figures.py --write)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
