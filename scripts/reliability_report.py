#!/usr/bin/env python3
"""Run the reliability suite and print its figures as a Markdown table.

The suite is four pytest files (hostile programs, fault injection, bad input, determinism).
Each test appends what it observed (one JSON object per program / fault / input) to the file
named by ``BIOCODER_RELIABILITY_LOG``; this script runs pytest with that variable set and a
JUnit XML report, then counts:

* hostile programs tried / contained / escaped, per sandbox;
* faults injected / runs recovered / results lost;
* bad inputs tried / handled (plus the random inputs hypothesis generated);
* determinism: identical runs;
* tests skipped, with the reason each one gave.

Usage::

    python scripts/reliability_report.py                 # whole suite, table on stdout
    python scripts/reliability_report.py --json out.json # also the raw figures
    python scripts/reliability_report.py -- -k bwrap     # extra pytest arguments after --

Exit status: 0 when every test passed (or was skipped with a reason) and nothing escaped,
was lost or went unhandled; 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUITE = (
    "tests/test_reliability_hostile.py",
    "tests/test_golden_isolation.py",
    "tests/test_reliability_faults.py",
    "tests/test_reliability_bad_input.py",
    "tests/test_determinism.py",
)


def run_suite(log: Path, junit: Path, extra: list[str], everything: bool = False) -> tuple[int, float]:
    env = dict(os.environ, BIOCODER_RELIABILITY_LOG=str(log))
    tests = ["tests"] if everything else list(SUITE)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={junit}",
        *tests,
        *extra,
    ]
    print(f"$ {' '.join(cmd)}", file=sys.stderr)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=sys.stderr)  # stdout: the table only
    return proc.returncode, time.monotonic() - start


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_junit(junit: Path) -> dict[str, list[tuple[str, str]]]:
    """outcome -> [(test id, message)] for skipped / failed / errored tests."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    if not junit.exists():
        return out
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        for tag in ("skipped", "failure", "error"):
            el = case.find(tag)
            if el is not None:
                out[tag].append(
                    (
                        name,
                        (el.get("message") or "").strip().splitlines()[0][:200] if el.get("message") else "",
                    )
                )
        if all(case.find(t) is None for t in ("skipped", "failure", "error")):
            out["passed"].append((name, ""))
    return out


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_kind[r["kind"]].append(r)
    hostile: dict[str, dict[str, Any]] = {}
    for r in by_kind["hostile"]:
        h = hostile.setdefault(r["sandbox"], {"tried": 0, "contained": 0, "escaped": 0, "escapes": []})
        h["tried"] += 1
        if r["contained"]:
            h["contained"] += 1
        else:
            h["escaped"] += 1
            h["escapes"].append(f"{r['program']}: {'; '.join(r['issues'])[:300]}")
    # Run-level checks of each hostile evaluator run: exit status 0, no leftover processes, no
    # canary in the evaluator's own output, output dir untouched. A run with any problem is
    # "not ok" even when every program on its own was contained.
    runs: dict[str, dict[str, Any]] = {}
    for r in by_kind["hostile_run"]:
        h = runs.setdefault(r["sandbox"], {"tried": 0, "ok": 0, "not_ok": 0, "problems": []})
        h["tried"] += 1
        if r.get("global_problems"):
            h["not_ok"] += 1
            h["problems"] += [str(p)[:300] for p in r["global_problems"]]
        else:
            h["ok"] += 1
    faults = {"injected": 0, "runs": 0, "recovered": 0, "lost": 0, "details": []}
    for r in by_kind["fault"]:
        faults["injected"] += int(r.get("injected", 0))
        faults["runs"] += 1
        faults["recovered"] += int(r.get("recovered", 0))
        faults["lost"] += int(r.get("lost", 0))
        faults["details"].append({k: v for k, v in r.items() if k != "kind"})
    bad = {"tried": 0, "handled": 0, "unhandled": [], "by_family": Counter()}
    for r in by_kind["bad_input"]:
        bad["tried"] += 1
        bad["by_family"][r["family"]] += 1
        if r["handled"]:
            bad["handled"] += 1
        else:
            bad["unhandled"].append(f"{r['family']}/{r['case']}: {'; '.join(r['problems'])[:200]}")
    fuzz = Counter(r["outcome"] for r in by_kind["bad_input_fuzz"])
    det = by_kind["determinism"]
    return {
        "hostile": hostile,
        "hostile_runs": runs,
        "faults": faults,
        "bad_input": bad,
        "fuzz": dict(fuzz),
        "determinism": det,
    }


def render(f: dict[str, Any], junit: dict[str, list[tuple[str, str]]], wall_s: float) -> str:
    lines = ["| check | scope | tried | ok | not ok |", "|---|---|---|---|---|"]
    for sandbox, h in sorted(f["hostile"].items()):
        lines.append(
            f"| hostile programs (contained / escaped) | {sandbox} | {h['tried']} | {h['contained']} | {h['escaped']} |"
        )
    for sandbox, h in sorted(f.get("hostile_runs", {}).items()):
        lines.append(
            f"| evaluator runs (exit 0, no leftovers, no canary in its output / not) | {sandbox} | {h['tried']} | {h['ok']} | {h['not_ok']} |"
        )
    fl = f["faults"]
    lines.append(
        f"| faults injected (runs recovered / results lost) | {fl['runs']} scenarios | {fl['injected']} | {fl['recovered']} of {fl['runs']} | {fl['lost']} |"
    )
    b = f["bad_input"]
    lines.append(
        f"| bad inputs (handled / not) | corpus | {b['tried']} | {b['handled']} | {b['tried'] - b['handled']} |"
    )
    fz = f["fuzz"]
    if fz:
        n = sum(fz.values())
        bad_n = fz.get("unhandled", 0)
        lines.append(
            f"| random JSONL (hypothesis: rejected or read cleanly / not) | generated | {n} | {n - bad_n} | {bad_n} |"
        )
    for d in f["determinism"]:
        lines.append(
            f"| determinism (byte-identical results.jsonl) | {d['runs']} runs x {d['samples']} samples, workers 1 and 2 | {d['runs']} | "
            f"{d['runs'] - len(d['differing'])} | {len(d['differing'])} |"
        )
    out = ["\n".join(lines)]
    details = []
    for sandbox, h in sorted(f["hostile"].items()):
        details += [f"- escaped on {sandbox}: {e}" for e in h["escapes"]]
    for sandbox, h in sorted(f.get("hostile_runs", {}).items()):
        details += [f"- evaluator run on {sandbox}: {p}" for p in h["problems"]]
    details += [f"- fault not recovered: {d}" for d in fl["details"] if not d.get("recovered")]
    details += [
        f"- fault without a clear error message: {d['fault']} (exit {d.get('exit_code')})"
        for d in fl["details"]
        if d.get("clear_error") is False
    ]
    details.append(
        "- bad inputs by family: " + ", ".join(f"{k} {v}" for k, v in sorted(b["by_family"].items()))
    )
    details += [f"- bad input not handled: {u}" for u in b["unhandled"]]
    details += [f"- skipped: {name}: {msg}" for name, msg in junit.get("skipped", [])]
    details += [f"- FAILED: {name}: {msg}" for name, msg in junit.get("failure", []) + junit.get("error", [])]
    counts = {k: len(v) for k, v in junit.items()}
    details.append(
        f"- pytest: {counts.get('passed', 0)} passed, {counts.get('failure', 0) + counts.get('error', 0)} failed, "
        f"{counts.get('skipped', 0)} skipped in {wall_s:.0f} s"
    )
    out.append("\n".join(details))
    return "\n\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    parser.add_argument(
        "--all", action="store_true", help="run the whole test suite (tests/), not only the reliability files"
    )
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="biocoder-reliability-") as tmp:
        log, junit = Path(tmp) / "log.jsonl", Path(tmp) / "junit.xml"
        rc, wall = run_suite(log, junit, args.pytest_args, everything=args.all)
        f = figures(read_log(log))
        j = read_junit(junit)
    print(render(f, j, wall))
    if args.json:
        f["bad_input"]["by_family"] = dict(f["bad_input"]["by_family"])
        scope = " ".join(["tests/" if args.all else " ".join(SUITE), *args.pytest_args])
        args.json.write_text(
            json.dumps(
                {"figures": f, "junit": j, "pytest_exit": rc, "wall_s": wall, "scope": scope},
                indent=2,
                default=list,
            )
            + "\n"
        )
    bad = (
        rc != 0
        or any(h["escaped"] for h in f["hostile"].values())
        or any(h["not_ok"] for h in f["hostile_runs"].values())
        or f["faults"]["lost"]
        or f["bad_input"]["unhandled"]
        or f["fuzz"].get("unhandled")
        or any(d["differing"] for d in f["determinism"])
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
