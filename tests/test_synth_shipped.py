"""Shipped synthesised harnesses: merged into rows by (config, task id, golden hash), never regenerated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biocoder_dataset import synth_harnesses as sh
from biocoder_dataset.schema import COLUMNS, empty_row


def _row(golden: str = "def f(x):\n    return x\n") -> dict:
    row = empty_row()
    row.update(
        task_id="t1",
        config="c",
        language="python",
        kind="golden_only",
        executable=False,
        not_executable_reason="no harness",
        function_name="f",
        golden_code=golden,
    )
    return row


def _record(golden: str) -> dict:
    return {
        "status": "validated",
        "task_id": "t1",
        "config": "c",
        "language": "python",
        "golden_sha256": sh.golden_sha256(golden),
        "context": "<<insert solution here>>\nprint(f(<|int|>))\n",
        "validation": {"mutation_score": 0.5, "mutants_killed": 2, "mutants_judged": 4},
        "plan": {"x": "int_small"},
    }


def test_column_is_in_the_schema():
    assert "harness_source" in COLUMNS


def test_validated_record_makes_the_matching_row_executable(tmp_path: Path):
    path = tmp_path / "h.jsonl"
    golden = _row()["golden_code"]
    assert (
        sh.write_shipped([_record(golden), {**_record(golden), "task_id": "t2", "status": "failed"}], path)
        == 1
    )
    rec = json.loads(path.read_text())
    assert rec["schema"] == sh.SCHEMA and rec["mutation_score"] == 0.5
    row = _row()
    sh.apply("c", row, path)
    assert (row["kind"], row["executable"], row["harness_source"]) == ("harness", True, "synthesized")
    assert row["context"].startswith("<<insert")
    other = _row("def f(x):\n    return x + 1\n")  # golden changed: the harness was not validated against it
    sh.apply("c", other, path)
    assert (other["kind"], other["executable"], other["harness_source"]) == ("golden_only", False, None)
    elsewhere = _row()
    sh.apply("other_config", elsewhere, path)
    assert not elsewhere["executable"]


def test_upstream_rows_are_marked_and_merge_can_be_turned_off(tmp_path: Path, monkeypatch):
    up = _row()
    up.update(kind="harness", executable=True, context="<<insert solution here>>\n")
    sh.apply("c", up)
    assert up["harness_source"] == "upstream"
    path = tmp_path / "h.jsonl"
    sh.write_shipped([_record(_row()["golden_code"])], path)
    monkeypatch.setenv("BIOCODER_SYNTH_HARNESSES", "0")
    row = _row()
    sh.apply("c", row, path)
    assert not row["executable"]


def test_a_damaged_shipped_file_names_the_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"schema": "x"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:1"):
        sh.apply("c", _row(), path)


def test_a_harness_holding_the_golden_body_is_refused():
    """A sliced copy of the answer in the harness would let a candidate call it (and a full-context
    prompt would show it): such a context is never attached, and never shipped."""
    from biocoder_dataset.synth_harnesses import context_leaks_golden

    java = {"language": "java", "golden_code": "public static int f(int x) {\n    return x * 2 + 1;\n}\n"}
    leaky = "class Base {\n  static int g(int x) { return x*2+1; }\n}\npublic class Main extends Base {\n<<insert solution here>>\n}\n"
    assert context_leaks_golden(java, leaky)
    assert not context_leaks_golden(java, leaky.replace("x*2+1", "x*3"))
    py = {"language": "python", "golden_code": 'def f(x):\n    """Doc."""\n    y = x + 1\n    return y * 2\n'}
    assert context_leaks_golden(py, "def helper(x):\n    y = x+1\n    return y*2\n<<insert solution here>>\n")
    assert not context_leaks_golden(py, 'def f(x):\n    """Doc."""\n<<insert solution here>>\n')


@pytest.mark.upstream
def test_no_shipped_harness_holds_its_golden(upstream_dir, monkeypatch):
    from biocoder_dataset.configs import load_problems
    from biocoder_dataset.synth_harnesses import SHIPPED_FILE, context_leaks_golden

    monkeypatch.setenv("BIOCODER_SYNTH_HARNESSES", "0")
    records = [
        json.loads(x) for x in Path(SHIPPED_FILE).read_text(encoding="utf-8").splitlines() if x.strip()
    ]
    rows = {}
    for config in sorted({r["config"] for r in records}):
        rows.update({(config, r["task_id"]): r for r in load_problems(config, upstream_dir)})
    leaks = [
        r["task_id"] for r in records if context_leaks_golden(rows[(r["config"], r["task_id"])], r["context"])
    ]
    assert records and not leaks


def test_two_shipping_runs_keep_each_others_harnesses(tmp_path: Path):
    """Two ``--ship`` runs at once: each read the shipped file when it loaded its config, and the
    one that merges second must keep what the first merged meanwhile (it merged into its stale
    copy before, and the first run's harnesses were lost)."""
    path = tmp_path / "h.jsonl"
    golden = _row()["golden_code"]
    sh.write_shipped([_record(golden)], path)
    sh.apply("c", _row(), path)  # the second run reads (and caches) the file: one harness
    first = json.loads(path.read_text())
    with path.open("a") as fh:  # the first run, another process, merges its harness meanwhile
        fh.write(json.dumps({**first, "config": "first_run"}) + "\n")
    assert sh.write_shipped([{**_record(golden), "config": "second_run"}], path) == 3
    configs = {json.loads(line)["config"] for line in path.read_text().splitlines()}
    assert configs == {"c", "first_run", "second_run"}
