"""``biocoder push``: the bundle built from a real evaluation run, and no network on --dry-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from biocoder_metric.reporting.hub import PARQUET_PATH, PushError, build_bundle, load_run, model_index_yaml

from tiny_model import REPO_ROOT, sandbox_env

#: Points every Hub call at a closed port: any network access on a dry run would fail loudly.
NO_NETWORK = {"HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9"}


def _biocoder(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "biocoder_metric", *args],
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A real evaluation of 3 demo tasks: two golden answers, one wrong answer."""
    from biocoder_dataset.configs import load_problems

    rows = {r["task_id"]: r for r in load_problems("demo")}
    tmp = tmp_path_factory.mktemp("run")
    samples = tmp / "samples.jsonl"
    lines = [
        {"task_id": "demo_py_gc_content", "completion": rows["demo_py_gc_content"]["golden_code"]},
        {"task_id": "demo_rosalind_dna", "completion": rows["demo_rosalind_dna"]["golden_code"]},
        {"task_id": "demo_py_hamming", "completion": "def hamming_distance(a, b):\n    return -1\n"},
    ]
    samples.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    env = sandbox_env(tmp / "cache")
    sandbox = ["--sandbox", env["BIOCODER_SANDBOX"]] + (
        ["--allow-unsafe"] if env["BIOCODER_SANDBOX"] == "none" else []
    )
    out = tmp / "eval"
    proc = _biocoder(
        "evaluate",
        "--samples",
        str(samples),
        "--config",
        "demo",
        "--out",
        str(out),
        "--k",
        "1,5",
        "--fuzz-cases",
        "3",
        "--no-progress",
        "--task-ids",
        ",".join(x["task_id"] for x in lines),
        *sandbox,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def test_dry_run_writes_the_bundle_and_touches_no_network(run_dir, tmp_path):
    bundle = tmp_path / "bundle"
    proc = _biocoder(
        "push",
        "--results",
        str(run_dir),
        "--repo-id",
        "someone/biocoder-demo-results",
        "--dry-run",
        "--bundle-dir",
        str(bundle),
        "--model-name",
        "org/some-model",
        env=NO_NETWORK,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "nothing uploaded" in proc.stderr
    files = sorted(str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file())
    core = sorted(f for f in files if "/" not in f or f == PARQUET_PATH)
    assert core == sorted(
        [
            "README.md",
            PARQUET_PATH,
            "model-index.yaml",
            "results.jsonl",
            "run.json",
            "summary.json",
            "timing.json",
        ]
    )
    assert [
        f for f in files if f.startswith("org__some-model/")
    ] and "report/report.html" in files  # lm-eval layout, report

    # the printed block is the model-index of the evaluated model, values in percent
    printed = yaml.safe_load(proc.stdout.split("\n", 2)[2])
    assert printed == yaml.safe_load((bundle / "model-index.yaml").read_text(encoding="utf-8"))
    entry = printed["model-index"][0]
    assert entry["name"] == "org/some-model"
    metrics = {m["type"]: m["value"] for r in entry["results"] for m in r["metrics"]}
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert metrics == {"pass@1": round(100 * summary["pass@1"], 2)}  # pass@5 is not estimable from 1 sample
    assert metrics["pass@1"] == pytest.approx(200 / 3, abs=0.01)  # 2 of 3 tasks pass
    assert entry["results"][0]["dataset"]["config"] == "demo"

    # the card declares the results config, and the Parquet behind it loads with datasets
    card = (bundle / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---")[1])
    assert front["configs"][0]["data_files"][0] == {"split": "test", "path": PARQUET_PATH}
    assert "| all | 3 |" in card and "model-index:" in card
    import datasets

    ds = datasets.load_dataset("parquet", data_files={"test": str(bundle / PARQUET_PATH)}, split="test")
    assert ds.num_rows == 3
    assert sorted(ds["status"]) == ["failed", "passed", "passed"]


def test_default_dry_run_bundle_is_rebuilt_inside_the_run(run_dir):
    for _ in range(2):  # a second dry run replaces the first bundle instead of failing
        proc = _biocoder("push", "--results", str(run_dir), "--repo-id", "a/b", "--dry-run", env=NO_NETWORK)
        assert proc.returncode == 0, proc.stderr[-3000:]
    assert (run_dir / "hub-bundle" / "README.md").is_file()


def test_a_real_push_does_go_to_the_network(run_dir, tmp_path):
    """Without --dry-run the upload is attempted (and fails here, offline) with a clear message."""
    proc = _biocoder(
        "push",
        "--results",
        str(run_dir),
        "--repo-id",
        "a/b",
        "--bundle-dir",
        str(tmp_path / "b"),
        env=NO_NETWORK,
    )
    assert proc.returncode == 1
    assert "upload to a/b failed" in proc.stderr and str(tmp_path / "b") in proc.stderr


def test_push_refuses_incomplete_runs_and_bad_ids(run_dir, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PushError, match="has no summary.json"):
        load_run(tmp_path / "empty")
    with pytest.raises(PushError, match="ORG/NAME"):
        build_bundle(run_dir, tmp_path / "x", repo_id="no-slash")
    proc = _biocoder(
        "push", "--results", str(tmp_path / "empty"), "--repo-id", "a/b", "--dry-run", env=NO_NETWORK
    )
    assert proc.returncode == 2 and "biocoder evaluate" in proc.stderr


def test_model_name_comes_from_the_generation_metadata(run_dir):
    run = load_run(run_dir)
    run["meta"] = {"model": {"model": "tiny", "path": "/nonexistent/local/ckpt"}, "config": "demo"}
    assert "name: tiny" in model_index_yaml(
        run, dataset_id="d/s", source_url=None
    )  # local path: registry name
    run["meta"]["model"]["path"] = "bigcode/starcoder2-3b"
    assert "name: bigcode/starcoder2-3b" in model_index_yaml(run, dataset_id="d/s", source_url=None)


def test_bundle_has_the_lm_eval_details_layout(run_dir, tmp_path):
    """The results/samples files are named and declared the way lm-eval's details repos are."""
    lm_utils = pytest.importorskip("lm_eval.utils", reason="lm-eval (extra 'generation') reads the layout")
    info = build_bundle(
        run_dir,
        tmp_path / "b",
        repo_id="o/r",
        model_name="org/some-model",
        date_id="2026-01-02T03-04-05.000006",
    )
    files = info["files"]
    assert lm_utils.get_results_filenames(files) == [
        "org__some-model/results_2026-01-02T03-04-05.000006.json"
    ]
    samples = lm_utils.get_sample_results_filenames(files)
    assert samples == ["org__some-model/samples_biocoder_demo_2026-01-02T03-04-05.000006.jsonl"]
    name = Path(samples[0]).name
    assert lm_utils.get_file_task_name(name) == "biocoder_demo"
    assert lm_utils.get_file_datetime(name) == "2026-01-02T03-04-05.000006"
    assert lm_utils.sanitize_model_name("org/some-model") == "org__some-model"

    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    agg = json.loads((tmp_path / "b" / lm_utils.get_results_filenames(files)[0]).read_text(encoding="utf-8"))
    scores = agg["results"]["biocoder_demo"]
    ci = summary["confidence_intervals"]["overall"]["pass@1"]
    assert scores["pass@1,none"] == summary["pass@1"] and scores["pass@1_stderr,none"] == ci["std_err"]
    assert (scores["pass@1_ci_low,none"], scores["pass@1_ci_high,none"]) == (ci["low"], ci["high"])
    lines = [json.loads(x) for x in (tmp_path / "b" / samples[0]).read_text(encoding="utf-8").splitlines()]
    assert (
        len(lines) == 3 and sum(x["passed"] for x in lines) == 2 and [x["doc_id"] for x in lines] == [0, 1, 2]
    )

    card = (tmp_path / "b" / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---")[1])
    configs = {c["config_name"]: c for c in front["configs"]}
    assert configs["org__some-model__results"]["data_files"] == [
        {
            "split": "2026_01_02T03_04_05.000006",
            "path": ["org__some-model/results_2026-01-02T03-04-05.000006.parquet"],
        },
        {"split": "latest", "path": ["org__some-model/results_2026-01-02T03-04-05.000006.parquet"]},
    ]
    assert "org__some-model__biocoder_demo" in configs and configs["results"]["default"] is True
    assert (
        f"**pass@1 = {100 * summary['pass@1']:.2f}%** (95% CI {100 * ci['low']:.2f} to {100 * ci['high']:.2f}"
        in card
    )
    import datasets

    ds = datasets.load_dataset("json", data_files=str(tmp_path / "b" / samples[0]), split="train")
    assert ds.num_rows == 3


def test_every_card_config_loads_with_plain_load_dataset_and_earlier_runs_stay(run_dir, tmp_path):
    """``load_dataset(folder, CONFIG)`` with no builder named, for every config of the card."""
    import datasets

    first = build_bundle(
        run_dir, tmp_path / "b1", repo_id="o/r", model_name="org/m", date_id="2026-01-02T03-04-05.000006"
    )
    second = build_bundle(
        run_dir,
        tmp_path / "b2",
        repo_id="o/r",
        model_name="org/m",
        date_id="2026-02-03T04-05-06.000007",
        previous=first["folder"],
    )
    assert "org__m/results_2026-01-02T03-04-05.000006.parquet" in second["files"]  # the earlier run is kept
    card = (tmp_path / "b2" / "README.md").read_text(encoding="utf-8")
    configs = {c["config_name"]: c for c in yaml.safe_load(card.split("---")[1])["configs"]}
    assert set(configs) == {"results", "org__m__results", "org__m__biocoder_demo"}
    splits = [f["split"] for f in configs["org__m__results"]["data_files"]]
    assert splits == ["2026_01_02T03_04_05.000006", "2026_02_03T04_05_06.000007", "latest"]
    for name, cfg in configs.items():
        for split in [f["split"] for f in cfg["data_files"]]:
            ds = datasets.load_dataset(
                str(tmp_path / "b2"), name, split=split, cache_dir=str(tmp_path / "hf-cache")
            )
            assert ds.num_rows >= 1, (name, split)
    latest = datasets.load_dataset(
        str(tmp_path / "b2"), "org__m__results", split="latest", cache_dir=str(tmp_path / "hf-cache")
    )
    assert latest[0]["date"] == "2026-02-03T04-05-06.000007"
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert latest[0]["pass@1,none"] == summary["pass@1"]
    samples = datasets.load_dataset(
        str(tmp_path / "b2"), "org__m__biocoder_demo", split="latest", cache_dir=str(tmp_path / "hf-cache")
    )
    assert samples.num_rows == 3 and sum(samples["passed"]) == 2


def test_model_name_falls_back_to_the_samples_own_field(run_dir, tmp_path):
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder)
    lines = (
        [json.loads(x) for x in (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
        if (folder / "samples.jsonl").is_file()
        else [{"task_id": "demo_py_gc_content", "completion": ""}]
    )
    (folder / "samples.jsonl").write_text(
        "".join(json.dumps({**x, "model": "org/from-samples"}) + "\n" for x in lines), encoding="utf-8"
    )
    info = build_bundle(folder, tmp_path / "b", repo_id="o/r", date_id="2026-01-02T03-04-05.000006")
    assert any(f.startswith("org__from-samples/") for f in info["files"])
