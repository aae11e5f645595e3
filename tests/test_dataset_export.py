"""Export -> load_dataset round trip for every config, the card, atomic writes, the builder, the CLI."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import datasets
import pytest
import yaml

from biocoder_dataset.builder import BiocoderBuilder
from biocoder_dataset.configs import load_problems
from biocoder_dataset.errors import ChecksumError, DatasetError, UnknownConfigError
from biocoder_dataset.export import PARQUET_NAME, check_export_folder, export, push
from biocoder_dataset.schema import COLUMNS, CONFIGS, features
from biocoder_metric.cli import UsageError
from biocoder_metric.cli import data as cli_data

from _dataset_helpers import DEMO_LIKE, mirror, replace_file

#: (rows, executable with upstream's own harness); synthesized harnesses come on top (shipped file).
EXPECTED = {
    "python_public": (157, 79),
    "python_hidden": (1026, 0),
    "python_similar": (157, 0),
    "java_public": (50, 0),
    "java_hidden": (1243, 0),
    "java_similar": (50, 0),
    "rosalind": (253, 253),
}


def shipped(config: str) -> int:
    """Synthesized harnesses shipped for ``config`` (biocoder_dataset/synth/harnesses-v1.jsonl)."""
    from biocoder_dataset.synth_harnesses import SHIPPED_FILE

    lines = SHIPPED_FILE.read_text(encoding="utf-8").splitlines()
    return sum(json.loads(ln)["config"] == config for ln in lines if ln.strip())


@pytest.fixture(scope="session")
def full_export(upstream_dir, tmp_path_factory):
    """Every config exported once per session (about 10 s)."""
    out = tmp_path_factory.mktemp("export") / "biocoder"
    result = export(out, source_dir=upstream_dir)
    return out, result


def _load(out: Path, config: str) -> datasets.Dataset:
    return datasets.load_dataset(str(out), config, split="test", cache_dir=str(out.parent / "hf-cache"))


@pytest.mark.upstream
@pytest.mark.parametrize("config", CONFIGS)
def test_round_trip_through_load_dataset(full_export, upstream_dir, config):
    out, result = full_export
    ds = _load(out, config)
    assert ds.features == features()
    rows = load_problems(config, upstream_dir)
    assert ds.num_rows == len(rows) == result.counts[config]["rows"]
    assert ds.to_list() == rows  # every column, every value, nulls included
    if config in EXPECTED:
        n, upstream = EXPECTED[config]
        synthesized = sum(h == "synthesized" for h in ds["harness_source"])
        assert synthesized == shipped(config)
        assert (ds.num_rows, sum(ds["executable"])) == (n, upstream + synthesized)
    print(
        f"\nload_dataset(export, {config!r}): {ds.num_rows} rows, {sum(ds['executable'])} executable, "
        f"kinds {result.counts[config]['kinds']}"
    )


@pytest.mark.upstream
def test_export_counts_and_special_columns(full_export):
    out, _ = full_export
    rosalind = _load(out, "rosalind")
    assert all(r["test_input"] and r["expected_output"] for r in rosalind)
    pp = _load(out, "python_public")
    golden_only = pp.filter(lambda r: r["kind"] == "golden_only")
    assert golden_only.num_rows == 78 - shipped("python_public") and not any(golden_only["executable"])
    assert all(golden_only["not_executable_reason"])
    assert len(_load(out, "demo")) >= 1


@pytest.mark.upstream
def test_card_front_matter_lists_configs_features_and_counts_from_the_files(full_export):
    out, result = full_export
    text = (out / "README.md").read_text()
    assert text.startswith("---\n")
    meta = yaml.safe_load(text[4 : text.index("\n---\n", 4)])
    assert [c["config_name"] for c in meta["configs"]] == list(CONFIGS)
    for c in meta["configs"]:
        assert c["data_files"] == [{"split": "test", "path": f"{c['config_name']}/{PARQUET_NAME}"}]
    info = {d["config_name"]: d for d in meta["dataset_info"]}
    for config in CONFIGS:
        assert info[config]["splits"][0]["num_examples"] == result.counts[config]["rows"]
        assert [f["name"] for f in info[config]["features"]] == list(COLUMNS)
    assert meta["license"] and meta["task_categories"] == ["text-generation"]
    assert "&id" not in text  # no YAML anchors
    assert f"| `python_public` | 157 | {79 + shipped('python_public')} |" in text
    assert "69 by text" in text and "10 by function name" in text
    assert check_export_folder(out) == list(CONFIGS)


def test_export_demo_only_and_load_without_upstream(tmp_path):
    out = tmp_path / "demo_export"
    result = export(out, configs="demo", demo_dir=DEMO_LIKE)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "demo"]
    ds = datasets.load_dataset(str(out), "demo", split="test", cache_dir=str(tmp_path / "hf-cache"))
    assert ds["task_id"] == ["demo_py_double", "demo_rosalind_count"]
    assert result.counts["demo"]["executable"] == 2


def test_export_refuses_a_non_empty_folder_unless_overwrite(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("user data")
    with pytest.raises(DatasetError, match="already exists and is not empty"):
        export(out, configs="demo", demo_dir=DEMO_LIKE)
    assert (out / "keep.txt").read_text() == "user data"
    export(out, configs="demo", demo_dir=DEMO_LIKE, overwrite=True)
    assert not (out / "keep.txt").exists() and (out / "demo" / PARQUET_NAME).is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temp folders left behind


@pytest.mark.upstream
def test_failed_export_leaves_nothing_behind(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src")
    replace_file(src, "github-d1c922e/java_hidden.json", b"{}")
    dest = tmp_path / "exports"
    dest.mkdir()
    with pytest.raises(ChecksumError, match="java_hidden.json"):
        export(dest / "out", configs="demo,java_public,java_hidden", source_dir=src)
    assert list(dest.iterdir()) == []  # neither the destination nor a partial temp folder


def test_export_unknown_config():
    with pytest.raises(UnknownConfigError, match="valid configs: python_public"):
        export("/tmp/never-written", configs="demo,nope")


@pytest.mark.upstream
def test_builder_class_download_and_prepare(upstream_dir, tmp_path):
    builder = BiocoderBuilder(
        config_name="java_similar", source_dir=upstream_dir, cache_dir=str(tmp_path / "cache")
    )
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    assert ds.num_rows == 50 and ds.features == features()
    assert ds.to_list() == load_problems("java_similar", upstream_dir)
    assert {c.name for c in BiocoderBuilder.BUILDER_CONFIGS} == set(CONFIGS)


def test_builder_demo_config(tmp_path):
    builder = BiocoderBuilder(config_name="demo", cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    assert builder.as_dataset(split="test").to_list() == load_problems("demo")


# -- CLI ------------------------------------------------------------------------------------------
def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="biocoder")
    cli_data.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_data_export_demo(tmp_path, capsys, monkeypatch):
    out = tmp_path / "cli_out"
    assert _run_cli(["data", "export", "--out", str(out), "--configs", "demo"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["configs"]["demo"]["rows"] == len(load_problems("demo"))
    assert check_export_folder(out) == ["demo"]


def test_cli_errors_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="unknown config"):
        _run_cli(["data", "export", "--out", str(tmp_path / "x"), "--configs", "bogus"])
    with pytest.raises(UsageError, match="does not exist"):
        _run_cli(
            [
                "data",
                "export",
                "--out",
                str(tmp_path / "y"),
                "--configs",
                "rosalind",
                "--source-dir",
                str(tmp_path / "nope"),
            ]
        )
    with pytest.raises(UsageError, match="README.md is missing"):
        _run_cli(["data", "push", "--repo-id", "org/name", "--folder", str(tmp_path)])


def test_push_checks_folder_and_repo_id_before_any_network(tmp_path):
    out = tmp_path / "out"
    export(out, configs="demo", demo_dir=DEMO_LIKE)
    with pytest.raises(DatasetError, match="ORG/NAME"):
        push(out, "no-slash")
    (out / "demo" / PARQUET_NAME).unlink()
    with pytest.raises(DatasetError, match="demo/test-00000-of-00001.parquet is missing"):
        push(out, "org/name")
