"""Java harness synthesis: signature parsing, class slicing, generators; compiled with javac (never run here)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from biocoder_metric.execution import harness
from biocoder_metric.synth import java_harness
from biocoder_metric.synth.pipeline import SynthOptions, candidates, sibling_index

REPOS = Path(__file__).resolve().parent.parent.parent / "shared" / "repos"

STATS = """\
package org.example;

import java.util.*;
import org.example.internal.Thing;

public final class Stats {
    private static final double EPS = 1e-9;
    private final int scale;
    private List<Double> cache;
    private int unused;

    public Stats(int scale) { this.scale = scale; }

    /** Mean of an array. */
    public static double mean(double[] x) {
        double s = 0;
        for (double v : x) s += v;
        return s / Math.max(x.length, 1);
    }

    private static double sq(double v) { return v * v; }

    public static double variance(double[] x) {
        double m = mean(x), s = 0;
        for (double v : x) s += sq(v - m);
        return s / Math.max(x.length, 1) + EPS * 0;
    }

    public int scaled(int v) {
        return v * scale;
    }
}
"""


def _row(golden: str, name: str, file_path: str | None = None, meta: dict | None = None) -> dict:
    return {
        "task_id": "java_t",
        "language": "java",
        "function_name": name,
        "golden_code": golden,
        "file_path": file_path,
        "repository": "example/stats" if file_path else None,
        "metadata": json.dumps(meta or {}),
        "signature": None,
    }


def _first_harness(golden: str, name: str) -> str:
    """The first candidate harness synthesised for a golden with no source around it."""
    cands, reason, _ = candidates(_row(golden, name), SynthOptions(), [])
    assert reason is None and cands, reason
    return cands[0][2]


def test_parse_signature_generics_varargs_and_modifiers():
    rtype, params, static, tvars = java_harness.parse_signature(
        "public static <K, V> V getOrElse(Map<K, V> map, K key, V or) {\n return map.getOrDefault(key, or);\n}",
        "getOrElse",
    )
    assert (rtype, static, tvars) == ("V", True, ["K", "V"])
    assert [(p.type, p.name) for p in params] == [("Map<K,V>", "map"), ("K", "key"), ("V", "or")]
    rtype, params, static, _ = java_harness.parse_signature(
        'public String join(String delim, Object... args) { return ""; }', "join"
    )
    assert rtype == "String" and not static and params[1].type == "Object[]"
    rtype, _, static, _ = java_harness.parse_signature(
        "public static void complement(byte[] bases) { }", "complement"
    )
    assert rtype == "void" and static


def test_class_slice_takes_what_the_method_uses_transitively():
    cls, members, imports = java_harness.slice_class(STATS, java_harness_golden_variance(), "variance")
    text = "\n".join(members)
    assert cls == "Stats"
    assert "double mean(" in text and "double sq(" in text and "EPS" in text
    assert "unused" not in text and "scaled" not in text and "Stats(int scale)" not in text
    assert imports == ["import java.util.*;"]  # org.example.* is not in the image


def java_harness_golden_variance() -> str:
    return STATS[STATS.index("public static double variance") : STATS.index("public int scaled")].strip()


def test_generators_cover_the_supported_types():
    for t in (
        "int",
        "long",
        "short",
        "byte",
        "double",
        "float",
        "boolean",
        "char",
        "Integer",
        "Double",
        "String",
        "StringBuilder",
        "int[]",
        "double[]",
        "long[]",
        "byte[]",
        "char[]",
        "String[]",
        "List<Integer>",
        "List<String>",
        "Set<String>",
        "Map<String, Integer>",
        "Collection<Double>",
        "Function<Double, Double>",
        "float[]",
        "short[]",
        "boolean[]",
        "java.io.InputStream",
        "BufferedReader",
        "Reader",
        "OutputStream",
        "PrintStream",
        "PrintWriter",
        "Writer",
        "Exception",
        "java.io.IOException",
        "SortedMap<String, Integer>",
        "Supplier<String>",
        "Iterator<Integer>",
    ):
        assert java_harness.generator(t, "x", []) is not None, t
    assert java_harness.generator("VCFHeader", "header", []) is None


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
def test_rendered_harness_compiles_with_the_golden(tmp_path: Path):
    repo = tmp_path / "stats"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "Stats.java").write_text(STATS)
    for golden, name in (
        (java_harness_golden_variance(), "variance"),
        ("public int scaled(int v) {\n    return v * scale;\n}", "scaled"),
    ):
        subject = java_harness.analyse_java(_row(golden, name, "src/Stats.java"), repo)
        ctx = java_harness.render_java(subject)
        assert ctx is not None and ctx.count(harness.INSERT_MARKER) == 1
        if name == "scaled":
            assert "_o.scale = " in ctx  # the uninitialised final field loses `final` and gets a value
        row = {"task_id": "t", "language": "java", "function_name": name, "context": ctx, "signature": None}
        prog = harness.build_harness_programs(row, golden, fuzz_cases=1, seed=0)[0]
        (tmp_path / "Main.java").write_text(prog)
        done = subprocess.run(
            ["javac", "-d", str(tmp_path / "out"), str(tmp_path / "Main.java")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_helpers_without_source_are_stubbed_with_their_declared_type():
    """A helper upstream's metadata declares but no source gives becomes a stub of that type
    (java_stubs); a library type with no generator stays a reported failure."""
    golden = "public static double skew(double[] x) {\n    return mean(x) * 2;\n}"
    row = _row(golden, "skew", None, {"intraClassFieldsUsed": "public static double mean(double[] x);\n"})
    subject = java_harness.analyse_java(row)
    assert not subject.unresolved and subject.declared_methods == {"mean": "double"}
    cands, reason, _ = candidates(row, SynthOptions(), [])
    assert reason is None and "static double mean(double[] _p0)" in cands[0][2]
    # a result used as an object: javac rejects the first guess (``int cannot be dereferenced``),
    # and the helper then returns a stub object whose ``value()`` is declared in turn
    opaque = "public static double skew(double[] x) {\n    return helper(x).value();\n}"
    cands, reason, _ = candidates(_row(opaque, "skew"), SynthOptions(), [])
    assert reason is None and "static class BcType_helper" in cands[0][2]
    assert "static BcType_helper helper(double[] _p0)" in cands[0][2]
    # a parameter type nothing can stand in for (the image's own class, no generator) still fails
    library = "public static int count(htsjdk.variant.vcf.VCFHeader h) {\n    return h.getInfoHeaderLines().size();\n}"
    cands, reason, _ = candidates(_row(library, "count"), SynthOptions(), [])
    assert not cands and "VCFHeader" in reason


HTSJDK = Path("/usr/share/java/htsjdk.jar")

CLIPPED = """public static int clippedBases(SAMRecord read) {
    int n = 0;
    for (CigarElement e : read.getCigar().getCigarElements()) {
        if (e.getOperator() == CigarOperator.S) n += e.getLength();
    }
    return read.getReadNegativeStrandFlag() ? -n : n;
}"""


@pytest.mark.skipif(shutil.which("javac") is None or not HTSJDK.exists(), reason="needs a JDK and htsjdk.jar")
def _build_and_run(
    tmp_path: Path, golden: str, name: str, ctx: str, classpath: list[str], java_opts: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """The harness ``ctx`` with the golden inserted (fuzz seed 3), compiled and run on the host
    (our own golden, not a candidate); the compile must succeed, the run is returned."""
    row = {"task_id": "t", "language": "java", "function_name": name, "context": ctx, "signature": None}
    prog = harness.build_harness_programs(row, golden, fuzz_cases=1, seed=3)[0]
    (tmp_path / "Main.java").write_text(prog)
    flags = ["-cp", ":".join(classpath)] if classpath else []
    done = subprocess.run(
        ["javac", *flags, "-d", str(tmp_path / "out"), str(tmp_path / "Main.java")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_cp = ":".join([str(tmp_path / "out"), *classpath])
    return subprocess.run(
        ["java", *java_opts, "-cp", run_cp, "Main"], capture_output=True, text=True, timeout=120
    )


def test_an_htsjdk_read_is_built_by_its_setters_and_its_fields_agree(tmp_path: Path):
    """A ``SAMRecord`` parameter (the Java bioinformatics library the image ships) is a read
    built as a person would: a header with two references, bases, qualities and a CIGAR of one
    length, with soft clips, strands and mate fields varying between cases."""
    for t in ("SAMRecord", "htsjdk.samtools.SAMRecord", "List<SAMRecord>", "Cigar", "Interval", "Allele"):
        assert java_harness.generator(t, "x", []) is not None, t
    cands, reason, _ = candidates(_row(CLIPPED, "clippedBases"), SynthOptions(), [])
    assert reason is None and cands
    ran = _build_and_run(tmp_path, CLIPPED, "clippedBases", cands[0][2], [str(HTSJDK)])
    assert ran.returncode == 0, ran.stderr
    results = [ln for ln in ran.stdout.splitlines() if "result" in ln]
    assert len(results) >= 4 and "Exception" not in ran.stdout
    assert len(set(results)) > 1, results  # clips and strands vary: the count does too


@pytest.mark.upstream
def test_real_java_tasks_get_candidates(upstream_dir: Path):
    from biocoder_dataset.configs import load_problems

    rows = load_problems("java_public", source_dir=upstream_dir)
    repos = {"VarDictJava": str(REPOS / "VarDictJava")} if (REPOS / "VarDictJava").is_dir() else {}
    index = sibling_index(rows)
    ok = 0
    for r in rows:
        cands, reason, _ = candidates(
            r, SynthOptions(repos=repos), index.get((r["repository"] or "", r["file_path"] or ""))
        )
        ok += bool(cands)
        assert cands or reason
    assert ok >= 40, ok


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_a_helper_called_with_null_is_stubbed_with_an_object_parameter():
    """``report(null, "empty")``: javac names the argument's type ``<null>``; any reference type
    takes it, so the stub's parameter is an ``Object`` and the harness compiles."""
    golden = (
        "public static int first(int[] xs) {\n"
        '    if (xs.length == 0) {\n        report(null, "empty");\n        return -1;\n    }\n'
        "    int w = weight(null);\n    return xs[0] + w;\n}"
    )
    ctx = _first_harness(golden, "first")
    assert "report(Object _p0, String _p1)" in ctx and "weight(Object _p0)" in ctx


@pytest.mark.skipif(shutil.which("javac") is None or not HTSJDK.exists(), reason="needs a JDK and htsjdk.jar")
def test_a_class_several_jars_declare_is_the_one_the_harness_can_build():
    """``Interval`` is declared by commons-math, htsjdk's util and htsjdk's tribble: the import is
    the one a generator builds (htsjdk's util), not a failure."""
    golden = "public static int span(Interval iv) {\n    return iv.getEnd() - iv.getStart() + 1;\n}"
    assert "import htsjdk.samtools.util.Interval;" in _first_harness(golden, "span")


def test_type_arity_counts_the_type_arguments_the_golden_writes():
    from biocoder_metric.synth.java_stubs import type_arity

    golden = (
        "static int f(Table<String, List<Integer>> t, int n) {\n"
        "    Table<String, List<Integer>> u = new Table<>();\n"
        "    if (n < t.size) { return n > 2 ? 1 : 0; }\n"
        "    return 0;\n}"
    )
    assert type_arity(golden, "Table") == 2
    assert type_arity(golden, "List") == 1
    assert type_arity(golden, "n") == 0  # ``n < t.size`` is a comparison, not type arguments
    assert type_arity(golden, "Missing") == 0


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_a_generic_class_with_no_source_becomes_a_generic_stub():
    """``TreeCell<String>`` and ``Box<String>`` are the project's generic classes with no source:
    each stub takes as many type parameters as the golden writes (javac said "does not take
    parameters" before), a stub passed where another is wanted extends it even when written with
    type arguments, and a constructor called with ``null`` takes an ``Object`` there."""
    golden = (
        "public static String depth(TreeCell<String> cell) {\n"
        "    int d = 0;\n"
        "    for (TreeCell<String> c = cell; c != null && d < 50; c = c.parent) d++;\n"
        "    Box<String> b = new Box<String>(cell.label, null);\n"
        "    Shelf<String> s = b;\n"
        "    return b.name + d + cell.weight + s.hashCode();\n}"
    )
    ctx = _first_harness(golden, "depth")
    assert "static class TreeCell<_BcT0>" in ctx
    assert "static class Box<_BcT0> extends Shelf" in ctx and "static class Shelf<_BcT0>" in ctx
    assert "Box(String _p0, Object _p1)" in ctx


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
def test_arrays_of_floats_shorts_and_booleans_are_generated_and_compile():
    golden = (
        "public static double mix(float[] w, short[] c, boolean[] on) {\n"
        "    double s = 0;\n"
        "    for (int i = 0; i < Math.min(w.length, Math.min(c.length, on.length)); i++) if (on[i]) s += w[i] * c[i];\n"
        "    return s;\n}"
    )
    assert "_bcPrimArray(" in _first_harness(golden, "mix")


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac, java) to build and run")
def test_a_stub_holding_stubs_of_its_own_kind_is_filled_a_few_levels_deep(tmp_path: Path):
    """``Cell`` has no source and its field ``next`` is a ``Cell``: filling every field of every
    new stub never ended (a stack overflow in the constructor). The harness, run with the golden
    (our own code, so on the host), now builds a few levels and prints each case's result."""
    golden = (
        "public static int depth(Cell cell) {\n"
        "    int d = 0;\n"
        "    for (Cell c = cell; c != null && d < 100; c = c.next) d += c.weight > 0 ? 1 : 2;\n"
        "    return d;\n}"
    )
    ctx = _first_harness(golden, "depth")
    ran = _build_and_run(tmp_path, golden, "depth", ctx, [], ("-Xss512k",))
    assert ran.returncode == 0 and "StackOverflowError" not in ran.stderr, ran.stderr[-500:]
    assert "exception" not in ran.stdout and ran.stdout.strip(), ran.stdout[-500:]


def test_jdk_names_the_harness_imports_are_never_stubbed():
    """``List<Tag>`` next to a project class ``Tag`` with no source: ``Tag`` is stood in for, but
    ``List`` is java.util's (the harness imports ``java.util.*``). A stub named ``List`` shadowed
    it, and the golden stopped compiling (``for-each not applicable``, ``Main.List<Tag> cannot be
    converted to java.util.List<Tag>``)."""
    from biocoder_metric.synth.java_stubs import jdk_imported_names

    names = jdk_imported_names()
    assert {"List", "Map", "Deque", "BigInteger", "BufferedReader", "StringBuilder"} <= names
    golden = (
        "public static int count(Tag head, List<Tag> tags, Deque<Tag> queue) {\n"
        "    int n = 0;\n"
        "    for (Tag t : tags) if (t != null && t.score > head.score) n++;\n"
        "    return n + queue.size() + Collections.nCopies(2, head).size();\n}"
    )
    ctx = _first_harness(golden, "count")
    assert "class Tag" in ctx
    assert "class List" not in ctx and "class Deque" not in ctx


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
def test_a_guess_javac_rejects_is_retyped_on_the_stub_the_error_is_about():
    """``s.evaluate(sample, k).best()``: javac says "int cannot be dereferenced" with its caret on
    the ``.`` of ``.best``; the stub to retype is ``evaluate`` (whose result is dereferenced), not
    ``sample``, the name nearest the caret. ``int m = t.meanValue()`` (guessed a double from its
    name) is "possible lossy conversion from double to int": the stub returns an int."""
    golden = (
        "public static int rank(int k) {\n"
        "    Scorer s = new Scorer();\n"
        "    Tally t = (Tally) s.evaluate(sample, k).best();\n"
        "    int m = t.meanValue();\n"
        "    return m + k;\n}"
    )
    _first_harness(golden, "rank")  # asserts a harness compiled: javac accepted the retyped stubs


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to compile the harness")
def test_a_nested_jdk_class_javac_names_by_its_simple_name_is_the_one_the_line_writes():
    """``area = new Rectangle2D.Double(...)`` into a field with no source: javac says "Double
    cannot be converted to int". The field is a ``Rectangle2D.Double`` (what the line writes), not
    java.lang's ``Double``, and ``area.add(p)`` then compiles."""
    golden = (
        "public static double grow(double w, Point2D p) {\n"
        "    area = new Rectangle2D.Double(0, 0, w, w);\n"
        "    area.add(p);\n"
        "    return area.getWidth() + area.getHeight();\n}"
    )
    assert "Rectangle2D.Double area" in _first_harness(golden, "grow")


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_a_class_several_jars_declare_and_none_is_built_is_a_stub_of_what_the_golden_uses():
    """``Utils.scale(...)``: many jars of the image declare a ``Utils`` and no generator builds one,
    so no import is a safe guess; like a helper with no source, it becomes a stub of the static
    methods the golden calls (before: "no source for class Utils (several jars declare one)")."""
    golden = (
        "public static int scaledLength(String s, int k) {\n    return Utils.scale(s.length(), k) + 1;\n}"
    )
    cands, reason, _ = candidates(_row(golden, "scaledLength"), SynthOptions(), [])
    assert reason is None and cands
    ctx = cands[0][2]
    assert "class Utils" in ctx and "scale(int _p0, int _p1)" in ctx
    assert not any(line.startswith("import ") and line.endswith(".Utils;") for line in ctx.splitlines())
