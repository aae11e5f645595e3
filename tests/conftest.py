"""Shared test fixtures: where the real upstream data lives, and skips that say why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The real upstream files (read-only), laid out as described in their README.
UPSTREAM = Path(os.environ.get("BIOCODER_UPSTREAM_DIR", REPO_ROOT.parent / "shared" / "biocoder-upstream"))


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    """The upstream source dir, or a skip naming the path that was looked for."""
    if not (UPSTREAM / "README.md").is_file():
        pytest.skip(f"real upstream data not found at {UPSTREAM} (set BIOCODER_UPSTREAM_DIR); this test needs it")
    return UPSTREAM
