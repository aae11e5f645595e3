"""Validation of synthesised harnesses in a real sandbox, and the `biocoder build harness` command.

Fixture functions are written here (trusted); they run in bubblewrap when it works on this
machine. The held-back check on real tasks runs in Docker (marker ``docker``).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from biocoder_dataset.schema import empty_row
from biocoder_metric.execution import EvalOptions, run_evaluation
from biocoder_metric.execution.executors.local import SandboxPool
from biocoder_metric.synth import python_harness, python_slice
from biocoder_metric.synth.pipeline import SynthOptions, candidates, synthesize_task
from biocoder_metric.synth.validate import validate

ROOT = Path(__file__).resolve().parent.parent


def _bwrap_ok() -> bool:
    if shutil.which("bwrap") is None:
        return False
    from biocoder_metric.sandbox.bubblewrap import bwrap_works

    return bwrap_works()


needs_bwrap = pytest.mark.skipif(not _bwrap_ok(), reason="needs a working bubblewrap sandbox")


def _row(task_id: str, golden: str, name: str) -> dict:
    row = empty_row()
    row.update(
        task_id=task_id,
        config="unit",
        language="python",
        kind="golden_only",
        executable=False,
        function_name=name,
        signature=f"def {name}(...)",
        golden_code=golden,
    )
    return row


GC = '''def gc_fraction(seq):
    """Fraction of G and C in a DNA sequence."""
    if not seq:
        return 0.0
    gc = 0
    for base in seq.upper():
        if base == "G" or base == "C":
            gc += 1
    return round(gc / len(seq), 4)
'''
CONSTANT = 'def version(seq):\n    return "1.0"\n'
ALWAYS_RAISES = 'def boom(k):\n    raise ValueError("no")\n'


@pytest.fixture(scope="module")
def pool():
    if not _bwrap_ok():
        pytest.skip("needs a working bubblewrap sandbox")
    p = SandboxPool(EvalOptions(sandbox="bwrap", workers=1), 1)
    yield p
    p.close()


@needs_bwrap
@pytest.mark.bwrap
def test_a_good_function_validates_and_kills_mutants(pool):
    row = _row("u_gc", GC, "gc_fraction")
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap", fuzz_cases=4, mutant_limit=6))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["runs"] == 3 and v["golden_error_cases"] == 0 and v["distinct_outputs"] >= 2
    assert v["mutants_total"] >= 5 and v["mutants_killed"] >= 1
    non_equivalent = v["mutants_judged"] - v["mutants_likely_equivalent"]
    assert (
        v["mutation_score"] == round(v["mutants_killed"] / non_equivalent, 4) and v["mutation_score"] >= 0.8
    )
    assert v["null_candidates_passed"] == [] and v["return_unobserved"] is False and v["result_signals"] >= 2
    assert v["heldout_total"] >= 1 and v["heldout_mutation_score"] is not None  # both families recorded
    assert rec["plan"]["seq"] == "str_dna"


@needs_bwrap
@pytest.mark.bwrap
def test_constant_output_and_always_raising_goldens_are_rejected(pool):
    rec = synthesize_task(
        pool, _row("u_const", CONSTANT, "version"), SynthOptions(sandbox="bwrap", fuzz_cases=3)
    )
    assert rec["status"] == "failed" and "does not vary" in rec["reason"]
    rec = synthesize_task(
        pool, _row("u_boom", ALWAYS_RAISES, "boom"), SynthOptions(sandbox="bwrap", fuzz_cases=3)
    )
    assert rec["status"] == "failed" and "golden raises on" in rec["reason"]


def test_exceptions_the_golden_raises_itself_may_be_half_the_calls_others_a_fifth():
    """A validator's own ``raise`` is its behaviour (the harness prints the type and compares it);
    a ``TypeError`` from an input that does not fit is not. Both count towards the half."""
    from biocoder_metric.synth.validate import error_gate, own_exceptions

    golden = (
        "def check(code, table):\n"
        "    if code not in table: raise errors.UnknownCode(code)\n"
        "    if table[code] < 0:\n"
        "        raise ValueError\n"
        "    try:\n        return 1 / table[code]\n    except ZeroDivisionError:\n        raise\n"
    )
    assert own_exceptions(golden, "python") == {"UnknownCode", "ValueError"}
    java = 'int f(int x) { if (x < 0) throw new IllegalArgumentException("x"); return x; }'
    assert own_exceptions(java, "java") == {"IllegalArgumentException"}

    def calls(ok: int, **raised: int) -> list[str]:
        return ["result: 1"] * ok + [f"exception: {t}" for t, n in raised.items() for _ in range(n)]

    assert error_gate(calls(6, UnknownCode=2, ValueError=2), golden, "python") is None
    assert error_gate(calls(6, TypeError=4), golden, "python") is not None  # not its own: a fifth
    assert error_gate(calls(8, TypeError=2), golden, "python") is None
    assert error_gate(calls(4, UnknownCode=6), golden, "python") is not None  # most calls must return
    assert error_gate(calls(5, UnknownCode=3, TypeError=3), golden, "python") is not None
    assert error_gate(calls(6, IllegalArgumentException=4), java, "java") is None


#: Made-up validators: whether the golden returns depends on arguments agreeing with each other
#: (a chromosome the table knows, a whole number of codons), and rejecting is half their job.
VALIDATORS = {
    "span_on": '''def span_on(chrom, start, end, sizes):
    """Length of ``start``-``end`` (0-based, half-open) on ``chrom``; ``sizes`` maps chromosome names
    to lengths. Raises KeyError for an unknown chromosome, ValueError for an interval off it."""
    if chrom not in sizes:
        raise KeyError(chrom)
    if not 0 <= start < end <= sizes[chrom]:
        raise ValueError("bad interval %s:%d-%d" % (chrom, start, end))
    return end - start
''',
    "nth_codon": '''def nth_codon(orf, n):
    """The ``n``-th codon (0-based) of an open reading frame, upper-cased. Raises ValueError when
    ``orf`` is not whole codons or has no ``n``-th codon."""
    if len(orf) % 3:
        raise ValueError("not whole codons")
    if not 0 <= n < len(orf) // 3:
        raise ValueError("no codon %d" % n)
    return orf[3 * n : 3 * n + 3].upper()
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(VALIDATORS))
def test_validators_get_agreeing_arguments_and_their_own_rejections_count_as_behaviour(pool, name: str):
    """``chrom not in sizes`` makes ``chrom`` one of the table's keys in most cases, and
    ``len(orf) % 3`` makes ``orf`` whole codons in most; the rest are rejected by the golden's own
    ``raise``, which is compared like a result. Before, every plan raised on most calls and none
    validated."""
    rec = synthesize_task(pool, _row(f"u_{name}", VALIDATORS[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert 0 < v["golden_error_cases"] <= v["calls"] // 2, v  # both outcomes are tested
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []


#: Made-up searches and column readers: a motif never met in a random sequence, a column
#: number past the fields of a random record (before, every plan's output was one constant, or
#: the golden raised on every call).
SEARCHES = {
    "motif_count": '''import re


def motif_count(seq, motif, ignore_case=False):
    """Non-overlapping matches of the regular expression ``motif`` in ``seq``."""
    flags = re.IGNORECASE if ignore_case else 0
    return len(re.findall(motif, seq, flags))
''',
    "site_spans": '''import re


def site_spans(site, sequence, offset=0):
    """(start, end) of every match of ``site`` in ``sequence``, shifted by ``offset``."""
    rx = re.compile(site)
    return [(m.start() + offset, m.end() + offset) for m in rx.finditer(sequence.upper())]
''',
    "locus_cols": '''def locus_cols(line, chrom_col=1, start_col=2, end_col=3):
    """(chrom, start, end) from the given 1-based columns of a whitespace-separated line."""
    f = line.split()
    return f[chrom_col - 1], int(f[start_col - 1]), int(f[end_col - 1])
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_a_pattern_is_found_in_what_it_searches_and_a_computed_column_exists(pool, name: str):
    """``re.findall(motif, seq)`` / ``rx.finditer(sequence.upper())`` make the pattern a piece of
    the string searched in most cases (python_lookups); ``f[start_col - 1]`` with ``int()`` makes
    the line a long enough run of numbers (python_text)."""
    rec = synthesize_task(pool, _row(f"u_{name}", SEARCHES[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []


@needs_bwrap
@pytest.mark.bwrap
def test_nondeterministic_golden_is_rejected(pool):
    golden = "def pick(n):\n    import os\n    return n + int.from_bytes(os.urandom(2), 'big')\n"
    row = _row("u_rand", golden, "pick")
    (_, _, ctx), *_ = candidates(row, SynthOptions())[0]
    v = validate(pool, dict(row, context=ctx, kind="harness", executable=True), fuzz_cases=2)
    assert not v.passed and "nondeterministic" in v.reason


@needs_bwrap
@pytest.mark.bwrap
def test_cli_builds_resumes_and_rows_evaluate(tmp_path: Path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        json.dumps(_row("u_gc", GC, "gc_fraction"))
        + "\n"
        + json.dumps(_row("u_const", CONSTANT, "version"))
        + "\n"
    )
    out = tmp_path / "built.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "biocoder_metric",
        "build",
        "harness",
        "--tasks",
        str(tasks),
        "--out",
        str(out),
        "--sandbox",
        "bwrap",
        "--fuzz-cases",
        "3",
        "--mutants",
        "5",
        "--no-progress",
        "--workers",
        "1",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "python: 1/2 validated" in done.stdout
    rows = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["u_gc"]["executable"] and rows["u_gc"]["harness_source"] == "synthesized"
    assert not rows["u_const"]["executable"]
    report = tmp_path / "built.report.jsonl"
    assert len(report.read_text().splitlines()) == 2
    # Rerun: resumes from the report (nothing is appended).
    again = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert again.returncode == 0 and len(report.read_text().splitlines()) == 2
    # The built row is judged by the engine: golden passes, a wrong candidate fails.
    wrong = GC.replace('base == "G" or base == "C"', 'base == "G"')
    run = run_evaluation(
        [rows["u_gc"]],
        [{"task_id": "u_gc", "completion": GC}, {"task_id": "u_gc", "completion": wrong}],
        EvalOptions(sandbox="bwrap", workers=1, fuzz_cases=3, golden_cache_dir=str(tmp_path / "g")),
        progress=False,
    )
    assert [r.status for r in run.results] == ["passed", "failed"]


@pytest.mark.docker
@pytest.mark.upstream
@pytest.mark.slow
def test_held_back_real_tasks_golden_passes_mutants_fail(upstream_dir: Path, tmp_path: Path):
    """Real java_public tasks never used while writing the generators: built via the CLI, judged by the engine."""

    held_back = "java_53a98b0106ad,java_d6d476e5c9e7"  # geometricMean, reverse
    out = tmp_path / "java.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "biocoder_metric",
        "build",
        "harness",
        "--config",
        "java_public",
        "--source-dir",
        str(upstream_dir),
        "--task-ids",
        held_back,
        "--out",
        str(out),
        "--sandbox",
        "docker",
        "--fuzz-cases",
        "3",
        "--mutants",
        "4",
        "--max-plans",
        "1",
        "--no-progress",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1200)
    if done.returncode != 0 and "Docker" in done.stderr:
        pytest.skip(f"docker sandbox unavailable: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr
    rows = [r for r in map(json.loads, out.read_text().splitlines()) if r["executable"]]
    assert rows, "no held-back task validated"
    from biocoder_metric.validity.audit import golden_mutants

    samples = []
    for r in rows:
        samples.append({"task_id": r["task_id"], "completion": r["golden_code"], "label": "golden"})
        samples += [
            {"task_id": r["task_id"], "completion": code, "label": "mutant"}
            for _, code in golden_mutants(r, 3)
        ]
    run = run_evaluation(
        rows,
        samples,
        EvalOptions(sandbox="docker", workers=2, fuzz_cases=3, golden_cache_dir=str(tmp_path / "g")),
        progress=False,
    )
    by_label = {}
    for s, res in zip(sorted(samples, key=lambda s: s["task_id"]), run.results, strict=False):
        by_label.setdefault(s["label"], []).append(res.status)
    assert set(by_label["golden"]) == {"passed"}
    assert any(st != "passed" for st in by_label["mutant"])


def _harness_row(task_id: str, golden: str, name: str, context: str) -> dict:
    return dict(_row(task_id, golden, name), context=context, kind="harness", executable=True)


@needs_bwrap
@pytest.mark.bwrap
def test_validation_cannot_be_met_vacuously(pool):
    """A golden whose body is ``pass`` with a harness that echoes its inputs; a harness that
    prints only the function's own log line; an ``__eq__`` that returns False; a method that
    ignores its arguments; and no mutants at all: none of them validates."""
    echo = "<<insert solution here>>\nx = <|int;range=1,99|>\nprint('input', x)\nprint(f(x))\n"
    v = validate(pool, _harness_row("u_pass", "def f(x):\n    pass\n", "f", echo), fuzz_cases=3)
    assert not v.passed and "null candidate passes" in v.reason, v.reason

    logged = "def f(x):\n    print('computing', x)\n    return x * 2 + 1\n"
    quiet = "<<insert solution here>>\nx = <|int;range=1,99|>\nf(x)\n"
    v = validate(pool, _harness_row("u_log", logged, "f", quiet), fuzz_cases=3)
    assert not v.passed and "never observed" in v.reason, v.reason

    eq_false = (
        "class Seq:\n    def __init__(self, s):\n        self.s = s\n"
        "    <<insert solution here>>\n"
        "a = Seq(<|string;length=2,4;custom=AC|>)\nprint(a.s, a == Seq(a.s))\n"
    )
    v = validate(
        pool,
        _harness_row("u_eq", "def __eq__(self, other):\n    return False\n", "__eq__", eq_false),
        fuzz_cases=3,
    )
    assert not v.passed, v

    ignores = "<<insert solution here>>\nprint(f(<|int;range=1,99|>, <|int;range=1,99|>))\n"
    v = validate(pool, _harness_row("u_ign", "def f(a, b):\n    return 7\n", "f", ignores), fuzz_cases=3)
    assert not v.passed, v

    sound = "<<insert solution here>>\nprint(f(<|int;range=1,99|>))\n"
    v = validate(
        pool,
        _harness_row("u_none", "def f(x):\n    return x * 3 - 1\n", "f", sound),
        fuzz_cases=3,
        mutants=[],
    )
    assert not v.passed and "no mutant" in v.reason, v.reason


@pytest.mark.parametrize(
    ("judged", "killed", "equivalent", "passes"),
    [
        (5, 4, 1, True),  # a small function with one mutant no input tells apart (a deleted log call)
        (4, 3, 1, True),
        (6, 4, 2, True),  # at most a third of a small function's mutants may be likely equivalent
        (6, 3, 3, False),
        (5, 3, 2, False),
        (2, 1, 1, True),
        (1, 0, 1, False),  # nothing killed: never
        (0, 0, 0, False),
        (20, 4, 16, False),  # a large function: five must count, whatever the share
        (20, 5, 15, True),
        (20, 5, 10, False),  # five of ten non-equivalent killed: under 80%
    ],
)
def test_the_mutant_gate_tolerates_a_third_of_a_small_functions_mutants_being_equivalent(
    judged, killed, equivalent, passes
):
    from biocoder_metric.synth.validate import Validation, _mutant_gate

    v = Validation(
        passed=False, mutants_judged=judged, mutants_killed=killed, mutants_likely_equivalent=equivalent
    )
    assert (_mutant_gate(v) is None) is passes, _mutant_gate(v)


def test_a_mutant_another_plan_killed_is_not_equivalent():
    """``regate``: a plan that passed because the mutants on code it never reached counted as
    likely equivalent fails once another plan of the task has killed them; ones no plan killed
    stay equivalent, and a failed plan is left as it was."""
    from biocoder_metric.synth.validate import Validation, killed_indices, regate

    def verdict(killed: list[int], equivalent: list[int], n: int = 10) -> Validation:
        ms = [{"operator": "x", "status": "failed" if i in killed else "passed", "killed": i in killed,
               "likely_equivalent": i in equivalent} for i in range(n)]  # fmt: skip
        return Validation(
            passed=True, mutants=ms, mutants_judged=n, mutants_killed=len(killed),
            mutants_likely_equivalent=len(equivalent), mutation_score=1.0,
        )  # fmt: skip

    narrow = verdict(killed=[0, 1, 2, 3, 4], equivalent=[5, 6, 7, 8, 9])
    wide = verdict(killed=[0, 1, 5, 6, 7], equivalent=[])
    again = regate(narrow, killed_indices(wide))
    assert (again.passed, again.mutants_killed_by_other_plans, again.mutation_score) == (False, 3, 0.625)
    assert again.reason == "kills 5 of 8 non-equivalent mutants (needs 80%)"
    assert [m["likely_equivalent"] for m in again.mutants][5:] == [False, False, False, True, True]
    assert narrow.passed and narrow.mutants_likely_equivalent == 5  # the original is not changed
    assert regate(narrow, {5}).passed and regate(narrow, {5}).mutation_score == round(5 / 6, 4)
    assert regate(narrow, {0, 1}) is narrow  # killed here too: nothing to judge again
    failed = Validation(passed=False, reason="golden raises on 10/10 calls")
    assert regate(failed, {1, 2}) is failed


@needs_bwrap
@pytest.mark.bwrap
def test_plans_of_one_task_share_their_mutants_so_their_kills_can_be_pooled(pool):
    """The premise of ``regate``, on a made-up golden in the sandbox: every plan of a task is
    judged on the same mutant list, and a plan whose inputs reach other code (a text where the
    best guess draws a list of letters) kills a mutant the best guess judged likely equivalent."""
    from biocoder_metric.synth.validate import killed_indices, regate

    golden = textwrap.dedent('''
        def window_gc(seq, window=None):
            """GC share of a DNA sequence, or of each window of ``window`` letters when one is given."""
            gc = sum(1 for c in seq if c in "GC")
            if window is None:
                return round(gc / max(len(seq), 1), 3)
            out = []
            for i in range(0, len(seq) - window + 1, window):
                part = seq[i:i + window]
                n = sum(1 for c in part if c == "G" or c == "C")
                out.append(round(n / window, 3) if window > 0 else 0.0)
            return out
    ''').lstrip()
    row = dict(empty_row(), task_id="t_regate", language="python", function_name="window_gc",
               golden_code=golden, config="demo")  # fmt: skip
    cands, _, _ = candidates(row, SynthOptions())
    verdicts = {
        label: validate(pool, dict(row, context=ctx, kind="harness", executable=True))
        for label, _plan, ctx in cands
    }
    judged = [v for v in verdicts.values() if v.mutants]
    assert len({tuple(m["operator"] for m in v.mutants) for v in judged}) == 1, "one mutant list per task"
    best = verdicts["best guess"]
    assert best.passed
    equivalent = {i for i, m in enumerate(best.mutants) if m["likely_equivalent"]}
    elsewhere = set().union(*(killed_indices(v) for v in judged)) - killed_indices(best)
    assert equivalent & elsewhere, (equivalent, elsewhere)
    again = regate(best, elsewhere)
    assert again.mutants_killed_by_other_plans == len(equivalent & elsewhere)
    assert again.mutation_score < best.mutation_score


#: Made-up goldens of shapes the golden raised on every call before (round 16; each fails on the
#: round-15 code): a matrix combined with a vector, a method's value unpacked, tables read with
#: positional columns or with names of the reader's own, files named by a prefix and a suffix, and
#: pairs unpacked from a slice of a list.
ROUND16 = {
    "lead_projection": '''import numpy as np


def lead_projection(matrix, loadings):
    """Each row of a matrix projected on the loadings, less the row's first value."""
    return np.round(matrix @ loadings - matrix[:, 0], 6).tolist()
''',
    "hit_balance": '''def hit_balance(store, key):
    """Hits minus misses of one table of a store, and the table's name."""
    table = store.open_table(key)
    hits, misses = table.split_counts()
    return len(hits) - len(misses), table.name
''',
    "chrom_positions": '''def chrom_positions(prefix, chrom):
    """Marker positions of one chromosome in ``prefix``.map, and the sample count of ``prefix``.fam."""
    out = []
    with open(prefix + '.map') as fh:
        for line in fh:
            c, name, cm, pos = line.rstrip().split('\\t')
            if c == chrom or int(pos) > 500:
                out.append((name, int(pos)))
    fam = '{}.fam'.format(prefix)
    n = sum(1 for _ in open(fam))
    return out, n
''',
    "kmer_shares": '''def kmer_shares(kmers, skip):
    """Share of each k-mer's count among the k-mers after the first ``skip``, in k-mer order."""
    total = 0
    kept = []
    for kmer, n in kmers[skip:]:
        total += n
        kept.append((kmer, n))
    return [(k, round(n / total, 4)) for k, n in sorted(kept)] if total else []
''',
    "sample_ids": '''import pandas as pd


def sample_ids(path):
    """The sample identifiers of a sample sheet (first column; the third is its group)."""
    df = pd.read_csv(path, sep='\\t', usecols=[0, 2])
    return sorted(df['sample'].astype(str))
''',
    "total_depth": '''import pandas as pd


def total_depth(path, min_depth=0):
    """Summed depth of a headerless chrom/pos/depth table, positions under ``min_depth`` left out."""
    t = pd.read_csv(path, sep='\\t', header=None, names=['chrom', 'pos', 'depth'])
    return int(t.loc[t['depth'] >= min_depth, 'depth'].sum())
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(ROUND16))
def test_shapes_unpacked_results_and_positional_tables_validate(pool, name: str):
    """Arrays of one case share their sizes in a searched variant (python_search ``square``); a
    method's value unpacked is a tuple (python_inputs); ``usecols`` and ``names`` shape the table
    file; a prefix gets a file per suffix the code opens, each as its reader expects (python_files);
    ``for s, n in kmers[skip:]`` types the elements as ``for s, n in kmers`` would."""
    rec = synthesize_task(pool, _row(f"u_{name}", ROUND16[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []


def test_bare_standard_names_resolve_and_earlier_bindings_stay():
    """``ArgumentParser()`` in a flattened golden is argparse's (it was a stub returning a number);
    names the first modules have keep their binding though later modules re-export them."""
    assert python_slice.stdlib_import("ArgumentParser") == "from argparse import ArgumentParser"
    assert python_slice.stdlib_import("uuid4") == "from uuid import uuid4"
    assert python_slice.stdlib_import("Enum") == "from enum import Enum"
    assert python_slice.stdlib_import("join") == "from os.path import join"
    assert python_slice.stdlib_import("quote") == "from urllib.parse import quote"


def test_a_helpers_value_kept_in_a_local_is_typed_by_the_local():
    """``cnarr = read_cna(fname); cnarr.guess_xx(...)``: the stub's value is an object with the
    local's attribute and method (it was typed by the helper's name alone: a DNA string, on which
    every call raised); the method's value, kept but typed by nothing, is a value, not ``None``."""
    from biocoder_metric.synth.python_stubs import plan_stubs

    golden = """def sexes(fnames, haploid):
    out = {}
    for fname in fnames:
        cnarr = read_cna(fname)
        is_xx = cnarr.guess_xx(haploid)
        if is_xx is not None:
            out[cnarr.sample_id] = is_xx
    return out
"""
    stubs, reason = plan_stubs([golden], ["read_cna"])
    assert reason is None
    ((label, kinds),) = stubs.slots
    assert label == "read_cna()"
    fields = ast.literal_eval(kinds[0].removeprefix("obj:"))
    assert set(fields) == {"sample_id", "guess_xx"}
    assert fields["guess_xx"].startswith("stub:") and fields["guess_xx"] != "stub:none"


#: Made-up Java goldens taking JDK types that had no generator (round 16): a reader, a stream
#: written to (what it holds is shown after the call), an exception handed in.
JAVA_IO = {
    "countReads": """public static int countReads(java.io.BufferedReader reader, int minLength) throws java.io.IOException {
    int n = 0;
    String line;
    while ((line = reader.readLine()) != null) {
        if (line.length() >= minLength) n += 1;
    }
    return n;
}""",
    "writeWrapped": """public static void writeWrapped(String seq, int width, java.io.PrintStream out) {
    if (width < 1) width = 1;
    for (int i = 0; i < seq.length(); i += width) {
        out.println(seq.substring(i, Math.min(seq.length(), i + width)));
    }
}""",
    "describe": """public static String describe(Exception e, int code) {
    String m = e.getMessage();
    return code + ":" + (m == null ? 0 : m.trim().length());
}""",
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
@pytest.mark.parametrize("name", sorted(JAVA_IO))
def test_java_readers_streams_written_to_and_exceptions_are_generated(pool, name: str):
    row = dict(_row(f"j_{name}", JAVA_IO[name], name), language="java")
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []
    if name == "writeWrapped":  # a void method: what it wrote is what is compared
        assert "after out: " in rec["context"]


def test_what_a_with_statement_enters_is_a_handle_or_an_object_that_can_be_entered():
    """``with ctx.open(path) as fh: for line in fh: ...``: the method's value is an open text file
    with the lines the loop splits (it was a number, and every call raised); a value entered but
    read by nothing is a text handle too; a plain generated object can be entered (itself)."""
    from biocoder_metric.synth import python_inputs as pi

    golden = """def count_records(ctx, path, other):
    n = 0
    with ctx.open(path) as fh:
        for line in fh:
            if int(line.split('\\t')[1]) > 3:
                n += 1
    with other.session() as s:
        ctx.store(s)
    return n
"""
    func = ast.parse(golden).body[0]
    opened = pi.object_methods(func, "ctx", 0)["open"]
    assert opened.startswith("stub:handle:") and "int" in opened
    assert pi.object_methods(func, "other", 0)["session"].startswith("stub:handle:")
    prelude: dict = {}
    exec(python_harness.PRELUDE, prelude)  # the harness's own helpers (no task code)
    obj = prelude["_bc_ns"](a=1)
    with obj as entered:
        assert entered is obj


def test_an_object_whose_field_is_assigned_to_is_built_two_levels_down():
    """``prob = solver.create_problem(); prob.tolerance.value = 1e-9; prob.solve().get_value(v)``:
    the method's value is an object whose ``tolerance`` takes an attribute (it was a number: only an
    object takes one), and an object two levels down still gets its methods."""
    from biocoder_metric.synth import python_inputs as pi

    golden = """def solve(solver, v):
    prob = solver.create_problem()
    prob.tolerance.value = 1e-9
    result = prob.solve()
    return result.get_value(v) + 1
"""
    func = ast.parse(golden).body[0]
    made = pi.object_methods(func, "solver", 0)["create_problem"]
    assert made.startswith("stub:obj:")
    fields = ast.literal_eval(made.removeprefix("stub:obj:"))
    assert fields["tolerance"].startswith("obj:")
    assert fields["solve"].startswith("stub:obj:") and "get_value" in fields["solve"]


#: Made-up goldens that parse a command line (round 16): one given as a parameter, one read from
#: ``sys.argv`` by a parser with a mutually exclusive pair, one that reads ``sys.argv`` by position.
CLI = {
    "region_options": '''import argparse


def region_options(argv=None):
    """Options of a region filter: ``REGION [--min-qual N] [--strand {+,-}] [--keep-dups]``."""
    parser = argparse.ArgumentParser(prog="regfilt")
    parser.add_argument("region")
    parser.add_argument("--min-qual", type=int, default=20)
    parser.add_argument("--strand", choices=["+", "-"], default="+")
    parser.add_argument("--keep-dups", action="store_true")
    args = parser.parse_args(argv)
    chrom, _, span = args.region.partition(":")
    return chrom.upper(), args.min_qual * 2, args.strand == "-", not args.keep_dups
''',
    "colour_mode": '''import argparse


def colour_mode(default_width):
    """The display settings given on the command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=default_width)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--no-color", action="store_true")
    group.add_argument("--white-bg", action="store_true")
    args = parser.parse_args()
    mode = "plain" if args.no_color else "light" if args.white_bg else "dark"
    return mode, max(args.width, 10)
''',
    "run_label": '''import sys


def run_label(prefix):
    """A label for this run: the prefix and the tool's first argument, lower case."""
    return prefix + "-" + sys.argv[1].lower()[:8]
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(CLI))
def test_command_lines_are_drawn_from_the_parsers_own_arguments(pool, name: str):
    """A parameter handed to ``parse_args`` is a command line of the parser's positionals, options,
    flags and choices; a golden reading ``sys.argv`` gets one set before each call (python_cli)."""
    rec = synthesize_task(pool, _row(f"u_{name}", CLI[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []
    assert "_bc_cli(_r, " in rec["context"]


def test_names_a_default_reads_are_free_though_a_parameter_shares_them():
    """``def main(args=None, urlopen=urlopen)``: the default is evaluated where the function is
    defined, so the module's ``urlopen`` must be imported (the harness raised NameError)."""
    func = ast.parse("def main(args=None, urlopen=urlopen, n=N_MAX):\n    return urlopen(args)\n").body[0]
    assert python_slice.free_names(func) == ["N_MAX", "urlopen"]


def test_a_record_read_by_attribute_and_by_key_is_an_object_holding_items():
    """``cnr.center_all()`` and ``cnr['log2']``, ``'gc' in cnr``: neither a dict (no methods) nor a
    plain object (not subscriptable) fits; the object carries the items its keys read."""
    from biocoder_metric.synth import python_inputs as pi

    golden = """def recentre(cnr, limit):
    cnr.center_all()
    if 'gc' in cnr and cnr['gc'] > 0.5:
        cnr.rescale(cnr["gc"])
    return [v for v in cnr['log2'] if v < limit]
"""
    func = ast.parse(golden).body[0]
    votes = pi.usage_votes(func, "cnr")
    kind = pi.refine_kinds(func, "cnr", pi.rank_kinds("cnr", votes), votes)[0]
    assert kind.startswith("obj:")
    fields = ast.literal_eval(kind.removeprefix("obj:"))
    assert {"center_all", "rescale", "_bc_items"} <= set(fields)
    assert set(ast.literal_eval(fields["_bc_items"].removeprefix("dictkeys:"))) == {"gc", "log2"}
    prelude: dict = {}
    exec(python_harness.PRELUDE, prelude)
    obj = prelude["_bc_ns"](_bc_items={"gc": 0.7})
    assert "gc" in obj and obj["gc"] == 0.7
    with pytest.raises(TypeError):
        prelude["_bc_ns"](a=1)["a"]  # a plain object is still not subscriptable
    # the same record as a helper's value kept in a local: the keys are read on the local
    from biocoder_metric.synth.python_stubs import plan_stubs

    kept = """def smooth(path, limit):
    cnr = load_bins(path)
    cnr.center_all()
    if 'gc' in cnr and cnr['gc'] > 0.5 and cnr['depth'] > 2:
        cnr.rescale(cnr['gc'])
    return [v for v in cnr['log2'] if v < limit]
"""
    stubs, _ = plan_stubs([kept], ["load_bins"])
    ((_, kinds),) = stubs.slots
    assert kinds[0].startswith("obj:") and "_bc_items" in kinds[0] and "center_all" in kinds[0]


class _CountingPool:
    """The real pool, counting the programs it is handed (what validation spent)."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool, self.programs = pool, 0

    def run(self, job):  # noqa: ANN001, ANN201 - SandboxPool.run's signature
        self.programs += len(job.programs)
        return self.pool.run(job)


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize(
    "golden",
    [
        "def spin(n):\n    while n == n:\n        n = n + 1 - 1\n",
        # a hard exit: ``sys.exit`` is an error path the harness catches (round 26), ``os._exit`` ends the case
        "def spin(n):\n    import os\n    os._exit(3)\n",
    ],
    ids=["loops", "exits"],
)
def test_a_golden_that_hangs_or_fails_is_stopped_at_the_first_failing_stage(pool, golden: str):
    """A plan whose golden loops forever on its inputs costs one case, not cases * runs time-outs:
    case 0 runs alone, then the rest of run 1, then the repeat runs, each only if all before ran."""
    row = _row("u_spin", golden, "spin")
    ctx = candidates(row, SynthOptions())[0][0][2]
    counting = _CountingPool(pool)
    v = validate(
        counting, dict(row, context=ctx, kind="harness", executable=True), fuzz_cases=6, timeout_s=1.0
    )
    assert not v.passed and v.reason.startswith("golden case 0 (run 1)")
    assert counting.programs == 1  # not 6 * 3
    good = _row("u_gc2", GC, "gc_fraction")
    ctx = candidates(good, SynthOptions())[0][0][2]
    counting = _CountingPool(pool)
    v = validate(
        counting, dict(good, context=ctx, kind="harness", executable=True), fuzz_cases=6, mutant_limit=0
    )
    assert v.runs == 3 and not v.reason.startswith("golden") and counting.programs >= 6 * 3  # every stage ran


@needs_bwrap
@pytest.mark.bwrap
def test_the_plan_search_runs_one_case_of_a_variant_on_which_the_golden_hangs(pool):
    """The search's probe runs case 0 of every variant first, and the other cases only of those
    whose case 0 did not time out: a hanging variant costs one time-out, the others are whole."""
    from biocoder_metric.synth.validate import golden_case_outputs

    golden = "def twice(n):\n    while isinstance(n, str):\n        pass\n    return n * 2\n"
    row = _row("u_twice", golden, "twice")
    sl = python_slice.slice_golden(golden, "twice")
    subject = python_harness.analyse(golden, "twice")
    ctxs = [
        python_harness.render(subject, sl, python_harness.Plan(args=[(subject.params[0], k)], label=k))
        for k in ("str_word", "int_small")
    ]
    counting = _CountingPool(pool)
    hung, ran = golden_case_outputs(counting, row, ctxs, 4, seed=1, timeout_s=1.0, memory_mb=512)
    assert hung == [None] * 4
    assert all(out is not None and "result: " in out for out in ran)
    assert counting.programs == 2 + 3  # case 0 of both, then cases 1-3 of the one that ran


#: Made-up goldens that look an argument up in another with a string or list method: a random
#: adaptor is never found in a random read, so the cut, the count or the split never happened.
PIECES = {
    "trim_adaptor": '''def trim_adaptor(read, adaptor, min_len=0):
    """The read up to the first occurrence of the adaptor (the whole read if it is absent)."""
    pos = read.upper().find(adaptor)
    if pos == -1:
        return read
    if pos < min_len:
        return ""
    return read[:pos]
''',
    "motif_hits": '''def motif_hits(seq, motif):
    """How often ``motif`` occurs in ``seq``, and whether ``seq`` starts with it."""
    n = seq.count(motif)
    return n, seq.startswith(motif), n > 1
''',
    "rank_of": '''def rank_of(names, name):
    """1-based position of ``name`` in ``names``."""
    return names.index(name) + 1
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(PIECES))
def test_an_argument_looked_for_in_another_is_often_a_piece_of_it(pool, name: str):
    """``read.find(adaptor)``, ``seq.count(motif)``, ``names.index(name)``: the argument looked
    for is a piece (or element) of the one searched in most cases (python_lookups pieces)."""
    rec = synthesize_task(pool, _row(f"u_{name}", PIECES[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []


#: Made-up goldens that hand a function of their own to a helper with no source (a stub).
HANDED = {
    "clamp_quality": '''def clamp_quality(q, lo=2, hi=40):
    """``q`` clamped to [lo, hi], through the project's retry wrapper."""
    return with_retries(lambda: max(lo, min(hi, q)))
''',
    "checked_depth": '''def checked_depth(raw, default=10):
    """A read depth from user text: an integer of at least one, else ``default``."""

    def at_least_one(value):
        depth = int(float(value))
        if depth < 1:
            raise ValueError("depth below one")
        return depth * 2

    return run_checker(at_least_one, raw, default)
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(HANDED))
def test_a_stub_handed_a_function_of_the_code_applies_it(pool, name: str):
    """A helper with no source that is handed a local function or lambda calls it on its other
    arguments (python_stubs), so what the function does is what the harness tests."""
    row = _row(f"u_{name}", HANDED[name], name)
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []
    # a bug inside the function handed over is caught (before, the helper's value ignored it)
    wrong = HANDED[name].replace("max(lo, min(hi, q))", "max(lo, min(hi - 1, q))").replace("< 1", "< 2")
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    assert validate(pool, trial, mutants=[("hand", wrong)]).mutants[0]["killed"]


#: Made-up goldens whose branches need a missing or empty file, a file name with the ending the
#: code looks for, or an options dict without some of its keys: before, one branch never ran.
BRANCHES = {
    "usable_index": '''import os


def usable_index(bam_path):
    """The index file beside a BAM when it exists and is not empty, else None."""
    if not os.path.exists(bam_path) or os.path.getsize(bam_path) == 0:
        return None
    with open(bam_path) as fh:
        first = fh.readline().strip()
    return bam_path + ".bai", len(first)
''',
    "sample_name": '''import os


def sample_name(path):
    """A sample's name from its file: no folder, no .gz, no .vcf."""
    base = os.path.basename(path)
    if base.endswith(".gz"):
        base = os.path.splitext(base)[0]
    stem, ext = os.path.splitext(base)
    if ext == ".vcf":
        return stem
    return base.upper()
''',
    "trim_settings": '''def trim_settings(opts, length):
    """Trimming bounds from the options, with defaults for what is not given."""
    lo = opts.get("min_len", 20)
    hi = opts.get("max_len")
    if hi is None:
        hi = length
    if "strict" in opts:
        lo += 5
    return max(0, min(lo, length)), min(hi, length)
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(BRANCHES))
def test_missing_files_named_endings_and_absent_keys_reach_both_branches(pool, name: str):
    """``os.path.exists(p)`` / ``getsize(p) == 0`` get a missing or empty file now and then, a
    path only taken apart by ``os.path`` gets the endings the code looks for, and keys read with
    ``.get`` or tested with ``in`` are sometimes absent (python_inputs, round 17)."""
    row = _row(f"u_{name}", BRANCHES[name], name)
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    v = rec["validation"]
    assert v["mutation_score"] >= 0.8 and v["null_candidates_passed"] == []
    param, head = {
        "usable_index": ("bam_path", "checked:"),
        "sample_name": ("path", "str_path:"),
        "trim_settings": ("opts", "optkeys:"),
    }[name]
    assert rec["plan"][param].startswith(head), rec["plan"]
    wrong = {  # each drops the branch only such inputs reach
        "usable_index": ("not os.path.exists(bam_path) or os.path.getsize(bam_path) == 0", "not bam_path"),
        "sample_name": ('base.endswith(".gz")', "False"),
        "trim_settings": ("if hi is None:\n        hi = length", "if hi is None:\n        hi = length - 1"),
    }[name]
    assert wrong[0] in BRANCHES[name]
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    assert validate(pool, trial, mutants=[("hand", BRANCHES[name].replace(*wrong))]).mutants[0]["killed"]


LOOKUP_DB = '''def gene_spans(db, gene_ids, pad=0):
    """Span of each gene (looked up in the database by id) and how many children it has."""
    out = {}
    for g in gene_ids:
        rec = db[g]
        if rec.end < rec.start:
            continue
        out[g] = (rec.end - rec.start + 1 + 2 * pad, len(list(db.children(g))))
    return out
'''


@needs_bwrap
@pytest.mark.bwrap
def test_an_object_also_looked_up_by_variable_keys_gives_values_that_follow_the_key(pool):
    """``db.children(g)`` and ``db[g]``: the object is subscriptable, and what a key gives is
    typed by its use (``rec.start``, ``rec.end``) and the same for the same key (python_inputs
    ``_bc_getitem``). Before, every call raised TypeError: '_bc_ns' object is not subscriptable."""
    rec = synthesize_task(pool, _row("u_gene_spans", LOOKUP_DB, "gene_spans"), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert "_bc_getitem" in rec["plan"]["db"]
    assert rec["validation"]["mutation_score"] >= 0.8


QUALITIES = """public static int lowQualityRun(final byte[] baseQuals, final int minQual) {
    int best = 0, run = 0;
    for (final byte q : baseQuals) {
        run = q < minQual ? run + 1 : 0;
        best = Math.max(best, run);
    }
    return best;
}"""


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
def test_java_base_qualities_are_phred_scores_not_letters(pool):
    """A ``byte[]`` of qualities is drawn as Phred scores (0-41), the range its comparisons with a
    minimum quality split; as letters (65+) every comparison went one way and the output was one
    constant."""
    row = dict(_row("j_lowQualityRun", QUALITIES, "lowQualityRun"), language="java")
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert rec["validation"]["mutation_score"] >= 0.8


#: Made-up goldens that need an axis of a given size: checked in the body, or spelled out by the
#: docstring's shape (``start, end = spans.T`` needs exactly two columns).
AXES = {
    "strand_balance": '''import numpy as np


def strand_balance(counts):
    """(forward - reverse) / depth per site of a (sites, 2) count matrix."""
    if counts.ndim != 2 or counts.shape[1] != 2:
        raise ValueError("need forward and reverse counts")
    total = counts.sum(axis=1)
    return np.round((counts[:, 0] - counts[:, 1]) / np.maximum(total, 1), 4)
''',
    "mid_points": '''import numpy as np


def mid_points(spans, shift=0):
    """Midpoints of spans.

    Parameters
    ----------
    spans : ndarray, int, shape (n_spans, 2)
        Start and end of each span.
    shift : int
        Added to every midpoint.
    """
    start, end = spans.T
    return (start + end) // 2 + shift
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(AXES))
def test_an_axis_the_code_or_docstring_fixes_has_that_size(pool, name: str):
    """``counts.shape[1] != 2`` or ``shape (n_spans, 2)``: that axis has that size in most cases
    (python_inputs ``axes:``); before, the width was drawn like any other."""
    rec = synthesize_task(pool, _row(f"u_{name}", AXES[name], name), SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert next(iter(rec["plan"].values())).startswith("axes:({1: 2}")
    assert rec["validation"]["mutation_score"] >= 0.8


#: Made-up goldens with a path only an unset value reaches (round 18): a parameter or ``self``
#: attribute compared with ``None``, a default rejected only together with another parameter.
UNSET = {
    "label_counts": '''def label_counts(labels, names):
    """How often each label occurs, under its display name (``names`` None: the labels as they are)."""
    if names is None:
        names = {}
    out = {}
    for lab in labels:
        key = names.get(lab, lab).upper()
        out[key] = out.get(key, 0) + 1
    return out
''',
    "region_label": '''def region_label(self, chrom, start):
    """A region's label; without a loaded reference there is nothing to measure it against."""
    if self.reference is None:
        raise ValueError("no reference loaded")
    return "%s:%d-%d" % (chrom, start, start + len(self.reference))
''',
    "gc_fraction": '''def gc_fraction(seq):
    """GC fraction of a sequence given as a string or as a list of bases."""
    if isinstance(seq, str):
        bases = seq.upper()
    elif isinstance(seq, (list, tuple)):
        bases = "".join(seq).upper()
    else:
        raise TypeError("a sequence is a string or a list of bases")
    if not bases:
        return 0.0
    return round((bases.count("G") + bases.count("C")) / len(bases), 4)
''',
    "output_name": '''def output_name(opts, sample):
    """A sample's output file: under the prefix the options give, else under its own name."""
    if opts.prefix is None:
        return sample + ".vcf"
    return opts.prefix + "_" + sample + ".vcf"
''',
    "window_bounds": '''def window_bounds(length, start=None, stop=None):
    """Bounds of a window over a sequence of ``length``; a ``stop`` needs a ``start``."""
    if stop is not None and start is None:
        raise ValueError("stop without start")
    lo = 0 if start is None else max(0, start)
    hi = length if stop is None else min(length, stop)
    return lo, max(lo, hi)
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(UNSET))
def test_values_compared_with_none_are_sometimes_unset(pool, name: str):
    """``if names is None``, ``if self.reference is None: raise``, ``if opts.prefix is None``:
    such a value (a parameter, a ``self`` attribute, an object's field) is ``None`` now and
    then; a default rejected only when another parameter is given is left out like any
    other; a parameter whose type the body tests is drawn as each type tested and probed with a
    value of none of them (python_evidence ``none_checked``, ``required_defaults``,
    ``type_checked``). Before, each mutant below survived: no case reached the path it changes."""
    golden = UNSET[name]
    row = _row(f"u_{name}", golden, name)
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert rec["validation"]["null_candidates_passed"] == []
    wrong = {
        "label_counts": ("        names = {}\n", "        pass\n"),
        "region_label": ('        raise ValueError("no reference loaded")\n', "        pass\n"),
        "window_bounds": ("def window_bounds(length, start=None,", "def window_bounds(length, start=0,"),
        "output_name": ('        return sample + ".vcf"\n', '        return sample + ".bcf"\n'),
        "gc_fraction": (
            '        raise TypeError("a sequence is a string or a list of bases")\n',
            "        pass\n",
        ),
    }[name]
    mutants = [wrong]
    if name == "gc_fraction":  # the list branch: only a list reaches it (``_bc_retype``)
        mutants.append(('bases = "".join(seq).upper()', 'bases = "".join(seq[1:]).upper()'))
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    for old, new in mutants:
        assert old in golden
        assert validate(pool, trial, mutants=[("hand", golden.replace(old, new))]).mutants[0]["killed"], new


#: Made-up goldens whose inputs' element types only the documentation gives.
TYPED = {
    "callable_fraction": '''import numpy as np


def callable_fraction(is_callable, start=0):
    """Fraction of callable sites from ``start`` on.

    Parameters
    ----------
    is_callable : array_like, bool, shape (n_sites,)
        Whether each site can be called.
    start : int
        First site counted.
    """
    sites = np.asarray(is_callable)[start:]
    if sites.size == 0:
        return 0.0
    return round(float(np.count_nonzero(sites)) / sites.size, 4)
''',
    "rename_contigs": '''from typing import Dict, List


def rename_contigs(names: List[str], aliases: Dict[str, str]) -> List[str]:
    """Each contig's alias, upper-cased, where one is known; its own name otherwise."""
    return [aliases[n].upper() if n in aliases else n for n in names]
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(TYPED))
def test_boolean_arrays_and_text_tables_are_drawn_as_documented(pool, name: str):
    """``array_like, bool`` is a mask of both values (as floats every site was callable and the
    fraction was always 1.0); ``Dict[str, str]`` maps words to words (python_inputs, round 18)."""
    golden = TYPED[name]
    row = _row(f"u_{name}", golden, name)
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    param, kind = {
        "callable_fraction": ("is_callable", "ndarray1_bool"),
        "rename_contigs": ("aliases", "dict_str_str"),
    }[name]
    assert rec["plan"][param] == kind, rec["plan"]
    wrong = {
        "callable_fraction": ("np.count_nonzero(sites)", "sites.size"),
        "rename_contigs": ("aliases[n].upper()", "aliases[n]"),
    }[name]
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    assert validate(pool, trial, mutants=[("hand", golden.replace(*wrong))]).mutants[0]["killed"]


#: A made-up golden whose branch needs two inputs to be equal (round 18).
X_SHIFT = '''import numpy as np


def x_shift(table, ratios):
    """Log2 ratios with one added on the rows of the table's X chromosome."""
    out = np.array(ratios, dtype=float)
    out[np.asarray(table.chromosome == table.x_label)] += 1.0
    return np.round(out, 4)
'''


@needs_bwrap
@pytest.mark.bwrap
def test_inputs_compared_for_equality_sometimes_meet(pool):
    """``table.chromosome == table.x_label``: drawn apart, the two were never equal and the
    ``+= 1.0`` was never reached; the harness now makes them meet in some cases (python_evidence
    ``equalities``, ``_bc_meet``)."""
    row = _row("u_x_shift", X_SHIFT, "x_shift")
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert "_bc_meet(" in rec["context"]
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    for new in ("-= 1.0", "+= 2.0"):
        mutant = X_SHIFT.replace("+= 1.0", new)
        assert validate(pool, trial, mutants=[("hand", mutant)]).mutants[0]["killed"], new


#: Made-up goldens that look keys up in what a parameter or ``self`` holds one level down.
NESTED = {
    "coverage_at": '''def coverage_at(self, chrom, pos):
    """Depth at ``pos`` of ``chrom`` from the loaded index; an unknown contig is an error."""
    if chrom not in self.index.contigs:
        raise KeyError(chrom)
    depths = self.index.contigs[chrom]
    return depths[pos] if 0 <= pos < len(depths) else 0
''',
    "gene_length": '''def gene_length(annotation, gene_id):
    """Length of a gene in an annotation whose ``spans`` map gene ids to (start, end)."""
    if gene_id not in annotation.spans:
        return -1
    start, end = annotation.spans[gene_id]
    return end - start + 1
''',
}


@needs_bwrap
@pytest.mark.bwrap
@pytest.mark.parametrize("name", sorted(NESTED))
def test_keys_are_found_in_containers_below_a_parameter_or_self(pool, name: str):
    """``chrom not in self.index.contigs`` / ``annotation.spans[gene_id]``: the key is made one
    of the container's keys (python_lookups, containers up to three attributes down), and a
    container looked up by a key it is tested for is a mapping whose values are typed by use
    (a list, a pair). Before, the key was never found (every call raised or returned -1)."""
    golden = NESTED[name]
    row = _row(f"u_{name}", golden, name)
    rec = synthesize_task(pool, row, SynthOptions(sandbox="bwrap"))
    assert rec["status"] == "validated", rec["reason"]
    assert rec["plan"].get("_explore") != "off", rec["plan"]
    wrong = {
        "coverage_at": ("depths[pos] if", "depths[pos - 1] if"),
        "gene_length": ("end - start + 1", "end - start"),
    }[name]
    trial = dict(row, context=rec["context"], kind="harness", executable=True)
    assert validate(pool, trial, mutants=[("hand", golden.replace(*wrong))]).mutants[0]["killed"]
