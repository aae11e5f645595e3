"""Unbiased pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code").

Pure functions, no I/O. The one pass@k implementation of the project: the CLI, the
``evaluate`` metric and the lm-eval hooks all call :func:`estimate_pass_at_k` /
:func:`pass_at_k_summary`.

pass@k for one task with ``n`` samples of which ``c`` pass is ``1 - C(n-c, k) / C(n, k)``,
computed in the numerically stable product form ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``.
A task with fewer than ``k`` samples has no unbiased estimate: it is *listed* under
``insufficient`` with its ``n`` and left out of that ``k``'s average, never silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


def estimate_pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass@k for one task (requires ``n >= k >= 1`` and ``0 <= c <= n``)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples, got n={n}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def task_pass_at_k(n: int, c: int, k: int) -> float | None:
    """pass@k of one task in a summary: the estimate; ``None`` with fewer than k samples; and 0.0
    for a task with no sample at all (a *missing* task that the caller chose to count as 0
    correct, so the denominator stays the whole task set)."""
    if n == 0:
        return 0.0
    return estimate_pass_at_k(n, c, k) if n >= k else None


def _mean_over(counts: Mapping[str, tuple[int, int]], ks: Sequence[int], subset_ok: bool = False) -> dict:
    """pass@k averaged over the whole task set, plus the tasks with fewer than k samples.

    pass@k of a run is only defined when every task of its set has at least k samples (or
    none: a missing task counts as 0). Otherwise it is ``None``, never an average over fewer
    tasks than pass@1 is taken over under the same row (pass@3 could then fall below pass@2).
    ``subset_ok`` (``--allow-short-k``) averages over the tasks that have k samples instead,
    and ``subset`` records it so every table labels that value with its own task count.
    """
    out: dict = {"tasks": len(counts), "pass@k": {}, "tasks_scored": {}, "insufficient": {}, "subset": {}}
    for k in ks:
        ok = {t: nc for t, nc in counts.items() if nc[0] >= k or nc[0] == 0}
        short = sorted(
            ({"task_id": t, "n": nc[0]} for t, nc in counts.items() if 0 < nc[0] < k),
            key=lambda d: d["task_id"],
        )
        if ok and (not short or subset_ok):
            out["pass@k"][f"pass@{k}"] = float(np.mean([task_pass_at_k(n, c, k) for n, c in ok.values()]))
        else:
            out["pass@k"][f"pass@{k}"] = None
        out["tasks_scored"][f"pass@{k}"] = len(ok) if (not short or subset_ok) else 0
        if short:
            out["insufficient"][f"pass@{k}"] = short
            if subset_ok and ok:
                out["subset"][f"pass@{k}"] = {"tasks": len(ok), "of": len(counts)}
    if not out["subset"]:
        del out["subset"]
    return out


def pass_at_k_summary(
    counts: Mapping[str, tuple[int, int]],
    ks: Iterable[int],
    task_config: Mapping[str, str] | None = None,
    subset_ok: bool = False,
) -> dict:
    """pass@k per task, per config and overall.

        ``counts`` maps task_id -> (n, c) for the *scored* tasks only (excluded tasks are
        reported by the caller). ``task_config`` maps task_id -> config name for the
        per-config breakdown. A ``pass@k`` value is ``None`` when a task of the set has fewer than
    ``k`` samples (see :func:`_mean_over`; ``subset_ok`` relaxes it, labelled).
    """
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise ValueError(f"k values must be >= 1, got {ks}")
    per_task = {}
    for task_id in sorted(counts):
        n, c = counts[task_id]
        per_task[task_id] = {
            "n": n,
            "c": c,
            **{f"pass@{k}": task_pass_at_k(n, c, k) for k in ks},
        }
    overall = _mean_over(counts, ks, subset_ok)
    per_config = {}
    if task_config:
        for config in sorted({task_config[t] for t in counts}):
            per_config[config] = _mean_over(
                {t: nc for t, nc in counts.items() if task_config[t] == config}, ks, subset_ok
            )
    return {"k": ks, "overall": overall, "per_config": per_config, "per_task": per_task}
