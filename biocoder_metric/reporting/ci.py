"""Bootstrap confidence intervals for pass@k, and paired comparisons of two runs.

Why a bootstrap over *tasks*: the variation a reader cares about is "would the score
move if the benchmark had drawn other tasks of the same kind", so the resampling unit is
the task (its per-task unbiased pass@k, Chen et al. 2021), not the sample. Intervals are
percentile intervals from ``n_boot`` resamples of a ``numpy.random.default_rng(seed)``
generator, so the same inputs always give the same numbers (``summary.json`` stays
byte-identical between reruns).

For two runs, :func:`paired_bootstrap` resamples the tasks both runs scored and keeps the
pairing (a task hard for A is usually hard for B), which is much tighter than comparing
two independent intervals. Its p-value is two-sided, for the null "mean difference 0",
from the bootstrap distribution shifted to that null: ``(#{|d* - d| >= |d|} + 1) /
(n_boot + 1)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from biocoder_dataset import settings
from biocoder_metric.scoring.passk import task_pass_at_k

DEFAULT_N_BOOT = settings.N_BOOT
DEFAULT_SEED = settings.BOOTSTRAP_SEED
DEFAULT_LEVEL = settings.CI_LEVEL


def _bootstrap_means(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement) of ``values``; memory-bounded chunks."""
    rng = np.random.default_rng(seed)
    size = len(values)
    out = np.empty(n_boot)
    chunk = max(1, 2_000_000 // max(size, 1))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, size, size=(stop - start, size))
        out[start:stop] = values[idx].mean(axis=1)
    return out


def bootstrap_mean_ci(
    values: Iterable[float], *, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL
) -> dict[str, Any] | None:
    """Percentile bootstrap interval of the mean of ``values`` (None when there are none)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return None
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    means = _bootstrap_means(arr, n_boot, seed)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return {
        "mean": float(arr.mean()),
        "low": float(low),
        "high": float(high),
        "std_err": float(means.std(ddof=1)) if n_boot > 1 else 0.0,
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "tasks": int(arr.size),
    }


def per_task_pass_at_k(counts: Mapping[str, tuple[int, int]], k: int) -> dict[str, float]:
    """task_id -> unbiased pass@k for the tasks with at least ``k`` samples (sorted by id)."""
    # a task with n == 0 is a missing task counted as 0 correct (scoring.task_pass_at_k)
    return {t: task_pass_at_k(n, c, k) for t, (n, c) in sorted(counts.items()) if n >= k or n == 0}


def pass_at_k_cis(
    counts: Mapping[str, tuple[int, int]],
    ks: Iterable[int],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, dict[str, Any] | None]:
    """``{"pass@k": {mean, low, high, std_err, ...} | None}`` for every k (None: no task has k samples)."""
    return {
        f"pass@{k}": bootstrap_mean_ci(per_task_pass_at_k(counts, k).values(), n_boot=n_boot, seed=seed, level=level)
        for k in sorted({int(k) for k in ks})
    }


def summary_confidence_intervals(
    counts: Mapping[str, tuple[int, int]],
    ks: Iterable[int],
    task_config: Mapping[str, str] | None = None,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """The ``confidence_intervals`` block of ``summary.json``: overall and per config."""
    ks = sorted({int(k) for k in ks})
    block: dict[str, Any] = {
        "method": "percentile bootstrap over tasks of the per-task unbiased pass@k",
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "overall": pass_at_k_cis(counts, ks, n_boot=n_boot, seed=seed, level=level),
        "per_config": {},
    }
    if task_config:
        for config in sorted({task_config[t] for t in counts if t in task_config}):
            sub = {t: nc for t, nc in counts.items() if task_config.get(t) == config}
            block["per_config"][config] = pass_at_k_cis(sub, ks, n_boot=n_boot, seed=seed, level=level)
    return block


def paired_bootstrap(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    n_boot: int = settings.COMPARE_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """Mean of ``a[t] - b[t]`` over the tasks in both, with its paired bootstrap CI and p-value.

    Raises ``ValueError`` when the two share no task (nothing to compare).
    """
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("the two runs have no scored task in common")
    diff = np.array([a[t] - b[t] for t in common], dtype=float)
    observed = float(diff.mean())
    means = _bootstrap_means(diff, n_boot, seed)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    if np.all(diff == 0):
        p_value = 1.0
    else:
        extreme = int(np.count_nonzero(np.abs(means - observed) >= abs(observed)))
        p_value = (extreme + 1) / (n_boot + 1)
    return {
        "tasks": len(common),
        "mean_a": float(np.mean([a[t] for t in common])),
        "mean_b": float(np.mean([b[t] for t in common])),
        "difference": observed,
        "low": float(low),
        "high": float(high),
        "p_value": float(p_value),
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "only_a": [t for t in common if a[t] > 0 and b[t] == 0],
        "only_b": [t for t in common if b[t] > 0 and a[t] == 0],
        "only_in_a": sorted(set(a) - set(b)),
        "only_in_b": sorted(set(b) - set(a)),
    }


def compare_counts(
    counts_a: Mapping[str, tuple[int, int]],
    counts_b: Mapping[str, tuple[int, int]],
    ks: Iterable[int],
    *,
    n_boot: int = settings.COMPARE_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, dict[str, Any] | None]:
    """Paired comparison for every k on the tasks both runs scored with at least k samples."""
    out: dict[str, dict[str, Any] | None] = {}
    for k in sorted({int(k) for k in ks}):
        pa, pb = per_task_pass_at_k(counts_a, k), per_task_pass_at_k(counts_b, k)
        try:
            out[f"pass@{k}"] = paired_bootstrap(pa, pb, n_boot=n_boot, seed=seed, level=level)
        except ValueError:
            out[f"pass@{k}"] = None
    return out


def format_ci(ci: Mapping[str, Any] | None, *, percent: bool = True) -> str:
    """``[low, high]`` for tables (``n/a`` without an interval)."""
    if not ci:
        return "n/a"
    scale = 100 if percent else 1
    return f"[{scale * ci['low']:.1f}, {scale * ci['high']:.1f}]"
