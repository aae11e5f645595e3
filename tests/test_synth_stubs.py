"""Names with no source, parameters that are functions, files passed open: inputs for code nobody tuned to.

The functions here are written for these tests (none comes from the benchmark's corpus). Each
test runs the synthesised harness for real, with the golden and with candidates inserted.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from _synth_helpers import run_context

from biocoder_metric.execution.harness import INSERT_MARKER
from biocoder_metric.synth import javac_server, pipeline, python_harness, python_inputs, python_stubs


def _context(golden: str, name: str, plan: int = 0) -> tuple[str, dict[str, str]]:
    """The harness the pipeline makes from the golden alone (no repository), and its plan."""
    row = {"golden_code": golden, "function_name": name, "language": "python", "task_id": name}
    out, reason, _ = pipeline.python_candidates(row, pipeline.SynthOptions(), None, [])
    assert reason is None, reason
    label, desc, ctx = out[plan]
    return ctx, desc


def _results(outs: list[str]) -> list[str]:
    """The result line of each case that returned (after any rejected draws)."""
    return [ln for o in outs for ln in o.splitlines() if ln.startswith("result: ")]


def _run(ctx: str, code: str, seeds: range, cwd: Path) -> list[str]:
    return run_context(ctx, code, seeds, cwd)


def _java_context(name: str, golden: str) -> str:
    """The first Java harness the pipeline makes from ``golden`` alone (no repository)."""
    row = {
        "task_id": f"java_{name}", "language": "java", "function_name": name,
        "golden_code": golden, "file_path": None, "repository": None, "metadata": "{}", "signature": None,
    }  # fmt: skip
    out, reason, _ = pipeline.java_candidates(row, pipeline.SynthOptions(), None, [])
    assert reason is None, reason
    return out[0][2]


def _repo_java_context(repo: Path, file: str, source: str, name: str, golden: str) -> tuple[dict, str]:
    """The first harness the pipeline makes for ``golden`` with a one-file repository (``src/file``)."""
    (repo / "src").mkdir(parents=True)
    (repo / "src" / file).write_text(source)
    row = {
        "task_id": f"java_{name}", "language": "java", "function_name": name, "golden_code": golden,
        "file_path": f"src/{file}", "repository": f"example/{repo.name}", "metadata": "{}", "signature": None,
    }  # fmt: skip
    out, reason, _ = pipeline.java_candidates(row, pipeline.SynthOptions(), str(repo), [])
    assert reason is None, reason
    return row, out[0][2]


def _run_java(ctx: str, code: str, cwd: Path, seeds: range = range(4)) -> list[str]:
    """The stdout of the Java harness ``ctx`` with ``code`` inserted, compiled and run once per seed."""
    got = []
    for seed in seeds:
        d = cwd / f"{abs(hash(code)) % 10**8}-{seed}"
        d.mkdir(exist_ok=True)
        prog = ctx.replace(INSERT_MARKER, code).replace(python_harness.SEED_PLACEHOLDER, str(seed))
        (d / "Main.java").write_text(prog)
        rc, errors = javac_server.javac([str(d / "Main.java")])  # warm (tests/test_javac_server.py)
        assert rc == 0, errors[-2000:]
        done = subprocess.run(["java", "Main"], cwd=d, check=True, capture_output=True, text=True, timeout=60)
        got.append(done.stdout)
    return got


SCORE = '''
def weighted_hits(reads, min_quality: QualityCutoff = 20):
    """Sum the weights of reads that pass, scaled by the project's unit."""
    counts = tally_reads(reads, min_quality)
    total = 0.0
    for name, c in counts.items():
        if c >= min_quality:
            total += c * Scale.FACTOR
        else:
            total -= 1
    if total < 0:
        raise NegativeScore(total)
    return round(normalise(total, len(counts)), 3)
'''


def test_names_with_no_source_are_stubs_whose_values_follow_their_arguments(tmp_path: Path):
    ctx, desc = _context(SCORE, "weighted_hits")
    # a called helper, a namespace constant; the raised class is an exception, the annotation nothing
    assert {"stub tally_reads()", "stub normalise()", "stub Scale.FACTOR"} <= set(desc)
    assert "class NegativeScore(Exception)" in ctx and "QualityCutoff" not in ctx.split(INSERT_MARKER)[0]
    assert desc["stub tally_reads()"].startswith("dict")  # typed by ``.items()`` and ``c >= ...``
    golden = _run(ctx, SCORE, range(20), tmp_path)
    results = _results(golden)
    assert len(results) >= 14 and len(set(results)) >= 8, golden
    # the same calls made twice, or cached, give the same values: correct rewrites pass
    twice = SCORE.replace(
        "counts = tally_reads(reads, min_quality)",
        "tally_reads(reads, min_quality)\n    counts = tally_reads(reads, min_quality)",
    )
    assert _run(ctx, twice, range(20), tmp_path) == golden
    # the helper called with another argument, or the other helper's argument changed: caught
    for old, new in [
        ("tally_reads(reads, min_quality)", "tally_reads(reads, 20)"),
        ("normalise(total, len(counts))", "normalise(total, len(counts) + 1)"),
        ("c * Scale.FACTOR", "c"),
        ("if c >= min_quality", "if c > min_quality"),
    ]:
        assert old in SCORE
        assert _run(ctx, SCORE.replace(old, new), range(20), tmp_path) != golden, new


def test_names_no_value_can_stand_for_stay_unresolved():
    for golden, why in [
        ("def f(x):\n    class Child(Base):\n        pass\n    return Child()\n", "base class"),
        ("@cached\ndef f(x):\n    return cached(x) + 1\n", "decorator and used otherwise"),
        ("def f(p):\n    with opener(p) as fh:\n        return fh.read()\n", "context manager"),
        ("def f(x):\n    return isinstance(x, Thing) and Thing.size(x)\n", "isinstance and used otherwise"),
    ]:
        tree = ast.parse(golden)
        name = next(n.name for n in tree.body if isinstance(n, ast.FunctionDef))
        row = {"golden_code": golden, "function_name": name, "language": "python", "task_id": name}
        out, reason, _ = pipeline.python_candidates(row, pipeline.SynthOptions(), None, [])
        assert out == [] and reason.startswith("unresolved names") and why in reason, reason


DECORATED = """
@cli.command()
@cli.option("--window", type=int)
def windowed_max(values, window=3):
    if isinstance(values, LazyTrack):
        return None
    out = []
    for i in range(0, len(values), window):
        out.append(max(values[i:i + window]))
    return out
"""


def test_a_decorator_passes_the_function_through_and_an_isinstance_class_is_its_own(tmp_path: Path):
    """``cli`` (used only in decorators) leaves the function unchanged, and ``LazyTrack`` (only
    tested with isinstance) is an empty class: the harness tests the function's own code, and
    now and then hands it a ``LazyTrack`` (round 23), so the branch the test guards is taken."""
    ctx, desc = _context(DECORATED, "windowed_max")
    golden = _run(ctx, DECORATED, range(16), tmp_path)
    assert sum(o.startswith("result: [") for o in golden) >= 8, golden
    assert any(o.startswith("result: None") for o in golden), golden
    mutant = DECORATED.replace("range(0, len(values), window)", "range(0, len(values) - 1, window)")
    assert mutant != DECORATED
    assert _run(ctx, mutant, range(16), tmp_path) != golden


def test_only_plain_missing_names_are_offered_to_stubs():
    names, rest = python_stubs.stubbable_names(
        ["helper", "Fasta (from pyfaidx, not in the image or repository)", "mod.f (not defined in mod.py)"]
    )
    assert names == ["helper", "Fasta"] and rest == ["mod.f (not defined in mod.py)"]


APPLY = """
def shifted_scores(values, score, offset=1):
    out = []
    for v in values:
        s = score(v, offset)
        if s > 5:
            out.append(s - offset)
    return out
"""


def test_a_parameter_the_body_calls_is_a_function_of_its_arguments(tmp_path: Path):
    ctx, desc = _context(APPLY, "shifted_scores")
    assert desc["score"].startswith("callable:"), desc
    golden = _run(ctx, APPLY, range(20), tmp_path)
    assert sum(r != "result: []" for r in _results(golden)) >= 10, golden
    for old, new in [("score(v, offset)", "score(v, 1)"), ("s > 5", "s >= 5"), ("s - offset", "s")]:
        assert _run(ctx, APPLY.replace(old, new), range(20), tmp_path) != golden, new


TABLE = """
def read_rates(handle):
    rates = {}
    for row in csv.reader(handle, delimiter="\\t"):
        name, low, high = row
        if float(high) > float(low):
            rates[name] = float(high) - float(low)
    return rates
"""


def test_a_parameter_read_as_an_open_file_gets_the_lines_its_reader_splits(tmp_path: Path):
    func = ast.parse(TABLE).body[0]
    assert python_inputs.refine_kinds(func, "handle", ["path_text"], {})[0] == (
        "handle:" + repr("lines:" + repr(("\t", ["str", "float", "float"])))
    )
    ctx, _ = _context("import csv\n" + TABLE, "read_rates")
    golden = _run(ctx, "import csv\n" + TABLE, range(20), tmp_path)
    assert sum(r.startswith("result: {'") for r in _results(golden)) >= 15, golden
    assert _run(ctx, "import csv\n" + TABLE.replace("high) > float", "high) >= float"), range(20), tmp_path)


SPANS = """
def longest_span(spans):
    ordered = sorted(spans, key=lambda s: (s[2], s[0]))
    best = ordered[0]
    for i in range(1, len(ordered)):
        cur = ordered[i]
        if cur[1] - cur[0] > best[1] - best[0]:
            best = cur
    return best[2]
"""


def test_elements_read_by_constant_indexes_are_tuples_that_wide():
    func = ast.parse(SPANS).body[0]
    assert python_inputs.element_names(func, "spans") == ["s", "cur"]
    kind = python_inputs.indexed_tuple_kind(func, "spans", 0)
    assert kind is not None and len(ast.literal_eval(kind[len("tuplelist:") :])) == 3


PAIRS = """
def labelled_total(values, labels=None, weight=1):
    assert labels is not None, "labels must be given"
    assert len(values) == len(labels)
    ok, scale = split_scale(weight)
    total = 0
    for v, lab in zip(values, labels):
        if ok and lab.lower() < "m":
            total += scale(v)
        else:
            total -= v
    return total
"""


def test_required_defaults_equal_lengths_and_unpacked_helper_results(tmp_path: Path):
    from biocoder_metric.synth import python_evidence

    func = ast.parse(PAIRS).body[0]
    assert python_evidence.required_defaults(func, ["labels", "weight"]) == ["labels"]
    assert python_evidence.equal_lengths(func, ["values", "labels", "weight"]) == [("values", "labels")]
    ctx, desc = _context(PAIRS, "labelled_total")
    # ``ok, scale = split_scale(weight)``: a pair, whose second value is called
    assert desc["stub split_scale()"].startswith("fixed:[") and "callable:" in desc["stub split_scale()"]
    golden = _run(ctx, PAIRS, range(20), tmp_path)
    assert len(_results(golden)) >= 17 and len(set(_results(golden))) >= 10, golden
    for old, new in [("total -= v", "total += v"), ("split_scale(weight)", "split_scale(1)")]:
        assert _run(ctx, PAIRS.replace(old, new), range(20), tmp_path) != golden, new


def test_a_documented_shape_gives_the_array_its_rank_and_element_type():
    doc = '''
def spread(u_kn, N_k):
    """Spread.

    Parameters
    ----------
    u_kn : np.ndarray, shape=(n_states, n_samples), dtype='float'
        Energies.
    N_k : np.ndarray, shape=(n_states), dtype='int'
        Counts.
    """
    return u_kn.sum() + N_k.sum()
'''
    params = python_inputs.infer_params(ast.parse(doc).body[0])
    assert [p.kinds[0] for p in params] == ["ndarray2", "ndarray1_int"]
    assert python_inputs.documented_array_kind("2-D array of bool") == "ndarray2_bool"
    assert python_inputs.documented_array_kind("int") is None


JAVA_MATRIX = """public static double weightedTotal(int[][] counts, java.io.File weights, java.awt.geom.Point2D origin) {
    double total = 0;
    try {
        java.util.List<String> lines = java.nio.file.Files.readAllLines(weights.toPath());
        for (int i = 0; i < counts.length; i++) {
            for (int j = 0; j < counts[i].length; j++) {
                total += counts[i][j] * lines.get((i + j) % lines.size()).length();
            }
        }
    } catch (java.io.IOException e) {
        return -1;
    }
    return total + origin.getX();
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_arrays_of_arrays_files_and_points_have_generators(tmp_path: Path):
    from biocoder_metric.synth import java_harness

    row = {
        "task_id": "java_m", "language": "java", "function_name": "weightedTotal",
        "golden_code": JAVA_MATRIX, "file_path": None, "repository": None, "metadata": "{}", "signature": None,
    }  # fmt: skip
    subject = java_harness.analyse_java(row, None, [])
    ctx = java_harness.render_java(subject, 0)
    assert ctx is not None
    outs = set()
    for seed in range(3):
        run = tmp_path / str(seed)
        run.mkdir()
        prog = ctx.replace(INSERT_MARKER, JAVA_MATRIX).replace(python_harness.SEED_PLACEHOLDER, str(seed))
        (run / "Main.java").write_text(prog)
        subprocess.run(["javac", "Main.java"], cwd=run, check=True, capture_output=True, timeout=120)
        done = subprocess.run(
            ["java", "Main"], cwd=run, check=True, capture_output=True, text=True, timeout=60
        )
        assert "exception:" not in done.stdout and "result: " in done.stdout, done.stdout
        outs.add(done.stdout)
    assert len(outs) == 3


JAVA_FIELDS = """private double shiftedScore(int k) {
    int total = 0;
    for (int i = 0; i < counts.length; i++) {
        if (counts[i] > k && isCounted(i)) {
            total += counts[i];
        }
    }
    offset++;
    double base = scale(total, label);
    return base + offset;
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_fields_and_helpers_with_no_source_are_declared_from_what_javac_says(tmp_path: Path):
    from biocoder_metric.synth import java_stubs

    ctx = _java_context("shiftedScore", JAVA_FIELDS)
    for decl in ("int[] counts;", "int offset;", "String label;", "static boolean isCounted(int _p0)"):
        assert decl in ctx, decl
    assert "static double scale(int _p0, String _p1)" in ctx

    def run(code: str) -> list[str]:
        return _run_java(ctx, code, tmp_path)

    golden = run(JAVA_FIELDS)
    assert all("exception:" not in o for o in golden) and len(set(golden)) == 4
    assert run(JAVA_FIELDS.replace("scale(total, label)", "scale(total + 1, label)")) != golden
    assert run(JAVA_FIELDS.replace("counts[i] > k", "counts[i] >= k")) != golden
    assert java_stubs.field_type("void f() { x++; }", "x", "void") == "int"
    assert java_stubs.name_type("NCK_LOG_MESSAGE") == "String" and java_stubs.name_type("isDone") == "boolean"


EFFECT = """
def announce_and_sum(values, tag):
    total = 0
    for v in values:
        if v > 3:
            record_hit(tag, v)
            total += v
    return total
"""


def test_a_helper_called_only_for_its_effect_prints_its_calls(tmp_path: Path):
    ctx, desc = _context(EFFECT, "announce_and_sum")
    assert desc["stub record_hit()"] == python_stubs.CALL_ONLY
    golden = _run(ctx, EFFECT, range(10), tmp_path)
    assert sum("stub call: record_hit()[" in o for o in golden) >= 7, golden
    for old, new in [
        ("record_hit(tag, v)", "record_hit(tag, v + 1)"),
        ("            record_hit(tag, v)\n", ""),
    ]:
        assert old in EFFECT
        assert _run(ctx, EFFECT.replace(old, new), range(10), tmp_path) != golden, new


JAVA_TYPES = """public static int paddedSpan(Span iv, int pad) {
    if (iv.getStart() > iv.getEnd()) {
        log.warn("reversed", pad);
        return -1;
    }
    return iv.getEnd() - iv.getStart() + 2 * pad;
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_classes_with_no_source_are_stub_objects_whose_methods_follow_their_arguments(tmp_path: Path):
    ctx = _java_context("paddedSpan", JAVA_TYPES)
    # the parameter's class, and the object behind ``log`` (a field used only through its methods)
    assert re.search(r"static class Span\b", ctx) and "int getStart()" in ctx
    assert re.search(r"static class BcType_log\b", ctx)

    def run(code: str) -> list[str]:
        return _run_java(ctx, code, tmp_path)

    golden = run(JAVA_TYPES)
    assert all("exception:" not in o for o in golden) and len(set(golden)) == 4, golden
    assert run(JAVA_TYPES.replace("+ 2 * pad", "+ pad")) != golden


JAVA_PASSED_ON = """public static int countLong(int minLen) {
    int n = 0;
    for (String w : words) {
        if (Boolean.logicalAnd(strict, w.length() >= minLen)) {
            n += 1 + shift;
        }
    }
    return n;
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_fields_only_passed_on_are_typed_by_javac_and_iterated_ones_are_lists(tmp_path: Path):
    # ``strict`` is only an argument, ``shift`` only arithmetic, ``words`` only iterated: the first
    # guess for ``strict`` (int) is rejected by javac and retyped to what it names (boolean)
    ctx = _java_context("countLong", JAVA_PASSED_ON)
    for decl in ("static java.util.List<String> words;", "static boolean strict;", "static int shift;"):
        assert decl in ctx, decl

    def run(code: str) -> list[str]:
        return _run_java(ctx, code, tmp_path)

    golden = run(JAVA_PASSED_ON)
    assert all("exception:" not in o for o in golden) and len(set(golden)) == 4, golden
    assert run(JAVA_PASSED_ON.replace("Boolean.logicalAnd(strict,", "Boolean.logicalOr(strict,")) != golden
    assert run(JAVA_PASSED_ON.replace("1 + shift", "shift")) != golden


JAVA_WILDCARD = """public static double spread(List<? extends Number> values, int skip) {
    double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
    for (int i = skip; i < values.size(); i++) {
        double v = values.get(i).doubleValue();
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
    }
    return hi - lo;
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_wildcard_parameters_get_values_of_their_bound(tmp_path: Path):
    ctx = _java_context("spread", JAVA_WILDCARD)
    assert "List<? extends Number> _a0 = " in ctx

    def run(code: str) -> list[str]:
        return _run_java(ctx, code, tmp_path)

    golden = run(JAVA_WILDCARD)
    assert sum("result: " in o for o in golden) == 4 and len(set(golden)) == 4, golden
    assert run(JAVA_WILDCARD.replace("int i = skip;", "int i = skip + 1;")) != golden


JAVA_JDK_TYPES = """public static int openSlots(BitSet mask, Deque<Integer> queue, BigInteger limit) {
    int n = 0;
    while (!queue.isEmpty()) {
        int q = queue.pollFirst();
        if (!mask.get(q) && BigInteger.valueOf(q).compareTo(limit) < 0) n++;
    }
    return n + mask.cardinality();
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_bitsets_big_numbers_and_deques_have_generators(tmp_path: Path):
    ctx = _java_context("openSlots", JAVA_JDK_TYPES)
    golden = _run_java(ctx, JAVA_JDK_TYPES, tmp_path, range(3))
    mutant = _run_java(ctx, JAVA_JDK_TYPES.replace("!mask.get(q) &&", ""), tmp_path, range(3))
    assert all("exception:" not in o and "after mask: {" in o for o in golden) and len(set(golden)) == 3
    assert mutant != golden


PRUNER = """package org.example.tree;

import java.util.*;
import java.awt.*;
import org.phylo.graphs.Node;

public class Pruner {
    private Node root;
    private int scale = 2;

    private int rootDepth() {
        return root == null ? 0 : root.getDepth() * scale;
    }
}
"""

OFFSET = """public int offset(List<Integer> xs) {
    int s = rootDepth();
    for (int x : xs) {
        s += x;
    }
    return s;
}"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_a_type_the_sliced_class_itself_uses_is_a_stub_it_can_see(tmp_path: Path):
    """The class the golden belongs to keeps a field of a library type the image lacks (read by
    a member the golden calls), and imports two packages that both declare ``List``: the stub
    must be visible to that class, not only to ``Main``, and ``List`` must mean java.util's."""
    _, ctx = _repo_java_context(tmp_path / "tree", "Pruner.java", PRUNER, "offset", OFFSET)
    assert "class Node extends BcBase" in ctx and "class Pruner extends BcBase" in ctx
    assert "import java.util.List;" in ctx
    got = _run_java(ctx, OFFSET, tmp_path)
    results = [ln for o in got for ln in o.splitlines() if ln.startswith("result: ")]
    assert results and len(set(results)) > 1  # it runs, and the result follows the input


def test_ambiguous_names_are_imported_from_java_util():
    errors = (
        "Main.java:3: error: reference to List is ambiguous\n"
        "    List<String> x;\n"
        "  both class java.awt.List in java.awt and interface java.util.List in java.util match\n"
        "Main.java:9: error: reference to Foo is ambiguous\n"
        "  both class a.b.Foo in a.b and class c.d.Foo in c.d match\n"
    )
    from biocoder_metric.synth.java_stubs import ambiguous_imports

    assert ambiguous_imports(errors) == ["java.util.List", "a.b.Foo"]
    assert ambiguous_imports("Main.java:1: error: cannot find symbol\n") == []


JAVA_SHAPES = """public int tally(Leaf leaf, int index) {
    int n = 0;
    for (final Phase p : Phase.values()) {
        if (p.weight() > index) n++;
    }
    Slot s = slots[index % 3];
    if (s == null) n += 2;
    Tagged t = leaf;
    n += t.tagCount();
    return n + tally(index);
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_stubs_take_the_shape_javac_says_the_golden_needs(tmp_path: Path):
    """Iterated (``for (Phase p : Phase.values())``): an array of the loop's type; indexed
    (``slots[i]`` read as a ``Slot``): an array of Slots; one stub passed where another is
    wanted (``Tagged t = leaf``): a subclass of it; an overload of the golden with no source
    (``tally(index)``): a stub of its own."""
    ctx = _java_context("tally", JAVA_SHAPES)
    for decl in ("static Phase[] values()", "Slot[] slots;", "static class Leaf extends Tagged {"):
        assert decl in ctx, decl
    assert re.search(r"static int tally\(int _p0\)", ctx)

    def run(code: str) -> list[str]:
        return _run_java(ctx, code, tmp_path)

    golden = run(JAVA_SHAPES)
    assert sum(o.count("result: ") for o in golden) >= 8 and len(set(golden)) == 4, golden
    assert run(JAVA_SHAPES.replace("n++;", "n += 2;")) != golden
    assert run(JAVA_SHAPES.replace("return n + tally(index);", "return n;")) != golden


def test_shape_errors_name_the_stub_and_the_type_it_must_have():
    from biocoder_metric.synth.java_stubs import shape_retypes

    errors = (
        "Main.java:20: error: for-each not applicable to expression type\n"
        "        for (final TruthState s : TruthState.values()) {\n"
        "                                                   ^\n"
        "  required: array or java.lang.Iterable\n"
        "  found:    int\n"
        "Main.java:30: error: array required, but int found\n"
        "        Sample x = samples[i - 1];\n"
        "                          ^\n"
        "Main.java:40: error: bad operand types for binary operator '!='\n"
        "        while (helper.lastDelimiter() != ';') {\n"
        "                                      ^\n"
        "  first type:  String\n"
        "  second type: char\n"
    )
    types = {"values": "int", "samples": "int", "lastDelimiter": "String"}
    got = shape_retypes(errors, set(types), types.get)
    assert got == [
        ("values", "TruthState[]", "TruthState"),
        ("samples", "int[]", None),
        ("lastDelimiter", "char", "helper"),
    ]
    # a name whose guess is not the one javac found is left alone
    assert shape_retypes(errors, {"samples"}, {"samples": "long"}.get) == []


EXPORTER = """package org.example.export;

import java.awt.*;
import java.awt.List;
import java.util.*;

public class Exporter {
    @SuppressWarnings("unchecked") public static final Set<String> KEYS = new TreeSet<String>(Arrays.asList(new String[] {
            "host", "posterior", "region" }));
    private static final int[] WIDTHS = {2, 4};

    String shortened(String key, int depth) {
        return describe(key, depth - 3) + "~";
    }

    private String describe(String key, int depth) {
        return depth;
    }
}
"""

DESCRIBE = """private String describe(String key, int depth) {
    if (depth > 4) {
        return shortened(key, depth);
    }
    java.util.List<String> parts = new ArrayList<>();
    for (int i = 0; i < depth; i++) {
        parts.add(KEYS.contains(key) ? key.toUpperCase() : key);
    }
    return String.join("|", parts) + WIDTHS[depth % 2];
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_a_class_with_array_initialisers_an_awt_list_import_and_a_private_golden_compiles(tmp_path: Path):
    """A field's value with braces in it is one member; the file's ``import java.awt.List;``
    does not break the harness's own lists; the class's copy of a private golden (a helper
    calls it) stays private, so the candidate in ``Main`` does not narrow its access, and it
    calls the candidate: a mutant is seen through the helper's recursion too."""
    from biocoder_metric.synth.java_harness import class_members

    _, members = class_members(EXPORTER)
    assert [(n, k) for n, k, _ in members] == [
        ("KEYS", "field"), ("WIDTHS", "field"), ("shortened", "method"), ("describe", "method"),
    ]  # fmt: skip
    source = EXPORTER.replace("return depth;", 'return "";')
    row, ctx = _repo_java_context(tmp_path / "export", "Exporter.java", source, "describe", DESCRIBE)
    assert "import java.awt.List;" in ctx and "private String describe(String key, int depth)" in ctx
    # the class's copy calls the candidate (by reflection), so the answer is not in the harness
    assert 'getDeclaredMethod("describe", String.class, int.class)' in ctx
    assert not pipeline.context_leaks_golden(row, ctx)
    got = _run_java(ctx, DESCRIBE, tmp_path)
    results = [ln for o in got for ln in o.splitlines() if ln.startswith("result: ")]
    assert results and len(set(results)) > 1
    assert _run_java(ctx, DESCRIBE.replace("% 2", "% 1"), tmp_path) != got


# (the index is computed: an index written as a parameter is drawn inside the array since round
# 28, java_relations, and the golden would reject nothing)
JAVA_PICKY = """public static int pick(int[] xs, int i) {
    return xs[i / 2] * 2 + i;
}"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_java_inputs_the_golden_rejects_are_drawn_again_and_the_rejections_compared(tmp_path: Path):
    """``xs[i]`` with an index out of range raises on many draws: the call is drawn again (up to
    the Python harnesses' ATTEMPTS), each rejection is a ``probe retry exception:`` line, so a
    candidate that accepts those inputs (or rejects others) prints something else."""
    from biocoder_metric.synth.python_harness import ATTEMPTS, RETRY_PREFIX

    ctx = _java_context("pick", JAVA_PICKY)
    seeds = range(6)
    golden = _run_java(ctx, JAVA_PICKY, tmp_path, seeds)
    lines = [ln for o in golden for ln in o.splitlines()]
    retries = [ln for ln in lines if ln.startswith(RETRY_PREFIX)]
    results = [ln for ln in lines if ln.startswith("result: ")]
    errors = [ln for ln in lines if ln.startswith("exception: ")]
    assert retries and set(retries) == {RETRY_PREFIX + "ArrayIndexOutOfBoundsException"}
    assert len(results) + len(errors) == 4 * len(seeds)  # one verdict per call, after its retries
    assert len(results) > len(errors)  # the redraws turn most rejected calls into results
    assert len(retries) <= (ATTEMPTS - 1) * 4 * len(seeds)
    lenient = JAVA_PICKY.replace("return xs[i / 2]", "return i / 2 >= xs.length ? 0 : xs[i / 2]")
    assert _run_java(ctx, lenient, tmp_path, seeds) != golden


ADD_COUNT = """private void addCount(int position, int length, String kmer) {
    if (position >= counts.length) {
        long[][] grown = new long[position + 1][];
        for (int i = 0; i < counts.length; i++) grown[i] = counts[i];
        for (int i = counts.length; i < grown.length; i++) grown[i] = new long[8];
        counts = grown;
    }
    if (kmer.indexOf("N") >= 0) return;
    seen++;
    ++counts[position][length % 8];
}"""

TALLY = (
    "package example;\n\n"
    "public class KmerTally {\n"
    "    private long[][] counts = new long[0][];\n"
    "    private int seen = 0;\n"
    '    private final String label = "kmers";\n\n'
    "    /** Count a k-mer at a position, growing the table as needed. */\n"
    + textwrap.indent(ADD_COUNT, "    ")
    + "\n}\n"
)


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac, java) to compile and run the harness"
)
def test_a_void_method_whose_effect_is_on_initialised_fields_shows_them_after_the_call(tmp_path: Path):
    """``addCount`` returns nothing and only changes fields that have initialisers (the harness
    does not set them): they are shown after the call, so a wrong count shows; a field the
    method only reads is not."""
    from biocoder_metric.synth.java_harness import changed_fields, class_members

    _, members = class_members(TALLY)
    assert [f.name for f in changed_fields(ADD_COUNT, [text for _, _, text in members])] == ["counts", "seen"]
    _, ctx = _repo_java_context(tmp_path / "tally", "KmerTally.java", TALLY, "addCount", ADD_COUNT)
    assert "after this.counts" in ctx and "after this.label" not in ctx
    got = _run_java(ctx, ADD_COUNT, tmp_path)
    assert any("after this.counts: [[" in o for o in got)
    assert _run_java(ctx, ADD_COUNT.replace("length % 8", "(length + 1) % 8"), tmp_path) != got
    assert _run_java(ctx, ADD_COUNT.replace("    seen++;\n", ""), tmp_path) != got


@pytest.mark.parametrize(
    ("golden", "stubbed", "bound"),
    [
        (
            "def index_file(fn):\n    index.get_index(fn, sep=' ')\n    return deepcopy(fn)\n",
            "index",
            "from copy import deepcopy",
        ),
        (
            "def count(fn):\n    return reader.count_records(fn) + len(dedent(fn))\n",
            "reader",
            "from textwrap import dedent",
        ),
        (
            "def total(xs):\n    return reduce(lambda a, b: a + b, xs) + digits.count_of(xs)\n",
            "digits",
            "from functools import reduce",
        ),
    ],
)
def test_a_bare_name_is_bound_to_a_standard_member_only_where_its_uses_fit(
    golden: str, stubbed: str, bound: str
):
    """``index.get_index(fn)`` reads an attribute ``operator.index`` lacks: the name was the
    project's module, so it stays unresolved (a stub stands in); names whose uses fit keep their
    standard binding."""
    from biocoder_metric.synth import python_slice

    name = golden.split("(")[0][4:]
    sl = python_slice.slice_golden(golden, name)
    assert stubbed in sl.unresolved and bound in sl.imports
    assert not any(line.endswith(f" import {stubbed}") for line in sl.imports)
    stubs, why = python_stubs.plan_stubs([golden], sl.unresolved)
    assert stubs is not None and any(label.startswith(stubbed) for label, _ in stubs.slots), why


@pytest.mark.parametrize(
    ("golden", "name"),
    [
        ("def ranked(reads):\n    return sorted(reads, key=read_score)\n", "read_score"),
        ("def cleaned(names):\n    return list(map(normalise, names))\n", "normalise"),
        (
            "def chunked(xs, n):\n    f = partial(scale_chunk, n)\n    return [f(x) for x in xs]\n",
            "scale_chunk",
        ),
    ],
)
def test_a_name_handed_to_a_call_that_calls_it_is_a_function_stub(golden: str, name: str, tmp_path: Path):
    """``sorted(xs, key=f)``, ``map(f, xs)``, ``partial(f, n)``: ``f`` has no source and is called
    later, so its stub is a function of its arguments, not a drawn value (every call raised)."""
    func = golden.split("(")[0][4:]
    ctx, desc = _context(golden, func)
    assert f"stub {name}()" in desc, desc
    results = _results(_run(ctx, golden, range(8), tmp_path))
    assert len(results) >= 6 and len(set(results)) >= 3, results


def test_a_name_used_as_a_value_and_through_attributes_is_the_namespace_it_stubs(tmp_path: Path):
    """``serializer.dumps(rec)`` and ``s = serializer``: the namespace the stub defines is the value
    handed on (before, the task stayed unresolved: "used both as a value and through calls")."""
    golden = (
        "def dump(rec, fmt=None):\n"
        "    s = serializer if fmt is None else fmt\n"
        "    return len(serializer.dumps(rec)) + (s is serializer)\n"
    )
    ctx, desc = _context(golden, "dump")
    assert "stub serializer.dumps()" in desc and "stub serializer" not in desc, desc
    results = _results(_run(ctx, golden, range(6), tmp_path))
    assert len(results) >= 4, results


DISPATCH = """
def describe(entry, width=6):
    if isinstance(entry, GeneRecord):
        label = 'gene:' + entry.name
    elif isinstance(entry, ExonRecord):
        label = 'exon:' + entry.name
    else:
        label = entry.name
    return label[:width]
"""


def test_a_value_tested_against_classes_with_no_source_is_sometimes_an_instance_of_each(tmp_path: Path):
    """``GeneRecord`` and ``ExonRecord`` are only tested with isinstance: the drawn record is now
    and then an instance of one (keeping its fields), so each branch of the dispatch runs and a
    bug in one of them shows (round 23)."""
    ctx, _ = _context(DISPATCH, "describe")
    golden = _run(ctx, DISPATCH, range(30), tmp_path)
    results = _results(golden)
    assert any("'gene:" in r for r in results) and any("'exon:" in r for r in results), results
    assert any("'gene:" not in r and "'exon:" not in r for r in results), results
    mutant = DISPATCH.replace("'exon:' + entry.name", "'gene:' + entry.name")
    assert _run(ctx, mutant, range(30), tmp_path) != golden
