"""A source dir whose Hub file is one of the project's 13-field fixtures (tests/fixtures/hub)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HUB_FIXTURES = Path(__file__).parent / "fixtures" / "hub"
SYNTHETIC_SRC = Path(__file__).parent / "fixtures" / "dataset" / "synthetic_src"
SPLITS = ("train", "test")


def hub_source_dir(tmp: Path, split: str, adapters: list | None = None) -> Path:
    """``tmp/src``: synthetic goldens, an adapters file (empty unless given) and the Hub fixture of ``split``."""
    src = tmp / f"src-{split}"
    for rel in ("github-d1c922e/python_public.json", "github-head/java_public.json"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SYNTHETIC_SRC / rel, src / rel)
    (src / "python-harness").mkdir(parents=True, exist_ok=True)
    (src / "python-harness/tasks.json").write_text(json.dumps(adapters or []), encoding="utf-8")
    (src / "hf-biocoder_public").mkdir(parents=True, exist_ok=True)
    shutil.copy(HUB_FIXTURES / f"biocoder_{split}.json", src / "hf-biocoder_public/biocoder.json")
    return src


def hub_records() -> list[dict]:
    return json.loads((HUB_FIXTURES / "biocoder_train.json").read_text(encoding="utf-8"))["train"]
