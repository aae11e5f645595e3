"""Counts of the round-11 dev probes (``docs/bench-results/dev_probe_round11.json``).

Why: the eleventh round took its failure classes from dev-hash rows of the hidden sets beyond the
benchmark's sample; the README and docs/synthesis.md quote how many of those rows validate before
and after the round. This prints those numbers from the committed raw output, so the quote can be
checked:

    python scripts/dev_probe_counts.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

RAW = Path(__file__).resolve().parent.parent / "docs" / "bench-results" / "dev_probe_round11.json"


def counts(data: dict) -> list[str]:
    """One line per probe set: validated rows before and after, and the rows that changed."""
    lines = []
    for name, probe in data["sets"].items():
        runs = probe["runs"]
        before, after = runs["before"]["tasks"], runs["after"]["tasks"]
        rows = probe["rows"]
        missing = [t for t in rows if t not in before or t not in after]
        if missing:
            raise SystemExit(f"{name}: {len(missing)} rows lack a result in a run (first: {missing[0]})")
        ok_b = sum(before[t]["status"] == "validated" for t in rows)
        ok_a = sum(after[t]["status"] == "validated" for t in rows)
        gained = sum(before[t]["status"] != "validated" and after[t]["status"] == "validated" for t in rows)
        lost = sum(before[t]["status"] == "validated" and after[t]["status"] != "validated" for t in rows)
        lines.append(
            f"{name}: {len(rows)} rows ({probe['selection']}); validated {ok_b} -> {ok_a} "
            f"(gained {gained}, lost {lost}); before = {runs['before']['code']}, after = {runs['after']['code']}"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", default=str(RAW))
    args = ap.parse_args()
    for line in counts(json.loads(Path(args.raw).read_text(encoding="utf-8"))):
        print(line)


if __name__ == "__main__":
    main()
