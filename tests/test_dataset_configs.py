"""load_problems: the rows of every config, from the real upstream files and from small fixtures."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from biocoder_dataset.configs import build_config, load_problem_index, load_problems
from biocoder_dataset.errors import RecordError, UnknownConfigError
from biocoder_dataset.schema import COLUMNS, CONFIGS, validate_row

from _dataset_helpers import DEMO_LIKE, SYNTHETIC_SRC, columns, write_json

EXPECTED_ROWS = {
    "python_public": 157,
    "python_hidden": 1026,
    "python_similar": 157,
    "java_public": 50,
    "java_hidden": 1243,
    "java_similar": 50,
    "rosalind": 253,
}


# -- fixtures only (no upstream data needed) ------------------------------------------------------
def test_unknown_config_lists_the_valid_ones():
    with pytest.raises(UnknownConfigError) as err:
        load_problems("python_private")
    msg = str(err.value)
    assert "'python_private'" in msg
    assert all(c in msg for c in CONFIGS)


def test_synthetic_python_public_merges_harnesses_and_goldens():
    build = build_config("python_public", SYNTHETIC_SRC, verify=False)
    rows = {r["task_id"]: r for r in build.rows}
    # Hub files first (preferred), the adapters file as fallback: Hub camelCase record (text match
    # despite layout), Hub snake_case records (one text match, one whose golden was edited: matched
    # by function name), one golden without harness; the adapters copy of py_aaaa only fills in
    assert list(rows) == [
        "py_bbbbbbbbbbbb",
        "py_aaaaaaaaaaaa",
        "py_dddddddddddd",
        "py_" + hashlib.sha256(b"def orphan(a):\n    return a").hexdigest()[:12],
    ]
    assert build.report["golden_match"] == {"text": 2, "function_name": 1, "duplicate_harness": 1}
    assert [r["kind"] for r in rows.values()] == ["harness", "harness", "harness", "golden_only"]
    double = rows["py_aaaaaaaaaaaa"]
    meta = json.loads(double["metadata"])
    assert meta["golden_match"] == "text" and meta["also_in"] == ["python-harness/tasks"]
    assert double["source"].startswith("hf-biocoder_public/test_combined")
    assert meta["summary"] == 'Write a function called "double" that doubles x.'  # from the adapters copy
    assert double["file_path"] == "toy/double.py"
    clip = json.loads(rows["py_dddddddddddd"]["metadata"])
    assert clip["golden_match"] == "function_name" and "params.HI" in clip["upstream_golden_code"]
    orphan = list(rows.values())[-1]
    assert orphan["executable"] is False and "no test harness" in orphan["not_executable_reason"]
    assert orphan["signature"] == "def orphan(a)" and orphan["function_name"] == "orphan"


def test_synthetic_java_public_gets_hub_harness_and_metadata():
    rows = load_problems("java_public", SYNTHETIC_SRC, verify=False)
    triple, zero = rows
    assert triple["task_id"] == "java_cccccccccccc" and triple["kind"] == "harness" and triple["executable"]
    assert triple["repository"] == "acme/toolkit"
    assert triple["file_path"] == "src/main/java/org/acme/MathUtil.java"
    assert (triple["line_start"], triple["line_end"]) == (13, 15)
    assert zero["kind"] == "golden_only" and zero["line_start"] == 20 and zero["function_name"] == "zero"
    meta = json.loads(zero["metadata"])
    assert meta["upstream_file_path"].startswith("/home/ubuntu/repos/acme,toolkit/")
    assert meta["package_name"] == "org.acme"


def _malformed_src(tmp_path, golden_records=None, harness_records=None):
    src = tmp_path / "src"
    shutil.copytree(SYNTHETIC_SRC, src)
    if golden_records is not None:
        write_json(src / "github-d1c922e/python_public.json", columns(golden_records))
    if harness_records is not None:
        write_json(src / "python-harness/tasks.json", harness_records)
    return src


def test_record_missing_golden_code_names_file_and_index(tmp_path):
    src = _malformed_src(
        tmp_path,
        golden_records=[{"golden": "def f():\n    return 1", "lines": 2}, {"golden": None, "lines": 3}],
    )
    with pytest.raises(
        RecordError,
        match=r"python_public\.json \(github-d1c922e/python_public\) record 1: "
        r"field 'golden/content' is missing",
    ):
        load_problems("python_public", src, verify=False)


def test_record_with_wrong_type_names_the_field(tmp_path):
    src = _malformed_src(tmp_path, golden_records=[{"golden": 12345}])
    with pytest.raises(RecordError, match=r"record 0: field 'golden/content' should be a string, got int"):
        load_problems("python_public", src, verify=False)


def test_harness_record_without_insertion_marker_names_the_task(tmp_path):
    task = json.loads((SYNTHETIC_SRC / "python-harness/tasks.json").read_text())[0]
    task["context"] = "print(1)\n"
    src = _malformed_src(tmp_path, harness_records=[task])
    with pytest.raises(
        RecordError,
        match=r"tasks\.json \(python-harness/tasks\) record 0 \(py_aaaaaaaaaaaa\): "
        r"field 'context' has no '<<insert solution here>>'",
    ):
        load_problems("python_public", src, verify=False)


def test_harness_record_with_bad_line_number_and_language(tmp_path):
    task = json.loads((SYNTHETIC_SRC / "python-harness/tasks.json").read_text())[0]
    src = _malformed_src(tmp_path, harness_records=[{**task, "line_start": "ten"}])
    with pytest.raises(
        RecordError, match=r"record 0 \(py_aaaaaaaaaaaa\): field 'line_start' should be an integer"
    ):
        load_problems("python_public", src, verify=False)
    src2 = _malformed_src(tmp_path / "b", harness_records=[{**task, "language": "cobol"}])
    with pytest.raises(RecordError, match=r"field 'language' should be Python or Java, got 'cobol'"):
        load_problems("python_public", src2, verify=False)


def test_demo_like_fixture_loads_with_the_demo_loader():
    rows = load_problems("demo", demo_dir=DEMO_LIKE)
    assert [r["task_id"] for r in rows] == ["demo_py_double", "demo_rosalind_count"]
    double, count = rows
    assert double["kind"] == "harness" and double["config"] == "demo" and double["source"] == "demo"
    assert "<<insert solution here>>" in double["context"] and double["executable"] is True
    assert json.loads(double["metadata"])["mutant_code"].startswith("def double")
    assert (
        count["kind"] == "rosalind"
        and count["test_input"] == "AACGTA\n"
        and count["expected_output"] == "3\n"
    )
    for i, r in enumerate(rows):
        validate_row(r, f"demo {i}")


def test_demo_task_with_bad_language_names_its_task_json(tmp_path):
    demo = tmp_path / "demo"
    shutil.copytree(DEMO_LIKE, demo)
    meta = json.loads((demo / "demo_py_double/task.json").read_text())
    (demo / "demo_py_double/task.json").write_text(json.dumps({**meta, "language": "perl"}))
    with pytest.raises(
        RecordError, match=r"demo_py_double/task\.json: field 'language' should be 'python' or 'java'"
    ):
        load_problems("demo", demo_dir=demo)


def test_demo_task_missing_its_golden_file(tmp_path):
    demo = tmp_path / "demo"
    shutil.copytree(DEMO_LIKE, demo)
    (demo / "demo_rosalind_count/output.txt").unlink()
    with pytest.raises(RecordError, match=r"demo_rosalind_count.*missing file output\.txt"):
        load_problems("demo", demo_dir=demo)


def test_packaged_demo_config_loads():
    rows = load_problems("demo")
    assert rows, "the packaged demo has no tasks"
    assert all(r["config"] == "demo" and r["executable"] and r["source"] == "demo" for r in rows)
    assert {r["language"] for r in rows} <= {"python", "java"}
    assert len({r["task_id"] for r in rows}) == len(rows)


# -- the real upstream files ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_builds(upstream_dir):
    return {c: build_config(c, upstream_dir) for c in EXPECTED_ROWS}


@pytest.mark.upstream
def test_real_configs_have_the_published_sizes(real_builds):
    print()
    for config, build in real_builds.items():
        print(f"{config:15s} rows={len(build.rows):5d} report={build.report}")
        assert len(build.rows) == EXPECTED_ROWS[config]
        assert len({r["task_id"] for r in build.rows}) == len(build.rows)
        for i, row in enumerate(build.rows):
            assert list(row) == list(COLUMNS)
            validate_row(row, f"{config} {i}")
            assert row["config"] == config


@pytest.mark.upstream
def test_real_python_public_keeps_the_79_harness_tasks(real_builds, upstream_dir):
    build = real_builds["python_public"]
    rows = build.rows
    harness = [r for r in rows if r["harness_source"] == "upstream"]
    assert len(harness) == 79 and all(r["executable"] for r in harness)
    synthesized = [r for r in rows if r["harness_source"] == "synthesized"]
    assert all(r["executable"] and r["kind"] == "harness" for r in synthesized)
    upstream_ids = {
        t["task_id"] for t in json.loads((upstream_dir / "python-harness/tasks.json").read_text())
    }
    assert {r["task_id"] for r in harness} == upstream_ids
    golden_only = [r for r in rows if r["kind"] == "golden_only"]
    assert len(golden_only) + len(synthesized) == 157 - 79
    assert all(not r["executable"] and r["not_executable_reason"] for r in golden_only)
    matches = build.report["golden_match"]
    print(f"\npython_public: harness tasks matched to goldens: {matches}")
    assert matches["text"] + matches["function_name"] == 79
    assert matches["text"] >= 60  # most goldens are byte-equal up to whitespace


@pytest.mark.upstream
def test_real_rosalind_rows_have_input_and_expected_output(real_builds):
    rows = {r["task_id"]: r for r in real_builds["rosalind"].rows}
    assert all(r["executable"] and r["test_input"] and r["expected_output"] for r in rows.values())
    two_sum = rows["rosalind_2sum"]
    assert two_sum["function_name"] == "solve" and two_sum["signature"] == "def solve(input_text: str) -> str"
    assert two_sum["golden_code"].startswith("# 2SUM\n\nfrom .helpers import ints")  # kept as upstream has it
    assert "2SUM" in two_sum["comment"] and "rosalind.info/problems/2sum" in two_sum["comment"]
    assert json.loads(two_sum["metadata"])["golden_defines_solve"] is False
    assert rows["rosalind_ba5n"]["executable"]  # the golden without a '# Title' line is still joined


@pytest.mark.upstream
def test_real_java_public_rows_carry_upstream_metadata(real_builds):
    row = real_builds["java_public"].rows[0]
    assert (
        row["signature"]
        == "public static double zeroinC(double ax, double bx, Function<Double, Double> f, double tol)"
    )
    assert row["function_name"] == "zeroinC"
    assert row["repository"] == "AstraZeneca-NGS/VarDictJava"
    assert row["file_path"] == "src/main/java/com/astrazeneca/vardict/data/fishertest/UnirootZeroIn.java"
    assert (row["line_start"], row["line_end"]) == (22, 101)
    assert row["comment"].lstrip().startswith("/**")


@pytest.mark.upstream
def test_task_ids_are_content_derived_and_stable(real_builds, upstream_dir):
    again = load_problem_index("python_hidden", upstream_dir)
    assert list(again) == [r["task_id"] for r in real_builds["python_hidden"].rows]
    for row in real_builds["python_similar"].rows[:20]:
        assert row["task_id"] == "py_" + hashlib.sha256(row["golden_code"].encode()).hexdigest()[:12]
    dups = [tid for tid in again if "-" in tid]
    assert dups and all(tid.split("-")[0] in again for tid in dups)  # repeated goldens get -2, -3
