"""Bootstrap CIs and the paired comparison, checked against independent computations.

Independent references: scipy's own bootstrap (different resampling code and draws), the
normal approximation of the mean's standard error, a coverage simulation against a known
true pass rate, and scipy's paired t-test for the p-value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from biocoder_metric.reporting.ci import (
    bootstrap_mean_ci,
    compare_counts,
    paired_bootstrap,
    pass_at_k_cis,
    per_task_pass_at_k,
)
from biocoder_metric.scoring.summary import build_summary, render_summary
from biocoder_metric.types import SampleResult

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy (installed with the dev tools) is the independent reference")


def _synthetic_counts(tasks: int, n: int, seed: int) -> dict[str, tuple[int, int]]:
    """(n, c) per task: each task has its own true pass rate drawn from Beta(0.6, 0.9)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.9, size=tasks)
    return {f"t{i:03d}": (n, int(rng.binomial(n, p[i]))) for i in range(tasks)}


def _comb_pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k by exact binomial coefficients (independent of the product form in scoring.py)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_ci_matches_scipy_bootstrap_and_normal_approximation() -> None:
    counts = _synthetic_counts(200, 10, seed=1)
    for k in (1, 5):
        values = np.array([_comb_pass_at_k(n, c, k) for n, c in counts.values()])
        ci = pass_at_k_cis(counts, [k], n_boot=20_000, seed=3)[f"pass@{k}"]
        assert ci is not None
        assert ci["mean"] == pytest.approx(values.mean(), abs=1e-12)
        ref = scipy_stats.bootstrap(
            (values,), np.mean, n_resamples=20_000, method="percentile", confidence_level=0.95, random_state=7
        ).confidence_interval
        assert ci["low"] == pytest.approx(ref.low, abs=0.006)
        assert ci["high"] == pytest.approx(ref.high, abs=0.006)
        se = values.std(ddof=1) / math.sqrt(len(values))
        assert ci["std_err"] == pytest.approx(se, rel=0.05)
        assert ci["low"] == pytest.approx(values.mean() - 1.96 * se, abs=0.01)
        assert ci["high"] == pytest.approx(values.mean() + 1.96 * se, abs=0.01)


def test_ci_is_seeded_and_tasks_without_k_samples_are_left_out() -> None:
    counts = {**_synthetic_counts(30, 5, seed=2), "short": (2, 2)}
    a = pass_at_k_cis(counts, [1, 5], seed=11)
    b = pass_at_k_cis(counts, [1, 5], seed=11)
    c = pass_at_k_cis(counts, [1, 5], seed=12)
    assert a == b
    assert a["pass@1"]["std_err"] != c["pass@1"]["std_err"]  # another seed, other resamples
    assert a["pass@1"]["tasks"] == 31 and a["pass@5"]["tasks"] == 30
    assert "short" not in per_task_pass_at_k(counts, 5)
    assert pass_at_k_cis(counts, [10])["pass@10"] is None


def test_ci_coverage_on_known_truth() -> None:
    """About 95% of intervals from repeated synthetic benchmarks cover the true mean pass@1."""
    rng = np.random.default_rng(5)
    true_p = rng.beta(0.6, 0.9, size=60)
    truth = true_p.mean()
    covered = 0
    trials = 150
    for trial in range(trials):
        tasks = rng.integers(0, 60, size=60)  # a benchmark of 60 tasks drawn from the population
        counts = {f"t{i}": (10, int(rng.binomial(10, true_p[t]))) for i, t in enumerate(tasks)}
        ci = pass_at_k_cis(counts, [1], n_boot=400, seed=trial)["pass@1"]
        covered += ci["low"] <= truth <= ci["high"]
    assert 0.88 <= covered / trials <= 0.995


def test_paired_bootstrap_against_paired_t_test() -> None:
    counts_a = _synthetic_counts(150, 10, seed=8)
    rng = np.random.default_rng(9)
    # B = A with a few passes removed per task: correlated, slightly worse.
    counts_b = {t: (n, max(0, c - int(rng.integers(0, 3)))) for t, (n, c) in counts_a.items()}
    res = compare_counts(counts_a, counts_b, [1], n_boot=20_000, seed=1)["pass@1"]
    pa, pb = per_task_pass_at_k(counts_a, 1), per_task_pass_at_k(counts_b, 1)
    diff = np.array([pa[t] - pb[t] for t in sorted(pa)])
    assert res["difference"] == pytest.approx(diff.mean(), abs=1e-12)
    assert res["low"] <= res["difference"] <= res["high"]
    t = scipy_stats.ttest_rel([pa[t] for t in sorted(pa)], [pb[t] for t in sorted(pb)])
    assert res["p_value"] < 0.001 and t.pvalue < 0.001
    # A small effect: the bootstrap p-value agrees with the t-test's.
    counts_c = dict(counts_a)
    for t in list(counts_c)[:12]:
        n, c = counts_c[t]
        counts_c[t] = (n, max(0, c - 1))
    small = compare_counts(counts_a, counts_c, [1], n_boot=20_000, seed=2)["pass@1"]
    pc = per_task_pass_at_k(counts_c, 1)
    t_small = scipy_stats.ttest_rel([pa[x] for x in sorted(pa)], [pc[x] for x in sorted(pc)])
    assert small["p_value"] == pytest.approx(t_small.pvalue, abs=0.02)


def test_paired_bootstrap_identical_and_disjoint_runs() -> None:
    a = {"x": 1.0, "y": 0.0, "z": 0.5}
    same = paired_bootstrap(a, dict(a))
    assert same["difference"] == 0 and same["p_value"] == 1.0 and same["only_a"] == same["only_b"] == []
    res = paired_bootstrap({"x": 1.0, "y": 0.0, "w": 1.0}, {"x": 0.0, "y": 1.0, "v": 0.0})
    assert res["tasks"] == 2 and res["only_a"] == ["x"] and res["only_b"] == ["y"]
    assert res["only_in_a"] == ["w"] and res["only_in_b"] == ["v"]
    with pytest.raises(ValueError, match="no scored task in common"):
        paired_bootstrap({"x": 1.0}, {"y": 1.0})
    assert bootstrap_mean_ci([]) is None


def test_summary_carries_cis_and_table_prints_them() -> None:
    results = []
    for t, passes in (("a", 3), ("b", 1), ("c", 0), ("d", 2)):
        for i in range(3):
            results.append(
                SampleResult(task_id=t, sample_index=i, status="passed" if i < passes else "failed", completion="", program_hash="")
            )
    summary = build_summary(results, [1, 2], {"a": "x", "b": "x", "c": "y", "d": "y"})
    cis = summary["confidence_intervals"]
    assert summary["pass@1"] == pytest.approx(cis["overall"]["pass@1"]["mean"])
    assert cis["overall"]["pass@1"]["low"] <= summary["pass@1"] <= cis["overall"]["pass@1"]["high"]
    assert set(cis["per_config"]) == {"x", "y"}
    assert build_summary(results, [1, 2], None)["confidence_intervals"]["overall"] == cis["overall"]
    table = render_summary(summary)
    assert "95% CI (all)" in table
    assert f"[{100 * cis['overall']['pass@1']['low']:.1f}, {100 * cis['overall']['pass@1']['high']:.1f}]" in table
