"""The lm-evaluation-harness tasks in lm_eval_tasks/biocoder, run through the real lm_eval.

Fast tests load the tasks in-process (``TaskManager(include_defaults=False)``) and feed the
golden solutions as generations: every demo task must then score pass@1 = 1.0 through the
task's own filter, metric and group aggregation (the oracle check). Slow tests run the
``lm_eval`` command line itself on a tiny random model built at test time, single-process
and under ``accelerate launch``, and check that the results JSON has pass@1 and that the
candidates really went through the sandbox.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tiny_model import REPO_ROOT, build_tiny_model, golden_continuation, sandbox_env

TASKS_DIR = REPO_ROOT / "lm_eval_tasks"
TASK_FOLDER = TASKS_DIR / "biocoder"

lm_eval = pytest.importorskip("lm_eval")


def _utils():
    spec = importlib.util.spec_from_file_location("biocoder_lm_eval_utils", TASK_FOLDER / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """Sandbox choice (bwrap when it works here, else the opted-in host) + a private golden cache."""
    return sandbox_env(tmp_path_factory.mktemp("golden-cache"))


@pytest.fixture()
def patched_env(env, monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def _task_manager():
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=str(TASKS_DIR), include_defaults=False)


# ----------------------------------------------------------------------------------- static
def test_utils_import_has_no_side_effects():
    """Listing tasks imports utils.py; that must not pull in the engine, datasets or torch."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('u', {str(TASK_FOLDER / 'utils.py')!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "heavy = [n for n in ('biocoder_metric.execution', 'biocoder_metric.sandbox', 'datasets', 'torch', 'lm_eval') if n in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_stop_sequences_live_in_one_place_and_match_the_processors():
    from lm_eval.tasks._yaml_loader import load_yaml

    from biocoder_metric.generation.processors.base import STOP_SEQUENCES

    for language in ("python", "java"):
        cfg = load_yaml(TASK_FOLDER / f"_biocoder_{language}_template_yaml", resolve_func=False)
        assert cfg["generation_kwargs"]["until"] == list(STOP_SEQUENCES[language])
    # no task file repeats a stop list: they all inherit it
    for path in TASK_FOLDER.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        assert "until" not in text, f"{path.name} should inherit its stop sequences from a template"


def test_all_tasks_and_groups_are_indexed():
    tm = _task_manager()
    names = set(tm.all_tasks)
    expected = {
        "biocoder",
        "biocoder_all",
        "biocoder_demo",
        "biocoder_instruct",
        "biocoder_demo_instruct",
        "biocoder_python",
        "biocoder_python_summary_only",
        "biocoder_python_instruct",
        "biocoder_java",
        "biocoder_java_summary_only",
        "biocoder_java_instruct",
        "biocoder_rosalind",
        "biocoder_rosalind_instruct",
        "biocoder_demo_python",
        "biocoder_demo_java",
        "biocoder_demo_rosalind",
        "biocoder_demo_python_instruct",
        "biocoder_demo_java_instruct",
        "biocoder_demo_rosalind_instruct",
    }
    assert expected <= names, expected - names
    # every task file is named after its task, and executes code only with consent
    from lm_eval.tasks._yaml_loader import load_yaml

    for path in TASK_FOLDER.glob("biocoder_*.yaml"):
        cfg = load_yaml(path, resolve_func=False)
        assert cfg["task"] == path.stem
        assert cfg["unsafe_code"] is True and cfg["output_type"] == "generate_until"
    group = yaml.safe_load((TASK_FOLDER / "_biocoder.yaml").read_text(encoding="utf-8"))
    assert group["task"] == ["biocoder_python", "biocoder_rosalind"]
    assert yaml.safe_load((TASK_FOLDER / "_biocoder_all.yaml").read_text(encoding="utf-8"))["task"] == [
        "biocoder_python",
        "biocoder_java",
        "biocoder_rosalind",
    ]
    assert group["aggregate_metric_list"][0]["weight_by_size"] is True


def test_dataset_hook_selects_executable_rows_of_a_config():
    utils = _utils()
    ds = utils.load_biocoder(
        "demo",
        prompt_style="summary_only",
        language="python",
        kind="harness",
        version=1.0,
        pretrained="ignored",
    )
    rows = list(ds["test"])
    assert rows and all(
        r["language"] == "python" and r["kind"] == "harness" and r["executable"] for r in rows
    )
    assert all(r["prompt_style"] == "summary_only" and r["prompt"].rstrip().endswith('"""') for r in rows)
    assert not any(r["golden_code"].strip() in r["prompt"] for r in rows), "a prompt leaks its golden code"
    with pytest.raises(ValueError, match="no executable tasks"):
        utils.load_biocoder("demo", language="java", kind="rosalind")


@pytest.mark.upstream
def test_python_task_reads_the_executable_tasks(upstream_dir, monkeypatch):
    from biocoder_dataset.configs import load_problems

    monkeypatch.setenv("BIOCODER_SOURCE_DIR", str(upstream_dir))
    utils = _utils()
    rows = list(utils.load_biocoder("python_public")["test"])
    executable = [r for r in load_problems("python_public", upstream_dir) if r["executable"]]
    assert len(rows) == len(executable)
    assert sum(r["harness_source"] == "upstream" for r in rows) == 79  # upstream's, plus synthesized ones
    assert all(
        r["executable"] and r["kind"] == "harness" and "<<insert solution here>>" in r["context"]
        for r in rows
    )


def test_metric_excludes_unscorable_tasks_from_the_mean():
    utils = _utils()
    assert utils.mean_scored([1.0, None, 0.0]) == 0.5
    with pytest.raises(KeyError, match="build_predictions"):
        utils.pass_at_k(["never_filtered"], [["def f(): pass"]])


# ----------------------------------------------------------------------------------- oracle
class _GoldenLM:
    """An lm_eval LM that answers every request with the task's golden code.

    ``style="whole"`` answers with the whole golden function (what a chat model puts in its
    fence); ``style="body"`` answers like a completion model, with only what follows the
    function's header. Either way the request's stop sequences are honoured, as a real
    model backend would.
    """

    def __new__(cls, style: str):
        from lm_eval.api.model import LM

        class GoldenLM(LM):
            def loglikelihood(self, requests):
                raise NotImplementedError

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

            def generate_until(self, requests):
                out = []
                for req in requests:
                    doc, gen_kwargs = req.doc, req.args[1]
                    text = doc["golden_code"] if style == "whole" else _body(doc)
                    for stop in gen_kwargs.get("until", []):
                        text = text.split(stop)[0]
                    out.append(text)
                return out

        return GoldenLM()


def _body(doc: dict) -> str:
    """The golden minus its header: a completion model's continuation of the prompt."""
    return golden_continuation(doc, doc["prompt"])


def _run_in_process(tasks: list[str], style: str) -> dict:
    from lm_eval import simple_evaluate

    return simple_evaluate(
        model=_GoldenLM(style), tasks=tasks, task_manager=_task_manager(), confirm_run_unsafe_code=True
    )


def test_oracle_goldens_in_fences_score_one_on_every_demo_task(patched_env):
    res = _run_in_process(["biocoder_demo_instruct"], "whole")["results"]
    for task in (
        "biocoder_demo_python_instruct",
        "biocoder_demo_java_instruct",
        "biocoder_demo_rosalind_instruct",
    ):
        assert res[task]["pass@1,extract_code"] == 1.0, (task, res[task])
    assert res["biocoder_demo_instruct"]["pass@1,extract_code"] == 1.0
    assert res["biocoder_demo_instruct"]["sample_len"] == 21


def test_oracle_golden_bodies_as_completions_score_one(patched_env):
    """Completion route: the filter must put the prompt's header back and end the function right."""
    res = _run_in_process(["biocoder_demo_python", "biocoder_demo_java"], "body")["results"]
    assert res["biocoder_demo_python"]["pass@1,extract_code"] == 1.0, res
    assert res["biocoder_demo_java"]["pass@1,extract_code"] == 1.0, res


def test_wrong_answers_score_zero(patched_env):
    """The metric really executes: a golden answer for the wrong task fails."""
    from lm_eval import simple_evaluate
    from lm_eval.api.model import LM

    class ShiftedLM(LM):
        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

        def generate_until(self, requests):
            goldens = [r.doc["golden_code"] for r in requests]
            return goldens[1:] + goldens[:1]

    res = simple_evaluate(
        model=ShiftedLM(),
        tasks=["biocoder_demo_rosalind_instruct"],
        task_manager=_task_manager(),
        confirm_run_unsafe_code=True,
    )
    assert res["results"]["biocoder_demo_rosalind_instruct"]["pass@1,extract_code"] == 0.0


# ----------------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))


def _lm_eval_cli(
    launcher: list[str], tiny_model: Path, out: Path, env: dict[str, str], results_dir: Path
) -> dict:
    cmd = [
        *launcher,
        "run",
        "--tasks",
        "biocoder_demo_python,biocoder_demo_rosalind",
        "--include_path",
        "lm_eval_tasks",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={tiny_model},dtype=float32",
        "--device",
        "cpu",
        "--batch_size",
        "2",
        "--limit",
        "2",
        "--gen_kwargs",
        "max_gen_toks=16",
        "--confirm_run_unsafe_code",
        "--output_path",
        str(out),
        "--log_samples",
    ]
    full_env = {
        **os.environ,
        **env,
        "BIOCODER_RESULTS_DIR": str(results_dir),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=full_env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    files = sorted(out.rglob("results_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text(encoding="utf-8"))


def _check_results(results: dict, results_dir: Path) -> None:
    from biocoder_metric.types import Status

    for task in ("biocoder_demo_python", "biocoder_demo_rosalind"):
        block = results["results"][task]
        assert 0.0 <= block["pass@1,extract_code"] <= 1.0
        assert block["sample_len"] == 2
        assert results["n-samples"][task]["effective"] == 2
    # execution happened: every candidate got a verdict from a sandbox run
    verdicts = [
        json.loads(line)
        for f in results_dir.rglob("results.jsonl")
        for line in f.read_text(encoding="utf-8").splitlines()
    ]
    assert len(verdicts) == 4, verdicts
    for v in verdicts:
        assert v["status"] in tuple(Status) and v["status"] != Status.SANDBOX_ERROR, v
        assert v["cases_total"] >= 1 and v["program_hash"], v
    assert {
        json.loads((f.parent / "run.json").read_text())["sandbox"] for f in results_dir.rglob("results.jsonl")
    } <= {"bwrap", "none"}


@pytest.mark.slow
def test_lm_eval_cli_on_tiny_model(tiny_model, env, tmp_path):
    results = _lm_eval_cli(
        [sys.executable, "-m", "lm_eval"], tiny_model, tmp_path / "out", env, tmp_path / "verdicts"
    )
    _check_results(results, tmp_path / "verdicts")


@pytest.mark.slow
def test_lm_eval_cli_under_accelerate_launch(tiny_model, env, tmp_path):
    """``accelerate launch --num_processes 2 --cpu -m lm_eval`` works unchanged.

    (accelerate 1.x starts one process for ``--cpu``, and lm-eval's HF model shards documents
    only across GPUs, so on this CPU host the run is single-process; on GPUs the same command
    with ``--multi_gpu`` is data parallel.)
    """
    launcher = [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--num_processes",
        "2",
        "--cpu",
        "-m",
        "lm_eval",
    ]
    results = _lm_eval_cli(launcher, tiny_model, tmp_path / "out", env, tmp_path / "verdicts")
    _check_results(results, tmp_path / "verdicts")


def test_golden_failing_here_raises_instead_of_shrinking_the_task_set(patched_env, monkeypatch):
    """A golden that fails in the chosen environment stops the lm-eval metric with the engine's
    message (what failed, how to fix it); BIOCODER_ALLOW_PARTIAL=1 scores the rest, None for it."""
    from biocoder_dataset.schema import empty_row

    utils = _utils()
    docs = []
    for name, golden in (
        ("ok", "def f(x):\n    return x + 1\n"),
        ("broken", "def f(x):\n    import no_such_module_here\n    return x\n"),
    ):
        row = empty_row()
        row.update(
            task_id=f"lm_{name}",
            config="custom",
            language="python",
            kind="harness",
            executable=True,
            function_name="f",
            signature="def f(x):",
            context="<<insert solution here>>\nprint(f(<|int;range=1,5|>))\n",
            golden_code=golden,
            prompt="def f(x):\n",
            prompt_style="instruct",
        )
        docs.append(row)
    answer = "```python\ndef f(x):\n    return x + 1\n```"
    preds = utils.build_predictions([[answer], [answer]], docs)
    with pytest.raises(
        RuntimeError, match=r"(?s)1 of 2 goldens fail in this environment.*no_such_module_here"
    ):
        utils.pass_at_k(["lm_ok"], [preds[0]])
    monkeypatch.setenv("BIOCODER_ALLOW_PARTIAL", "1")
    preds = utils.build_predictions([[answer], [answer + "\n"]], docs)
    assert utils.pass_at_k(["lm_ok"], [preds[0]]) == {"pass@1": 1.0}
    assert utils.pass_at_k(["lm_broken"], [preds[1]]) == {"pass@1": None}
