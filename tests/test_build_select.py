"""``biocoder build select`` on real extracted functions (cnvkit, VarDictJava).

Checks that every rule's count adds up and names each dropped function, that existing
BioCoder tasks are found as duplicates (the 14 cnvkit goldens that are in the repository),
that the prefix-filtered search returns exactly what brute-force Jaccard returns, and that the
thresholds and the relevance settings change what is kept.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from biocoder_metric.build.extract_python import extract
from biocoder_metric.build.select import (
    NearDuplicateIndex,
    SelectConfig,
    code_tokens,
    existing_goldens,
    jaccard,
    select,
)

from _build_helpers import REPOS, UPSTREAM, biocoder, need, read_jsonl

pytestmark = pytest.mark.upstream


@pytest.fixture(scope="module")
def cnvkit_functions() -> list[dict]:
    functions, _, _ = extract(need(REPOS / "cnvkit", "the cnvkit snapshot"), "etal/cnvkit")
    return functions


@pytest.fixture(scope="module")
def harness_tasks() -> Path:
    return need(UPSTREAM / "python-harness" / "tasks.json", "python-harness/tasks.json")


def test_report_accounts_for_every_function(cnvkit_functions, harness_tasks):
    kept, report = select(cnvkit_functions, SelectConfig(), existing_goldens([harness_tasks]))
    counts = {name: r["dropped"] for name, r in report["rules"].items()}
    print(
        f"\ncnvkit select (defaults, against the 79 harness tasks): {report['input']} in, {report['kept']} kept, dropped {counts}"
    )
    assert report["input"] == len(cnvkit_functions) == report["kept"] + report["dropped"]
    assert sum(counts.values()) == report["dropped"] == len(report["dropped_functions"])
    kept_ids = {r["function_id"] for r in kept}
    for d in report["dropped_functions"]:
        assert d["function_id"] not in kept_ids and d["rule"] in counts and d["reason"]
    for rule in (
        "too_short",
        "too_many_params",
        "no_comment",
        "not_bioinformatics",
        "near_duplicate",
        "duplicate_of_existing_task",
    ):
        assert counts[rule] > 0, f"rule {rule} dropped nothing on cnvkit"
    for rec in kept:
        assert (
            SelectConfig().min_lines <= rec["numLines"] <= SelectConfig().max_lines and rec["comment"].strip()
        )


def test_existing_goldens_are_duplicates(cnvkit_functions, harness_tasks):
    cfg = replace(SelectConfig(), relevance=False, require_comment=False, min_lines=0, max_params=99)
    kept, report = select(cnvkit_functions, cfg, existing_goldens([harness_tasks]))
    dup = {
        d["signature"].split("def ")[-1].split("(")[0]: d["reason"]
        for d in report["dropped_functions"]
        if d["rule"] == "duplicate_of_existing_task"
    }
    print(f"\ncnvkit functions dropped as duplicates of existing BioCoder tasks: {len(dup)}")
    # the 14 goldens that are AST-identical to a function of this snapshot, and more that changed a little
    for name in (
        "modal_location",
        "_chr_x_label",
        "weighted_median",
        "biweight_location",
        "pca_sk",
        "AdjustBreaks",
        "HaarConv",
        "p_adjust_bh",
        "edge_losses",
        "absolute_clonal",
        "rolling_outlier_std",
        "_log2_ratio_to_absolute",
        "_reference_copies_pure",
        "_reference_expect_copies",
    ):
        assert name in dup, f"{name} was not recognised as an existing task"
        assert "with task py_" in dup[name]
    assert len(dup) >= 14
    assert not {r["functionName"] for r in kept} & set(dup)


def _brute_force(token_sets: list[set[str]], t: float) -> set[int]:
    """Indices a first-come greedy pass drops when any earlier kept set has Jaccard >= t."""
    kept: list[int] = []
    dropped = set()
    for i, s in enumerate(token_sets):
        if any(jaccard(s, token_sets[j]) >= t for j in kept):
            dropped.add(i)
        else:
            kept.append(i)
    return dropped


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.95])
def test_prefix_filter_is_exact(cnvkit_functions, threshold):
    sets = [code_tokens(r["content"], "python") for r in cnvkit_functions]
    freq: dict[str, int] = {}
    for s in sets:
        for tok in s:
            freq[tok] = freq.get(tok, 0) + 1
    index = NearDuplicateIndex(threshold, freq)
    dropped = set()
    for i, s in enumerate(sets):
        if index.best(s) is not None:
            dropped.add(i)
        else:
            index.add(i, s)
    assert dropped == _brute_force(sets, threshold)
    if threshold == 0.8:
        assert dropped  # real near-duplicates exist (rolling_std / rolling_quantile, bed readers, ...)


def test_thresholds_and_relevance_settings_change_the_result(cnvkit_functions):
    base = replace(SelectConfig(), relevance=False)
    _, loose = select(cnvkit_functions, replace(base, dedup_threshold=0.6))
    _, strict = select(cnvkit_functions, replace(base, dedup_threshold=1.0))
    assert loose["rules"]["near_duplicate"]["dropped"] > strict["rules"]["near_duplicate"]["dropped"]
    _, none = select(cnvkit_functions, replace(SelectConfig(), bio_imports=[], bio_keywords=[]))
    assert none["kept"] == 0 and none["rules"]["not_bioinformatics"]["dropped"] > 0
    kept, numpy_bio = select(
        cnvkit_functions, replace(SelectConfig(), bio_imports=["numpy"], bio_keywords=[])
    )
    imports_numpy = {r["function_id"]: any("numpy" in i for i in r["fileImports"]) for r in cnvkit_functions}
    assert kept and all(imports_numpy[r["function_id"]] for r in kept)
    irrelevant = [d for d in numpy_bio["dropped_functions"] if d["rule"] == "not_bioinformatics"]
    assert irrelevant and not any(imports_numpy[d["function_id"]] for d in irrelevant)


def test_select_cli_on_java(tmp_path):
    repo = need(REPOS / "VarDictJava", "the VarDictJava snapshot")
    java_public = need(UPSTREAM / "github-head" / "java_public.json", "java_public.json")
    functions = tmp_path / "functions.jsonl"
    biocoder(
        "build",
        "extract",
        "--repo",
        str(repo),
        "--repo-name",
        "AstraZeneca-NGS/VarDictJava",
        "--language",
        "java",
        "--out",
        str(functions),
        "--no-progress",
    )
    settings = tmp_path / "select.json"
    settings.write_text(json.dumps({"max_lines": 150, "dedup_threshold": 0.9}))
    proc = biocoder(
        "build",
        "select",
        "--functions",
        str(functions),
        "--out",
        str(tmp_path / "selected.jsonl"),
        "--report",
        str(tmp_path / "report.json"),
        "--select-config",
        str(settings),
        "--existing",
        str(java_public),
    )
    summary = json.loads(proc.stdout)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["config"]["max_lines"] == 150 and report["config"]["dedup_threshold"] == 0.9
    assert summary["kept"] == len(read_jsonl(tmp_path / "selected.jsonl")) == report["kept"]
    # upstream's VarDictJava methods that pass the filters are recognised as existing tasks
    assert report["rules"]["duplicate_of_existing_task"]["dropped"] >= 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"max_line": 3}))
    proc = biocoder(
        "build",
        "select",
        "--functions",
        str(functions),
        "--out",
        str(tmp_path / "x.jsonl"),
        "--select-config",
        str(bad),
        check=False,
    )
    assert proc.returncode == 2 and "unknown select settings ['max_line']" in proc.stderr
