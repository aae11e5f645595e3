"""Generation timing (CodeFuseEval's names) and upstream inference option names, carried into the report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tiny_model import REPO_ROOT, build_tiny_model, write_models_file

pytest.importorskip("transformers", reason="extra 'generation' not installed")
pytest.importorskip("matplotlib", reason="extra 'metrics' (matplotlib) not installed")


@pytest.fixture(scope="module")
def models_file(tmp_path_factory) -> Path:
    model = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    return write_models_file(tmp_path_factory.mktemp("models") / "models.yaml", model, max_new_tokens=8)


def _biocoder(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "BIOCODER_CACHE_DIR": str(cache),
    }
    return subprocess.run(
        [sys.executable, "-m", "biocoder_metric", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")
def test_upstream_option_names_timing_and_report(models_file, tmp_path) -> None:
    run = tmp_path / "run"
    tasks = "demo_py_gc_content,demo_rosalind_dna"
    proc = _biocoder(
        "run",
        "--model",
        "tiny",
        "--models-file",
        str(models_file),
        "--config",
        "demo",
        "--task-ids",
        tasks,
        "--PROMPT_AMOUNT",
        "2",
        "--max_generation",
        "6",
        "--use_summary_only",
        "--max_length",
        "200",
        "--out",
        str(run),
        "--sandbox",
        "bwrap",
        "--k",
        "1,2",
        "--fuzz-cases",
        "2",
        "--no-progress",
        cache=tmp_path / "c",
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    meta = json.loads((run / "samples.meta.json").read_text())
    model = meta["model"]
    assert model["n_samples"] == 2 and model["prompt_style"] == "summary_only"
    assert model["generation_config"]["max_new_tokens"] == 6
    assert model["generation_config"]["max_input_tokens"] == 200 - 6 - 128  # upstream's prompt budget
    totals = meta["totals"]
    assert totals["total_time_cost"] == totals["generation_s"] > 0
    assert totals["average_time_cost"] == pytest.approx(totals["generation_s"] / 2, abs=1e-3)  # 2 tasks
    assert totals["average_time_cost_per_sample"] == pytest.approx(totals["generation_s"] / 4, abs=1e-3)
    lines = [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and all(x["time_cost"] > 0 for x in lines)
    assert sum(x["n_tokens"] for x in lines) == totals["generated_tokens"]  # the processor's own count
    assert sum(x["time_cost"] for x in lines) == pytest.approx(totals["generation_s"], rel=0.05, abs=0.01)

    rep = _biocoder(
        "report", str(run), "--out", str(tmp_path / "rep"), "--n-boot", "200", cache=tmp_path / "c"
    )
    assert rep.returncode == 0, rep.stderr[-3000:]
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    gen = data["generation"][data["runs"][0]["name"]]
    assert (
        gen["total_time_cost"] == totals["total_time_cost"] and gen["tokens_per_s"] == totals["tokens_per_s"]
    )
    assert 'id="table-generation"' in (tmp_path / "rep" / "report.html").read_text()

    too_small = _biocoder(
        "generate",
        "--model",
        "tiny",
        "--models-file",
        str(models_file),
        "--config",
        "demo",
        "--max_length",
        "100",
        "--out",
        str(tmp_path / "x.jsonl"),
        cache=tmp_path / "c",
    )
    assert too_small.returncode == 2 and "--max_length 100 leaves no room" in too_small.stderr


def test_max_length_budget_reaches_the_processor(models_file) -> None:
    from biocoder_metric.generation.processors import make_processor
    from biocoder_metric.generation.processors.registry import resolve_model

    spec = resolve_model("tiny", models_file)
    spec.generation["max_input_tokens"] = 40
    proc = make_processor(spec)
    proc.load_model_tokenizer()
    assert proc.max_input_tokens == 40
    assert "max_input_tokens" not in proc.generate_kwargs(1)  # never passed on to model.generate
