#!/usr/bin/env python3
"""Evaluation speed benchmark: the engine vs the naive upstream-style runner.

Kept for old command lines: the same as ``python -m benchmarks speed`` (see
docs/performance.md), which is the documented entry, e.g.::

    python scripts/bench_eval.py --config demo --sandbox docker,bwrap --quick
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root holds benchmarks/

from benchmarks.__main__ import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["speed", *sys.argv[1:]]))
