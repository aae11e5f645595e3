"""Shared pieces of the Python harness-synthesis tests: a golden's inferred kinds, a kind's
payload, and the rendered harness run on the host with the golden (or a variant) inserted."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
import textwrap

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.synth import python_harness, python_slice


def param_kinds(code: str) -> dict[str, list[str]]:
    """Each parameter's kinds as the harness analyses the golden (string defaults read as keys)."""
    code = textwrap.dedent(code)
    name = ast.parse(code).body[0].name
    return {p.name: p.kinds for p in python_harness.analyse(code, name).params}


def pipeline_context(golden: str, name: str) -> tuple[str, dict[str, str]]:
    """The best-guess harness the pipeline makes from the golden alone (no repository; stubs for
    names with no source), and its plan."""
    from biocoder_metric.synth import pipeline

    row = {
        "golden_code": textwrap.dedent(golden),
        "function_name": name,
        "language": "python",
        "task_id": name,
    }
    out, reason, _ = pipeline.python_candidates(row, pipeline.SynthOptions(), None, [])
    assert reason is None, reason
    return out[0][2], out[0][1]


def payload(kind: str, prefix: str):
    """The literal after ``prefix`` in a kind (``frame:[...]`` -> the list)."""
    assert kind.startswith(prefix), kind
    return ast.literal_eval(kind[len(prefix) :])


def run_harness(
    golden: str,
    name: str,
    seeds=(7,),
    *,
    label: str | None = None,
    code: str | None = None,
    class_name: str | None = None,
) -> list[str]:
    """stdout per seed of the harness synthesised from ``golden`` (the plan called ``label``,
    else the best guess), with ``code`` (default: the golden) inserted, run on the host."""
    golden = textwrap.dedent(golden)
    code = textwrap.dedent(code) if code is not None else golden
    sl = python_slice.slice_golden(golden, name)
    subject = (
        python_harness.analyse(golden, name, class_name=class_name)
        if class_name
        else python_harness.analyse(golden, name)
    )
    plans = python_harness.plans(subject)
    plan = next(p for p in plans if p.label == label) if label else plans[0]
    return run_context(python_harness.render(subject, sl, plan), code, seeds)


def run_context(ctx: str, code: str, seeds, cwd=None) -> list[str]:
    """stdout per seed of the harness ``ctx`` with ``code`` inserted at its marker, run on the
    host in ``cwd``, or in a fresh temporary folder: a harness writes its input files into its
    working directory, and a run from the checkout would leave them there."""
    if cwd is None:
        with tempfile.TemporaryDirectory() as tmp:
            return run_context(ctx, code, seeds, tmp)
    indent = re.search(r"^( *)" + re.escape(INSERT_MARKER), ctx, re.M).group(1)
    body = "\n".join(indent + ln if ln.strip() else ln for ln in code.splitlines())
    out = []
    for seed in seeds:
        prog = ctx.replace(indent + INSERT_MARKER, body).replace(python_harness.SEED_PLACEHOLDER, str(seed))
        run = subprocess.run(
            [sys.executable, "-c", prog], capture_output=True, text=True, timeout=60, check=True, cwd=cwd
        )
        out.append(run.stdout)
    return out


def returns_vary(golden: str, name: str, tmp_path, seeds=range(6)) -> list[str]:
    """The result line of every case of the best-guess harness the pipeline makes from the
    golden alone, the golden inserted; asserts that most cases returned (did not raise) and that
    they did not all return the same."""
    ctx, _ = pipeline_context(golden, name)
    outs = run_context(ctx, textwrap.dedent(golden), seeds, tmp_path)
    lines = [ln for o in outs for ln in o.splitlines() if ln.startswith(("result: ", "exception: "))]
    results = [ln for ln in lines if ln.startswith("result: ")]
    assert len(results) >= 0.7 * len(lines), lines
    assert len(set(results)) > 1, results
    return results


def run_program(prog: str, **kw) -> subprocess.CompletedProcess:
    """``python -c prog`` on the host in a fresh temporary folder (a harness writes its input
    files into its working directory; from the checkout they would be left there)."""
    with tempfile.TemporaryDirectory() as tmp:
        return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=tmp, **kw)


def told_apart(golden: str, name: str, variant: str, seeds=range(10)) -> int:
    """On how many seeds the best-guess harness the pipeline makes from the golden alone prints
    something else for ``variant`` than for the golden; each run in a fresh folder, as the
    sandbox runs each case (files one case writes are not there for the next)."""
    ctx, _ = pipeline_context(golden, name)
    golden, variant = textwrap.dedent(golden), textwrap.dedent(variant)
    return sum(run_context(ctx, golden, [s]) != run_context(ctx, variant, [s]) for s in seeds)
