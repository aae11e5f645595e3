#!/usr/bin/env python3
"""Evaluation speed benchmark: the engine vs a naive fresh-process-per-case runner.

Same flags as ``biocoder bench`` (see docs/performance.md), e.g.::

    python scripts/bench_eval.py --config demo --sandbox docker,bwrap --quick
"""

import sys

from biocoder_metric.cli_bench import main

if __name__ == "__main__":
    sys.exit(main())
