"""Upstream BioCoder's Rosalind layout in (``outputs/<problem>/<n>.txt``) and ``results.json`` out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from biocoder_metric.reporting.upstream import (
    UpstreamFormatError,
    read_outputs_dir,
    read_upstream_results,
    upstream_rows,
    write_upstream_results,
)
from biocoder_metric.types import SampleResult

from tiny_model import REPO_ROOT

pd = pytest.importorskip("pandas", reason="pandas comes with datasets")
UPSTREAM = REPO_ROOT.parent / "shared" / "biocoder-upstream"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")

DNA_OK = "def solve(input_text):\n    s = input_text.strip()\n    return ' '.join(str(s.count(c)) for c in 'ACGT')\n"
REVC_OK = (
    "def solve(input_text):\n    return input_text.strip()[::-1].translate(str.maketrans('ACGT', 'TGCA'))\n"
)
WRONG = "def solve(input_text):\n    return 'wrong'\n"


def _biocoder(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "BIOCODER_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "biocoder_metric", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _as_upstream_tester_writes(rows: list[list]) -> str:
    """What upstream's tester.py does, verbatim in spirit: an empty frame filled with df.loc, then to_json."""
    df = pd.DataFrame(columns=["Problem", "Generation", "Passed"])
    for row in rows:
        df.loc[len(df)] = row
    return df.to_json()


def test_results_json_is_byte_identical_to_upstreams_writer(tmp_path: Path) -> None:
    rows = [["ba1a", g, g % 3 == 0] for g in range(1, 21)] + [
        ["ini", 1, True],
        ["revc", 2, False],
        ['odd/name"é', 7, True],
    ]
    ours = write_upstream_results(tmp_path / "results.json", [tuple(r) for r in rows])
    assert ours.read_text(encoding="utf-8") == _as_upstream_tester_writes(rows)
    assert (tmp_path / "empty.json").exists() is False
    write_upstream_results(tmp_path / "empty.json", [])
    assert (tmp_path / "empty.json").read_text() == _as_upstream_tester_writes([])
    assert read_upstream_results(ours) == [tuple(r) for r in rows]
    # upstream-style pass@1: share of passing generations per problem, averaged
    df = pd.read_json(ours)
    per_problem = df.groupby("Problem")["Passed"].mean()
    assert per_problem["ba1a"] == pytest.approx(6 / 20)
    assert per_problem["ini"] == 1.0 and per_problem["revc"] == 0.0


def test_rows_from_results_without_a_folder_use_upstream_naming() -> None:
    results = [
        SampleResult("rosalind_ba1a", 0, "passed", "", ""),
        SampleResult("rosalind_ba1a", 1, "runtime_error", "", ""),
        SampleResult("demo_x", 0, "no_harness", "", "", extra={"task_status": "no_harness"}),
    ]
    assert upstream_rows(results) == [("ba1a", 1, True), ("ba1a", 2, False)]


def test_reading_the_outputs_folder(tmp_path: Path) -> None:
    root = tmp_path / "outputs"
    (root / "dna").mkdir(parents=True)
    for n in (10, 2, 1):
        (root / "dna" / f"{n}.txt").write_text(f"# gen {n}\n", encoding="utf-8")
    (root / "dna" / "notes.md").write_text("ignored")
    (root / "demo_rosalind_gc").mkdir()
    (root / "demo_rosalind_gc" / "3.txt").write_text("x")
    got = read_outputs_dir(root, ["rosalind_dna", "demo_rosalind_gc"])
    assert [(s["task_id"], s["completion"]) for s in got.samples] == [
        ("demo_rosalind_gc", "x"),
        ("rosalind_dna", "# gen 1\n"),
        ("rosalind_dna", "# gen 2\n"),
        ("rosalind_dna", "# gen 10\n"),
    ]
    assert got.origin == {
        ("demo_rosalind_gc", 0): ("demo_rosalind_gc", 3),
        ("rosalind_dna", 0): ("dna", 1),
        ("rosalind_dna", 1): ("dna", 2),
        ("rosalind_dna", 2): ("dna", 10),
    }
    (root / "nope").mkdir()
    with pytest.raises(UpstreamFormatError, match="nope"):
        read_outputs_dir(root, ["rosalind_dna", "demo_rosalind_gc"])
    shutil.rmtree(root / "nope")
    (root / "dna" / "first.txt").write_text("x")
    with pytest.raises(UpstreamFormatError, match="first.txt"):
        read_outputs_dir(root, ["rosalind_dna", "demo_rosalind_gc"])


@pytest.mark.bwrap
@pytest.mark.slow
@needs_bwrap
def test_evaluate_samples_dir_writes_upstream_rows_demo(tmp_path: Path) -> None:
    """Demo Rosalind tasks in upstream's layout, generation numbers with gaps, through a real bwrap sandbox."""
    from biocoder_dataset.configs import load_problems

    rows = {r["task_id"]: r for r in load_problems("demo")}
    root = tmp_path / "outputs"
    plan = {
        "demo_rosalind_dna": {
            1: rows["demo_rosalind_dna"]["golden_code"],
            2: WRONG,
            5: rows["demo_rosalind_dna"]["golden_code"],
        },
        "demo_rosalind_rna": {3: WRONG, 4: rows["demo_rosalind_rna"]["golden_code"]},
    }
    for task, files in plan.items():
        (root / task).mkdir(parents=True)
        for n, code in files.items():
            (root / task / f"{n}.txt").write_text(code, encoding="utf-8")
    out_json = tmp_path / "results.json"
    proc = _biocoder(
        "evaluate",
        "--config",
        "demo",
        "--samples-dir",
        str(root),
        "--task-ids",
        ",".join(plan),
        "--upstream-results",
        str(out_json),
        "--out",
        str(tmp_path / "run"),
        "--sandbox",
        "bwrap",
        "--k",
        "1",
        "--no-progress",
        cache=tmp_path / "cache",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected = [
        ["demo_rosalind_dna", 1, True],
        ["demo_rosalind_dna", 2, False],
        ["demo_rosalind_dna", 5, True],
        ["demo_rosalind_rna", 3, False],
        ["demo_rosalind_rna", 4, True],
    ]
    assert out_json.read_text(encoding="utf-8") == _as_upstream_tester_writes(expected)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["pass@1"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert "samples_dir_sha256" in summary["run"]

    both = _biocoder(
        "evaluate",
        "--config",
        "demo",
        "--samples-dir",
        str(root),
        "--samples",
        "x.jsonl",
        "--out",
        str(tmp_path / "r2"),
        "--sandbox",
        "bwrap",
        cache=tmp_path / "cache",
    )
    assert both.returncode == 2 and "exactly one of --samples" in both.stderr


@pytest.mark.upstream
@pytest.mark.bwrap
@pytest.mark.slow
@needs_bwrap
@pytest.mark.skipif(
    not UPSTREAM.is_dir(), reason="../shared/biocoder-upstream (real upstream data) is absent"
)
def test_real_rosalind_outputs_folder(tmp_path: Path) -> None:
    """Upstream's bare problem ids (dna, revc) as folder names, against the real Rosalind test cases."""
    root = tmp_path / "outputs"
    for pid, files in {"dna": {1: DNA_OK, 2: WRONG}, "revc": {1: WRONG, 2: REVC_OK}}.items():
        (root / pid).mkdir(parents=True)
        for n, code in files.items():
            (root / pid / f"{n}.txt").write_text(code, encoding="utf-8")
    out_json = tmp_path / "results.json"
    proc = _biocoder(
        "evaluate",
        "--config",
        "rosalind",
        "--source-dir",
        str(UPSTREAM),
        "--samples-dir",
        str(root),
        "--task-ids",
        "rosalind_dna,rosalind_revc",
        "--upstream-results",
        str(out_json),
        "--out",
        str(tmp_path / "run"),
        "--sandbox",
        "bwrap",
        "--k",
        "1",
        "--no-progress",
        cache=tmp_path / "cache",
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out_json.read_text(encoding="utf-8") == _as_upstream_tester_writes(
        [["dna", 1, True], ["dna", 2, False], ["revc", 1, False], ["revc", 2, True]]
    )
