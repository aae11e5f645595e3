"""The speed benchmark (``biocoder bench``) and its naive reference runner.

Smoke tests only: the benchmark must run end to end and the naive runner must give the
same verdicts as the engine. No timing assertions: speed claims come from the
benchmark's side-by-side ratios (docs/performance.md), never from timed unit tests.
"""

from __future__ import annotations

import ast
import json

import pytest

from biocoder_dataset.configs import load_problems
from biocoder_metric import bench
from biocoder_metric.cli_bench import main as bench_main
from biocoder_metric.execute import EvalOptions
from biocoder_metric.naive import make_naive_backend
from biocoder_metric.sandbox import available_sandboxes


def _sandbox() -> tuple[str, list[str]]:
    """The safest sandbox here without Docker (bwrap), else ``none`` with the explicit opt-in.

    Only the project's own demo goldens and their mutants run, never model output.
    """
    if "bwrap" in available_sandboxes():
        return "bwrap", []
    return "none", ["--allow-unsafe"]


@pytest.fixture(scope="module")
def demo_rows() -> dict[str, dict]:
    return {r["task_id"]: r for r in load_problems("demo")}


def test_mutants_are_distinct_parsable_and_deterministic(demo_rows):
    golden = demo_rows["demo_py_gc_content"]["golden_code"]
    first = bench.mutants(golden, 6, seed="demo_py_gc_content")
    again = bench.mutants(golden, 6, seed="demo_py_gc_content")
    assert first == again, "mutants must be reproducible for a given seed"
    assert len(first) >= 3
    texts = [t for _, t in first]
    assert len(set(texts)) == len(texts)
    canonical = ast.unparse(ast.parse(golden))
    for label, text in first:
        assert label.startswith("mutant: ")
        ast.parse(text)
        assert text != canonical


def test_make_samples_mixes_goldens_and_mutants(demo_rows):
    rows = [demo_rows["demo_py_gc_content"], demo_rows["demo_java_hamming"]]
    samples = bench.make_samples(rows, 8)
    assert len(samples) == 16
    for tid in ("demo_py_gc_content", "demo_java_hamming"):
        labels = [s["label"] for s in samples if s["task_id"] == tid]
        assert labels.count("golden") == 2  # indices 0 and 4
        assert any(lbl.startswith("mutant") for lbl in labels)


def test_probe_reports_the_programs_own_compute(tmp_path):
    program = (
        "import math\n\n@staticmethod\ndef f():\n    pass\nx = sum(i * i for i in range(200000))\nprint(x)\n"
    )
    probed = bench.with_probe(program)
    lines = probed.splitlines()
    assert lines[0] == "import math" and lines[2].startswith("import atexit as _bq_atexit")
    assert lines[3] == "@staticmethod", "the probe goes before the decorator, after the imports"
    name, extra = _sandbox()
    backend = make_naive_backend(name, allow_unsafe=bool(extra), timeout_s=20, memory_mb=1024)
    try:
        out = backend.run_case("python", probed)
    finally:
        backend.close()
    assert out.status == "ok" and out.returncode == 0, out.stderr
    assert out.stdout == f"{sum(i * i for i in range(200000))}\n"
    compute = bench.probe_compute(out.stderr)
    assert compute is not None and 0 < compute < out.duration_s


def test_bench_quick_runs_and_verdicts_agree(tmp_path):
    """The whole command on 2 demo Python tasks: both runners, same verdicts, a JSON report."""
    name, extra = _sandbox()
    out = tmp_path / "bench.json"
    rc = bench_main(
        [
            "--config",
            "demo",
            "--sandbox",
            name,
            *extra,
            "--quick",
            "--tasks",
            "2",
            "--samples",
            "5",
            "--workers",
            "2",
            "--overhead",
            "--out",
            str(out),
        ]
    )
    report = json.loads(out.read_text())
    entry = report["sandboxes"][name]
    assert entry["disagreements"] == [], entry["disagreements"]
    assert rc == 0
    comp = entry["comparison"]
    assert len(report["tasks"]) == 2
    assert comp["samples"] == 10 and comp["cases"] == 20  # 2 tasks x 5 samples x 2 fuzz cases
    assert comp["verdicts"].get("passed", 0) >= 4  # the goldens (indices 0 and 4 of each task)
    assert sum(v for k, v in comp["verdicts"].items() if k != "passed") >= 1, "mutants must fail somewhere"
    assert {"naive", "engine", "speedup_engine_over_naive"} <= set(comp)
    paths = {o["path"] for o in entry["overhead"]}
    assert paths == {"engine warm", "engine cold", "naive"}


@pytest.mark.slow
def test_java_naive_and_engine_agree(demo_rows):
    """javac + java per case (naive) and the compile-once runner (engine) judge alike."""
    name, extra = _sandbox()
    rows = [demo_rows["demo_java_hamming"]]
    samples = bench.make_samples(rows, 3)  # golden, comparison flipped, operator changed
    opts = EvalOptions(sandbox=name, allow_unsafe=bool(extra), workers=2, fuzz_cases=2, timeout_s=20)
    report = bench.bench_sandbox(name, rows, samples, opts, repeats=1, log=lambda _m: None)
    assert report.disagreements == []
    assert report.verdicts.get("passed") == 1


@pytest.mark.docker
@pytest.mark.slow
def test_docker_baseline_is_upstream_style_and_agrees_with_the_engine(demo_rows, tmp_path):
    """The Docker baseline keeps long-lived containers (one per worker, as upstream's workers do),
    starts a fresh interpreter per case, and reaches the engine's verdicts."""
    from biocoder_metric.execute import run_evaluation
    from biocoder_metric.naive import evaluate_naive

    from reliability_support import docker_reason

    reason = docker_reason()
    if reason:
        pytest.skip(reason)
    rows = [demo_rows[t] for t in ("demo_py_gc_content", "demo_py_hamming")]
    samples = bench.make_samples(rows, 3, golden_every=2)
    opts = EvalOptions(sandbox="docker", workers=2, fuzz_cases=2, golden_cache_dir=str(tmp_path / "g"))
    backend = make_naive_backend("docker", workers=2, timeout_s=30)
    try:
        for _ in range(5):
            out = backend.run_case("python", "import os\nprint(os.getpid())\n")
            assert out.status == "ok" and out.returncode == 0
        assert backend.containers_started == 1  # reused, not one container per case
    finally:
        backend.close()
    naive = {(r["task_id"], r["sample_index"]): r["status"] for r in evaluate_naive(rows, samples, opts)}
    engine = run_evaluation(rows, samples, opts, progress=False)
    assert naive == {(r.task_id, r.sample_index): r.status for r in engine.results}
    assert {"failed", "passed"} <= set(naive.values())
