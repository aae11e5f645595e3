"""Source registry: pins match the real upstream files; missing/damaged files give clear errors."""

from __future__ import annotations

import re

import pytest

from biocoder_dataset.configs import load_problems
from biocoder_dataset.errors import ChecksumError, RecordError, SourceFileError
from biocoder_dataset.sources import (
    REGISTRY,
    SourceResolver,
    all_sources,
    rosalind_testcase,
    sha256_file,
)

from _dataset_helpers import SYNTHETIC_SRC, mirror, replace_file

pytestmark = pytest.mark.upstream


def test_every_pinned_file_matches_the_upstream_copy(upstream_dir):
    pinned = [e for e in all_sources() if e.sha256]
    # 10 JSON files + input/solution of each Rosalind problem; python-harness/tasks is verified per record
    # (its real file's checksum was never computed here), the Hub files against the Hub's own sha256.
    assert len(pinned) == 10 + 2 * 253
    assert REGISTRY["python-harness/tasks"].sha256 is None
    for entry in pinned:
        path = upstream_dir / entry.local_path
        assert path.is_file(), entry.local_path
        assert sha256_file(path) == entry.sha256, entry.name


def test_registry_urls_point_at_the_pinned_revisions():
    head = REGISTRY["github-head/java_public"]
    assert head.url == (
        "https://raw.githubusercontent.com/gersteinlab/BioCoder/"
        "4f597e098198cf10574d10e59c975d1c15d82370/datasets/java_public.json"
    )
    assert "d1c922edba233dfa42b84ca06896f3d24ea7dd30" in REGISTRY["github-d1c922e/python_hidden"].url
    assert (
        "joe1chief/adapters/479ef7cb81f20162488f474fa5133a26ab137a93/src/biocoder"
        in REGISTRY["python-harness/tasks"].url
    )
    hub = REGISTRY["hf-biocoder_public/biocoder"]
    assert hub.sha256 is None and hub.optional
    assert hub.url.endswith(
        "lilbillbiscuit/biocoder_public/resolve/07a39549d6f6145f72954f15da205f55ae33f6f6/biocoder.json"
    )
    tc = rosalind_testcase("2sum", solution=True)
    assert tc.local_path == "rosalind-testcases/rosalind_2sumsol.txt"
    assert tc.url.endswith("/evaluation/TestRosalind/testcases/rosalind_2sumsol.txt")


def test_missing_file_names_the_file_and_where_it_was_expected(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src", skip=("github-d1c922e/python_hidden.json",))
    with pytest.raises(SourceFileError) as err:
        load_problems("python_hidden", src)
    msg = str(err.value)
    assert "python_hidden.json" in msg and "missing" in msg and "github-d1c922e/python_hidden.json" in msg


def test_missing_source_dir_is_reported():
    with pytest.raises(SourceFileError, match="does-not-exist"):
        load_problems("java_public", "/nonexistent/does-not-exist")


def test_truncated_file_fails_its_checksum_with_both_digests(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src")
    original = (upstream_dir / "github-head/java_public.json").read_bytes()
    bad = replace_file(src, "github-head/java_public.json", original[: len(original) // 2])
    with pytest.raises(ChecksumError) as err:
        load_problems("java_public", src)
    msg = str(err.value)
    assert str(bad) in msg
    assert REGISTRY["github-head/java_public"].sha256 in msg  # expected
    assert sha256_file(bad) in msg  # actual


def test_truncated_file_without_checksums_is_a_json_error_naming_the_file(
    upstream_dir, tmp_path, monkeypatch
):
    src = mirror(upstream_dir, tmp_path / "src")
    original = (upstream_dir / "github-head/java_public.json").read_bytes()
    replace_file(src, "github-head/java_public.json", original[:5000])
    monkeypatch.setenv("BIOCODER_SKIP_CHECKSUM", "1")
    with pytest.raises(RecordError, match=r"java_public\.json.*not valid JSON.*truncated"):
        load_problems("java_public", src)


def test_corrupted_byte_fails_the_checksum(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src")
    data = bytearray((upstream_dir / "github-d1c922e/python_similar.json").read_bytes())
    data[1000] = ord("#") if data[1000] != ord("#") else ord("%")
    replace_file(src, "github-d1c922e/python_similar.json", bytes(data))
    with pytest.raises(ChecksumError, match=r"python_similar\.json: sha256 mismatch .*expected a66831df"):
        load_problems("python_similar", src)


def test_corrupted_rosalind_test_file_is_caught(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src")
    replace_file(src, "rosalind-testcases/rosalind_2sumsol.txt", b"wrong answer\n")
    with pytest.raises(ChecksumError, match=r"rosalind_2sumsol\.txt"):
        load_problems("rosalind", src)


def test_verify_false_accepts_a_changed_file(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src")
    replace_file(src, "rosalind-testcases/rosalind_2sumsol.txt", b"changed\n")
    rows = {r["task_id"]: r for r in load_problems("rosalind", src, verify=False)}
    assert rows["rosalind_2sum"]["expected_output"] == "changed\n"


def test_missing_rosalind_test_file_makes_that_task_not_executable(upstream_dir, tmp_path):
    src = mirror(upstream_dir, tmp_path / "src", skip=("rosalind-testcases/rosalind_rnas.txt",))
    rows = {r["task_id"]: r for r in load_problems("rosalind", src)}
    assert rows["rosalind_rnas"]["executable"] is False
    assert "rnas" in rows["rosalind_rnas"]["not_executable_reason"]
    assert rows["rosalind_rnas"]["test_input"] is None
    assert sum(r["executable"] for r in rows.values()) == 252


def test_env_var_source_dir_is_used(monkeypatch, upstream_dir):
    monkeypatch.setenv("BIOCODER_SOURCE_DIR", str(upstream_dir))
    resolver = SourceResolver()
    assert resolver.offline and resolver.source_dir == upstream_dir
    assert len(load_problems("java_similar")) == 50


def test_optional_hub_files_absent_from_a_source_dir_are_skipped(upstream_dir):
    resolver = SourceResolver(upstream_dir)
    assert resolver.path(REGISTRY["hf-biocoder_public/biocoder"]) is None


def test_hub_files_in_a_source_dir_are_read_without_a_pin(tmp_path):
    resolver = SourceResolver(SYNTHETIC_SRC)
    path = resolver.path(REGISTRY["hf-biocoder_public/test_combined"])
    assert path is not None and re.search(r"hf-biocoder_public/test_combined\.json$", str(path))
