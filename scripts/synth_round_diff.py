"""Tasks gained and lost between two ``synth_generalise`` runs, per group and part.

A yield that stays the same can hide a task gained and another lost; and two runs' samples may
differ (a changed selection draws other functions). This compares only the tasks in both runs
(same group, part and task id), from the raw outputs under docs/bench-results:

    python scripts/synth_round_diff.py docs/bench-results/synth_generalise_python_round14.json \\
        docs/bench-results/synth_generalise_python_round15.json

Counts only: which held-out tasks moved is not printed (``--names`` prints the dev part's).
``--seconds`` also prints, per group and part, the synthesis seconds the tasks in both runs took
in each (the sum of the per-task ``seconds`` records).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def statuses(path: Path) -> dict[tuple[str, str, str], str]:
    """(group, part, task id) -> synthesis status, from a run's ``tasks`` records."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(t["group"], t["part"], t["task_id"]): t["status"] for t in data["tasks"]}


def seconds(path: Path) -> dict[tuple[str, str, str], float]:
    """(group, part, task id) -> seconds its synthesis took."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(t["group"], t["part"], t["task_id"]): t.get("seconds") or 0.0 for t in data["tasks"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--names", action="store_true", help="also name the dev part's gained and lost tasks")
    ap.add_argument(
        "--seconds", action="store_true", help="also sum the synthesis seconds of the tasks in both"
    )
    args = ap.parse_args(argv)
    old, new = statuses(args.old), statuses(args.new)
    envs = [json.loads(p.read_text(encoding="utf-8")).get("environment") for p in (args.old, args.new)]
    if None not in envs and envs[0] != envs[1]:
        # bwrap over the reference image and bwrap over the host's Python are different environments
        # (on stderr: stdout is the table, which scripts and tests parse)
        print(f"warning: the runs' sandbox environments differ ({envs[0]} vs {envs[1]})", file=sys.stderr)
    print(f"{'group':18} {'part':8} {'in both':>7} {'gained':>6} {'lost':>4}")
    for group, part in sorted({k[:2] for k in new}):
        both = [k for k in new if k[:2] == (group, part) and k in old]
        gained = [k for k in both if new[k] == "validated" != old[k]]
        lost = [k for k in both if old[k] == "validated" != new[k]]
        print(f"{group:18} {part:8} {len(both):7} {len(gained):6} {len(lost):4}")
        if args.names and part == "dev":
            for label, ks in (("gained", gained), ("lost", lost)):
                for k in ks:
                    print(f"    {label}: {k[2]}")
    if args.seconds:
        s_old, s_new = seconds(args.old), seconds(args.new)
        print(f"\n{'group':18} {'part':8} {'old s':>7} {'new s':>7}")
        for group, part in sorted({k[:2] for k in new}):
            both = [k for k in new if k[:2] == (group, part) and k in old]
            print(
                f"{group:18} {part:8} {sum(s_old[k] for k in both):7.0f} {sum(s_new[k] for k in both):7.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
