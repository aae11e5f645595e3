"""Typed records: the row type comes from the schema, samples are checked once, harness programs
are built once per golden."""

from __future__ import annotations

import json
import typing

from biocoder_dataset.configs import load_problems
from biocoder_dataset.schema import COLUMNS, PYTHON_TYPES, TaskRow, empty_row
from biocoder_metric import samples as samples_mod
from biocoder_metric.execution import harness
from biocoder_metric.execution.goldens import GoldenStore
from biocoder_metric.execution.options import EvalOptions
from biocoder_metric.samples import Sample, normalize_samples, read_samples
from biocoder_metric.types import CaseOutcome, RunStatus


def test_the_row_type_is_generated_from_the_schema_columns():
    hints = typing.get_type_hints(TaskRow)
    assert list(hints) == list(COLUMNS)
    for name, (dtype, _) in COLUMNS.items():
        assert hints[name] == (PYTHON_TYPES[dtype] | None), name
    row = empty_row()
    assert set(row) == set(TaskRow.__annotations__)
    assert all(set(r) == set(COLUMNS) for r in load_problems("demo"))


def test_a_sample_is_made_once_by_the_reader_and_not_checked_again(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps({"task_id": "demo_py_gc_content", "completion": "a"})
        + "\n"
        + json.dumps({"task_id": "demo_py_gc_content", "solution": "b", "prompt": "p"})
        + "\n"
    )
    read = read_samples(path)
    assert all(isinstance(s, Sample) for s in read)
    assert (read[1].task_id, read[1].completion, read[1].prompt, read[1].where) == (
        "demo_py_gc_content",
        "b",
        "p",
        f"{path}:2",
    )
    calls = []
    real = samples_mod.check_sample
    monkeypatch.setattr(
        samples_mod, "check_sample", lambda obj, where: calls.append(where) or real(obj, where)
    )
    by_id = {"demo_py_gc_content": {}}
    norm = normalize_samples(read, by_id)
    assert calls == [], "a Sample from the reader is checked a second time"
    assert [s.sample_index for s in norm] == [0, 1] and [s.completion for s in norm] == ["a", "b"]
    assert "sample_index" not in read[0], "the caller's samples are left unchanged"
    # records that are not Samples yet (the metric, lm-eval, the server) are checked, once
    norm = normalize_samples([{"task_id": "demo_py_gc_content", "completion": "c"}], by_id)
    assert calls == ["sample #0"] and isinstance(norm[0], Sample) and norm[0]["sample_index"] == 0


class _Pool:
    """A golden pool that prints each program's first line (no sandbox)."""

    name, role, environment_id = "fake", "golden", "env"

    def __init__(self):
        self.jobs = []

    def run(self, job):
        self.jobs.append(job)
        return [CaseOutcome(status=RunStatus.OK, returncode=0, stdout=p[:40]) for p in job.programs]

    def close(self):
        pass


def test_each_golden_harness_is_built_once(monkeypatch):
    row = next(r for r in load_problems("demo") if r["kind"] == "harness" and r["language"] == "python")
    built = []
    real = harness.build_harness_programs
    monkeypatch.setattr(harness, "build_harness_programs", lambda *a, **k: built.append(1) or real(*a, **k))
    store = GoldenStore(EvalOptions(fuzz_cases=3, use_golden_cache=False), "env")
    store._pool = pool = _Pool()
    golden = store.golden(row)
    assert golden.ok, golden.reason
    assert len(built) == 1, f"harness programs built {len(built)} times for one golden"
    (job,) = pool.jobs
    n = len(golden.outputs)
    assert job.programs[:n] == job.programs[n:], "the same programs run twice"
