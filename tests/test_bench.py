"""The speed benchmark (``python -m benchmarks speed``) and its naive reference runner.

The benchmark lives in ``benchmarks/`` (not in the installed package). These tests check
that it runs end to end and, above all, that the naive upstream-style runner and the engine
give the same verdict on every sample. No timing assertions: speed claims come from the
benchmark's side-by-side ratios (docs/performance.md), never from timed unit tests.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchmarks import speed
from benchmarks.__main__ import main as bench_main
from benchmarks.naive import evaluate_naive, make_naive_backend
from biocoder_dataset.configs import load_problems
from biocoder_metric.execution import EvalOptions, run_evaluation
from biocoder_metric.sandbox import available_sandboxes, make_sandbox
from biocoder_metric.types import Job

REPO = Path(__file__).resolve().parent.parent
DEMO_SAMPLES = REPO / "examples" / "demo_samples.jsonl"


def _sandbox() -> tuple[str, list[str]]:
    """The safest sandbox here without Docker (bwrap), else ``none`` with the explicit opt-in.

    Only the project's own demo goldens, demo samples and their mutants run, never model output.
    """
    if "bwrap" in available_sandboxes():
        return "bwrap", []
    return "none", ["--allow-unsafe"]


@pytest.fixture(scope="module")
def demo_rows() -> dict[str, dict]:
    return {r["task_id"]: r for r in load_problems("demo")}


# ---------------------------------------------------------------------------- verdict agreement


def _agreement(sandbox: str, allow_unsafe: bool, rows, samples, tmp_path, driver: bool = False) -> dict:
    """The baseline and the engine, with its fast path on and off, on the same samples; returns
    the engine's verdicts after asserting all three agree."""
    opts = EvalOptions(
        sandbox=sandbox,
        allow_unsafe=allow_unsafe,
        workers=2,
        fuzz_cases=2,
        timeout_s=20,
        golden_cache_dir=str(tmp_path / "golden"),  # fresh: the engine computes its goldens too
    )
    naive = {
        (r["task_id"], r["sample_index"]): (r["status"], r["cases_passed"])
        for r in evaluate_naive(rows, samples, opts, driver=driver)
    }
    out = {}
    for batching in (True, False):
        o = EvalOptions(**{**opts.__dict__, "case_batching": batching})
        run = run_evaluation(rows, samples, o, progress=False)
        engine = {(r.task_id, r.sample_index): (r.status, r.cases_passed) for r in run.results}
        assert len(engine) == len(naive) == len(samples)
        differing = speed.compare_verdicts(engine, naive, {})
        assert differing == [], (
            f"naive and engine (case_batching={batching}) verdicts differ on {len(differing)} samples: {differing[:10]}"
        )
        out[batching] = engine
    return out[True]


def test_naive_and_engine_verdicts_agree_on_the_demo(demo_rows, tmp_path):
    """Every shipped demo sample of the Python, Rosalind and one Java task, plus AST mutants of
    each Python harness task's golden: the upstream-style runner (fresh process per case, golden
    re-run per sample) and the engine (zygote, compile-once Java, golden cache) agree on every
    (status, cases passed)."""
    name, extra = _sandbox()
    shipped = [json.loads(line) for line in DEMO_SAMPLES.read_text(encoding="utf-8").splitlines() if line]
    samples = [
        s for s in shipped if not s["task_id"].startswith("demo_java") or s["task_id"] == "demo_java_hamming"
    ]
    py_harness = sorted(
        {s["task_id"] for s in samples if demo_rows[s["task_id"]]["kind"] == "harness"}
        - {"demo_java_hamming"}
    )
    mutants = [s for s in speed.make_samples([demo_rows[t] for t in py_harness], 3) if s["label"] != "golden"]
    assert len(mutants) == 2 * len(py_harness)
    samples += [{"task_id": s["task_id"], "completion": s["completion"]} for s in mutants]
    rows = [demo_rows[t] for t in sorted({s["task_id"] for s in samples})]
    assert {r["kind"] for r in rows} == {"harness", "rosalind"} and {r["language"] for r in rows} == {
        "python",
        "java",
    }
    engine = _agreement(name, bool(extra), rows, samples, tmp_path)
    statuses = Counter(status for status, _ in engine.values())
    assert statuses["passed"] >= len(rows), statuses  # every task has at least one correct sample
    assert sum(n for s, n in statuses.items() if s != "passed") >= len(rows), statuses


@pytest.mark.slow
def test_java_naive_and_engine_agree(demo_rows):
    """javac + java per case (naive) and the compile-once runner (engine) judge mutants alike."""
    name, extra = _sandbox()
    rows = [demo_rows["demo_java_hamming"]]
    samples = speed.make_samples(rows, 3)  # golden, comparison flipped, operator changed
    opts = EvalOptions(sandbox=name, allow_unsafe=bool(extra), workers=2, fuzz_cases=2, timeout_s=20)
    report = speed.bench_sandbox(name, rows, samples, opts, repeats=1, log=lambda _m: None)
    assert report.disagreements == []
    assert report.verdicts.get("passed") == 1


@pytest.mark.docker
@pytest.mark.slow
def test_docker_baseline_is_upstream_style_and_agrees_with_the_engine(demo_rows, tmp_path):
    """The Docker baseline keeps long-lived containers (one per worker, as upstream's workers do),
    starts a fresh interpreter per case, and reaches the engine's verdicts."""
    from reliability_support import docker_reason

    reason = docker_reason()
    if reason:
        pytest.skip(reason)
    backend = make_naive_backend("docker", workers=2, timeout_s=30)
    try:
        for _ in range(5):
            out = backend.run_case("python", "import os\nprint(os.getpid())\n")
            assert out.status == "ok" and out.returncode == 0
        assert backend.containers_started == 1  # reused, not one container per case
    finally:
        backend.close()
    rows = [demo_rows[t] for t in ("demo_py_gc_content", "demo_py_hamming")]
    samples = speed.make_samples(rows, 3, golden_every=2)
    engine = _agreement("docker", False, rows, samples, tmp_path)
    assert {"failed", "passed"} <= {status for status, _ in engine.values()}


@pytest.mark.docker
@pytest.mark.slow
def test_the_careful_driver_baseline_runs_one_exec_per_sample_and_agrees(demo_rows, tmp_path):
    """The careful upstream-style baseline: one ``docker exec`` per sample running the driver,
    a fresh interpreter per case for the golden and the candidate, and the engine's verdicts."""
    from benchmarks.naive import NaiveDockerDriver

    from reliability_support import docker_reason

    reason = docker_reason()
    if reason:
        pytest.skip(reason)
    backend = make_naive_backend("docker", workers=1, timeout_s=30, driver=True)
    assert isinstance(backend, NaiveDockerDriver)
    pid = "import os\nprint(os.getpid())\n"
    try:
        golden, cand = backend.run_sample_cases([pid, pid], [pid, "import sys\nsys.exit(3)\n"])
    finally:
        backend.close()
    assert [o.status for o in golden + cand] == ["ok"] * 4
    assert [o.returncode for o in cand] == [0, 3]
    pids = {o.stdout for o in golden + cand[:1]}
    assert len(pids) == 3, "a fresh interpreter for every program run"
    rows = [demo_rows[t] for t in ("demo_py_gc_content", "demo_py_hamming")]
    samples = speed.make_samples(rows, 3, golden_every=2)
    engine = _agreement("docker", False, rows, samples, tmp_path, driver=True)
    assert {"failed", "passed"} <= {status for status, _ in engine.values()}


# ---------------------------------------------------------------------------- the command


def test_bench_quick_runs_and_verdicts_agree(tmp_path):
    """The whole command on 2 demo Python tasks: both runners, same verdicts, a JSON report."""
    name, extra = _sandbox()
    out = tmp_path / "bench.json"
    flags = ["--config", "demo", "--sandbox", name, *extra, "--quick", "--tasks", "2", "--samples", "5"]
    flags += ["--workers", "2", "--overhead", "--out", str(out)]
    rc = bench_main(["speed", *flags])
    report = json.loads(out.read_text())
    entry = report["sandboxes"][name]
    assert entry["disagreements"] == [], entry["disagreements"]
    assert rc == 0
    assert report["command"].startswith("python -m benchmarks speed --config demo")
    comp = entry["comparison"]
    assert len(report["tasks"]) == 2
    assert comp["samples"] == 10 and comp["cases"] == 20  # 2 tasks x 5 samples x 2 fuzz cases
    assert comp["verdicts"].get("passed", 0) >= 4  # the goldens (indices 0 and 4 of each task)
    assert sum(v for k, v in comp["verdicts"].items() if k != "passed") >= 1, "mutants must fail somewhere"
    assert {"naive", "engine", "speedup_engine_over_naive"} <= set(comp)
    paths = {o["path"] for o in entry["overhead"]}
    assert paths == {"engine warm", "engine per-case", "engine cold", "naive"}
    assert {"engine_off", "speedup_engine_over_engine_off"} <= set(comp)
    if name == "bwrap":  # the CPU column comes from the sandbox's public stats()
        assert all(o["cpu_ms_per_case"] is not None for o in entry["overhead"] if o["path"] != "naive")


def test_one_command_lists_every_benchmark_and_rejects_bad_flags(capsys):
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("speed", "scaling", "build_extract", "synth_compare"):
        assert name in proc.stdout
    assert bench_main(["speed", "--sandbox", "none", "--quick"]) == 2  # none needs --allow-unsafe
    assert "--allow-unsafe" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_main(["speed", "--no-such-flag"])


def test_the_installed_packages_never_import_the_benchmarks():
    pattern = re.compile(r"^\s*(from|import)\s+benchmarks\b", re.M)
    for package in ("biocoder_metric", "biocoder_dataset"):
        for path in (REPO / package).rglob("*.py"):
            assert not pattern.search(path.read_text(encoding="utf-8")), path


# ---------------------------------------------------------------------------- pieces


def test_mutants_are_distinct_parsable_and_deterministic(demo_rows):
    golden = demo_rows["demo_py_gc_content"]["golden_code"]
    first = speed.mutants(golden, 6, seed="demo_py_gc_content")
    again = speed.mutants(golden, 6, seed="demo_py_gc_content")
    assert first == again, "mutants must be reproducible for a given seed"
    assert len(first) >= 3
    texts = [t for _, t in first]
    assert len(set(texts)) == len(texts)
    canonical = ast.unparse(ast.parse(golden))
    for label, text in first:
        assert label.startswith("mutant: ")
        ast.parse(text)
        assert text != canonical


def test_make_samples_mixes_goldens_and_mutants(demo_rows):
    rows = [demo_rows["demo_py_gc_content"], demo_rows["demo_java_hamming"]]
    samples = speed.make_samples(rows, 8)
    assert len(samples) == 16
    for tid in ("demo_py_gc_content", "demo_java_hamming"):
        labels = [s["label"] for s in samples if s["task_id"] == tid]
        assert labels.count("golden") == 2  # indices 0 and 4
        assert any(lbl.startswith("mutant") for lbl in labels)


def test_probe_reports_the_programs_own_compute(tmp_path):
    program = (
        "import math\n\n@staticmethod\ndef f():\n    pass\nx = sum(i * i for i in range(200000))\nprint(x)\n"
    )
    probed = speed.with_probe(program)
    lines = probed.splitlines()
    assert lines[0] == "import math" and lines[2].startswith("import atexit as _bq_atexit")
    assert lines[3] == "@staticmethod", "the probe goes before the decorator, after the imports"
    name, extra = _sandbox()
    backend = make_naive_backend(name, allow_unsafe=bool(extra), timeout_s=20, memory_mb=1024)
    try:
        out = backend.run_case("python", probed)
    finally:
        backend.close()
    assert out.status == "ok" and out.returncode == 0, out.stderr
    assert out.stdout == f"{sum(i * i for i in range(200000))}\n"
    compute = speed.probe_compute(out.stderr)
    assert compute is not None and 0 < compute < out.duration_s


def test_sandbox_stats_are_public_and_feed_the_cpu_reading():
    """``Sandbox.stats()`` says what the benchmark needs (worker pid, counters) without starting anything."""
    name, extra = _sandbox()
    sb = make_sandbox(name, allow_unsafe=bool(extra))
    try:
        before = sb.stats()
        assert before["backend"] == name and before["worker_running"] is False
        assert before["worker_pid"] is None and before["workers_started"] == 0 and before["jobs"] == 0
        assert speed.sandbox_cpu_s(sb) is None  # no worker yet: nothing to read
        sb.run(Job(language="python", programs=("print(sum(range(10**6)))",), timeout_s=20))
        after = sb.stats()
        assert after["worker_running"] is True and isinstance(after["worker_pid"], int)
        assert after["workers_started"] == 1 and after["jobs"] == 1 and after["warm"] is True
        cpu = speed.sandbox_cpu_s(sb)
        assert cpu is not None and cpu > 0
    finally:
        sb.close()
    assert sb.stats()["closed"] is True and sb.stats()["worker_pid"] is None


def test_gpu_generation_blocks_every_token_that_could_end_a_sample_at_a_stop(tmp_path):
    """Fixed-length samples need every stop string unreachable. A prompt may already end in the
    stop's newline, and the stop criterion lets a last token overhang the stop's end (two ``"``"``
    after a newline match ``"\\n```"``), so no token left allowed, alone or twice, after a newline
    may trip any stop of either language."""
    pytest.importorskip("transformers", reason="the generation extra (transformers) is not installed")
    import torch
    from transformers import AutoTokenizer
    from transformers.generation.stopping_criteria import StopStringCriteria

    from benchmarks.gpu_generation import _train_tokenizer, stop_blocking_token_ids
    from biocoder_metric.generation.processors.base import STOP_SEQUENCES

    _train_tokenizer(1000).save_pretrained(tmp_path)
    tok = AutoTokenizer.from_pretrained(str(tmp_path))
    newline = tok("x\n")["input_ids"]
    for language, stops in STOP_SEQUENCES.items():
        blocked = set(stop_blocking_token_ids(tmp_path, stops))
        allowed = [i for i in range(len(tok)) if i not in blocked and i not in set(tok.all_special_ids)]
        assert len(allowed) > len(tok) // 2, (language, len(allowed))
        criterion = StopStringCriteria(tok, list(stops))
        for repeat in (1, 2, 3):
            ids = torch.tensor([newline + [i] * repeat for i in allowed])
            fired = criterion(ids, None)
            assert not fired.any(), (language, [tok.decode([allowed[j]]) for j in fired.nonzero()[:, 0]])
        assert any("`" in tok.decode([i]) for i in blocked), language


def test_gpu_generation_runs_the_real_generation_path_at_every_batch_size(tmp_path):
    """The GPU benchmark's CPU smoke run: a tiny random model through ``generate_samples``; every
    batch size writes one full-length row per prompt, and the report says so."""
    pytest.importorskip("transformers", reason="the generation extra (transformers) is not installed")
    out = tmp_path / "gpu.json"
    assert bench_main(["gpu_generation", "--tiny", "--device", "cpu", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    sizes = [r["batch_size"] for r in report["runs"]]
    assert sizes == sorted(sizes) and len(sizes) >= 2 and report["ok"] is True
    for run in report["runs"]:
        assert run["generated_tokens"] == run["prompts"] * report["max_new_tokens"]
        assert run["tokens_per_s"] > 0


def _generalise_run(langs: str, fingerprint: str, validated: int) -> dict:
    groups = ("fresh-python", "upstream-python", "fresh-java", "upstream-java")
    mine = [g for g in groups if g.rsplit("-", 1)[1] in langs.split(",")]
    return {
        "benchmark": "synth_generalise",
        "command": f"python -m benchmarks synth_generalise --languages {langs}",
        "code_fingerprint": fingerprint,
        "git": fingerprint,
        "cpu_count": 2,
        "loadavg_end": [0, 0, 0],
        "manifest_sha256": "m",
        "split_rule": "s",
        "upstream_rule": "u",
        "hand_mutants_version": 1,
        "parts": ["dev", "heldout"],
        "settings": {"languages": langs},
        "timings": {"total_wall_s": 10.0},
        "summary": {g: ({"heldout": {"validated": validated}} if g in mine else {}) for g in groups},
        "tasks": [{"task_id": f"{g}-{fingerprint}", "language": g.rsplit("-", 1)[1]} for g in mine],
        "projects": [{"name": f"p-{fingerprint}", "language": langs}],
    }


def test_runs_of_disjoint_languages_combine_into_one_raw_output_that_names_both():
    """Each group comes from the run that covered its language (never averaged), both runs'
    commands and fingerprints are kept, and runs that overlap or measure different things are refused."""
    from benchmarks.synth_generalise import combine_runs

    java, python = _generalise_run("java", "aaa", 7), _generalise_run("python", "bbb", 12)
    out = combine_runs([java, python])
    assert out["summary"]["upstream-java"] == {"heldout": {"validated": 7}}
    assert out["summary"]["fresh-python"] == {"heldout": {"validated": 12}}
    assert sorted(t["task_id"] for t in out["tasks"]) == [
        "fresh-java-aaa", "fresh-python-bbb", "upstream-java-aaa", "upstream-python-bbb",
    ]  # fmt: skip
    assert [r["code_fingerprint"] for r in out["runs"]] == ["aaa", "bbb"]
    assert out["settings"]["languages"] == "java,python" and out["timings"]["total_wall_s"] == 20.0
    with pytest.raises(ValueError, match="two runs cover java"):
        combine_runs([java, _generalise_run("java,python", "ccc", 1)])
    with pytest.raises(ValueError, match="manifest_sha256"):
        combine_runs([java, dict(python, manifest_sha256="other")])
