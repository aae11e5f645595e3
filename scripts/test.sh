#!/usr/bin/env bash
# The README's test command.
#   bash scripts/test.sh         the fast tier: unit tests and the key end-to-end runs on the demo
#                                config (under 5 minutes on 2 cores)
#   bash scripts/test.sh --all   every test (what .ci/run runs; 24 to 42 minutes on 2 cores)
# Which file is in which tier, and why: tests/conftest.py (FAST, FULL). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
python3 -m ruff format --check .
exec python3 -m pytest -ra "$@"
