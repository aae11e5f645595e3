"""One source of truth for settings: every default and environment variable in one module.

These tests read the repository's own files: a ``BIOCODER_*`` name spelled in any package
module other than ``biocoder_dataset/settings.py`` fails, as does one used anywhere (scripts,
docs, tests) without a row in the documented table, or a docs table that drifted from it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from biocoder_dataset import settings

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("biocoder_dataset", "biocoder_metric", "lm_eval_tasks", "biocoder_passk")
NAME_RE = re.compile(r"(?<![A-Za-z0-9_])BIOCODER_[A-Z][A-Z0-9_]*")


def _package_modules() -> list[Path]:
    return [p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py") if "__pycache__" not in p.parts]


def test_only_the_settings_module_spells_an_environment_variable():
    offenders = {
        str(p.relative_to(REPO)): sorted(set(NAME_RE.findall(p.read_text(encoding="utf-8"))))
        for p in _package_modules()
        if p.name != "settings.py" and NAME_RE.search(p.read_text(encoding="utf-8"))
    }
    assert offenders == {}, f"read these through biocoder_dataset.settings: {offenders}"


def test_every_variable_used_anywhere_is_documented():
    documented = {v.name for v in settings.ENV_VARS}
    files = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    used: dict[str, str] = {}
    for rel in files:
        path = REPO / rel
        if path.suffix not in (".py", ".sh", ".sbatch", ".md", ".yaml", ".yml", "") or not path.is_file():
            continue
        for name in NAME_RE.findall(path.read_text(encoding="utf-8", errors="replace")):
            used.setdefault(name, rel)
    undocumented = {n: where for n, where in used.items() if n not in documented}
    assert undocumented == {}, f"add these to settings.ENV_VARS: {undocumented}"
    assert len(documented) == len(settings.ENV_VARS), "a variable is listed twice"


def test_docs_show_the_settings_table():
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert settings.env_table_markdown() in text, "docs/ARCHITECTURE.md: paste settings.env_table_markdown()"


def test_the_image_tag_default_is_written_once():
    hits = [p for p in _package_modules() if settings.IMAGE in p.read_text(encoding="utf-8")]
    assert [p.relative_to(REPO).as_posix() for p in hits] == ["biocoder_dataset/settings.py"]


def test_cache_root_and_subfolders(tmp_path, monkeypatch):
    monkeypatch.setenv(settings.ENV_CACHE_DIR, str(tmp_path / "c"))
    assert settings.cache_root() == tmp_path / "c"
    assert {k: settings.cache_dir(k) for k in settings.CACHE_SUBDIRS} == {
        k: tmp_path / "c" / v for k, v in settings.CACHE_SUBDIRS.items()
    }
    monkeypatch.delenv(settings.ENV_CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert settings.cache_root() == tmp_path / "x" / "biocoder"


def test_numbers_and_flags_from_the_environment(monkeypatch):
    monkeypatch.setenv(settings.ENV_WORKERS, "7")
    assert settings.env_number(settings.ENV_WORKERS, settings.WORKERS) == 7
    monkeypatch.setenv(settings.ENV_WORKERS, "seven")
    try:
        settings.env_number(settings.ENV_WORKERS, settings.WORKERS)
    except ValueError as exc:
        assert settings.ENV_WORKERS in str(exc)
    else:
        raise AssertionError("a non-number must be an error naming the variable")
    monkeypatch.setenv(settings.ENV_HF_ALLOW_CODE_EVAL, "1")
    monkeypatch.delenv(settings.ENV_ALLOW_UNSAFE, raising=False)
    assert settings.allow_unsafe_from_env()
    monkeypatch.setenv(settings.ENV_HF_ALLOW_CODE_EVAL, "0")
    assert not settings.allow_unsafe_from_env()


def test_settings_import_nothing_heavy():
    code = "import sys, biocoder_dataset.settings; print(sorted(m for m in ('datasets', 'biocoder_metric', 'numpy') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ)
    )
    assert out.stdout.strip() == "[]"
