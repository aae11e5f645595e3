"""``biocoder generate`` / ``run`` on a tiny random model: file format, resume, sharding, then evaluate.

The commands run as real subprocesses (``python -m biocoder_metric``), the way users and
``accelerate launch -m biocoder_metric`` start them; the candidates are judged by the real
engine in the safest sandbox available here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from biocoder_metric.generation.generate import existing_counts, meta_path, shard_path, shard_paths
from biocoder_metric.samples import read_generated as read_samples
from biocoder_metric.types import SAMPLES_SCHEMA_VERSION, Status

from tiny_model import REPO_ROOT, build_tiny_model, sandbox_env, write_models_file

PY_TASKS = "demo_py_gc_content,demo_py_hamming,demo_py_revcomp"


@pytest.fixture(scope="module")
def models_file(tmp_path_factory) -> Path:
    model = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    return write_models_file(tmp_path_factory.mktemp("models") / "models.yaml", model, max_new_tokens=8)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    return sandbox_env(tmp_path_factory.mktemp("golden-cache"))


def _biocoder(
    *args: str, env: dict[str, str] | None = None, launcher: list[str] | None = None
) -> subprocess.CompletedProcess:
    cmd = [*(launcher or [sys.executable, "-m"]), "biocoder_metric", *args]
    full_env = {**os.environ, **(env or {}), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=full_env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return proc


def _generate(models_file: Path, out: Path, *extra: str, launcher: list[str] | None = None) -> dict:
    _biocoder(
        "generate",
        "--model",
        "tiny",
        "--models-file",
        str(models_file),
        "--config",
        "demo",
        "--out",
        str(out),
        "--no-progress",
        *extra,
        launcher=launcher,
    )
    return json.loads(meta_path(out).read_text(encoding="utf-8"))


def test_generate_writes_the_samples_contract_and_metadata(models_file, tmp_path):
    out = tmp_path / "samples.jsonl"
    meta = _generate(models_file, out, "--task-ids", PY_TASKS, "--n-samples", "2")
    records = read_samples(out)
    assert [(r["task_id"], r["sample_index"]) for r in records] == [
        (t, i) for t in PY_TASKS.split(",") for i in (0, 1)
    ]
    for r in records:
        assert set(r) == {"task_id", "sample_index", "completion", "raw", "schema", "time_cost", "n_tokens"}
        assert r["schema"] == SAMPLES_SCHEMA_VERSION
        fn = {
            "demo_py_gc_content": "gc_content",
            "demo_py_hamming": "hamming_distance",
            "demo_py_revcomp": "reverse_complement",
        }[r["task_id"]]
        assert f"def {fn}(" in r["completion"], r  # the header is put back in front of the raw body
        assert r["raw"], "the raw generation is kept for audit"
    assert meta["complete"] and meta["samples_in_file"] == 6 and meta["n_samples"] == 2
    assert meta["model"]["model"] == "tiny" and meta["model"]["decode_mode"] == "greedy"
    assert meta["model"]["generation_config"]["max_new_tokens"] == 8
    run = meta["runs"][-1]
    assert run["samples"] == 6 and run["tasks"] == 3 and run["num_processes"] == 1
    assert 0 < run["generated_tokens"] <= 3 * 8  # greedy: one real generation per task, copies are free
    assert run["generation_s"] > 0 and run["tokens_per_s"] > 0 and run["avg_generation_s_per_task"] > 0
    assert meta["totals"]["generated_tokens"] == run["generated_tokens"]


@pytest.fixture(scope="module")
def processor(models_file):
    from biocoder_metric.generation.processors import make_processor
    from biocoder_metric.generation.processors.registry import resolve_model

    proc = make_processor(resolve_model("tiny", models_file))
    proc.load_model_tokenizer()
    return proc


def _py_problems() -> list[dict]:
    from biocoder_dataset.configs import load_problems

    wanted = PY_TASKS.split(",")
    return [r for r in load_problems("demo") if r["task_id"] in wanted]


def test_generate_resumes_and_repairs_an_interrupted_file(processor, tmp_path):
    from biocoder_metric.generation.generate import generate_samples

    out = tmp_path / "samples.jsonl"
    problems = _py_problems()
    generate_samples(problems[:2], processor, out, n_samples=1, batch_size=2, progress=False)
    assert existing_counts(out) == {"demo_py_gc_content": 1, "demo_py_hamming": 1}
    with out.open("a", encoding="utf-8") as fh:  # a write cut short by a crash
        fh.write('{"task_id": "demo_py_revcomp", "sample_in')
    # an interrupted two-process run left a shard behind
    shard = shard_path(out, 1)
    shard.write_text(
        json.dumps(
            {
                "task_id": "demo_py_revcomp",
                "sample_index": 0,
                "completion": "x",
                "raw": "x",
                "schema": SAMPLES_SCHEMA_VERSION,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    meta = generate_samples(problems, processor, out, n_samples=2, batch_size=2, progress=False)
    assert meta["runs"][-1]["samples"] == 3  # 6 wanted - 2 present - 1 in the shard
    assert len(meta["runs"]) == 2 and meta["complete"]
    assert existing_counts(out) == {t: 2 for t in PY_TASKS.split(",")}
    assert not shard_paths(out), "shards are merged into the final file and removed"
    indices = [(r["task_id"], r["sample_index"]) for r in read_samples(out)]
    assert len(indices) == len(set(indices)) == 6
    again = generate_samples(problems, processor, out, n_samples=2, progress=False)
    assert again["runs"][-1]["samples"] == 0
    fresh = generate_samples(problems[:1], processor, out, n_samples=1, overwrite=True, progress=False)
    assert fresh["samples_in_file"] == 1 and len(fresh["runs"]) == 1


def test_a_corrupt_line_in_the_middle_is_an_error_naming_it(tmp_path):
    out = tmp_path / "samples.jsonl"
    out.write_text(
        '{"task_id": "a", "sample_index": 0, "completion": "x"}\nnot json\n'
        '{"task_id": "a", "sample_index": 1, "completion": "y"}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=rf"{out}:2: not valid JSON"):
        read_samples(out)


def test_generate_then_evaluate_end_to_end(models_file, env, tmp_path):
    samples = tmp_path / "samples.jsonl"
    _generate(
        models_file,
        samples,
        "--task-ids",
        PY_TASKS + ",demo_rosalind_dna",
        "--n-samples",
        "2",
        "--decode-mode",
        "sampling",
    )
    out = tmp_path / "eval"
    sandbox = ["--sandbox", env["BIOCODER_SANDBOX"]] + (
        ["--allow-unsafe"] if env["BIOCODER_SANDBOX"] == "none" else []
    )
    _biocoder(
        "evaluate",
        "--samples",
        str(samples),
        "--config",
        "demo",
        "--out",
        str(out),
        "--k",
        "1,2",
        "--fuzz-cases",
        "3",
        "--no-progress",
        "--task-ids",
        PY_TASKS + ",demo_rosalind_dna",
        *sandbox,
        env=env,
    )
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["k"] == [1, 2] and summary["tasks"]["scored"] == 4 and summary["samples"]["total"] == 8
    assert 0.0 <= summary["pass@1"] <= 1.0
    results = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(results) == 8
    assert all(
        r["status"] in tuple(Status) and r["status"] != Status.SANDBOX_ERROR and r["cases_total"] >= 1
        for r in results
    )


def test_biocoder_run_generates_evaluates_and_summarises(models_file, env, tmp_path):
    sandbox = ["--sandbox", env["BIOCODER_SANDBOX"]] + (
        ["--allow-unsafe"] if env["BIOCODER_SANDBOX"] == "none" else []
    )
    proc = _biocoder(
        "run",
        "--model",
        "tiny",
        "--models-file",
        str(models_file),
        "--config",
        "demo",
        "--task-ids",
        "demo_py_gc_content,demo_rosalind_fib",
        "--out",
        str(tmp_path / "run"),
        "--k",
        "1",
        "--fuzz-cases",
        "2",
        "--no-progress",
        *sandbox,
        env=env,
    )
    assert "[1/2] generating" in proc.stderr and "[2/2] evaluating" in proc.stderr
    assert "pass@1" in proc.stdout
    for name in ("samples.jsonl", "samples.meta.json", "results.jsonl", "summary.json", "run.json"):
        assert (tmp_path / "run" / name).is_file(), name
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["samples"]["total"] == 2


@pytest.mark.slow
def test_accelerate_launch_shards_tasks_and_gathers_one_file(models_file, tmp_path):
    """Two processes split the tasks; the main process writes the one file and the metadata."""
    out = tmp_path / "samples.jsonl"
    launcher = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",
        "--num_processes",
        "2",
        "-m",
    ]
    meta = _generate(
        models_file, out, "--task-ids", PY_TASKS + ",demo_py_motif", "--n-samples", "2", launcher=launcher
    )
    run = meta["runs"][-1]
    assert run["num_processes"] == 2
    assert sorted(p["rank"] for p in run["per_process"]) == [0, 1]
    assert [p["tasks"] for p in sorted(run["per_process"], key=lambda p: p["rank"])] == [2, 2]
    assert existing_counts(out) == {t: 2 for t in (PY_TASKS + ",demo_py_motif").split(",")}
    assert not shard_paths(out) and not list(tmp_path.glob("*.stats.json"))
    from biocoder_dataset.configs import load_problems

    wanted = set((PY_TASKS + ",demo_py_motif").split(","))
    config_order = [r["task_id"] for r in load_problems("demo") if r["task_id"] in wanted]
    assert [r["task_id"] for r in read_samples(out)] == [t for t in config_order for _ in (0, 1)]
