"""Java's reference environment: upstream's three jars on the compile and run classpath.

The Hub-layout fixture task (tests/fixtures/hub) uses commons-math3, htsjdk and jregex inside
upstream's ``public class Main`` with an indented ``<<insert solution here>>``; its golden must
compile and pass in docker and in bwrap, and a wrong candidate must still fail.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from biocoder_dataset.configs import load_problems
from biocoder_metric.execution import EvalOptions, check_goldens, harness, run_evaluation
from biocoder_metric.languages.java import java_class_name
from biocoder_metric.sandbox.runtime.protocol import JAVA_LIBS

from _hub_helpers import hub_records, hub_source_dir


def _rows(tmp_path: Path) -> list[dict]:
    src = hub_source_dir(tmp_path, "train")
    rows = load_problems("python_public", src, verify=False) + load_problems("java_public", src, verify=False)
    ids = {"py_" + r["test_case_id"][:12] for r in hub_records()[:1]} | {
        "java_" + r["test_case_id"][:12] for r in hub_records()[1:]
    }
    return [r for r in rows if r["task_id"] in ids]


def test_jar_paths_are_fixed_and_named_after_debian_packages():
    assert JAVA_LIBS == (
        "/usr/share/java/commons-math3.jar",
        "/usr/share/java/htsjdk.jar",
        "/usr/share/java/jregex.jar",
    )
    dockerfile = (Path(__file__).parent.parent / "docker" / "Dockerfile").read_text()
    install = (Path(__file__).parent.parent / "scripts" / "install.sh").read_text()
    for pkg in ("libcommons-math3-java", "libhtsjdk-java", "libjregex-java"):
        assert pkg in dockerfile and pkg in install


def test_upstream_main_layout_gets_the_method_indented_inside_the_class(tmp_path):
    java = next(r for r in _rows(tmp_path) if r["language"] == "java")
    (program,) = harness.build_harness_programs(java, java["golden_code"], fuzz_cases=1, seed=0)
    assert "\n    public static String summarize(String dna, double[] values) {\n" in program
    assert "<|" not in program and "<<insert" not in program
    assert java_class_name(java["context"]) == "Main"


def _check_in(sandbox: str, tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    opts = EvalOptions(sandbox=sandbox, workers=1, fuzz_cases=3, golden_cache_dir=str(tmp_path / "golden"))
    checks = {c["task_id"]: c for c in check_goldens(rows, opts, progress=False)}
    assert {c["status"] for c in checks.values()} == {"passed"}, checks
    java = next(r for r in rows if r["language"] == "java")
    wrong = java["golden_code"].replace("stats.getMean()", "stats.getMax()")
    run = run_evaluation(
        [java],
        [
            {"task_id": java["task_id"], "completion": java["golden_code"]},
            {"task_id": java["task_id"], "completion": wrong},
        ],
        opts,
        progress=False,
    )
    assert [r.status for r in run.results] == ["passed", "failed"]


@pytest.mark.docker
def test_hub_fixtures_pass_their_goldens_in_docker(tmp_path):
    from biocoder_metric.sandbox import image

    if not image.docker_available():
        pytest.skip("no Docker engine answers here")
    _check_in("docker", tmp_path)


@pytest.mark.bwrap
def test_hub_fixtures_pass_their_goldens_in_bwrap(tmp_path):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap cannot create sandboxes here")
    if not all(Path(p).is_file() for p in JAVA_LIBS):
        pytest.skip(f"the host lacks {JAVA_LIBS} (scripts/install.sh installs them)")
    _check_in("bwrap", tmp_path)
