"""``biocoder report``: runs in, ``report.html`` + plots + ``report.json`` out.

The numbers come from the runs' own files (pass@k from the per-task (n, c), CIs from the
seeded bootstrap in :mod:`~biocoder_metric.scoring.ci`), so the report never disagrees
with ``summary.json``. ``report.json`` holds every number the page shows, for scripts.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from biocoder_dataset import settings
from biocoder_metric.reporting import html as H
from biocoder_metric.reporting import plots
from biocoder_metric.reporting.runs import Run
from biocoder_metric.scoring.ci import bootstrap_mean_ci, compare_counts, format_ci, per_task_pass_at_k

REPORT_SCHEMA = "biocoder-report/1"
#: At most this many failed samples per run get a row and a details block (large runs stay openable).
MAX_FAILURES_PER_RUN = 1500


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.2f}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


#: Run settings that can change a verdict: comparing runs that differ in one compares apples to pears.
COMPARABLE_SETTINGS = (
    "config",
    "sandbox",
    "environment_id",
    "fuzz_cases",
    "timeout_s",
    "memory_mb",
    "seed",
    "rosalind_check",
    "plus",
    "include_weak",
    "case_batching",
)


def run_mismatches(a: Run, b: Run) -> list[str]:
    """Why ``a`` and ``b`` are not like for like: differing settings, environments or task sets."""
    ra, rb = a.summary.get("run") or {}, b.summary.get("run") or {}
    out = [
        f"{key}: {ra.get(key)!r} vs {rb.get(key)!r}"
        for key in COMPARABLE_SETTINGS
        if key in ra and key in rb and ra[key] != rb[key]
    ]
    ta, tb = set(a.counts), set(b.counts)
    if ta != tb:
        out.append(
            f"task sets differ: {len(ta - tb)} tasks only in A, {len(tb - ta)} only in B "
            "(compared on the tasks in both)"
        )
    return out


def compare_runs(
    a: Run, b: Run, *, n_boot: int = settings.COMPARE_N_BOOT, seed: int = settings.BOOTSTRAP_SEED
) -> dict[str, Any]:
    """Paired comparison of ``a`` minus ``b`` for every k both can estimate, over the headline task sets.

    Tasks each headline counts as 0 (missing, ``--allow-missing``) count as 0 here too, so the
    difference matches the headlines' difference when both runs share a task set.
    """
    ks = sorted(set(a.ks) & set(b.ks)) or [1]
    return {
        "a": a.name,
        "b": b.name,
        "k": ks,
        "by_k": compare_counts(a.counts, b.counts, ks, n_boot=n_boot, seed=seed),
        "missing_counted_as_zero": {"a": len(a.missing_counted_as_zero), "b": len(b.missing_counted_as_zero)},
        "mismatches": run_mismatches(a, b),
    }


def render_comparison(cmp: dict[str, Any]) -> str:
    """The ``biocoder compare`` table."""
    lines = [
        f"A = {cmp['a']}\nB = {cmp['b']}",
        "| metric | tasks | A | B | A - B | 95% CI | p-value |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, res in cmp["by_k"].items():
        if res is None:
            lines.append(f"| {key} | 0 | n/a | n/a | n/a | n/a | n/a |")
            continue
        lines.append(
            f"| {key} | {res['tasks']} | {_pct(res['mean_a'])}% | {_pct(res['mean_b'])}% | "
            f"{100 * res['difference']:+.2f} pp | [{100 * res['low']:+.2f}, {100 * res['high']:+.2f}] | {res['p_value']:.4f} |"
        )
    first = next((r for r in cmp["by_k"].values() if r), None)
    if first:
        lines.append("")
        lines.append(f"p-value: {first.get('p_method', 'paired bootstrap')}; CI: paired bootstrap over tasks")
        miss = cmp.get("missing_counted_as_zero") or {}
        if miss.get("a") or miss.get("b"):
            lines.append(
                f"missing tasks counted as 0, as in the headlines: {miss.get('a', 0)} in A, {miss.get('b', 0)} in B"
            )
        for why in cmp.get("mismatches") or []:
            lines.append(f"WARNING: the runs differ: {why}")
        lines.append(
            f"solved (some sample passes) only by A: {len(first['only_a'])} tasks {', '.join(first['only_a'][:10])}"
        )
        lines.append(f"solved only by B: {len(first['only_b'])} tasks {', '.join(first['only_b'][:10])}")
        if first["only_in_a"] or first["only_in_b"]:
            lines.append(
                f"not compared (scored in one run only): {len(first['only_in_a'])} in A, {len(first['only_in_b'])} in B"
            )
    return "\n".join(lines)


def build_report(
    runs: list[Run],
    out_dir: str | Path,
    *,
    n_boot: int = settings.N_BOOT,
    seed: int = settings.BOOTSTRAP_SEED,
    compare_n_boot: int = settings.COMPARE_N_BOOT,
) -> dict[str, Any]:
    """Write plots, ``report.html`` and ``report.json`` for ``runs`` into ``out_dir``; return the data."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ks = sorted({k for r in runs for k in r.ks})
    data: dict[str, Any] = {"schema": REPORT_SCHEMA, "runs": [], "k": ks, "n_boot": n_boot, "seed": seed}
    sections: list[tuple[str, str, str]] = []
    figures: list[str] = []

    # --- headline: pass@k with CIs per run
    head_rows, series = [], {}
    for run in runs:
        cis = run.cis(n_boot, seed)
        row: list[Any] = [
            run.name,
            run.summary.get("tasks", {}).get("scored"),
            run.summary.get("samples", {}).get("scored"),
        ]
        for k in ks:
            v, ci = run.summary.get(f"pass@{k}"), cis.get(f"pass@{k}")
            row += [_pct(v), format_ci(ci)]
        head_rows.append(row)
        series[run.name] = [
            (
                run.summary.get(f"pass@{k}"),
                (cis.get(f"pass@{k}") or {}).get("low"),
                (cis.get(f"pass@{k}") or {}).get("high"),
            )
            for k in ks
        ]
        entry = {
            "name": run.name,
            "dir": str(run.dir),
            "pass@k": {f"pass@{k}": run.summary.get(f"pass@{k}") for k in ks},
            "ci": cis,
        }
        plus = run.summary.get("plus")
        if plus:  # the evalplus-style second headline, with its own CI, beside the base one
            pcis = plus.get("confidence_intervals") or {}
            prow: list[Any] = [
                f"{run.name} (plus)",
                run.summary.get("tasks", {}).get("scored"),
                run.summary.get("samples", {}).get("scored"),
            ]
            for k in ks:
                prow += [_pct(plus.get(f"pass@{k}")), format_ci(pcis.get(f"pass@{k}"))]
            head_rows.append(prow)
            entry["plus"] = {
                "pass@k": {f"pass@{k}": plus.get(f"pass@{k}") for k in ks},
                "ci": pcis,
                "plus_only_failures": plus.get("plus_only_failures") or [],
            }
        data["runs"].append(entry)
    headers = ["run", "tasks scored", "samples scored"] + [h for k in ks for h in (f"pass@{k} (%)", "95% CI")]
    stem = plots.grouped_bars_ci(
        out, "passk", [f"pass@{k}" for k in ks], series, title="pass@k with 95% bootstrap CI over tasks"
    )
    figures.append(stem)
    sections.append(
        (
            "headline",
            "pass@k",
            H.table("table-passk", headers, head_rows, numeric=range(1, len(headers)))
            + H.figure(out, stem, "pass@k per run with 95% CI"),
        )
    )
    plus_rows = [
        [r["name"], f["task_id"], f["sample_index"], str(f.get("first_failure") or "")[:200]]
        for r in data["runs"]
        for f in (r.get("plus") or {}).get("plus_only_failures") or []
    ]
    if any(r.get("plus") for r in data["runs"]):
        sections.append(
            (
                "plus-only",
                "Samples that fail only the plus cases",
                H.table(
                    "table-plus-only", ["run", "task", "sample", "first plus failure"], plus_rows, numeric=[2]
                ),
            )
        )

    # --- per config
    configs = sorted({c for r in runs for c in (r.summary.get("per_config") or {})})
    if configs:
        rows, cseries = [], defaultdict(list)
        for run in runs:
            per_cfg = (run.summary.get("confidence_intervals") or {}).get("per_config") or {}
            for cfg in configs:
                block = (run.summary.get("per_config") or {}).get(cfg)
                if not block:
                    cseries[run.name].append((None, None, None))
                    continue
                cis = per_cfg.get(cfg) or {}
                rows.append(
                    [run.name, cfg, block.get("tasks")]
                    + [
                        x
                        for k in ks
                        for x in (_pct(block["pass@k"].get(f"pass@{k}")), format_ci(cis.get(f"pass@{k}")))
                    ]
                )
                ci1 = cis.get(f"pass@{ks[0]}") or {}
                cseries[run.name].append(
                    (block["pass@k"].get(f"pass@{ks[0]}"), ci1.get("low"), ci1.get("high"))
                )
        stem = plots.grouped_bars_ci(
            out, "per_config", configs, dict(cseries), title=f"pass@{ks[0]} per config"
        )
        figures.append(stem)
        hdr = ["run", "config", "tasks"] + [h for k in ks for h in (f"pass@{k} (%)", "95% CI")]
        sections.append(
            (
                "per-config",
                "Per config",
                H.table("table-config", hdr, rows, numeric=range(2, len(hdr)))
                + H.figure(out, stem, f"pass@{ks[0]} per config"),
            )
        )

    # --- per repository (or kind)
    k0 = 1 if 1 in ks else ks[0]
    groups = sorted({run.group_of(t) for run in runs for t in run.counts})
    rows, gseries = [], defaultdict(list)
    group_data: dict[str, dict[str, Any]] = {}
    for run in runs:
        per_task = per_task_pass_at_k(run.counts, k0)
        by_group: dict[str, list[float]] = defaultdict(list)
        for t, v in per_task.items():
            by_group[run.group_of(t)].append(v)
        group_data[run.name] = {}
        for g in groups:
            ci = bootstrap_mean_ci(by_group.get(g, []), n_boot=n_boot, seed=seed)
            group_data[run.name][g] = ci
            gseries[run.name].append((ci["mean"], ci["low"], ci["high"]) if ci else (None, None, None))
            if ci:
                rows.append([run.name, g, ci["tasks"], _pct(ci["mean"]), format_ci(ci)])
    data["per_group"] = {"k": k0, "groups": group_data}
    stem = plots.grouped_bars_ci(
        out, "per_repository", groups, dict(gseries), title=f"pass@{k0} per repository / task kind"
    )
    figures.append(stem)
    notes = "".join(
        f'<p class="note">{H.esc(r.name)}: {H.esc(r.problems_note)}</p>' for r in runs if r.problems_note
    )
    sections.append(
        (
            "per-repository",
            "Per repository",
            notes
            + H.table(
                "table-repository",
                ["run", "repository / kind", "tasks", f"pass@{k0} (%)", "95% CI"],
                rows,
                numeric=(2, 3),
            )
            + H.figure(out, stem, f"pass@{k0} per repository with 95% CI"),
        )
    )

    # --- statuses
    status = {run.name: run.status_counts() for run in runs}
    all_status = [s for s in plots.STATUS_ORDER if any(status[r].get(s) for r in status)] or ["passed"]
    stem = plots.status_breakdown(out, "statuses", status)
    figures.append(stem)
    data["status_counts"] = status
    sections.append(
        (
            "statuses",
            "Status breakdown",
            H.table(
                "table-status",
                ["run", *all_status],
                [[r, *[status[r].get(s, 0) for s in all_status]] for r in status],
                numeric=range(1, len(all_status) + 1),
            )
            + H.figure(out, stem, "share of samples per status"),
        )
    )

    # --- heatmap
    tasks = sorted({t for run in runs for t in run.counts})
    rates = np.full((len(tasks), len(runs)), np.nan)
    for j, run in enumerate(runs):
        for i, t in enumerate(tasks):
            if t in run.counts:
                n, c = run.counts[t]
                rates[i, j] = c / n if n else np.nan
    stem = plots.task_heatmap(out, "task_heatmap", tasks, [r.name for r in runs], rates)
    figures.append(stem)
    sections.append(
        ("heatmap", "Per-task heatmap", H.figure(out, stem, "share of passing samples per task and run"))
    )

    # --- pass rate vs size
    points = {}
    for run in runs:
        pts = []
        for t, (n, c) in run.counts.items():
            size = run.size_of(t)
            if size is not None and n:
                pts.append((size, c / n))
        points[run.name] = pts
    if any(points.values()):
        stem = plots.rate_vs_size(
            out, "rate_vs_size", points, xlabel="task context size (characters of harness, else golden)"
        )
        figures.append(stem)
        sections.append(
            (
                "size",
                "Pass rate against task size",
                H.figure(out, stem, "per-task pass rate against context size"),
            )
        )

    # --- comparisons (every run against the first)
    if len(runs) > 1:
        base = runs[0]
        comp_rows, diff_rows, only_rows, notes = [], [], [], []
        data["comparisons"] = []
        for other in runs[1:]:
            cmp = compare_runs(other, base, n_boot=compare_n_boot, seed=seed)
            data["comparisons"].append(cmp)
            notes += [f"{other.name} vs {base.name}: the runs differ: {why}" for why in cmp["mismatches"]]
            miss = cmp["missing_counted_as_zero"]
            if miss["a"] or miss["b"]:
                notes.append(
                    f"{other.name} vs {base.name}: missing tasks count as 0, as in the headlines "
                    f"({miss['a']} in {other.name}, {miss['b']} in {base.name})"
                )
            for key, res in cmp["by_k"].items():
                if res is None:
                    continue
                comp_rows.append(
                    [
                        other.name,
                        base.name,
                        key,
                        res["tasks"],
                        f"{100 * res['difference']:+.2f}",
                        f"[{100 * res['low']:+.2f}, {100 * res['high']:+.2f}]",
                        f"{res['p_value']:.4f}",
                    ]
                )
                diff_rows.append(
                    (f"{other.name} - {base.name} ({key})", res["difference"], res["low"], res["high"])
                )
            first = next((r for r in cmp["by_k"].values() if r), None)
            if first:
                only_rows += [[other.name, t] for t in first["only_a"]] + [
                    [base.name, t] for t in first["only_b"]
                ]
        body = H.table(
            "table-compare",
            ["run A", "run B", "metric", "tasks in both", "A - B (pp)", "95% CI", "p-value"],
            comp_rows,
            numeric=(3, 4, 6),
        )
        first_res = next((r for c in data["comparisons"] for r in c["by_k"].values() if r), None)
        if first_res:
            notes.insert(
                0, f"p-values: {first_res['p_method'].split(' over ')[0]} over tasks; CIs: paired bootstrap"
            )
        body += "".join(f'<p class="note">{H.esc(n)}</p>' for n in notes)
        if diff_rows:
            stem = plots.paired_differences(out, "paired_differences", diff_rows)
            figures.append(stem)
            body += H.figure(out, stem, "paired differences with 95% CI")
        body += "<h3>Tasks only one run solves</h3>" + H.table(
            "table-only-one", ["solved only by", "task"], only_rows
        )
        sections.append(("compare", "Paired comparison", body))

    # --- generation cost and text metrics
    gen_rows = [
        [
            r.name,
            *[
                (r.generation() or {}).get(k)
                for k in (
                    "total_time_cost",
                    "average_time_cost",
                    "average_time_cost_per_sample",
                    "tokens_per_s",
                    "generated_tokens",
                )
            ],
        ]
        for r in runs
    ]
    if any(r.generation() for r in runs):
        sections.append(
            (
                "generation",
                "Generation cost",
                H.table(
                    "table-generation",
                    [
                        "run",
                        "total_time_cost (s)",
                        "average_time_cost (s/task)",
                        "s/sample",
                        "tokens/s",
                        "tokens",
                    ],
                    gen_rows,
                    numeric=range(1, 6),
                ),
            )
        )
        data["generation"] = {r.name: r.generation() for r in runs}
    tm_rows = []
    for r in runs:
        tm = r.summary.get("text_metrics") or {}
        if tm:
            cb, bl = tm.get("codebleu") or {}, tm.get("bleu") or {}
            tm_rows.append(
                [
                    r.name,
                    "" if cb.get("overall") is None else f"{cb['overall']:.4f}",
                    "" if bl.get("overall") is None else f"{bl['overall']:.2f}",
                    tm.get("samples_total"),
                ]
            )
    if tm_rows:
        sections.append(
            (
                "text-metrics",
                "CodeBLEU and BLEU",
                H.table(
                    "table-text-metrics",
                    ["run", "CodeBLEU (0-1)", "BLEU (0-100)", "samples"],
                    tm_rows,
                    numeric=(1, 2, 3),
                ),
            )
        )

    # --- failed samples, each linked to its first failing case
    fail_rows, blocks = [], []
    for run in runs:
        failed = [
            r
            for r in run.results
            if r.status != "passed" and (r.extra or {}).get("task_status", "ok") == "ok"
        ]
        for r in failed[:MAX_FAILURES_PER_RUN]:
            anchor = f"fail-{_slug(run.name)}-{_slug(r.task_id)}-{r.sample_index}"
            fail_rows.append(
                [
                    run.name,
                    r.task_id,
                    r.sample_index,
                    r.status,
                    H.Raw(f'<a href="#{H.esc(anchor)}">first failing case</a>'),
                ]
            )
            blocks.append(
                H.failure_block(
                    anchor, f"{run.name} / {r.task_id} / sample {r.sample_index}: {r.status}", r.first_failure
                )
            )
        if len(failed) > MAX_FAILURES_PER_RUN:
            blocks.append(
                f'<p class="note">{H.esc(run.name)}: {len(failed) - MAX_FAILURES_PER_RUN} more failed samples not listed (see results.jsonl)</p>'
            )
    sections.append(
        (
            "failures",
            "Failed samples",
            H.table("table-failures", ["run", "task", "sample", "status", "details"], fail_rows, numeric=(2,))
            + "".join(blocks),
        )
    )

    excluded = [
        [r.name, e["task_id"], e["task_status"], e.get("reason")]
        for r in runs
        for e in r.summary.get("excluded_tasks") or []
    ]
    if excluded:
        sections.append(
            (
                "excluded",
                "Tasks not scored",
                H.table("table-excluded", ["run", "task", "status", "reason"], excluded),
            )
        )

    intro = (
        f'<p class="note">{len(runs)} run(s): '
        + ", ".join(H.esc(f"{r.name} ({r.dir})") for r in runs)
        + f". Confidence intervals: percentile bootstrap over tasks, {n_boot} resamples, seed {seed}; "
        f"paired comparisons: {compare_n_boot} resamples.</p>"
    )
    (out / "report.html").write_text(
        H.page("BioCoder evaluation report", sections, intro=intro), encoding="utf-8"
    )
    data["figures"] = figures
    data["tables"] = [s[0] for s in sections]
    (out / "report.json").write_text(
        json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"
    )
    return data
