"""The unbiased pass@k estimator against the combinatorial definition, and its summaries."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biocoder_metric.scoring.passk import estimate_pass_at_k, pass_at_k_summary


def _exact(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k) in exact rational arithmetic (independent of the product form)."""
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_matches_combinatorial_definition(nck):
    n, c, k = nck
    assert estimate_pass_at_k(n, c, k) == pytest.approx(_exact(n, c, k), rel=1e-12, abs=1e-12)


def test_known_values_and_edges():
    assert estimate_pass_at_k(10, 0, 1) == 0.0
    assert estimate_pass_at_k(10, 10, 5) == 1.0
    assert estimate_pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert estimate_pass_at_k(5, 1, 5) == 1.0  # n - c < k
    # large n stays finite where the naive binomial ratio would overflow floats
    assert estimate_pass_at_k(2000, 1, 1000) == pytest.approx(0.5)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 4), (3, 4, 1), (3, -1, 1), (3, 1, 0)])
def test_invalid_arguments(n, c, k):
    with pytest.raises(ValueError):
        estimate_pass_at_k(n, c, k)


def test_summary_per_task_per_config_and_insufficient_tasks():
    counts = {"a1": (5, 2), "a2": (5, 0), "b1": (2, 2), "b2": (1, 1)}
    configs = {"a1": "A", "a2": "A", "b1": "B", "b2": "B"}
    s = pass_at_k_summary(counts, [1, 2, 5], configs)
    assert s["k"] == [1, 2, 5]
    overall = s["overall"]
    assert overall["pass@k"]["pass@1"] == pytest.approx((0.4 + 0 + 1 + 1) / 4)
    # a task with fewer than k samples makes pass@k of the set undefined, never a smaller average
    assert overall["pass@k"]["pass@2"] is None and overall["pass@k"]["pass@5"] is None
    assert overall["tasks_scored"] == {"pass@1": 4, "pass@2": 0, "pass@5": 0}
    assert "subset" not in overall
    labelled = pass_at_k_summary(counts, [1, 2, 5], configs, subset_ok=True)["overall"]
    assert labelled["pass@k"]["pass@2"] == pytest.approx((_exact(5, 2, 2) + 0 + 1) / 3)
    assert labelled["pass@k"]["pass@5"] == pytest.approx((1 + 0) / 2)
    assert labelled["tasks_scored"] == {"pass@1": 4, "pass@2": 3, "pass@5": 2}
    assert labelled["subset"] == {"pass@2": {"tasks": 3, "of": 4}, "pass@5": {"tasks": 2, "of": 4}}
    assert overall["insufficient"]["pass@2"] == [{"task_id": "b2", "n": 1}]
    assert overall["insufficient"]["pass@5"] == [{"task_id": "b1", "n": 2}, {"task_id": "b2", "n": 1}]
    assert "pass@1" not in overall["insufficient"]
    assert s["per_config"]["A"]["pass@k"]["pass@1"] == pytest.approx(0.2)
    assert s["per_config"]["A"]["pass@k"]["pass@5"] == pytest.approx(0.5)  # both A tasks have 5 samples
    assert s["per_config"]["B"]["pass@k"]["pass@5"] is None  # no B task has 5 samples
    assert s["per_task"]["b2"] == {"n": 1, "c": 1, "pass@1": 1.0, "pass@2": None, "pass@5": None}


def test_a_short_task_makes_pass_at_k_undefined_in_the_summary_unless_asked_and_labelled():
    from biocoder_metric.scoring.summary import build_summary, render_summary
    from biocoder_metric.types import SampleResult

    results = [
        SampleResult(
            task_id=t, sample_index=i, status="passed" if i < c else "failed", completion="", program_hash=""
        )
        for t, n, c in (("a", 3, 1), ("b", 3, 3), ("c", 2, 2))
        for i in range(n)
    ]
    strict = build_summary(results, [1, 2, 3])
    assert strict["pass@1"] is not None and strict["pass@2"] is not None and strict["pass@3"] is None
    assert strict["confidence_intervals"]["overall"]["pass@3"] is None
    assert "pass@3: undefined: 1 tasks have fewer than k samples" in render_summary(strict)
    labelled = build_summary(results, [1, 2, 3], allow_short_k=True)
    assert labelled["pass_at_k_subset"] == {"pass@3": {"tasks": 2, "of": 3}}
    assert labelled["pass@3"] == pytest.approx((1.0 + 1.0) / 2)
    assert "over 2 of 3 tasks only (--allow-short-k)" in render_summary(labelled)
