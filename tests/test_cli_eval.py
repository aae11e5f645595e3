"""`biocoder evaluate` / `biocoder check`: outputs, input errors, resume after SIGKILL."""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biocoder_metric.cli import main
from biocoder_metric.errors import ResultsMismatchError
from biocoder_metric.execution.results import PARTIAL_NAME, ResultsStore
from biocoder_metric.types import SampleResult


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


SANDBOX_ARGS = ["--sandbox", "bwrap"] if _bwrap_ok() else ["--sandbox", "none", "--allow-unsafe"]


@pytest.fixture(scope="module")
def demo_rows():
    from biocoder_dataset.configs import load_problems

    return {r["task_id"]: r for r in load_problems("demo")}


def _write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _mutant(row) -> str:
    return json.loads(row["metadata"])["mutant_code"]


def test_evaluate_writes_results_and_summary(demo_rows, tmp_path, capsys):
    tasks = ["demo_py_gc_content", "demo_java_revcomp", "demo_rosalind_rna"]
    records = []
    for t in tasks:
        records += [
            {"task_id": t, "completion": demo_rows[t]["golden_code"]},
            {"task_id": t, "solution": _mutant(demo_rows[t])},
        ]
    samples = _write_jsonl(tmp_path / "samples.jsonl", records)
    out = tmp_path / "out"
    argv = [
        "evaluate",
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--out",
        str(out),
        "--k",
        "1,2,5",
        "--fuzz-cases",
        "2",
        "--golden-cache",
        str(tmp_path / "g"),
        "--no-progress",
        "--task-ids",
        ",".join(tasks),
        *SANDBOX_ARGS,
    ]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pass@1"] == 0.5 and summary["pass@2"] == 1.0 and summary["pass@5"] is None
    assert summary["insufficient_samples"]["pass@5"] == [{"task_id": t, "n": 2} for t in sorted(tasks)]
    assert summary["status_counts"]["passed"] == 3 and summary["status_counts"]["failed"] == 3
    assert summary["per_config"]["demo"]["tasks"] == 3
    lines = (out / "results.jsonl").read_text().splitlines()
    keys = [(json.loads(x)["task_id"], json.loads(x)["sample_index"]) for x in lines]
    assert keys == sorted((t, i) for t in tasks for i in range(2))
    assert all("duration_s" not in json.loads(x) for x in lines)
    assert "pass@1" in capsys.readouterr().out
    # Rerun: nothing left to run, identical files.
    before = (out / "results.jsonl").read_bytes(), (out / "summary.json").read_bytes()
    assert main(argv) == 0
    assert before == ((out / "results.jsonl").read_bytes(), (out / "summary.json").read_bytes())
    assert json.loads((out / "timing.json").read_text())["samples_run"] == 0
    # Different options: a clear error unless --overwrite.
    changed = [a if a != "2" else "3" for a in argv]
    assert main(changed) == 2
    err = capsys.readouterr().err
    assert "different run" in err and "fuzz_cases: 2 -> 3" in err and "--overwrite" in err
    assert main([*changed, "--overwrite"]) == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"task_id": "demo_py_gc_content", "completion": "x"', "samples.jsonl:2: not valid JSON"),
        ('{"task_id": "no_such_task", "completion": "x"}', "samples.jsonl:2: unknown task_id 'no_such_task'"),
        (
            '{"task_id": "demo_py_gc_content"}',
            "samples.jsonl:2: task demo_py_gc_content: needs a 'completion' or 'solution'",
        ),
        (
            '{"task_id": "demo_py_gc_content", "completion": 7}',
            "samples.jsonl:2: task demo_py_gc_content: 'completion'/'solution' must be a string",
        ),
        ('{"completion": "x"}', "samples.jsonl:2: field 'task_id' missing"),
        ('["demo_py_gc_content", "x"]', "samples.jsonl:2: expected a JSON object"),
    ],
)
def test_unusable_samples_exit_2_naming_file_and_line(tmp_path, capsys, line, message):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        '{"task_id": "demo_py_gc_content", "completion": "def gc_content(s): return 0"}\n' + line + "\n"
    )
    code = main(
        ["evaluate", "--samples", str(samples), "--out", str(tmp_path / "o"), "--no-progress", *SANDBOX_ARGS]
    )
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_check_demo_passes_every_task(tmp_path, capsys):
    assert (
        main(
            [
                "check",
                "--config",
                "demo",
                "--fuzz-cases",
                "2",
                "--out",
                str(tmp_path),
                "--strict",
                "--no-progress",
                "--golden-cache",
                str(tmp_path / "g"),
                *SANDBOX_ARGS,
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert "21 tasks: passed=21" in table
    report = json.loads((tmp_path / "check.json").read_text())
    assert len(report["tasks"]) == 21 and {t["status"] for t in report["tasks"]} == {"passed"}
    assert report["sandbox"] == SANDBOX_ARGS[1] and report["environment_id"] and report["fuzz_cases"] == 2


# ---------------------------------------------------------------------------- resume


def test_torn_last_line_is_dropped(tmp_path):
    r = SampleResult(task_id="t", sample_index=0, status="passed", completion="x", program_hash="h")
    store = ResultsStore(tmp_path, {"k": 1})
    store.append(r)
    store.close()
    with open(tmp_path / PARTIAL_NAME, "a") as fh:
        fh.write('{"task_id": "t", "sample_index": 1, "sta')  # killed mid-write
    store = ResultsStore(tmp_path, {"k": 1})
    assert list(store.done) == [("t", 0)]
    store.close()
    assert (tmp_path / PARTIAL_NAME).read_text().count("\n") == 1
    assert (tmp_path / PARTIAL_NAME).read_text().endswith("}\n")
    with open(tmp_path / PARTIAL_NAME, "a") as fh:
        fh.write("not json\n")
        fh.write(json.dumps(r.to_json()) + "\n")
    with pytest.raises(ResultsMismatchError, match=r"results.partial.jsonl:2: corrupt"):
        ResultsStore(tmp_path, {"k": 1})
    with pytest.raises(ResultsMismatchError, match="different run"):
        ResultsStore(tmp_path, {"k": 2})


def _counting_samples(demo_rows, counter: Path) -> list[dict]:
    """Golden solutions that log each execution (task:sample) to a host file and take a moment."""
    tasks = [
        "demo_py_gc_content",
        "demo_py_hamming",
        "demo_py_revcomp",
        "demo_py_translate",
        "demo_py_motif",
        "demo_py_titv",
    ]
    records = []
    for t in tasks:
        for i in range(4):
            log = f"import time as _t\nwith open({str(counter)!r}, 'a') as _fh:\n    _fh.write('{t}:{i}\\n')\n_t.sleep(0.25)\n"
            records.append({"task_id": t, "completion": log + demo_rows[t]["golden_code"]})
    return records


def _cli(samples: Path, out: Path, cache: Path) -> list[str]:
    # `none` on purpose: the candidates must reach a host file to count their executions
    # (they are our own trusted test programs).
    return [
        sys.executable,
        "-m",
        "biocoder_metric",
        "evaluate",
        "--config",
        "demo",
        "--samples",
        str(samples),
        "--out",
        str(out),
        "--fuzz-cases",
        "2",
        "--workers",
        "2",
        "--sandbox",
        "none",
        "--allow-unsafe",
        "--golden-cache",
        str(cache),
        "--no-progress",
        "--task-ids",
        "demo_py_gc_content,demo_py_hamming,demo_py_revcomp,demo_py_translate,demo_py_motif,demo_py_titv",
    ]


def _counts(counter: Path) -> collections.Counter:
    return collections.Counter(counter.read_text().split()) if counter.exists() else collections.Counter()


@pytest.mark.slow
def test_sigkill_then_resume_equals_uninterrupted_run(demo_rows, tmp_path):
    counter = tmp_path / "executions.log"
    samples = _write_jsonl(tmp_path / "samples.jsonl", _counting_samples(demo_rows, counter))
    cache = tmp_path / "golden"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    # 1. uninterrupted reference run: every sample runs its 2 cases exactly once
    subprocess.run(
        _cli(samples, tmp_path / "ref", cache), check=True, capture_output=True, env=env, timeout=600
    )
    assert set(_counts(counter).values()) == {2} and len(_counts(counter)) == 24
    counter.unlink()

    # 2. start again in a fresh dir, SIGKILL once a few samples are recorded
    out = tmp_path / "resumed"
    proc = subprocess.Popen(
        _cli(samples, out, cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    partial = out / PARTIAL_NAME
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if partial.exists() and partial.read_text().count("\n") >= 6:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    time.sleep(0.5)  # let the orphaned sandbox worker notice its parent is gone
    recorded = [json.loads(x) for x in partial.read_bytes().split(b"\n") if x.strip().endswith(b"}")]
    done_before = {f"{r['task_id']}:{r['sample_index']}" for r in recorded}
    assert 6 <= len(done_before) < 24, "the kill should land midway"
    assert not (out / "results.jsonl").exists()
    before = _counts(counter)

    # 3. the same command again resumes
    result = subprocess.run(_cli(samples, out, cache), capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    after = _counts(counter)
    for key in done_before:
        assert after[key] == before[key] == 2, f"{key} ran again after resuming"
    assert set(after) == {
        f"{t}:{i}" for t in {r["task_id"] for r in _counting_samples(demo_rows, counter)} for i in range(4)
    }
    rerun = [k for k in after if k not in done_before]
    assert all(after[k] - before.get(k, 0) == 2 for k in rerun)  # the rest ran exactly once more
    timing = json.loads((out / "timing.json").read_text())
    assert timing["samples_run"] == 24 - len(done_before)

    # 4. final files are byte-identical to the uninterrupted run
    assert (out / "results.jsonl").read_bytes() == (tmp_path / "ref" / "results.jsonl").read_bytes()
    assert (out / "summary.json").read_bytes() == (tmp_path / "ref" / "summary.json").read_bytes()
    assert json.loads((out / "summary.json").read_text())["pass@1"] == 1.0
