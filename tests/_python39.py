"""Find a Python 3.9 interpreter (the reference image's version) on this machine, if any."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def python39() -> str | None:
    """Path of a working ``python3.9``, or None (tests that need one skip)."""
    for cand in ("python3.9", str(Path.home() / ".pyenv/versions/3.9.18/bin/python3.9")):
        exe = shutil.which(cand) or (cand if Path(cand).is_file() else None)
        if not exe:
            continue
        try:
            out = subprocess.run(
                [exe, "-c", "import sys; print(sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except OSError:
            continue
        if out.stdout.strip() == "(3, 9)":
            return exe
    return None
