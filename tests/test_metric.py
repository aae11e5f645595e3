"""The `evaluate` metric module: loading offline, exact estimator values, its doctests."""

from __future__ import annotations

import doctest
import inspect
import json
import math
import os
import shutil
from fractions import Fraction
from pathlib import Path

import evaluate
import pytest

from biocoder_dataset.schema import empty_row

REPO = Path(__file__).resolve().parent.parent
MODULE_DIR = REPO / "biocoder_metric" / "biocoder_passk"


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
    for path in (
        str(MODULE_DIR),
        str(MODULE_DIR / "biocoder_passk.py"),
        "biocoder_metric/biocoder_passk",
        "biocoder_passk",
    ):
        metric = evaluate.load(path)
        assert type(metric).__name__ == "BiocoderPassk", path
        assert "pass@k" in metric.description and "Chen" in metric.citation


def test_compute_has_documented_explicit_arguments():
    from biocoder_metric.biocoder_passk.biocoder_passk import _KWARGS_DESCRIPTION, BiocoderPassk

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
    out = metric.compute(
        predictions=predictions, references=references, k=(1, 2, 3, 5), fuzz_cases=2, task_ids=list(plan), **SANDBOX
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
    ctx = "<<insert solution here>>\nprint(f(<|int;range=1,5|>))\n"
    good, broken = empty_row(), empty_row()
    for row, name, golden in (
        (good, "good", "def f(x):\n    return x + 1\n"),
        (broken, "broken", "def f(x):\n    return 1 / 0\n"),
    ):
        row.update(
            task_id=f"custom_{name}",
            config="custom",
            language="python",
            kind="harness",
            executable=True,
            function_name="f",
            signature="def f(x)",
            context=ctx,
            golden_code=golden,
        )
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
    assert out["details"]["partial"] == {"scored": 1, "of": 2, "unscored_tasks": ["custom_broken"]}
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
    from biocoder_metric.biocoder_passk import biocoder_passk as module

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
