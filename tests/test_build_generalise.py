"""Construction that generalises (issue #20): selection drops scaffolding, slicing and harnesses handle
what fresh repositories contain, and the synthesised inputs reach defaults, scale and error paths.

Every fixture here is written for this file (made-up functions in the styles real repositories
use); none is copied from a repository the synthesis was tuned on.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _synth_helpers import run_context, run_program

from biocoder_metric.build.extract_java import extract as extract_java
from biocoder_metric.build.scaffolding import scaffolding
from biocoder_metric.build.select import SelectConfig, select
from biocoder_metric.cli.build_harness import summarize
from biocoder_metric.execution import harness
from biocoder_metric.languages.java import java_class_name
from biocoder_metric.synth import java_harness, python_harness, python_slice
from biocoder_metric.synth.pipeline import cause_of, record_cause
from biocoder_metric.synth.python_evidence import doc_examples, invalid_expr, scale_constants


def _python_repo_task(
    tmp_path: Path, name: str, files: dict[str, str], golden: str, function_name: str, file_path: str
) -> tuple[dict, list, str]:
    """Write a made-up repository, a task row for one of its functions, and synthesise candidates
    for it with the repository sliced (every test of construction starts this way)."""
    from biocoder_metric.synth.pipeline import SynthOptions, candidates

    repo = tmp_path / name
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": function_name,
        "golden_code": golden,
        "file_path": file_path,
        "repository": f"x/{name}",
        "metadata": "{}",
    }
    cands, reason, origin = candidates(row, SynthOptions(repos={name: str(repo)}))
    assert reason is None, reason
    return row, cands, origin


def _golden_outputs(row: dict, ctx: str, golden: str, seeds: int) -> list[str]:
    """The golden's stdout under the harness ``ctx``, one single-case run per seed."""
    outs = []
    for seed in range(seeds):
        prog = harness.build_harness_programs(dict(row, context=ctx), golden, fuzz_cases=1, seed=seed)[0]
        outs.append(run_program(prog, timeout=60, check=True).stdout)
    return outs


def _py(code: str, name: str, path: str = "pkg/mod.py", cls: str = "") -> dict:
    code = textwrap.dedent(code)
    sig = "\n".join(ln.strip() for ln in code.splitlines() if ln.strip().startswith(("@", "def ")))
    return {
        "content": code,
        "language": "python",
        "functionName": name,
        "filePath": path,
        "parentClass": cls,
        "signature": sig,
    }


def _java(code: str, name: str, path: str = "src/main/java/a/A.java", rtype: str = "int") -> dict:
    return {
        "content": textwrap.dedent(code),
        "language": "java",
        "functionName": name,
        "filePath": path,
        "returnType": rtype,
        "fileImports": [],
    }


# ---------------------------------------------------------------------------- scaffolding
@pytest.mark.parametrize(
    ("rec", "rule"),
    [
        (_py("def test_gc():\n    assert gc('GC') == 1.0\n", "test_gc"), "test_code"),
        (_py("def gc_case():\n    return 'ACGT'\n", "gc_case", path="tests/helpers.py"), "test_code"),
        (_py("@pytest.fixture\ndef reads():\n    return ['ACGT']\n", "reads"), "test_code"),
        (_py("def make_seq():\n    return 'ACGT'\n", "make_seq", path="pkg/conftest.py"), "test_code"),
        (_py("def check(self):\n    self.assertEqual(1, 1)\n", "check", cls="TestAligner"), "test_code"),
        (_py("def setUp(self):\n    self.seq = 'A'\n", "setUp", cls="Suite"), "test_code"),
        (_py("def parse(x):\n    pass\n", "parse"), "stub"),
        (_py("def parse(x):\n    ...\n", "parse"), "stub"),
        (_py('def parse(x):\n    """Parse a record."""\n', "parse"), "stub"),
        (_py('def parse(x):\n    """Parse."""\n    raise NotImplementedError("later")\n', "parse"), "stub"),
        (_py("def __repr__(self):\n    return 'Seq(%s)' % self.s\n", "__repr__", cls="Seq"), "boilerplate"),
        (_py("def __eq__(self, other):\n    return self.s == other.s\n", "__eq__", cls="Seq"), "boilerplate"),
        (
            _py("def draw(cov):\n    fig, ax = plt.subplots()\n    ax.plot(cov)\n    return fig\n", "draw"),
            "plotting_or_output",
        ),
        (
            _py("def report(n):\n    log.info('reads: %d', n)\n    logging.warning('done')\n", "report"),
            "plotting_or_output",
        ),
        (
            _java(
                '@Test\npublic void parsesCigar() {\n    assertEquals(3, parse("3M"));\n}',
                "parsesCigar",
                rtype="void",
            ),
            "test_code",
        ),
        (_java("public int x() {\n    return 1;\n}", "x", path="src/test/java/a/ATest.java"), "test_code"),
        (_java("public int score(String s) {\n}", "score"), "stub"),
        (
            _java(
                'public int score(String s) {\n    throw new UnsupportedOperationException("todo");\n}',
                "score",
            ),
            "stub",
        ),
        (
            _java(
                '@Override\npublic String toString() {\n    return name + ":" + pos;\n}',
                "toString",
                rtype="String",
            ),
            "boilerplate",
        ),
        (_java("public int getStart() {\n    return this.start;\n}", "getStart"), "boilerplate"),
        (
            _java("public void setStart(int s) {\n    this.start = s;\n}", "setStart", rtype="void"),
            "boilerplate",
        ),
        (
            _java("public void warn(String m) {\n    LOGGER.warning(m);\n}", "warn", rtype="void"),
            "plotting_or_output",
        ),
    ],
)
def test_scaffolding_is_recognised(rec, rule):
    found = scaffolding(rec)
    assert found is not None and found[0] == rule, found


@pytest.mark.parametrize(
    "rec",
    [
        _py("def gc(seq):\n    s = seq.upper()\n    return (s.count('G') + s.count('C')) / len(s)\n", "gc"),
        _py("def show(seq):\n    print(seq[::-1])\n", "show"),  # stdout is compared: a task
        _py("def save(rows, path):\n    with open(path, 'w') as fh:\n        fh.write(str(rows))\n", "save"),
        _py("def check(n):\n    if n < 0:\n        log.error('bad')\n        raise ValueError(n)\n", "check"),
        _py("def run(p):\n    log.info('start')\n    compress(p)\n", "run"),  # an effect through a helper
        _py("def __process_feature__(self, x):\n    return x * 2\n", "__process_feature__", cls="P"),
        _py("def __add__(self, other):\n    return Seq(self.s + other.s)\n", "__add__", cls="Seq"),
        _py("def testosterone_level(sample):\n    return sample['t'] * 2\n", "testosterone_level"),
        _java(
            "public int score(String s) {\n    int n = 0;\n    for (char c : s.toCharArray()) n += c == 'G' ? 1 : 0;"
            "\n    return n;\n}",
            "score",
        ),
        _java("public void dump(int[] x) {\n    System.out.println(x.length);\n}", "dump", rtype="void"),
    ],
)
def test_tasks_are_not_scaffolding(rec):
    assert scaffolding(rec) is None


def test_select_counts_each_scaffolding_rule_and_ignores_a_repository_importing_itself():
    own = {
        "packageName": "skgenome.tabio",
        "repoName": "o,skgenome",
        "numLines": 5,
        "numParams": 1,
        "comment": "Merge intervals.",
        "fileImports": ["from skgenome import gary", "import numpy as np"],
        "additionalImports": {"gary": "skgenome.gary"},
    }
    recs = [
        dict(
            _py(
                "def merge(rows):\n    out = []\n    for r in rows:\n        out.append(r)\n    return out\n",
                "merge",
                path="skgenome/tabio/m.py",
            ),
            **own,
            function_id="a",
        ),
        dict(
            _py(
                "def test_merge():\n    x = 1\n    y = 2\n    assert x + y == 3\n    return None\n",
                "test_merge",
                path="skgenome/tabio/m.py",
            ),
            **own,
            function_id="b",
        ),
        dict(
            _py(
                "def merge2(rows):\n    out = {}\n    for r in rows:\n        out[r] = 1\n    return out\n",
                "merge2",
                path="skgenome/tabio/n.py",
            ),
            **{**own, "fileImports": ["import pysam", "from skgenome import gary"]},
            function_id="c",
        ),
    ]
    kept, report = select(recs, SelectConfig())
    rules = {k: v["dropped"] for k, v in report["rules"].items()}
    assert rules["test_code"] == 1
    # skgenome is on the bio-import list, but this repository *is* skgenome: only pysam counts
    assert rules["not_bioinformatics"] == 1 and [r["function_id"] for r in kept] == ["c"]
    assert sum(rules.values()) == report["dropped"] == 2
    kept_all, _ = select(recs, SelectConfig(drop_scaffolding=False, relevance=False))
    assert len(kept_all) == 3


def _java_record(code: str, function_id: str, base: dict) -> dict:
    """An extracted Java method without parameters; its signature is the code's first line."""
    signature = code.split(" {", 1)[0]
    name = signature.split("(", 1)[0].split()[-1]
    return dict(
        _java(code, name), **base, numParams=0, params=[], signature=signature, function_id=function_id
    )


def test_functions_that_take_nothing_a_harness_could_vary_are_counted_and_dropped():
    base = {"repoName": "o,r", "numLines": 5, "comment": "Build it.", "fileImports": ["import pysam"]}
    body = "    x = {'A': 1}\n    y = dict(x)\n    y['C'] = 2\n    return y\n"
    recs = [
        dict(_py("def table():\n" + body, "table"), **base, numParams=0, params=[], function_id="none"),
        dict(_py("def table(k):\n" + body, "table"), **base, numParams=1, params=["k"], function_id="arg"),
        # a method without arguments still has ``self`` (counted among Python's parameters)
        dict(
            _py(
                "def size(self):\n    n = len(self.rows)\n    if n > 2:\n        n -= 1\n    return n\n",
                "size",
                cls="T",
            ),
            **base,
            numParams=1,
            params=["self"],
            function_id="self",
        ),
        _java_record("public static int[] table() {\n    return new int[] {1, 2};\n}\n", "jstatic", base),
        _java_record("public int size() {\n    return rows.size() + 1;\n}\n", "jinstance", base),
    ]
    kept, report = select(recs, SelectConfig(relevance=False))
    assert report["rules"]["no_inputs"]["dropped"] == 2
    assert sorted(r["function_id"] for r in kept) == ["arg", "jinstance", "self"]
    assert {d["function_id"] for d in report["dropped_functions"]} == {"none", "jstatic"}


# ---------------------------------------------------------------------------- extraction, slicing
def test_java_content_from_a_tab_indented_file_is_dedented(tmp_path: Path):
    src = tmp_path / "r" / "src" / "a"
    src.mkdir(parents=True)
    (src / "T.java").write_text(
        "package a;\n\npublic class T {\n\t/**\n\t * Reverse a DNA sequence.\n\t */\n"
        "\tpublic static String rev(String s) {\n\t\treturn new StringBuilder(s)"
        ".reverse().toString();\n\t}\n}\n"
    )
    functions, _, _ = extract_java(tmp_path / "r", "o/r")
    content = functions[0]["content"]
    assert content.startswith("/**\n * Reverse") and "\npublic static String rev" in content
    assert not any(ln.startswith(" \t") or ln.startswith("\t/") for ln in content.splitlines())


OPTIONAL = '''\
try:
    import fsspec_not_installed_here as fsspec
except ImportError:
    fsspec = None

WINDOW = 3


def windows(seq, remote=False):
    """Count windows of a DNA sequence."""
    if remote and fsspec is None:
        raise RuntimeError("remote reads need fsspec")
    return max(len(seq) - WINDOW + 1, 0)
'''


def test_relative_repo_slices_like_an_absolute_one_and_optional_imports_stay_optional(
    tmp_path: Path, monkeypatch
):
    repo = tmp_path / "winpkg"
    (repo / "winpkg").mkdir(parents=True)
    (repo / "winpkg" / "__init__.py").write_text("")
    (repo / "winpkg" / "core.py").write_text(OPTIONAL)
    golden = OPTIONAL[OPTIONAL.index("def windows") :]
    monkeypatch.chdir(tmp_path)
    row = {"file_path": "winpkg/core.py"}
    for repo_arg in ("winpkg", str(repo)):
        module = python_slice.locate_module(repo_arg, row)
        assert module is not None
        sl = python_slice.slice_repository(golden, "windows", repo_arg, module)
        assert sl.origin == "repository" and sl.unresolved == []
        assert any(d.startswith("try:") and "fsspec = None" in d for d in sl.definitions)
        assert "WINDOW = 3" in sl.definitions
    # the sliced program runs where fsspec is absent, taking the fallback branch
    prog = "\n".join(sl.imports + sl.definitions) + "\n" + golden + "\nprint(windows('ACGTAC'))\n"
    out = run_program(prog, timeout=60, check=True)
    assert out.stdout.strip() == "4"


# ---------------------------------------------------------------------------- inputs
BINS = '''\
def bin_of(start, end=None, level=3):
    """Bin of a genomic interval.

    >>> bin_of(10, 79)
    4684
    """
    if start < 0:
        raise ValueError("negative start")
    if end is None:
        end = start + 1
    if start >> 14 == (end - 1) >> 14:
        return 4681 + (start >> 14) + level
    return 585 + (start >> 17) + level
'''


def _run_harness(
    golden: str,
    name: str,
    seeds: range,
    plan_index: int = 0,
    candidate: str | None = None,
    cwd: Path | None = None,
) -> list[str]:
    """Outputs of the harness synthesised from ``golden`` with ``candidate`` (default: the golden) inserted."""
    sl = python_slice.slice_golden(golden, name)
    subject = python_harness.analyse(golden, name)
    ctx = python_harness.render(subject, sl, python_harness.plans(subject)[plan_index])
    return run_context(ctx, candidate or golden, seeds, cwd)


def test_evidence_examples_scale_and_invalid_values():
    import ast

    func = ast.parse(BINS).body[0]
    assert doc_examples(func, ["start", "end", "level"]) == [{"start": "10", "end": "79"}]
    # 0 is compared with (a boundary); 2**14 and 2**17 are shifts (a scale)
    assert scale_constants(func, "start") == [0, 2**14, 2**17]
    assert invalid_expr("str_dna") and invalid_expr("list_int") == "[]" and invalid_expr("ndarray1") is None


def test_harness_varies_defaults_by_keyword_reaches_scale_examples_and_error_paths():
    outs = _run_harness(BINS, "bin_of", range(40))
    firsts = [o.splitlines()[0] for o in outs]
    results = [r for r in firsts if r.startswith("result: ")]
    # the boundary value -1 of ``start < 0`` reaches the error path in the main call too, rarely
    assert len(results) >= 30 and set(firsts) - set(results) <= {"exception: ValueError"}
    assert "result: 4684" in results  # the docstring example replayed
    # values at the 2**14 scale reach the branch that random -50..50 never takes
    assert any(int(r.split()[1]) < 4681 for r in results)
    assert any("probe exception: ValueError" in o for o in outs)  # the error path
    # a wrong default is caught: the level default only shows when the argument is left out
    mutant = BINS.replace("level=3", "level=4")
    assert _run_harness(BINS, "bin_of", range(40), candidate=mutant) != outs
    # the fallback plan keeps defaults and adds no probes
    plain = _run_harness(BINS, "bin_of", range(5), plan_index=1)
    assert not any("probe" in o for o in plain)


LOCUS = '''\
def encode_locus(chrom_index, pos):
    """Encode a locus as one integer, the chromosome in the bits above the position."""
    if pos < 0 or pos >= 1 << 40:
        raise ValueError("position out of range")
    return chrom_index * (1 << 40) + pos
'''

LABEL = '''\
def short_label(name):
    """A display label: long names are cut and marked."""
    if len(name) <= 500:
        return name
    return name[:497] + "..."
'''


def test_boundaries_are_tested_at_any_magnitude_and_at_zero():
    """A compared constant is a boundary however large (2^40) or small (0): the mutants that move
    it by one, or turn < into <=, change some output within ten cases (the default), because a
    boundary sweep calls the function at c - 1, c and c + 1."""
    outs = _run_harness(LOCUS, "encode_locus", range(10))
    for mutant in (
        LOCUS.replace("pos >= 1 << 40", "pos > 1 << 40"),
        LOCUS.replace("pos >= 1 << 40", "pos >= (1 << 40) + 1"),
        LOCUS.replace("pos < 0", "pos <= 0"),
        LOCUS.replace("pos < 0", "pos < -1"),
    ):
        assert _run_harness(LOCUS, "encode_locus", range(10), candidate=mutant) != outs, mutant
    assert all(
        o.startswith(("result: ", "exception: ValueError", "probe retry exception: ValueError")) for o in outs
    )
    assert any("probe boundary: " in o for o in outs)


def test_length_boundaries_reach_hundreds_of_items():
    outs = _run_harness(LABEL, "short_label", range(40))
    for mutant in (LABEL.replace("<= 500", "< 500"), LABEL.replace("<= 500", "<= 501")):
        assert _run_harness(LABEL, "short_label", range(40), candidate=mutant) != outs, mutant


def test_keyword_arguments_follow_the_signature():
    golden = "def trim(seq, left=0, right=0):\n    return seq[left:len(seq) - right]\n"
    renamed = "def trim(seq, lo=0, hi=0):\n    return seq[lo:len(seq) - hi]\n"
    outs = _run_harness(golden, "trim", range(20))
    assert any("exception" not in o for o in outs)
    assert _run_harness(golden, "trim", range(20), candidate=renamed) != outs


# ---------------------------------------------------------------------------- Java goldens
GC = """\
package org.bio;

interface Scorer {
    int score(String seq);
}

public class Gc implements Scorer {
    @Override
    public int score(String seq) {
        int n = 0;
        for (int i = 0; i < seq.length(); i++) {
            char c = seq.charAt(i);
            if (c == 'G' || c == 'C') n += i % 3 + 1;
        }
        return n;
    }

    public static void main(String[] args) {
        Gc g = new Gc();
        for (String a : args) System.out.println(a + " " + g.score(a));
    }
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
@pytest.mark.parametrize("name", ["score", "main"])
def test_override_and_main_goldens_get_a_harness_that_compiles(tmp_path: Path, name: str):
    repo = tmp_path / "gc"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "Gc.java").write_text(GC)
    start = GC.index("    @Override") if name == "score" else GC.index("    public static void main")
    end = GC.index("\n    }\n", start) + 6
    golden = textwrap.dedent(GC[start:end])
    row = {
        "task_id": "t",
        "language": "java",
        "function_name": name,
        "golden_code": golden,
        "file_path": "src/Gc.java",
        "repository": "bio/gc",
        "metadata": "{}",
        "signature": None,
    }
    subject = java_harness.analyse_java(row, repo)
    ctx = java_harness.render_java(subject)
    assert ctx is not None
    prog = harness.build_harness_programs(dict(row, context=ctx), golden, fuzz_cases=1, seed=0)[0]
    cls = java_class_name(prog)
    assert "@Override" not in prog
    (tmp_path / f"{cls}.java").write_text(prog)
    done = subprocess.run(
        ["javac", "-d", str(tmp_path / "out"), str(tmp_path / f"{cls}.java")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LC_ALL": "C"},
    )
    assert done.returncode == 0, done.stderr
    run = subprocess.run(
        ["java", "-cp", str(tmp_path / "out"), cls], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and "result: " in run.stdout, run.stderr


# ---------------------------------------------------------------------------- summary
def test_failures_are_keyed_by_cause_and_time_counts_validated_tasks_only():
    failed = {
        "language": "python",
        "status": "failed",
        "seconds": 0.01,
        "attempts": [
            {"plan": "best guess", "reason": "golden case 0 (run 1): runtime_error: boom"},
            {"plan": "defaults kept", "reason": "kills 2 of 6 non-equivalent mutants (needs 80%)"},
        ],
    }
    instant = {
        "language": "python",
        "status": "failed",
        "seconds": 0.005,
        "attempts": [],
        "reason": "unresolved names: foo",
    }
    ok = {"language": "python", "status": "validated", "seconds": 8.0, "validation": {"mutation_score": 1.0}}
    assert cause_of("null candidate passes: return None") == "null_candidate_passes"
    assert record_cause(failed) == "weak_mutant_score"  # the furthest gate reached, not the plan label
    s = summarize([failed, instant, ok])
    assert s["failure_causes"] == {"unresolved_names": 1, "weak_mutant_score": 1}
    assert s["by_language"]["python"]["median_seconds_per_validated_task"] == 8.0


REGION = """\
package org.bio.model;

public class Region {
    public final String chr;
    public final int start;
    public final int end;

    public Region(String chr, int start, int end) {
        this.chr = chr;
        this.start = start;
        this.end = end;
    }

    private Region() {
        this("chr1", 0, 0);
    }
}
"""
STRAND = "package org.bio.model;\n\npublic enum Strand { PLUS, MINUS }\n"
OVERLAP = """\
package org.bio.ops;

import org.bio.model.Region;
import org.bio.model.Strand;

public class Overlap {
    public static int overlap(Region a, Region b, Strand s) {
        if (!a.chr.equals(b.chr)) return 0;
        int n = Math.min(a.end, b.end) - Math.max(a.start, b.start);
        return s == Strand.MINUS ? -Math.max(n, 0) : Math.max(n, 0);
    }

    public static Region widen(Region r, int by) {
        return new Region(r.chr, r.start - by, r.end + by);
    }
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
@pytest.mark.parametrize("name", ["overlap", "widen"])
def test_the_projects_own_types_are_built_through_their_constructors(tmp_path: Path, name: str):
    repo = tmp_path / "ov"
    for rel, text in (
        ("src/org/bio/model/Region.java", REGION),
        ("src/org/bio/model/Strand.java", STRAND),
        ("src/org/bio/ops/Overlap.java", OVERLAP),
    ):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    start = OVERLAP.index(f"    public static {'int' if name == 'overlap' else 'Region'} {name}")
    golden = textwrap.dedent(OVERLAP[start : OVERLAP.index("\n    }\n", start) + 6])
    row = {
        "task_id": "t",
        "language": "java",
        "function_name": name,
        "golden_code": golden,
        "file_path": "src/org/bio/ops/Overlap.java",
        "repository": "bio/ov",
        "metadata": "{}",
        "signature": None,
    }
    subject = java_harness.analyse_java(row, repo)
    assert set(subject.repo_types) >= {"Region"} and subject.repo_types["Region"].ctor[0].type == "String"
    ctx = java_harness.render_java(subject)
    assert ctx is not None and "new Region(" in ctx
    outs = []
    for seed in (1, 2):
        prog = harness.build_harness_programs(dict(row, context=ctx), golden, fuzz_cases=1, seed=seed)[0]
        cls = java_class_name(prog)
        (tmp_path / f"{cls}.java").write_text(prog)
        done = subprocess.run(
            ["javac", "-d", str(tmp_path / "out"), str(tmp_path / f"{cls}.java")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        run = subprocess.run(
            ["java", "-cp", str(tmp_path / "out"), cls], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0 and "result: " in run.stdout, run.stderr
        outs.append(run.stdout)
    if name == "widen":  # a returned project object is shown by its fields, not by its address
        assert "result: Region{chr: " in outs[0]
    assert outs[0] != outs[1]


MODEL = '''\
class Interval:
    """A genomic interval."""

    def __init__(self, chrom, start, end, strand="+"):
        self.chrom = chrom
        self.start = start
        self.end = max(start, end)
        self.strand = strand
'''
OPS = '''\
from .model import Interval


def overlap(a: Interval, b: Interval) -> int:
    """Number of bases two genomic intervals share (0 on different chromosomes)."""
    if a.chrom != b.chrom:
        return 0
    return max(0, min(a.end, b.end) - max(a.start, b.start))
'''


def test_python_arguments_of_the_projects_own_classes_are_built_by_their_constructors(tmp_path: Path):
    golden = OPS[OPS.index("def overlap") :]
    files = {"ivpkg/__init__.py": "", "ivpkg/model.py": MODEL, "ivpkg/ops.py": OPS}
    row, cands, origin = _python_repo_task(tmp_path, "ivrepo", files, golden, "overlap", "ivpkg/ops.py")
    assert origin == "repository"
    label, plan, ctx = cands[0]
    assert plan["a"].startswith("ctor:Interval:") and "class Interval" in ctx
    results = set()
    for out in _golden_outputs(row, ctx, golden, 30):
        first = out.splitlines()[0]
        assert first.startswith("result: "), out
        results.add(first)
        assert "after a: Interval{" in out  # the object's state is compared too
    assert len(results) > 2  # overlaps of several sizes, not a constant 0


UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "biocoder-upstream"


@pytest.mark.upstream
def test_scaffolding_rules_drop_no_public_upstream_task():
    """Upstream's public goldens are tasks by definition: none may look like scaffolding."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"{UPSTREAM} is absent (the upstream BioCoder files)")
    from biocoder_dataset.configs import load_problems

    for config in ("python_public", "java_public"):
        rows = load_problems(config, source_dir=str(UPSTREAM))
        assert len(rows) >= 50
        flagged = []
        for r in rows:
            head = r["golden_code"].split("{")[0]
            rtype = re.search(r"(\w+)\s+" + re.escape(r["function_name"]) + r"\s*\(", head)
            rec = {
                "content": r["golden_code"],
                "language": r["language"],
                "functionName": r["function_name"],
                "returnType": rtype.group(1) if rtype else "",
                "filePath": r.get("file_path") or "",
                "signature": r.get("signature") or "",
            }
            if scaffolding(rec):
                flagged.append((r["task_id"], scaffolding(rec)))
        assert flagged == [], flagged


PARSER = '''\
def parse_interval(text):
    """Parse a genomic interval written chrom:start-end."""
    chrom, rest = text.split(":")
    start, end = rest.split("-")
    if int(end) < int(start):
        raise ValueError("end before start")
    return chrom, int(start), int(end)
'''
PARSER_TESTS = """\
from ivp.core import parse_interval


def test_parse():
    assert parse_interval("chr1:10-20") == ("chr1", 10, 20)
    assert parse_interval("chrX:5-500") == ("chrX", 5, 500)
    assert parse_interval("2:1-2") == ("2", 1, 2)
"""


def test_the_repositorys_own_tests_supply_real_inputs_for_a_parser(tmp_path: Path):
    files = {"ivp/__init__.py": "", "ivp/core.py": PARSER, "tests/test_core.py": PARSER_TESTS}
    row, cands, _ = _python_repo_task(tmp_path, "ivp", files, PARSER, "parse_interval", "ivp/core.py")
    by_label = {label: ctx for label, _, ctx in cands}
    assert "examples" in by_label and "'chr1:10-20'" in by_label["examples"]
    outs = set()
    for seed in range(20):
        prog = harness.build_harness_programs(
            dict(row, context=by_label["examples"]), PARSER, fuzz_cases=1, seed=seed
        )[0]
        done = run_program(prog, timeout=60, check=True)
        outs.add(done.stdout.splitlines()[0])
    # most cases replay the tests' real intervals, so the golden parses them instead of raising
    assert {"result: ('chr1', 10, 20)", "result: ('chrX', 5, 500)"} <= outs


# ---------------------------------------------------------------------------- self through __init__
COUNTS = '''\
class Counts:
    """Item counts with their total (an invariant ``__init__`` keeps)."""

    def __init__(self, values, label="x"):
        self.values = [abs(v) + 1 for v in values]
        self.label = label
        self._retotal()

    def _retotal(self):
        self.total = sum(self.values)

    def fraction(self, i):
        """Share of item ``i`` (wrapping around)."""
        return round(self.values[i % len(self.values)] / self.total, 6)
'''


def test_self_is_built_through_init_so_its_fields_agree(tmp_path: Path):
    from biocoder_metric.synth.python_construct import assigned_fields, stored_fields

    init = ast.parse(textwrap.dedent(COUNTS)).body[0].body[1]
    assert stored_fields(init) == {"label": "label"}
    members = [ast.unparse(f) for f in ast.parse(COUNTS).body[0].body[1:]]
    assert assigned_fields(members) == {"values", "label", "total"}  # _retotal's field counts too

    golden = textwrap.dedent(COUNTS[COUNTS.index("    def fraction") :])
    files = {"cpkg/__init__.py": "", "cpkg/counts.py": COUNTS}
    row, cands, _ = _python_repo_task(tmp_path, "crepo", files, golden, "fraction", "cpkg/counts.py")
    labels = [c[0] for c in cands]
    assert labels[:2] == [
        "best guess",
        "constructed",
    ]  # after the best guess: what validates keeps its harness
    _, plan, ctx = cands[1]
    assert "self.__init__.values" in plan and "self.total" not in plan  # __init__ sets total
    assert "_bc_obj = Counts(**_bc_ckw)" in ctx
    results = set()
    for out in _golden_outputs(row, ctx, golden, 20):
        first = out.splitlines()[0]
        assert first.startswith("result: "), out
        assert 0 < float(first.split()[1]) <= 1  # a share of a consistent total, never above 1
        results.add(first)
    assert len(results) > 2


# ---------------------------------------------------------------------------- duck-typed project objects
READS = '''\
class Reads:
    """Named reads; ``n`` is always the number of sequences."""

    def __init__(self, names=None, seqs=None):
        self.n = len(seqs) if seqs else 0
        self.names = list(names) if names else []
        self.seqs = [s.upper() for s in seqs] if seqs else []


class Window:
    def __init__(self, start, n):
        self.start = start
        self.n = n
'''

LENGTHS = '''\
class Profile:
    def __init__(self, reads):
        self.reads = reads
        self._len = {}
        for i in range(reads.n):
            self._len[(i,)] = len(self.reads.seqs[i])

    def longer(self, i, j):
        """Whether read ``i`` is longer than read ``j``."""
        return self._len[(i,)] > self._len[(j,)]
'''


def test_an_object_known_only_by_the_fields_read_is_the_project_class_that_assigns_them(tmp_path: Path):
    """``reads.n`` and ``reads.seqs[i]`` read on a constructor argument no annotation names: the
    only project class whose ``__init__`` assigns both (``Reads``; ``Window`` has ``n``, not ``seqs``) is
    built through its constructor, defaulted parameters included, so ``n == len(seqs)``; two
    independently generated fields (``n`` 7, three sequences) raise on nearly every call."""
    from biocoder_metric.synth.python_slice import duck_class

    files = {"rpkg/__init__.py": "", "rpkg/records.py": READS, "rpkg/profile.py": LENGTHS}
    for rel, text in files.items():
        (tmp_path / "rrepo" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "rrepo" / rel).write_text(text)
    assert duck_class(tmp_path / "rrepo", {"n", "seqs"})[0] == "Reads"
    assert duck_class(tmp_path / "rrepo", {"n"})[0] == "Window"  # the closest fit: fewest other fields
    assert duck_class(tmp_path / "rrepo", {"n", "start", "seqs"}) is None  # no class has all three
    golden = textwrap.dedent(LENGTHS[LENGTHS.index("    def longer") :])
    row, cands, _ = _python_repo_task(tmp_path, "rrepo", files, golden, "longer", "rpkg/profile.py")
    built = [(plan, ctx) for label, plan, ctx in cands if label == "constructed"]
    assert built, [c[0] for c in cands]
    plan, ctx = built[0]
    assert plan["self.__init__.reads"].startswith("ctor:Reads:") and "'seqs'" in plan["self.__init__.reads"]
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 12)]
    # the keys (i,) are looked up among the ones the built object holds, in most cases
    assert sum(r.startswith("result: ") for r in results) >= 8, results
    assert {"result: True", "result: False"} <= set(results), results


# ---------------------------------------------------------------------------- lazy imports
LAZY = {
    "lpkg/__init__.py": "",
    "lpkg/scale.py": "def scaled(x, factor=2):\n    return x * factor\n",
    "lpkg/consts.py": "OFFSET = 3\n",
    "lpkg/records.py": "def record(name):\n    from lpkg import consts\n\n    return {'name': name, 'offset': consts.OFFSET}\n",
    "lpkg/stats.py": '''\
from lpkg.records import record


def shifted_total(values, name):
    """Sum of the scaled values plus the offset, with the record it is for."""
    from lpkg.scale import scaled
    from . import consts

    rec = record(name)
    return rec["name"], sum(scaled(v) for v in values) + consts.OFFSET + rec["offset"]
''',
}


def test_what_a_function_imports_from_its_own_package_inside_its_body_is_sliced_and_importable(
    tmp_path: Path,
):
    """``from lpkg.scale import scaled`` and ``from . import consts`` inside the function (a lazy
    import, against an import cycle), and ``from lpkg import consts`` inside a sliced helper, run
    when the harness calls them, where no ``lpkg`` is installed: the names are sliced like any
    other and the harness registers modules holding them (python_slice._local_import_shims);
    before, every call raised ``ModuleNotFoundError``."""
    golden = LAZY["lpkg/stats.py"][LAZY["lpkg/stats.py"].index("def shifted_total") :]
    row, cands, _ = _python_repo_task(tmp_path, "lrepo", LAZY, golden, "shifted_total", "lpkg/stats.py")
    ctx = cands[0][2]
    assert "def scaled" in ctx and "OFFSET = 3" in ctx
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 6)]
    assert all(r.startswith("result: ") for r in results), results


# ---------------------------------------------------------------------------- filters that fire
FILTERS = {
    "drop_excluded": (
        '''def drop_excluded(records, exclude):
    """The (name, length) records whose name is not in ``exclude``, longest first."""
    kept = [(name, size) for name, size in records if name not in exclude]
    return sorted(kept, key=lambda r: (-r[1], r[0]))
''',
        "if name not in exclude",
    ),
    "prefix_weight": (
        '''def prefix_weight(reads, weights):
    """Sum over reads of the weight of each read's 3-letter prefix; unknown prefixes weigh 1."""
    total = 0.0
    for read in reads:
        total += weights.get(read[:3], 1.0)
    return round(total, 3)
''',
        "weights.get(read[:3], 1.0)",
    ),
}


def test_a_filter_key_computed_from_another_inputs_elements_is_found_in_the_container():
    """``(line.key, line.value) in remove`` inside ``for line in header.lines`` (also ``C[key]``,
    ``C.get(key)``, comprehensions, ``key = ...; if key in C``) is a selection: the container is
    given some of the keys the code computes from the other input's elements
    (python_lookups.selections); a key that reads a parameter is a lookup, not a selection, and a
    list's index is no key to add (``mode`` "key" applies to mappings only)."""
    import ast

    from biocoder_metric.synth.python_lookups import selections

    src = textwrap.dedent(
        """
        def without(header, remove, n):
            for line in header.lines:
                key = (line.key, line.value)
                if key in remove:
                    continue
            return [header.extra[i] for i in range(n)]
        """
    )
    func = ast.parse(src).body[0]
    got = selections(func, ["header", "remove", "n"])
    assert got[0] == (
        ("param", "remove"),
        ["header"],
        "lambda header: header.lines",
        "lambda _bc_e: [(line.key, line.value) for line in [_bc_e]][0]",
        "member",
    )
    assert len(got) == 1  # header.extra[i]: i runs over range(n) but header.extra is no parameter
    method = ast.parse(
        "def f(self, seqs):\n    return [self.table[s[:2]] for s in seqs if s in self.seen]"
    ).body[0]
    assert {(ref, mode) for ref, _, _, _, mode in selections(method, ["seqs"], "self")} == {
        (("attr", "table"), "key"),
        (("attr", "seen"), "member"),
    }


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_a_mutant_that_drops_a_filter_shows_because_the_filter_fires(name: str):
    """Independently drawn names and keys seldom meet: ``weights.get(read[:3], 1.0)`` found no
    prefix in a random table on any of 30 seeds, so a mutant that drops the lookup was
    indistinguishable from the golden. With the container given some of the computed keys,
    the mutant's output differs on most single-case runs."""
    from biocoder_metric.synth.pipeline import SynthOptions, candidates

    golden, dropped = FILTERS[name]
    row = {
        "task_id": "t",
        "language": "python",
        "function_name": name,
        "golden_code": golden,
        "metadata": "{}",
    }
    cands, reason, _ = candidates(row, SynthOptions())
    assert reason is None, reason
    ctx = cands[0][2]
    mutant = golden.replace(dropped, "1.0" if name == "prefix_weight" else "")
    differs = sum(
        a != b
        for a, b in zip(
            _golden_outputs(row, ctx, golden, 20), _golden_outputs(row, ctx, mutant, 20), strict=True
        )
    )
    assert differs >= 12, differs


# ---------------------------------------------------------------------------- dispatch by name
SCALERS = '''\
import math


class Scaler:
    """Values on a chosen scale."""

    def __init__(self, values):
        self.values = list(values)

    def scale_log(self, x):
        return math.log1p(abs(x))

    def scale_sqrt(self, x):
        return math.sqrt(abs(x))

    def scale_rank(self, x):
        return sorted(self.values).index(x)

    def scaled(self, method="log"):
        """Every value on the scale named by ``method``."""
        to_scale = getattr(self, "scale_" + method)
        return [round(to_scale(v), 4) for v in self.values]
'''


def test_a_method_picked_by_name_is_sliced_and_the_name_is_one_it_can_pick(tmp_path: Path):
    """``getattr(self, "scale_" + method)`` names no member the slicer can follow: every member
    the pattern can name is sliced (python_slice.name_dispatches), and ``method`` is drawn from
    their names (``log``, ``sqrt``, ``rank``), not a random word that raises ``AttributeError``
    on every call."""
    import ast

    from biocoder_metric.synth.python_slice import dispatched_names, name_dispatches

    calls = name_dispatches(
        ast.parse('getattr(self, "d_" + k + "_x"); getattr(o, "{}_v".format(m)); getattr(o, k)')
    )
    assert [c[1:] for c in calls] == [("d_", "k", "_x"), ("", "m", "_v")]
    assert dispatched_names(["d_a_x", "d__x", "e_b_x", "d_cc_x"], "d_", "_x") == ["a", "cc"]
    files = {"dpkg/__init__.py": "", "dpkg/scale.py": SCALERS}
    golden = textwrap.dedent(SCALERS[SCALERS.index("    def scaled") :])
    row, cands, _ = _python_repo_task(tmp_path, "drepo", files, golden, "scaled", "dpkg/scale.py")
    plan, ctx = cands[0][1:]
    assert plan["method"] == "choice:['log', 'sqrt', 'rank']", plan
    assert "def scale_sqrt" in ctx and "def scale_rank" in ctx
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 12)]
    assert sum(r.startswith("result: ") for r in results) >= 8, results
    assert len(set(results)) >= 4, results


MODES = '''\
class Combiner:
    def set_mode(self, mode):
        try:
            self.combine = getattr(self, "combine_" + mode)
        except AttributeError:
            raise ValueError("unknown mode %r" % mode)


class Folder(Combiner):
    def __init__(self, values, mode="sum"):
        self.values = list(values)
        self.set_mode(mode)

    def combine_sum(self, a, b):
        return a + b

    def combine_max(self, a, b):
        return max(a, b)

    def combine_diff(self, a, b):
        return abs(a - b)

    def fold(self, start):
        """Every value combined into ``start`` by the mode chosen at construction."""
        acc = start
        for v in self.values:
            acc = self.combine(acc, v)
        return acc
'''


def test_a_constructor_mode_handed_to_a_setter_that_picks_a_member_is_one_of_their_names(tmp_path: Path):
    """``Folder(values, mode)`` hands ``mode`` to a base class's ``set_mode``, which picks
    ``combine_<mode>``: the constructed plan draws ``mode`` from the members' names
    (python_slice.dispatch_choices, one call down), and only from them, since building ``self``
    is the method's setup (``pick:``); a random word made the constructor raise ``ValueError``
    on most calls."""
    files = {"fpkg/__init__.py": "", "fpkg/fold.py": MODES}
    golden = textwrap.dedent(MODES[MODES.index("    def fold") :])
    row, cands, _ = _python_repo_task(tmp_path, "frepo", files, golden, "fold", "fpkg/fold.py")
    built = [(plan, ctx) for label, plan, ctx in cands if label == "constructed"]
    assert built, [c[0] for c in cands]
    plan, ctx = built[0]
    kind = plan["self.__init__.mode"]
    assert kind.startswith("pick:") and set(eval(kind[len("pick:") :])) == {"sum", "max", "diff"}, kind
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 12)]
    assert all(r.startswith("result: ") for r in results), results


BASED = '''\
from . import base


class Scaled(base.Store):
    def __init__(self, values, factor=2):
        super(Scaled, self).__init__(values)
        self.factor = factor

    def top(self, k):
        """The ``k`` largest scaled values."""
        return [v * self.factor for v in sorted(self.items(), reverse=True)[: k % 4 + 1]]
'''

BASE = """\
class Store(object):
    def __init__(self, values):
        self.values = [int(v) for v in values]

    def items(self):
        return list(self.values)
"""


def test_a_constructed_self_keeps_its_repository_bases(tmp_path: Path):
    """``super().__init__`` and inherited methods need the real bases (sliced), not a bare class."""
    golden = textwrap.dedent(BASED[BASED.index("    def top") :])
    files = {"bpkg/__init__.py": "", "bpkg/base.py": BASE, "bpkg/scaled.py": BASED}
    row, cands, _ = _python_repo_task(tmp_path, "brepo", files, golden, "top", "bpkg/scaled.py")
    label, plan, ctx = cands[1]
    assert label == "constructed" and "class Scaled(base.Store):" in ctx and "class Store(object)" in ctx
    assert "_bc_obj.items =" not in ctx  # inherited, not stubbed
    outs = set()
    for out in _golden_outputs(row, ctx, golden, 12):
        assert out.startswith("result: ["), out
        outs.add(out.splitlines()[0])
    assert len(outs) > 2


WALK = '''\
class Walk:
    def __init__(self):
        self.steps = []

    def add(self, x):
        self.steps.append(x)

    def span(self):
        """Distance between the lowest and highest point reached."""
        here, low, high = 0, 0, 0
        for s in self.steps:
            here += s
            low, high = min(low, here), max(high, here)
        return high - low


def parse_walk(text):
    """Read a walk from comma-separated steps.

    Returns:
        ``Walk``: the walk
    """
    w = Walk()
    for part in text.split(","):
        w.add(int(part))
    return w


def describe(w):
    """Return a string describing ``w`` (prose that names no class is no factory)."""
    return str(w)
'''


def test_self_with_structure_is_built_by_the_modules_factory(tmp_path: Path):
    """An object only a reader makes sensibly (a tree, a parsed record) comes from that reader."""
    from biocoder_metric.synth.python_construct import factories

    assert [c.callee for c in factories(WALK, "Walk")] == ["parse_walk"]
    golden = textwrap.dedent(WALK[WALK.index("    def span") : WALK.index("\n\ndef parse_walk")])
    files = {"wpkg/__init__.py": "", "wpkg/walk.py": WALK}
    row, cands, _ = _python_repo_task(tmp_path, "wrepo", files, golden, "span", "wpkg/walk.py")
    by_label = {c[0]: c for c in cands}
    _, plan, ctx = by_label["built by parse_walk"]
    assert ctx.count("class Walk") == 1  # the harness's class, never a sliced copy holding the golden
    assert "def parse_walk" in ctx and "def add" in ctx and "_bc_obj = parse_walk(**_bc_ckw)" in ctx
    outs = {out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 15)}
    assert len([o for o in outs if o.startswith("result: ")]) > 2, outs


def test_a_string_default_used_as_a_key_types_the_mapping_and_a_property_types_its_field():
    """``self.df[record]`` with ``record='ATOM'`` read through ``df`` -> ``self._df``: a dict keyed 'ATOM'."""
    from biocoder_metric.synth.python_evidence import keys_from_defaults

    golden = textwrap.dedent(
        """\
        def pick(self, record="ATOM", scale=2):
            return sorted(self.df[record].items())[:scale]
        """
    )
    func = ast.parse(golden).body[0]
    assert "self.df['ATOM']" in ast.unparse(keys_from_defaults(func))
    assert keys_from_defaults(func) is not func and "self.df[record]" in ast.unparse(
        func
    )  # the golden is kept
    prop = "@property\ndef df(self):\n    return self._df"
    subject = python_harness.analyse(golden, "pick", class_name="Store", class_members=[prop])
    kinds = dict(subject.attrs)
    assert kinds["_df"][0].startswith("dictkeys:") and "'ATOM'" in kinds["_df"][0]


def test_namespace_packages_and_star_reexports_slice(tmp_path: Path):
    """``from . import aux`` in a folder without ``__init__.py``; ``from .mass import X`` via ``import *``."""
    repo = tmp_path / "nsrepo"
    (repo / "nspkg" / "mass").mkdir(parents=True)  # nspkg itself has no __init__.py
    (repo / "nspkg" / "aux.py").write_text("def clip(x):\n    return max(0, x)\n")
    (repo / "nspkg" / "mass" / "__init__.py").write_text("from .core import *\n")
    (repo / "nspkg" / "mass" / "core.py").write_text(
        "MASS = {'A': 71.0}\n\ndef weight(s):\n    return sum(MASS.get(c, 0.0) for c in s)\n"
    )
    mod = "from . import aux\nfrom .mass import weight\n\n\ndef score(s, k):\n    return aux.clip(weight(s) - k)\n"
    (repo / "nspkg" / "score.py").write_text(mod)
    golden = mod[mod.index("def score") :]
    sl = python_slice.slice_repository(golden, "score", repo, repo / "nspkg" / "score.py")
    assert sl.unresolved == []
    text = "\n".join(sl.definitions)
    assert "def clip" in text and "def weight" in text and "MASS = " in text


STEPS = '''\
class Step:
    def __init__(self, size):
        self.size = size


class Route:
    def __init__(self):
        self.steps = []

    def before(self, step):
        """Length walked before ``step``."""
        if not isinstance(step, Step):
            raise TypeError("step must be a Step")
        total = 0
        for s in self.steps:
            if s is step:
                return total
            total += s.size
        raise ValueError("not on this route")


def parse_route(text):
    """Read a route from comma-separated step sizes.

    Returns:
        ``Route``: the route
    """
    r = Route()
    for part in text.split(","):
        r.steps.append(Step(int(part)))
    return r
'''


def test_an_argument_the_object_must_hold_is_one_of_its_own(tmp_path: Path):
    """``isinstance(step, Step)`` on a built object: the argument is a ``Step`` *of this route*."""
    golden = textwrap.dedent(STEPS[STEPS.index("    def before") : STEPS.index("\n\ndef parse_route")])
    files = {"rpkg/__init__.py": "", "rpkg/route.py": STEPS}
    row, cands, _ = _python_repo_task(tmp_path, "rrepo", files, golden, "before", "rpkg/route.py")
    _, plan, ctx = {c[0]: c for c in cands}["built by parse_route"]
    assert plan["step"] == "member:Step"
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 15)]
    assert all(r.startswith("result: ") for r in results), results  # never "not on this route"
    assert len(set(results)) > 2


def test_a_method_named_like_a_module_still_gets_the_module_and_dunders_are_never_stubbed(tmp_path: Path):
    """``fasta`` inside method ``fasta`` is the module ``fasta``; ``self.__class__(...)`` is not a stub."""
    repo = tmp_path / "mrepo"
    (repo / "mpkg").mkdir(parents=True)
    (repo / "mpkg" / "__init__.py").write_text("")
    (repo / "mpkg" / "fasta.py").write_text("def record(name, seq):\n    return '>%s\\n%s' % (name, seq)\n")
    mod = textwrap.dedent(
        """\
        from . import fasta


        class Seqs:
            def __init__(self, names):
                self.names = list(names)

            def fasta(self):
                return [fasta.record(n, 'ACGT') for n in self.names]

            def copy(self):
                return self.__class__(self.names)
        """
    )
    (repo / "mpkg" / "seqs.py").write_text(mod)
    golden = textwrap.dedent(mod[mod.index("    def fasta") : mod.index("    def copy")])
    sl = python_slice.slice_repository(golden, "fasta", repo, repo / "mpkg" / "seqs.py")
    assert sl.unresolved == [] and any("def record" in d for d in sl.definitions)
    golden = textwrap.dedent(mod[mod.index("    def copy") :])
    sl = python_slice.slice_repository(golden, "copy", repo, repo / "mpkg" / "seqs.py")
    subject = python_harness.analyse(
        golden, "copy", str(repo), sl.class_name, sl.class_members, sl.definitions
    )
    assert "__class__" not in dict(subject.attrs)


def test_values_looked_up_by_a_keys_loop_type_the_dict():
    """``for k in sorted(d.keys()): len(d[k]) ... k / w``: number keys, list values (some empty)."""
    from biocoder_metric.synth.python_inputs import infer_params

    golden = textwrap.dedent(
        """\
        def mean_per_bin(bins: dict, width: int) -> float:
            total, n = 0.0, 0
            for k in sorted(bins.keys()):
                if len(bins[k]) == 0:
                    continue
                total += sum(bins[k]) * (k / float(width))
                n += len(bins[k])
            return total / max(n, 1)
        """
    )
    (bins, _) = infer_params(ast.parse(golden).body[0])
    assert bins.kinds[0] == "dict_int_list"
    outs = {o.splitlines()[0] for o in _run_harness(golden, "mean_per_bin", range(12))}
    assert all(o.startswith("result: ") for o in outs) and len(outs) > 3


def test_an_elementwise_test_reduced_along_an_axis_is_an_array():
    """``np.all(self.values >= 0, axis=-1)``: ``values`` is an array, not the int its comparison suggests."""
    golden = "def is_called(self):\n    return np.all(self.values >= 0, axis=-1)\n"
    subject = python_harness.analyse(golden, "is_called", class_name="Calls")
    assert dict(subject.attrs)["values"][0].startswith("ndarray")


# ------------------------------------------------- arguments that must agree (python_lookups)
MASS = '''\
RESIDUE_MASS = {"Ala": 71.03711, "Gly": 57.02146, "Ser": 87.03203, "Pro": 97.05276, "Trp": 186.07931}


def peptide_mass(residues, water=18.01056):
    """Monoisotopic mass of a peptide given as three-letter residue names."""
    total = water
    for name in residues:
        total += RESIDUE_MASS[name]
    return round(total, 5)
'''

PAIR = '''\
def pair_score(matrix, i, j, scale=2):
    """Score of the pair (i, j) in a substitution matrix given as rows."""
    if i == j:
        return 0
    return matrix[i][j] * scale
'''

SITES = '''\
ENZYMES = {"EcoRI": "GAATTC", "BamHI": "GGATCC", "HindIII": "AAGCTT", "NotI": "GCGGCCGC"}


def cut_positions(seq, enzyme):
    """0-based positions where ``enzyme`` cuts ``seq`` (one after the site's first base)."""
    site = ENZYMES[enzyme]
    out, i = [], seq.find(site)
    while i >= 0:
        out.append(i + 1)
        i = seq.find(site, i + 1)
    return out
'''


def test_lookup_evidence_finds_keys_elements_nested_and_helper_lookups():
    from biocoder_metric.synth.python_lookups import lookups

    func = ast.parse(MASS).body[1]
    agree, composed = lookups(func, ["residues", "water"])
    assert agree == [] and composed == [("residues", ("global", "RESIDUE_MASS"))]
    func = ast.parse(PAIR).body[0]
    agree, _ = lookups(func, ["matrix", "i", "j", "scale"])
    assert (("param", "matrix"), (("var", "i", 0), ("var", "j", 0)), True) in agree
    helper = "def _cell(self, a, b):\n    return self.table[(a, b - 1)]\n"
    method = ast.parse("def score(self, x, y):\n    return self._cell(x, y) + 1\n").body[0]
    agree, _ = lookups(method, ["x", "y"], "self", [helper])
    assert agree == [(("attr", "table"), (("var", "x", 0), ("var", "y", -1)), False)]


@pytest.mark.parametrize(
    ("golden", "name", "mutants"),
    [
        (
            MASS,
            "peptide_mass",
            [("total = water", "total = 0"), ("RESIDUE_MASS[name]", "RESIDUE_MASS[name] + 1")],
        ),
        (PAIR, "pair_score", [("matrix[i][j]", "matrix[j][i]"), ("* scale", "* scale + 1")]),
        (SITES, "cut_positions", [("ENZYMES[enzyme]", 'ENZYMES.get(enzyme, "")')]),
    ],
    ids=["elements-of-a-table", "nested-index", "global-key"],
)
def test_arguments_agree_with_what_the_code_looks_them_up_in(
    golden: str, name: str, mutants: list[tuple[str, str]]
):
    """Random residue names, indices and enzyme names are nearly never keys of the table: with
    independent values the golden raises in most cases (no harness). Agreeing values reach the
    result in most cases, the lookup's failure path is still reached, and mutants of the
    computation after the lookup (or of its failure path) are killed."""
    outs = _run_harness(golden, name, range(20))
    assert sum("\nresult: " in "\n" + o for o in outs) >= 12, outs
    assert any("exception: " in o for o in outs), outs
    for old, new in mutants:
        assert old in golden
        mutant = golden.replace(old, new)
        assert _run_harness(golden, name, range(20), candidate=mutant) != outs, new


WINDOW = '''\
def window_mean(values, k):
    """Mean of the k-th window of three values."""
    if k < 0 or 3 * k + 3 > len(values):
        raise IndexError("window out of range")
    return sum(values[3 * k : 3 * k + 3]) / 3
'''


def test_rejected_inputs_are_drawn_again_and_each_rejection_is_compared():
    """Inputs that fit together only sometimes (a window index within a random list) are drawn
    again when the golden rejects them: fewer cases end in an exception than start with one, and
    the rejections are printed, so a candidate that rejects other draws, or none, is caught."""
    outs = _run_harness(WINDOW, "window_mean", range(20))
    rejected_first = sum(o.startswith(("probe retry exception: ", "exception: ")) for o in outs)
    failed = sum("\nexception: " in "\n" + o for o in outs)
    assert failed < rejected_first
    assert any("probe retry exception: IndexError\nresult: " in o for o in outs)
    for old, new in (
        ('raise IndexError("window out of range")', "return None"),
        ("3 * k + 3 > len(values)", "3 * k + 4 > len(values)"),
    ):
        mutant = WINDOW.replace(old, new)
        assert mutant != WINDOW
        assert _run_harness(WINDOW, "window_mean", range(20), candidate=mutant) != outs, new


def test_a_container_that_cannot_be_read_leaves_the_arguments_as_drawn():
    """A property that raises on an unset field is no container: the agreement step must not crash
    the case (an uncaught error there would fail the golden's case, not test the candidate)."""
    import random

    from biocoder_metric.synth import python_lookups

    ns: dict = {}
    exec(python_lookups.PRELUDE, ns)  # noqa: S102 - the harness prelude, as the harness runs it

    class Panel:
        rows = {"a": 1, "b": 2}

        @property
        def broken(self):
            raise KeyError("unset")  # getattr(obj, name, None) lets this escape

    assert ns["_bc_field"](Panel(), "broken") is None and ns["_bc_field"](Panel(), "rows") == {"a": 1, "b": 2}
    slots = (("var", "k", 0),)
    r = random.Random(0)
    for _ in range(20):
        assert ns["_bc_agree"](r, {"k": "zz"}, [(None, slots, True)], rate=1.0) == {"k": "zz"}
        assert ns["_bc_agree"](r, {"k": "zz"}, [(Panel.rows, slots, True)], rate=1.0)["k"] in Panel.rows


def test_call_sites_of_a_shared_name_are_those_that_reach_the_definition(tmp_path: Path):
    """Two format modules define ``is_flagged`` for different records: the tests' tuple calls of
    one must not type the other's dict argument (python_callsites)."""
    from biocoder_metric.synth.python_callsites import calls_of
    from biocoder_metric.synth.python_inputs import callsite_votes

    pkg = tmp_path / "pkg"
    (pkg / "tests").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "dicts.py").write_text(
        'def is_flagged(rec, key="flag"):\n    """Dict records."""\n    return bool(rec[key])\n\n\n'
        "def count(recs):\n    return sum(is_flagged(r) for r in recs)\n"
    )
    (pkg / "pairs.py").write_text(
        'def is_flagged(rec, key="flag"):\n    """Pair records."""\n    return rec[1] > 0\n'
    )
    (pkg / "tests" / "test_both.py").write_text(
        "from pkg import pairs\nfrom pkg.dicts import is_flagged\n\n\n"
        "def test_pairs():\n    assert pairs.is_flagged((1, 2))\n    assert pairs.is_flagged((3, 0)) is False\n\n\n"
        "def test_dicts():\n    assert is_flagged({'flag': 1})\n"
    )
    (pkg / "tests" / "test_pairs_only.py").write_text(
        "from ..pairs import is_flagged\n\nis_flagged((0, 1))\n"
    )
    dicts = ast.parse((pkg / "dicts.py").read_text()).body[0]
    pairs = ast.parse((pkg / "pairs.py").read_text()).body[0]
    first = [ast.unparse(c.args[0]) for c in calls_of(tmp_path, "is_flagged", dicts) if c.args]
    assert sorted(first) == ["r", "{'flag': 1}"]
    second = [ast.unparse(c.args[0]) for c in calls_of(tmp_path, "is_flagged", pairs)]
    assert sorted(second) == ["(0, 1)", "(1, 2)", "(3, 0)"]
    assert set(callsite_votes(tmp_path, "is_flagged", ["rec", "key"], dicts)["rec"]) == {"dict"}
    assert len(calls_of(tmp_path, "count", None)) == 0 and len(calls_of(tmp_path, "is_flagged")) == 5


NESTED = '''\
def confident_share(psm, cutoff=0.5):
    """Share of a match's evidence references scored above ``cutoff``."""
    refs = [pe for item in psm["items"] for pe in item["refs"]]
    if not refs:
        return 0.0
    return round(sum(1 for pe in refs if pe["score"] > cutoff) / len(refs), 4)
'''


def test_a_dict_of_lists_of_dicts_is_typed_to_its_last_level():
    """``psm['items']`` holds dicts whose ``'refs'`` hold dicts with a ``'score'``: the argument is
    built three levels deep, so the golden reaches its result (not a TypeError on an int)."""
    subject = python_harness.analyse(NESTED, "confident_share")
    kind = subject.params[0].kinds[0]
    assert kind.startswith("dictkeys:") and kind.count("dictlist:") == 2 and "score" in kind, kind
    outs = _run_harness(NESTED, "confident_share", range(10))
    assert sum(o.startswith("result: ") for o in outs) >= 8, outs
    mutant = NESTED.replace('for item in psm["items"]', 'for item in psm["items"][:1]')
    assert mutant != NESTED
    assert _run_harness(NESTED, "confident_share", range(10), candidate=mutant) != outs


PICKED = '''\
def top_hit_gap(report, scale=1.0):
    """How far the best hit of a search report is ahead of the runner-up."""
    hits = report["hits"]
    if len(hits) < 2:
        return None
    return round((hits[0]["score"] - hits[1].get("score", 0.0)) * scale, 3)
'''


def test_an_element_picked_by_position_and_read_by_key_makes_a_list_of_dicts():
    """``hits[0]["score"]``: the hits are dicts (not ints), so the golden returns numbers, and a
    candidate reading the wrong element is caught."""
    subject = python_harness.analyse(PICKED, "top_hit_gap")
    kind = subject.params[0].kinds[0]
    assert kind.startswith("dictkeys:") and "dictlist:" in kind, kind
    outs = _run_harness(PICKED, "top_hit_gap", range(10))
    assert sum(o.startswith("result: ") and "None" not in o for o in outs) >= 5, outs
    mutant = PICKED.replace("hits[1].get", "hits[-1].get")
    assert mutant != PICKED
    assert _run_harness(PICKED, "top_hit_gap", range(10), candidate=mutant) != outs


STARRED = '''\
def tag_join(min_len=1, *parts: str, upper=False):
    """Join the parts at least ``min_len`` long with "-"."""
    out = "-".join(p for p in parts if len(p) >= min_len)
    return out.upper() if upper else out
'''


def test_star_args_are_generated_and_spread_after_the_positional_parameters():
    """``*parts`` gets a sequence (typed by its annotation) spread into the call; ``min_len``
    before it stays positional (by keyword it would clash with the spread values)."""
    subject = python_harness.analyse(STARRED, "tag_join")
    star = [p for p in subject.params if p.star]
    assert [p.name for p in star] == ["parts"] and star[0].kinds[0] == "list_str", subject.params
    outs = _run_harness(STARRED, "tag_join", range(12))
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) >= 10 and len(set(results)) >= 3, outs
    mutant = STARRED.replace("for p in parts if", "for p in parts[1:] if")
    assert mutant != STARRED
    assert _run_harness(STARRED, "tag_join", range(12), candidate=mutant) != outs


DECODED = '''\
def decode_peaks(payload, dtype="f8", compressed=False):
    """Summed intensities of a base64 block of binary numbers."""
    raw = base64.b64decode(payload.encode("ascii"))
    if compressed:
        raw = zlib.decompress(raw)
    values = np.frombuffer(raw, dtype=dtype)
    return len(values)
'''

JSON_TAGS = '''\
def high_tags(doc, cutoff=10):
    """Names of the integer tags above ``cutoff`` in a JSON object."""
    data = json.loads(doc)
    return sorted(k for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool) and v > cutoff)
'''


@pytest.mark.parametrize(
    ("golden", "name", "kind", "mutant"),
    [
        (DECODED, "decode_peaks", "encoded:b64", ("len(values)", "len(raw)")),
        (JSON_TAGS, "high_tags", "encoded:json", ("data.items()", "list(data.items())[1:]")),
    ],
)
def test_text_the_code_decodes_is_generated_in_that_encoding(golden, name, kind, mutant):
    """base64 / JSON text, not random words the decoder rejects on every call; a ``dtype=``
    argument is a dtype name."""
    subject = python_harness.analyse(golden, name)
    assert subject.params[0].kinds[0] == kind, subject.params[0].kinds
    if name == "decode_peaks":
        assert subject.params[1].kinds[0].startswith("choice:") and "float32" in subject.params[1].kinds[0]
    outs = _run_harness(golden, name, range(12))
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) >= 8 and len(set(results)) >= 3, outs
    bad = golden.replace(*mutant)
    assert bad != golden
    assert _run_harness(golden, name, range(12), candidate=bad) != outs


HEADER_CHECK = '''\
REQUIRED_COLUMNS = ("#CHROM", "POS", "ID", "REF", "ALT")


def sample_names(fields: list[str]):
    """The sample names of a header line, or ValueError when its fixed columns are wrong."""
    if tuple(fields[: len(REQUIRED_COLUMNS)]) != REQUIRED_COLUMNS:
        raise ValueError("not a header line")
    return [f.upper() for f in fields[len(REQUIRED_COLUMNS):]]
'''


def test_a_value_compared_with_a_module_constant_is_sometimes_that_constant():
    """Random words never equal a required header: without copies of the constant (as given,
    changed in one place, or extended) every call raises and the accepting branch is never run."""
    subject = python_harness.analyse(HEADER_CHECK, "sample_names")
    assert subject.likes == {"fields": ["REQUIRED_COLUMNS"]}
    plan = next(i for i, p in enumerate(python_harness.plans(subject)) if p.explore)
    outs = _run_harness(HEADER_CHECK, "sample_names", range(16), plan_index=plan)
    results = [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]
    assert len(results) >= 4 and len(set(results)) >= 3, outs
    bad = HEADER_CHECK.replace("f.upper() for f in", "f.upper() for f in fields[:1] +")
    assert _run_harness(HEADER_CHECK, "sample_names", range(16), plan_index=plan, candidate=bad) != outs


DEPTH = '''\
def mean_depth(path, min_depth=0):
    """Mean depth over the lines of a depth file (chromosome, position, depth; tab-separated)."""
    total, n = 0, 0
    with open(path) as fh:
        for line in fh:
            chrom, pos, depth = line.rstrip("\\n").split("\\t")
            if int(depth) >= min_depth:
                total += int(depth)
                n += 1
    return total / n if n else 0.0
'''

WEIGHTS = '''\
import pandas as pd


def weighted_sum(table_path):
    """Sum of value * weight over a tab-separated table with a header."""
    t = pd.read_csv(table_path, sep="\\t")
    if "weight" not in t.columns:
        raise ValueError("the table has no weight column")
    return round(float((t["value"] * t["weight"]).sum()), 6)
'''

QUALITY = '''\
import csv


def count_passing(path, threshold=50.0):
    """Rows of a semicolon-separated file whose second field exceeds the threshold."""
    n = 0
    with open(path) as fh:
        for row in csv.reader(fh, delimiter=";"):
            if float(row[1]) > threshold:
                n += 1
    return n
'''


@pytest.mark.parametrize(
    ("golden", "name", "mutants"),
    [
        (
            DEPTH,
            "mean_depth",
            [(">= min_depth", "> min_depth"), ("total += int(depth)", "total += int(pos)")],
        ),
        (WEIGHTS, "weighted_sum", [('* t["weight"]', '+ t["weight"]')]),
        (QUALITY, "count_passing", [("float(row[1])", "float(row[1]) + 10")]),
    ],
    ids=["split-lines", "pandas-table", "csv-reader"],
)
def test_a_path_argument_gets_the_file_its_reader_expects(
    golden: str, name: str, mutants: list[tuple[str, str]], tmp_path: Path
):
    """A file of words makes ``int(depth)``, ``t["value"]`` and ``float(row[1])`` raise on every
    case. Written the way the code reads it (the separator, the number of fields, which fields
    are numbers, the table's columns), the file reaches the result in most cases, and mutants of
    the computation over its fields are killed."""
    from biocoder_metric.synth import python_files
    from biocoder_metric.synth.python_inputs import string_columns

    func = next(n for n in ast.parse(golden).body if isinstance(n, ast.FunctionDef))
    assert python_files.file_kind(func, func.args.args[0].arg, string_columns), name
    outs = _run_harness(golden, name, range(20), cwd=tmp_path)
    assert sum("\nresult: " in "\n" + o for o in outs) >= 15, outs
    for old, new in mutants:
        assert old in golden
        mutant = golden.replace(old, new)
        assert _run_harness(golden, name, range(20), candidate=mutant, cwd=tmp_path) != outs, new


def test_file_layouts_follow_the_reader():
    """Separators, widths and field types from the ways code commonly reads lines."""
    from biocoder_metric.synth.python_files import file_kind
    from biocoder_metric.synth.python_inputs import string_columns

    def kind(src: str) -> str | None:
        func = ast.parse(src).body[0]
        return file_kind(func, func.args.args[0].arg, string_columns)

    assert kind(
        "def f(p):\n    for l in open(p):\n        x = l.strip().split(',')\n        y = float(x[2])\n"
    ) == ("file:" + repr(("lines:" + repr((",", ["str", "str", "float"])), None)))
    head = "def f(p):\n    lines = open(p).readlines()\n    return lines[0].split()[1]\n"
    assert kind(head) is None  # indexing the split inline names no field variable: plain file kinds
    whole = "def f(p):\n    with open(p) as fh:\n        for i, l in enumerate(fh):\n            a = l.split()\n    return a\n"
    assert kind(whole) == "file:" + repr(("lines:" + repr((" ", ["str"] * 4)), None))
    written = "def f(p):\n    with open(p, 'w') as fh:\n        for l in fh:\n            a = l.split()\n"
    assert kind(written) is None  # a file opened for writing is an output, not an input
    named = "def f(p):\n    t = pd.read_csv(p, header=None, names=['a'])\n    return t['a']\n"
    # the code names the columns itself: a table without a header line, in those columns
    assert kind(named) == "file:" + repr(("frame:['a']", ",", False))
    computed = "def f(p, cols):\n    t = pd.read_csv(p, header=None, names=cols)\n    return t['a']\n"
    assert kind(computed) is None  # names the code computes are not its vocabulary


def test_sliced_code_that_names_the_function_under_test_calls_the_candidate(tmp_path: Path):
    """A module table the golden needs names the golden itself (``MODES = {'fused': fused}``):
    the slice gets a forwarder, not the golden's body (the harness would hand out the answer),
    and a call through the table reaches the candidate inserted below it."""
    repo = tmp_path / "frepo"
    (repo / "fpkg").mkdir(parents=True)
    (repo / "fpkg" / "__init__.py").write_text("")
    mod = textwrap.dedent(
        """\
        def reverse(seq):
            return seq[::-1]


        def fused(seq, mode='reverse', sep='R'):
            if mode == 'fused':
                return MODES['fused'](seq[1:]) + seq[0]
            return MODES[mode](seq) + sep + seq


        MODES = {'reverse': reverse, 'fused': fused}
        """
    )
    (repo / "fpkg" / "decoys.py").write_text(mod)
    golden = textwrap.dedent(mod[mod.index("def fused") : mod.index("MODES =")]).strip() + "\n"
    sl = python_slice.slice_repository(golden, "fused", repo, repo / "fpkg" / "decoys.py")
    assert sl.unresolved == [] and any(d.startswith("MODES = ") for d in sl.definitions)
    assert not any("return MODES[mode](seq) + sep + seq" in d for d in sl.definitions)
    assert python_slice.forwarder("fused") in sl.definitions
    prog = "\n\n".join([*sl.imports, *sl.definitions, golden])
    calls = "print(fused('ACGT'), fused('ACGT', 'fused'), fused('AAC', 'fused', 'K'))"
    golden_out = subprocess.run([sys.executable, "-c", prog + "\n" + calls], capture_output=True, text=True)
    assert golden_out.returncode == 0 and golden_out.stdout.split() == ["TGCARACGT", "TGCRCGTA", "CARACA"]
    # the candidate's own behaviour shows through the table (the recursive 'fused' mode)
    cand = golden.replace("+ sep + seq", "+ seq")
    cand_out = subprocess.run(
        [sys.executable, "-c", "\n\n".join([*sl.imports, *sl.definitions, cand]) + "\n" + calls],
        capture_output=True,
        text=True,
    )
    assert cand_out.returncode == 0 and cand_out.stdout.split() == ["TGCAACGT", "TGCCGTA", "CAACA"]
    # with no definition of the function at all, calling through the table fails
    none = subprocess.run(
        [sys.executable, "-c", "\n\n".join([*sl.imports, *sl.definitions]) + "\nprint(MODES['fused']('AC'))"],
        capture_output=True,
        text=True,
    )
    assert none.returncode != 0 and "RecursionError" in none.stderr


GRID = '''\
class Grid:
    def __init__(self, rows):
        rows = [[int(v) for v in r] for r in rows]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ValueError("rows must be non-empty and of one length")
        self._rows = rows

    def __getattr__(self, name):
        if name == "shape":  # delegated, as array wrappers do: no ``self.shape =`` anywhere
            return (len(self._rows), len(self._rows[0]))
        raise AttributeError(name)

    def corner_sum(self, k):
        """Sum of the top-left ``k`` x ``k`` block.

        >>> g = grids.Grid([[1, 2, 3], [4, 5, 6]])
        >>> g.corner_sum(2)
        12
        >>> grids.Grid([[7]]).corner_sum(3)
        7
        """
        n, m = self.shape
        k = max(0, min(k, n, m))
        return sum(self._rows[i][j] for i in range(k) for j in range(k))
'''


def test_a_constructed_self_keeps_what_it_has_and_starts_from_its_docstring_objects(tmp_path: Path):
    """``self.shape`` comes from ``__getattr__`` (no ``__init__`` assigns it): a generated shape
    broke the object it describes (the golden raised on every call). A built object keeps the
    attributes it has; only missing ones are generated. The objects the docstring calls the
    method on (``g = grids.Grid([[1, 2, 3], [4, 5, 6]])``, ``grids.Grid([[7]])``) are the
    constructor's examples."""
    from biocoder_metric.synth.python_evidence import doc_receiver_examples

    golden = textwrap.dedent(GRID[GRID.index("    def corner_sum") :])
    func = ast.parse(golden).body[0]
    assert doc_receiver_examples(func, ["rows"]) == [{"rows": "[[1, 2, 3], [4, 5, 6]]"}, {"rows": "[[7]]"}]
    files = {"gpkg/__init__.py": "", "gpkg/grids.py": GRID}
    row, cands, _ = _python_repo_task(tmp_path, "grepo", files, golden, "corner_sum", "gpkg/grids.py")
    label, plan, ctx = next(c for c in cands if c[0] == "constructed")
    assert "[[1, 2, 3], [4, 5, 6]]" in ctx
    results = [
        next((ln for ln in out.splitlines() if ln.startswith("result: ")), out)
        for out in _golden_outputs(row, ctx, golden, 16)
    ]
    ok = [r for r in results if r.startswith("result: ")]
    # the constructor rejects some generated rows (and they are drawn again); the shape it reports
    # is never replaced, so the call itself does not fail
    assert len(ok) >= 12, results
    assert len(set(ok)) >= 2


READER = '''\
class Reader:
    """Reads a variant file, a line at a time."""

    def __init__(self, stream, path=None):
        self.stream = stream
        self.path = path
        self._line = stream.readline()

    def _next(self):
        prev, self._line = self._line, self.stream.readline()
        return prev

    def samples(self):
        """The sample names of the header."""
        while self._line.startswith("##"):
            self._next()
        if not self._line.startswith("#CHROM"):
            raise ValueError("no #CHROM line")
        return self._line.rstrip("\\n").split("\\t")[9:]
'''


def test_a_constructed_readers_stream_holds_the_format_its_methods_parse(tmp_path: Path):
    """Nothing in ``__init__(self, stream)`` says VCF, but the methods test for ``#CHROM``: the
    stream is an open VCF file, so the header is reached (round 27; before, plain text lines, and
    every call raised)."""
    files = {"rpkg/__init__.py": "", "rpkg/reader.py": READER}
    golden = textwrap.dedent(READER[READER.index("    def samples") :])
    row, cands, _ = _python_repo_task(tmp_path, "rrepo", files, golden, "samples", "rpkg/reader.py")
    built = [(plan, ctx) for label, plan, ctx in cands if label.startswith("constructed")]
    assert built, [c[0] for c in cands]
    plan, ctx = built[0]
    assert plan["self.__init__.stream"] == "fmt:handle:vcf", plan
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 8)]
    assert sum(r.startswith("result: [") for r in results) >= 6, results


def test_the_method_tested_is_among_the_modes_a_constructor_can_name(tmp_path: Path):
    """``Folder(values, mode)`` picks ``combine_<mode>``; when the method tested is one of those
    (``combine_diff``), its own mode is one the constructed ``self`` may take (round 27: the
    choices were the other members' names only)."""
    files = {"fpkg/__init__.py": "", "fpkg/fold.py": MODES}
    start = MODES.index("    def combine_diff")
    golden = textwrap.dedent(MODES[start : MODES.index("    def fold")])
    row, cands, _ = _python_repo_task(tmp_path, "frepo2", files, golden, "combine_diff", "fpkg/fold.py")
    built = [plan for label, plan, ctx in cands if label == "constructed"]
    assert built, [c[0] for c in cands]
    kind = built[0]["self.__init__.mode"]
    assert kind.startswith("pick:") and "diff" in eval(kind[len("pick:") :]), kind


TABLES = '''\
SEPARATORS = (";", ",", "|")
ESCAPED = dict()
for sep in SEPARATORS:
    ESCAPED[sep] = "%" + format(ord(sep), "02X")
ESCAPED.update({"=": "%3D"})


def escape(value):
    """``value`` with every separator percent-encoded."""
    out = []
    for ch in value.strip():
        out.append(ESCAPED[ch] if ch in ESCAPED else ch)
    return "".join(out), len(ESCAPED)
'''


def test_a_module_table_is_sliced_with_the_statements_that_fill_it(tmp_path: Path):
    """``ESCAPED = dict()`` is filled by a module-level loop and an ``update``: both come with
    it (round 27: the empty table alone was sliced, and the golden saw no separator)."""
    files = {"tpkg/__init__.py": "", "tpkg/esc.py": TABLES}
    golden = textwrap.dedent(TABLES[TABLES.index("def escape") :])
    row, cands, _ = _python_repo_task(tmp_path, "trepo", files, golden, "escape", "tpkg/esc.py")
    ctx = cands[0][2]
    assert "for sep in SEPARATORS:" in ctx and 'ESCAPED.update({"=": "%3D"})' in ctx
    assert ctx.index("SEPARATORS = (") < ctx.index("for sep in SEPARATORS:")
    results = [out.splitlines()[0] for out in _golden_outputs(row, ctx, golden, 6)]
    assert all(r.startswith("result: (") and r.endswith(", 4)") for r in results), results
