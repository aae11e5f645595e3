"""Every entry point is the one call (``biocoder_metric.evaluation``): same n, c, pass@k and partial label.

The same samples go through each entry point, in the real bwrap sandbox, with no mock of the
engine:

* ``biocoder evaluate`` (the CLI, in-process ``main``);
* ``biocoder run``, whose "model" is :class:`ReplayProcessor`: a processor of the registry's
  ``package.module:Class`` kind that answers with fixed completions, so ``run`` generates these
  very samples and then evaluates them (generation itself is tested with a real tiny model in
  tests/test_generate.py);
* the library call itself, :func:`biocoder_metric.evaluation.evaluate_run`;
* the ``evaluate`` metric (``evaluate.load`` of the local script);
* the lm-eval adapter's hooks, called as lm-eval calls them (the filter once, the metric once per
  doc, the aggregation over the docs);
* ``biocoder evaluate --shard 0/2`` and ``1/2``, then ``biocoder merge``;
* ``biocoder evaluate --executor ray`` on a local one-node Ray cluster (loopback only).

Two sample sets: demo tasks answered right, wrong, and a mixture (Python harness, Java harness,
Rosalind); and task rows whose golden fails here, scored with allow-partial (partial everywhere;
without it every entry point refuses: exit 3 or the engine's error). ``biocoder run`` is not in
the second: its tasks come from a config (generation reads the config's rows, not a tasks
file) and it has no ``--allow-partial`` flag, so a failing golden is always exit 3 there.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from biocoder_metric.generation.processors.base import Generation, Processor

from reliability_support import REPO_ROOT, sandbox_reason

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]

KS = (1, 2)
#: Demo tasks and their two answers: right, wrong, or a mixture.
DEMO = {
    "demo_py_gc_content": ("right", "right"),
    "demo_rosalind_rna": ("wrong", "wrong"),
    "demo_java_hamming": ("right", "wrong"),
    "demo_py_hamming": ("wrong", "right"),
}
ENGINE_FLAGS = ["--sandbox", "bwrap", "--fuzz-cases", "2", "--workers", "2", "--no-progress", "--k", "1,2"]


@dataclass(frozen=True)
class Outcome:
    """What must agree: (n, c) and pass@k per scored task, the headline pass@k, the partial label."""

    counts: dict[str, tuple[int, int]]
    per_task: dict[str, dict[str, float | None]]
    headline: dict[str, float | None]
    partial: bool


def _from_summary(summary: dict[str, Any]) -> Outcome:
    return Outcome(
        counts={t: (v["n"], v["c"]) for t, v in summary["per_task"].items()},
        per_task={t: {f"pass@{k}": v[f"pass@{k}"] for k in KS} for t, v in summary["per_task"].items()},
        headline={f"pass@{k}": summary[f"pass@{k}"] for k in KS},
        partial="partial" in summary,
    )


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- the sample sets


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    reason = sandbox_reason("bwrap")
    if reason:
        pytest.skip(f"bwrap sandbox not available here: {reason}")
    root = tmp_path_factory.mktemp("entry-points")
    values = {
        "BIOCODER_CACHE_DIR": str(root / "cache"),
        "BIOCODER_SANDBOX": "bwrap",
        "BIOCODER_FUZZ_CASES": "2",
        "BIOCODER_WORKERS": "2",
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in values.items():
            mp.setenv(key, value)
        mp.delenv("BIOCODER_ALLOW_PARTIAL", raising=False)
        mp.delenv("BIOCODER_RESULTS_DIR", raising=False)
        yield root


@pytest.fixture(scope="module")
def demo(env):
    """The demo rows, each task's two completions, and the samples file."""
    from biocoder_dataset.configs import load_problems

    rows = {r["task_id"]: r for r in load_problems("demo")}
    answers = {
        t: [
            rows[t]["golden_code"] if a == "right" else json.loads(rows[t]["metadata"])["mutant_code"]
            for a in kinds
        ]
        for t, kinds in DEMO.items()
    }
    samples = env / "demo.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t in DEMO for c in answers[t])
    )
    return [rows[t] for t in DEMO], answers, samples


def _custom_row(task_id: str, golden: str) -> dict[str, Any]:
    from biocoder_dataset.schema import empty_row

    row = empty_row()
    row.update(
        task_id=task_id,
        config="custom",
        language="python",
        kind="harness",
        executable=True,
        function_name="f",
        signature="def f(x):",
        comment="Return the input plus one.",
        context="<<insert solution here>>\nprint(f(<|int;range=1,5|>))\n",
        golden_code=golden,
    )
    return row


@pytest.fixture(scope="module")
def broken(env):
    """Two task rows, one of whose goldens fails here (a module that does not exist), as a tasks file."""
    right, wrong = "def f(x):\n    return x + 1\n", "def f(x):\n    return x + 2\n"
    rows = [
        _custom_row("ep_ok", right),
        _custom_row("ep_broken", "def f(x):\n    import no_such_module_here\n    return x + 1\n"),
    ]
    answers = {"ep_ok": [right, wrong], "ep_broken": [right, right]}
    tasks = env / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    samples = env / "broken.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t in answers for c in answers[t])
    )
    return rows, answers, samples, tasks


# ---------------------------------------------------------------------------- the entry points


def _cli_evaluate(samples: Path, out: Path, *extra: str) -> tuple[int, Outcome | None]:
    from biocoder_metric.cli import main

    code = main(
        ["evaluate", "--config", "demo", "--samples", str(samples), "--out", str(out), *ENGINE_FLAGS, *extra]
    )
    return code, (_from_summary(_summary(out)) if (out / "summary.json").is_file() else None)


def _merge(samples: Path, out: Path, *extra: str, merge_flags: tuple[str, ...] = ()) -> Outcome:
    from biocoder_metric.cli import main

    for i in (0, 1):
        code, _ = _cli_evaluate(samples, out / f"shard{i}", "--shard", f"{i}/2", *extra)
        assert code == 0, f"shard {i}/2 exited {code}"
    assert json.loads((out / "shard0" / "shard.json").read_text())["tasks"]  # both shards hold tasks
    assert json.loads((out / "shard1" / "shard.json").read_text())["tasks"]
    assert (
        main(["merge", "--out", str(out / "merged"), str(out / "shard0"), str(out / "shard1"), *merge_flags])
        == 0
    )
    return _from_summary(_summary(out / "merged"))


def _library(rows, samples: Path, **changes: Any) -> Outcome:
    from biocoder_metric.evaluation import RunOptions, evaluate_run
    from biocoder_metric.execution import EvalOptions
    from biocoder_metric.samples import read_samples

    result = evaluate_run(
        rows,
        read_samples(samples),
        RunOptions(engine=EvalOptions(sandbox="bwrap", fuzz_cases=2, workers=2), ks=KS, **changes),
    )
    assert result.n == sum(n for n, _ in result.counts.values()) and result.c == sum(
        c for _, c in result.counts.values()
    )
    outcome = _from_summary(result.summary)
    assert (outcome.counts, outcome.headline, outcome.partial) == (
        result.counts,
        result.pass_at_k,
        result.partial,
    )
    return outcome


def _metric(references: list[str], predictions: list[list[str]], **kwargs: Any) -> Outcome:
    import evaluate

    metric = evaluate.load(str(REPO_ROOT / "biocoder_passk"))
    out = metric.compute(
        predictions=predictions,
        references=references,
        k=list(KS),
        config="demo",
        sandbox="bwrap",
        fuzz_cases=2,
        workers=2,
        **kwargs,
    )
    scored = {t: v for t, v in out["details"]["per_task"].items() if v["c"] is not None}
    return Outcome(
        counts={t: (v["n"], v["c"]) for t, v in scored.items()},
        per_task={t: {f"pass@{k}": v[f"pass@{k}"] for k in KS} for t, v in scored.items()},
        headline={f"pass@{k}": out[f"pass@{k}"] for k in KS},
        partial=out["partial"],
    )


def _lm_eval_utils():
    spec = importlib.util.spec_from_file_location(
        "biocoder_lm_eval_utils_ep", REPO_ROOT / "lm_eval_tasks" / "biocoder" / "utils.py"
    )
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    return utils


def _lm_eval(rows, answers) -> Outcome:
    """As lm-eval calls the hooks: the filter over every doc, the metric per doc, the aggregation per metric."""
    from biocoder_metric.types import TaskStatus

    utils = _lm_eval_utils()
    docs = [{**r, "prompt": "", "prompt_style": "instruct"} for r in rows]
    resps = [[f"```{r['language']}\n{c}```" for c in answers[r["task_id"]]] for r in rows]
    preds = utils.build_predictions(resps, docs)
    verdicts = {
        r["task_id"]: utils.verdicts(r["task_id"], p, list(KS)) for r, p in zip(rows, preds, strict=True)
    }
    values = {
        r["task_id"]: utils.pass_at_k([r["task_id"]], [p], k=list(KS))
        for r, p in zip(rows, preds, strict=True)
    }
    assert utils.pending_batches() == 0  # every doc scored: nothing left for a later run to read
    scored = [t for t, v in verdicts.items() if v["task_status"] == TaskStatus.OK]
    return Outcome(
        counts={t: (verdicts[t]["n"], verdicts[t]["c"]) for t in sorted(scored)},
        per_task={t: values[t] for t in sorted(scored)},
        headline={f"pass@{k}": utils.mean_scored([v[f"pass@{k}"] for v in values.values()]) for k in KS},
        partial=any(v["partial"] for v in verdicts.values()),
    )


class ReplayProcessor(Processor):
    """A registry processor that "generates" fixed completions: its entry's ``path`` is a JSON file
    ``{task_id: [completion, ...]}``. Only the model is replaced; ``biocoder run`` is unchanged."""

    def load_model_tokenizer(self) -> None:
        self.model = json.loads(Path(self.spec.path).read_text(encoding="utf-8"))

    def process_before(self, row: dict[str, Any]) -> str:
        return row["task_id"]

    def process_after(self, raw: str, row: dict[str, Any], prompt: str) -> str:
        return raw

    def generate(self, prompts: list[str], n: int, stops: tuple[str, ...] = ()) -> list[list[Generation]]:
        return [[Generation(text=c, n_tokens=1) for c in self.model[p][:n]] for p in prompts]


def _cli_run(answers, root: Path) -> Outcome:
    import yaml

    from biocoder_metric.cli import main

    root.mkdir(parents=True, exist_ok=True)
    (root / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    entry = {
        "path": str(root / "answers.json"),
        "processor": f"{__name__}:ReplayProcessor",
        "n_samples": 2,
        "batch_size": 4,
        "prompt_style": "instruct",
    }
    models = root / "models.yaml"
    models.write_text(yaml.safe_dump({"models": {"replay": {"versions": {"v1": entry}}}}), encoding="utf-8")
    out = root / "run"
    code = main(
        [
            "run",
            "--model",
            "replay",
            "--models-file",
            str(models),
            "--config",
            "demo",
            "--task-ids",
            ",".join(answers),
            "--out",
            str(out),
            *ENGINE_FLAGS,
        ]
    )
    assert code == 0
    generated = [json.loads(ln) for ln in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(s["task_id"], s["sample_index"]): s["completion"] for s in generated} == {
        (t, i): c for t, cs in answers.items() for i, c in enumerate(cs)
    }
    return _from_summary(_summary(out))


# ---------------------------------------------------------------------------- the tests


def _assert_all_equal(outcomes: dict[str, Outcome]) -> None:
    first_name, first = next(iter(outcomes.items()))
    for name, got in outcomes.items():
        assert got.counts == first.counts, f"n, c: {name} {got.counts} != {first_name} {first.counts}"
        assert got.per_task == first.per_task, (
            f"per-task pass@k: {name} {got.per_task} != {first_name} {first.per_task}"
        )
        assert got.headline == first.headline, (
            f"pass@k: {name} {got.headline} != {first_name} {first.headline}"
        )
        assert got.partial == first.partial, f"partial: {name} {got.partial} != {first_name} {first.partial}"


def test_right_wrong_and_mixed_demo_samples_agree_everywhere(env, demo):
    rows, answers, samples = demo
    task_ids = ",".join(DEMO)
    code, cli = _cli_evaluate(samples, env / "cli", "--task-ids", task_ids)
    assert code == 0
    # what the sample set means, so that agreeing on something wrong cannot pass
    assert cli.counts == {
        "demo_java_hamming": (2, 1),
        "demo_py_gc_content": (2, 2),
        "demo_py_hamming": (2, 1),
        "demo_rosalind_rna": (2, 0),
    }
    assert cli.headline == {"pass@1": 0.5, "pass@2": 0.75} and cli.partial is False
    outcomes = {
        "biocoder evaluate": cli,
        "biocoder run": _cli_run(answers, env / "run"),
        "evaluate_run": _library(rows, samples, task_ids=tuple(DEMO)),
        "evaluate metric": _metric(list(DEMO), [answers[t] for t in DEMO], task_ids=list(DEMO)),
        "lm-eval": _lm_eval(rows, answers),
        "merge of 2 shards": _merge(samples, env / "merge", "--task-ids", task_ids),
    }
    _assert_all_equal(outcomes)


def test_partial_label_and_refusal_agree_everywhere(env, broken):
    from biocoder_metric.execution import GoldenFailuresError

    rows, answers, samples, tasks = broken
    refs = [json.dumps({k: v for k, v in r.items() if v is not None}) for r in rows]
    preds = [answers[r["task_id"]] for r in rows]

    # without allow-partial: every entry point refuses (exit 3, or the engine's error)
    code, _ = _cli_evaluate(samples, env / "strict", "--tasks", str(tasks))
    assert code == 3
    with pytest.raises(GoldenFailuresError, match="no_such_module_here"):
        _library(rows, samples)
    with pytest.raises(GoldenFailuresError, match="no_such_module_here"):
        _metric(refs, preds)
    with pytest.raises(GoldenFailuresError, match="no_such_module_here"):
        _lm_eval(rows, answers)

    # with it: the other task is scored, and every entry point says partial
    code, cli = _cli_evaluate(samples, env / "partial", "--tasks", str(tasks), "--allow-partial")
    assert code == 0
    assert (
        cli.counts == {"ep_ok": (2, 1)}
        and cli.headline == {"pass@1": 0.5, "pass@2": 1.0}
        and cli.partial is True
    )
    outcomes = {
        "biocoder evaluate": cli,
        "evaluate_run": _library(rows, samples, allow_partial=True),
        "evaluate metric": _metric(refs, preds, allow_partial=True),
    }
    os.environ["BIOCODER_ALLOW_PARTIAL"] = "1"
    try:
        outcomes["lm-eval"] = _lm_eval(rows, answers)
    finally:
        del os.environ["BIOCODER_ALLOW_PARTIAL"]
    outcomes["merge of 2 shards"] = _merge(
        samples,
        env / "merge-partial",
        "--tasks",
        str(tasks),
        "--allow-partial",
        merge_flags=("--allow-partial",),
    )
    _assert_all_equal(outcomes)


@pytest.fixture()
def ray_cluster(env):
    """A one-node Ray cluster on this machine, loopback only, 1 CPU (as tests/test_ray.py starts them)."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    ray = pytest.importorskip("ray", reason="Ray not installed (pip install 'biocoder-eval[ray]')")
    from ray.cluster_utils import Cluster

    c = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    ray.init(address=c.address, log_to_driver=False)
    c.wait_for_nodes()
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def test_the_ray_executor_agrees(env, demo, broken, ray_cluster):
    from biocoder_metric.execution.executors.ray_pool import CLOSED_POOL_STATS

    before = len(CLOSED_POOL_STATS)
    _, _, samples = demo
    task_ids = ",".join(DEMO)
    code, local = _cli_evaluate(samples, env / "ray-local", "--task-ids", task_ids)
    assert code == 0
    code, on_ray = _cli_evaluate(samples, env / "ray", "--task-ids", task_ids, "--executor", "ray")
    assert code == 0
    _assert_all_equal({"local": local, "ray": on_ray})
    _, _, bsamples, tasks = broken
    code, local = _cli_evaluate(bsamples, env / "ray-local-partial", "--tasks", str(tasks), "--allow-partial")
    assert code == 0
    code, on_ray = _cli_evaluate(
        bsamples, env / "ray-partial", "--tasks", str(tasks), "--allow-partial", "--executor", "ray"
    )
    assert code == 0
    _assert_all_equal({"local": local, "ray": on_ray})
    assert on_ray.partial is True
    # the candidates really ran on the Ray actors (one pool per run: candidates, goldens)
    assert sum(s.jobs for s in CLOSED_POOL_STATS[before:] if s.role == "candidate") >= 2 * len(DEMO)
