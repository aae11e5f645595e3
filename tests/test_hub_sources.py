"""Hub sources: the 13-field layout under either split name, Hub preferred over the adapters file,
and per-record verification where no checksum of the real file could be computed."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from biocoder_dataset.configs import build_config, load_problems
from biocoder_dataset.errors import SourceFileError
from biocoder_dataset.sources import REGISTRY, SourceResolver, verify_records

from _hub_helpers import SPLITS, hub_records, hub_source_dir


@pytest.mark.parametrize("split", SPLITS)
def test_13_field_hub_records_become_harness_tasks_under_either_split_name(tmp_path, split):
    src = hub_source_dir(tmp_path, split)
    recs = hub_records()
    py = {r["task_id"]: r for r in load_problems("python_public", src, verify=False)}
    java = {r["task_id"]: r for r in load_problems("java_public", src, verify=False)}
    py_id = "py_" + recs[0]["test_case_id"][:12]
    java_id = "java_" + recs[1]["test_case_id"][:12]
    assert py[py_id]["kind"] == "harness" and py[py_id]["executable"]
    assert (
        py[py_id]["context"] == recs[0]["contextCode"] and py[py_id]["golden_code"] == recs[0]["goldenCode"]
    )
    assert py[py_id]["source"].startswith("hf-biocoder_public/biocoder")
    assert py[py_id]["file_path"] == "skew/gc.py" and py[py_id]["line_start"] == 10
    assert java[java_id]["kind"] == "harness" and java[java_id]["function_name"] == "summarize"
    assert java[java_id]["repository"] == "acme/summary"  # upstream's "owner,name"
    assert "<<insert solution here>>" in java[java_id]["context"]
    assert py_id not in java and java_id not in py  # each language goes to its own config


def test_hub_record_is_preferred_and_the_adapters_copy_only_fills_in(tmp_path):
    rec = hub_records()[0]
    adapters = [
        {
            "task_id": "py_" + rec["test_case_id"][:12],
            "full_hash": rec["test_case_id"],
            "function_name": "gc_skew",
            "signature": "def gc_skew(seq, window)",
            "package_name": "skew.gc",
            "prompt": "#This is in python\n#Write gc_skew.\n#\n#def gc_skew(seq, window):",
            "context": rec["contextCode"].replace("range=20,60", "range=20,21"),  # an older harness
            "golden_code": rec["goldenCode"],
        }
    ]
    src = hub_source_dir(tmp_path, "train", adapters=adapters)
    build = build_config("python_public", src, verify=False)
    row = next(r for r in build.rows if r["task_id"] == adapters[0]["task_id"])
    assert row["context"] == rec["contextCode"], "the Hub's harness wins"
    meta = json.loads(row["metadata"])
    assert meta["also_in"] == ["python-harness/tasks"] and meta["package_name"] == "skew.gc"
    assert build.report["golden_match"]["duplicate_harness"] == 1


def test_adapters_file_is_the_fallback_without_hub_files(tmp_path):
    rec = hub_records()[0]
    adapters = [
        {
            "task_id": "py_" + rec["test_case_id"][:12],
            "full_hash": rec["test_case_id"],
            "function_name": "gc_skew",
            "context": rec["contextCode"],
            "golden_code": rec["goldenCode"],
        }
    ]
    src = hub_source_dir(tmp_path, "train", adapters=adapters)
    shutil.rmtree(src / "hf-biocoder_public")
    rows = {r["task_id"]: r for r in load_problems("python_public", src, verify=False)}
    assert rows[adapters[0]["task_id"]]["source"].startswith("python-harness/tasks")


# ---------------------------------------------------------------------------- per-record verification


def _hex(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def test_hub_records_are_verified_one_by_one():
    recs = hub_records()
    verify_records("hf-biocoder_public/biocoder", recs, "biocoder.json", complete=True)
    bad = [dict(recs[0], test_case_id="XYZ"), recs[1]]
    with pytest.raises(SourceFileError, match=r"biocoder.json record 0: field 'test_case_id' should be 64"):
        verify_records("hf-biocoder_public/biocoder", bad, "biocoder.json", complete=True)
    with pytest.raises(SourceFileError, match=r"record 1: test_case_id \w+ appears twice"):
        verify_records("hf-biocoder_public/biocoder", [recs[0], recs[0]], "biocoder.json", complete=True)
    with pytest.raises(
        SourceFileError, match=r"record 1 \(\w+\): field 'language' should be 'Python' or 'Java'"
    ):
        verify_records(
            "hf-biocoder_public/biocoder", [recs[0], dict(recs[1], language="Rust")], "x", complete=True
        )
    too_many = [dict(recs[1], test_case_id=_hex(i)) for i in range(51)]
    with pytest.raises(SourceFileError, match="51 java records, more than the 50 tasks of the public set"):
        verify_records("hf-biocoder_public/biocoder", too_many, "x", complete=True)


def _adapters(n: int) -> list[dict]:
    return [{"task_id": f"py_{_hex(i)[:12]}", "full_hash": _hex(i)} for i in range(n)]


def test_adapters_records_are_verified_and_a_download_must_be_complete():
    verify_records("python-harness/tasks", _adapters(79), "tasks.json", complete=False)
    verify_records("python-harness/tasks", _adapters(157), "tasks.json", complete=True)
    with pytest.raises(SourceFileError, match="79 records; the upstream file at 479ef7cb81f2 holds 157"):
        verify_records("python-harness/tasks", _adapters(79), "tasks.json", complete=True)
    with pytest.raises(SourceFileError, match="158 records"):
        verify_records("python-harness/tasks", _adapters(158), "tasks.json", complete=False)
    wrong = _adapters(2)
    wrong[1]["task_id"] = "py_000000000000"
    with pytest.raises(SourceFileError, match=r"record 1: field 'task_id' should be 'py_"):
        verify_records("python-harness/tasks", wrong, "tasks.json", complete=False)


@pytest.mark.upstream
def test_real_adapters_copy_passes_record_checks_but_is_not_the_whole_file(upstream_dir):
    records = json.loads((upstream_dir / "python-harness/tasks.json").read_text(encoding="utf-8"))
    verify_records("python-harness/tasks", records, "tasks.json", complete=False)
    with pytest.raises(SourceFileError, match="79 records"):
        verify_records("python-harness/tasks", records, "tasks.json", complete=True)


def test_no_checksum_is_pinned_for_the_adapters_file_and_a_cached_download_is_not_refused(tmp_path):
    """The network path: a downloaded (here: pre-cached) adapters file is used without a checksum
    that could not have been computed, and checked per record instead."""
    entry = REGISTRY["python-harness/tasks"]
    assert entry.sha256 is None
    res = SourceResolver(cache_dir=tmp_path, verify=True)
    target = tmp_path / entry.repo.replace("/", "__") / entry.revision / entry.path
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(_adapters(157)), encoding="utf-8")
    assert res.path(entry) == target  # no ChecksumError


def test_an_unreachable_optional_hub_file_is_skipped_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no network at test time: the Hub client fails at once
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    res = SourceResolver(cache_dir=tmp_path, verify=True)
    assert res.path(REGISTRY["hf-biocoder_public/biocoder"]) is None
    assert res.skipped == ["hf-biocoder_public/biocoder"]
