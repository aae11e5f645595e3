#!/usr/bin/env bash
# Run the whole test suite (the README's test command). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
exec python3 -m pytest -ra "$@"
