"""Shared pieces of the ``biocoder build`` tests: where the real repositories are, and the CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Source snapshots of real repositories (read-only), see their README.md.
REPOS = Path(os.environ.get("BIOCODER_REPOS_DIR", REPO_ROOT.parent / "shared" / "repos"))
UPSTREAM = Path(os.environ.get("BIOCODER_UPSTREAM_DIR", REPO_ROOT.parent / "shared" / "biocoder-upstream"))


def need(path: Path, what: str) -> Path:
    """``path`` or a skip that names it."""
    if not path.exists():
        pytest.skip(f"{what} not found at {path}; this test needs the real data (see ../shared/*/README.md)")
    return path


def biocoder(
    *args: str, env: dict[str, str] | None = None, check: bool = True, timeout: float = 900
) -> subprocess.CompletedProcess:
    """Run ``python -m biocoder_metric ARGS`` in the project root, as users do."""
    cmd = [sys.executable, "-m", "biocoder_metric", *args]
    full_env = {**os.environ, **(env or {}), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=full_env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
