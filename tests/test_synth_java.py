"""Java harness synthesis: signature parsing, class slicing, generators; compiled with javac (never run here)."""

from __future__ import annotations

import json
import re
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
    (java_stubs); a library interface with no generator stays a reported failure."""
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
    # a class of the image's jars with no generator is built through a public constructor (round
    # 25, java_stubs.jar_type); an interface of them, which nothing here implements, still fails
    library = "public static int count(htsjdk.variant.vcf.VCFHeader h) {\n    return h.getInfoHeaderLines().size();\n}"
    cands, reason, _ = candidates(_row(library, "count"), SynthOptions(), [])
    assert reason is None and "new htsjdk.variant.vcf.VCFHeader(" in cands[0][2]
    writer = (
        "public static int count(htsjdk.variant.variantcontext.writer.VariantContextWriter w) {\n"
        "    return w.checkError() ? 1 : 0;\n}"
    )
    cands, reason, _ = candidates(_row(writer, "count"), SynthOptions(), [])
    assert not cands and "VariantContextWriter" in reason


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


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_value_the_golden_checks_for_null_is_sometimes_null(tmp_path: Path):
    """``if (names == null) return -1;``: a harness whose every list is non-null never reaches
    the branch, so a mutant of it survives. A parameter (and a field with no source) the golden
    compares with null is drawn null now and then; a primitive never is; one the golden never
    checks keeps its plain generator."""
    golden = (
        "public static int count(List<String> names, String prefix, int k) {\n"
        "    if (names == null) return -1;\n"
        "    if (null != tag && k > 100) return -2;\n"
        "    int n = 0;\n"
        "    for (String s : names) if (s.startsWith(prefix)) n++;\n"
        "    return n + k * 0;\n}"
    )
    ctx = _first_harness(golden, "count")
    assert "? null : " in ctx.split("List<String> _a0 = ", 1)[1].split(";", 1)[0]
    assert "? null" not in ctx.split("String _a1 = ", 1)[1].split(";", 1)[0]  # never checked
    assert "? null" not in ctx.split("int _a2 = ", 1)[1].split(";", 1)[0]  # a primitive
    assert re.search(r"Main\.tag = \(_r\.nextInt\(\d+\) == 0 \? null : ", ctx)  # a stub field, checked
    ran = _build_and_run(tmp_path, golden, "count", ctx, [])
    results = re.findall(r"^result: (-?\d+)$", ran.stdout, re.M)
    # 1 fuzz case, SUBCASES calls: with seed 3 at least one draws null (-1) and one does not
    assert ran.returncode == 0 and "-1" in results and any(r != "-1" for r in results), ran.stdout


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (javac) to find what is missing")
def test_a_guessed_number_compared_with_null_becomes_its_boxed_kind():
    """``results`` has no source and is only compared with null and added to: the plain guess
    (an ``int``) cannot be compared with null, so javac rejected it and the task stayed
    unresolved. Its boxed kind compiles, and may be null."""
    golden = (
        "public static int total(int base) {\n"
        "    if (results != null) {\n        return base + results;\n    }\n"
        "    return base;\n}"
    )
    ctx = _first_harness(golden, "total")
    assert re.search(r"\bInteger results;", ctx), ctx


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_classes_with_no_source_sort_and_key_sorted_maps(tmp_path: Path):
    """``Collections.sort`` of the project's genes, and a ``TreeSet`` of them: a stub that is not
    ``Comparable`` did not compile (no suitable method for sort) or threw ClassCastException.
    Stubs compare by identity now, so the harness compiles, runs, and the order shows."""
    golden = (
        "public static int rank(List<Gene> genes) {\n"
        "    List<Gene> sorted = new ArrayList<>(genes);\n"
        "    Collections.sort(sorted);\n"
        "    TreeSet<Gene> set = new TreeSet<>(genes);\n"
        "    return sorted.indexOf(genes.get(0)) * 100 + set.size();\n}"
    )
    ctx = _first_harness(golden, "rank")
    ran = _build_and_run(tmp_path, golden, "rank", ctx, [])
    results = re.findall(r"^result: (\d+)$", ran.stdout, re.M)
    assert ran.returncode == 0 and len(results) >= 2 and "exception" not in ran.stdout, (
        ran.stdout + ran.stderr
    )
    assert len(set(results)) > 1, results  # the position of the first gene differs between calls


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_lambda_passed_to_a_helper_with_no_source_is_called_by_its_stub(tmp_path: Path):
    """``walk(tree, (node, depth) -> {...})``: javac names the lambda argument by its abbreviated
    text, which is no type, so the stub did not compile and the task stayed unresolved. The stub
    now takes an interface declared for the lambda and calls it; a parameter the lambda
    dereferences is a stub object (its members stubbed as javac names them), one it orders is a
    number, and what the lambda does shows in the output."""
    golden = (
        "public static int visit(Tree tree) {\n"
        "    int[] count = {0};\n"
        "    walk(tree, (node, depth) -> {\n"
        "        if (depth > 2) count[0] += node.weight();\n"
        "        mark(node);\n"
        "    });\n"
        "    return count[0];\n}"
    )
    ctx = _first_harness(golden, "visit")
    assert re.search(r"interface _BcFn_walk_1 \{ void call\(BcType_node node, Integer depth\); \}", ctx), ctx
    ran = _build_and_run(tmp_path, golden, "visit", ctx, [])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert re.search(r'^stub call: walk\[Tree\{_bcId: -?\d+\}, "<function>"\]$', ran.stdout, re.M), ran.stdout
    assert "stub call: mark[BcType_node" in ran.stdout  # the lambda ran
    assert len(set(re.findall(r"^result: (\d+)$", ran.stdout, re.M))) > 1, ran.stdout


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_what_a_lambda_returns_is_output_and_a_void_call_makes_it_a_statement(tmp_path: Path):
    """A lambda with a value (``g -> g.getName() + "!"``) returns it to the stub, which prints it;
    one whose single call is to a void method (``System.out.println``) was taken for a value
    first, and javac's "bad return type" makes it a statement."""
    golden = (
        "public static List<String> names(List<Gene> genes) {\n"
        '    List<String> out = mapAll(genes, g -> g.getName() + "!");\n'
        "    return out;\n}"
    )
    ctx = _first_harness(golden, "names")
    assert "interface _BcFn_mapAll_1 { Object call(BcType_g g); }" in ctx, ctx
    ran = _build_and_run(tmp_path, golden, "names", ctx, [])
    assert ran.returncode == 0 and re.search(r'^callback of mapAll: ".*!"$', ran.stdout, re.M), ran.stdout
    golden = (
        "public static int show(Tree tree) {\n    walk(tree, n -> System.out.println(n));\n    return 1;\n}"
    )
    ctx = _first_harness(golden, "show")
    assert "interface _BcFn_walk_1 { void call(Object n); }" in ctx, ctx
    assert _build_and_run(tmp_path, golden, "show", ctx, []).returncode == 0


def test_a_field_read_with_get_is_a_map_when_its_key_is_no_index_and_holds_objects_when_dereferenced():
    """``results.get(ref)`` with ``ref`` a project object, or ``names.get("x")``, is a lookup in a
    map, not a list index; an element used through its members (``sources.get(i).getSequence()``)
    is an object, not the plain guess (an Integer: "int cannot be dereferenced")."""
    from biocoder_metric.synth.java_stubs import field_type

    golden = "int f(List<Ref> refs) { for (Ref r : refs) { Double v = results.get(r); } return 0; }"
    assert field_type(golden, "results", "int") == "Map<Ref,Double>"
    assert (
        field_type('int f() { return names.get("x").size(); }', "names", "int")
        == "Map<String,BcType_namesItem>"
    )
    assert (
        field_type("int f(int i) { return srcs.get(i).length(); }", "srcs", "int") == "List<BcType_srcsItem>"
    )
    assert (
        field_type("int f(int i) { int t = xs.get(i); return t; }", "xs", "int") == "List<Integer>"
    )  # unchanged


@pytest.mark.skipif(shutil.which("javac") is None or not HTSJDK.exists(), reason="needs a JDK and htsjdk.jar")
def test_dereferenced_elements_class_arguments_and_reference_sequences_compile(tmp_path: Path):
    """Three goldens that stayed unresolved: a field's elements used through their members and
    assigned to an htsjdk ``ReferenceSequence`` (a library class with no generator before), a
    lookup keyed by a project object, and a ``Class<?>`` argument."""
    goldens = {
        "baseCount": (
            "public static int baseCount(ChrName chr) {\n"
            "    ReferenceSequence seq = sources.get(chr).getSequence(chr.toString());\n"
            "    return seq.length() + seq.getContigIndex();\n}"
        ),
        "isNumeric": (
            "public static String isNumeric(Class<?> type) {\n"
            '    return (Number.class.isAssignableFrom(type) ? "number " : "") + type.getSimpleName();\n}'
        ),
    }
    for name, golden in goldens.items():
        ctx = _first_harness(golden, name)
        ran = _build_and_run(tmp_path, golden, name, ctx, [str(HTSJDK)])
        assert ran.returncode == 0, ran.stderr[-500:]
        results = re.findall(r"^result: (.*)$", ran.stdout, re.M)
        assert len(set(results)) > 1, (name, ran.stdout[-800:])


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_super_calls_nested_classes_and_camel_case_constants_with_no_source_compile(tmp_path: Path):
    """Three shapes that stayed unresolved ("cannot find symbol" after every round):
    ``super.offset(x)`` (a method of the golden's parent class: its stub goes in the class the
    golden's class extends), ``Setting.Importance.LOW`` (a class nested in a class with no
    source), and ``OptLevel`` (a CamelCase constant passed as a value, not a class)."""
    goldens = {
        "shifted": "public int shifted(int x) {\n    return super.offset(x) + 1;\n}",
        "level": (
            "public static int level(int n) {\n"
            "    Setting s = new Setting(OptLevel, Setting.Importance.LOW, n);\n"
            "    return s.rank() + n;\n}"
        ),
    }
    for name, golden in goldens.items():
        ctx = _first_harness(golden, name)
        ran = _build_and_run(tmp_path, golden, name, ctx, [])
        assert ran.returncode == 0, ran.stderr[-500:]
        results = re.findall(r"^result: (.*)$", ran.stdout, re.M)
        assert len(results) >= 2 and len(set(results)) > 1, (name, ran.stdout[-800:])


def test_an_interface_default_method_is_inserted_without_default():
    """An interface's ``default`` method (``modifier default not allowed here`` in the harness's
    class) loses only that modifier, in a golden and a candidate alike; a switch's ``default:``
    and the rest of the method stay as written."""
    from biocoder_metric.languages.java import tidy_java

    method = (
        "/** Twice. */\n@Override\npublic default int twice(int x) {\n"
        "    switch (x) { default: return 2 * x; }\n}"
    )
    assert tidy_java(method) == (
        "/** Twice. */\npublic int twice(int x) {\n    switch (x) { default: return 2 * x; }\n}"
    )
    assert tidy_java("default <T> List<T> one(T t) { return List.of(t); }") == (
        "<T> List<T> one(T t) { return List.of(t); }"
    )
    plain = "int pick(int x) {\n    switch (x) { case 1: return 0; default: return x; }\n}"
    assert tidy_java(plain) == plain


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_default_method_golden_gets_a_harness_that_compiles_and_runs(tmp_path: Path):
    golden = "default int clipped(int x, int hi) {\n    return x > hi ? hi : x + 1;\n}"
    ctx = _first_harness(golden, "clipped")
    ran = _build_and_run(tmp_path, golden, "clipped", ctx, [])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert len(set(re.findall(r"^result: (.*)$", ran.stdout, re.M))) > 1, ran.stdout


@pytest.mark.skipif(
    shutil.which("javac") is None or shutil.which("jimage") is None or shutil.which("javap") is None,
    reason="needs a JDK with jimage and javap",
)
def test_a_jdk_class_outside_the_wildcard_imports_is_imported_when_it_has_what_the_golden_reads():
    """``Color`` (java.awt), ``TimeUnit`` (java.util.concurrent): the JDK's own classes, imported
    as a person would, not stand-ins with made-up values. A project class that shares a name
    with a JDK class the golden's use does not fit (``Sequence``: javax.sound.midi has no
    ``getResidues``) and a class the harness would have to draw as a parameter stay stubs."""
    from biocoder_metric.synth.java_stubs import jdk_class

    uses_color = "int red(int v) {\n    Color c = new Color(v, 0, 0);\n    return c.getRed() + Color.BLACK.getBlue();\n}"
    assert jdk_class("Color", uses_color) == "java.awt.Color"
    assert (
        jdk_class(
            "Sequence", "int n(int k) {\n    Sequence s = Sequence.of(k);\n    return s.getResidues();\n}"
        )
        is None
    )
    assert jdk_class("Color", "int red(Color c) {\n    return c.getRed();\n}") is None  # a parameter
    assert jdk_class("Node", "int f(int x) {\n    Node n = null;\n    return x;\n}") is None  # not public
    # the golden's own generic Box, not javax.swing.Box (which has no type parameters)
    assert (
        jdk_class("Box", "String f(String x) {\n    Box<String> b = new Box<String>(x);\n    return x;\n}")
        is None
    )
    golden = (
        "public static long waited(int n) {\n"
        "    long ms = TimeUnit.SECONDS.toMillis(n);\n"
        "    Color c = new Color(n % 256, 10, 20);\n"
        "    return ms + c.getRed() * 1000L + c.getGreen();\n}"
    )
    ctx = _first_harness(golden, "waited")
    assert "import java.util.concurrent.TimeUnit;" in ctx and "import java.awt.Color;" in ctx, ctx
    assert not re.search(r"class (TimeUnit|Color)\b", ctx), ctx


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_stub_called_inside_a_try_declares_the_checked_exception_its_catch_names(tmp_path: Path):
    """``try { ... fetch(path) ... } catch (IOException e)`` with ``fetch`` stubbed: a stub that
    declares nothing makes the catch a compile error ("exception IOException is never thrown in
    body of corresponding try statement"); the stubs called in the try now declare it."""
    from biocoder_metric.synth.java_stubs import caught_calls

    golden = (
        "public static int size(String path) {\n"
        "    int n = 0;\n"
        "    try {\n"
        "        n = fetch(path).length() + count(path, 2);\n"
        "    } catch (IllegalStateException | IOException e) {\n"
        "        return -1;\n"
        "    }\n"
        "    return n + log(n);\n}"
    )
    assert caught_calls(golden, "IOException") == {"fetch", "count", "length"}
    assert caught_calls(golden, "SQLException") == set()
    ctx = _first_harness(golden, "size")
    assert re.search(r"fetch\(String _p0\) throws IOException \{", ctx), ctx
    assert not re.search(r"log\([^)]*\) throws", ctx), ctx  # called outside the try
    ran = _build_and_run(tmp_path, golden, "size", ctx, [])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert len(set(re.findall(r"^result: (.*)$", ran.stdout, re.M))) > 1, ran.stdout


def test_an_element_dereferenced_blames_the_array_not_a_name_in_its_index():
    """``table[vertex.getIndex()].stream()``: javac's "cannot be dereferenced" caret follows the
    ``]``; the stub to retype is ``table`` (an array of objects), while ``getIndex`` stays an
    int, as the other index use (``labels[vertex.getIndex()] = k``) needs."""
    golden = (
        "public int degree(int[] labels, int k) {\n"
        "    labels[vertex.getIndex()] = k;\n"
        "    return adjacency[vertex.getIndex()].size() + labels[vertex.getIndex()];\n}"
    )
    ctx = _first_harness(golden, "degree")
    assert re.search(r"\bint getIndex\(", ctx), ctx
    assert re.search(r"BcType_adjacency\[\] adjacency;", ctx), ctx


TREE = """\
package org.ex;

import java.util.*;
import org.lib.graphs.Node;

public class Tree {
    private final Map<String, Node> byName = new LinkedHashMap<>();

    class TreeNode implements Node {
        private final String label;
        private double height;
        TreeNode(String label, double height) { this.label = label; this.height = height; }
        public String getLabel() { return label; }
        public void setHeight(double h) { height = h; }
        public double getHeight() { return height; }
    }

    /** Adds a leaf whose height grows with the tree. */
    public double addLeaf(String label, double height) {
        TreeNode node = new TreeNode(label, height * 2);
        byName.put(label, node);
        node.setHeight(node.getHeight() + byName.size());
        Node any = byName.get(label);
        any.setHeight(any.getHeight() + 1);
        return node.getHeight();
    }
}
"""


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_class_implementing_an_interface_with_no_source_extends_its_stub(tmp_path: Path):
    """``class TreeNode implements Node`` with ``Node`` from a library the image lacks: the stub
    is a class ("interface expected here"), so the sliced class extends it instead, and the stub's
    guessed ``int setHeight`` takes the class's own ``void`` (javac: "cannot override ... return
    type void is not compatible with int"). The harness compiles and the golden's result varies."""
    repo = tmp_path / "tree"
    (repo / "src" / "org" / "ex").mkdir(parents=True)
    (repo / "src" / "org" / "ex" / "Tree.java").write_text(TREE)
    golden = TREE[TREE.index("    /** Adds") : TREE.rindex("}")].strip()
    golden = "\n".join(ln[4:] if ln.startswith("    ") else ln for ln in golden.splitlines())
    row = _row(golden, "addLeaf", "src/org/ex/Tree.java")
    cands, reason, _ = candidates(row, SynthOptions(repos={"stats": str(repo)}), [])
    assert reason is None and cands, reason
    ctx = cands[0][2]
    assert re.search(r"class TreeNode extends Node \{", ctx), ctx
    assert re.search(r"\bvoid setHeight\(", ctx[: ctx.index("class TreeNode")]), ctx  # the stub's
    ran = _build_and_run(tmp_path, golden, "addLeaf", ctx, [])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert len(set(re.findall(r"^result: (.*)$", ran.stdout, re.M))) > 1, ran.stdout


def test_extend_stubs_rewrites_only_classes_that_extend_nothing():
    ext = java_harness.extend_stubs
    assert ext("class A implements Node {", {"Node"}) == "class A extends Node {"
    assert ext("static class B<T> implements Runnable, Node<T> {", {"Node"}) == (
        "static class B<T> extends Node implements Runnable {"
    )
    assert ext("class C extends D implements Node {", {"Node"}) == "class C extends D implements Node {"
    assert ext("class E implements Runnable {", {"Node"}) == "class E implements Runnable {"


def test_an_anonymous_subclass_is_retyped_like_a_named_stub():
    """``<anonymous BaseEdge> cannot be converted to Edge``: javac names an anonymous subclass so;
    it converts as its class does (the stub ``BaseEdge`` becomes a kind of ``Edge``)."""
    from biocoder_metric.synth.java_stubs import _retypes

    errors = (
        "Main.java:9: error: incompatible types: <anonymous BaseEdge> cannot be converted to Edge\n"
        "        edge = new BaseEdge() {\n               ^\n"
    )
    assert [(a, b) for a, b, _, _ in _retypes(errors)] == [("BaseEdge", "Edge")]


@pytest.mark.skipif(
    shutil.which("javac") is None, reason="needs a JDK (javac) to compile and run the harness"
)
def test_a_field_iterated_with_a_class_typed_loop_variable_is_a_list_of_that_class(tmp_path: Path):
    """``for (Alignment a : alignments)`` over a field with no source: a list of ``Alignment``
    (a stub class), as ``for (String s : names)`` already made a list of strings; before, a class
    type said nothing and the task ended "its type is not evident"."""
    from biocoder_metric.synth.java_stubs import field_type

    golden = (
        "public int total(int k) {\n"
        "    int n = k;\n"
        "    for (final Alignment a : alignments) n += a.getScore();\n"
        "    for (Object o : extras) n += o.hashCode() % 7;\n"
        "    return n;\n}"
    )
    assert field_type(golden, "alignments", "int") == "List<Alignment>"
    assert field_type(golden, "extras", "int") == "List<Object>"
    ctx = _first_harness(golden, "total")
    ran = _build_and_run(tmp_path, golden, "total", ctx, [])
    assert ran.returncode == 0, ran.stderr[-500:]
    assert len(set(re.findall(r"^result: (.*)$", ran.stdout, re.M))) > 1, ran.stdout
