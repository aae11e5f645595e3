#!/usr/bin/env bash
# The README's test command.
#   bash scripts/test.sh         the fast tier: unit tests and the key end-to-end runs on the demo
#                                config (under 5 minutes on 2 cores)
#   bash scripts/test.sh --all   every test (what .ci/run runs; about 16 minutes on 2 cores)
# Which file is in which tier, and why: tests/conftest.py (FAST, FULL). Extra arguments go to pytest.
#
# The tests run on BIOCODER_TEST_WORKERS processes (default 2; pytest-xdist, one file per process
# at a time so a file's module fixtures are built once). Most of a test's time is spent waiting on
# sandboxes, compilers and subprocesses, which a second process overlaps.
# Tests marked `serial` (they restart the Docker daemon every other docker test needs) run alone
# afterwards. BIOCODER_TEST_WORKERS=1 runs everything in one process, in order.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
python3 -m ruff format --check .
workers=${BIOCODER_TEST_WORKERS:-2}
if [ "$workers" -le 1 ] || ! python3 -c 'import xdist' 2>/dev/null; then
  exec python3 -m pytest -ra "$@"
fi
# A -m EXPR of the caller narrows both parts: (EXPR) and not serial, then (EXPR) and serial.
marks="" rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    -m) marks="$2"; shift 2 ;;
    -m*) marks="${1#-m}"; shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
both=${marks:+($marks) and }
set +e
python3 -m pytest -ra -n "$workers" --dist loadfile -m "${both}not serial" "${rest[@]}"
parallel=$?
python3 -m pytest -ra -m "${both}serial" "${rest[@]}"
alone=$?
set -e
# 5: nothing collected (the fast tier holds no serial test; a -k may select none of a part)
[ "$parallel" = 5 ] && [ "$alone" != 5 ] && parallel=0
[ "$alone" = 5 ] && alone=0
[ "$parallel" != 0 ] && exit "$parallel"
exit "$alone"
