"""Bootstrap CIs and the paired comparison, checked against independent computations.

Independent references: scipy's own bootstrap (different resampling code and draws) for the
task-level interval, a plain-Python two-level bootstrap (``random``, not numpy) for the
two-level one, the normal approximation of the mean's standard error, a coverage simulation
against a known true pass rate, exact enumeration with fractions and
``scipy.stats.permutation_test`` for the sign-flip p-value.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from biocoder_metric.reporting.build import compare_runs, render_comparison
from biocoder_metric.reporting.runs import Run
from biocoder_metric.scoring.ci import (
    bootstrap_mean_ci,
    compare_counts,
    paired_bootstrap,
    pass_at_k_cis,
    per_task_pass_at_k,
    sign_flip_test,
    two_level_pass_at_k_ci,
)
from biocoder_metric.scoring.summary import build_summary, render_summary
from biocoder_metric.types import SampleResult

scipy_stats = pytest.importorskip(
    "scipy.stats", reason="scipy (installed with the dev tools) is the independent reference"
)


def _synthetic_counts(tasks: int, n: int, seed: int) -> dict[str, tuple[int, int]]:
    """(n, c) per task: each task has its own true pass rate drawn from Beta(0.6, 0.9)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.9, size=tasks)
    return {f"t{i:03d}": (n, int(rng.binomial(n, p[i]))) for i in range(tasks)}


def _comb_pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k by exact binomial coefficients (independent of the product form in scoring.py)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def test_task_level_ci_matches_scipy_bootstrap_and_normal_approximation() -> None:
    counts = _synthetic_counts(200, 10, seed=1)
    for k in (1, 5):
        values = np.array([_comb_pass_at_k(n, c, k) for n, c in counts.values()])
        ci = bootstrap_mean_ci(values, n_boot=20_000, seed=3)
        assert ci is not None
        assert ci["mean"] == pytest.approx(values.mean(), abs=1e-12)
        ref = scipy_stats.bootstrap(
            (values,), np.mean, n_resamples=20_000, method="percentile", confidence_level=0.95, random_state=7
        ).confidence_interval
        assert ci["low"] == pytest.approx(ref.low, abs=0.006)
        assert ci["high"] == pytest.approx(ref.high, abs=0.006)
        se = values.std(ddof=1) / math.sqrt(len(values))
        assert ci["std_err"] == pytest.approx(se, rel=0.05)


def _python_two_level(
    counts: dict[str, tuple[int, int]], k: int, draws: int, seed: int
) -> tuple[float, float]:
    """A plain-Python two-level bootstrap: tasks with replacement, then each task's samples with replacement."""
    rng = random.Random(seed)
    items = list(counts.values())
    means = []
    for _ in range(draws):
        total = 0.0
        for _ in items:
            n, c = rng.choice(items)
            c_star = sum(rng.random() < c / n for _ in range(n))
            total += _comb_pass_at_k(n, c_star, k)
        means.append(total / len(items))
    means.sort()
    return means[int(0.025 * draws)], means[int(0.975 * draws) - 1]


def test_two_level_ci_matches_an_independent_implementation_and_is_stable() -> None:
    counts = _synthetic_counts(40, 6, seed=4)
    for k in (1, 3):
        ci = two_level_pass_at_k_ci(counts, k, seed=5)
        low, high = _python_two_level(counts, k, 3000, seed=6)
        assert ci["low"] == pytest.approx(low, abs=0.012) and ci["high"] == pytest.approx(high, abs=0.012)
        assert ci["mean"] == pytest.approx(np.mean([_comb_pass_at_k(n, c, k) for n, c in counts.values()]))
        # wider than resampling tasks alone: the samples within a task vary too
        task_only = bootstrap_mean_ci([_comb_pass_at_k(n, c, k) for n, c in counts.values()], seed=5)
        assert ci["high"] - ci["low"] > task_only["high"] - task_only["low"]
    big = _synthetic_counts(157, 20, seed=9)
    bounds = np.array(
        [[two_level_pass_at_k_ci(big, 1, seed=s)[b] for b in ("low", "high")] for s in range(6)]
    )
    assert bounds.std(axis=0, ddof=1).max() < 0.001  # < 0.1 pp between seeds at the default 20,000


def test_equal_pass_fractions_give_a_real_interval_and_a_degenerate_one_is_flagged() -> None:
    same = {
        f"t{i}": (3, 2) for i in range(21)
    }  # every task 2 of 3: resampling tasks alone gives [66.7, 66.7]
    assert bootstrap_mean_ci([2 / 3] * 21)["high"] - bootstrap_mean_ci([2 / 3] * 21)["low"] < 1e-12
    ci = pass_at_k_cis(same, [1])["pass@1"]
    assert ci["low"] < 0.6 < 0.74 < ci["high"] and not ci["degenerate"]
    solved = pass_at_k_cis({f"t{i}": (5, 5) for i in range(10)}, [1])["pass@1"]
    assert solved["degenerate"] and "zero-width" in solved["warning"]


def test_sign_flip_p_value_is_exact_and_matches_enumeration_and_scipy() -> None:
    # 7 differing tasks, all in one direction: 2 of 2^7 assignments are as extreme
    p, method = sign_flip_test([0.4] * 7 + [0.0] * 14)
    assert p == pytest.approx(2 / 128, abs=1e-15) and method.startswith("exact")
    rng = np.random.default_rng(3)
    for trial in range(5):
        d = list(rng.choice([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0], size=12))  # ties on purpose
        exact = Fraction(0)
        obs = abs(sum(Fraction(x) for x in d))
        nonzero = [Fraction(x) for x in d if x]
        for signs in itertools.product((1, -1), repeat=len(nonzero)):
            exact += abs(sum(s * x for s, x in zip(signs, nonzero, strict=True))) >= obs
        p, _ = sign_flip_test(d)
        assert p == pytest.approx(float(exact / 2 ** len(nonzero)) if nonzero else 1.0, abs=1e-12)
        ref = scipy_stats.permutation_test(
            (np.array(d),),
            lambda x: np.mean(x),
            permutation_type="samples",
            n_resamples=np.inf,
            alternative="two-sided",
        )
        assert p == pytest.approx(ref.pvalue, abs=1e-9), trial
    # beyond the exact limit: Monte Carlo, close to the normal approximation
    d = list(np.random.default_rng(4).normal(0.02, 0.3, size=60))
    p, method = sign_flip_test(d)
    assert method.startswith("Monte Carlo")
    z = abs(sum(d)) / math.sqrt(sum(x * x for x in d))
    assert p == pytest.approx(2 * scipy_stats.norm.sf(z), abs=0.02)


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
    # A small effect: 12 tasks one sample worse, all one direction: the exact sign-flip p-value
    counts_c = dict(counts_a)
    for t in list(counts_c)[:12]:
        n, c = counts_c[t]
        counts_c[t] = (n, max(0, c - 1))
    small = compare_counts(counts_a, counts_c, [1], n_boot=20_000, seed=2)["pass@1"]
    m = small["tasks_differing"]
    assert small["p_value"] == pytest.approx(2 / 2**m) and small["p_method"].startswith("exact")


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
                SampleResult(
                    task_id=t,
                    sample_index=i,
                    status="passed" if i < passes else "failed",
                    completion="",
                    program_hash="",
                )
            )
    summary = build_summary(results, [1, 2], {"a": "x", "b": "x", "c": "y", "d": "y"})
    cis = summary["confidence_intervals"]
    assert summary["pass@1"] == pytest.approx(cis["overall"]["pass@1"]["mean"])
    assert cis["overall"]["pass@1"]["low"] <= summary["pass@1"] <= cis["overall"]["pass@1"]["high"]
    assert set(cis["per_config"]) == {"x", "y"}
    assert build_summary(results, [1, 2], None)["confidence_intervals"]["overall"] == cis["overall"]
    table = render_summary(summary)
    assert "95% CI (all)" in table
    assert (
        f"[{100 * cis['overall']['pass@1']['low']:.1f}, {100 * cis['overall']['pass@1']['high']:.1f}]"
        in table
    )


def _run_of(name: str, passes: dict[str, int], n: int, missing: list[str], **settings_) -> Run:
    results = [
        SampleResult(
            task_id=t, sample_index=i, status="passed" if i < c else "failed", completion="", program_hash=""
        )
        for t, c in passes.items()
        for i in range(n)
    ]
    summary = build_summary(
        results,
        [1],
        None,
        {"config": "demo", "fuzz_cases": 5, **settings_},
        task_set=sorted([*passes, *missing]),
        missing=missing,
    )
    return Run(name=name, dir=Path(name), summary=summary, results=results)


def test_compare_counts_missing_tasks_as_the_headline_does_and_refuses_unlike_runs() -> None:
    tasks = [f"t{i:02d}" for i in range(21)]
    a = _run_of("A", {t: (i % 4) for i, t in enumerate(tasks)}, 3, [])
    b = _run_of("B", {t: (i % 3) for i, t in enumerate(tasks[:19])}, 3, tasks[19:])
    assert b.summary["task_set"]["tasks"] == 21 and len(b.missing_counted_as_zero) == 2
    cmp = compare_runs(a, b, n_boot=2000, seed=0)
    res = cmp["by_k"]["pass@1"]
    assert res["tasks"] == 21 and cmp["missing_counted_as_zero"] == {"a": 0, "b": 2}
    assert res["difference"] == pytest.approx(a.summary["pass@1"] - b.summary["pass@1"], abs=1e-12)
    assert cmp["mismatches"] == []
    c = _run_of("C", {t: 1 for t in tasks}, 3, [], fuzz_cases=10)
    assert any(m.startswith("fuzz_cases") for m in compare_runs(a, c, n_boot=200)["mismatches"])
    assert "missing tasks counted as 0" in render_comparison(cmp) and "exact sign-flip" in render_comparison(
        cmp
    )
