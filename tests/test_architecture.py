"""The architecture rules that a file tree alone cannot enforce, checked on the real sources.

* ``biocoder_dataset`` never imports ``biocoder_metric`` (data is the lower layer).
* Nothing installed imports the developer ``benchmarks``.
* The stages never import ``biocoder_metric.evaluation`` (the one call that owns a run sits above
  them; only the adapters call it).
* One cache root: with ``BIOCODER_CACHE_DIR`` set, a real ``biocoder evaluate`` writes caches
  there and nowhere under ``HOME``.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from biocoder_dataset import settings

REPO = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _offenders(package: str, forbidden: str) -> dict[str, list[str]]:
    found = {}
    for path in (REPO / package).rglob("*.py"):
        if "demo" in path.relative_to(REPO).parts:  # harness templates, not modules
            continue
        bad = sorted(m for m in _imports(path) if m == forbidden or m.startswith(forbidden + "."))
        if bad:
            found[str(path.relative_to(REPO))] = bad
    return found


def test_the_dataset_package_does_not_import_the_metric_package():
    assert _offenders("biocoder_dataset", "biocoder_metric") == {}


def test_no_installed_module_imports_the_benchmarks():
    assert (
        _offenders("biocoder_metric", "benchmarks") == {}
        and _offenders("biocoder_dataset", "benchmarks") == {}
    )


def test_no_stage_imports_the_run_owner_above_it():
    stages = ("generation", "execution", "sandbox", "scoring", "validity", "reporting")
    found = {}
    for stage in stages:
        found.update(_offenders(f"biocoder_metric/{stage}", "biocoder_metric.evaluation"))
    for shared in ("types.py", "samples.py", "digests.py"):
        bad = sorted(m for m in _imports(REPO / "biocoder_metric" / shared) if m.startswith("biocoder_metric.evaluation"))
        if bad:
            found[shared] = bad
    assert found == {}, f"upward imports of biocoder_metric.evaluation: {found}"


def test_each_cli_command_is_a_module_of_its_own():
    from biocoder_metric import cli

    for name in cli.COMMANDS:
        assert (REPO / "biocoder_metric" / "cli" / f"{name}.py").is_file(), name
    assert not list((REPO / "biocoder_metric").glob("cli_*.py")), (
        "command modules live in biocoder_metric/cli/"
    )


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.bwrap
def test_caches_go_only_under_the_cache_root(tmp_path):
    if not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed")
    cache, home = tmp_path / "x", tmp_path / "h"
    home.mkdir()
    samples = tmp_path / "samples.jsonl"
    tasks = ["demo_py_gc_content", "demo_java_hamming"]
    from biocoder_dataset.configs import load_problems

    rows = {r["task_id"]: r for r in load_problems("demo")}
    samples.write_text(
        "".join(json.dumps({"task_id": t, "completion": rows[t]["golden_code"]}) + "\n" for t in tasks)
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", settings.ENV_CACHE_DIR)}
    env.update({settings.ENV_CACHE_DIR: str(cache), "HOME": str(home), settings.ENV_BWRAP_ROOTFS: "host"})
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "biocoder_metric",
            "evaluate",
            "--config",
            "demo",
            "--samples",
            str(samples),
            "--task-ids",
            ",".join(tasks),
            "--sandbox",
            "bwrap",
            "--workers",
            "1",
            "--fuzz-cases",
            "2",
            "--out",
            str(tmp_path / "run"),
            "--no-progress",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert _files(home) == [], f"written under HOME: {_files(home)}"
    made = {p.name for p in cache.iterdir()}
    assert made <= set(settings.CACHE_SUBDIRS.values()), made
    assert {"golden", "runtime"} <= made
    assert any((cache / "golden").iterdir()) and (cache / "runtime").is_dir()
