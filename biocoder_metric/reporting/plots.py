"""The report's figures, each saved as PNG (embedded in the HTML) and SVG (for papers).

matplotlib with the non-interactive Agg backend (no display needed, same output on CI
and laptops). Every function takes plain numbers, draws one figure and returns the
stem it wrote; the HTML module decides where each goes. Colours are matplotlib's
default cycle; sizes scale with the number of bars/rows so large runs stay legible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402

STATUS_ORDER = (
    "passed",
    "failed",
    "timeout",
    "compile_error",
    "runtime_error",
    "memory_exceeded",
    "sandbox_killed",
    "sandbox_error",
)
STATUS_COLORS = {
    "passed": "#2ca02c",
    "failed": "#d62728",
    "timeout": "#ff7f0e",
    "compile_error": "#9467bd",
    "runtime_error": "#8c564b",
    "memory_exceeded": "#e377c2",
    "sandbox_killed": "#8c564b",
    "sandbox_error": "#7f7f7f",
}


def _save(fig: Any, out_dir: Path, stem: str) -> str:
    """Write ``stem.png`` and ``stem.svg`` and close the figure (SVG without timestamps: reproducible)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out_dir / f"{stem}.png", dpi=110, metadata={"Software": None})
    fig.savefig(out_dir / f"{stem}.svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return stem


def _err(values: Sequence[float], lows: Sequence[float], highs: Sequence[float]) -> np.ndarray:
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, lows, highs))
    return np.vstack([np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)])


def grouped_bars_ci(
    out_dir: Path,
    stem: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[tuple[float | None, float | None, float | None]]],
    *,
    title: str,
    ylabel: str = "pass rate (%)",
) -> str:
    """Bars per group and series with CI whiskers; ``series[name][i] = (value, low, high)`` in 0..1."""
    names = list(series)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(groups))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(groups) * max(1, len(names)) + 2), 4.2))
    for i, name in enumerate(names):
        vals = [(v if v is not None else np.nan) for v, _, _ in series[name]]
        lows = [(lo if lo is not None else v if v is not None else np.nan) for v, lo, _ in series[name]]
        highs = [(hi if hi is not None else v if v is not None else np.nan) for v, _, hi in series[name]]
        v = 100 * np.asarray(vals, dtype=float)
        err = 100 * _err(vals, lows, highs)
        ax.bar(
            x + (i - (len(names) - 1) / 2) * width, v, width, yerr=np.nan_to_num(err), capsize=3, label=name
        )
    ax.set_xticks(x)
    ax.set_xticklabels(
        groups, rotation=30 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center"
    )
    ax.set_ylim(0, 105)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(names) > 1:
        ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out_dir, stem)


def status_breakdown(out_dir: Path, stem: str, counts: Mapping[str, Mapping[str, int]]) -> str:
    """Stacked horizontal bars: share of samples per status, one bar per run."""
    runs = list(counts)
    fig, ax = plt.subplots(figsize=(9, 1.6 + 0.6 * len(runs)))
    left = np.zeros(len(runs))
    for status in STATUS_ORDER:
        vals = np.array([counts[r].get(status, 0) for r in runs], dtype=float)
        if not vals.any():
            continue
        totals = np.array([max(1, sum(counts[r].values())) for r in runs], dtype=float)
        share = 100 * vals / totals
        ax.barh(runs, share, left=left, color=STATUS_COLORS.get(status), label=status)
        left += share
    ax.set_xlim(0, 100)
    ax.set_xlabel("samples (%)")
    ax.set_title("status breakdown")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, out_dir, stem)


def task_heatmap(
    out_dir: Path, stem: str, tasks: Sequence[str], runs: Sequence[str], rates: np.ndarray
) -> str:
    """Tasks (rows) x runs (columns) of the share of passing samples; NaN = not scored in that run."""
    height = min(40.0, 1.5 + 0.22 * len(tasks))
    fig, ax = plt.subplots(figsize=(2.5 + 1.2 * len(runs), height))
    im = ax.imshow(
        np.ma.masked_invalid(rates), aspect="auto", cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest"
    )
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels(runs, rotation=30, ha="right")
    if len(tasks) <= 120:
        ax.set_yticks(range(len(tasks)))
        ax.set_yticklabels(tasks, fontsize=7)
    else:
        ax.set_ylabel(f"{len(tasks)} tasks")
        ax.set_yticks([])
    fig.colorbar(im, ax=ax, label="passing samples (share)")
    ax.set_title("per-task pass rate")
    return _save(fig, out_dir, stem)


def rate_vs_size(
    out_dir: Path, stem: str, points: Mapping[str, Sequence[tuple[int, float]]], *, xlabel: str
) -> str:
    """Scatter of per-task pass rate against task size, one colour per run, with a binned mean line."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, pts in points.items():
        if not pts:
            continue
        xs = np.array([p[0] for p in pts], dtype=float)
        ys = 100 * np.array([p[1] for p in pts], dtype=float)
        ax.scatter(xs, ys, s=14, alpha=0.6, label=name)
        if len(xs) >= 6:
            edges = np.unique(np.quantile(xs, np.linspace(0, 1, 6)))
            mids, means = [], []
            for lo, hi in zip(edges[:-1], edges[1:], strict=True):
                sel = (xs >= lo) & (xs <= hi)
                if sel.any():
                    mids.append((lo + hi) / 2)
                    means.append(ys[sel].mean())
            ax.plot(mids, means, linewidth=1.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("passing samples (%)")
    ax.set_ylim(-5, 105)
    ax.set_title("pass rate against task size")
    if len(points) > 1:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, stem)


def paired_differences(out_dir: Path, stem: str, rows: Sequence[tuple[str, float, float, float]]) -> str:
    """Horizontal point + CI per comparison: ``(label, difference, low, high)`` in 0..1."""
    fig, ax = plt.subplots(figsize=(7, 1.4 + 0.5 * len(rows)))
    y = np.arange(len(rows))
    d = 100 * np.array([r[1] for r in rows])
    err = 100 * _err([r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])
    ax.errorbar(d, y, xerr=err, fmt="o", capsize=4)
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.set_xlabel("difference in pass rate (percentage points), 95% paired bootstrap CI")
    ax.set_title("paired differences between runs")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out_dir, stem)
