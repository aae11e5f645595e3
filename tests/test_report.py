"""``biocoder report`` / ``biocoder compare`` on real runs (demo samples through a real bwrap sandbox),
and the page opened in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tiny_model import REPO_ROOT

pytest.importorskip("matplotlib", reason="extra 'metrics' (matplotlib) not installed")
pytestmark = [
    pytest.mark.bwrap,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed"),
]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _biocoder(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"BIOCODER_CACHE_DIR": str(cache)} if cache else {})}
    return subprocess.run(
        [sys.executable, "-m", "biocoder_metric", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two real runs of the demo config: the shipped samples (A) and a weaker/stronger mix (B)."""
    tmp = tmp_path_factory.mktemp("runs")
    lines = [
        json.loads(x)
        for x in (REPO_ROOT / "examples" / "demo_samples.jsonl").read_text().splitlines()
        if x.strip()
    ]
    by_task: dict[str, list[dict]] = {}
    for d in lines:
        by_task.setdefault(d["task_id"], []).append(d)
    b_lines = []
    for i, (_, samples) in enumerate(sorted(by_task.items())):
        if i % 2 == 0:  # model B: on every other task all samples are the last one of A
            samples = [dict(s, completion=samples[-1]["completion"]) for s in samples]
        b_lines += samples
    (tmp / "b.jsonl").write_text("".join(json.dumps(d) + "\n" for d in b_lines), encoding="utf-8")
    out = {}
    for name, samples, extra in (
        ("A", REPO_ROOT / "examples" / "demo_samples.jsonl", ["--metrics", "codebleu,bleu"]),
        ("B", tmp / "b.jsonl", []),
    ):
        proc = _biocoder(
            "evaluate",
            "--config",
            "demo",
            "--samples",
            str(samples),
            "--out",
            str(tmp / name),
            "--sandbox",
            "bwrap",
            "--k",
            "1,2,3",
            "--fuzz-cases",
            "2",
            "--no-progress",
            *extra,
            cache=tmp / "cache",
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "95% CI (all)" in proc.stdout
        out[name] = tmp / name
    return out


def _per_task_rates(run: Path) -> dict[str, float]:
    counts: dict[str, list[int]] = {}
    for line in (run / "results.jsonl").read_text().splitlines():
        d = json.loads(line)
        nc = counts.setdefault(d["task_id"], [0, 0])
        nc[0] += 1
        nc[1] += d["status"] == "passed"
    return {t: c / n for t, (n, c) in counts.items()}


def test_summary_has_cis_and_text_metrics(runs) -> None:
    s = json.loads((runs["A"] / "summary.json").read_text())
    ci = s["confidence_intervals"]["overall"]["pass@1"]
    assert ci["mean"] == pytest.approx(s["pass@1"]) and ci["low"] <= s["pass@1"] <= ci["high"]
    assert ci["tasks"] == s["tasks"]["scored"] == 21
    assert set(s["text_metrics"]["codebleu"]["per_language"]) == {"java", "python"}
    assert (
        0 < s["text_metrics"]["codebleu"]["overall"] <= 1 and 0 < s["text_metrics"]["bleu"]["overall"] <= 100
    )
    assert "text_metrics" not in json.loads((runs["B"] / "summary.json").read_text())


def test_compare_matches_an_independent_paired_difference(runs) -> None:
    proc = _biocoder("compare", str(runs["B"]), str(runs["A"]), "--json", "--n-boot", "4000")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)["by_k"]["pass@1"]
    a, b = _per_task_rates(runs["A"]), _per_task_rates(runs["B"])
    diffs = np.array([b[t] - a[t] for t in sorted(a)])
    assert res["tasks"] == 21
    assert res["difference"] == pytest.approx(diffs.mean())
    assert res["low"] <= res["difference"] <= res["high"] and 0 < res["p_value"] <= 1
    assert sorted(res["only_a"]) == sorted(t for t in a if b[t] > 0 and a[t] == 0)
    table = _biocoder("compare", str(runs["B"]), str(runs["A"]))
    assert table.returncode == 0 and "p-value" in table.stdout and "| pass@1 | 21 |" in table.stdout
    same = json.loads(_biocoder("compare", str(runs["A"]), str(runs["A"]), "--json").stdout)["by_k"]["pass@1"]
    assert same["difference"] == 0 and same["p_value"] == 1.0
    bad = _biocoder("compare", str(runs["A"]), str(runs["A"].parent / "nothing"))
    assert bad.returncode == 2 and "not a directory" in bad.stderr


def _report(runs: list[Path], out: Path) -> dict:
    proc = _biocoder(
        "report", *map(str, runs), "--out", str(out), "--n-boot", "500", "--compare-n-boot", "2000"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "report.json").read_text())


def test_report_single_run(runs, tmp_path) -> None:
    data = _report([runs["A"]], tmp_path / "rep")
    page = (tmp_path / "rep" / "report.html").read_text()
    for stem in ("passk", "per_config", "per_repository", "statuses", "task_heatmap", "rate_vs_size"):
        assert stem in data["figures"]
        assert (tmp_path / "rep" / f"{stem}.png").stat().st_size > 1000
        assert (tmp_path / "rep" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
    assert "compare" not in data["tables"] and "paired_differences" not in data["figures"]
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    # every failed sample links to a block with its first failing case
    results = [json.loads(x) for x in (runs["A"] / "results.jsonl").read_text().splitlines()]
    failed = [r for r in results if r["status"] != "passed"]
    links = re.findall(r'href="#(fail-[^"]+)"', page)
    assert len(links) == len(failed) == 21
    for anchor in links:
        assert f'id="{anchor}"' in page
    r0 = failed[0]
    assert (r0["first_failure"]["expected_tail"] or "")[:30].replace("&", "&amp;").replace(
        "<", "&lt;"
    ) in page
    cis = json.loads((runs["A"] / "summary.json").read_text())["confidence_intervals"]["overall"]
    assert (
        data["runs"][0]["ci"]["pass@1"] == pytest.approx(cis["pass@1"])
        if cis["pass@1"]["n_boot"] == 500
        else True
    )


def test_report_two_models(runs, tmp_path) -> None:
    data = _report([runs["A"], runs["B"]], tmp_path / "rep2")
    assert "paired_differences" in data["figures"] and "compare" in data["tables"]
    cmp = data["comparisons"][0]["by_k"]["pass@1"]
    a, b = _per_task_rates(runs["A"]), _per_task_rates(runs["B"])
    assert cmp["difference"] == pytest.approx(np.mean([b[t] - a[t] for t in a]))
    page = (tmp_path / "rep2" / "report.html").read_text()
    for table_id in (
        "table-passk",
        "table-config",
        "table-repository",
        "table-status",
        "table-compare",
        "table-only-one",
        "table-text-metrics",
        "table-failures",
    ):
        assert f'id="{table_id}"' in page


# ----------------------------------------------------------------------------- real browser
def _render(page: Path) -> tuple[dict[str, str], str]:
    """Open ``page`` in headless Chromium; return <body>'s data-* attributes after load, and the browser log."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=5000",
                "--dump-dom",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    body = re.search(r"<body([^>]*)>", proc.stdout)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1))) if body else {}
    return attrs, proc.stderr


def _console_errors(log: str) -> list[str]:
    return [
        line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line or "Refused to" in line
    ]


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (scripts/install.sh installs the Debian package)"
)
def test_report_renders_in_a_headless_browser(runs, tmp_path) -> None:
    data = _report([runs["A"], runs["B"]], tmp_path / "rep3")
    page = tmp_path / "rep3" / "report.html"
    attrs, log = _render(page)
    assert attrs.get("ready") == "yes", log[-2000:]
    html = page.read_text()
    n_img = html.count("<img ")
    assert n_img == len(data["figures"]) >= 7
    assert attrs["images-total"] == attrs["images-loaded"] == str(n_img)
    assert int(attrs["tables"]) == html.count("<table ") >= 8
    assert attrs["js-errors"] == "0" and _console_errors(log) == []

    # the same checks catch a broken page: an image that does not decode, a script error, a network fetch
    broken = tmp_path / "broken.html"
    broken.write_text(
        html.replace('src="data:image/png;base64,', 'src="data:image/png;base64,AAAA', 1).replace(
            "</body>", '<script>undefinedFunction();</script><img src="http://127.0.0.1:9/x.png"></body>'
        )
    )
    bad, bad_log = _render(broken)
    assert int(bad["images-loaded"]) < int(bad["images-total"])
    assert bad["js-errors"] != "0" or _console_errors(bad_log)
