#!/usr/bin/env bash
# Install biocoder-eval and everything its tests and sandboxes need, on a fresh Debian/Ubuntu machine.
#
# Why each step: torch is pinned first to the CPU build so that `transformers`/`lm-eval` do not pull a
# multi-GB CUDA wheel (GPU users: install your CUDA torch first, this step then does nothing);
# bubblewrap is the fast local sandbox; Docker (engine + reference image) is the reference sandbox,
# set up by scripts/setup_docker.sh and skipped with a message where no engine can run.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
  "$PY" -m pip install -q "torch==2.13.0" || "$PY" -m pip install -q "torch>=2.2,<3" --index-url https://download.pytorch.org/whl/cpu
fi
"$PY" -m pip install -q -e ".[all]"

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  if ! command -v bwrap >/dev/null 2>&1; then
    (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  fi
  # Upstream's Java harnesses compile against commons-math3, htsjdk and jregex; the bwrap sandbox
  # uses the host JDK, so the host gets the same Debian packages as the image (/usr/share/java/*.jar).
  java_libs="libcommons-math3-java libhtsjdk-java libjregex-java"
  if ! dpkg -s $java_libs >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $java_libs >/dev/null \
      || { (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $java_libs >/dev/null; }
  fi
fi

# Headless Chromium: the report test opens report.html in a real browser (skipped without it).
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && ! command -v chromium >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
    || { (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
    || echo "install: chromium unavailable; the browser test of biocoder report will be skipped" >&2
fi

if [ "${BIOCODER_SKIP_DOCKER:-0}" != 1 ]; then
  set +e
  bash scripts/setup_docker.sh
  rc=$?
  set -e
  if [ $rc -eq 3 ]; then
    echo "install: no Docker engine can run on this machine; the docker sandbox is unavailable (bwrap is used)" >&2
  elif [ $rc -ne 0 ]; then
    echo "install: Docker setup failed (exit $rc)" >&2
    exit $rc
  fi
fi
echo "install: done"
