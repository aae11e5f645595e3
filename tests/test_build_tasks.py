"""``biocoder build tasks`` / ``build run`` on cnvkit, then ``data export --tasks`` and ``evaluate --tasks``.

The 14 cnvkit functions whose upstream harness golden is the same function get that harness
attached (matched by package, name and AST), so the built set is executable: their extracted
source must pass their harness in the reference Docker sandbox, exactly like upstream's goldens.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biocoder_dataset.schema import COLUMNS

from _build_helpers import REPOS, UPSTREAM, biocoder, need, read_jsonl

pytestmark = [pytest.mark.upstream, pytest.mark.slow]

LOOSE = ("--no-relevance", "--allow-no-comment", "--min-lines", "0")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    repo = need(REPOS / "cnvkit", "the cnvkit snapshot")
    harness = need(UPSTREAM / "python-harness" / "tasks.json", "python-harness/tasks.json")
    out = tmp_path_factory.mktemp("build")
    proc = biocoder(
        "build",
        "run",
        "--repo",
        str(repo),
        "--repo-name",
        "etal/cnvkit",
        "--language",
        "python",
        "--out-dir",
        str(out),
        "--harness",
        str(harness),
        "--config",
        "cnvkit_built",
        "--no-progress",
        *LOOSE,
    )
    return out, json.loads(proc.stdout)


def test_run_writes_every_stage_and_harness_tasks(built):
    out, summary = built
    rows = read_jsonl(out / "tasks.jsonl")
    print(
        f"\ncnvkit build run: {summary['extract']['functions']} functions, {summary['select']['kept']} selected, "
        f"{summary['tasks']['tasks']} tasks, {summary['tasks']['with_harness']} with an upstream harness"
    )
    assert (
        summary["tasks"]["with_harness"] == 14
        and len(rows) == summary["tasks"]["tasks"] == summary["select"]["kept"]
    )
    for row in rows:
        assert (
            set(row) == set(COLUMNS)
            and row["config"] == "cnvkit_built"
            and row["repository"] == "etal/cnvkit"
        )
        assert row["task_id"].startswith("build_py_") and row["prompt_full_context"] and row["golden_code"]
        assert row["line_end"] >= row["line_start"] and row["file_path"].endswith(".py")
        assert (row["kind"] == "harness") == row["executable"] == (row["context"] is not None)
    haar = next(r for r in rows if r["function_name"] == "HaarConv")
    assert haar["executable"] and "<<insert solution here>>" in haar["context"]
    assert json.loads(haar["metadata"])["package_name"] == "cnvlib.segmentation.haar"


def test_run_resumes_and_redoes_only_what_changed(built):
    out, _ = built
    repo = REPOS / "cnvkit"
    harness = UPSTREAM / "python-harness" / "tasks.json"
    args = (
        "build",
        "run",
        "--repo",
        str(repo),
        "--repo-name",
        "etal/cnvkit",
        "--language",
        "python",
        "--out-dir",
        str(out),
        "--harness",
        str(harness),
        "--config",
        "cnvkit_built",
        "--no-progress",
        *LOOSE,
    )
    again = json.loads(biocoder(*args).stdout)
    assert all(again[s].get("skipped_stage") for s in ("extract", "select", "prompts", "tasks"))
    changed = json.loads(biocoder(*args, "--dedup-threshold", "0.6").stdout)
    assert changed["extract"].get("skipped_stage")
    assert not any(changed[s].get("skipped_stage") for s in ("select", "prompts", "tasks"))
    assert changed["select"]["kept"] < again["select"]["kept"]
    biocoder(*args)  # back to the fixture's state for the other tests


def test_data_export_tasks(built, tmp_path):
    import datasets

    out, summary = built
    proc = biocoder("data", "export", "--tasks", str(out / "tasks.jsonl"), "--out", str(tmp_path / "export"))
    counts = json.loads(proc.stdout[proc.stdout.index("{") :])["configs"]["cnvkit_built"]
    assert counts["rows"] == summary["tasks"]["tasks"] and counts["executable"] == 14
    ds = datasets.load_dataset(str(tmp_path / "export"), "cnvkit_built", split="test")
    assert ds.num_rows == summary["tasks"]["tasks"] and sum(ds["executable"]) == 14


def test_bad_tasks_files_are_usage_errors(built, tmp_path):
    out, _ = built
    row = read_jsonl(out / "tasks.jsonl")[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**row, "colour": "red"}) + "\n")
    proc = biocoder("data", "export", "--tasks", str(bad), "--out", str(tmp_path / "e"), check=False)
    assert proc.returncode == 2 and f"{bad}: row 0" in proc.stderr and "colour" in proc.stderr
    dup = tmp_path / "dup.jsonl"
    dup.write_text((json.dumps(row) + "\n") * 2)
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": row["task_id"], "completion": "x"}) + "\n")
    proc = biocoder(
        "evaluate", "--tasks", str(dup), "--samples", str(samples), "--out", str(tmp_path / "ev"), check=False
    )
    assert proc.returncode == 2 and "duplicate task_id" in proc.stderr


@pytest.mark.docker
def test_evaluate_tasks_goldens_pass_in_docker(built, tmp_path):
    from biocoder_metric.sandbox import image

    if not image.docker_available() or image.image_id() is None:
        pytest.skip("the docker sandbox is not available (run scripts/setup_docker.sh)")
    out, _ = built
    rows = read_jsonl(out / "tasks.jsonl")
    harness = [r for r in rows if r["executable"]]
    no_harness = next(r for r in rows if not r["executable"])
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": r["task_id"], "completion": r["golden_code"]}) + "\n"
            for r in [*harness, no_harness]
        )
    )
    ids = tmp_path / "ids.txt"  # the subset judged here: pass@k is over the named tasks only
    ids.write_text("".join(r["task_id"] + "\n" for r in [*harness, no_harness]))
    biocoder(
        "evaluate",
        "--tasks",
        str(out / "tasks.jsonl"),
        "--samples",
        str(samples),
        "--out",
        str(tmp_path / "eval"),
        "--task-ids",
        f"@{ids}",
        "--sandbox",
        "docker",
        "--fuzz-cases",
        "3",
        "--k",
        "1",
        "--no-progress",
        "--include-weak",  # this test is about the goldens; harness strength is tests/test_strength.py's
        env={"BIOCODER_CACHE_DIR": str(tmp_path / "cache")},
    )
    results = read_jsonl(tmp_path / "eval" / "results.jsonl")
    status = {r["task_id"]: r["status"] for r in results}
    print(
        f"\nevaluate --tasks (cnvkit, extracted goldens, docker): "
        f"{sum(status[r['task_id']] == 'passed' for r in harness)}/{len(harness)} passed"
    )
    assert all(status[r["task_id"]] == "passed" for r in harness), {
        r["function_name"]: status[r["task_id"]] for r in harness
    }
    assert status[no_harness["task_id"]] != "passed"


def test_harness_rows_are_matched_by_function_id(built):
    """A task row with a context (what `biocoder build harness` writes) attaches to its function on a rebuild."""
    from biocoder_metric.build.tasks import build_tasks

    out, _ = built
    prompted = read_jsonl(out / "prompted.jsonl")
    rows = read_jsonl(out / "tasks.jsonl")
    target = next(r for r in rows if not r["executable"])
    harness_row = {
        **target,
        "context": "print(1)\n<<insert solution here>>\n",
        "kind": "harness",
        "executable": True,
    }
    rebuilt, report = build_tasks(prompted, "cnvkit_built", [harness_row])
    assert report["with_harness"] == 1 and report["tasks"] == len(rows)
    (hit,) = [r for r in rebuilt if r["executable"]]
    assert hit["task_id"] == target["task_id"] and hit["context"] == harness_row["context"]
