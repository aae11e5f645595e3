"""Bootstrap confidence intervals for pass@k, and paired comparisons of two runs.

**Intervals: a two-level bootstrap.** A score moves for two reasons: the benchmark could
have drawn other tasks of the same kind, and the model could have drawn other samples for
the same task. Resampling tasks alone ignores the second: when every task has the same pass
fraction it prints a zero-width interval. So each resample draws tasks with replacement,
then each drawn task's correct count from ``Binomial(n, c / n)`` (its samples resampled),
and takes the mean per-task unbiased pass@k (Chen et al. 2021). Intervals are percentiles
of ``n_boot`` such resamples from ``numpy.random.default_rng(seed)``: the same inputs give
the same numbers (``summary.json`` stays byte-identical). ``n_boot`` defaults to 20,000,
where a bound's standard deviation between seeds is about 0.05 pp (under 0.1) on a run of 157 tasks
x 20 samples (``tests/test_ci.py``; 1,000 resamples moved bounds by about 0.5 pp). An interval of zero width is marked ``degenerate`` with a warning.

**Comparisons: an exact sign-flip test.** :func:`paired_bootstrap` keeps the pairing of
the tasks both runs scored (a task hard for A is usually hard for B). Its CI is the paired
bootstrap's; its p-value is a two-sided sign-flip (permutation) test of "mean difference 0":
under the null each task's difference is as likely to have either sign. With at most
:data:`EXACT_SIGN_FLIP_MAX` differing tasks every sign assignment is enumerated (exact p, so
7 differing tasks all in one direction give 2/128 = 0.0156, never less); with more, a Monte
Carlo test with ``(hits + 1) / (draws + 1)``. Ties with the observed statistic count as at
least as extreme, compared with a tolerance so float error cannot drop them. The method used
is reported with the p-value.
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
#: Up to this many differing tasks the sign-flip test enumerates all 2^m sign assignments.
EXACT_SIGN_FLIP_MAX = 20
#: Monte Carlo draws of the sign-flip test beyond that.
SIGN_FLIP_DRAWS = 200_000


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
    values: Iterable[float],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any] | None:
    """Percentile bootstrap interval of the mean of ``values`` (None when there are none)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return None
    _check(n_boot, level)
    return _interval(
        float(arr.mean()), _bootstrap_means(arr, n_boot, seed), int(arr.size), n_boot, seed, level
    )


def _check(n_boot: int, level: float) -> None:
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")


def _interval(
    mean: float, means: np.ndarray, tasks: int, n_boot: int, seed: int, level: float
) -> dict[str, Any]:
    """The percentile interval of resampled ``means`` around ``mean``; a zero-width one is flagged."""
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    out: dict[str, Any] = {
        "mean": mean,
        "low": float(low),
        "high": float(high),
        "std_err": float(means.std(ddof=1)) if n_boot > 1 else 0.0,
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "tasks": tasks,
        "degenerate": bool(high - low < 1e-12),
    }
    if out["degenerate"]:
        out["warning"] = (
            "zero-width interval: every resample gives the same score (all tasks pass or all fail "
            "every sample); it does not mean the score is certain"
        )
    return out


def _pass_at_k_vec(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Unbiased pass@k elementwise (``n == 0``, a missing task, is 0; ``n - c < k`` is 1)."""
    miss = np.ones(n.shape, dtype=float)
    for i in range(k):
        num = (n - c - i).astype(float)
        den = (n - i).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            miss *= np.where(den > 0, np.clip(num, 0, None) / np.where(den > 0, den, 1), 0.0)
    return np.where(n == 0, 0.0, 1.0 - miss)


def _two_level_means(ns: np.ndarray, cs: np.ndarray, k: int, n_boot: int, seed: int) -> np.ndarray:
    """Means of ``n_boot`` two-level resamples: tasks with replacement, then samples within each task."""
    rng = np.random.default_rng(seed)
    size = len(ns)
    out = np.empty(n_boot)
    chunk = max(1, 1_000_000 // max(size, 1))
    rate = np.where(ns > 0, cs / np.maximum(ns, 1), 0.0)
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, size, size=(stop - start, size))
        n = ns[idx]
        c = rng.binomial(n, rate[idx])
        out[start:stop] = _pass_at_k_vec(n, c, k).mean(axis=1)
    return out


def two_level_pass_at_k_ci(
    counts: Mapping[str, tuple[int, int]],
    k: int,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    require_all: bool = False,
) -> dict[str, Any] | None:
    """Two-level percentile bootstrap interval of mean pass@k (see the module docstring).

    None without tasks, and with ``require_all`` when a task has fewer than k samples (pass@k of
    the run is then undefined: :func:`biocoder_metric.scoring.passk.pass_at_k_summary`).
    """
    kept = {t: nc for t, nc in sorted(counts.items()) if nc[0] >= k or nc[0] == 0}
    if not kept or (require_all and len(kept) < len(counts)):
        return None
    _check(n_boot, level)
    ns = np.array([n for n, _ in kept.values()], dtype=np.int64)
    cs = np.array([c for _, c in kept.values()], dtype=np.int64)
    mean = float(_pass_at_k_vec(ns, cs, k).mean())
    return _interval(mean, _two_level_means(ns, cs, k, n_boot, seed), int(ns.size), n_boot, seed, level)


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
    require_all: bool = False,
) -> dict[str, dict[str, Any] | None]:
    """``{"pass@k": {mean, low, high, std_err, degenerate, ...} | None}`` for every k (two-level bootstrap)."""
    return {
        f"pass@{k}": two_level_pass_at_k_ci(
            counts, k, n_boot=n_boot, seed=seed, level=level, require_all=require_all
        )
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
    require_all: bool = False,
) -> dict[str, Any]:
    """The ``confidence_intervals`` block of ``summary.json``: overall and per config."""
    ks = sorted({int(k) for k in ks})
    block: dict[str, Any] = {
        "method": "two-level percentile bootstrap (tasks, then samples within each task) of the per-task unbiased pass@k",
        "level": level,
        "n_boot": n_boot,
        "seed": seed,
        "overall": pass_at_k_cis(counts, ks, n_boot=n_boot, seed=seed, level=level, require_all=require_all),
        "per_config": {},
    }
    if task_config:
        for config in sorted({task_config[t] for t in counts if t in task_config}):
            sub = {t: nc for t, nc in counts.items() if task_config.get(t) == config}
            block["per_config"][config] = pass_at_k_cis(
                sub, ks, n_boot=n_boot, seed=seed, level=level, require_all=require_all
            )
    return block


def sign_flip_test(
    diff: Iterable[float],
    *,
    seed: int = DEFAULT_SEED,
    exact_max: int = EXACT_SIGN_FLIP_MAX,
    draws: int = SIGN_FLIP_DRAWS,
) -> tuple[float, str]:
    """(two-sided p-value, method) of the sign-flip test of "mean difference 0" (module docstring)."""
    d = np.asarray(list(diff), dtype=float)
    d = d[np.abs(d) > 1e-12]
    m = int(d.size)
    if m == 0:
        return 1.0, "no task differs"
    observed = abs(float(d.sum()))
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if m <= exact_max:
        sums = np.zeros(1)
        for x in d:
            sums = np.concatenate([sums + x, sums - x])
        hits = int(np.count_nonzero(np.abs(sums) >= observed - tol))
        return hits / float(
            sums.size
        ), f"exact sign-flip test over the {m} tasks that differ (2^{m} assignments)"
    rng = np.random.default_rng(seed)
    hits = 0
    chunk = max(1, 2_000_000 // m)
    for start in range(0, draws, chunk):
        n = min(chunk, draws - start)
        signs = rng.integers(0, 2, size=(n, m)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
    return (hits + 1) / (
        draws + 1
    ), f"Monte Carlo sign-flip test over the {m} tasks that differ ({draws} draws)"


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
    p_value, p_method = sign_flip_test(diff, seed=seed)
    return {
        "tasks": len(common),
        "mean_a": float(np.mean([a[t] for t in common])),
        "mean_b": float(np.mean([b[t] for t in common])),
        "difference": observed,
        "low": float(low),
        "high": float(high),
        "p_value": float(p_value),
        "p_method": p_method,
        "tasks_differing": int(np.count_nonzero(np.abs(diff) > 1e-12)),
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
        if len(pa) < len(counts_a) or len(pb) < len(counts_b):
            out[f"pass@{k}"] = None  # a task with fewer than k samples: pass@k of that run is undefined
            continue
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
