"""Every test file is in exactly one tier on purpose (tests/conftest.py), and the tiers select."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import FAST, FULL

TESTS = Path(__file__).resolve().parent


def test_every_test_file_is_in_exactly_one_tier():
    files = {p.name for p in TESTS.glob("test_*.py")}
    assert not (FAST & FULL), f"in both tiers: {sorted(FAST & FULL)}"
    assert files == FAST | FULL, f"not in a tier: {sorted(files - FAST - FULL)}; gone: {sorted((FAST | FULL) - files)}"


def test_the_default_run_leaves_the_full_tier_out_and_all_keeps_it():
    def collected(*args: str) -> set[str]:
        proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args], cwd=TESTS.parent,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return {line.split("::")[0].split("/")[-1] for line in proc.stdout.splitlines() if "::" in line}

    default, everything = collected(), collected("--all")
    assert default <= FAST and default & FAST
    assert everything >= default | {"test_sabotage_accounting.py", "test_reliability_hostile.py"}
