"""The `evaluate` metric module: loading offline (one script, PASSK_PATH), exact estimator values, doctests."""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import json
import math
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import evaluate
import pytest

import biocoder_metric
from biocoder_dataset.schema import empty_row

REPO = Path(__file__).resolve().parent.parent
#: The one metric script's folder (also the Hub Space folder); wheels carry a build-time copy.
MODULE_DIR = REPO / "biocoder_passk"


def _custom_row(name: str, golden: str) -> dict:
    """A one-function Python harness task row (``custom_<name>``), for JSON-row references."""
    row = empty_row()
    row.update(
        task_id=f"custom_{name}",
        config="custom",
        language="python",
        kind="harness",
        executable=True,
        function_name="f",
        signature="def f(x)",
        context="<<insert solution here>>\nprint(f(<|int;range=1,5|>))\n",
        golden_code=golden,
    )
    return row


def _script_module():
    """The metric script imported straight from its file (it is not a module of the packages)."""
    spec = importlib.util.spec_from_file_location("biocoder_passk_script", MODULE_DIR / "biocoder_passk.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


SANDBOX = {"sandbox": "bwrap"} if _bwrap_ok() else {"sandbox": "none", "allow_unsafe": True}


@pytest.fixture
def in_repo_root():
    old = os.getcwd()
    os.chdir(REPO)
    try:
        yield REPO
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def demo_rows():
    from biocoder_dataset.configs import load_problems

    return {r["task_id"]: r for r in load_problems("demo")}


def test_loads_offline_by_folder_file_and_bare_name(in_repo_root, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")
    for path in (str(MODULE_DIR), str(MODULE_DIR / "biocoder_passk.py"), "biocoder_passk"):
        metric = evaluate.load(path)
        assert type(metric).__name__ == "BiocoderPassk", path
        assert "pass@k" in metric.description and "Chen" in metric.citation


def test_passk_path_is_the_one_script_and_loads_from_any_directory(tmp_path, monkeypatch):
    """In a checkout / editable install PASSK_PATH is the repository's biocoder_passk/ folder;
    there is no second copy of the script in the tree (wheels get theirs from setup.py)."""
    assert Path(biocoder_metric.PASSK_PATH) == MODULE_DIR
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*biocoder_passk.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if tracked.returncode == 0:
        present = sorted(f for f in tracked.stdout.split() if (REPO / f).is_file())
        assert present == ["biocoder_passk/biocoder_passk.py"]
    assert "biocoder_passk/biocoder_passk.py" in (REPO / "setup.py").read_text()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_EVALUATE_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    metric = evaluate.load(biocoder_metric.PASSK_PATH)
    assert type(metric).__name__ == "BiocoderPassk"


@pytest.mark.parametrize("variable", ["BIOCODER_ALLOW_UNSAFE", "HF_ALLOW_CODE_EVAL"])
def test_unsandboxed_opt_in_from_either_variable(variable, tmp_path, monkeypatch):
    """`sandbox="none"` is refused without an opt-in; evaluate's HF_ALLOW_CODE_EVAL=1 counts as one."""
    from biocoder_metric.sandbox import SandboxError, make_sandbox

    for name in ("BIOCODER_ALLOW_UNSAFE", "HF_ALLOW_CODE_EVAL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SandboxError, match="BIOCODER_ALLOW_UNSAFE=1 \\(or HF_ALLOW_CODE_EVAL=1\\)"):
        make_sandbox("none")
    monkeypatch.setenv(variable, "1")
    monkeypatch.setenv("BIOCODER_CACHE_DIR", str(tmp_path))
    out = evaluate.load(str(MODULE_DIR)).compute(
        predictions=[["def f(x):\n    return 1 + x\n"]],
        references=[json.dumps(_custom_row("inc", "def f(x):\n    return x + 1\n"))],
        fuzz_cases=1,
        sandbox="none",
    )
    assert out["pass@1"] == 1.0 and out["details"]["sandbox"] == "none"


def test_compute_has_documented_explicit_arguments():
    module = _script_module()
    _KWARGS_DESCRIPTION, BiocoderPassk = module._KWARGS_DESCRIPTION, module.BiocoderPassk

    params = inspect.signature(BiocoderPassk._compute).parameters
    assert not any(p.kind == p.VAR_KEYWORD for p in params.values())
    for name in params:
        if name not in ("self", "predictions", "references"):
            assert f"{name} (" in _KWARGS_DESCRIPTION, f"argument {name} is not documented"
    assert isinstance(params["k"].default, tuple)


def _expected(nc: dict[str, tuple[int, int]], k: int) -> float | None:
    vals = [1 - Fraction(math.comb(n - c, k), math.comb(n, k)) for n, c in nc.values() if n >= k]
    return float(sum(vals) / len(vals)) if vals else None


def test_exact_estimator_values_on_a_synthetic_set(demo_rows, tmp_path, monkeypatch):
    monkeypatch.setenv("BIOCODER_CACHE_DIR", str(tmp_path))
    plan = {
        "demo_py_gc_content": (5, 2),
        "demo_py_hamming": (3, 0),
        "demo_py_revcomp": (4, 4),
        "demo_rosalind_rna": (2, 1),
        "demo_java_gc_content": (3, 1),
    }
    predictions, references = [], []
    for task_id, (n, c) in plan.items():
        row = demo_rows[task_id]
        mutant = json.loads(row["metadata"])["mutant_code"]
        cands = [row["golden_code"]] * c + [mutant] * (n - c)
        predictions.append(cands[1:] + cands[:1])  # passes not all first
        references.append(task_id)
    metric = evaluate.load(str(MODULE_DIR))
    strict = metric.compute(
        predictions=predictions,
        references=references,
        k=(1, 2, 3, 5),
        fuzz_cases=2,
        task_ids=list(plan),
        **SANDBOX,
    )
    # a task with fewer than k samples makes pass@k undefined, as in the CLI (never a smaller average)
    assert strict["pass@1"] == pytest.approx(_expected(plan, 1), abs=1e-12)
    assert strict["pass@2"] == pytest.approx(_expected(plan, 2), abs=1e-12)
    assert strict["pass@3"] is None and strict["pass@5"] is None
    out = metric.compute(
        predictions=predictions,
        references=references,
        k=(1, 2, 3, 5),
        fuzz_cases=2,
        task_ids=list(plan),
        allow_short_k=True,
        **SANDBOX,
    )
    for k in (1, 2, 3, 5):
        assert out[f"pass@{k}"] == pytest.approx(_expected(plan, k), abs=1e-12)
    details = out["details"]
    assert {t: (d["n"], d["c"]) for t, d in details["per_task"].items()} == plan
    assert details["per_task"]["demo_py_hamming"]["statuses"] == ["failed"] * 3
    assert details["insufficient_samples"]["pass@3"] == [{"task_id": "demo_rosalind_rna", "n": 2}]
    assert [d["task_id"] for d in details["insufficient_samples"]["pass@5"]] == sorted(
        set(plan) - {"demo_py_gc_content"}
    )
    assert details["excluded_tasks"] == []


def test_json_row_references_and_excluded_tasks(tmp_path, monkeypatch):
    monkeypatch.setenv("BIOCODER_CACHE_DIR", str(tmp_path))
    good = _custom_row("good", "def f(x):\n    return x + 1\n")
    broken = _custom_row("broken", "def f(x):\n    return 1 / 0\n")
    metric = evaluate.load(str(MODULE_DIR))
    kwargs = dict(
        predictions=[
            ["def f(x):\n    return 1 + x\n", "def f(x):\n    return x\n"],
            ["def f(x):\n    return 0\n"],
        ],
        references=[json.dumps(good), json.dumps(broken)],
        k=(1,),
        fuzz_cases=2,
        **SANDBOX,
    )
    # A golden that fails here: no score over a shrunken task set, unless asked for.
    with pytest.raises(RuntimeError, match=r"1 of 2 goldens fail in this environment"):
        metric.compute(**kwargs)
    out = metric.compute(allow_partial=True, **kwargs)
    assert out["pass@1"] == 0.5  # the broken task is not averaged in
    assert out["details"]["partial"] == {
        "scored": 1,
        "of": 2,
        "unscored_tasks": ["custom_broken"],
        "samples_left_out": 0,
    }
    assert out["partial"] is True
    (excluded,) = out["details"]["excluded_tasks"]
    assert excluded["task_id"] == broken["task_id"] and excluded["task_status"] == "golden_fails"
    assert "ZeroDivisionError" in excluded["reason"]
    with pytest.raises(ValueError, match="unknown task_id 'nope' in config 'demo'"):
        metric.compute(predictions=[["x"]], references=["nope"], **SANDBOX)


@pytest.mark.slow
def test_docstring_examples_run(in_repo_root):
    """The module's Examples are doctests that really run on the demo config (default sandbox)."""
    from biocoder_metric.sandbox import available_sandboxes

    if available_sandboxes() == ["none"]:
        pytest.skip("the examples use sandbox='auto': needs Docker or bubblewrap")
    module = _script_module()

    result = doctest.testmod(module, raise_on_error=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 6
    assert result.failed == 0


def test_denominator_is_the_config_not_the_referenced_tasks(demo_rows):
    """One demo task referenced: the other 20 are missing (an error naming them), or count as 0."""
    metric = evaluate.load(str(MODULE_DIR))
    golden = demo_rows["demo_py_gc_content"]["golden_code"]
    kwargs = dict(predictions=[[golden]], references=["demo_py_gc_content"], k=(1,), fuzz_cases=2, **SANDBOX)
    with pytest.raises(ValueError, match=r"20 of 21 tasks have no samples: demo_java_codon_count, ") as info:
        metric.compute(**kwargs)
    assert "demo_rosalind_rna" in str(info.value)
    out = metric.compute(allow_missing=True, **kwargs)
    assert out["pass@1"] == pytest.approx(1 / 21)
    assert len(out["details"]["missing"]["tasks"]) == 20 and out["details"]["missing"]["counted_as_zero"]
    out = metric.compute(task_ids=["demo_py_gc_content"], **kwargs)
    assert out["pass@1"] == 1.0 and out["details"]["missing"]["tasks"] == []
